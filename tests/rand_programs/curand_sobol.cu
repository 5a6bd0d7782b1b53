// A quasi-Monte Carlo cuRAND program as CUDA users write it: the host API fills a
// device array with SOBOL32 points of several dimensions, and a kernel makes the same
// points itself from cuRAND's direction vectors (each thread a stretch of one
// dimension, after a skip ahead), with their normals.  It estimates the mean of
// x1 * x2 * ... over the unit cube from the host API's points, and writes everything
// to a binary file: argv = dimensions, offset, points, file.
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

#define STRETCH 64  // the points one thread makes

__global__ void points(curandDirectionVectors32_t* vectors, unsigned int offset, int dimensions, int m,
                       float* uniform, double* normal) {
  const int stretches = (m + STRETCH - 1) / STRETCH;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= dimensions * stretches) return;
  const int d = t / stretches, first = (t % stretches) * STRETCH;
  curandStateSobol32_t u, z;
  curand_init(vectors[d], offset, &u);
  skipahead((unsigned int)first, &u);
  curand_init(vectors[d], offset + first, &z);
  for (int i = first; i < first + STRETCH && i < m; ++i) {
    uniform[(size_t)d * m + i] = curand_uniform(&u);
    normal[(size_t)d * m + i] = curand_normal_double(&z);
  }
}

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const int dimensions = atoi(argv[1]), m = atoi(argv[3]);
  const unsigned int offset = (unsigned int)strtoul(argv[2], nullptr, 10);
  const size_t n = (size_t)dimensions * m;
  unsigned int* bits;
  double* host_uniform;
  float* uniform;
  double* normal;
  cudaMalloc(&bits, n * sizeof(unsigned int));
  cudaMalloc(&host_uniform, n * sizeof(double));
  cudaMalloc(&uniform, n * sizeof(float));
  cudaMalloc(&normal, n * sizeof(double));

  curandGenerator_t gen;
  CHECK_CURAND(curandCreateGenerator(&gen, CURAND_RNG_QUASI_SOBOL32));
  CHECK_CURAND(curandSetQuasiRandomGeneratorDimensions(gen, dimensions));
  CHECK_CURAND(curandSetGeneratorOffset(gen, offset));
  CHECK_CURAND(curandGenerate(gen, bits, n));
  CHECK_CURAND(curandSetGeneratorOffset(gen, offset));
  CHECK_CURAND(curandGenerateUniformDouble(gen, host_uniform, n));
  CHECK_CURAND(curandDestroyGenerator(gen));

  curandDirectionVectors32_t* vectors;
  CHECK_CURAND(curandGetDirectionVectors32(&vectors, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  curandDirectionVectors32_t* device_vectors;
  cudaMalloc(&device_vectors, dimensions * sizeof(curandDirectionVectors32_t));
  cudaMemcpy(device_vectors, vectors, dimensions * sizeof(curandDirectionVectors32_t), cudaMemcpyHostToDevice);
  const int threads = dimensions * ((m + STRETCH - 1) / STRETCH);
  points<<<(threads + 127) / 128, 128>>>(device_vectors, offset, dimensions, m, uniform, normal);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;

  std::vector<unsigned int> b(n);
  std::vector<double> h(n), z(n);
  std::vector<float> f(n);
  cudaMemcpy(b.data(), bits, n * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h.data(), host_uniform, n * sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(f.data(), uniform, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(z.data(), normal, n * sizeof(double), cudaMemcpyDeviceToHost);
  double mean = 0;
  for (int i = 0; i < m; ++i) {
    double product = 1;
    for (int d = 0; d < dimensions; ++d) product *= h[(size_t)d * m + i];
    mean += product / m;
  }
  FILE* out = fopen(argv[4], "wb");
  fwrite(b.data(), sizeof(unsigned int), n, out);
  fwrite(h.data(), sizeof(double), n, out);
  fwrite(f.data(), sizeof(float), n, out);
  fwrite(z.data(), sizeof(double), n, out);
  fclose(out);
  printf("mean %.17g\n", mean);
  return 0;
}
