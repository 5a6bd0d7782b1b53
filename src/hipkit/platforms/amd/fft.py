"""The AMD platform's hipFFT: ROCm's own ``libhipfft.so`` (on rocFFT), called as it is
through ctypes (:class:`~hipkit.platforms.base.fft.CtypesFftLibrary`).

The library is looked for in ROCm's lib folder (``ROCM_PATH``, else ``/opt/rocm``),
then where the dynamic loader finds it.  The HIP runtime it loads is the one the
platform has loaded, so its streams are the platform's.  A hipFFT older than
``hipfftExtPlanScaleFactor`` lacks it: :mod:`hipkit.fft` then scales with its own
kernel.
"""

from __future__ import annotations

import threading

from ..base.fft import CtypesFftLibrary, FftUnavailable
from .toolkit import open_rocm_library, rocm_path

__all__ = ["library"]

_CANDIDATES = ("libhipfft.so", "libhipfft.so.0")

_lock = threading.Lock()
_loaded: dict[str, CtypesFftLibrary] = {}


def library() -> CtypesFftLibrary:
    """ROCm's hipFFT, loaded once (the ``fft`` face); FftUnavailable naming ROCm's hipfft
    package where it is not installed."""
    with _lock:
        key = rocm_path()
        if key not in _loaded:
            lib, name = open_rocm_library(
                _CANDIDATES,
                "hipFFT",
                "hipfft package (apt-get install hipfft, or ROCm's installer)",
                FftUnavailable,
            )
            _loaded[key] = CtypesFftLibrary(lib, f"hipFFT ({name})")
        return _loaded[key]
