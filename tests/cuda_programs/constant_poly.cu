// A polynomial with its coefficients in constant memory, evaluated by Horner's rule in a
// template kernel (float and double instantiations), and a __device__ counter of the
// evaluations read back with cudaMemcpyFromSymbol.
//
// usage: constant_poly COEFFS.f64 INPUT.f64 OUT32.f32 OUT64.f64
//   COEFFS holds up to 8 coefficients, highest degree first (as numpy.polyval takes them);
//   writes y for float and double inputs and prints "evaluated=N" and "degree=D".
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

constexpr int kMaxCoeffs = 8;
__constant__ double coeffs[kMaxCoeffs];
__constant__ int count;
__device__ unsigned int evaluated;

template <typename T>
__global__ void horner(const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T v = x[i], acc = 0;
  for (int k = 0; k < count; ++k) acc = acc * v + T(coeffs[k]);
  y[i] = acc;
  atomicAdd(&evaluated, 1u);
}

template <typename T>
static std::vector<T> read_all(const char* path) {
  std::vector<T> v;
  FILE* f = fopen(path, "rb");
  if (!f) return v;
  T item;
  while (fread(&item, sizeof item, 1, f) == 1) v.push_back(item);
  fclose(f);
  return v;
}

template <typename T>
static int evaluate(const std::vector<T>& x, const char* path) {
  const int n = (int)x.size();
  T *d_x, *d_y;
  CHECK(cudaMalloc(&d_x, n * sizeof(T)));
  CHECK(cudaMalloc(&d_y, n * sizeof(T)));
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  horner<T><<<(n + 63) / 64, 64>>>(d_x, d_y, n);
  CHECK(cudaGetLastError());
  std::vector<T> y(n);
  CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  FILE* out = fopen(path, "wb");
  if (!out) return 2;
  fwrite(y.data(), sizeof(T), n, out);
  fclose(out);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s COEFFS.f64 INPUT.f64 OUT32.f32 OUT64.f64\n", argv[0]);
    return 2;
  }
  std::vector<double> c = read_all<double>(argv[1]);
  std::vector<double> x = read_all<double>(argv[2]);
  const int degree_plus_one = (int)c.size();
  if (degree_plus_one < 1 || degree_plus_one > kMaxCoeffs) return 2;

  const unsigned int zero = 0;
  CHECK(cudaMemcpyToSymbol(coeffs, c.data(), c.size() * sizeof(double)));
  CHECK(cudaMemcpyToSymbol(count, &degree_plus_one, sizeof(int)));
  CHECK(cudaMemcpyToSymbol(evaluated, &zero, sizeof zero));

  std::vector<float> x32(x.begin(), x.end());
  if (int rc = evaluate(x32, argv[3])) return rc;
  if (int rc = evaluate(x, argv[4])) return rc;

  unsigned int done = 0;
  CHECK(cudaMemcpyFromSymbol(&done, evaluated, sizeof done));
  printf("degree=%d\nevaluated=%u\n", degree_plus_one - 1, done);
  return 0;
}
