"""The NVIDIA platform's hipFFT for Python: cuFFT, through NVIDIA's bindings of it
(nvmath-python's ``nvmath.bindings.cufft``).

hipFFT's C functions are :class:`~hipkit.platforms.base.fft_python.PythonFftLibrary`'s,
which checks the arguments by ROCm's hipFFT's rules first (cuFFT answers some cases
otherwise: a type it lacks is CUFFT_INVALID_TYPE there, NOT_IMPLEMENTED in hipFFT);
then each call is cuFFT's function of the same name, with the same arguments (hipFFT
kept cuFFT's), and cuFFT's result is hipFFT's: the numbers are the same.  The plan
handle is cuFFT's.

A plan belongs to the device current when it is created (the device's primary
context, which hipkit's runtime, CuPy and PyTorch share): the front ends make the
device current first.  cuFFT has no scale factor: hipfftExtPlanScaleFactor answers
HIPFFT_NOT_IMPLEMENTED, and :mod:`hipkit.fft` scales with a kernel of its own, as CuPy
does.  hipfftGetVersion and hipfftGetProperty answer cuFFT's version, as hipFFT on
NVIDIA does (hipRAND here answers cuRAND's alike); hipfftGetVersion's number is
cuFFT's, major * 1000 + minor * 100 + patch (12500: cuFFT 12.5.0), not hipFFT's.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from typing import Any

from ..base.fft import FftUnavailable, hipfftLibraryPropertyType, hipfftResult
from ..base.fft_plan import PlanDescription
from ..base.fft_python import Plan, PythonFftLibrary

__all__ = ["CufftLibrary", "library"]

R = hipfftResult
_KNOWN = {int(code) for code in hipfftResult}


def _result(error: Exception) -> int:
    status = getattr(error, "status", None)
    return status if status in _KNOWN else R.HIPFFT_INTERNAL_ERROR


class CufftLibrary(PythonFftLibrary):
    """hipFFT's C functions over cuFFT (module doc)."""

    def __init__(self, cufft: Any) -> None:
        super().__init__()
        self._cufft = cufft
        self._error = cufft.cuFFTError

    @functools.cached_property
    def description(self) -> str:
        get = self._cufft.get_property  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
        return f"cuFFT {get(0)}.{get(1)}.{get(2)}"

    def _call(self, function: str, *args: Any) -> tuple[int, Any]:
        try:
            return R.HIPFFT_SUCCESS, getattr(self._cufft, function)(*args)
        except self._error as exc:
            return _result(exc), None

    def _create(self) -> int:
        code, handle = self._call("create")
        if code:
            raise RuntimeError(f"cufftCreate failed ({code})")
        return int(handle)

    @staticmethod
    def _many_args(desc: PlanDescription) -> tuple[tuple[Any, ...], list[Any]]:
        """cufftMakePlanMany's arguments after the plan (its int arrays as addresses, as
        every nvmath binding takes them), and the arrays, to keep while it runs."""
        n = (ctypes.c_int * desc.rank)(*desc.n)
        if desc.basic:  # embeddings NULL
            return (desc.rank, ctypes.addressof(n), 0, 1, 0, 0, 1, 0, desc.type, desc.batch), [n]
        inp, out = desc.input, desc.output
        inembed = (ctypes.c_int * desc.rank)(*_embed(inp.strides))
        onembed = (ctypes.c_int * desc.rank)(*_embed(out.strides))
        args = (
            desc.rank, ctypes.addressof(n), ctypes.addressof(inembed), inp.strides[-1], inp.strides[0],
            ctypes.addressof(onembed), out.strides[-1], out.strides[0], desc.type, desc.batch,
        )  # fmt: skip
        return args, [n, inembed, onembed]

    def _make(self, plan: Plan, desc: PlanDescription) -> tuple[int, int]:
        args, keep = self._many_args(desc)
        code, work = self._call("make_plan_many", plan.handle, *args)
        del keep
        return code, int(work or 0)

    def _estimate(self, plan: Plan, desc: PlanDescription) -> int:
        args, keep = self._many_args(desc)
        code, work = self._call("get_size_many", plan.handle, *args)
        del keep
        return int(work or 0) if code == R.HIPFFT_SUCCESS else 0

    def _run(self, plan: Plan, idata: int, odata: int, direction: int, in_place: bool) -> int:
        kind = plan.desc.info.exec_name  # type: ignore[union-attr]
        name = "exec_" + kind[len("hipfftExec") :].lower()
        if kind in ("hipfftExecC2C", "hipfftExecZ2Z"):
            return self._call(name, plan.handle, idata, odata, direction)[0]
        return self._call(name, plan.handle, idata, odata)[0]

    def _release(self, plan: Plan) -> int:
        return self._call("destroy", plan.handle)[0]

    def _set_stream(self, plan: Plan) -> int:
        return self._call("set_stream", plan.handle, plan.stream)[0]

    def _set_work_area(self, plan: Plan) -> int:
        return self._call("set_work_area", plan.handle, plan.work_area)[0]

    def _set_auto_allocation(self, plan: Plan) -> int:
        return self._call("set_auto_allocation", plan.handle, int(plan.auto_allocate))[0]

    def _get_version(self) -> int:
        return int(self._cufft.get_version())

    def _get_property(self, type: hipfftLibraryPropertyType) -> int:
        return int(self._cufft.get_property(type))  # cuFFT's libraryPropertyType numbers them alike


def _embed(strides: tuple[int, ...]) -> list[int]:
    """cuFFT's embedding of a side whose strides (batch first, in elements) are those
    of ``fft_plan``'s geometry: each axis's stride over the next one's (the first
    embedding is not read)."""
    dims = strides[1:]
    return [1] + [dims[k - 1] // dims[k] for k in range(1, len(dims))]


_lock = threading.Lock()
_loaded: list[CufftLibrary] = []


def library() -> CufftLibrary:
    """cuFFT's hipFFT, loaded once (the ``fft`` face); FftUnavailable naming
    nvmath-python where it is not installed."""
    with _lock:
        if not _loaded:
            try:
                from nvmath.bindings import cufft  # type: ignore[import-untyped]
            except ImportError as exc:
                raise FftUnavailable(
                    f"hipFFT on NVIDIA needs nvmath-python and cuFFT ({exc}): pip install 'hipkit[nvidia]'"
                ) from None
            _loaded.append(CufftLibrary(cufft))
        return _loaded[0]
