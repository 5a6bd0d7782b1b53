"""hipBLAS's enums, with hipBLAS's names and values (those of
``platforms/include/hipkit_blas/api.h`` and ``hipkit_portable/library_types.h``,
which tests/test_hipblas.py reads to check them)."""

from __future__ import annotations

import enum


class hipblasStatus_t(enum.IntEnum):  # hipBLAS's own names, here and below
    """What every hipBLAS function answers."""

    HIPBLAS_STATUS_SUCCESS = 0
    HIPBLAS_STATUS_NOT_INITIALIZED = 1
    HIPBLAS_STATUS_ALLOC_FAILED = 2
    HIPBLAS_STATUS_INVALID_VALUE = 3
    HIPBLAS_STATUS_MAPPING_ERROR = 4
    HIPBLAS_STATUS_EXECUTION_FAILED = 5
    HIPBLAS_STATUS_INTERNAL_ERROR = 6
    HIPBLAS_STATUS_NOT_SUPPORTED = 7
    HIPBLAS_STATUS_ARCH_MISMATCH = 8
    HIPBLAS_STATUS_HANDLE_IS_NULLPTR = 9
    HIPBLAS_STATUS_INVALID_ENUM = 10
    HIPBLAS_STATUS_UNKNOWN = 11


class hipblasOperation_t(enum.IntEnum):
    """op(A): A, its transpose, its conjugate transpose."""

    HIPBLAS_OP_N = 111
    HIPBLAS_OP_T = 112
    HIPBLAS_OP_C = 113


class hipblasFillMode_t(enum.IntEnum):
    """Which triangle of a symmetric or triangular matrix is read."""

    HIPBLAS_FILL_MODE_UPPER = 121
    HIPBLAS_FILL_MODE_LOWER = 122
    HIPBLAS_FILL_MODE_FULL = 123


class hipblasDiagType_t(enum.IntEnum):
    """Whether a triangular matrix's diagonal is read or taken as ones."""

    HIPBLAS_DIAG_NON_UNIT = 131
    HIPBLAS_DIAG_UNIT = 132


class hipblasSideMode_t(enum.IntEnum):
    """Which side of B the matrix A multiplies (symm, trsm, trmm)."""

    HIPBLAS_SIDE_LEFT = 141
    HIPBLAS_SIDE_RIGHT = 142
    HIPBLAS_SIDE_BOTH = 143


class hipblasPointerMode_t(enum.IntEnum):
    """Where scalars and results live: host memory or device memory."""

    HIPBLAS_POINTER_MODE_HOST = 0
    HIPBLAS_POINTER_MODE_DEVICE = 1


class hipblasAtomicsMode_t(enum.IntEnum):
    """Whether routines may use atomics (faster, not bitwise reproducible)."""

    HIPBLAS_ATOMICS_NOT_ALLOWED = 0
    HIPBLAS_ATOMICS_ALLOWED = 1


class hipblasMath_t(enum.IntEnum):
    """The handle's math mode: TF32 only when asked for, never by default."""

    HIPBLAS_DEFAULT_MATH = 0
    HIPBLAS_XF32_XDL_MATH = 1
    HIPBLAS_PEDANTIC_MATH = 2
    HIPBLAS_TF32_TENSOR_OP_MATH = 3
    HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 4
    HIPBLAS_TENSOR_OP_MATH = 5


class hipblasComputeType_t(enum.IntEnum):
    """The arithmetic of the Ex routines (and the type of their scalars)."""

    HIPBLAS_COMPUTE_16F = 0
    HIPBLAS_COMPUTE_16F_PEDANTIC = 1
    HIPBLAS_COMPUTE_32F = 2
    HIPBLAS_COMPUTE_32F_PEDANTIC = 3
    HIPBLAS_COMPUTE_32F_FAST_16F = 4
    HIPBLAS_COMPUTE_32F_FAST_16BF = 5
    HIPBLAS_COMPUTE_32F_FAST_TF32 = 6
    HIPBLAS_COMPUTE_64F = 7
    HIPBLAS_COMPUTE_64F_PEDANTIC = 8
    HIPBLAS_COMPUTE_32I = 9
    HIPBLAS_COMPUTE_32I_PEDANTIC = 10


class hipblasGemmAlgo_t(enum.IntEnum):
    """The Ex routines' algorithm choice."""

    HIPBLAS_GEMM_DEFAULT = 160


class hipDataType(enum.IntEnum):
    """HIP's data types (CUDA's cudaDataType values): the Ex routines' element types."""

    HIP_R_32F = 0
    HIP_R_64F = 1
    HIP_R_16F = 2
    HIP_R_8I = 3
    HIP_C_32F = 4
    HIP_C_64F = 5
    HIP_C_16F = 6
    HIP_C_8I = 7
    HIP_R_8U = 8
    HIP_C_8U = 9
    HIP_R_32I = 10
    HIP_C_32I = 11
    HIP_R_32U = 12
    HIP_C_32U = 13
    HIP_R_16BF = 14
    HIP_C_16BF = 15
    HIP_R_4I = 16
    HIP_C_4I = 17
    HIP_R_4U = 18
    HIP_C_4U = 19
    HIP_R_16I = 20
    HIP_C_16I = 21
    HIP_R_16U = 22
    HIP_C_16U = 23
    HIP_R_64I = 24
    HIP_C_64I = 25
    HIP_R_64U = 26
    HIP_C_64U = 27
    HIP_R_8F_E4M3 = 28
    HIP_R_8F_E5M2 = 29


ENUMS: tuple[type[enum.IntEnum], ...] = (
    hipblasStatus_t,
    hipblasOperation_t,
    hipblasFillMode_t,
    hipblasDiagType_t,
    hipblasSideMode_t,
    hipblasPointerMode_t,
    hipblasAtomicsMode_t,
    hipblasMath_t,
    hipblasComputeType_t,
    hipblasGemmAlgo_t,
    hipDataType,
)
