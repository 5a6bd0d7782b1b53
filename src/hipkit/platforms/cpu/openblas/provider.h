// hipkit's hipBLAS on the CPU: what the provider's files share.
//
// The library (libhipkit_cpu_blas.so, built by platforms/cpu/blas.py) defines every
// function of hipkit_blas/api.h and every routine of hipkit_blas/routines.h, the
// hipBLAS that CPU programs link with -lhipblas and that Python calls through ctypes.
// It links libhipkit_cpu, so handles, streams and devices are the runtime's, and
// OpenBLAS, which does the work: handle.cpp (the handle, host-device copies, the
// stream work), level1.cpp, level2.cpp, level3.cpp and gemm.cpp (the gemm family:
// batched, strided, half, bfloat16 and the Ex forms); openblas_api.h declares what
// they call of OpenBLAS.
//
// Every routine is checked with hipBLAS's rules before anything is enqueued, then
// enqueued on the handle's stream as a host function of the CPU runtime, named after
// the routine, which a worker of the stream's device runs in stream order.  The
// checks are rocBLAS's (hipBLAS on ROCm forwards to rocBLAS and converts its
// statuses): hipBLAS's enum conversions first (an unknown value is
// HIPBLAS_STATUS_INVALID_ENUM), then a null handle (rocblas_status_invalid_handle:
// HIPBLAS_STATUS_NOT_INITIALIZED), then each family's rocblas_<family>_arg_check
// (invalid size, value or pointer: HIPBLAS_STATUS_INVALID_VALUE; quick returns:
// HIPBLAS_STATUS_SUCCESS), each cited where it is applied.  rocBLAS reads host
// scalars in those checks (alpha == 0 allows A == NULL...); in device pointer mode it
// cannot, and neither can this provider: there every array a routine may read must be
// given (rocBLAS's kernels would fault on a NULL one instead).  Work the runtime
// refuses (a sticky error, a stream destroyed) or that fails while a call waits for
// it is HIPBLAS_STATUS_EXECUTION_FAILED, cuBLAS's answer; the runtime's
// hkrt_last_error_detail says why.
#pragma once

#include <stdint.h>
#include <string.h>

#include <initializer_list>
#include <type_traits>
#include <utility>

#define HIPKIT_BLAS_DECL __attribute__((visibility("default")))
#include <hipkit_blas/api.h>

#include "openblas_api.h"
#include "work.h"

namespace hkblas {

// ---- the handle -------------------------------------------------------------

struct Handle {
  int device;                // the runtime's index of the device current at hipblasCreate
  hkrt_stream* stream;       // NULL: that device's null stream
  hipblasPointerMode_t pointer_mode;
  hipblasAtomicsMode_t atomics_mode;
  hipblasMath_t math_mode;
};

inline Handle* handle_of(hipblasHandle_t handle) { return static_cast<Handle*>(handle); }
inline bool host_mode(const Handle& h) { return h.pointer_mode == HIPBLAS_POINTER_MODE_HOST; }

// A check's answer when the routine goes on to be enqueued (rocBLAS's
// rocblas_status_continue).
constexpr hipblasStatus_t kContinue = static_cast<hipblasStatus_t>(-1);
#define HK_CHECK(expr)                                             \
  do {                                                             \
    hipblasStatus_t hk_status_ = (expr);                           \
    if (hk_status_ != ::hkblas::kContinue) return hk_status_;      \
  } while (0)

// ---- hipBLAS's enums (hipblasConvert* in hipBLAS: unknown values are INVALID_ENUM)

inline bool is_operation(int v) { return v == HIPBLAS_OP_N || v == HIPBLAS_OP_T || v == HIPBLAS_OP_C; }
inline bool is_fill(int v) { return v >= HIPBLAS_FILL_MODE_UPPER && v <= HIPBLAS_FILL_MODE_FULL; }
inline bool is_diag(int v) { return v == HIPBLAS_DIAG_NON_UNIT || v == HIPBLAS_DIAG_UNIT; }
inline bool is_side(int v) { return v >= HIPBLAS_SIDE_LEFT && v <= HIPBLAS_SIDE_BOTH; }
// rocBLAS's routines take one triangle and one side: FULL and BOTH are valid enums
// they refuse (rocblas_status_invalid_value).
inline bool one_triangle(int v) { return v == HIPBLAS_FILL_MODE_UPPER || v == HIPBLAS_FILL_MODE_LOWER; }
inline bool one_side(int v) { return v == HIPBLAS_SIDE_LEFT || v == HIPBLAS_SIDE_RIGHT; }

// The first checks of every routine with a handle: its enums, then the handle.
inline hipblasStatus_t enums_then_handle(hipblasHandle_t handle, std::initializer_list<bool> enums) {
  for (bool ok : enums)
    if (!ok) return HIPBLAS_STATUS_INVALID_ENUM;
  return handle == nullptr ? HIPBLAS_STATUS_NOT_INITIALIZED : kContinue;
}

// ---- element types ----------------------------------------------------------

template <class T>
constexpr bool is_complex = std::is_same_v<T, hipComplex> || std::is_same_v<T, hipDoubleComplex>;

template <class T> struct real_of { using type = T; };
template <> struct real_of<hipComplex> { using type = float; };
template <> struct real_of<hipDoubleComplex> { using type = double; };
template <class T> using real_t = typename real_of<T>::type;

// Half and bfloat16 as stored; widened to float to be computed on.
struct bf16 {
  uint16_t bits;
};
float to_float(hipblasHalf h);
float to_float(bf16 b);
inline float to_float(float f) { return f; }

template <class T> bool is_zero(const T& v) {
  if constexpr (is_complex<T>) return v.x == 0 && v.y == 0;
  else if constexpr (std::is_arithmetic_v<T>) return v == 0;
  else return to_float(v) == 0;
}
template <class T> bool is_one(const T& v) {
  if constexpr (is_complex<T>) return v.x == 1 && v.y == 0;
  else if constexpr (std::is_arithmetic_v<T>) return v == 1;
  else return to_float(v) == 1;
}
template <class T> T one() {
  if constexpr (is_complex<T>) return T{1, 0};
  else return T(1);
}

// OpenBLAS's routine of element T: pick<T>(s, d, c, z).
template <class T, class S, class D, class C, class Z> constexpr auto pick(S s, D d, C c, Z z) {
  if constexpr (std::is_same_v<T, float>) return s;
  else if constexpr (std::is_same_v<T, double>) return d;
  else if constexpr (std::is_same_v<T, hipComplex>) return c;
  else return z;
}
#define HK_CBLAS(T, op) ::hkblas::pick<T>(HK_CB(s##op), HK_CB(d##op), HK_CB(c##op), HK_CB(z##op))
// A scalar as CBLAS takes it: real ones by value, complex ones by address.
template <class T> auto arg(const T& v) {
  if constexpr (is_complex<T>) return static_cast<const void*>(&v);
  else return v;
}

constexpr int kColMajor = 102;  // CblasColMajor
// CBLAS's transposition for element T: a real matrix's conjugate transpose is its
// transpose (said so, not left to each OpenBLAS routine's reading of ConjTrans).
template <class T> int cblas_op(int op) {
  return !is_complex<T> && op == HIPBLAS_OP_C ? HIPBLAS_OP_T : op;
}
// A leading dimension for OpenBLAS: rocBLAS allows lda == 0 for a matrix of no rows
// (lda >= rows), OpenBLAS's argument checks want at least 1.
inline int ld1(int ld) { return ld > 1 ? ld : 1; }

// Sets a column-major rows x cols matrix to zero (a routine told not to read it).
template <class T> void zero_matrix(T* C, int rows, int cols, int ldc) {
  for (int j = 0; j < cols; ++j) memset(C + int64_t(j) * ldc, 0, sizeof(T) * size_t(rows));
}
// Copies a column-major rows x cols matrix (element size `elem`, leading dimensions
// in elements).
void copy_matrix(const void* src, int lds, void* dst, int ldd, int rows, int cols, size_t elem);

// ---- scalars and results ----------------------------------------------------

// A scalar argument as the work reads it: in host pointer mode copied at the call
// (the caller may reuse its memory at once), in device mode read when the work runs.
template <class T> struct Scalar {
  T value;
  const T* device;
  T get() const { return device != nullptr ? *device : value; }
};
template <class T> Scalar<T> capture(const Handle& h, const T* p) {
  if (p == nullptr) return {T{}, nullptr};  // not read (the checks allow it)
  if (host_mode(h)) return {*p, nullptr};
  return {T{}, p};
}

// ---- the work on the stream (handle.cpp) -----------------------------------

using hkprovider::Work;
using hkprovider::WorkOf;

// Work of at most this many multiply-adds takes a few microseconds, less than waking a
// worker: it runs as the runtime's small copies do, on the calling thread where its
// stream is idle (HKRT_HOST_FUNC_SMALL).  A 64^3 sgemm from Python then costs about
// what NumPy's does.
constexpr double kSmallWork = double(1 << 19);

// Enqueues `work` (taken over) on the handle's stream, named `name`; `madds` is its
// multiply-adds, about (unknown: large).
hipblasStatus_t launch(const Handle& h, const char* name, Work* work, double madds);
template <class F>
hipblasStatus_t enqueue(const Handle& h, const char* name, F body, double madds = 1e30) {
  return launch(h, name, new WorkOf<F>(std::move(body)), madds);
}
// Waits for the handle's stream (hipBLAS's routines with a result in host memory
// block until it is written).
hipblasStatus_t wait(const Handle& h);

// A routine's result (dot, nrm2, asum, amax, amin): `compute()` gives it when the work
// runs, written to *result then; in host pointer mode the call waits for it.
template <class R, class F>
hipblasStatus_t with_result(const Handle& h, const char* name, R* result, F compute, double madds) {
  hipblasStatus_t status = enqueue(h, name, [result, compute] { *result = compute(); }, madds);
  return status != HIPBLAS_STATUS_SUCCESS || !host_mode(h) ? status : wait(h);
}
// rocBLAS's rule for out = alpha * op(inputs) + beta * out (gemv, symv, symm): alpha and
// beta must be given; in host mode alpha == 0 with beta == 1 is a quick return, out must
// be given, and the inputs unless alpha == 0; in device mode everything must be given.
template <class S>
hipblasStatus_t scaled_update(const Handle& h, const S* alpha, const S* beta, const void* out,
                              bool inputs_given) {
  if (alpha == nullptr || beta == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (host_mode(h)) {
    if (is_zero(*alpha) && is_one(*beta)) return HIPBLAS_STATUS_SUCCESS;
    if (out == nullptr || (!is_zero(*alpha) && !inputs_given)) return HIPBLAS_STATUS_INVALID_VALUE;
  } else if (out == nullptr || !inputs_given) {
    return HIPBLAS_STATUS_INVALID_VALUE;
  }
  return kContinue;
}
// The result of a quick return: 0, written now in host mode (rocBLAS's memset), in
// stream order in device mode (its hipMemsetAsync).
template <class R> hipblasStatus_t zero_result(const Handle& h, const char* name, R* result) {
  if (host_mode(h)) {
    *result = R{};
    return HIPBLAS_STATUS_SUCCESS;
  }
  return enqueue(h, name, [result] { *result = R{}; });
}

using hkprovider::ApiCall;

}  // namespace hkblas

// Defines the hipBLAS function `name`: it answers the expression after `params`, in
// which NAME is the function's name (the work's name too).
#define HK_DEFINE(name, params, ...)                   \
  extern "C" hipblasStatus_t name params {             \
    static constexpr const char* NAME = #name;         \
    const ::hkblas::ApiCall hk_api_call_(NAME);        \
    return __VA_ARGS__;                                \
  }
