// Sum and maximum of N pseudo-random floats in [-1, 1), made on the host from a seed:
// a shared-memory tree reduction in dynamic shared memory, block results combined
// with atomicAdd on a float and atomicMax on the order-preserving bits of a float.
//
// usage: block_reduce SEED N BLOCK
//   prints "sum=S", "max=M" and "blocks=B".  Value i is splitmix64(SEED + i * golden)
//   >> 40, divided by 2^24, times 2, minus 1 (the test computes the same in NumPy).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

static float value_at(uint64_t seed, uint64_t i) {
  uint64_t z = seed + i * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(z >> 40) / 16777216.0f * 2.0f - 1.0f;
}

// A float's bits as an int that orders as the floats do (for atomicMax).
__host__ __device__ int ordered(float f) {
  int b;
  memcpy(&b, &f, sizeof b);
  return b >= 0 ? b : b ^ 0x7fffffff;
}

__global__ void reduce(const float* x, int n, float* sum, int* max_bits) {
  extern __shared__ float cache[];  // blockDim.x sums, then blockDim.x maxima
  float* sums = cache;
  float* maxima = cache + blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sums[threadIdx.x] = i < n ? x[i] : 0.0f;
  maxima[threadIdx.x] = i < n ? x[i] : -2.0f;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      sums[threadIdx.x] += sums[threadIdx.x + s];
      maxima[threadIdx.x] = fmaxf(maxima[threadIdx.x], maxima[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(sum, sums[0]);
    atomicMax(max_bits, ordered(maxima[0]));
  }
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s SEED N BLOCK\n", argv[0]);
    return 2;
  }
  const uint64_t seed = strtoull(argv[1], nullptr, 10);
  const int n = atoi(argv[2]), block = atoi(argv[3]);
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = value_at(seed, i);
  const int blocks = (n + block - 1) / block;

  float *d_x, *d_sum;
  int* d_max;
  const float zero = 0.0f;
  const int lowest = ordered(-2.0f);
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_sum, sizeof(float)));
  CHECK(cudaMalloc(&d_max, sizeof(int)));
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_sum, &zero, sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_max, &lowest, sizeof(int), cudaMemcpyHostToDevice));
  reduce<<<blocks, block, 2 * block * sizeof(float)>>>(d_x, n, d_sum, d_max);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  float sum;
  int max_bits;
  CHECK(cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&max_bits, d_max, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_sum));
  CHECK(cudaFree(d_max));
  int bits = max_bits >= 0 ? max_bits : max_bits ^ 0x7fffffff;
  float max;
  memcpy(&max, &bits, sizeof max);
  printf("blocks=%d\nsum=%.9g\nmax=%.9g\n", blocks, sum, max);
  return 0;
}
