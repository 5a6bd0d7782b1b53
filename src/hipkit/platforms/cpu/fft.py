"""The CPU platform's hipFFT for Python: scipy.fft's pocketfft, with the CPU device's
workers as its threads.

hipFFT's C functions are :class:`~hipkit.platforms.base.fft_python.PythonFftLibrary`'s;
a plan made here is its arrays' geometry (device memory is host memory on the CPU) and
an exec is one pocketfft call on NumPy views of the plan's input and output, writing
the result in place (pocketfft's ``out``): scipy.fft's own core, with no copy of its
result.  The call runs on the calling thread once the plan's stream has done the work
queued before it, so that it orders with kernels and copies as stream work does; the
next work queued on the stream comes after it.

Scale factors (hipfftExtPlanScaleFactor) of 1, 1/sqrt(N) and 1/N are pocketfft's own
normalizations, applied inside the transform; another factor multiplies the result.
C2R leaves its input as it was.

Programs built by ``hipkit cc`` link hipkit's own C++ engine instead
(:mod:`.fft_engine`): no maintained double-precision FFT in C or C++ with a permissive
license is installable here.

Example
-------
>>> from hipkit.platforms.cpu import fft
>>> fft.library().description  # doctest: +SKIP
'scipy.fft 1.17.1 (pocketfft), 2 workers'
"""

from __future__ import annotations

import ctypes
import math
import threading
from typing import Any

import numpy as np

from ..base.fft import HIPFFT_FORWARD, FftUnavailable, hipfftResult
from ..base.fft_plan import Geometry, PlanDescription
from ..base.fft_python import Plan, PythonFftLibrary
from . import _lib

__all__ = ["INSTALL_HINT", "ScipyFftLibrary", "library"]

INSTALL_HINT = "pip install 'hipkit[cpu]' (scipy)"
R = hipfftResult


class _Exec:
    """What an exec needs of a made plan: its views' geometry in bytes, the axes,
    pocketfft's normalization and the factor left over, the threads."""

    __slots__ = ("axes", "extra", "inorm", "kind", "last", "sides", "workers")

    def __init__(self, desc: PlanDescription, scale: float, workers: int) -> None:
        info = desc.info
        self.kind = info.kind
        self.axes = tuple(range(1, desc.rank + 1))
        self.last = desc.n[-1]
        self.workers = workers
        self.sides = {
            in_place: tuple(
                _side(geo, dtype)
                for geo, dtype in zip(desc.geometries(in_place), (info.input, info.output), strict=True)
            )
            for in_place in (False, True)
        }
        self.inorm, self.extra = _normalization(scale, desc.size)


Side = tuple[tuple[int, ...], np.dtype, tuple[int, ...], Any]


def _side(geo: Geometry, dtype: np.dtype) -> Side:
    """A view's shape, dtype, strides in bytes and buffer type, made once per plan (a
    ctypes array type costs microseconds to make)."""
    size = dtype.itemsize
    return geo.shape, dtype, tuple(s * size for s in geo.strides), ctypes.c_char * (geo.span * size)


def _normalization(scale: float, points: int) -> tuple[int, float]:
    """pocketfft's ``inorm`` (0 none, 1 1/sqrt(N), 2 1/N) for ``scale``, and the
    factor left to multiply by (1.0: none)."""
    for inorm, factor in ((0, 1.0), (1, 1.0 / math.sqrt(points)), (2, 1.0 / points)):
        if math.isclose(scale, factor, rel_tol=1e-12):
            return inorm, 1.0
    return 0, scale


def _view(address: int, side: Side) -> np.ndarray:
    shape, dtype, strides, buffer_type = side
    buffer = buffer_type.from_address(address)
    return np.ndarray(shape, dtype, buffer=buffer, strides=strides)  # type: ignore[arg-type]


class ScipyFftLibrary(PythonFftLibrary):
    """hipFFT on scipy.fft's pocketfft (module doc)."""

    scales = True

    def __init__(self, pocketfft: Any, version: str) -> None:
        super().__init__()
        self._pocketfft = pocketfft
        self._version = version
        self._runtime = _lib.load()
        self._workers: dict[int, int] = {}

    @property
    def description(self) -> str:
        workers = self.workers(0)
        return f"scipy.fft {self._version} (pocketfft), {workers} worker{'s' * (workers != 1)}"

    @property
    def c2r_keeps_input(self) -> bool:
        return True

    def workers(self, device: int) -> int:
        """The threads a transform on ``device`` runs on: its workers."""
        found = self._workers.get(device)
        if found is None:
            info = _lib.DeviceInfo()
            if self._runtime.hkrt_get_device_info(device, ctypes.byref(info)) != 0:
                return 1
            found = self._workers[device] = max(1, int(info.multiprocessor_count))
        return found

    def _make(self, plan: Plan, desc: PlanDescription) -> tuple[int, int]:
        plan.state = _Exec(desc, plan.scale, self.workers(plan.device))
        return R.HIPFFT_SUCCESS, 0

    def _run(self, plan: Plan, idata: int, odata: int, direction: int, in_place: bool) -> int:
        run: _Exec = plan.state
        if self._runtime.hkrt_stream_synchronize(plan.device, plan.stream or None) != 0:
            return R.HIPFFT_EXEC_FAILED
        side_in, side_out = run.sides[in_place]
        a = _view(idata, side_in)
        out = _view(odata, side_out)
        pf = self._pocketfft
        if run.kind == "c2c":
            pf.c2c(a, run.axes, direction == HIPFFT_FORWARD, run.inorm, out, run.workers)
        elif run.kind == "r2c":
            result = pf.r2c(a, run.axes, True, run.inorm, None if in_place else out, run.workers)
            if in_place:
                out[...] = result
        else:
            result = pf.c2r(a, run.axes, run.last, False, run.inorm, None if in_place else out, run.workers)
            if in_place:
                out[...] = result
        if run.extra != 1.0:
            out *= run.extra
        return R.HIPFFT_SUCCESS


_lock = threading.Lock()
_loaded: list[ScipyFftLibrary] = []


def library() -> ScipyFftLibrary:
    """The provider, loaded once (the ``fft`` face); FftUnavailable naming scipy where
    it is not installed."""
    with _lock:
        if not _loaded:
            try:
                import scipy
                from scipy.fft._pocketfft import pypocketfft  # scipy.fft's own core
            except ImportError as exc:
                raise FftUnavailable(f"hipFFT on the CPU needs scipy ({exc}): {INSTALL_HINT}") from None
            _loaded.append(ScipyFftLibrary(pypocketfft, scipy.__version__))
        return _loaded[0]
