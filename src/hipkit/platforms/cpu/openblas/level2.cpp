// hipBLAS's level 2 on OpenBLAS: gemv, ger (geru, gerc), symv, trsv, trmv.
//
// Matrices are column-major, as hipBLAS's.  Each family's checks are rocBLAS's
// arg_check (blas2/rocblas_<family>.hpp), quoted at each.
#include "provider.h"

namespace hkblas {
namespace {

// rocblas_internal_gemv_arg_check: m, n >= 0, lda >= max(1, m), incx and incy not 0;
// m == 0 or n == 0 is a quick return; alpha and beta must be given; in host mode
// alpha == 0 and beta == 1 is a quick return, y must be given, and A and x unless
// alpha == 0.
template <class T>
hipblasStatus_t gemv(const char* name, hipblasHandle_t handle, hipblasOperation_t trans, int m,
                     int n, const T* alpha, const T* A, int lda, const T* x, int incx, const T* beta,
                     T* y, int incy) {
  HK_CHECK(enums_then_handle(handle, {is_operation(trans)}));
  const Handle& h = *handle_of(handle);
  if (m < 0 || n < 0 || lda < m || lda < 1 || incx == 0 || incy == 0)
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return HIPBLAS_STATUS_SUCCESS;
  HK_CHECK(scaled_update(h, alpha, beta, y, A != nullptr && x != nullptr));
  const Scalar<T> a = capture(h, alpha), b = capture(h, beta);
  return enqueue(h, name, [=] {
    const T av = a.get(), bv = b.get();
    HK_CBLAS(T, gemv)(kColMajor, cblas_op<T>(trans), m, n, arg(av), A, lda, x, incx, arg(bv), y, incy);
  }, double(m) * n);
}

// rocblas_ger_arg_check: m, n >= 0, incx and incy not 0, lda >= max(1, m); m == 0 or
// n == 0 is a quick return; alpha must be given; in host mode alpha == 0 is a quick
// return, and A, x and y must be given otherwise.  Complex: geru, or gerc (conjugate).
template <class T, bool conjugate>
hipblasStatus_t ger(const char* name, hipblasHandle_t handle, int m, int n, const T* alpha,
                    const T* x, int incx, const T* y, int incy, T* A, int lda) {
  HK_CHECK(enums_then_handle(handle, {}));
  const Handle& h = *handle_of(handle);
  if (m < 0 || n < 0 || incx == 0 || incy == 0 || lda < m || lda < 1)
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return HIPBLAS_STATUS_SUCCESS;
  if (alpha == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (host_mode(h) && is_zero(*alpha)) return HIPBLAS_STATUS_SUCCESS;
  if (A == nullptr || x == nullptr || y == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  const Scalar<T> a = capture(h, alpha);
  return enqueue(h, name, [=] {
    const T av = a.get();
    const auto f = conjugate ? pick<T>(HK_CB(sger), HK_CB(dger), HK_CB(cgerc), HK_CB(zgerc))
                             : pick<T>(HK_CB(sger), HK_CB(dger), HK_CB(cgeru), HK_CB(zgeru));
    f(kColMajor, m, n, arg(av), x, incx, y, incy, A, lda);
  }, double(m) * n);
}

// rocblas_hemv_symv_arg_check: uplo upper or lower; n >= 0, lda >= max(1, n), incx and
// incy not 0; n == 0 is a quick return; alpha and beta must be given; in host mode
// alpha == 0 and beta == 1 is a quick return, y must be given, and A and x unless
// alpha == 0.
template <class T>
hipblasStatus_t symv(const char* name, hipblasHandle_t handle, hipblasFillMode_t uplo, int n,
                     const T* alpha, const T* A, int lda, const T* x, int incx, const T* beta, T* y,
                     int incy) {
  HK_CHECK(enums_then_handle(handle, {is_fill(uplo)}));
  const Handle& h = *handle_of(handle);
  if (!one_triangle(uplo)) return HIPBLAS_STATUS_INVALID_VALUE;
  if (n < 0 || lda < n || lda < 1 || incx == 0 || incy == 0) return HIPBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return HIPBLAS_STATUS_SUCCESS;
  HK_CHECK(scaled_update(h, alpha, beta, y, A != nullptr && x != nullptr));
  const Scalar<T> a = capture(h, alpha), b = capture(h, beta);
  return enqueue(h, name, [=] {
    const T av = a.get(), bv = b.get();
    if constexpr (!is_complex<T>) {
      pick<T>(HK_CB(ssymv), HK_CB(dsymv), nullptr, nullptr)(kColMajor, uplo, n, av, A, lda, x, incx,
                                                            bv, y, incy);
    } else {
      const char u = uplo == HIPBLAS_FILL_MODE_UPPER ? 'U' : 'L';
      pick<T>(nullptr, nullptr, HK_OB(csymv_), HK_OB(zsymv_))(&u, &n, &av, A, &lda, x, &incx, &bv,
                                                               y, &incy);
    }
  }, double(n) * n);
}

// rocblas_trsv_arg_check and rocblas_trmv_arg_check: uplo upper or lower; n >= 0,
// lda >= max(1, n), incx not 0; n == 0 is a quick return; A and x must be given.
template <class T, bool solve>
hipblasStatus_t triangular(const char* name, hipblasHandle_t handle, hipblasFillMode_t uplo,
                           hipblasOperation_t trans, hipblasDiagType_t diag, int n, const T* A,
                           int lda, T* x, int incx) {
  HK_CHECK(enums_then_handle(handle, {is_fill(uplo), is_operation(trans), is_diag(diag)}));
  const Handle& h = *handle_of(handle);
  if (!one_triangle(uplo)) return HIPBLAS_STATUS_INVALID_VALUE;
  if (n < 0 || lda < n || lda < 1 || incx == 0) return HIPBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return HIPBLAS_STATUS_SUCCESS;
  if (A == nullptr || x == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  return enqueue(h, name, [=] {
    const auto f = solve ? HK_CBLAS(T, trsv) : HK_CBLAS(T, trmv);
    f(kColMajor, uplo, cblas_op<T>(trans), diag, n, A, lda, x, incx);
  }, double(n) * n);
}

}  // namespace
}  // namespace hkblas

using namespace hkblas;
using C32 = hipComplex;
using C64 = hipDoubleComplex;

#define HK_GEMV(name, T)                                                                         \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasOperation_t trans, int m, int n, const T* alpha, \
                   const T* A, int lda, const T* x, int incx, const T* beta, T* y, int incy),    \
            gemv(NAME, handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy))
HK_GEMV(hipblasSgemv, float)
HK_GEMV(hipblasDgemv, double)
HK_GEMV(hipblasCgemv, C32)
HK_GEMV(hipblasZgemv, C64)

#define HK_GER(name, T, CONJ)                                                                    \
  HK_DEFINE(name, (hipblasHandle_t handle, int m, int n, const T* alpha, const T* x, int incx,   \
                   const T* y, int incy, T* A, int lda),                                        \
            ger<T, CONJ>(NAME, handle, m, n, alpha, x, incx, y, incy, A, lda))
HK_GER(hipblasSger, float, false)
HK_GER(hipblasDger, double, false)
HK_GER(hipblasCgeru, C32, false)
HK_GER(hipblasCgerc, C32, true)
HK_GER(hipblasZgeru, C64, false)
HK_GER(hipblasZgerc, C64, true)

#define HK_SYMV(name, T)                                                                         \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasFillMode_t uplo, int n, const T* alpha,        \
                   const T* A, int lda, const T* x, int incx, const T* beta, T* y, int incy),    \
            symv(NAME, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy))
HK_SYMV(hipblasSsymv, float)
HK_SYMV(hipblasDsymv, double)
HK_SYMV(hipblasCsymv, C32)
HK_SYMV(hipblasZsymv, C64)

#define HK_TRIANGULAR(name, T, SOLVE)                                                            \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasFillMode_t uplo, hipblasOperation_t transA,    \
                   hipblasDiagType_t diag, int n, const T* A, int lda, T* x, int incx),          \
            triangular<T, SOLVE>(NAME, handle, uplo, transA, diag, n, A, lda, x, incx))
HK_TRIANGULAR(hipblasStrsv, float, true)
HK_TRIANGULAR(hipblasDtrsv, double, true)
HK_TRIANGULAR(hipblasCtrsv, C32, true)
HK_TRIANGULAR(hipblasZtrsv, C64, true)
HK_TRIANGULAR(hipblasStrmv, float, false)
HK_TRIANGULAR(hipblasDtrmv, double, false)
HK_TRIANGULAR(hipblasCtrmv, C32, false)
HK_TRIANGULAR(hipblasZtrmv, C64, false)
