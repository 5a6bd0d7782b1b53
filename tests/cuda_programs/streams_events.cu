// Two streams and events: each stream copies half of the input from pinned memory,
// computes y = a * x + b on it, and records an event; stream 1 then waits for stream 0's
// event and writes z[i] = y[i] + y[n - 1 - i], which needs both halves.
//
// usage: streams_events INPUT.f32 A B OUTPUT.f32
//   reads float32 x (an even count), writes float32 z, and prints "elapsed_ok=1" when the
//   events' elapsed time is a number >= 0 and "queries_ok=1" when the stream and event
//   queries report completion after synchronizing.
#include <cuda_runtime.h>

#include <cmath>
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

__global__ void affine(const float* x, float* y, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

__global__ void mirror_sum(const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = y[i] + y[n - 1 - i];
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s INPUT.f32 A B OUTPUT.f32\n", argv[0]);
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  const int n = (int)(ftell(f) / sizeof(float));
  fseek(f, 0, SEEK_SET);
  const int half = n / 2;
  const float a = (float)atof(argv[2]), b = (float)atof(argv[3]);
  const size_t half_bytes = half * sizeof(float);

  float *h_x, *h_z;
  CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
  CHECK(cudaMallocHost(&h_z, n * sizeof(float)));
  if (fread(h_x, sizeof(float), n, f) != (size_t)n) return 2;
  fclose(f);

  float *d_x, *d_y, *d_z;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CHECK(cudaMalloc(&d_z, n * sizeof(float)));

  cudaStream_t streams[2];
  cudaEvent_t start, half_done[2], stop;
  for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (auto& e : half_done) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  CHECK(cudaEventRecord(start, streams[0]));
  const int block = 128, grid = (half + block - 1) / block;
  for (int s = 0; s < 2; ++s) {
    const int offset = s * half;
    CHECK(cudaMemcpyAsync(d_x + offset, h_x + offset, half_bytes, cudaMemcpyHostToDevice, streams[s]));
    affine<<<grid, block, 0, streams[s]>>>(d_x + offset, d_y + offset, half, a, b);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(half_done[s], streams[s]));
  }
  CHECK(cudaStreamWaitEvent(streams[1], half_done[0], 0));
  mirror_sum<<<(n + block - 1) / block, block, 0, streams[1]>>>(d_y, d_z, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_z, d_z, n * sizeof(float), cudaMemcpyDeviceToHost, streams[1]));
  CHECK(cudaEventRecord(half_done[1], streams[1]));
  CHECK(cudaStreamWaitEvent(streams[0], half_done[1], 0));
  CHECK(cudaEventRecord(stop, streams[0]));
  CHECK(cudaEventSynchronize(stop));

  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  const bool queries_ok = cudaStreamQuery(streams[1]) == cudaSuccess && cudaEventQuery(stop) == cudaSuccess;

  FILE* out = fopen(argv[4], "wb");
  if (!out) return 2;
  fwrite(h_z, sizeof(float), n, out);
  fclose(out);
  printf("elapsed_ok=%d\nqueries_ok=%d\n", std::isfinite(ms) && ms >= 0.0f, queries_ok);

  for (auto& s : streams) CHECK(cudaStreamDestroy(s));
  for (auto& e : half_done) CHECK(cudaEventDestroy(e));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_z));
  CHECK(cudaFreeHost(h_x));
  CHECK(cudaFreeHost(h_z));
  return 0;
}
