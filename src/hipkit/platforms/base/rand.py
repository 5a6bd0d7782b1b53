"""The RAND seam: what a platform's hipRAND provider gives the Python front ends.

A platform that serves random numbers names a ``rand`` face in its ``FACES``
(``rand=".rand:library"``): a function that answers the platform's
:class:`RandLibrary`, loaded once, or raises :class:`RandUnavailable` saying what to
install.  The library is hipRAND's C API seen from Python: every function of
:data:`FUNCTIONS`, called with C's arguments (a generator, a pointer and a stream as
ints, an enum as hipRAND's number), answering a ``hiprandStatus_t`` number.
:mod:`hipkit.hiprand` and :mod:`hipkit.random` are written once above it.
"""

from __future__ import annotations

import ctypes
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

__all__ = ["FUNCTIONS", "CtypesRandLibrary", "RandLibrary", "RandUnavailable"]

_P, _I, _U, _SIZE, _F, _D, _U64 = (
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_uint,
    ctypes.c_size_t,
    ctypes.c_float,
    ctypes.c_double,
    ctypes.c_ulonglong,
)
# hipRAND's functions (hiprand.h) and the ctypes types of their parameters.
FUNCTIONS: dict[str, tuple[Any, ...]] = {
    "hiprandCreateGenerator": (_P, _I),
    "hiprandCreateGeneratorHost": (_P, _I),
    "hiprandDestroyGenerator": (_P,),
    "hiprandSetStream": (_P, _P),
    "hiprandSetPseudoRandomGeneratorSeed": (_P, _U64),
    "hiprandSetGeneratorOffset": (_P, _U64),
    "hiprandSetQuasiRandomGeneratorDimensions": (_P, _U),
    "hiprandGenerateSeeds": (_P,),
    "hiprandGenerate": (_P, _P, _SIZE),
    "hiprandGenerateUniform": (_P, _P, _SIZE),
    "hiprandGenerateUniformDouble": (_P, _P, _SIZE),
    "hiprandGenerateNormal": (_P, _P, _SIZE, _F, _F),
    "hiprandGenerateNormalDouble": (_P, _P, _SIZE, _D, _D),
    "hiprandGenerateLogNormal": (_P, _P, _SIZE, _F, _F),
    "hiprandGenerateLogNormalDouble": (_P, _P, _SIZE, _D, _D),
    "hiprandGeneratePoisson": (_P, _P, _SIZE, _D),
    "hiprandGetVersion": (_P,),
}


class RandUnavailable(RuntimeError):
    """The platform's hipRAND cannot be loaded here (the message says what to install)."""


class RandLibrary(ABC):
    """A platform's hipRAND, as C functions called with C's arguments (module doc)."""

    @property
    @abstractmethod
    def description(self) -> str:
        """The library that makes the numbers, for reports ("hipkit's hipRAND on the
        CPU, 2 threads", "cuRAND 10.4.1")."""

    @abstractmethod
    def function(self, name: str) -> Callable[..., int]:
        """hipRAND's C function ``name`` (a key of FUNCTIONS)."""

    #: Whether its generators' numbers follow hipkit's reproducibility rule (README):
    #: hipkit's own provider (the CPU's); a vendor's library has its own order.
    follows_rule: bool = False

    def set_device(self, device: int) -> None:  # noqa: B027 - a default: nothing to tell
        """Make ``device`` (the platform's native index) the device of the calling
        thread's next generator.  By default nothing: the vendor's library takes its
        runtime's current device (``Platform.make_current``); the CPU's is told here."""


class CtypesRandLibrary(RandLibrary):
    """hipRAND's functions in a shared library loaded with ctypes."""

    def __init__(self, library: ctypes.CDLL, description: str) -> None:
        self._library = library
        self._description = description
        self._functions: dict[str, Callable[..., int]] = {}
        self._lock = threading.Lock()

    @property
    def library(self) -> ctypes.CDLL:
        return self._library

    @property
    def description(self) -> str:
        return self._description

    def function(self, name: str) -> Callable[..., int]:
        found = self._functions.get(name)
        if found is None:
            found = self._library[name]  # a function object of its own
            found.argtypes = list(FUNCTIONS[name])
            found.restype = ctypes.c_int
            with self._lock:
                found = self._functions.setdefault(name, found)
        return found
