"""The CPU platform's hipBLAS: ``libhipkit_cpu_blas.so``, hipBLAS's C API on OpenBLAS.

The library is built from ``openblas/`` (C++, see ``openblas/provider.h``) with the
system C++ compiler, once per hipkit version, sources, compiler and OpenBLAS library,
into hipkit's cache (written atomically, as libhipkit_cpu is by :mod:`._lib`).  It
links libhipkit_cpu (its handles and streams are the runtime's, its routines are host
functions on the runtime's streams) and OpenBLAS, by path, with an rpath to each.

OpenBLAS is, in this order: ``HIPKIT_OPENBLAS`` (a library file); the
``scipy-openblas32`` wheel (``pip install 'hipkit[cpu]'``), whose symbols are prefixed
``scipy_``; the system's ``libopenblas.so.0`` (Debian's ``libopenblas0``).

Python calls the library through :func:`library` (the platform's ``blas`` face);
programs built by ``hipkit cc`` link it for ``-lhipblas`` and ``-lrocblas``
(:mod:`.toolchain`).

Example
-------
>>> from hipkit.platforms.cpu import blas
>>> blas.library().description  # doctest: +SKIP
'OpenBLAS 0.3.34.481.3 (scipy-openblas32), 2 threads'
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ... import _cache, config
from ..._errors import HipError, hipError_t
from ...tables import INCLUDE_DIR as TABLES_INCLUDE_DIR
from ..base.blas import BlasUnavailable, CtypesBlasLibrary
from ..base.platform import PORTABLE_INCLUDE_DIR
from . import _lib, _provider

__all__ = ["INSTALL_HINT", "LIBRARY_NAME", "OpenBLAS", "build_key", "find_openblas", "lib_dir", "library"]

LIBRARY_NAME = "libhipkit_cpu_blas.so"
INSTALL_HINT = "pip install 'hipkit[cpu]' (scipy-openblas32) or apt-get install libopenblas0"

_SOURCE_DIR = Path(__file__).parent / "openblas"
# The provider's own stand-ins for the HIP headers hipkit_blas/api.h includes (see
# openblas/include/hip/hip_runtime_api.h), first on its include path.
SHIM_DIR = _SOURCE_DIR / "include"
_INCLUDES = (SHIM_DIR, _lib.INCLUDE_DIR, PORTABLE_INCLUDE_DIR, TABLES_INCLUDE_DIR)
# The headers of those folders it includes, besides its own.
_HEADERS = (
    PORTABLE_INCLUDE_DIR / "hipkit_blas" / "api.h",
    PORTABLE_INCLUDE_DIR / "hipkit_portable" / "complex.h",
    PORTABLE_INCLUDE_DIR / "hipkit_portable" / "library_types.h",
    TABLES_INCLUDE_DIR / "hipkit_blas" / "routines.h",
    _lib.INCLUDE_DIR / "hipkit_cpu" / "runtime.h",
)


@dataclass(frozen=True)
class OpenBLAS:
    """An OpenBLAS library file, the prefix of its symbols, and where it was found."""

    path: Path
    prefix: str  # "scipy_" (the scipy-openblas32 wheel) or ""
    source: str  # "HIPKIT_OPENBLAS", "scipy-openblas32", "libopenblas0"


def _prefix_of(path: Path) -> str:
    """The prefix of cblas_sgemm's name in the library at ``path``."""
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as exc:
        raise BlasUnavailable(f"HIPKIT_OPENBLAS={path}: cannot be loaded: {exc}") from None
    for prefix in ("", "scipy_"):
        if hasattr(lib, f"{prefix}cblas_sgemm"):
            return prefix
    raise BlasUnavailable(f"HIPKIT_OPENBLAS={path}: not an OpenBLAS library (no cblas_sgemm)")


def _wheel() -> OpenBLAS | None:
    try:
        import scipy_openblas32  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = Path(scipy_openblas32.get_lib_dir()) / f"lib{scipy_openblas32.get_library()}.so"
    return OpenBLAS(path, "scipy_", "scipy-openblas32") if path.is_file() else None


@cache  # the loader's cache is read once a process
def _system() -> OpenBLAS | None:
    """libopenblas.so.0 where the dynamic loader finds it (ldconfig's cache)."""
    try:
        listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        listing = ""
    for line in listing.splitlines():
        name, _, path = line.strip().partition(" => ")
        if name.startswith("libopenblas.so.0 ") and os.path.isfile(path):
            return OpenBLAS(Path(path), "", "libopenblas0")
    return None


def find_openblas() -> OpenBLAS:
    """The OpenBLAS the provider is built on (module doc); BlasUnavailable saying what
    to install when there is none."""
    configured = config.get("HIPKIT_OPENBLAS")
    if configured:
        path = Path(configured)
        if not path.is_file():
            raise BlasUnavailable(f"HIPKIT_OPENBLAS={configured}: no such file")
        return OpenBLAS(path.resolve(), _prefix_of(path), "HIPKIT_OPENBLAS")
    found = _wheel() or _system()
    if found is None:
        raise BlasUnavailable(f"hipBLAS on the CPU needs OpenBLAS, which is not installed: {INSTALL_HINT}")
    return found


def build_key(openblas: OpenBLAS) -> str:
    """The hash naming the provider built from these sources with this compiler, against
    this libhipkit_cpu and this OpenBLAS file (its path, size and time: another version
    installed there is another library)."""
    st = openblas.path.stat()
    parts = _provider.key_parts(_SOURCE_DIR, _HEADERS, LIBRARY_NAME)
    parts += [str(openblas.path), str(st.st_size), str(st.st_mtime_ns), openblas.prefix]
    return _cache.digest(parts)


def _build(out: Path, openblas: OpenBLAS) -> None:
    flags = [f"-DHIPKIT_OPENBLAS_PREFIX={openblas.prefix}", *(f"-I{d}" for d in _INCLUDES)]
    # OpenBLAS by path: its soname is what the loader looks for, in its folder.
    libraries = [str(openblas.path), f"-Wl,-rpath,{openblas.path.parent}"]
    _provider.build(out, LIBRARY_NAME, _SOURCE_DIR, flags, libraries)


def lib_dir(openblas: OpenBLAS | None = None) -> Path:
    """The directory holding ``libhipkit_cpu_blas.so``, built on first use.  Raises
    BlasUnavailable without OpenBLAS, RuntimeError when the build fails."""
    openblas = openblas or find_openblas()
    return _cache.entry("blas", build_key(openblas), lambda tmp: _build(tmp, openblas))


class CpuBlasLibrary(CtypesBlasLibrary):
    """The provider, loaded: hipBLAS's functions (:class:`CtypesBlasLibrary`), the
    device of the next handle (:meth:`set_device`)."""

    def __init__(self, lib: ctypes.CDLL, openblas: OpenBLAS) -> None:
        super().__init__(lib, self._describe)
        self._openblas = openblas
        lib.hipkitBlasSetDevice.argtypes = [ctypes.c_int]
        lib.hipkitBlasSetDevice.restype = ctypes.c_int
        lib.hipkitBlasOpenBLASConfig.restype = ctypes.c_char_p
        lib.hipkitBlasOpenBLASThreads.restype = ctypes.c_int

    def _describe(self) -> str:
        lib = self.library
        words = (lib.hipkitBlasOpenBLASConfig() or b"OpenBLAS").decode(errors="replace").split()
        threads = lib.hipkitBlasOpenBLASThreads()
        return f"{' '.join(words[:2])} ({self._openblas.source}), {threads} thread{'s' * (threads != 1)}"

    def set_device(self, device: int) -> None:
        if self.library.hipkitBlasSetDevice(device) != 0:
            raise HipError(hipError_t.hipErrorInvalidDevice, f"no CPU device {device}")


_lock = threading.Lock()
_loaded: dict[Path, CpuBlasLibrary] = {}


def library() -> CpuBlasLibrary:
    """The provider, built if needed and loaded once per OpenBLAS (the ``blas`` face).
    BlasUnavailable says what to install (no OpenBLAS) or why it could not be built.

    It is loaded after libhipkit_cpu, which it links by its soname: the dynamic
    loader gives it the runtime already loaded, so that its handles and streams are
    the Python API's.  OpenBLAS's threads are set then to the device's workers."""
    openblas = find_openblas()
    with _lock:
        if openblas.path not in _loaded:
            try:
                _lib.load()
                path = lib_dir(openblas) / LIBRARY_NAME
            except (OSError, RuntimeError) as exc:
                raise BlasUnavailable(f"the CPU platform's hipBLAS could not be built: {exc}") from None
            loaded = CpuBlasLibrary(ctypes.CDLL(str(path)), openblas)
            loaded.set_device(0)
            _loaded[openblas.path] = loaded
        return _loaded[openblas.path]
