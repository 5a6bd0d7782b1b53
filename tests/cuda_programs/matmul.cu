// C = A * B with square shared-memory tiles (a template on the tile size), on a 2-D grid;
// the matrices need not be multiples of the tile.
//
// usage: matmul M K N A.f32 B.f32 C.f32 TILE
//   A is M x K and B is K x N, row-major float32; TILE is 8 or 16.  Prints "tiles=T".
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

template <int Tile>
__global__ void matmul(const float* a, const float* b, float* c, int m, int k, int n) {
  __shared__ float as[Tile][Tile];
  __shared__ float bs[Tile][Tile];
  const int row = blockIdx.y * Tile + threadIdx.y;
  const int col = blockIdx.x * Tile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += Tile) {
    as[threadIdx.y][threadIdx.x] = row < m && t + threadIdx.x < k ? a[row * k + t + threadIdx.x] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = t + threadIdx.y < k && col < n ? b[(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < Tile; ++j) acc += as[threadIdx.y][j] * bs[j][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

static std::vector<float> read_floats(const char* path, size_t count) {
  std::vector<float> v(count);
  FILE* f = fopen(path, "rb");
  if (!f || fread(v.data(), sizeof(float), count, f) != count) v.clear();
  if (f) fclose(f);
  return v;
}

template <int Tile>
static int multiply(const float* d_a, const float* d_b, float* d_c, int m, int k, int n) {
  dim3 block(Tile, Tile);
  dim3 grid((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
  matmul<Tile><<<grid, block>>>(d_a, d_b, d_c, m, k, n);
  CHECK(cudaGetLastError());
  printf("tiles=%u\n", grid.x * grid.y);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s M K N A.f32 B.f32 C.f32 TILE\n", argv[0]);
    return 2;
  }
  const int m = atoi(argv[1]), k = atoi(argv[2]), n = atoi(argv[3]), tile = atoi(argv[7]);
  std::vector<float> a = read_floats(argv[4], (size_t)m * k), b = read_floats(argv[5], (size_t)k * n);
  if (a.empty() || b.empty() || (tile != 8 && tile != 16)) return 2;

  float *d_a, *d_b, *d_c;
  CHECK(cudaMalloc(&d_a, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_b, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_c, (size_t)m * n * sizeof(float)));
  CHECK(cudaMemcpy(d_a, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (int rc = tile == 8 ? multiply<8>(d_a, d_b, d_c, m, k, n) : multiply<16>(d_a, d_b, d_c, m, k, n))
    return rc;
  std::vector<float> c((size_t)m * n);
  CHECK(cudaMemcpy(c.data(), d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_c));
  FILE* out = fopen(argv[6], "wb");
  if (!out) return 2;
  fwrite(c.data(), sizeof(float), c.size(), out);
  fclose(out);
  return 0;
}
