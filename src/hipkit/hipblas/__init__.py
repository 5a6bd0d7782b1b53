"""hipkit.hipblas: hipBLAS by its own names, on every platform, for ported code.

Every compute routine of hipBLAS that hipkit serves (``hipblasSgemm``,
``hipblasZdotc``, ``hipblasGemmStridedBatchedEx``... and their ``_v2`` names), the
functions of the handle, and hipBLAS's enums, with hipBLAS's values.  The work is
done by the platform's provider (OpenBLAS on the CPU, cuBLAS on NVIDIA, rocBLAS on
AMD), queued on the handle's stream in order with kernels and copies.

Conventions
-----------
- Arguments are hipBLAS's, in hipBLAS's order; what C writes to an out-parameter
  is returned instead: ``handle = hipblasCreate()``, ``stream =
  hipblasGetStream(handle)``, ``mode = hipblasGetPointerMode(handle)``.
- A status other than HIPBLAS_STATUS_SUCCESS raises :class:`HipblasError`, with
  ``.status`` (a :class:`hipblasStatus_t`), ``.function``, and both in the message.
- A handle is made on the current device and used with that device's memory.  A
  destroyed or unknown handle raises HIPBLAS_STATUS_NOT_INITIALIZED (the provider
  is not called).
- Arrays (vectors, matrices, arrays of pointers of the batched forms) are a device
  pointer (an int), a :class:`hipkit.DeviceArray`, or any DLPack or CUDA array
  interface tensor on the handle's device (PyTorch, CuPy; on the CPU, NumPy), used
  in place.  Matrices are column-major, as in C.  As in C, memory must outlive the
  work queued on it.
- Scalars (alpha, beta, the c and s of rot): in HIPBLAS_POINTER_MODE_HOST (the
  default) a Python or NumPy number, converted to the routine's type (float32 for
  S and for the real scalars of C routines, complex64 for C, ...; for the Ex forms
  the compute type decides: 32F -> float32, complex64 with complex data; 64F ->
  float64; 16F -> float16); in HIPBLAS_POINTER_MODE_DEVICE, device memory.
- Results (dot, nrm2, asum, amax, amin): in host mode leave out ``result`` and the
  value is returned (a NumPy scalar of the routine's type; amax and amin: a 1-based
  int, as hipBLAS counts); in device mode pass ``result`` (device memory) and the
  call returns None.
- Enumerators are module constants too: ``hipblas.HIPBLAS_OP_T``.
- Under ``hipkit.profile()`` every call is an API row named by hipBLAS, correlated
  with the work it queues.

Example
-------
>>> import numpy as np, hipkit
>>> from hipkit import hipblas
>>> m, n, k = 4, 3, 2
>>> a = np.random.rand(m, k).astype(np.float32)
>>> b = np.random.rand(k, n).astype(np.float32)
>>> d_a, d_b = hipkit.to_device(a.T), hipkit.to_device(b.T)  # A^T row-major: A column-major
>>> d_c = hipkit.zeros((n, m), np.float32)
>>> handle = hipblas.hipblasCreate()
>>> hipblas.hipblasSgemm(handle, hipblas.HIPBLAS_OP_N, hipblas.HIPBLAS_OP_N, m, n, k,
...                      1.0, d_a, m, d_b, k, 0.0, d_c, m)
>>> np.allclose(d_c.get().T, a @ b)
True
>>> hipblas.hipblasIsamax(handle, m * k, d_a, 1) == int(np.argmax(np.abs(a.T))) + 1  # 1-based
True
>>> hipblas.hipblasDestroy(handle)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _enums
from ._enums import (
    hipblasAtomicsMode_t,
    hipblasComputeType_t,
    hipblasDiagType_t,
    hipblasFillMode_t,
    hipblasGemmAlgo_t,
    hipblasMath_t,
    hipblasOperation_t,
    hipblasPointerMode_t,
    hipblasSideMode_t,
    hipblasStatus_t,
    hipDataType,
)
from ._handles import (
    hipblasCreate,
    hipblasDestroy,
    hipblasGetAtomicsMode,
    hipblasGetMathMode,
    hipblasGetMatrix,
    hipblasGetPointerMode,
    hipblasGetStream,
    hipblasGetVector,
    hipblasGetVersion,
    hipblasSetAtomicsMode,
    hipblasSetMathMode,
    hipblasSetMatrix,
    hipblasSetPointerMode,
    hipblasSetStream,
    hipblasSetVector,
)
from ._routines import routines as _make_routines
from ._status import HipblasError, hipblasStatusToString

# Every compute routine's function by each of its hipBLAS names ("hipblasSgemm",
# "hipblasCaxpy_v2"): the module's attributes of those names, for code that picks a
# routine by name (hipkit.blas).
routines: dict[str, Callable[..., Any]] = _make_routines()
globals().update(routines)
for _enum in _enums.ENUMS:
    globals().update(_enum.__members__)


def __getattr__(name: str) -> Any:  # for type checkers: the names made above
    raise AttributeError(f"module 'hipkit.hipblas' has no attribute {name!r}")


__all__ = [
    "HipblasError",
    "hipDataType",
    "hipblasAtomicsMode_t",
    "hipblasComputeType_t",
    "hipblasCreate",
    "hipblasDestroy",
    "hipblasDiagType_t",
    "hipblasFillMode_t",
    "hipblasGemmAlgo_t",
    "hipblasGetAtomicsMode",
    "hipblasGetMathMode",
    "hipblasGetMatrix",
    "hipblasGetPointerMode",
    "hipblasGetStream",
    "hipblasGetVector",
    "hipblasGetVersion",
    "hipblasMath_t",
    "hipblasOperation_t",
    "hipblasPointerMode_t",
    "hipblasSetAtomicsMode",
    "hipblasSetMathMode",
    "hipblasSetMatrix",
    "hipblasSetPointerMode",
    "hipblasSetStream",
    "hipblasSetVector",
    "hipblasSideMode_t",
    "hipblasStatusToString",
    "hipblasStatus_t",
    "routines",
    *routines,
    *(name for _enum in _enums.ENUMS for name in _enum.__members__),
]
