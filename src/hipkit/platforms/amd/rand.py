"""The AMD platform's hipRAND: ROCm's own ``libhiprand.so`` (on rocRAND), called as it is
through ctypes (:class:`~hipkit.platforms.base.rand.CtypesRandLibrary`).

The library is looked for in ROCm's lib folder (``ROCM_PATH``, else ``/opt/rocm``), then
where the dynamic loader finds it.  Its numbers are rocRAND's, in rocRAND's order;
kernels get hipkit's device API (``include/hiprand/hiprand_kernel.h``), whose numbers are
the same on every platform, and :mod:`hipkit.random` makes the rule's with them.
"""

from __future__ import annotations

import ctypes
import os
import threading

from ..base.rand import CtypesRandLibrary, RandUnavailable
from .toolkit import rocm_lib, rocm_path

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
            failures = []
            for candidate in (rocm_lib(_CANDIDATES[0]), *_CANDIDATES):
                if os.sep in candidate and not os.path.exists(candidate):
                    failures.append(f"{candidate}: no such file")
                    continue
                try:
                    _loaded[key] = CtypesRandLibrary(ctypes.CDLL(candidate), f"hipRAND ({candidate})")
                    break
                except OSError as exc:
                    failures.append(str(exc))
            else:
                raise RandUnavailable(
                    f"ROCm's hipRAND (libhiprand.so) was not found ({'; '.join(failures)}): install "
                    f"ROCm's hiprand package (apt-get install libhiprand1), or set ROCM_PATH "
                    f"(now {rocm_path()})"
                )
        return _loaded[key]
