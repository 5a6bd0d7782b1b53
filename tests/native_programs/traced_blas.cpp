// A hipBLAS program for `hipkit prof` (tests/test_prof_native.py): a GEMM and a dot
// product on a stream of their own, n by n, after a copy that starts the runtime.
// Prints the dot product of C with itself, which the test checks.
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                  \
  do {                                                               \
    if (!(call)) {                                                   \
      fprintf(stderr, "line %d: %s failed\n", __LINE__, #call);      \
      return 1;                                                      \
    }                                                                \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 16;
  std::vector<float> a(size_t(n) * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) - 3.0f;
  float *d_a = nullptr, *d_c = nullptr;
  const size_t bytes = a.size() * sizeof(float);
  CHECK(hipMalloc(&d_a, bytes) == hipSuccess && hipMalloc(&d_c, bytes) == hipSuccess);
  CHECK(hipMemcpy(d_a, a.data(), bytes, hipMemcpyHostToDevice) == hipSuccess);
  hipStream_t stream;
  CHECK(hipStreamCreate(&stream) == hipSuccess);
  hipblasHandle_t handle;
  CHECK(hipblasCreate(&handle) == HIPBLAS_STATUS_SUCCESS);
  CHECK(hipblasSetStream(handle, stream) == HIPBLAS_STATUS_SUCCESS);
  const float one = 1.0f, zero = 0.0f;
  CHECK(hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_T, n, n, n, &one, d_a, n, d_a, n, &zero, d_c,
                     n) == HIPBLAS_STATUS_SUCCESS);
  float dot = 0.0f;
  CHECK(hipblasSdot(handle, n * n, d_c, 1, d_c, 1, &dot) == HIPBLAS_STATUS_SUCCESS);
  CHECK(hipblasDestroy(handle) == HIPBLAS_STATUS_SUCCESS);
  CHECK(hipStreamDestroy(stream) == hipSuccess);
  CHECK(hipFree(d_a) == hipSuccess && hipFree(d_c) == hipSuccess);
  printf("%.9g\n", double(dot));
  return 0;
}
