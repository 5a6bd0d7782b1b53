"""The element types hipkit.blas serves, and each family's hipBLAS routine per type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import hipblas
from ..hipblas import hipDataType

FLOAT32: np.dtype = np.dtype(np.float32)
FLOAT64: np.dtype = np.dtype(np.float64)
COMPLEX64: np.dtype = np.dtype(np.complex64)
COMPLEX128: np.dtype = np.dtype(np.complex128)
FLOAT16: np.dtype = np.dtype(np.float16)
LETTERS: dict[np.dtype, str] = {FLOAT32: "S", FLOAT64: "D", COMPLEX64: "C", COMPLEX128: "Z"}
COMPLEX = frozenset((COMPLEX64, COMPLEX128))
# The real type of each type (of nrm2's result, of rot's c).
REAL: dict[np.dtype, np.dtype] = {FLOAT32: FLOAT32, FLOAT64: FLOAT64, COMPLEX64: FLOAT32, COMPLEX128: FLOAT64}


def _bfloat16() -> np.dtype | None:
    """bfloat16, where ml_dtypes gives NumPy one (DLPack brings torch.bfloat16 as it)."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


BFLOAT16 = _bfloat16()

# The Ex routines' names of the types (gemm and matmul of every type go through them
# for float16, bfloat16, and TF32 when asked).
DATA_TYPES: dict[np.dtype, int] = {
    FLOAT32: hipDataType.HIP_R_32F,
    FLOAT64: hipDataType.HIP_R_64F,
    COMPLEX64: hipDataType.HIP_C_32F,
    COMPLEX128: hipDataType.HIP_C_64F,
    FLOAT16: hipDataType.HIP_R_16F,
}
if BFLOAT16 is not None:
    DATA_TYPES[BFLOAT16] = hipDataType.HIP_R_16BF
# ...and their compute types: float16 and bfloat16 accumulate in float32.
COMPUTE_TYPES: dict[np.dtype, int] = {
    FLOAT32: hipblas.HIPBLAS_COMPUTE_32F,
    FLOAT64: hipblas.HIPBLAS_COMPUTE_64F,
    COMPLEX64: hipblas.HIPBLAS_COMPUTE_32F,
    COMPLEX128: hipblas.HIPBLAS_COMPUTE_64F,
    FLOAT16: hipblas.HIPBLAS_COMPUTE_32F,
}
if BFLOAT16 is not None:
    COMPUTE_TYPES[BFLOAT16] = hipblas.HIPBLAS_COMPUTE_32F
TF32_TYPES = frozenset((FLOAT32, COMPLEX64))
HALF_TYPES = frozenset(t for t in (FLOAT16, BFLOAT16) if t is not None)


def family(
    template: str, dtypes: tuple[np.dtype, ...] = tuple(LETTERS)
) -> dict[np.dtype, Callable[..., Any]]:
    """dtype -> the hipBLAS routine ``template`` names with the type's letter
    ("hipblas{}gemm" -> hipblasSgemm for float32)."""
    return {dtype: hipblas.routines[template.format(LETTERS[dtype])] for dtype in dtypes}


def names(table: dict[np.dtype, Any]) -> str:
    return ", ".join(str(t) for t in table)


def dtype_of(table: dict[np.dtype, Any], x: Any, name: str) -> Any:
    """The entry of ``table`` for ``x``'s dtype; TypeError naming ``name`` if none."""
    entry = table.get(x.dtype)
    if entry is None:
        raise TypeError(f"{name}: dtype {x.dtype} is not served here (expected one of {names(table)})")
    return entry


def same_dtype(x: Any, dtype: np.dtype, name: str, first: str) -> None:
    if x.dtype is not dtype and x.dtype != dtype:
        raise TypeError(f"{name}: dtype {x.dtype} differs from {first}'s {dtype}")
