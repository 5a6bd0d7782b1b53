"""The FFT seam: what a platform's hipFFT provider gives the Python front ends.

A platform that serves FFTs names an ``fft`` face in its ``FACES``
(``fft=".fft:library"``): a function that answers the platform's :class:`FftLibrary`,
loaded once, or raises :class:`FftUnavailable` saying what to install.  The library is
hipFFT's C API seen from Python: every function of :data:`FFT_FUNCTIONS`, called with
C's arguments, answering a ``hipfftResult`` number.  :mod:`hipkit.hipfft` and
:mod:`hipkit.fft` are written once above it.

C's arguments, as Python sees them: a plan is its handle as an int (a pointer on the CPU
and AMD, cuFFT's int on NVIDIA); an out-parameter (``hipfftHandle*``, ``size_t*``,
``int*``) and an array of ints (``int* n``) are addresses; a stream is the native
handle (``Stream.native_handle``); an enum is hipFFT's number (``HIPFFT_C2C`` is 0x29).

The rules every provider keeps, as ROCm's hipFFT does (the codes are hipFFT's, the
same numbers as cuFFT's):

- a null, unknown or destroyed plan, or one created and not yet made:
  ``HIPFFT_INVALID_PLAN``; an exec of another type than the plan's (ExecC2C on an R2C
  plan): ``HIPFFT_INVALID_PLAN``;
- a length or batch below 1, a rank other than 1, 2 or 3, an embedding smaller than
  the transform: ``HIPFFT_INVALID_SIZE``;
- a type hipFFT lacks: ``HIPFFT_NOT_IMPLEMENTED`` (ROCm's answer);
- a null out-parameter or data pointer, a direction other than HIPFFT_FORWARD (-1) or
  HIPFFT_BACKWARD (1), an in-place exec whose input and output layouts do not overlay
  element for element, a scale factor that is not finite, a property hipFFT lacks
  (hipfftGetProperty): ``HIPFFT_INVALID_VALUE``.

Inverse transforms are unnormalized.  In place (``idata == odata``) a real transform
of the basic layout (no embeddings) has its real rows padded to ``2 * (n // 2 + 1)``
elements, as hipFFT and cuFFT lay them out.
"""

from __future__ import annotations

import ctypes
import enum
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable

__all__ = [
    "FFT_FUNCTIONS",
    "HIPFFT_BACKWARD",
    "HIPFFT_FORWARD",
    "HIPFFT_VERSION",
    "CtypesFftLibrary",
    "FftLibrary",
    "FftUnavailable",
    "hipfftLibraryPropertyType",
    "hipfftResult",
    "hipfftType",
]


class hipfftResult(enum.IntEnum):
    """hipFFT's result codes, with hipFFT's numbers (cuFFT's too)."""

    HIPFFT_SUCCESS = 0
    HIPFFT_INVALID_PLAN = 1
    HIPFFT_ALLOC_FAILED = 2
    HIPFFT_INVALID_TYPE = 3
    HIPFFT_INVALID_VALUE = 4
    HIPFFT_INTERNAL_ERROR = 5
    HIPFFT_EXEC_FAILED = 6
    HIPFFT_SETUP_FAILED = 7
    HIPFFT_INVALID_SIZE = 8
    HIPFFT_UNALIGNED_DATA = 9
    HIPFFT_INCOMPLETE_PARAMETER_LIST = 10
    HIPFFT_INVALID_DEVICE = 11
    HIPFFT_PARSE_ERROR = 12
    HIPFFT_NO_WORKSPACE = 13
    HIPFFT_NOT_IMPLEMENTED = 14
    HIPFFT_NOT_SUPPORTED = 16


class hipfftType(enum.IntEnum):
    """hipFFT's transform types, with hipFFT's numbers."""

    HIPFFT_R2C = 0x2A
    HIPFFT_C2R = 0x2C
    HIPFFT_C2C = 0x29
    HIPFFT_D2Z = 0x6A
    HIPFFT_Z2D = 0x6C
    HIPFFT_Z2Z = 0x69


class hipfftLibraryPropertyType(enum.IntEnum):
    """hipFFT's library properties (hipfftGetProperty), with hipFFT's numbers."""

    HIPFFT_MAJOR_VERSION = 0
    HIPFFT_MINOR_VERSION = 1
    HIPFFT_PATCH_LEVEL = 2


HIPFFT_FORWARD = -1
HIPFFT_BACKWARD = 1
# The hipFFT whose API hipkit follows (1.0.21, ROCm 7.1's; api.h's hipfftVersionMajor,
# Minor and Patch): the version hipkit's own hipFFT answers (the CPU's).
HIPFFT_VERSION = (1, 0, 21)

# hipFFT's functions that hipkit serves, with their C parameters (hipfft.h's).
FFT_FUNCTIONS = {
    "hipfftCreate": "hipfftHandle* plan",
    "hipfftDestroy": "hipfftHandle plan",
    "hipfftPlan1d": "hipfftHandle* plan, int nx, hipfftType type, int batch",
    "hipfftPlan2d": "hipfftHandle* plan, int nx, int ny, hipfftType type",
    "hipfftPlan3d": "hipfftHandle* plan, int nx, int ny, int nz, hipfftType type",
    "hipfftPlanMany": (
        "hipfftHandle* plan, int rank, int* n, int* inembed, int istride, int idist, "
        "int* onembed, int ostride, int odist, hipfftType type, int batch"
    ),
    "hipfftExtPlanScaleFactor": "hipfftHandle plan, double scalefactor",
    "hipfftMakePlan1d": "hipfftHandle plan, int nx, hipfftType type, int batch, size_t* workSize",
    "hipfftMakePlan2d": "hipfftHandle plan, int nx, int ny, hipfftType type, size_t* workSize",
    "hipfftMakePlan3d": "hipfftHandle plan, int nx, int ny, int nz, hipfftType type, size_t* workSize",
    "hipfftMakePlanMany": (
        "hipfftHandle plan, int rank, int* n, int* inembed, int istride, int idist, "
        "int* onembed, int ostride, int odist, hipfftType type, int batch, size_t* workSize"
    ),
    "hipfftGetSize1d": "hipfftHandle plan, int nx, hipfftType type, int batch, size_t* workSize",
    "hipfftGetSize2d": "hipfftHandle plan, int nx, int ny, hipfftType type, size_t* workSize",
    "hipfftGetSize3d": "hipfftHandle plan, int nx, int ny, int nz, hipfftType type, size_t* workSize",
    "hipfftGetSizeMany": (
        "hipfftHandle plan, int rank, int* n, int* inembed, int istride, int idist, "
        "int* onembed, int ostride, int odist, hipfftType type, int batch, size_t* workSize"
    ),
    "hipfftGetSize": "hipfftHandle plan, size_t* workSize",
    "hipfftSetAutoAllocation": "hipfftHandle plan, int autoAllocate",
    "hipfftSetWorkArea": "hipfftHandle plan, void* workArea",
    "hipfftSetStream": "hipfftHandle plan, hipStream_t stream",
    "hipfftExecC2C": "hipfftHandle plan, hipfftComplex* idata, hipfftComplex* odata, int direction",
    "hipfftExecR2C": "hipfftHandle plan, hipfftReal* idata, hipfftComplex* odata",
    "hipfftExecC2R": "hipfftHandle plan, hipfftComplex* idata, hipfftReal* odata",
    "hipfftExecZ2Z": (
        "hipfftHandle plan, hipfftDoubleComplex* idata, hipfftDoubleComplex* odata, int direction"
    ),
    "hipfftExecD2Z": "hipfftHandle plan, hipfftDoubleReal* idata, hipfftDoubleComplex* odata",
    "hipfftExecZ2D": "hipfftHandle plan, hipfftDoubleComplex* idata, hipfftDoubleReal* odata",
    "hipfftGetVersion": "int* version",
    "hipfftGetProperty": "hipfftLibraryPropertyType type, int* value",
}

_SCALAR_TYPES = {
    "int": ctypes.c_int,
    "hipfftType": ctypes.c_int,
    "hipfftLibraryPropertyType": ctypes.c_int,
    "double": ctypes.c_double,
    "hipfftHandle": ctypes.c_void_p,
    "hipStream_t": ctypes.c_void_p,
}


def argtypes(name: str) -> list[type]:
    """The ctypes types of hipFFT's function ``name`` (KeyError: not one of
    :data:`FFT_FUNCTIONS`): pointers ``c_void_p``, ints and enums ``c_int``."""
    types: list[type] = []
    for param in FFT_FUNCTIONS[name].split(","):
        ctype = param.strip().rsplit(" ", 1)[0]
        types.append(ctypes.c_void_p if "*" in ctype else _SCALAR_TYPES[ctype])
    return types


class FftUnavailable(RuntimeError):
    """The platform's FFT library cannot be loaded here (the message says what to
    install or set)."""


class FftLibrary(ABC):
    """A platform's hipFFT, as C functions called with C's arguments (module doc)."""

    @property
    @abstractmethod
    def description(self) -> str:
        """The library that does the work and its version, for reports
        ("scipy.fft 1.17.1 (pocketfft), 2 workers", "cuFFT 12.0.0")."""

    @abstractmethod
    def function(self, name: str) -> Callable[..., int]:
        """hipFFT's C function ``name`` (a key of :data:`FFT_FUNCTIONS`); KeyError where
        this library does not have it."""

    def set_device(self, device: int) -> None:  # noqa: B027 - a default: nothing to tell
        """Make ``device`` (the platform's native index) the device of the calling
        thread's next plans.  Front ends call it before making a plan, after
        ``Device.set_current()``.  By default nothing: the vendor's library takes its
        runtime's current device; the CPU's provider is told here."""

    @property
    def c2r_keeps_input(self) -> bool:
        """Whether an out-of-place C2R/Z2D exec leaves its input as it was.  hipFFT
        and cuFFT may overwrite it (so :mod:`hipkit.fft` gives them a copy); a provider
        that never does says True."""
        return False


class CtypesFftLibrary(FftLibrary):
    """An :class:`FftLibrary` over a loaded C library with hipFFT's functions: ROCm's
    libhipfft.so, and the CPU programs' engine (libhipkit_cpu_fft.so).

    Example
    -------
    >>> lib = CtypesFftLibrary(ctypes.CDLL("libhipfft.so"), "hipFFT")  # doctest: +SKIP
    >>> plan = ctypes.c_void_p()
    >>> lib.function("hipfftPlan1d")(ctypes.addressof(plan), 64, 0x29, 1)  # doctest: +SKIP
    0
    """

    def __init__(self, library: ctypes.CDLL, description: str, *, c2r_keeps_input: bool = False) -> None:
        self._library = library
        self._description = description
        self._c2r_keeps_input = c2r_keeps_input
        self._functions: dict[str, Callable[..., int]] = {}
        self._lock = threading.Lock()

    @property
    def library(self) -> ctypes.CDLL:
        """The loaded library."""
        return self._library

    @property
    def description(self) -> str:
        return self._description

    @property
    def c2r_keeps_input(self) -> bool:
        return self._c2r_keeps_input

    def function(self, name: str) -> Callable[..., int]:
        found = self._functions.get(name)
        if found is not None:
            return found
        types = argtypes(name)
        try:
            function = self._library[name]  # a function object of its own
        except AttributeError:
            raise KeyError(f"{name}: {self._description} does not export it") from None
        function.argtypes = types
        function.restype = ctypes.c_int
        with self._lock:
            return self._functions.setdefault(name, function)
