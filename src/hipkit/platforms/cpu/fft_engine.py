"""The CPU programs' hipFFT: ``libhipkit_cpu_fft.so``, hipkit's own FFT engine in C++
(``fft/``, see ``fft/plan.h``), which ``hipkit cc ... -lhipfft`` links.

No maintained, permissively licensed C or C++ FFT library with double precision is
installable here (pocketfft's C++ header ships in no wheel or Debian package, Debian's
kissfft is single precision only, FFTW is GPL), so programs get this engine: mixed
radix 2, 3, 4, 5, 7 and any odd prime up to 61 in Stockham's form with precomputed
twiddles, Bluestein's algorithm for larger prime factors, real transforms through a
half-length complex one, hipFFT's advanced layouts and batches, multi-dimensional
transforms by axis, blocks of lines in the lanes of 32-byte vectors, the blocks of each
pass divided among the CPU device's workers (OpenMP).  Python's calls on the CPU use scipy.fft (:mod:`.fft`).

The library is built with the system C++ compiler for the CPU target
(``HIPKIT_CPU_ISA``), once per hipkit version, sources and compiler, into hipkit's
cache (written atomically).  It links libhipkit_cpu: its streams are the runtime's,
its transforms host functions on them.

Example
-------
>>> from hipkit.platforms.cpu import fft_engine
>>> fft_engine.lib_dir()  # doctest: +SKIP
PosixPath('/home/me/.cache/hipkit/fft/…')
"""

from __future__ import annotations

import ctypes
import shlex
import threading
from pathlib import Path

from ... import __version__, _cache, config
from ..base.fft import CtypesFftLibrary
from ..base.platform import PORTABLE_INCLUDE_DIR
from . import _lib, isa
from ._provider import SHARED_DIR
from .blas import SHIM_DIR
from .library_build import build_shared

__all__ = ["LIBRARY_NAME", "build_key", "lib_dir", "library"]

LIBRARY_NAME = "libhipkit_cpu_fft.so"

_SOURCE_DIR = Path(__file__).parent / "fft"
_INCLUDES = (_SOURCE_DIR, SHIM_DIR, SHARED_DIR, _lib.INCLUDE_DIR, PORTABLE_INCLUDE_DIR)
_HEADERS = (
    PORTABLE_INCLUDE_DIR / "hipkit_fft" / "api.h",
    PORTABLE_INCLUDE_DIR / "hipkit_portable" / "complex.h",
    _lib.INCLUDE_DIR / "hipfft" / "hipfft.h",
    _lib.INCLUDE_DIR / "hipkit_cpu" / "runtime.h",
    SHARED_DIR / "work.h",  # ApiCall: each function an API row of a traced program
)
# Only hipFFT's functions are exported (HK_FFT_API, fft/plan.h).
_COMPILE_FLAGS = (
    "-O3",
    "-g",
    "-std=c++17",
    "-fPIC",
    "-fopenmp",
    "-fvisibility=hidden",
    "-fvisibility-inlines-hidden",
)
_LINK_FLAGS = ("-shared", "-fopenmp", f"-Wl,-soname,{LIBRARY_NAME}", "-Wl,--no-undefined")


def _compiler() -> list[str]:
    return shlex.split(config.get("HIPKIT_CXX"))


def _sources() -> list[Path]:
    own = sorted(p for p in _SOURCE_DIR.iterdir() if p.suffix in (".cpp", ".h"))
    return own + list(_HEADERS)


def build_key() -> str:
    """The hash naming the engine built from these sources with this compiler for this
    target, against this libhipkit_cpu."""
    parts: list[str | bytes] = [__version__, _lib.build_key(), _lib.compiler_version(), isa.march_flag()]
    for path in _sources():
        parts += [str(path.relative_to(path.parents[1])), path.read_bytes()]
    parts += [*_COMPILE_FLAGS, *_LINK_FLAGS]
    return _cache.digest(parts)


def _build(out: Path) -> None:
    runtime = _lib.lib_dir()
    flags = [*_COMPILE_FLAGS, isa.march_flag(), *(f"-I{d}" for d in _INCLUDES)]
    libraries = [f"-L{runtime}", "-lhipkit_cpu", f"-Wl,-rpath,{runtime}"]
    sources = sorted(_SOURCE_DIR.glob("*.cpp"))
    build_shared(out, LIBRARY_NAME, _compiler(), sources, flags, _LINK_FLAGS, libraries)


def lib_dir() -> Path:
    """The directory holding ``libhipkit_cpu_fft.so``, built on first use (RuntimeError
    when the build fails)."""
    return _cache.entry("fft", build_key(), _build)


_lock = threading.Lock()
_loaded: list[CtypesFftLibrary] = []


def library() -> CtypesFftLibrary:
    """The engine as a hipFFT library for Python, loaded once after libhipkit_cpu, the
    first device selected (``hipkitFftSetDevice``).  hipkit.hipfft does not use it
    (scipy.fft serves Python): tests compare it with NumPy through it."""
    with _lock:
        if not _loaded:
            _lib.load()
            lib = ctypes.CDLL(str(lib_dir() / LIBRARY_NAME))
            lib.hipkitFftSetDevice.argtypes = [ctypes.c_int]
            lib.hipkitFftSetDevice.restype = ctypes.c_int
            lib.hipkitFftSetDevice(0)
            _loaded.append(CtypesFftLibrary(lib, "hipkit's CPU FFT engine", c2r_keeps_input=True))
        return _loaded[0]
