// A rocBLAS program as rocBLAS's users write one (tests/test_rocblas.py builds it with
// `hipkit cc -lrocblas` and compares what it writes with NumPy).
//
// usage: rocblas_calls DIR
//   Reads the inputs tests/test_rocblas.py wrote to DIR (column-major, each matrix with
//   its leading dimension's padding), writes each result to DIR/<name>.out and a report
//   of key=value lines (scalars, statuses) to stdout.  Sizes: M N K below.
#include <rocblas/rocblas.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

constexpr int M = 13, N = 11, K = 7, BATCH = 3, LEN = 1000;

#define HIP_CHECK(call)                                                                        \
  do {                                                                                         \
    hipError_t err_ = (call);                                                                  \
    if (err_ != hipSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, hipGetErrorString(err_)); \
      exit(2);                                                                                 \
    }                                                                                          \
  } while (0)

#define ROCBLAS_CHECK(call)                                                                           \
  do {                                                                                                \
    rocblas_status status_ = (call);                                                                  \
    if (status_ != rocblas_status_success) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, rocblas_status_to_string(status_)); \
      exit(2);                                                                                        \
    }                                                                                                 \
  } while (0)

static std::string dir;

template <typename T>
static std::vector<T> load(const char* name, size_t count) {
  std::vector<T> v(count);
  FILE* f = fopen((dir + "/" + name).c_str(), "rb");
  if (!f || fread(v.data(), sizeof(T), count, f) != count) {
    fprintf(stderr, "cannot read %zu elements of %s\n", count, name);
    exit(2);
  }
  fclose(f);
  return v;
}

template <typename T>
static void save(const char* name, const std::vector<T>& v) {
  FILE* f = fopen((dir + "/" + name + ".out").c_str(), "wb");
  if (!f || fwrite(v.data(), sizeof(T), v.size(), f) != v.size()) exit(2);
  fclose(f);
}

// A matrix of `cols` columns `ld` elements apart, to the device and back with rocBLAS's
// copies (rows x cols of it: the padding stays behind).
template <typename T>
static T* to_device(const std::vector<T>& host, int rows, int cols, int ld) {
  T* d = nullptr;
  HIP_CHECK(hipMalloc(&d, sizeof(T) * host.size()));
  ROCBLAS_CHECK(rocblas_set_matrix(rows, cols, sizeof(T), host.data(), ld, d, ld));
  return d;
}

template <typename T>
static std::vector<T> to_host(const T* d, int rows, int cols, int ld) {
  std::vector<T> host(size_t(ld) * cols);
  ROCBLAS_CHECK(rocblas_get_matrix(rows, cols, sizeof(T), d, ld, host.data(), ld));
  return host;
}

static void report(const char* key, rocblas_status s) { printf("%s=%s\n", key, rocblas_status_to_string(s)); }

// C = 0.75 A^T B^T - 0.5 C, every matrix with a padded leading dimension.
static void sgemm(rocblas_handle h) {
  const int lda = K + 3, ldb = N + 2, ldc = M + 4;
  float* a = to_device(load<float>("sgemm_a", size_t(lda) * M), K, M, lda);
  float* b = to_device(load<float>("sgemm_b", size_t(ldb) * K), N, K, ldb);
  float* c = to_device(load<float>("sgemm_c", size_t(ldc) * N), M, N, ldc);
  const float alpha = 0.75f, beta = -0.5f;
  ROCBLAS_CHECK(rocblas_sgemm(h, rocblas_operation_transpose, rocblas_operation_transpose, M, N, K, &alpha, a, lda,
                              b, ldb, &beta, c, ldc));
  save("sgemm_c", to_host(c, M, N, ldc));
  for (float* p : {a, b, c}) HIP_CHECK(hipFree(p));
}

// C = 2 A B^T + C in double.
static void dgemm(rocblas_handle h) {
  double* a = to_device(load<double>("dgemm_a", size_t(M) * K), M, K, M);
  double* b = to_device(load<double>("dgemm_b", size_t(N) * K), N, K, N);
  double* c = to_device(load<double>("dgemm_c", size_t(M) * N), M, N, M);
  const double alpha = 2.0, beta = 1.0;
  ROCBLAS_CHECK(rocblas_dgemm(h, rocblas_operation_none, rocblas_operation_transpose, M, N, K, &alpha, a, M, b, N,
                              &beta, c, M));
  save("dgemm_c", to_host(c, M, N, M));
  for (double* p : {a, b, c}) HIP_CHECK(hipFree(p));
}

// C = alpha A^H B + beta C in single complex, with rocBLAS's complex arithmetic for alpha.
static void cgemm(rocblas_handle h) {
  using complex = rocblas_float_complex;
  complex* a = to_device(load<complex>("cgemm_a", size_t(K) * M), K, M, K);
  complex* b = to_device(load<complex>("cgemm_b", size_t(K) * N), K, N, K);
  complex* c = to_device(load<complex>("cgemm_c", size_t(M) * N), M, N, M);
  const complex alpha = rocblas_float_complex{1, 0} * complex(0.5f, -1.0f) + 0.25f, beta{0, 1};
  ROCBLAS_CHECK(rocblas_cgemm(h, rocblas_operation_conjugate_transpose, rocblas_operation_none, M, N, K, &alpha, a,
                              K, b, K, &beta, c, M));
  save("cgemm_c", to_host(c, M, N, M));
  printf("cgemm_alpha=%g,%g\n", std::real(alpha), std::imag(alpha));
  for (complex* p : {a, b, c}) HIP_CHECK(hipFree(p));
}

// C_i = A_i B_i for BATCH matrices a stride apart (more than each needs).
static void sgemm_strided_batched(rocblas_handle h) {
  const rocblas_stride sa = M * K + 5, sb = K * N + 3, sc = M * N + 1;
  std::vector<float> ha = load<float>("batched_a", sa * BATCH), hb = load<float>("batched_b", sb * BATCH);
  float* a = to_device(ha, int(ha.size()), 1, int(ha.size()));
  float* b = to_device(hb, int(hb.size()), 1, int(hb.size()));
  float* c = to_device(std::vector<float>(sc * BATCH, 0.0f), int(sc * BATCH), 1, int(sc * BATCH));
  const float alpha = 1.0f, beta = 0.0f;
  ROCBLAS_CHECK(rocblas_sgemm_strided_batched(h, rocblas_operation_none, rocblas_operation_none, M, N, K, &alpha, a,
                                              M, sa, b, K, sb, &beta, c, M, sc, BATCH));
  save("batched_c", to_host(c, int(sc * BATCH), 1, int(sc * BATCH)));
  for (float* p : {a, b, c}) HIP_CHECK(hipFree(p));
}

// y = -1.5 x + y, then x.y with the result on the host, then in device memory in double.
static void level1(rocblas_handle h) {
  std::vector<float> hx = load<float>("x", LEN), hy = load<float>("y", LEN);
  float *x, *y;
  HIP_CHECK(hipMalloc(&x, sizeof(float) * LEN));
  HIP_CHECK(hipMalloc(&y, sizeof(float) * LEN));
  ROCBLAS_CHECK(rocblas_set_vector(LEN, sizeof(float), hx.data(), 1, x, 1));
  hipStream_t stream;
  ROCBLAS_CHECK(rocblas_get_stream(h, &stream));
  ROCBLAS_CHECK(rocblas_set_vector_async(LEN, sizeof(float), hy.data(), 1, y, 1, stream));
  const float alpha = -1.5f;
  ROCBLAS_CHECK(rocblas_saxpy(h, LEN, &alpha, x, 1, y, 1));
  std::vector<float> out(LEN);
  ROCBLAS_CHECK(rocblas_get_vector_async(LEN, sizeof(float), y, 1, out.data(), 1, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  save("axpy_y", out);

  ROCBLAS_CHECK(rocblas_set_pointer_mode(h, rocblas_pointer_mode_host));
  rocblas_pointer_mode mode;
  ROCBLAS_CHECK(rocblas_get_pointer_mode(h, &mode));
  float dot = 0;
  ROCBLAS_CHECK(rocblas_sdot(h, LEN, x, 1, y, 1, &dot));
  printf("pointer_mode=%d\nsdot=%.9g\n", int(mode), dot);

  // Every other element of x (a stride of 2) against y's first half, in device memory.
  std::vector<double> dx(hx.begin(), hx.end()), dy(out.begin(), out.end());
  double *ddx, *ddy, *result;
  HIP_CHECK(hipMalloc(&ddx, sizeof(double) * LEN));
  HIP_CHECK(hipMalloc(&ddy, sizeof(double) * LEN));
  HIP_CHECK(hipMalloc(&result, sizeof(double)));
  ROCBLAS_CHECK(rocblas_set_vector(LEN, sizeof(double), dx.data(), 1, ddx, 1));
  ROCBLAS_CHECK(rocblas_set_vector(LEN, sizeof(double), dy.data(), 1, ddy, 1));
  ROCBLAS_CHECK(rocblas_set_pointer_mode(h, rocblas_pointer_mode_device));
  ROCBLAS_CHECK(rocblas_ddot(h, LEN / 2, ddx, 2, ddy, 1, result));
  ROCBLAS_CHECK(rocblas_set_pointer_mode(h, rocblas_pointer_mode_host));
  double ddot = 0;
  HIP_CHECK(hipMemcpyAsync(&ddot, result, sizeof(double), hipMemcpyDeviceToHost, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  printf("ddot_strided=%.17g\n", ddot);
  for (void* p : {(void*)x, (void*)y, (void*)ddx, (void*)ddy, (void*)result}) HIP_CHECK(hipFree(p));
}

// D = 2 A B + 0.5 C with half A and B, float C and D, D apart from C and with its own
// leading dimension: C must be left as it was.
static void gemm_ex(rocblas_handle h) {
  const int ldc = M + 1, ldd = M + 6;
  rocblas_half* a = to_device(load<rocblas_half>("ex_a", size_t(M) * K), M, K, M);
  rocblas_half* b = to_device(load<rocblas_half>("ex_b", size_t(K) * N), K, N, K);
  float* c = to_device(load<float>("ex_c", size_t(ldc) * N), M, N, ldc);
  float* d = to_device(std::vector<float>(size_t(ldd) * N, -7.0f), M, N, ldd);
  const float alpha = 2.0f, beta = 0.5f;
  ROCBLAS_CHECK(rocblas_gemm_ex(h, rocblas_operation_none, rocblas_operation_none, M, N, K, &alpha, a,
                                rocblas_datatype_f16_r, M, b, rocblas_datatype_f16_r, K, &beta, c,
                                rocblas_datatype_f32_r, ldc, d, rocblas_datatype_f32_r, ldd,
                                rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0, rocblas_gemm_flags_none));
  save("ex_d", to_host(d, M, N, ldd));
  save("ex_c", to_host(c, M, N, ldc));
  for (void* p : {(void*)a, (void*)b, (void*)c, (void*)d}) HIP_CHECK(hipFree(p));
}

// D_i = A_i B_i^T - C_i in double for BATCH matrices given by device arrays of pointers.
static void gemm_batched_ex(rocblas_handle h) {
  std::vector<double> ha = load<double>("bex_a", size_t(M) * K * BATCH);
  std::vector<double> hb = load<double>("bex_b", size_t(N) * K * BATCH);
  std::vector<double> hc = load<double>("bex_c", size_t(M) * N * BATCH);
  double *a = to_device(ha, int(ha.size()), 1, int(ha.size())), *b = to_device(hb, int(hb.size()), 1, int(hb.size()));
  double *c = to_device(hc, int(hc.size()), 1, int(hc.size())), *d;
  HIP_CHECK(hipMalloc(&d, sizeof(double) * hc.size()));
  std::vector<double*> pointers;
  for (int i = 0; i < BATCH; ++i) pointers.push_back(a + size_t(i) * M * K);
  for (int i = 0; i < BATCH; ++i) pointers.push_back(b + size_t(i) * N * K);
  for (int i = 0; i < BATCH; ++i) pointers.push_back(c + size_t(i) * M * N);
  for (int i = 0; i < BATCH; ++i) pointers.push_back(d + size_t(i) * M * N);
  double** arrays = to_device(pointers, int(pointers.size()), 1, int(pointers.size()));
  const double alpha = 1.0, beta = -1.0;
  const rocblas_datatype f64 = rocblas_datatype_f64_r;
  ROCBLAS_CHECK(rocblas_gemm_batched_ex(h, rocblas_operation_none, rocblas_operation_transpose, M, N, K, &alpha,
                                        arrays, f64, M, arrays + BATCH, f64, N, &beta, arrays + 2 * BATCH, f64, M,
                                        arrays + 3 * BATCH, f64, M, BATCH, f64, rocblas_gemm_algo_standard, 0, 0));
  save("bex_d", to_host(d, int(hc.size()), 1, int(hc.size())));
  for (void* p : {(void*)a, (void*)b, (void*)c, (void*)d, (void*)arrays}) HIP_CHECK(hipFree(p));
}

// D_i = A_i^T B_i + 2 C_i in float for BATCH matrices a stride apart, D's stride and
// leading dimension apart from C's.
static void gemm_strided_batched_ex(rocblas_handle h) {
  const int ldd = M + 2;
  const rocblas_stride sa = K * M, sb = K * N, sc = M * N, sd = ldd * N + 4;
  float* a = to_device(load<float>("sbex_a", sa * BATCH), int(sa * BATCH), 1, int(sa * BATCH));
  float* b = to_device(load<float>("sbex_b", sb * BATCH), int(sb * BATCH), 1, int(sb * BATCH));
  float* c = to_device(load<float>("sbex_c", sc * BATCH), int(sc * BATCH), 1, int(sc * BATCH));
  float* d = to_device(std::vector<float>(sd * BATCH, 0.0f), int(sd * BATCH), 1, int(sd * BATCH));
  const float alpha = 1.0f, beta = 2.0f;
  const rocblas_datatype f32 = rocblas_datatype_f32_r;
  ROCBLAS_CHECK(rocblas_gemm_strided_batched_ex(h, rocblas_operation_transpose, rocblas_operation_none, M, N, K,
                                                &alpha, a, f32, K, sa, b, f32, K, sb, &beta, c, f32, M, sc, d, f32,
                                                ldd, sd, BATCH, f32, rocblas_gemm_algo_standard, 0, 0));
  save("sbex_d", to_host(d, int(sd * BATCH), 1, int(sd * BATCH)));
  for (float* p : {a, b, c, d}) HIP_CHECK(hipFree(p));
}

// rocBLAS's own types on the host: complex division, bfloat16's rounding.
static void types() {
  rocblas_double_complex q = rocblas_double_complex(1, 2) / rocblas_double_complex(3, -4);
  printf("complex_quotient=%.17g,%.17g\n", std::real(q), std::imag(q));
  printf("complex_abs=%.17g\n", std::abs(rocblas_double_complex{3, 4}));
  printf("bfloat16_third=%.9g\n", float(rocblas_bfloat16(1.0f / 3.0f)));
}

// What rocBLAS reports for bad arguments.
static void statuses(rocblas_handle h) {
  const float one = 1.0f;
  float* p = nullptr;
  HIP_CHECK(hipMalloc(&p, sizeof(float) * 64));
  report("negative_n", rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_none, 4, -1, 4, &one, p, 4, p, 4,
                                     &one, p, 4));
  report("small_lda", rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_none, 4, 4, 4, &one, p, 3, p, 4,
                                    &one, p, 4));
  report("bad_operation", rocblas_sgemm(h, rocblas_operation(200), rocblas_operation_none, 4, 4, 4, &one, p, 4, p,
                                        4, &one, p, 4));
  report("null_handle", rocblas_saxpy(nullptr, 4, &one, p, 1, p, 1));
  report("create_null", rocblas_create_handle(nullptr));
  report("ex_f8", rocblas_gemm_ex(h, rocblas_operation_none, rocblas_operation_none, 4, 4, 4, &one, p,
                                  rocblas_datatype_f8_r, 4, p, rocblas_datatype_f8_r, 4, &one, p,
                                  rocblas_datatype_f32_r, 4, p, rocblas_datatype_f32_r, 4, rocblas_datatype_f32_r,
                                  rocblas_gemm_algo_standard, 0, 0));
  report("ex_c_is_d_other_ld", rocblas_gemm_ex(h, rocblas_operation_none, rocblas_operation_none, 4, 4, 4, &one, p,
                                               rocblas_datatype_f32_r, 4, p, rocblas_datatype_f32_r, 4, &one, p,
                                               rocblas_datatype_f32_r, 4, p, rocblas_datatype_f32_r, 5,
                                               rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0, 0));
  report("ex_solution_index", rocblas_gemm_ex(h, rocblas_operation_none, rocblas_operation_none, 4, 4, 4, &one, p,
                                              rocblas_datatype_f32_r, 4, p, rocblas_datatype_f32_r, 4, &one, p,
                                              rocblas_datatype_f32_r, 4, p, rocblas_datatype_f32_r, 4,
                                              rocblas_datatype_f32_r, rocblas_gemm_algo_solution_index, 5, 0));
  report("vector_async_inc0", rocblas_set_vector_async(4, 4, &one, 0, p, 1, nullptr));
  report("matrix_null", rocblas_set_matrix_async(2, 2, 4, nullptr, 2, p, 2, nullptr));
  printf("undefined_status=%s\n", rocblas_status_to_string(rocblas_status(99)));
  HIP_CHECK(hipFree(p));
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  dir = argv[1];
  rocblas_initialize();
  rocblas_handle h;
  ROCBLAS_CHECK(rocblas_create_handle(&h));
  hipStream_t stream, got;
  HIP_CHECK(hipStreamCreate(&stream));
  ROCBLAS_CHECK(rocblas_set_stream(h, stream));
  ROCBLAS_CHECK(rocblas_get_stream(h, &got));
  printf("stream_kept=%d\n", int(got == stream));
  size_t size = 0;
  ROCBLAS_CHECK(rocblas_get_version_string_size(&size));
  std::vector<char> version(size);
  ROCBLAS_CHECK(rocblas_get_version_string(version.data(), size));
  printf("version=%s\n", version.data());

  sgemm(h);
  dgemm(h);
  cgemm(h);
  sgemm_strided_batched(h);
  level1(h);
  gemm_ex(h);
  gemm_batched_ex(h);
  gemm_strided_batched_ex(h);
  types();
  statuses(h);

  ROCBLAS_CHECK(rocblas_destroy_handle(h));
  HIP_CHECK(hipStreamDestroy(stream));
  return 0;
}
