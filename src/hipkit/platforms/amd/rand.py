"""The AMD platform's hipRAND: ROCm's own ``libhiprand.so`` (on rocRAND), called as it is
through ctypes (:class:`~hipkit.platforms.base.rand.CtypesRandLibrary`).

The library is looked for in ROCm's lib folder (``ROCM_PATH``, else ``/opt/rocm``), then
where the dynamic loader finds it.  Its numbers are rocRAND's, in rocRAND's order;
kernels get hipkit's device API (``include/hiprand/hiprand_kernel.h``), whose numbers are
the same on every platform, and :mod:`hipkit.random` makes the rule's with them.
"""

from __future__ import annotations

import threading

from ..base.rand import CtypesRandLibrary, RandUnavailable
from .toolkit import open_rocm_library, rocm_path

__all__ = ["library"]

_CANDIDATES = ("libhiprand.so", "libhiprand.so.1")

_lock = threading.Lock()
_loaded: dict[str, CtypesRandLibrary] = {}


def library() -> CtypesRandLibrary:
    """ROCm's hipRAND, loaded once (the ``rand`` face); RandUnavailable naming ROCm's
    hiprand package where it is not installed."""
    with _lock:
        key = rocm_path()
        if key not in _loaded:
            lib, name = open_rocm_library(
                _CANDIDATES, "hipRAND", "hiprand package (apt-get install libhiprand1)", RandUnavailable
            )
            _loaded[key] = CtypesRandLibrary(lib, f"hipRAND ({name})")
        return _loaded[key]
