// Per-block sums and counts of positive values, written the way CUDA code usually is:
// 32 lanes per warp in the lane arithmetic, the shuffle loop and the 32-bit masks.
//
// usage: warp_reduce INPUT.f32 OUTPUT.f32
//   reads float32 values, writes one float32 sum per block of 256 values (the input
//   is zero-padded to whole blocks) and prints "positives=N" and "blocks=B".
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

constexpr int kBlock = 256;

__global__ void block_sums(const float* in, int n, float* sums, unsigned int* positives) {
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  float v = i < n ? in[i] : 0.0f;

  unsigned ballot = __ballot_sync(0xffffffff, v > 0.0f);
  if (lane == 0) atomicAdd(positives, (unsigned int)__popc(ballot));

  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w) s += partial[w];
    sums[blockIdx.x] = s;
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s INPUT.f32 OUTPUT.f32\n", argv[0]);
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  std::vector<float> x;
  float value;
  while (fread(&value, sizeof value, 1, f) == 1) x.push_back(value);
  fclose(f);
  const int n = (int)x.size();
  const int blocks = (n + kBlock - 1) / kBlock;

  float *d_in, *d_sums;
  unsigned int* d_positives;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_sums, blocks * sizeof(float)));
  CHECK(cudaMalloc(&d_positives, sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_in, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_positives, 0, sizeof(unsigned int)));
  block_sums<<<blocks, kBlock>>>(d_in, n, d_sums, d_positives);
  CHECK(cudaGetLastError());

  std::vector<float> sums(blocks);
  unsigned int positives = 0;
  CHECK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&positives, d_positives, sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_positives));

  FILE* out = fopen(argv[2], "wb");
  if (!out) return 2;
  fwrite(sums.data(), sizeof(float), sums.size(), out);
  fclose(out);
  printf("blocks=%d\npositives=%u\n", blocks, positives);
  return 0;
}
