// hipkit: rocBLAS's C API on the platforms that serve hipBLAS themselves (CPU: hipkit's
// OpenBLAS provider; NVIDIA: hipBLAS on cuBLAS), as inline calls of hipBLAS's (on AMD,
// rocblas/rocblas.h is ROCm's own).  Each platform's rocblas/rocblas.h includes its
// hipblas/hipblas.h, then this.
//
// rocBLAS's types and values are rocBLAS's own (hipkit_blas/rocblas_types.h); the
// namespace __hk_rocblas converts them to hipBLAS's (hip(...)) and hipBLAS's status back
// (status(...)).  The compute routines (rocblas_sgemm...) are generated from
// hipkit/tables/blas_api.py into hipkit_blas/rocblas_routines.h; the Ex forms, which
// differ from hipBLAS's in their arguments, are in hipkit_blas/rocblas_gemm_ex.h.
#pragma once

#include <stddef.h>
#include <string.h>

#include <hipkit_blas/rocblas_types.h>

// The rocBLAS whose API this is.
#define ROCBLAS_VERSION_MAJOR 4
#define ROCBLAS_VERSION_MINOR 4
#define ROCBLAS_VERSION_PATCH 0

// rocBLAS's enums have hipBLAS's values: converting them is a cast.
static_assert(int(rocblas_operation_conjugate_transpose) == int(HIPBLAS_OP_C), "rocblas_operation");
static_assert(int(rocblas_fill_full) == int(HIPBLAS_FILL_MODE_FULL), "rocblas_fill");
static_assert(int(rocblas_diagonal_unit) == int(HIPBLAS_DIAG_UNIT), "rocblas_diagonal");
static_assert(int(rocblas_side_both) == int(HIPBLAS_SIDE_BOTH), "rocblas_side");
static_assert(int(rocblas_pointer_mode_device) == int(HIPBLAS_POINTER_MODE_DEVICE), "pointer mode");
static_assert(int(rocblas_atomics_allowed) == int(HIPBLAS_ATOMICS_ALLOWED), "atomics mode");
static_assert(int(rocblas_xf32_xdl_math_op) == int(HIPBLAS_XF32_XDL_MATH), "math mode");
// ... and its element types hipBLAS's layout: converting pointers to them is a cast too.
static_assert(sizeof(rocblas_half) == sizeof(hipblasHalf) && alignof(rocblas_half) == alignof(hipblasHalf),
              "rocblas_half");
static_assert(sizeof(rocblas_float_complex) == sizeof(hipFloatComplex) &&
                  alignof(rocblas_float_complex) <= alignof(hipFloatComplex),
              "rocblas_float_complex");
static_assert(sizeof(rocblas_double_complex) == sizeof(hipDoubleComplex) &&
                  alignof(rocblas_double_complex) <= alignof(hipDoubleComplex),
              "rocblas_double_complex");

namespace __hk_rocblas {

inline hipblasHandle_t hip(rocblas_handle h) { return reinterpret_cast<hipblasHandle_t>(h); }
inline hipblasOperation_t hip(rocblas_operation v) { return static_cast<hipblasOperation_t>(v); }
inline hipblasFillMode_t hip(rocblas_fill v) { return static_cast<hipblasFillMode_t>(v); }
inline hipblasDiagType_t hip(rocblas_diagonal v) { return static_cast<hipblasDiagType_t>(v); }
inline hipblasSideMode_t hip(rocblas_side v) { return static_cast<hipblasSideMode_t>(v); }
inline hipblasPointerMode_t hip(rocblas_pointer_mode v) { return static_cast<hipblasPointerMode_t>(v); }
inline hipblasAtomicsMode_t hip(rocblas_atomics_mode v) { return static_cast<hipblasAtomicsMode_t>(v); }
inline hipblasMath_t hip(rocblas_math_mode v) { return static_cast<hipblasMath_t>(v); }

// hipBLAS's element type for rocBLAS's, through const and any depth of pointers (the
// batched forms take arrays of pointers): `const rocblas_half* const*` is
// `const hipblasHalf* const*`.
template <typename T>
struct element {
  using type = T;
};
template <>
struct element<rocblas_half> {
  using type = hipblasHalf;
};
#if !defined(ROCM_MATHLIBS_API_USE_HIP_COMPLEX)
template <>
struct element<rocblas_float_complex> {
  using type = hipFloatComplex;
};
template <>
struct element<rocblas_double_complex> {
  using type = hipDoubleComplex;
};
#endif
template <typename T>
struct element<const T> {
  using type = const typename element<T>::type;
};
template <typename T>
struct element<T*> {
  using type = typename element<T>::type*;
};

// A pointer argument: float* stays float*, rocblas_float_complex* is hipFloatComplex*.
template <typename T>
inline typename element<T*>::type hip(T* p) {
  return reinterpret_cast<typename element<T*>::type>(p);
}

// hipBLAS's status as rocBLAS says it.  hipBLAS has one status, INVALID_VALUE, for what
// rocBLAS tells apart as invalid_size, invalid_pointer and invalid_value; its providers
// give it for bad sizes, leading dimensions, increments and batch counts (what rocBLAS
// calls invalid_size, and what a program checks for), and INVALID_ENUM for bad enums
// (rocBLAS's invalid_value).  So INVALID_VALUE is invalid_size.  A handle that is null
// or not made by rocblas_create_handle is invalid_handle.
inline rocblas_status status(hipblasStatus_t s) {
  switch (s) {
    case HIPBLAS_STATUS_SUCCESS:
      return rocblas_status_success;
    case HIPBLAS_STATUS_NOT_INITIALIZED:
    case HIPBLAS_STATUS_HANDLE_IS_NULLPTR:
      return rocblas_status_invalid_handle;
    case HIPBLAS_STATUS_INVALID_VALUE:
      return rocblas_status_invalid_size;
    case HIPBLAS_STATUS_INVALID_ENUM:
      return rocblas_status_invalid_value;
    case HIPBLAS_STATUS_ALLOC_FAILED:
      return rocblas_status_memory_error;
    case HIPBLAS_STATUS_NOT_SUPPORTED:
      return rocblas_status_not_implemented;
    case HIPBLAS_STATUS_ARCH_MISMATCH:
      return rocblas_status_arch_mismatch;
    default:
      return rocblas_status_internal_error;
  }
}

// rocBLAS's checks of a host-device copy's arguments (rocblas_status_continue: go on).
inline rocblas_status copy_arguments(bool sizes_valid, const void* from, const void* to, bool empty) {
  if (!sizes_valid) return rocblas_status_invalid_size;
  if (empty) return rocblas_status_success;
  if (!from || !to) return rocblas_status_invalid_pointer;
  return rocblas_status_continue;
}

// A copy of `height` rows of `width` bytes, `from_pitch` and `to_pitch` bytes apart (a
// strided vector is rows of one element), queued on `stream`.
inline rocblas_status copy_2d(const void* from, size_t from_pitch, void* to, size_t to_pitch, size_t width,
                              size_t height, hipMemcpyKind kind, hipStream_t stream) {
  hipError_t e = hipMemcpy2DAsync(to, to_pitch, from, from_pitch, width, height, kind, stream);
  return e == hipSuccess ? rocblas_status_success : rocblas_status_memory_error;
}

inline rocblas_status vector_async(rocblas_int n, rocblas_int elem_size, const void* x, rocblas_int incx, void* y,
                                   rocblas_int incy, hipMemcpyKind kind, hipStream_t stream) {
  rocblas_status s = copy_arguments(n >= 0 && elem_size > 0 && incx > 0 && incy > 0, x, y, n == 0);
  if (s != rocblas_status_continue) return s;
  size_t size = size_t(elem_size);
  return copy_2d(x, size * size_t(incx), y, size * size_t(incy), size, size_t(n), kind, stream);
}

inline rocblas_status matrix_async(rocblas_int rows, rocblas_int cols, rocblas_int elem_size, const void* a,
                                   rocblas_int lda, void* b, rocblas_int ldb, hipMemcpyKind kind,
                                   hipStream_t stream) {
  bool sizes = rows >= 0 && cols >= 0 && elem_size > 0 && lda > 0 && lda >= rows && ldb > 0 && ldb >= rows;
  rocblas_status s = copy_arguments(sizes, a, b, rows == 0 || cols == 0);
  if (s != rocblas_status_continue) return s;
  size_t size = size_t(elem_size);
  return copy_2d(a, size * size_t(lda), b, size * size_t(ldb), size * size_t(rows), size_t(cols), kind, stream);
}

constexpr const char version[] = "4.4.0.hipkit";  // rocBLAS's form: major.minor.patch.tweak

}  // namespace __hk_rocblas

extern "C" {

inline rocblas_status rocblas_create_handle(rocblas_handle* handle) {
  if (!handle) return rocblas_status_invalid_pointer;
  hipblasHandle_t h = nullptr;
  rocblas_status s = __hk_rocblas::status(hipblasCreate(&h));
  *handle = reinterpret_cast<rocblas_handle>(h);
  return s;
}

inline rocblas_status rocblas_destroy_handle(rocblas_handle handle) {
  if (!handle) return rocblas_status_invalid_handle;
  return __hk_rocblas::status(hipblasDestroy(__hk_rocblas::hip(handle)));
}

inline rocblas_status rocblas_set_stream(rocblas_handle handle, hipStream_t stream) {
  if (!handle) return rocblas_status_invalid_handle;
  return __hk_rocblas::status(hipblasSetStream(__hk_rocblas::hip(handle), stream));
}

inline rocblas_status rocblas_get_stream(rocblas_handle handle, hipStream_t* stream) {
  if (!handle) return rocblas_status_invalid_handle;
  if (!stream) return rocblas_status_invalid_pointer;
  return __hk_rocblas::status(hipblasGetStream(__hk_rocblas::hip(handle), stream));
}

// The modes' getters: hipBLAS's enum read into rocBLAS's (the same values).
#define __HK_ROCBLAS_MODE(NAME, ROC, HIP)                                               \
  inline rocblas_status rocblas_set_##NAME(rocblas_handle handle, ROC mode) {           \
    if (!handle) return rocblas_status_invalid_handle;                                  \
    return __hk_rocblas::status(hipblasSet##HIP(__hk_rocblas::hip(handle), __hk_rocblas::hip(mode))); \
  }                                                                                     \
  inline rocblas_status rocblas_get_##NAME(rocblas_handle handle, ROC* mode) {          \
    if (!handle) return rocblas_status_invalid_handle;                                  \
    if (!mode) return rocblas_status_invalid_pointer;                                   \
    decltype(__hk_rocblas::hip(*mode)) value;                                           \
    hipblasStatus_t s = hipblasGet##HIP(__hk_rocblas::hip(handle), &value);             \
    if (s == HIPBLAS_STATUS_SUCCESS) *mode = static_cast<ROC>(value);                   \
    return __hk_rocblas::status(s);                                                     \
  }
__HK_ROCBLAS_MODE(pointer_mode, rocblas_pointer_mode, PointerMode)
__HK_ROCBLAS_MODE(atomics_mode, rocblas_atomics_mode, AtomicsMode)
__HK_ROCBLAS_MODE(math_mode, rocblas_math_mode, MathMode)
#undef __HK_ROCBLAS_MODE

// Host-device copies, synchronous (hipBLAS's) and queued on a stream.
inline rocblas_status rocblas_set_vector(rocblas_int n, rocblas_int elem_size, const void* x, rocblas_int incx,
                                         void* y, rocblas_int incy) {
  return __hk_rocblas::status(hipblasSetVector(n, elem_size, x, incx, y, incy));
}
inline rocblas_status rocblas_get_vector(rocblas_int n, rocblas_int elem_size, const void* x, rocblas_int incx,
                                         void* y, rocblas_int incy) {
  return __hk_rocblas::status(hipblasGetVector(n, elem_size, x, incx, y, incy));
}
inline rocblas_status rocblas_set_matrix(rocblas_int rows, rocblas_int cols, rocblas_int elem_size, const void* a,
                                         rocblas_int lda, void* b, rocblas_int ldb) {
  return __hk_rocblas::status(hipblasSetMatrix(rows, cols, elem_size, a, lda, b, ldb));
}
inline rocblas_status rocblas_get_matrix(rocblas_int rows, rocblas_int cols, rocblas_int elem_size, const void* a,
                                         rocblas_int lda, void* b, rocblas_int ldb) {
  return __hk_rocblas::status(hipblasGetMatrix(rows, cols, elem_size, a, lda, b, ldb));
}
inline rocblas_status rocblas_set_vector_async(rocblas_int n, rocblas_int elem_size, const void* x,
                                               rocblas_int incx, void* y, rocblas_int incy, hipStream_t stream) {
  return __hk_rocblas::vector_async(n, elem_size, x, incx, y, incy, hipMemcpyHostToDevice, stream);
}
inline rocblas_status rocblas_get_vector_async(rocblas_int n, rocblas_int elem_size, const void* x,
                                               rocblas_int incx, void* y, rocblas_int incy, hipStream_t stream) {
  return __hk_rocblas::vector_async(n, elem_size, x, incx, y, incy, hipMemcpyDeviceToHost, stream);
}
inline rocblas_status rocblas_set_matrix_async(rocblas_int rows, rocblas_int cols, rocblas_int elem_size,
                                               const void* a, rocblas_int lda, void* b, rocblas_int ldb,
                                               hipStream_t stream) {
  return __hk_rocblas::matrix_async(rows, cols, elem_size, a, lda, b, ldb, hipMemcpyHostToDevice, stream);
}
inline rocblas_status rocblas_get_matrix_async(rocblas_int rows, rocblas_int cols, rocblas_int elem_size,
                                               const void* a, rocblas_int lda, void* b, rocblas_int ldb,
                                               hipStream_t stream) {
  return __hk_rocblas::matrix_async(rows, cols, elem_size, a, lda, b, ldb, hipMemcpyDeviceToHost, stream);
}

// rocBLAS's names of its statuses, and its text for a value that is none of them.
inline const char* rocblas_status_to_string(rocblas_status status) {
#define __HK_ROCBLAS_CASE(s) \
  case s:                    \
    return #s
  switch (status) {
    __HK_ROCBLAS_CASE(rocblas_status_success);
    __HK_ROCBLAS_CASE(rocblas_status_invalid_handle);
    __HK_ROCBLAS_CASE(rocblas_status_not_implemented);
    __HK_ROCBLAS_CASE(rocblas_status_invalid_pointer);
    __HK_ROCBLAS_CASE(rocblas_status_invalid_size);
    __HK_ROCBLAS_CASE(rocblas_status_memory_error);
    __HK_ROCBLAS_CASE(rocblas_status_internal_error);
    __HK_ROCBLAS_CASE(rocblas_status_perf_degraded);
    __HK_ROCBLAS_CASE(rocblas_status_size_query_mismatch);
    __HK_ROCBLAS_CASE(rocblas_status_size_increased);
    __HK_ROCBLAS_CASE(rocblas_status_size_unchanged);
    __HK_ROCBLAS_CASE(rocblas_status_invalid_value);
    __HK_ROCBLAS_CASE(rocblas_status_continue);
    __HK_ROCBLAS_CASE(rocblas_status_check_numerics_fail);
    __HK_ROCBLAS_CASE(rocblas_status_excluded_from_build);
    __HK_ROCBLAS_CASE(rocblas_status_arch_mismatch);
  }
#undef __HK_ROCBLAS_CASE
  return "<undefined rocblas_status value>";
}

// rocBLAS loads its kernels here; hipBLAS's providers need nothing ahead.
inline void rocblas_initialize(void) {}

inline rocblas_status rocblas_get_version_string_size(size_t* len) {
  if (!len) return rocblas_status_invalid_pointer;
  *len = sizeof(__hk_rocblas::version);
  return rocblas_status_success;
}

inline rocblas_status rocblas_get_version_string(char* buf, size_t len) {
  if (!buf) return rocblas_status_invalid_pointer;
  if (len < sizeof(__hk_rocblas::version)) return rocblas_status_invalid_size;
  memcpy(buf, __hk_rocblas::version, sizeof(__hk_rocblas::version));
  return rocblas_status_success;
}

}  // extern "C"

#include <hipkit_blas/rocblas_gemm_ex.h>
#include <hipkit_blas/rocblas_routines.h>
