// hipBLAS's level 1 on OpenBLAS: axpy scal copy swap dot nrm2 asum amax amin rot.
//
// Increments follow BLAS: a negative one walks the vector from its end (OpenBLAS does
// it).  Each family's checks are rocBLAS's (rocblas_<family>_imp.hpp and its
// arg_check), quoted at each.
#include "provider.h"

namespace hkblas {
namespace {

// rocblas_axpy_arg_check: n <= 0 is a quick return; alpha must be given; in host mode
// alpha == 0 is a quick return, and x and y must be given otherwise.
template <class T>
hipblasStatus_t axpy(const char* name, hipblasHandle_t handle, int n, const T* alpha, const T* x,
                     int incx, T* y, int incy) {
  HK_CHECK(enums_then_handle(handle, {}));
  const Handle& h = *handle_of(handle);
  if (n <= 0) return HIPBLAS_STATUS_SUCCESS;
  if (alpha == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (host_mode(h) && is_zero(*alpha)) return HIPBLAS_STATUS_SUCCESS;
  if (x == nullptr || y == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  const Scalar<T> a = capture(h, alpha);
  return enqueue(h, name, [=] {
    const T av = a.get();
    HK_CBLAS(T, axpy)(n, arg(av), x, incx, y, incy);
  });
}

// rocblas_scal_impl: n <= 0 or incx <= 0 is a quick return; x and alpha must be
// given; in host mode alpha == 1 is a quick return.  S is T, or the real type
// (Csscal, Zdscal).
template <class T, class S>
hipblasStatus_t scal(const char* name, hipblasHandle_t handle, int n, const S* alpha, T* x, int incx) {
  HK_CHECK(enums_then_handle(handle, {}));
  const Handle& h = *handle_of(handle);
  if (n <= 0 || incx <= 0) return HIPBLAS_STATUS_SUCCESS;
  if (x == nullptr || alpha == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (host_mode(h) && is_one(*alpha)) return HIPBLAS_STATUS_SUCCESS;
  const Scalar<S> a = capture(h, alpha);
  return enqueue(h, name, [=] {
    const S av = a.get();
    if constexpr (std::is_same_v<T, S>) HK_CBLAS(T, scal)(n, arg(av), x, incx);
    else if constexpr (std::is_same_v<T, hipComplex>) HK_CB(csscal)(n, av, x, incx);
    else HK_CB(zdscal)(n, av, x, incx);
  });
}

// rocblas_copy_arg_check and rocblas_swap_impl: n <= 0 is a quick return; x and y
// must be given.
template <class T, class F>
hipblasStatus_t pair(const char* name, hipblasHandle_t handle, int n, const T* x, T* y, F body) {
  HK_CHECK(enums_then_handle(handle, {}));
  if (n <= 0) return HIPBLAS_STATUS_SUCCESS;
  if (x == nullptr || y == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  return enqueue(*handle_of(handle), name, body);
}

template <class T>
hipblasStatus_t copy(const char* name, hipblasHandle_t handle, int n, const T* x, int incx, T* y,
                     int incy) {
  return pair(name, handle, n, x, y, [=] { HK_CBLAS(T, copy)(n, x, incx, y, incy); });
}

template <class T>
hipblasStatus_t swap(const char* name, hipblasHandle_t handle, int n, T* x, int incx, T* y, int incy) {
  return pair(name, handle, n, x, y, [=] { HK_CBLAS(T, swap)(n, x, incx, y, incy); });
}

// rocblas_dot_impl: n <= 0 zeroes the result (which must be given); x, y and result
// must be given otherwise.  Any increment (BLAS's).
template <class T, bool conjugate>
hipblasStatus_t dot(const char* name, hipblasHandle_t handle, int n, const T* x, int incx,
                    const T* y, int incy, T* result) {
  HK_CHECK(enums_then_handle(handle, {}));
  const Handle& h = *handle_of(handle);
  if (n <= 0) return result == nullptr ? HIPBLAS_STATUS_INVALID_VALUE : zero_result(h, name, result);
  if (x == nullptr || y == nullptr || result == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  return with_result(h, name, result, [=] {
    if constexpr (!is_complex<T>) {
      return pick<T>(HK_CB(sdot), HK_CB(ddot), nullptr, nullptr)(n, x, incx, y, incy);
    } else {
      T out;
      const auto f = conjugate ? pick<T>(nullptr, nullptr, HK_CB(cdotc_sub), HK_CB(zdotc_sub))
                               : pick<T>(nullptr, nullptr, HK_CB(cdotu_sub), HK_CB(zdotu_sub));
      f(n, x, incx, y, incy, &out);
      return out;
    }
  });
}

// rocblas_asum_nrm2_arg_check and rocblas_iamax_iamin_arg_check: the result must be
// given; n <= 0 or incx <= 0 zeroes it (an index of 0: BLAS's answer for no
// element); x must be given otherwise.
template <class T, class R, class F>
hipblasStatus_t reduce(const char* name, hipblasHandle_t handle, int n, const T* x, int incx,
                       R* result, F compute) {
  HK_CHECK(enums_then_handle(handle, {}));
  const Handle& h = *handle_of(handle);
  if (result == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (n <= 0 || incx <= 0) return zero_result(h, name, result);
  if (x == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  return with_result(h, name, result, compute);
}

template <class T>
hipblasStatus_t nrm2(const char* name, hipblasHandle_t handle, int n, const T* x, int incx,
                     real_t<T>* result) {
  const auto f = pick<T>(HK_CB(snrm2), HK_CB(dnrm2), HK_CB(scnrm2), HK_CB(dznrm2));
  return reduce(name, handle, n, x, incx, result, [=] { return f(n, x, incx); });
}

template <class T>
hipblasStatus_t asum(const char* name, hipblasHandle_t handle, int n, const T* x, int incx,
                     real_t<T>* result) {
  const auto f = pick<T>(HK_CB(sasum), HK_CB(dasum), HK_CB(scasum), HK_CB(dzasum));
  return reduce(name, handle, n, x, incx, result, [=] { return f(n, x, incx); });
}

// CBLAS's i?amax and i?amin answer a 0-based index; hipBLAS's, BLAS's, is 1-based.
template <class T, bool largest>
hipblasStatus_t iamax(const char* name, hipblasHandle_t handle, int n, const T* x, int incx,
                      int* result) {
  const auto f = largest ? pick<T>(HK_CB(isamax), HK_CB(idamax), HK_CB(icamax), HK_CB(izamax))
                         : pick<T>(HK_CB(isamin), HK_CB(idamin), HK_CB(icamin), HK_CB(izamin));
  return reduce(name, handle, n, x, incx, result, [=] { return int(f(n, x, incx)) + 1; });
}

// rocblas_rot_impl: n <= 0 is a quick return; x, y, c and s must be given.  C is the
// real type; S is T (Crot, Zrot: a complex sine) or the real type.
template <class T, class C, class S>
hipblasStatus_t rot(const char* name, hipblasHandle_t handle, int n, T* x, int incx, T* y, int incy,
                    const C* c, const S* s) {
  HK_CHECK(enums_then_handle(handle, {}));
  const Handle& h = *handle_of(handle);
  if (n <= 0) return HIPBLAS_STATUS_SUCCESS;
  if (x == nullptr || y == nullptr || c == nullptr || s == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  const Scalar<C> cs = capture(h, c);
  const Scalar<S> sn = capture(h, s);
  return enqueue(h, name, [=] {
    const C cv = cs.get();
    const S sv = sn.get();
    if constexpr (!is_complex<S>) {
      pick<T>(HK_CB(srot), HK_CB(drot), HK_CB(csrot), HK_CB(zdrot))(n, x, incx, y, incy, cv, sv);
    } else if constexpr (std::is_same_v<T, hipComplex>) {
      HK_OB(crot_)(&n, x, &incx, y, &incy, &cv, &sv);  // LAPACK's: CBLAS has none
    } else {
      HK_OB(zrot_)(&n, x, &incx, y, &incy, &cv, &sv);
    }
  });
}

}  // namespace
}  // namespace hkblas

using namespace hkblas;
using C32 = hipComplex;
using C64 = hipDoubleComplex;

// One definition per routine, with the parameters routines.h declares.
#define HK_AXPY(name, T)                                                                         \
  HK_DEFINE(name, (hipblasHandle_t handle, int n, const T* alpha, const T* x, int incx, T* y,     \
                   int incy),                                                                   \
            axpy(NAME, handle, n, alpha, x, incx, y, incy))
HK_AXPY(hipblasSaxpy, float)
HK_AXPY(hipblasDaxpy, double)
HK_AXPY(hipblasCaxpy, C32)
HK_AXPY(hipblasZaxpy, C64)

#define HK_SCAL(name, T, S)                                                                      \
  HK_DEFINE(name, (hipblasHandle_t handle, int n, const S* alpha, T* x, int incx),               \
            scal(NAME, handle, n, alpha, x, incx))
HK_SCAL(hipblasSscal, float, float)
HK_SCAL(hipblasDscal, double, double)
HK_SCAL(hipblasCscal, C32, C32)
HK_SCAL(hipblasZscal, C64, C64)
HK_SCAL(hipblasCsscal, C32, float)
HK_SCAL(hipblasZdscal, C64, double)

#define HK_COPY_SWAP(name, T, CONST, impl)                                                       \
  HK_DEFINE(name, (hipblasHandle_t handle, int n, CONST T* x, int incx, T* y, int incy),         \
            impl(NAME, handle, n, x, incx, y, incy))
HK_COPY_SWAP(hipblasScopy, float, const, copy)
HK_COPY_SWAP(hipblasDcopy, double, const, copy)
HK_COPY_SWAP(hipblasCcopy, C32, const, copy)
HK_COPY_SWAP(hipblasZcopy, C64, const, copy)
HK_COPY_SWAP(hipblasSswap, float, , swap)
HK_COPY_SWAP(hipblasDswap, double, , swap)
HK_COPY_SWAP(hipblasCswap, C32, , swap)
HK_COPY_SWAP(hipblasZswap, C64, , swap)

#define HK_DOT(name, T, CONJ)                                                                    \
  HK_DEFINE(name, (hipblasHandle_t handle, int n, const T* x, int incx, const T* y, int incy,    \
                   T* result),                                                                  \
            dot<T, CONJ>(NAME, handle, n, x, incx, y, incy, result))
HK_DOT(hipblasSdot, float, false)
HK_DOT(hipblasDdot, double, false)
HK_DOT(hipblasCdotu, C32, false)
HK_DOT(hipblasCdotc, C32, true)
HK_DOT(hipblasZdotu, C64, false)
HK_DOT(hipblasZdotc, C64, true)

#define HK_REDUCE(name, T, R, ...)                                                               \
  HK_DEFINE(name, (hipblasHandle_t handle, int n, const T* x, int incx, R* result),              \
            __VA_ARGS__(NAME, handle, n, x, incx, result))
HK_REDUCE(hipblasSnrm2, float, float, nrm2)
HK_REDUCE(hipblasDnrm2, double, double, nrm2)
HK_REDUCE(hipblasScnrm2, C32, float, nrm2)
HK_REDUCE(hipblasDznrm2, C64, double, nrm2)
HK_REDUCE(hipblasSasum, float, float, asum)
HK_REDUCE(hipblasDasum, double, double, asum)
HK_REDUCE(hipblasScasum, C32, float, asum)
HK_REDUCE(hipblasDzasum, C64, double, asum)
HK_REDUCE(hipblasIsamax, float, int, iamax<float, true>)
HK_REDUCE(hipblasIdamax, double, int, iamax<double, true>)
HK_REDUCE(hipblasIcamax, C32, int, iamax<C32, true>)
HK_REDUCE(hipblasIzamax, C64, int, iamax<C64, true>)
HK_REDUCE(hipblasIsamin, float, int, iamax<float, false>)
HK_REDUCE(hipblasIdamin, double, int, iamax<double, false>)
HK_REDUCE(hipblasIcamin, C32, int, iamax<C32, false>)
HK_REDUCE(hipblasIzamin, C64, int, iamax<C64, false>)

#define HK_ROT(name, T, R, S)                                                                    \
  HK_DEFINE(name, (hipblasHandle_t handle, int n, T* x, int incx, T* y, int incy, const R* c,    \
                   const S* s),                                                                 \
            rot(NAME, handle, n, x, incx, y, incy, c, s))
HK_ROT(hipblasSrot, float, float, float)
HK_ROT(hipblasDrot, double, double, double)
HK_ROT(hipblasCsrot, C32, float, float)
HK_ROT(hipblasZdrot, C64, double, double)
HK_ROT(hipblasCrot, C32, float, C32)
HK_ROT(hipblasZrot, C64, double, C64)
