// An off-by-one at the grid's edge: the guard lets thread n write one element past
// the end of `out` (n = 1000, blocks of 256: thread 232 of block 3).
// EXPECT: Invalid __global__ write of size 4 bytes
// EXPECT: at saxpy+0x
// EXPECT: grid_edge.hip:{line}
// EXPECT: by thread (232,0,0) in block (3,0,0)
// EXPECT: is 0 bytes after the nearest allocation at 0x
// EXPECT: of size 4000 bytes
// EXPECT: ERROR SUMMARY: 1 error
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void saxpy(float a, const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = a * (i < n ? x[i] : 0.0f);  // <- the bad write
}

int main() {
  const int n = 1000;
  float *x, *out;
  hipMalloc(&x, n * sizeof(float));
  hipMalloc(&out, n * sizeof(float));
  hipMemset(x, 0, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(2.0f, x, out, n);
  printf("%s\n", hipGetErrorName(hipDeviceSynchronize()));
  return 0;
}
