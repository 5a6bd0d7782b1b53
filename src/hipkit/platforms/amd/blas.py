"""The AMD platform's hipBLAS: ROCm's own ``libhipblas.so`` (on rocBLAS), called as
it is through ctypes (:class:`~hipkit.platforms.base.blas.CtypesBlasLibrary`).

The library is looked for in ROCm's lib folder (``ROCM_PATH``, else ``/opt/rocm``),
then where the dynamic loader finds it.  hipBLAS 2 names its routines on hipComplex
and hipDataType ``..._v2`` (the plain names take its older hipblasComplex and
hipblasDatatype_t); hipBLAS 3 has them under both names: the ``_v2`` name is taken
where the library exports it.  The HIP runtime it loads is the one the platform has
loaded, so its streams are the platform's.
"""

from __future__ import annotations

import ctypes
import os
import threading

from ..base.blas import BlasUnavailable, CtypesBlasLibrary
from .toolkit import rocm_lib, rocm_path

__all__ = ["library"]

_CANDIDATES = ("libhipblas.so", "libhipblas.so.3", "libhipblas.so.2")

_lock = threading.Lock()
_loaded: dict[str, CtypesBlasLibrary] = {}


def _open() -> tuple[ctypes.CDLL, str]:
    failures = []
    for candidate in (rocm_lib(_CANDIDATES[0]), *_CANDIDATES):
        if os.sep in candidate and not os.path.exists(candidate):
            failures.append(f"{candidate}: no such file")
            continue
        try:
            return ctypes.CDLL(candidate), candidate
        except OSError as exc:
            failures.append(str(exc))
    raise BlasUnavailable(
        f"ROCm's hipBLAS (libhipblas.so) was not found ({'; '.join(failures)}): install ROCm's "
        f"hipblas package (apt-get install hipblas, or ROCm's installer), or set ROCM_PATH "
        f"(now {rocm_path()})"
    )


def library() -> CtypesBlasLibrary:
    """ROCm's hipBLAS, loaded once (the ``blas`` face); BlasUnavailable naming ROCm's
    hipblas package where it is not installed."""
    with _lock:
        key = rocm_path()
        if key not in _loaded:
            lib, name = _open()
            _loaded[key] = CtypesBlasLibrary(lib, f"hipBLAS ({name})", prefer_aliases=True)
        return _loaded[key]
