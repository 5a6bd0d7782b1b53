// hipkit: hipBLAS's C API (types, enums, the handle's functions) for the programs of the
// platforms that serve hipBLAS themselves (CPU: hipkit's OpenBLAS provider; NVIDIA:
// hipBLAS on cuBLAS).  Each platform's hipblas/hipblas.h includes this, then its own
// definitions.  The values are hipBLAS's own (hipblas-common.h, hipblas.h), so that a
// program that prints or stores them sees what it sees on ROCm.  The compute routines
// are declared in hipkit_blas/routines.h, generated from hipkit/tables/blas_api.py.
#pragma once

#include <stdint.h>

#include <hip/hip_runtime_api.h>
#include <hip/hip_complex.h>
#include <hip/library_types.h>
#include <hip/hip_fp16.h>

// How a platform's header makes hipBLAS's functions: empty where a library defines them,
// `inline` where the header does.
#ifndef HIPKIT_BLAS_DECL
#define HIPKIT_BLAS_DECL
#endif

#define HIPBLAS_VERSION_MAJOR 3
#define HIPBLAS_VERSION_MINOR 0
#define HIPBLAS_VERSION_PATCH 0

typedef void* hipblasHandle_t;
typedef __half hipblasHalf;
typedef int8_t hipblasInt8;
typedef int64_t hipblasStride;
typedef hipFloatComplex hipblasComplex;
typedef hipDoubleComplex hipblasDoubleComplex;

typedef enum {
  HIPBLAS_STATUS_SUCCESS = 0,
  HIPBLAS_STATUS_NOT_INITIALIZED = 1,
  HIPBLAS_STATUS_ALLOC_FAILED = 2,
  HIPBLAS_STATUS_INVALID_VALUE = 3,
  HIPBLAS_STATUS_MAPPING_ERROR = 4,
  HIPBLAS_STATUS_EXECUTION_FAILED = 5,
  HIPBLAS_STATUS_INTERNAL_ERROR = 6,
  HIPBLAS_STATUS_NOT_SUPPORTED = 7,
  HIPBLAS_STATUS_ARCH_MISMATCH = 8,
  HIPBLAS_STATUS_HANDLE_IS_NULLPTR = 9,
  HIPBLAS_STATUS_INVALID_ENUM = 10,
  HIPBLAS_STATUS_UNKNOWN = 11,
} hipblasStatus_t;

typedef enum { HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112, HIPBLAS_OP_C = 113 } hipblasOperation_t;

typedef enum {
  HIPBLAS_FILL_MODE_UPPER = 121,
  HIPBLAS_FILL_MODE_LOWER = 122,
  HIPBLAS_FILL_MODE_FULL = 123,
} hipblasFillMode_t;

typedef enum { HIPBLAS_DIAG_NON_UNIT = 131, HIPBLAS_DIAG_UNIT = 132 } hipblasDiagType_t;

typedef enum {
  HIPBLAS_SIDE_LEFT = 141,
  HIPBLAS_SIDE_RIGHT = 142,
  HIPBLAS_SIDE_BOTH = 143,
} hipblasSideMode_t;

typedef enum { HIPBLAS_POINTER_MODE_HOST = 0, HIPBLAS_POINTER_MODE_DEVICE = 1 } hipblasPointerMode_t;

typedef enum { HIPBLAS_ATOMICS_NOT_ALLOWED = 0, HIPBLAS_ATOMICS_ALLOWED = 1 } hipblasAtomicsMode_t;

// TF32 is used only when asked for (HIPBLAS_TF32_TENSOR_OP_MATH or a *_FAST_TF32 compute
// type), never by default.
typedef enum {
  HIPBLAS_DEFAULT_MATH = 0,
  HIPBLAS_XF32_XDL_MATH = 1,
  HIPBLAS_PEDANTIC_MATH = 2,
  HIPBLAS_TF32_TENSOR_OP_MATH = 3,
  HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 4,
  HIPBLAS_TENSOR_OP_MATH = 5,
} hipblasMath_t;

typedef enum {
  HIPBLAS_COMPUTE_16F = 0,
  HIPBLAS_COMPUTE_16F_PEDANTIC = 1,
  HIPBLAS_COMPUTE_32F = 2,
  HIPBLAS_COMPUTE_32F_PEDANTIC = 3,
  HIPBLAS_COMPUTE_32F_FAST_16F = 4,
  HIPBLAS_COMPUTE_32F_FAST_16BF = 5,
  HIPBLAS_COMPUTE_32F_FAST_TF32 = 6,
  HIPBLAS_COMPUTE_64F = 7,
  HIPBLAS_COMPUTE_64F_PEDANTIC = 8,
  HIPBLAS_COMPUTE_32I = 9,
  HIPBLAS_COMPUTE_32I_PEDANTIC = 10,
} hipblasComputeType_t;

typedef enum { HIPBLAS_GEMM_DEFAULT = 160 } hipblasGemmAlgo_t;

#ifdef __cplusplus
extern "C" {
#endif

HIPKIT_BLAS_DECL hipblasStatus_t hipblasCreate(hipblasHandle_t* handle);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasDestroy(hipblasHandle_t handle);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasSetStream(hipblasHandle_t handle, hipStream_t streamId);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasGetStream(hipblasHandle_t handle, hipStream_t* streamId);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasSetPointerMode(hipblasHandle_t handle,
                                                       hipblasPointerMode_t mode);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasGetPointerMode(hipblasHandle_t handle,
                                                       hipblasPointerMode_t* mode);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasSetAtomicsMode(hipblasHandle_t handle,
                                                       hipblasAtomicsMode_t atomics_mode);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasGetAtomicsMode(hipblasHandle_t handle,
                                                       hipblasAtomicsMode_t* atomics_mode);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasSetMathMode(hipblasHandle_t handle, hipblasMath_t mode);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasGetMathMode(hipblasHandle_t handle, hipblasMath_t* mode);
HIPKIT_BLAS_DECL const char* hipblasStatusToString(hipblasStatus_t status);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasGetVersion(hipblasHandle_t handle, int* version);

// Copies between host and device memory, synchronous: elements of elemSize bytes, incx
// and incy apart (vectors), or columns lda and ldb elements apart (matrices).
HIPKIT_BLAS_DECL hipblasStatus_t hipblasSetVector(int n, int elemSize, const void* x, int incx,
                                                  void* y, int incy);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasGetVector(int n, int elemSize, const void* x, int incx,
                                                  void* y, int incy);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasSetMatrix(int rows, int cols, int elemSize, const void* AP,
                                                  int lda, void* BP, int ldb);
HIPKIT_BLAS_DECL hipblasStatus_t hipblasGetMatrix(int rows, int cols, int elemSize, const void* AP,
                                                  int lda, void* BP, int ldb);

#ifdef __cplusplus
}
#endif

#include <hipkit_blas/routines.h>
