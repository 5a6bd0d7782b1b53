// A byte histogram of N pseudo-random bytes made on the device from a seed: per-block
// histograms with atomics on shared memory in a grid-stride loop, merged with atomics
// on global memory; atomicMin/atomicMax find the smallest and largest byte.
//
// usage: histogram SEED N
//   prints "min=A", "max=B", "total=T" and "bins=" with the 256 counts.  Byte i is the
//   top byte of splitmix64(SEED + i * golden) (the test computes the same in NumPy).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

__device__ uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__global__ void generate(unsigned char* data, int n, uint64_t seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = (unsigned char)(splitmix64(seed + i * 0x9E3779B97F4A7C15ull) >> 56);
}

__global__ void histogram(const unsigned char* data, int n, unsigned int* bins, int* low, int* high) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  int smallest = 255, largest = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int v = data[i];
    atomicAdd(&local[v], 1u);
    smallest = min(smallest, v);
    largest = max(largest, v);
  }
  atomicMin(low, smallest);
  atomicMax(high, largest);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s SEED N\n", argv[0]);
    return 2;
  }
  const uint64_t seed = strtoull(argv[1], nullptr, 10);
  const int n = atoi(argv[2]);

  unsigned char* d_data;
  unsigned int* d_bins;
  int *d_low, *d_high;
  const int start_low = 255, start_high = 0;
  CHECK(cudaMalloc(&d_data, n));
  CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMalloc(&d_low, sizeof(int)));
  CHECK(cudaMalloc(&d_high, sizeof(int)));
  CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_low, &start_low, sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_high, &start_high, sizeof(int), cudaMemcpyHostToDevice));

  generate<<<(n + 255) / 256, 256>>>(d_data, n, seed);
  CHECK(cudaGetLastError());
  histogram<<<8, 128>>>(d_data, n, d_bins, d_low, d_high);
  CHECK(cudaGetLastError());

  unsigned int bins[256];
  int low, high;
  CHECK(cudaMemcpy(bins, d_bins, sizeof bins, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&low, d_low, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&high, d_high, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_data));
  CHECK(cudaFree(d_bins));
  CHECK(cudaFree(d_low));
  CHECK(cudaFree(d_high));

  unsigned long long total = 0;
  for (unsigned int b : bins) total += b;
  printf("min=%d\nmax=%d\ntotal=%llu\nbins=", low, high, total);
  for (int b = 0; b < 256; ++b) printf(b ? " %u" : "%u", bins[b]);
  printf("\n");
  return 0;
}
