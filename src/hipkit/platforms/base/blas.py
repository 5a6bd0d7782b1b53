"""The BLAS seam: what a platform's hipBLAS provider gives the Python front ends.

A platform that serves BLAS names a ``blas`` face in its ``FACES``
(``blas=".blas:library"``): a function that answers the platform's
:class:`BlasLibrary`, loaded once, or raises :class:`BlasUnavailable` saying what to
install.  The library is hipBLAS's C API itself, seen from Python: every routine of
:mod:`hipkit.tables.blas_api` and every function of :data:`HANDLE_FUNCTIONS`, called
with C's arguments.  :mod:`hipkit.hipblas` and :mod:`hipkit.blas` are written once above
it.

C's arguments, as Python sees them: a pointer (device array, scalar, result, handle
slot) is its address as an int; a handle and a stream are the native values as ints
(``Stream.native_handle``: the CPU runtime's stream, CUDA's ``CUstream``); an enum is
hipBLAS's number (``HIPBLAS_OP_T`` is 112 on every platform: a provider converts for
its vendor); the answer is a ``hipblasStatus_t`` number.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

__all__ = ["HANDLE_FUNCTIONS", "BlasLibrary", "BlasUnavailable"]

# hipBLAS's functions of the handle and of host-device copies, with their C parameters
# (each provider writes them by hand; hipblasStatusToString is the front end's).
HANDLE_FUNCTIONS = {
    "hipblasCreate": "hipblasHandle_t* handle",
    "hipblasDestroy": "hipblasHandle_t handle",
    "hipblasSetStream": "hipblasHandle_t handle, hipStream_t streamId",
    "hipblasGetStream": "hipblasHandle_t handle, hipStream_t* streamId",
    "hipblasSetPointerMode": "hipblasHandle_t handle, hipblasPointerMode_t mode",
    "hipblasGetPointerMode": "hipblasHandle_t handle, hipblasPointerMode_t* mode",
    "hipblasSetAtomicsMode": "hipblasHandle_t handle, hipblasAtomicsMode_t atomics_mode",
    "hipblasGetAtomicsMode": "hipblasHandle_t handle, hipblasAtomicsMode_t* atomics_mode",
    "hipblasSetMathMode": "hipblasHandle_t handle, hipblasMath_t mode",
    "hipblasGetMathMode": "hipblasHandle_t handle, hipblasMath_t* mode",
    "hipblasGetVersion": "hipblasHandle_t handle, int* version",
    "hipblasSetVector": "int n, int elemSize, const void* x, int incx, void* y, int incy",
    "hipblasGetVector": "int n, int elemSize, const void* x, int incx, void* y, int incy",
    "hipblasSetMatrix": "int rows, int cols, int elemSize, const void* AP, int lda, void* BP, int ldb",
    "hipblasGetMatrix": "int rows, int cols, int elemSize, const void* AP, int lda, void* BP, int ldb",
}


class BlasUnavailable(RuntimeError):
    """The platform's BLAS library cannot be loaded here (the message says what to
    install or set)."""


class BlasLibrary(ABC):
    """A platform's hipBLAS, as C functions called with C's arguments (module doc)."""

    @property
    @abstractmethod
    def description(self) -> str:
        """The library that does the work and its version, for reports
        ("OpenBLAS 0.3.34 (scipy-openblas32), 2 threads", "cuBLAS 13.1.0")."""

    @abstractmethod
    def function(self, name: str) -> Callable[..., int]:
        """hipBLAS's C function `name` (a routine of blas_api or a key of
        HANDLE_FUNCTIONS); KeyError for a name hipBLAS does not have here."""
