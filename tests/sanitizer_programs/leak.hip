// Memory never freed: the device buffer and the pinned one outlive the program (the
// scratch buffer is freed), reported at exit by --leak-check full.
// OPTIONS: --leak-check full
// EXPECT: Leaked 4096 bytes at 0x
// EXPECT: (device memory)
// EXPECT: Leaked 64 bytes at 0x
// EXPECT: (pinned host memory)
// EXPECT: LEAK SUMMARY: 4160 bytes leaked in 2 allocations
// EXPECT: ERROR SUMMARY: 2 errors
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
  return 0;
}
