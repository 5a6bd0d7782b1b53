"""The NVIDIA platform's hipBLAS: cuBLAS, through NVIDIA's bindings of it
(nvmath-python's ``nvmath.bindings.cublas``), behind the BLAS seam
(:mod:`hipkit.platforms.base.blas`).

Each hipBLAS function is a Python callable taking hipBLAS's C arguments (ints) and
answering a ``hipblasStatus_t``: hipBLAS's enums become cuBLAS's by the tables below (the
same as ``include/program/hipkit_blas/cublas.h``'s, which programs get; a test checks
that they agree), the arguments go to nvmath's function of the same routine in cuBLAS's
order (hipBLAS kept it), and a ``cuBLASError`` comes back as hipBLAS's status.  A value
outside hipBLAS's enum answers HIPBLAS_STATUS_INVALID_ENUM without calling cuBLAS, as
hipBLAS does.  Results that hipBLAS writes through a pointer (dot in host pointer mode,
hipblasCreate's handle...) are written at the address given.

Contexts: a handle belongs to the CUDA context current when hipblasCreate was called.
The caller makes the device current first (``Device.set_current()``: the device's primary
context, which hipkit's NVIDIA runtime, the CUDA runtime, CuPy and PyTorch share); where
no context is current, cuBLAS takes CUDA device 0's primary context, as in a CUDA program.
A routine called from a thread where another context (or none) is current runs in its
handle's context, pushed for the call and popped after, so that the thread's own current
context, which hipkit's runtime remembers per thread, is left as it was.

Example
-------
>>> import ctypes
>>> from hipkit.platforms.nvidia.blas import library
>>> blas = library()  # doctest: +SKIP  (an NVIDIA GPU and nvmath-python)
>>> handle = ctypes.c_void_p()
>>> blas.function("hipblasCreate")(ctypes.addressof(handle))  # doctest: +SKIP
0
"""

from __future__ import annotations

import ctypes
import functools
import re
from collections.abc import Callable
from typing import Any

from ...tables import blas_api
from ..base.blas import HANDLE_FUNCTIONS, BlasLibrary, BlasUnavailable
from ..base.platform import PlatformUnavailable
from . import driver

__all__ = ["CublasLibrary", "library"]

# ---------------------------------------------------------------- the tables
# hipBLAS's numbers to cuBLAS's: the tables of include/program/hipkit_blas/cublas.h.
OPERATION = {111: 0, 112: 1, 113: 2}  # N, T, C
FILL_MODE = {121: 1, 122: 0, 123: 2}  # UPPER, LOWER, FULL (cuBLAS: LOWER 0, UPPER 1)
DIAG_TYPE = {131: 0, 132: 1}  # NON_UNIT, UNIT
SIDE_MODE = {141: 0, 142: 1}  # LEFT, RIGHT (HIPBLAS_SIDE_BOTH has no cuBLAS value)
# HIPBLAS_COMPUTE_16F ... _32I_PEDANTIC -> CUBLAS_COMPUTE_16F (64) ...
COMPUTE_TYPE = {0: 64, 1: 65, 2: 68, 3: 69, 4: 74, 5: 75, 6: 77, 7: 70, 8: 71, 9: 72, 10: 73}
GEMM_ALGO = {160: -1}  # HIPBLAS_GEMM_DEFAULT -> CUBLAS_GEMM_DEFAULT
POINTER_MODE = {0: 0, 1: 1}  # HOST, DEVICE
ATOMICS_MODE = {0: 0, 1: 1}  # NOT_ALLOWED, ALLOWED
# DEFAULT, PEDANTIC, TF32_TENSOR_OP, DISALLOW_REDUCED_PRECISION_REDUCTION, TENSOR_OP; the
# others (HIPBLAS_XF32_XDL_MATH, AMD's) are NOT_SUPPORTED.
MATH_MODE = {0: 0, 2: 2, 3: 3, 4: 16, 5: 1}
# cuBLAS's statuses to hipBLAS's; any other (CUBLAS_STATUS_LICENSE_ERROR) is UNKNOWN.
STATUS = {0: 0, 1: 1, 3: 2, 7: 3, 8: 8, 11: 4, 13: 5, 14: 6, 15: 7}
# The hipBLAS API these tables and api.h follow (HIPBLAS_VERSION_MAJOR/MINOR/PATCH), which
# hipblasGetVersion answers as hipBLAS encodes it.
HIPBLAS_VERSION = (3, 0, 0)

# The tables of a routine's enum parameters, by their C type.
_ENUM_TABLES = {
    "hipblasOperation_t": OPERATION,
    "hipblasFillMode_t": FILL_MODE,
    "hipblasDiagType_t": DIAG_TYPE,
    "hipblasSideMode_t": SIDE_MODE,
    "hipblasComputeType_t": COMPUTE_TYPE,
    "hipblasGemmAlgo_t": GEMM_ALGO,
}

# hipblasStatus_t's values that the provider answers itself.
SUCCESS = 0
NOT_INITIALIZED = 1
INVALID_VALUE = 3
NOT_SUPPORTED = 7
INVALID_ENUM = 10
UNKNOWN = 11

# What hipblasHgemm & co. are in cuBLAS's Ex forms: half matrices, half compute.
_CUDA_R_16F = 2
_CUBLAS_COMPUTE_16F = 64
_CUBLAS_GEMM_DEFAULT = -1
_CUBLAS_STATUS_NOT_INITIALIZED = 1


def _status(cublas_status: int) -> int:
    return STATUS.get(cublas_status, UNKNOWN)


def binding_name(routine: blas_api.Routine) -> str:
    """nvmath's name of the cuBLAS function that serves ``routine`` (``sgemm_strided_batched``
    for cublasSgemmStridedBatched); the half-precision GEMMs, which nvmath does not bind,
    are cuBLAS's Ex forms (``gemm_ex``...) on half matrices."""
    stem = routine.cuda_name[len("cublas") :].removesuffix("_v2")
    if routine.element == "H":
        stem = stem[1:].replace("Batched", "BatchedEx") if "Batched" in stem else "GemmEx"
    return stem[0].lower() + re.sub(r"[A-Z]", lambda m: "_" + m.group().lower(), stem[1:])


def _half_gemm(family: str, ex: Callable[..., None]) -> Callable[..., None]:
    """hipblasHgemm, HgemmBatched, HgemmStridedBatched as cublasGemmEx & co. with every
    matrix CUDA_R_16F and CUBLAS_COMPUTE_16F (what cuBLAS's own Hgemm computes)."""
    h, c, algo = _CUDA_R_16F, _CUBLAS_COMPUTE_16F, _CUBLAS_GEMM_DEFAULT
    if family == "gemm":

        def gemm(handle, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc):
            ex(handle, ta, tb, m, n, k, alpha, a, h, lda, b, h, ldb, beta, cc, h, ldc, c, algo)

        return gemm
    if family == "gemm_batched":

        def batched(handle, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc, count):
            ex(handle, ta, tb, m, n, k, alpha, a, h, lda, b, h, ldb, beta, cc, h, ldc, count, c, algo)

        return batched

    def strided(handle, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, cc, ldc, sc, count):
        ex(handle, ta, tb, m, n, k, alpha, a, h, lda, sa, b, h, ldb, sb, beta, cc, h, ldc, sc, count, c, algo)

    return strided


class CublasLibrary(BlasLibrary):
    """hipBLAS's C functions over cuBLAS (module doc).

    Parameters
    ----------
    cublas
        ``nvmath.bindings.cublas``.  Nothing is called at construction: cuBLAS is loaded
        by the first call that needs it.
    cuda
        ``cuda.bindings.driver``, for the handles' contexts.
    """

    def __init__(self, cublas: Any, cuda: Any) -> None:
        self._cublas = cublas
        self._cuda = cuda
        self._error = cublas.cuBLASError
        self._contexts: dict[int, int] = {}  # handle -> the CUcontext it was made in
        self._functions: dict[str, Callable[..., int]] = {}
        for routine in blas_api.routines():
            call = self._routine(routine)
            for name in routine.names:
                self._functions[name] = call
        for name in HANDLE_FUNCTIONS:
            self._functions[name] = getattr(self, name)

    @functools.cached_property
    def description(self) -> str:
        get = self._cublas.get_property  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
        return f"cuBLAS {get(0)}.{get(1)}.{get(2)}"

    def function(self, name: str) -> Callable[..., int]:
        return self._functions[name]

    # ------------------------------------------------------------ contexts

    def _current(self) -> int:
        return int(self._cuda.cuCtxGetCurrent()[1])

    def _in_context(self, handle: int, call: Callable[..., None], *args: int) -> None:
        """``call(*args)`` in ``handle``'s context (the routines inline the common case)."""
        context = self._contexts.get(handle)
        if context and context != self._current():
            self._pushed(context, call, *args)
        else:
            call(*args)

    def _pushed(self, context: int, call: Callable[..., None], *args: int) -> None:
        """``call(*args)`` with ``context`` pushed current while it runs."""
        (err,) = self._cuda.cuCtxPushCurrent(context)
        if err:  # the context is gone (hipDeviceReset), and its handles with it
            raise self._error(_CUBLAS_STATUS_NOT_INITIALIZED)
        try:
            call(*args)
        finally:
            self._cuda.cuCtxPopCurrent()

    # ------------------------------------------------------------ the routines

    def _routine(self, routine: blas_api.Routine) -> Callable[..., int]:
        """One routine's callable, written for it (as ``dataclasses`` writes ``__init__``):
        hipBLAS's parameters by name, each enum converted by its table's ``get`` in one
        line, then the handle's context compared with the thread's.  This is every call's
        path, and a generic one (``*args``, a loop over the enum positions) costs about
        twice as much: more than CuPy's binding adds to a small GEMM."""
        names = [p.name for p in routine.params]
        # (The scope's names start with "_": no hipBLAS parameter's does.)
        scope: dict[str, Any] = {
            "_call": self._binding(routine),
            "_contexts": self._contexts,
            "_current": self._cuda.cuCtxGetCurrent,
            "_pushed": self._pushed,
            "_error": self._error,
            "_status": _status,
            "NOT_INITIALIZED": NOT_INITIALIZED,
            "INVALID_ENUM": INVALID_ENUM,
            "SUCCESS": SUCCESS,
        }
        handle = names[0]
        lines = [
            f"def {routine.name}({', '.join(names)}):",
            f"    if not {handle}:",
            "        return NOT_INITIALIZED",
        ]
        for p in routine.params:
            table = _ENUM_TABLES.get(p.ctype)
            if table is not None:
                scope[f"_{p.name}_table"] = table.get
                lines += [f"    {p.name} = _{p.name}_table({p.name})", f"    if {p.name} is None:"]
                lines.append("        return INVALID_ENUM")
        arguments = ", ".join(names)
        lines += [
            f"    _context = _contexts.get({handle})",
            "    try:",
            "        if _context and _context != int(_current()[1]):",
            f"            _pushed(_context, _call, {arguments})",
            "        else:",
            f"            _call({arguments})",
            "    except _error as exc:",
            "        return _status(exc.status)",
            "    return SUCCESS",
        ]
        exec("\n".join(lines), scope)
        return scope[routine.name]

    def _binding(self, routine: blas_api.Routine) -> Callable[..., None]:
        call = getattr(self._cublas, binding_name(routine))
        return _half_gemm(routine.family, call) if routine.element == "H" else call

    # ------------------------------------------------------------ the handle's functions
    # (HANDLE_FUNCTIONS; each checks what hipBLAS checks before cuBLAS is called.)

    def _answer(self, call: Callable[..., Any], *args: int) -> tuple[int, Any]:
        """(hipBLAS's status, ``call(*args)``'s value or None)."""
        try:
            return SUCCESS, call(*args)
        except self._error as exc:
            return _status(exc.status), None

    def hipblasCreate(self, handle: int) -> int:
        if not handle:
            return INVALID_VALUE
        status, made = self._answer(self._cublas.create)
        if status == SUCCESS:
            self._contexts[made] = self._current()
            ctypes.c_void_p.from_address(handle).value = made
        return status

    def hipblasDestroy(self, handle: int) -> int:
        if not handle:
            return NOT_INITIALIZED
        status, _ = self._answer(self._in_context, handle, self._cublas.destroy, handle)
        if status == SUCCESS:
            self._contexts.pop(handle, None)
        return status

    def hipblasSetStream(self, handle: int, streamId: int) -> int:
        if not handle:
            return NOT_INITIALIZED
        return self._answer(self._cublas.set_stream, handle, streamId)[0]

    def hipblasGetStream(self, handle: int, streamId: int) -> int:
        return self._get(handle, streamId, self._cublas.get_stream, ctypes.c_void_p)

    def hipblasSetPointerMode(self, handle: int, mode: int) -> int:
        return self._set(handle, self._cublas.set_pointer_mode, POINTER_MODE.get(mode), INVALID_ENUM)

    def hipblasGetPointerMode(self, handle: int, mode: int) -> int:
        return self._get(handle, mode, self._cublas.get_pointer_mode, ctypes.c_int, POINTER_MODE)

    def hipblasSetAtomicsMode(self, handle: int, atomics_mode: int) -> int:
        return self._set(handle, self._cublas.set_atomics_mode, ATOMICS_MODE.get(atomics_mode), INVALID_ENUM)

    def hipblasGetAtomicsMode(self, handle: int, atomics_mode: int) -> int:
        return self._get(handle, atomics_mode, self._cublas.get_atomics_mode, ctypes.c_int, ATOMICS_MODE)

    def hipblasSetMathMode(self, handle: int, mode: int) -> int:
        return self._set(handle, self._cublas.set_math_mode, MATH_MODE.get(mode), NOT_SUPPORTED)

    def hipblasGetMathMode(self, handle: int, mode: int) -> int:
        return self._get(handle, mode, self._cublas.get_math_mode, ctypes.c_int, MATH_MODE)

    def hipblasGetVersion(self, handle: int, version: int) -> int:
        if not handle:
            return NOT_INITIALIZED
        if not version:
            return INVALID_VALUE
        major, minor, patch = HIPBLAS_VERSION
        ctypes.c_int.from_address(version).value = major * 100000 + minor * 100 + patch
        return SUCCESS

    def _set(self, handle: int, call: Callable[[int, int], None], value: int | None, refused: int) -> int:
        """A setter: ``refused`` where hipBLAS's value has no cuBLAS one (``value`` None)."""
        if not handle:
            return NOT_INITIALIZED
        if value is None:
            return refused
        return self._answer(call, handle, value)[0]

    def _get(
        self,
        handle: int,
        out: int,
        call: Callable[[int], int],
        ctype: type[ctypes.c_int] | type[ctypes.c_void_p],
        table: dict[int, int] | None = None,
    ) -> int:
        """A getter writing its answer at ``out``, as hipBLAS's number where ``table``
        (hipBLAS -> cuBLAS) says; INVALID_ENUM for a cuBLAS value hipBLAS has no name for."""
        if not handle:
            return NOT_INITIALIZED
        if not out:
            return INVALID_VALUE
        status, value = self._answer(call, handle)
        if status != SUCCESS:
            return status
        if table is not None:
            value = next((hip for hip, cuda in table.items() if cuda == value), None)
            if value is None:
                return INVALID_ENUM
        ctype.from_address(out).value = value
        return SUCCESS

    # Host-device copies: no handle; they run in the thread's current context, as cuBLAS's.
    def hipblasSetVector(self, n: int, elemSize: int, x: int, incx: int, y: int, incy: int) -> int:
        return self._answer(self._cublas.set_vector, n, elemSize, x, incx, y, incy)[0]

    def hipblasGetVector(self, n: int, elemSize: int, x: int, incx: int, y: int, incy: int) -> int:
        return self._answer(self._cublas.get_vector, n, elemSize, x, incx, y, incy)[0]

    def hipblasSetMatrix(
        self, rows: int, cols: int, elemSize: int, AP: int, lda: int, BP: int, ldb: int
    ) -> int:
        return self._answer(self._cublas.set_matrix, rows, cols, elemSize, AP, lda, BP, ldb)[0]

    def hipblasGetMatrix(
        self, rows: int, cols: int, elemSize: int, AP: int, lda: int, BP: int, ldb: int
    ) -> int:
        return self._answer(self._cublas.get_matrix, rows, cols, elemSize, AP, lda, BP, ldb)[0]


_INSTALL = "pip install 'hipkit[nvidia]'"


@functools.cache
def library() -> BlasLibrary:
    """The NVIDIA platform's hipBLAS (the ``blas`` face), loaded once.

    Raises
    ------
    BlasUnavailable
        Where nvmath-python, the NVIDIA driver or cuBLAS is missing, saying which.
    """
    try:
        import nvmath.bindings.cublas as cublas
    except ImportError:
        raise BlasUnavailable(
            f"nvmath-python is not installed, which hipkit's cuBLAS uses ({_INSTALL})"
        ) from None
    try:
        cuda = driver.load()
    except PlatformUnavailable as exc:
        raise BlasUnavailable(f"cuBLAS needs the NVIDIA driver: {exc}") from None
    blas = CublasLibrary(cublas, cuda)
    try:
        _ = blas.description  # loads libcublas
    except Exception as exc:  # nvmath's loader raises its own classes (library not found...)
        raise BlasUnavailable(
            f"cuBLAS could not be loaded: {exc} ({_INSTALL}, which installs nvidia-cublas)"
        ) from None
    return blas
