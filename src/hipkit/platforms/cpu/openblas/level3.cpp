// hipBLAS's level 3 but gemm (gemm.cpp) on OpenBLAS: symm, syrk, syr2k, trsm, trmm
// (hipBLAS's out-of-place form) and geam (an extension of cuBLAS's and hipBLAS's).
//
// Each family's checks are rocBLAS's arg_check (blas3/rocblas_<family>.hpp), quoted
// at each.
#include <algorithm>
#include <vector>

#include "provider.h"

namespace hkblas {
namespace {

// rocblas_symm_arg_check: side left or right, uplo upper or lower; m, n >= 0,
// ldb, ldc >= m, lda >= m (left) or n (right); m == 0 or n == 0 is a quick return;
// alpha and beta must be given; in host mode alpha == 0 and beta == 1 is a quick
// return, C must be given, and A and B unless alpha == 0.
template <class T>
hipblasStatus_t symm(const char* name, hipblasHandle_t handle, hipblasSideMode_t side,
                     hipblasFillMode_t uplo, int m, int n, const T* alpha, const T* A, int lda,
                     const T* B, int ldb, const T* beta, T* C, int ldc) {
  HK_CHECK(enums_then_handle(handle, {is_side(side), is_fill(uplo)}));
  const Handle& h = *handle_of(handle);
  if (!one_side(side) || !one_triangle(uplo)) return HIPBLAS_STATUS_INVALID_VALUE;
  if (m < 0 || n < 0 || ldc < m || ldb < m || lda < (side == HIPBLAS_SIDE_LEFT ? m : n))
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return HIPBLAS_STATUS_SUCCESS;
  HK_CHECK(scaled_update(h, alpha, beta, C, A != nullptr && B != nullptr));
  const Scalar<T> a = capture(h, alpha), b = capture(h, beta);
  return enqueue(h, name, [=] {
    const T av = a.get(), bv = b.get();
    HK_CBLAS(T, symm)(kColMajor, side, uplo, m, n, arg(av), A, lda, B, ldb, arg(bv), C, ldc);
  }, double(m) * n * (side == HIPBLAS_SIDE_LEFT ? m : n));
}

// rocblas_syrk_arg_check and rocblas_syr2k_arg_check: uplo upper or lower; trans N,
// T, or for real types C; n, k >= 0, ldc >= n, lda (and ldb) >= n (N) or k;
// n == 0 is a quick return; beta must be given, and alpha when k > 0; in host mode
// no product (k == 0 or alpha == 0) and beta == 1 is a quick return, A (and B) must
// be given for a product, C for a product or beta != 1.  B is null for syrk.
template <class T>
hipblasStatus_t rank_k(const char* name, hipblasHandle_t handle, hipblasFillMode_t uplo,
                       hipblasOperation_t trans, int n, int k, const T* alpha, const T* A, int lda,
                       const T* B, int ldb, const T* beta, T* C, int ldc, bool two) {
  HK_CHECK(enums_then_handle(handle, {is_fill(uplo), is_operation(trans)}));
  const Handle& h = *handle_of(handle);
  if (!one_triangle(uplo) || (is_complex<T> && trans == HIPBLAS_OP_C))
    return HIPBLAS_STATUS_INVALID_VALUE;
  const int rows = trans == HIPBLAS_OP_N ? n : k;
  if (n < 0 || k < 0 || ldc < n || lda < rows || (two && ldb < rows)) return HIPBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return HIPBLAS_STATUS_SUCCESS;
  if ((k > 0 && alpha == nullptr) || beta == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  const bool missing_ab = A == nullptr || (two && B == nullptr);
  if (host_mode(h)) {
    const bool product = k > 0 && !is_zero(*alpha);
    if (!product && is_one(*beta)) return HIPBLAS_STATUS_SUCCESS;
    if ((product && missing_ab) || C == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  } else if ((k > 0 && missing_ab) || C == nullptr) {
    return HIPBLAS_STATUS_INVALID_VALUE;
  }
  const Scalar<T> a = capture(h, alpha), b = capture(h, beta);
  return enqueue(h, name, [=] {
    const T av = a.get(), bv = b.get();
    if (two)
      HK_CBLAS(T, syr2k)(kColMajor, uplo, cblas_op<T>(trans), n, k, arg(av), A, ld1(lda), B, ld1(ldb), arg(bv), C,
                         ldc);
    else
      HK_CBLAS(T, syrk)(kColMajor, uplo, cblas_op<T>(trans), n, k, arg(av), A, ld1(lda), arg(bv), C, ldc);
  }, double(n) * n * k);
}

// rocblas_trsm_arg_check: side left or right, uplo upper or lower; m, n >= 0,
// lda >= m (left) or n (right), ldb >= m; m == 0 or n == 0 is a quick return; B and
// alpha must be given, and A unless alpha == 0 (host mode).
template <class T>
hipblasStatus_t trsm(const char* name, hipblasHandle_t handle, hipblasSideMode_t side,
                     hipblasFillMode_t uplo, hipblasOperation_t trans, hipblasDiagType_t diag, int m,
                     int n, const T* alpha, const T* A, int lda, T* B, int ldb) {
  HK_CHECK(enums_then_handle(handle, {is_side(side), is_fill(uplo), is_operation(trans), is_diag(diag)}));
  const Handle& h = *handle_of(handle);
  if (!one_side(side) || !one_triangle(uplo)) return HIPBLAS_STATUS_INVALID_VALUE;
  if (m < 0 || n < 0 || lda < (side == HIPBLAS_SIDE_LEFT ? m : n) || ldb < m)
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return HIPBLAS_STATUS_SUCCESS;
  if (B == nullptr || alpha == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (A == nullptr && (!host_mode(h) || !is_zero(*alpha))) return HIPBLAS_STATUS_INVALID_VALUE;
  const Scalar<T> a = capture(h, alpha);
  return enqueue(h, name, [=] {
    const T av = a.get();
    if (is_zero(av)) return zero_matrix(B, m, n, ldb);  // BLAS: A is not read
    HK_CBLAS(T, trsm)(kColMajor, side, uplo, cblas_op<T>(trans), diag, m, n, arg(av), A, lda, B, ldb);
  }, double(m) * n * (side == HIPBLAS_SIDE_LEFT ? m : n));
}

// hipBLAS's trmm is out of place: C = alpha op(A) B, where C may be B (OpenBLAS's is in
// place on B: B is copied to C first).  rocblas_trmm_arg_check: side left or right,
// uplo upper or lower; m, n >= 0, ldb, ldc >= m, lda >= m (left) or n (right); m == 0
// or n == 0 is a quick return; C and alpha must be given, and A and B unless alpha ==
// 0 (host mode); C == B with ldb != ldc is rocblas_status_invalid_value.
template <class T>
hipblasStatus_t trmm(const char* name, hipblasHandle_t handle, hipblasSideMode_t side,
                     hipblasFillMode_t uplo, hipblasOperation_t trans, hipblasDiagType_t diag, int m,
                     int n, const T* alpha, const T* A, int lda, const T* B, int ldb, T* C, int ldc) {
  HK_CHECK(enums_then_handle(handle, {is_side(side), is_fill(uplo), is_operation(trans), is_diag(diag)}));
  const Handle& h = *handle_of(handle);
  if (!one_side(side) || !one_triangle(uplo)) return HIPBLAS_STATUS_INVALID_VALUE;
  if (m < 0 || n < 0 || ldc < m || ldb < m || lda < (side == HIPBLAS_SIDE_LEFT ? m : n))
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return HIPBLAS_STATUS_SUCCESS;
  if (C == nullptr || alpha == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if ((A == nullptr || B == nullptr) && (!host_mode(h) || !is_zero(*alpha)))
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (B == C && ldb != ldc) return HIPBLAS_STATUS_INVALID_VALUE;
  const Scalar<T> a = capture(h, alpha);
  return enqueue(h, name, [=] {
    const T av = a.get();
    if (is_zero(av)) return zero_matrix(C, m, n, ldc);
    if (B != C) copy_matrix(B, ldb, C, ldc, m, n, sizeof(T));
    HK_CBLAS(T, trmm)(kColMajor, side, uplo, cblas_op<T>(trans), diag, m, n, arg(av), A, lda, C, ldc);
  }, double(m) * n * (side == HIPBLAS_SIDE_LEFT ? m : n));
}

// C = alpha op(A) + beta op(B), from OpenBLAS's omatcopy (a scaled, transposed copy)
// and ?axpy / ?axpby a column at a time.  C may be A (op N, lda == ldc) or B (the same).
template <class T>
void geam_run(int ta, int tb, int m, int n, T alpha, const T* A, int lda, T beta, const T* B,
              int ldb, T* C, int ldc) {
  ta = cblas_op<T>(ta);
  tb = cblas_op<T>(tb);
  if (C == B && C != A) {  // the aliased operand first: the sum is symmetric
    std::swap(ta, tb);
    std::swap(alpha, beta);
    std::swap(A, B);
    std::swap(lda, ldb);
  }
  std::vector<T> copy;
  // op(B) as a column-major m x n matrix: B itself, or a transposed copy.
  int ldo = ldb;
  const T* opb = B;
  if (!is_zero(beta) && tb != HIPBLAS_OP_N) {
    copy.resize(size_t(m) * n);
    HK_CBLAS(T, omatcopy)(kColMajor, tb, n, m, arg(one<T>()), B, ldb, copy.data(), m);
    opb = copy.data();
    ldo = m;
  }
  if (C == A) {  // C = alpha C + beta op(B)
    for (int j = 0; j < n; ++j) {
      T* c = C + int64_t(j) * ldc;
      if (is_zero(beta)) HK_CBLAS(T, scal)(m, arg(alpha), c, 1);
      else HK_CBLAS(T, axpby)(m, arg(beta), opb + int64_t(j) * ldo, 1, arg(alpha), c, 1);
    }
    return;
  }
  if (is_zero(alpha)) zero_matrix(C, m, n, ldc);  // A is not read
  else if (ta == HIPBLAS_OP_N) HK_CBLAS(T, omatcopy)(kColMajor, ta, m, n, arg(alpha), A, lda, C, ldc);
  else HK_CBLAS(T, omatcopy)(kColMajor, ta, n, m, arg(alpha), A, lda, C, ldc);
  if (is_zero(beta)) return;  // B is not read
  for (int j = 0; j < n; ++j)
    HK_CBLAS(T, axpy)(m, arg(beta), opb + int64_t(j) * ldo, 1, C + int64_t(j) * ldc, 1);
}

// rocblas_geam_arg_check: m, n >= 0, ldc >= m, lda >= m (op N) or n, ldb likewise; C
// may be A only with op N and lda == ldc, B the same; m == 0 or n == 0 is a quick
// return; C, alpha and beta must be given; in host mode A unless alpha == 0, B unless
// beta == 0.
template <class T>
hipblasStatus_t geam(const char* name, hipblasHandle_t handle, hipblasOperation_t ta,
                     hipblasOperation_t tb, int m, int n, const T* alpha, const T* A, int lda,
                     const T* beta, const T* B, int ldb, T* C, int ldc) {
  HK_CHECK(enums_then_handle(handle, {is_operation(ta), is_operation(tb)}));
  const Handle& h = *handle_of(handle);
  if (m < 0 || n < 0 || ldc < m || lda < (ta == HIPBLAS_OP_N ? m : n) ||
      ldb < (tb == HIPBLAS_OP_N ? m : n))
    return HIPBLAS_STATUS_INVALID_VALUE;
  if ((C == A && (lda != ldc || ta != HIPBLAS_OP_N)) || (C == B && (ldb != ldc || tb != HIPBLAS_OP_N)))
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return HIPBLAS_STATUS_SUCCESS;
  if (C == nullptr || alpha == nullptr || beta == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (host_mode(h)) {
    if ((!is_zero(*alpha) && A == nullptr) || (!is_zero(*beta) && B == nullptr))
      return HIPBLAS_STATUS_INVALID_VALUE;
  } else if (A == nullptr || B == nullptr) {
    return HIPBLAS_STATUS_INVALID_VALUE;
  }
  const Scalar<T> a = capture(h, alpha), b = capture(h, beta);
  return enqueue(h, name, [=] { geam_run<T>(ta, tb, m, n, a.get(), A, lda, b.get(), B, ldb, C, ldc); }, double(m) * n);
}

}  // namespace
}  // namespace hkblas

using namespace hkblas;
using C32 = hipComplex;
using C64 = hipDoubleComplex;

#define HK_SYMM(name, T)                                                                         \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo, int m, \
                   int n, const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta,\
                   T* C, int ldc),                                                              \
            symm(NAME, handle, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc))
HK_SYMM(hipblasSsymm, float)
HK_SYMM(hipblasDsymm, double)
HK_SYMM(hipblasCsymm, C32)
HK_SYMM(hipblasZsymm, C64)

#define HK_SYRK(name, T)                                                                         \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasFillMode_t uplo, hipblasOperation_t transA,    \
                   int n, int k, const T* alpha, const T* A, int lda, const T* beta, T* C,       \
                   int ldc),                                                                    \
            rank_k<T>(NAME, handle, uplo, transA, n, k, alpha, A, lda, nullptr, 0, beta, C, ldc, \
                      false))
HK_SYRK(hipblasSsyrk, float)
HK_SYRK(hipblasDsyrk, double)
HK_SYRK(hipblasCsyrk, C32)
HK_SYRK(hipblasZsyrk, C64)

#define HK_SYR2K(name, T)                                                                        \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasFillMode_t uplo, hipblasOperation_t transA,    \
                   int n, int k, const T* alpha, const T* A, int lda, const T* B, int ldb,       \
                   const T* beta, T* C, int ldc),                                               \
            rank_k<T>(NAME, handle, uplo, transA, n, k, alpha, A, lda, B, ldb, beta, C, ldc,    \
                      true))
HK_SYR2K(hipblasSsyr2k, float)
HK_SYR2K(hipblasDsyr2k, double)
HK_SYR2K(hipblasCsyr2k, C32)
HK_SYR2K(hipblasZsyr2k, C64)

#define HK_TRSM(name, T)                                                                         \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo,       \
                   hipblasOperation_t transA, hipblasDiagType_t diag, int m, int n,              \
                   const T* alpha, const T* A, int lda, T* B, int ldb),                         \
            trsm(NAME, handle, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb))
HK_TRSM(hipblasStrsm, float)
HK_TRSM(hipblasDtrsm, double)
HK_TRSM(hipblasCtrsm, C32)
HK_TRSM(hipblasZtrsm, C64)

#define HK_TRMM(name, T)                                                                         \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasSideMode_t side, hipblasFillMode_t uplo,       \
                   hipblasOperation_t transA, hipblasDiagType_t diag, int m, int n,              \
                   const T* alpha, const T* A, int lda, const T* B, int ldb, T* C, int ldc),     \
            trmm(NAME, handle, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb, C, ldc))
HK_TRMM(hipblasStrmm, float)
HK_TRMM(hipblasDtrmm, double)
HK_TRMM(hipblasCtrmm, C32)
HK_TRMM(hipblasZtrmm, C64)

#define HK_GEAM(name, T)                                                                         \
  HK_DEFINE(name, (hipblasHandle_t handle, hipblasOperation_t transA, hipblasOperation_t transB, \
                   int m, int n, const T* alpha, const T* A, int lda, const T* beta, const T* B, \
                   int ldb, T* C, int ldc),                                                     \
            geam(NAME, handle, transA, transB, m, n, alpha, A, lda, beta, B, ldb, C, ldc))
HK_GEAM(hipblasSgeam, float)
HK_GEAM(hipblasDgeam, double)
HK_GEAM(hipblasCgeam, C32)
HK_GEAM(hipblasZgeam, C64)
