// hipkit NVIDIA platform, whole programs: hipBLAS on cuBLAS, as hipBLAS's own NVIDIA
// backend does, all inline in this header (programs link cuBLAS: hipkit cc takes -lhipblas
// for -lcublas).  The types, enums and declarations are hipBLAS's (hipkit_blas/api.h); the
// routines are generated from hipkit/tables/blas_api.py (hipkit_blas/cublas_routines.h):
// each passes its arguments through __hk_blas::cu (hipBLAS's enums to cuBLAS's) and
// cuBLAS's answer through __hk_blas::status.  Under `hipkit prof` each call (the routines,
// and the handle functions the CPU's provider traces too) is an API row named by hipBLAS,
// its cuBLAS kernels correlated with it (hipkit_nvidia_program/library_trace.h).  The Python provider converts with the same
// tables (hipkit/platforms/nvidia/blas.py); tests/test_nvidia_blas.py checks they agree.
#pragma once

#include <hip/hip_runtime.h>

// cuBLAS's header reads CUDA's cuda_fp16.h and cuda_bf16.h, whose __half is not the
// dialect's (hip_runtime.h has HIP's __half, hipkit_portable/half.h): the two cannot be
// defined in one program.  Their include guards are set so that CUDA's are not read.
// cuBLAS's declarations then take the dialect's __half, which has CUDA's layout (16 bits,
// aligned to 2), and cuBLAS's functions are extern "C", bound by name: an hipblasHalf*
// is the pointer cuBLAS reads.  Its bfloat16 routines, which hipBLAS's API here does not
// have, see a declared __nv_bfloat16.
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
#endif
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__
struct __nv_bfloat16;
#endif
#include <cublas_v2.h>

#include <type_traits>

#include "../hipkit_nvidia_program/library_trace.h"

#define HIPKIT_BLAS_DECL inline
#include <hipkit_blas/api.h>

// cuComplex.h, read after hip_runtime.h, builds cuComplex on the dialect's float2: the
// complex types are one type, and their pointers pass through unconverted.
static_assert(std::is_same<cuComplex, hipComplex>::value, "hipComplex must be cuComplex");
static_assert(std::is_same<cuDoubleComplex, hipDoubleComplex>::value,
              "hipDoubleComplex must be cuDoubleComplex");

namespace __hk_blas {

// A value outside hipBLAS's enum reaches cuBLAS as -2, no value of any of cuBLAS's enums,
// which cuBLAS refuses before doing any work (it prints " ** On entry to SGEMM parameter
// number 1 had an illegal value"); the call answers HIPBLAS_STATUS_INVALID_ENUM, as
// hipBLAS does (its converters throw it before cuBLAS is called), whatever cuBLAS said:
// the converter marks the call and status() reads the mark.
inline thread_local bool invalid_enum = false;

template <class C>
inline C rejected() {
  invalid_enum = true;
  return static_cast<C>(-2);
}

// Sizes, increments, strides, pointers (the element types are cuBLAS's own) as they are.
template <class T>
inline T cu(T value) {
  return value;
}
// hipblasHandle_t is void*: a void* array argument (GemmEx's C) comes here too, and its
// cublasHandle_t converts back to the void* cuBLAS takes.
inline cublasHandle_t cu(hipblasHandle_t handle) { return static_cast<cublasHandle_t>(handle); }

// hipDataType took CUDA's numbers.
inline cudaDataType cu(hipDataType type) { return static_cast<cudaDataType>(type); }

inline cublasOperation_t cu(hipblasOperation_t op) {
  switch (op) {
    case HIPBLAS_OP_N: return CUBLAS_OP_N;
    case HIPBLAS_OP_T: return CUBLAS_OP_T;
    case HIPBLAS_OP_C: return CUBLAS_OP_C;
  }
  return rejected<cublasOperation_t>();
}

// (cuBLAS numbers LOWER 0, UPPER 1.)
inline cublasFillMode_t cu(hipblasFillMode_t uplo) {
  switch (uplo) {
    case HIPBLAS_FILL_MODE_UPPER: return CUBLAS_FILL_MODE_UPPER;
    case HIPBLAS_FILL_MODE_LOWER: return CUBLAS_FILL_MODE_LOWER;
    case HIPBLAS_FILL_MODE_FULL: return CUBLAS_FILL_MODE_FULL;
  }
  return rejected<cublasFillMode_t>();
}

inline cublasDiagType_t cu(hipblasDiagType_t diag) {
  switch (diag) {
    case HIPBLAS_DIAG_NON_UNIT: return CUBLAS_DIAG_NON_UNIT;
    case HIPBLAS_DIAG_UNIT: return CUBLAS_DIAG_UNIT;
  }
  return rejected<cublasDiagType_t>();
}

// HIPBLAS_SIDE_BOTH has no cuBLAS value.
inline cublasSideMode_t cu(hipblasSideMode_t side) {
  switch (side) {
    case HIPBLAS_SIDE_LEFT: return CUBLAS_SIDE_LEFT;
    case HIPBLAS_SIDE_RIGHT: return CUBLAS_SIDE_RIGHT;
    default: break;
  }
  return rejected<cublasSideMode_t>();
}

inline cublasComputeType_t cu(hipblasComputeType_t compute) {
  switch (compute) {
    case HIPBLAS_COMPUTE_16F: return CUBLAS_COMPUTE_16F;
    case HIPBLAS_COMPUTE_16F_PEDANTIC: return CUBLAS_COMPUTE_16F_PEDANTIC;
    case HIPBLAS_COMPUTE_32F: return CUBLAS_COMPUTE_32F;
    case HIPBLAS_COMPUTE_32F_PEDANTIC: return CUBLAS_COMPUTE_32F_PEDANTIC;
    case HIPBLAS_COMPUTE_32F_FAST_16F: return CUBLAS_COMPUTE_32F_FAST_16F;
    case HIPBLAS_COMPUTE_32F_FAST_16BF: return CUBLAS_COMPUTE_32F_FAST_16BF;
    case HIPBLAS_COMPUTE_32F_FAST_TF32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case HIPBLAS_COMPUTE_64F: return CUBLAS_COMPUTE_64F;
    case HIPBLAS_COMPUTE_64F_PEDANTIC: return CUBLAS_COMPUTE_64F_PEDANTIC;
    case HIPBLAS_COMPUTE_32I: return CUBLAS_COMPUTE_32I;
    case HIPBLAS_COMPUTE_32I_PEDANTIC: return CUBLAS_COMPUTE_32I_PEDANTIC;
  }
  return rejected<cublasComputeType_t>();
}

inline cublasGemmAlgo_t cu(hipblasGemmAlgo_t algo) {
  return algo == HIPBLAS_GEMM_DEFAULT ? CUBLAS_GEMM_DEFAULT : rejected<cublasGemmAlgo_t>();
}

// The pointer and atomics modes have cuBLAS's numbers; other values are refused.
inline cublasPointerMode_t cu(hipblasPointerMode_t mode) {
  switch (mode) {
    case HIPBLAS_POINTER_MODE_HOST: return CUBLAS_POINTER_MODE_HOST;
    case HIPBLAS_POINTER_MODE_DEVICE: return CUBLAS_POINTER_MODE_DEVICE;
  }
  return rejected<cublasPointerMode_t>();
}

inline cublasAtomicsMode_t cu(hipblasAtomicsMode_t mode) {
  switch (mode) {
    case HIPBLAS_ATOMICS_NOT_ALLOWED: return CUBLAS_ATOMICS_NOT_ALLOWED;
    case HIPBLAS_ATOMICS_ALLOWED: return CUBLAS_ATOMICS_ALLOWED;
  }
  return rejected<cublasAtomicsMode_t>();
}

// The math modes cuBLAS has (as hipBLAS's NVIDIA backend maps them); false for the others
// (HIPBLAS_XF32_XDL_MATH is AMD's), which hipblasSetMathMode answers NOT_SUPPORTED.
inline bool cu_math(hipblasMath_t mode, cublasMath_t* out) {
  switch (mode) {
    case HIPBLAS_DEFAULT_MATH: *out = CUBLAS_DEFAULT_MATH; return true;
    case HIPBLAS_PEDANTIC_MATH: *out = CUBLAS_PEDANTIC_MATH; return true;
    case HIPBLAS_TF32_TENSOR_OP_MATH: *out = CUBLAS_TF32_TENSOR_OP_MATH; return true;
    case HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION:
      *out = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
      return true;
    case HIPBLAS_TENSOR_OP_MATH: *out = CUBLAS_TENSOR_OP_MATH; return true;
    default: return false;
  }
}

// The other way, for hipblasGetMathMode; false for a mode hipBLAS has no name for.
inline bool hip_math(cublasMath_t mode, hipblasMath_t* out) {
  switch (mode) {
    case CUBLAS_DEFAULT_MATH: *out = HIPBLAS_DEFAULT_MATH; return true;
    case CUBLAS_PEDANTIC_MATH: *out = HIPBLAS_PEDANTIC_MATH; return true;
    case CUBLAS_TF32_TENSOR_OP_MATH: *out = HIPBLAS_TF32_TENSOR_OP_MATH; return true;
    case CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION:
      *out = HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
      return true;
    case CUBLAS_TENSOR_OP_MATH: *out = HIPBLAS_TENSOR_OP_MATH; return true;
    default: return false;
  }
}

inline hipblasStatus_t status(cublasStatus_t s) {
  if (invalid_enum) {
    invalid_enum = false;
    return HIPBLAS_STATUS_INVALID_ENUM;
  }
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return HIPBLAS_STATUS_SUCCESS;
    case CUBLAS_STATUS_NOT_INITIALIZED: return HIPBLAS_STATUS_NOT_INITIALIZED;
    case CUBLAS_STATUS_ALLOC_FAILED: return HIPBLAS_STATUS_ALLOC_FAILED;
    case CUBLAS_STATUS_INVALID_VALUE: return HIPBLAS_STATUS_INVALID_VALUE;
    case CUBLAS_STATUS_ARCH_MISMATCH: return HIPBLAS_STATUS_ARCH_MISMATCH;
    case CUBLAS_STATUS_MAPPING_ERROR: return HIPBLAS_STATUS_MAPPING_ERROR;
    case CUBLAS_STATUS_EXECUTION_FAILED: return HIPBLAS_STATUS_EXECUTION_FAILED;
    case CUBLAS_STATUS_INTERNAL_ERROR: return HIPBLAS_STATUS_INTERNAL_ERROR;
    case CUBLAS_STATUS_NOT_SUPPORTED: return HIPBLAS_STATUS_NOT_SUPPORTED;
    default: return HIPBLAS_STATUS_UNKNOWN;  // CUBLAS_STATUS_LICENSE_ERROR and any later one
  }
}

}  // namespace __hk_blas

extern "C" {

// The handle is made on the CUDA context of the program's current device (hipSetDevice):
// the program's CUDA runtime binds that device's primary context to this thread first,
// and cuBLAS, which has a CUDA runtime of its own, works in the context it finds bound.
inline hipblasStatus_t hipblasCreate(hipblasHandle_t* handle) {
  const __hk_trace::LibraryCall call("hipblasCreate");
  if (handle == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (cudaFree(nullptr) != cudaSuccess) return HIPBLAS_STATUS_NOT_INITIALIZED;
  cublasHandle_t made = nullptr;
  cublasStatus_t s = cublasCreate(&made);
  *handle = made;
  return __hk_blas::status(s);
}

inline hipblasStatus_t hipblasDestroy(hipblasHandle_t handle) {
  const __hk_trace::LibraryCall call("hipblasDestroy");
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  return __hk_blas::status(cublasDestroy(__hk_blas::cu(handle)));
}

inline hipblasStatus_t hipblasSetStream(hipblasHandle_t handle, hipStream_t streamId) {
  const __hk_trace::LibraryCall call("hipblasSetStream");
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  return __hk_blas::status(cublasSetStream(__hk_blas::cu(handle), streamId));
}

inline hipblasStatus_t hipblasGetStream(hipblasHandle_t handle, hipStream_t* streamId) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (streamId == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  return __hk_blas::status(cublasGetStream(__hk_blas::cu(handle), streamId));
}

inline hipblasStatus_t hipblasSetPointerMode(hipblasHandle_t handle, hipblasPointerMode_t mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  return __hk_blas::status(cublasSetPointerMode(__hk_blas::cu(handle), __hk_blas::cu(mode)));
}

inline hipblasStatus_t hipblasGetPointerMode(hipblasHandle_t handle, hipblasPointerMode_t* mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (mode == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  cublasPointerMode_t got = CUBLAS_POINTER_MODE_HOST;
  cublasStatus_t s = cublasGetPointerMode(__hk_blas::cu(handle), &got);
  if (s == CUBLAS_STATUS_SUCCESS) *mode = static_cast<hipblasPointerMode_t>(got);
  return __hk_blas::status(s);
}

inline hipblasStatus_t hipblasSetAtomicsMode(hipblasHandle_t handle, hipblasAtomicsMode_t atomics_mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  return __hk_blas::status(cublasSetAtomicsMode(__hk_blas::cu(handle), __hk_blas::cu(atomics_mode)));
}

inline hipblasStatus_t hipblasGetAtomicsMode(hipblasHandle_t handle, hipblasAtomicsMode_t* atomics_mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (atomics_mode == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  cublasAtomicsMode_t got = CUBLAS_ATOMICS_NOT_ALLOWED;
  cublasStatus_t s = cublasGetAtomicsMode(__hk_blas::cu(handle), &got);
  if (s == CUBLAS_STATUS_SUCCESS) *atomics_mode = static_cast<hipblasAtomicsMode_t>(got);
  return __hk_blas::status(s);
}

inline hipblasStatus_t hipblasSetMathMode(hipblasHandle_t handle, hipblasMath_t mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  cublasMath_t math;
  if (!__hk_blas::cu_math(mode, &math)) return HIPBLAS_STATUS_NOT_SUPPORTED;
  return __hk_blas::status(cublasSetMathMode(__hk_blas::cu(handle), math));
}

inline hipblasStatus_t hipblasGetMathMode(hipblasHandle_t handle, hipblasMath_t* mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (mode == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  cublasMath_t got = CUBLAS_DEFAULT_MATH;
  cublasStatus_t s = cublasGetMathMode(__hk_blas::cu(handle), &got);
  if (s != CUBLAS_STATUS_SUCCESS) return __hk_blas::status(s);
  return __hk_blas::hip_math(got, mode) ? HIPBLAS_STATUS_SUCCESS : HIPBLAS_STATUS_INVALID_ENUM;
}

inline const char* hipblasStatusToString(hipblasStatus_t status) {
  switch (status) {
    case HIPBLAS_STATUS_SUCCESS: return "HIPBLAS_STATUS_SUCCESS";
    case HIPBLAS_STATUS_NOT_INITIALIZED: return "HIPBLAS_STATUS_NOT_INITIALIZED";
    case HIPBLAS_STATUS_ALLOC_FAILED: return "HIPBLAS_STATUS_ALLOC_FAILED";
    case HIPBLAS_STATUS_INVALID_VALUE: return "HIPBLAS_STATUS_INVALID_VALUE";
    case HIPBLAS_STATUS_MAPPING_ERROR: return "HIPBLAS_STATUS_MAPPING_ERROR";
    case HIPBLAS_STATUS_EXECUTION_FAILED: return "HIPBLAS_STATUS_EXECUTION_FAILED";
    case HIPBLAS_STATUS_INTERNAL_ERROR: return "HIPBLAS_STATUS_INTERNAL_ERROR";
    case HIPBLAS_STATUS_NOT_SUPPORTED: return "HIPBLAS_STATUS_NOT_SUPPORTED";
    case HIPBLAS_STATUS_ARCH_MISMATCH: return "HIPBLAS_STATUS_ARCH_MISMATCH";
    case HIPBLAS_STATUS_HANDLE_IS_NULLPTR: return "HIPBLAS_STATUS_HANDLE_IS_NULLPTR";
    case HIPBLAS_STATUS_INVALID_ENUM: return "HIPBLAS_STATUS_INVALID_ENUM";
    case HIPBLAS_STATUS_UNKNOWN: return "HIPBLAS_STATUS_UNKNOWN";
  }
  return "<undefined hipblasStatus_t value>";
}

// hipBLAS's version, the API these headers follow (not cuBLAS's, which CUBLAS_VERSION
// and cublasGetVersion give), encoded as hipBLAS encodes it.
inline hipblasStatus_t hipblasGetVersion(hipblasHandle_t handle, int* version) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (version == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  *version = HIPBLAS_VERSION_MAJOR * 100000 + HIPBLAS_VERSION_MINOR * 100 + HIPBLAS_VERSION_PATCH;
  return HIPBLAS_STATUS_SUCCESS;
}

inline hipblasStatus_t hipblasSetVector(int n, int elemSize, const void* x, int incx, void* y, int incy) {
  const __hk_trace::LibraryCall call("hipblasSetVector");
  return __hk_blas::status(cublasSetVector(n, elemSize, x, incx, y, incy));
}

inline hipblasStatus_t hipblasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy) {
  const __hk_trace::LibraryCall call("hipblasGetVector");
  return __hk_blas::status(cublasGetVector(n, elemSize, x, incx, y, incy));
}

inline hipblasStatus_t hipblasSetMatrix(int rows, int cols, int elemSize, const void* AP, int lda,
                                        void* BP, int ldb) {
  const __hk_trace::LibraryCall call("hipblasSetMatrix");
  return __hk_blas::status(cublasSetMatrix(rows, cols, elemSize, AP, lda, BP, ldb));
}

inline hipblasStatus_t hipblasGetMatrix(int rows, int cols, int elemSize, const void* AP, int lda,
                                        void* BP, int ldb) {
  const __hk_trace::LibraryCall call("hipblasGetMatrix");
  return __hk_blas::status(cublasGetMatrix(rows, cols, elemSize, AP, lda, BP, ldb));
}

}  // extern "C"

#include <hipkit_blas/cublas_routines.h>
