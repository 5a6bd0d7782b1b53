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

import threading

from ..base.blas import BlasUnavailable, CtypesBlasLibrary
from .toolkit import open_rocm_library, rocm_path

__all__ = ["library"]

_CANDIDATES = ("libhipblas.so", "libhipblas.so.3", "libhipblas.so.2")

_lock = threading.Lock()
_loaded: dict[str, CtypesBlasLibrary] = {}


def library() -> CtypesBlasLibrary:
    """ROCm's hipBLAS, loaded once (the ``blas`` face); BlasUnavailable naming ROCm's
    hipblas package where it is not installed."""
    with _lock:
        key = rocm_path()
        if key not in _loaded:
            lib, name = open_rocm_library(
                _CANDIDATES,
                "hipBLAS",
                "hipblas package (apt-get install hipblas, or ROCm's installer)",
                BlasUnavailable,
            )
            _loaded[key] = CtypesBlasLibrary(lib, f"hipBLAS ({name})", prefer_aliases=True)
        return _loaded[key]
