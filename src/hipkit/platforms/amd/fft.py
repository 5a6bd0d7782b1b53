"""The AMD platform's hipFFT: ROCm's own ``libhipfft.so`` (on rocFFT), called as it is
through ctypes (:class:`~hipkit.platforms.base.fft.CtypesFftLibrary`).

The library is looked for in ROCm's lib folder (``ROCM_PATH``, else ``/opt/rocm``),
then where the dynamic loader finds it.  The HIP runtime it loads is the one the
platform has loaded, so its streams are the platform's.  A hipFFT older than
``hipfftExtPlanScaleFactor`` lacks it: :mod:`hipkit.fft` then scales with its own
kernel.
"""

from __future__ import annotations

import ctypes
import os
import threading

from ..base.fft import CtypesFftLibrary, FftUnavailable
from .toolkit import rocm_lib, rocm_path

__all__ = ["library"]

_CANDIDATES = ("libhipfft.so", "libhipfft.so.0")

_lock = threading.Lock()
_loaded: dict[str, CtypesFftLibrary] = {}


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
    raise FftUnavailable(
        f"ROCm's hipFFT (libhipfft.so) was not found ({'; '.join(failures)}): install ROCm's "
        f"hipfft package (apt-get install hipfft, or ROCm's installer), or set ROCM_PATH "
        f"(now {rocm_path()})"
    )


def library() -> CtypesFftLibrary:
    """ROCm's hipFFT, loaded once (the ``fft`` face); FftUnavailable naming ROCm's hipfft
    package where it is not installed."""
    with _lock:
        key = rocm_path()
        if key not in _loaded:
            lib, name = _open()
            _loaded[key] = CtypesFftLibrary(lib, f"hipFFT ({name})")
        return _loaded[key]
