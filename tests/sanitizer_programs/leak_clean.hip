// leak.hip without its bug: everything is freed.
// OPTIONS: --leak-check full
// EXPECT: ERROR SUMMARY: 0 errors
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void fill(float* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1.0f;
}

int main() {
  float *buffer, *scratch, *pinned;
  hipMalloc(&buffer, 1024 * sizeof(float));
  hipMalloc(&scratch, 24);
  hipHostMalloc(&pinned, 16 * sizeof(float));
  fill<<<4, 256>>>(buffer, 1024);
  printf("%s\n", hipGetErrorName(hipDeviceSynchronize()));
  hipFree(scratch);
  hipFree(buffer);
  hipHostFree(pinned);
  return 0;
}
