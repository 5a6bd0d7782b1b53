// A cuBLAS client as CUDA programs are written: a two-layer perceptron's forward pass
// (GEMMs with a bias-and-ReLU kernel between them, on one stream), attention scores for
// a batch of heads (strided batched GEMM), a half-precision product with float
// accumulation (GemmEx), a triangular solve, a complex product, and the level-1 routines
// in both pointer modes.  Every result is checked on the host against plain loops in
// double precision; the program prints each check and PASSED or FAILED.
//
// usage: cublas_client [SEED]
//
// It is plain CUDA: `hipkit hipify` makes a HIP program of it that `hipkit cc -lhipblas`
// builds for any of hipkit's platforms (tests/test_blas_client.py).
#include <cublas_v2.h>
#include <cuComplex.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_));     \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

#define BLAS_CHECK(call)                                                                           \
  do {                                                                                             \
    cublasStatus_t status_ = (call);                                                               \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, int(status_));   \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

// Uniform numbers in [-1, 1) from a 64-bit linear congruential generator.
struct Random {
  uint64_t state;
  float next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return float(int64_t(state >> 40) - (int64_t(1) << 23)) / float(1 << 23);
  }
  std::vector<float> floats(size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = next();
    return v;
  }
};

static bool all_passed = true;

// Prints one check: the largest error relative to the largest reference value.
static void check(const char* what, double error, double tolerance) {
  bool ok = error <= tolerance;
  printf("%-34s max relative error %.2e (tolerance %.0e) %s\n", what, error, tolerance, ok ? "ok" : "FAILED");
  all_passed = all_passed && ok;
}

static double relative_error(const std::vector<float>& got, const std::vector<double>& want) {
  double error = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    error = fmax(error, fabs(double(got[i]) - want[i]));
    scale = fmax(scale, fabs(want[i]));
  }
  return error / fmax(scale, 1e-30);
}

template <typename T>
static T* device_copy(const std::vector<T>& host, cudaStream_t stream) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, host.size() * sizeof(T)));
  CHECK(cudaMemcpyAsync(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return p;
}

template <typename T>
static std::vector<T> host_copy(const T* device, size_t n, cudaStream_t stream) {
  std::vector<T> host(n);
  CHECK(cudaMemcpyAsync(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  return host;
}

// h[i, j] = max(h[i, j] + bias[i], 0) for an m x n column-major activation.
__global__ void bias_relu(float* h, const float* bias, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m * n) h[i] = fmaxf(h[i] + bias[i % m], 0.0f);
}

// Two layers: H = relu(W1^T X + b1), Y = W2 H + 0.5 Y0.  W1 is stored in x h (as a
// row-major h x in matrix is), with a padded leading dimension; X holds a batch.
static void perceptron(cublasHandle_t handle, cudaStream_t stream, Random& rng) {
  const int in = 37, hidden = 29, out = 11, batch = 23, ld_w1 = in + 3;
  std::vector<float> w1 = rng.floats(size_t(in) * hidden), b1 = rng.floats(hidden);
  std::vector<float> w2 = rng.floats(size_t(out) * hidden), x = rng.floats(size_t(in) * batch);
  std::vector<float> y0 = rng.floats(size_t(out) * batch);

  float *d_w1, *d_h;
  CHECK(cudaMalloc(&d_w1, sizeof(float) * ld_w1 * hidden));
  CHECK(cudaMalloc(&d_h, sizeof(float) * hidden * batch));
  BLAS_CHECK(cublasSetMatrix(in, hidden, sizeof(float), w1.data(), in, d_w1, ld_w1));
  float *d_b1 = device_copy(b1, stream), *d_w2 = device_copy(w2, stream);
  float *d_x = device_copy(x, stream), *d_y = device_copy(y0, stream);

  const float one = 1.0f, zero = 0.0f, half = 0.5f;
  BLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, hidden, batch, in, &one, d_w1, ld_w1, d_x, in, &zero,
                           d_h, hidden));
  int threads = 128, blocks = (hidden * batch + threads - 1) / threads;
  bias_relu<<<blocks, threads, 0, stream>>>(d_h, d_b1, hidden, batch);
  CHECK(cudaGetLastError());
  BLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, out, batch, hidden, &one, d_w2, out, d_h, hidden,
                           &half, d_y, out));
  CHECK(cudaStreamSynchronize(stream));
  std::vector<float> y(size_t(out) * batch);
  BLAS_CHECK(cublasGetMatrix(out, batch, sizeof(float), d_y, out, y.data(), out));

  std::vector<double> h(size_t(hidden) * batch), want(size_t(out) * batch);
  for (int j = 0; j < batch; ++j) {
    for (int i = 0; i < hidden; ++i) {
      double s = b1[i];
      for (int p = 0; p < in; ++p) s += double(w1[size_t(p) + size_t(i) * in]) * x[size_t(p) + size_t(j) * in];
      h[size_t(i) + size_t(j) * hidden] = fmax(s, 0.0);
    }
    for (int i = 0; i < out; ++i) {
      double s = 0.5 * y0[size_t(i) + size_t(j) * out];
      for (int p = 0; p < hidden; ++p)
        s += double(w2[size_t(i) + size_t(p) * out]) * h[size_t(p) + size_t(j) * hidden];
      want[size_t(i) + size_t(j) * out] = s;
    }
  }
  check("perceptron (Sgemm T/N, kernel, Sgemm)", relative_error(y, want), 1e-5);
  printf("perceptron output y[0] = %.6f\n", y[0]);
  for (float* p : {d_w1, d_h, d_b1, d_w2, d_x, d_y}) CHECK(cudaFree(p));
}

// Scores S_b = Q_b K_b^T / sqrt(d) for each head b.
static void attention_scores(cublasHandle_t handle, cudaStream_t stream, Random& rng) {
  const int heads = 4, queries = 9, keys = 13, d = 16;
  std::vector<float> q = rng.floats(size_t(heads) * queries * d), k = rng.floats(size_t(heads) * keys * d);
  float *d_q = device_copy(q, stream), *d_k = device_copy(k, stream), *d_s;
  CHECK(cudaMalloc(&d_s, sizeof(float) * heads * queries * keys));
  const float scale = 1.0f / sqrtf(float(d)), zero = 0.0f;
  BLAS_CHECK(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_T, queries, keys, d, &scale, d_q, queries,
                                         (long long)queries * d, d_k, keys, (long long)keys * d, &zero, d_s,
                                         queries, (long long)queries * keys, heads));
  std::vector<float> s = host_copy(d_s, size_t(heads) * queries * keys, stream);
  std::vector<double> want(s.size());
  for (int b = 0; b < heads; ++b)
    for (int j = 0; j < keys; ++j)
      for (int i = 0; i < queries; ++i) {
        double t = 0;
        for (int p = 0; p < d; ++p) {
          const float* qb = &q[size_t(b) * queries * d];
          const float* kb = &k[size_t(b) * keys * d];
          t += double(qb[i + size_t(p) * queries]) * kb[j + size_t(p) * keys];
        }
        want[size_t(b) * queries * keys + i + size_t(j) * queries] = t * scale;
      }
  check("attention scores (SgemmStridedBatched)", relative_error(s, want), 1e-5);
  for (float* p : {d_q, d_k, d_s}) CHECK(cudaFree(p));
}

// C = A B in half precision with float accumulation and a float C.
static void half_product(cublasHandle_t handle, cudaStream_t stream, Random& rng) {
  const int m = 24, n = 20, kk = 64;
  std::vector<__half> a(size_t(m) * kk), b(size_t(kk) * n);
  for (__half& v : a) v = __float2half(rng.next());
  for (__half& v : b) v = __float2half(rng.next());
  __half *d_a = device_copy(a, stream), *d_b = device_copy(b, stream);
  float* d_c;
  CHECK(cudaMalloc(&d_c, sizeof(float) * m * n));
  const float one = 1.0f, zero = 0.0f;
  BLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, kk, &one, d_a, CUDA_R_16F, m, d_b, CUDA_R_16F,
                            kk, &zero, d_c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  std::vector<float> c = host_copy(d_c, size_t(m) * n, stream);
  std::vector<double> want(c.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double t = 0;
      for (int p = 0; p < kk; ++p)
        t += double(__half2float(a[i + size_t(p) * m])) * __half2float(b[p + size_t(j) * kk]);
      want[i + size_t(j) * m] = t;
    }
  check("half product (GemmEx 16F -> 32F)", relative_error(c, want), 1e-5);
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_c));
}

// Solves L X = B for a well-conditioned lower-triangular L and checks L X against B.
static void triangular_solve(cublasHandle_t handle, cudaStream_t stream, Random& rng) {
  const int n = 31, rhs = 5;
  std::vector<float> l(size_t(n) * n, 0.0f), b = rng.floats(size_t(n) * rhs);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) l[i + size_t(j) * n] = i == j ? 2.5f + 0.5f * rng.next() : 0.2f * rng.next();
  float *d_l = device_copy(l, stream), *d_x = device_copy(b, stream);
  const float one = 1.0f;
  BLAS_CHECK(cublasStrsm(handle, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n,
                           rhs, &one, d_l, n, d_x, n));
  std::vector<float> x = host_copy(d_x, size_t(n) * rhs, stream);
  std::vector<float> lx(b.size());
  std::vector<double> want(b.begin(), b.end());
  for (int j = 0; j < rhs; ++j)
    for (int i = 0; i < n; ++i) {
      double t = 0;
      for (int p = 0; p <= i; ++p) t += double(l[i + size_t(p) * n]) * x[p + size_t(j) * n];
      lx[i + size_t(j) * n] = float(t);
    }
  check("triangular solve (Strsm), L X - B", relative_error(lx, want), 1e-5);
  CHECK(cudaFree(d_l));
  CHECK(cudaFree(d_x));
}

// C = alpha A^H B + beta C in double complex.
static void complex_product(cublasHandle_t handle, cudaStream_t stream, Random& rng) {
  const int m = 7, n = 6, kk = 9;
  std::vector<cuDoubleComplex> a(size_t(kk) * m), b(size_t(kk) * n), c(size_t(m) * n);
  for (std::vector<cuDoubleComplex>* v : {&a, &b, &c})
    for (cuDoubleComplex& z : *v) z = make_cuDoubleComplex(rng.next() + 1e-7 * rng.next(), rng.next());
  cuDoubleComplex *d_a = device_copy(a, stream), *d_b = device_copy(b, stream), *d_c = device_copy(c, stream);
  const cuDoubleComplex alpha = make_cuDoubleComplex(0.5, -1.25), beta = make_cuDoubleComplex(0.25, 0.5);
  BLAS_CHECK(cublasZgemm(handle, CUBLAS_OP_C, CUBLAS_OP_N, m, n, kk, &alpha, d_a, kk, d_b, kk, &beta, d_c, m));
  std::vector<cuDoubleComplex> got = host_copy(d_c, c.size(), stream);
  double error = 0, scale = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      cuDoubleComplex t = make_cuDoubleComplex(0, 0);
      for (int p = 0; p < kk; ++p) t = cuCadd(t, cuCmul(cuConj(a[p + size_t(i) * kk]), b[p + size_t(j) * kk]));
      cuDoubleComplex want = cuCadd(cuCmul(alpha, t), cuCmul(beta, c[i + size_t(j) * m]));
      error = fmax(error, cuCabs(cuCsub(got[i + size_t(j) * m], want)));
      scale = fmax(scale, cuCabs(want));
    }
  check("complex product (Zgemm C/N)", error / scale, 1e-13);
  printf("complex product c[0] = (%.6f, %.6f)\n", cuCreal(got[0]), cuCimag(got[0]));
  for (cuDoubleComplex* p : {d_a, d_b, d_c}) CHECK(cudaFree(p));
}

// z = alpha x + y, then |z| with the result on the host and x.z with it on the device.
static void level1(cublasHandle_t handle, cudaStream_t stream, Random& rng) {
  const int n = 1000;
  const float alpha = -0.75f;
  std::vector<float> x = rng.floats(n), y = rng.floats(n);
  float *d_x = device_copy(x, stream), *d_z = device_copy(y, stream), *d_dot;
  CHECK(cudaMalloc(&d_dot, sizeof(float)));
  BLAS_CHECK(cublasSaxpy(handle, n, &alpha, d_x, 1, d_z, 1));
  float norm = 0;
  BLAS_CHECK(cublasSnrm2(handle, n, d_z, 1, &norm));
  BLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
  BLAS_CHECK(cublasSdot(handle, n, d_x, 1, d_z, 1, d_dot));
  BLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
  float dot = host_copy(d_dot, 1, stream)[0];
  std::vector<float> z = host_copy(d_z, n, stream);
  std::vector<double> want_z(n);
  double want_norm = 0, want_dot = 0;
  for (int i = 0; i < n; ++i) {
    want_z[i] = double(alpha) * x[i] + y[i];
    want_norm += want_z[i] * want_z[i];
    want_dot += double(x[i]) * want_z[i];
  }
  want_norm = sqrt(want_norm);
  check("axpy (Saxpy)", relative_error(z, want_z), 1e-6);
  check("norm, host pointer mode (Snrm2)", fabs(norm - want_norm) / want_norm, 1e-5);
  check("dot, device pointer mode (Sdot)", fabs(dot - want_dot) / fabs(want_dot), 1e-4);
  printf("nrm2 = %.6f dot = %.6f\n", norm, dot);
  for (float* p : {d_x, d_z, d_dot}) CHECK(cudaFree(p));
}

// A bad size is reported, not computed.
static void bad_size(cublasHandle_t handle) {
  const float one = 1.0f;
  cublasStatus_t status =
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, -1, 4, 4, &one, nullptr, 1, nullptr, 4, &one, nullptr, 1);
  bool ok = status == CUBLAS_STATUS_INVALID_VALUE;
  printf("%-34s status %d %s\n", "negative size (Sgemm m = -1)", int(status), ok ? "ok" : "FAILED");
  all_passed = all_passed && ok;
}

int main(int argc, char** argv) {
  Random rng{argc > 1 ? strtoull(argv[1], nullptr, 10) : 1};
  cudaStream_t stream;
  cublasHandle_t handle;
  CHECK(cudaStreamCreate(&stream));
  BLAS_CHECK(cublasCreate(&handle));
  BLAS_CHECK(cublasSetStream(handle, stream));

  perceptron(handle, stream, rng);
  attention_scores(handle, stream, rng);
  half_product(handle, stream, rng);
  triangular_solve(handle, stream, rng);
  complex_product(handle, stream, rng);
  level1(handle, stream, rng);
  bad_size(handle);

  BLAS_CHECK(cublasDestroy(handle));
  CHECK(cudaStreamDestroy(stream));
  printf("%s\n", all_passed ? "PASSED" : "FAILED");
  return all_passed ? 0 : 1;
}
