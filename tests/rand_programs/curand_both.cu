// A cuRAND program as CUDA users write it: the host API fills device arrays with
// Philox's uniform and normal numbers, a kernel draws XORWOW's and Philox's own from
// the device API, and everything goes to a binary file: argv = seed, offset, n, file.
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CURAND(call)                                              \
  do {                                                                  \
    curandStatus_t s_ = (call);                                         \
    if (s_ != CURAND_STATUS_SUCCESS) {                                  \
      fprintf(stderr, "%s failed: %d\n", #call, (int)s_);               \
      return 1;                                                         \
    }                                                                   \
  } while (0)

__global__ void draw(unsigned long long seed, int n, float* uniform, float2* normal, unsigned int* bits) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  curandState xorwow;
  curand_init(seed, t, 0, &xorwow);
  uniform[t] = curand_uniform(&xorwow);
  curandStatePhilox4_32_10_t philox;
  curand_init(seed, t, 0, &philox);
  normal[t] = curand_normal2(&philox);
  bits[t] = curand(&philox);
}

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const unsigned long long seed = strtoull(argv[1], nullptr, 10), offset = strtoull(argv[2], nullptr, 10);
  const int n = atoi(argv[3]);
  float *uniform, *normal, *k_uniform;
  float2* k_normal;
  unsigned int *poisson, *k_bits;
  cudaMalloc(&uniform, n * sizeof(float));
  cudaMalloc(&normal, n * sizeof(float));
  cudaMalloc(&poisson, n * sizeof(unsigned int));
  cudaMalloc(&k_uniform, n * sizeof(float));
  cudaMalloc(&k_normal, n * sizeof(float2));
  cudaMalloc(&k_bits, n * sizeof(unsigned int));

  curandGenerator_t gen;
  CHECK_CURAND(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CHECK_CURAND(curandSetPseudoRandomGeneratorSeed(gen, seed));
  CHECK_CURAND(curandSetGeneratorOffset(gen, offset));
  CHECK_CURAND(curandGenerateUniform(gen, uniform, n));
  CHECK_CURAND(curandGenerateNormal(gen, normal, n, 2.0f, 0.5f));
  CHECK_CURAND(curandGeneratePoisson(gen, poisson, n, 3.0));
  CHECK_CURAND(curandDestroyGenerator(gen));

  draw<<<(n + 127) / 128, 128>>>(seed, n, k_uniform, k_normal, k_bits);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;

  std::vector<float> f(n);
  std::vector<float2> f2(n);
  std::vector<unsigned int> u(n);
  FILE* out = fopen(argv[4], "wb");
  for (float* d : {uniform, normal, k_uniform}) {
    cudaMemcpy(f.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    fwrite(f.data(), sizeof(float), n, out);
  }
  cudaMemcpy(f2.data(), k_normal, n * sizeof(float2), cudaMemcpyDeviceToHost);
  fwrite(f2.data(), sizeof(float2), n, out);
  for (unsigned int* d : {poisson, k_bits}) {
    cudaMemcpy(u.data(), d, n * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    fwrite(u.data(), sizeof(unsigned int), n, out);
  }
  fclose(out);
  printf("done %d\n", n);
  return 0;
}
