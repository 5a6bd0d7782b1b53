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

import ctypes
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from ...tables import blas_api

__all__ = ["HANDLE_FUNCTIONS", "BlasLibrary", "BlasUnavailable", "CtypesBlasLibrary"]

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

    def set_device(self, device: int) -> None:  # noqa: B027 - a default: nothing to tell
        """Make ``device`` (the platform's native index) the device that the calling
        thread's next ``hipblasCreate`` makes its handle on.  Front ends call it before
        ``hipblasCreate``, after ``Device.set_current()``.  By default nothing: the
        vendor's library takes its runtime's current device, which
        ``Platform.make_current`` sets (CUDA's context, ROCm's ``hipSetDevice``); the
        CPU's provider is told here."""


# ctypes's types of hipBLAS's C parameters, by role (blas_api) and, for the handle
# functions, by C type.
_ROLE_TYPES = {
    blas_api.HANDLE: ctypes.c_void_p,
    blas_api.ENUM: ctypes.c_int,
    blas_api.DATATYPE: ctypes.c_int,
    blas_api.COMPUTE: ctypes.c_int,
    blas_api.ALGO: ctypes.c_int,
    blas_api.INT: ctypes.c_int,
    blas_api.STRIDE: ctypes.c_int64,
    blas_api.SCALAR: ctypes.c_void_p,
    blas_api.RESULT: ctypes.c_void_p,
    blas_api.ARRAY: ctypes.c_void_p,
    blas_api.BATCH: ctypes.c_void_p,
}
_HANDLE_PARAM_TYPES = {
    "hipblasHandle_t": ctypes.c_void_p,
    "hipStream_t": ctypes.c_void_p,
    "int": ctypes.c_int,
    "hipblasPointerMode_t": ctypes.c_int,
    "hipblasAtomicsMode_t": ctypes.c_int,
    "hipblasMath_t": ctypes.c_int,
}


def _argtypes(name: str) -> tuple[list[Any], tuple[str, ...]]:
    """The ctypes argument types of hipBLAS's function `name`, and the library's
    names of it (the routine's own name first, then its aliases); KeyError for a
    name hipBLAS does not have."""
    routine = blas_api.by_name().get(name)
    if routine is not None:
        return [_ROLE_TYPES[p.role] for p in routine.params], (routine.name, *routine.aliases)
    params = HANDLE_FUNCTIONS[name]  # KeyError: not a function of hipBLAS's
    types = []
    for param in params.split(","):
        ctype = param.strip().rsplit(" ", 1)[0].replace("const ", "")
        types.append(ctypes.c_void_p if "*" in ctype else _HANDLE_PARAM_TYPES[ctype])
    return types, (name,)


class CtypesBlasLibrary(BlasLibrary):
    """A :class:`BlasLibrary` over a loaded C library with hipBLAS's functions: the
    CPU's provider (libhipkit_cpu_blas.so) and ROCm's libhipblas.so.

    Each function's ``argtypes`` come from :mod:`hipkit.tables.blas_api` (pointers,
    handles and streams ``c_void_p``, ints and enums ``c_int``, strides ``c_int64``)
    and its ``restype`` is ``c_int``, the ``hipblasStatus_t``.  A routine with
    aliases (``hipblasCaxpy``, ``hipblasCaxpy_v2``) is the first of its names that
    the library exports: its own name first, or with ``prefer_aliases`` its aliases
    first (hipBLAS 2 has hipComplex and hipDataType only under ``_v2``).

    Example
    -------
    >>> lib = CtypesBlasLibrary(ctypes.CDLL("libhipblas.so"), "hipBLAS")  # doctest: +SKIP
    >>> lib.function("hipblasCreate")(ctypes.addressof(handle))  # doctest: +SKIP
    0
    """

    def __init__(
        self,
        library: ctypes.CDLL,
        description: str | Callable[[], str],
        *,
        prefer_aliases: bool = False,
    ) -> None:
        self._library = library
        self._description = description
        self._prefer_aliases = prefer_aliases
        self._functions: dict[str, Callable[..., int]] = {}
        self._lock = threading.Lock()

    @property
    def library(self) -> ctypes.CDLL:
        """The loaded library."""
        return self._library

    @property
    def description(self) -> str:
        d = self._description
        return d if isinstance(d, str) else d()

    def function(self, name: str) -> Callable[..., int]:
        found = self._functions.get(name)
        if found is not None:
            return found
        argtypes, names = _argtypes(name)
        if self._prefer_aliases:
            names = (*names[1:], names[0])
        for symbol in names:
            try:
                # A function object of its own (indexing makes a new one each time): the
                # library's attribute may be declared otherwise by its other users.
                function = self._library[symbol]
            except AttributeError:
                continue
            function.argtypes = argtypes
            function.restype = ctypes.c_int
            with self._lock:
                return self._functions.setdefault(name, function)
        raise KeyError(f"{name}: the library does not export it ({' or '.join(names)})")
