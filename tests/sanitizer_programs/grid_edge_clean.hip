// grid_edge.hip without its bug: the guard is i < n.
// EXPECT: ERROR SUMMARY: 0 errors
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void saxpy(float a, const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i];
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
