// An MTGP32 cuRAND program as CUDA users write it: the parameter sets copied to the
// device, a state a block made from the seed (the MTGP32 host functions), and a kernel
// whose blocks (two-dimensional, 128 threads) draw their numbers together: `rounds`
// rounds each of bits, uniforms and normal doubles, then pairs of uniforms for a Monte
// Carlo estimate of pi.  The host API's
// MTGP32 generator then makes n numbers, n uniform doubles and n normals (n may be odd:
// MTGP32's normals are one a number).  Everything goes to a binary file, the estimate
// to stdout: argv = seed, blocks, rounds, n, file.
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>

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

__global__ void draw(curandStateMtgp32_t* states, int rounds, unsigned int* bits, float* uniform,
                     double* normal, unsigned long long* inside) {
  const int threads = blockDim.x * blockDim.y, t = threadIdx.x + blockDim.x * threadIdx.y;
  curandStateMtgp32_t* state = &states[blockIdx.x];
  for (int r = 0; r < rounds; ++r) bits[((size_t)blockIdx.x * rounds + r) * threads + t] = curand(state);
  for (int r = 0; r < rounds; ++r) uniform[((size_t)blockIdx.x * rounds + r) * threads + t] = curand_uniform(state);
  for (int r = 0; r < rounds; ++r)
    normal[((size_t)blockIdx.x * rounds + r) * threads + t] = curand_normal_double(state);
  unsigned long long hits = 0;
  for (int r = 0; r < rounds; ++r) {
    const float x = curand_uniform(state), y = curand_uniform(state);
    hits += x * x + y * y <= 1.0f;
  }
  atomicAdd(inside, hits);
}

int main(int argc, char** argv) {
  if (argc != 6) return 2;
  const unsigned long long seed = strtoull(argv[1], nullptr, 10);
  const int blocks = atoi(argv[2]), rounds = atoi(argv[3]);
  const size_t n = strtoul(argv[4], nullptr, 10), k = (size_t)blocks * rounds * 128;

  mtgp32_kernel_params_t* params;
  curandStateMtgp32_t* states;
  unsigned int *bits, *host_bits;
  float *uniform, *host_normal;
  double *normal, *host_uniform;
  unsigned long long* inside;
  cudaMalloc(&params, sizeof(mtgp32_kernel_params_t));
  cudaMalloc(&states, blocks * sizeof(curandStateMtgp32_t));
  cudaMalloc(&bits, k * sizeof(unsigned int));
  cudaMalloc(&uniform, k * sizeof(float));
  cudaMalloc(&normal, k * sizeof(double));
  cudaMalloc(&inside, sizeof(unsigned long long));
  cudaMemset(inside, 0, sizeof(unsigned long long));
  CHECK_CURAND(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, params));
  CHECK_CURAND(curandMakeMTGP32KernelState(states, mtgp32dc_params_fast_11213, params, blocks, seed));
  draw<<<blocks, dim3(32, 4)>>>(states, rounds, bits, uniform, normal, inside);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;

  cudaMalloc(&host_bits, n * sizeof(unsigned int));
  cudaMalloc(&host_uniform, n * sizeof(double));
  cudaMalloc(&host_normal, n * sizeof(float));
  curandGenerator_t gen;
  CHECK_CURAND(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_MTGP32));
  CHECK_CURAND(curandSetPseudoRandomGeneratorSeed(gen, seed));
  CHECK_CURAND(curandGenerate(gen, host_bits, n));
  CHECK_CURAND(curandGenerateUniformDouble(gen, host_uniform, n));
  CHECK_CURAND(curandGenerateNormal(gen, host_normal, n, 1.0f, 2.0f));
  CHECK_CURAND(curandDestroyGenerator(gen));

  std::vector<unsigned int> b(k), hb(n);
  std::vector<float> u(k), hn(n);
  std::vector<double> z(k), hu(n);
  unsigned long long hits = 0;
  cudaMemcpy(b.data(), bits, k * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  cudaMemcpy(u.data(), uniform, k * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(z.data(), normal, k * sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hits, inside, sizeof(hits), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), host_bits, n * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  cudaMemcpy(hu.data(), host_uniform, n * sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(hn.data(), host_normal, n * sizeof(float), cudaMemcpyDeviceToHost);
  FILE* out = fopen(argv[5], "wb");
  fwrite(b.data(), sizeof(unsigned int), k, out);
  fwrite(u.data(), sizeof(float), k, out);
  fwrite(z.data(), sizeof(double), k, out);
  fwrite(hb.data(), sizeof(unsigned int), n, out);
  fwrite(hu.data(), sizeof(double), n, out);
  fwrite(hn.data(), sizeof(float), n, out);
  fclose(out);
  printf("inside %llu pi %.4f\n", hits, 4.0 * hits / k);
  return 0;
}
