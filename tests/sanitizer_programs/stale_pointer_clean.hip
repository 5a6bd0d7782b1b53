// stale_pointer.hip without its bug: the memory is freed after the kernel.
// EXPECT: ERROR SUMMARY: 0 errors
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void total(const int* data, int n, int* out) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += data[i];
  *out = s;
}

int main() {
  int *data, *out;
  hipMalloc(&data, 64 * sizeof(int));
  hipMalloc(&out, sizeof(int));
  hipMemset(data, 0, 64 * sizeof(int));
  total<<<1, 1>>>(data, 64, out);
  printf("%s\n", hipGetErrorName(hipDeviceSynchronize()));
  hipFree(data);
  return 0;
}
