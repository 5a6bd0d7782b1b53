"""The CPU platform's hipRAND: ``libhipkit_cpu_rand.so``, hipRAND's C API made with
hipkit's own generators (C++ in ``hiprand/``, see ``hiprand/provider.h``), whose
numbers are the device API's (``hiprand/hiprand_kernel.h``) by hipkit's
reproducibility rule.

The library is built with the system C++ compiler, once per hipkit version, sources
and compiler, into hipkit's cache (:mod:`._provider`).  It links libhipkit_cpu (its
devices and streams are the runtime's; each call is a host function on its stream).
Python calls it through :func:`library` (the platform's ``rand`` face); programs built
by ``hipkit cc`` link it for ``-lhiprand`` (:mod:`.toolchain`).

Example
-------
>>> from hipkit.platforms.cpu import rand
>>> rand.library().description  # doctest: +SKIP
"hipkit's generators (Philox4x32-10, XORWOW, MRG32k3a, SOBOL32), 2 threads"
"""

from __future__ import annotations

import ctypes
import threading
from pathlib import Path

from ... import _cache
from ..._errors import HipError, hipError_t
from ...tables import INCLUDE_DIR as TABLES_INCLUDE_DIR
from ..base.platform import PORTABLE_INCLUDE_DIR
from ..base.rand import CtypesRandLibrary, RandUnavailable
from . import _lib, _provider

__all__ = ["LIBRARY_NAME", "build_key", "lib_dir", "library"]

LIBRARY_NAME = "libhipkit_cpu_rand.so"

_SOURCE_DIR = Path(__file__).parent / "hiprand"
_INCLUDES = (_lib.INCLUDE_DIR, PORTABLE_INCLUDE_DIR, TABLES_INCLUDE_DIR)
# The headers of those folders it includes, besides its own: the API, the device
# code that makes the numbers, its tables.
_HEADERS = (
    PORTABLE_INCLUDE_DIR / "hipkit_rand" / "api.h",
    *sorted((PORTABLE_INCLUDE_DIR / "hipkit_portable").glob("rand*.h")),
    *sorted((TABLES_INCLUDE_DIR / "hipkit_rand").glob("*.h")),
    _lib.INCLUDE_DIR / "hipkit_cpu" / "runtime.h",
)


def build_key() -> str:
    """The hash naming the provider built from these sources with this compiler,
    against this libhipkit_cpu."""
    return _cache.digest(_provider.key_parts(_SOURCE_DIR, _HEADERS, LIBRARY_NAME))


def _build(out: Path) -> None:
    # -O3: the generators' loops are the work.
    flags = ["-O3", *(f"-I{d}" for d in _INCLUDES)]
    _provider.build(out, LIBRARY_NAME, _SOURCE_DIR, flags, ["-pthread"])


def lib_dir() -> Path:
    """The directory holding ``libhipkit_cpu_rand.so``, built on first use (RuntimeError
    when the build fails)."""
    return _cache.entry("rand", build_key(), _build)


class CpuRandLibrary(CtypesRandLibrary):
    """The provider, loaded: hipRAND's functions, the device of the next generator."""

    follows_rule = True

    def __init__(self, lib: ctypes.CDLL) -> None:
        engines = "Philox4x32-10, XORWOW, MRG32k3a, MTGP32, SOBOL32"
        super().__init__(lib, f"hipkit's generators on the CPU ({engines})")
        lib.hipkitRandSetDevice.argtypes = [ctypes.c_int]
        lib.hipkitRandSetDevice.restype = ctypes.c_int

    def set_device(self, device: int) -> None:
        if self.library.hipkitRandSetDevice(device) != 0:
            raise HipError(hipError_t.hipErrorInvalidDevice, f"no CPU device {device}")


_lock = threading.Lock()
_loaded: list[CpuRandLibrary] = []


def library() -> CpuRandLibrary:
    """The provider, built if needed and loaded once (the ``rand`` face);
    RandUnavailable saying why it could not be built.  It is loaded after
    libhipkit_cpu, which it links by its soname, so that its devices and streams are
    the Python API's."""
    with _lock:
        if not _loaded:
            try:
                _lib.load()
                path = lib_dir() / LIBRARY_NAME
            except (OSError, RuntimeError) as exc:
                raise RandUnavailable(f"the CPU platform's hipRAND could not be built: {exc}") from None
            _loaded.append(CpuRandLibrary(ctypes.CDLL(str(path))))
        return _loaded[0]
