// A stale pointer after hipFree: the kernel reads `data` after the host freed it.
// EXPECT: Invalid __global__ read of size 4 bytes
// EXPECT: at total+0x
// EXPECT: stale_pointer.hip:{line}
// EXPECT: by thread (0,0,0) in block (0,0,0)
// EXPECT: is in freed memory
// EXPECT: is 0 bytes inside the device allocation at 0x
// EXPECT: of size 256 bytes, which was freed
// EXPECT: ERROR SUMMARY: 64 errors
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void total(const int* data, int n, int* out) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += data[i];  // <- the bad reads
  *out = s;
}

int main() {
  int *data, *out;
  hipMalloc(&data, 64 * sizeof(int));
  hipMalloc(&out, sizeof(int));
  hipMemset(data, 0, 64 * sizeof(int));
  hipFree(data);
  total<<<1, 1>>>(data, 64, out);
  printf("%s\n", hipGetErrorName(hipDeviceSynchronize()));
  return 0;
}
