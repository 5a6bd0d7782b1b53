"""hipFFT's functions by their names (the package's doc says how they are called)."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

from ..platforms.base.fft import FftLibrary
from ..runtime.device import get_device
from ..runtime.memory import device_pointer
from .plans import call, function_of, int_array, library_of, live, native_stream, new_plan, state_of

Ints = Sequence[int] | None


def _on(plan: Any, name: str, *args: Any) -> None:
    state = state_of(plan, name)
    call(name, state.function(name), plan, *args)


def _with_size(plan: Any, name: str, *args: Any) -> int:
    size = ctypes.c_size_t(0)
    _on(plan, name, *args, ctypes.addressof(size))
    return size.value


# ------------------------------------------------------------------ plans


def _plan(name: str, *args: Any) -> int:
    def make(library: FftLibrary, address: int) -> None:
        call(name, function_of(library, name), address, *args)

    return new_plan(name, make)


def hipfftCreate() -> int:
    """A new plan on the current device, to be made by a hipfftMakePlan function."""
    return _plan("hipfftCreate")


def hipfftPlan1d(nx: int, type: int, batch: int = 1) -> int:
    """A plan of ``batch`` 1-D transforms of length ``nx``, of ``type`` (HIPFFT_C2C...)."""
    return _plan("hipfftPlan1d", nx, type, batch)


def hipfftPlan2d(nx: int, ny: int, type: int) -> int:
    """A plan of one 2-D transform, row-major: ``ny`` varies fastest."""
    return _plan("hipfftPlan2d", nx, ny, type)


def hipfftPlan3d(nx: int, ny: int, nz: int, type: int) -> int:
    """A plan of one 3-D transform, row-major: ``nz`` varies fastest."""
    return _plan("hipfftPlan3d", nx, ny, nz, type)


def _many(name: str, rank: int, n: Sequence[int], inembed: Ints, onembed: Ints) -> tuple[Any, Any, Any]:
    return (
        int_array(n, rank, name, "n"),
        int_array(inembed, rank, name, "inembed"),
        int_array(onembed, rank, name, "onembed"),
    )


def _address(array: Any) -> int:
    return ctypes.addressof(array) if array is not None else 0


def hipfftPlanMany(
    rank: int, n: Sequence[int], inembed: Ints, istride: int, idist: int,
    onembed: Ints, ostride: int, odist: int, type: int, batch: int,
) -> int:  # fmt: skip
    """A plan of ``batch`` transforms of rank 1-3 with hipFFT's advanced layout: element
    ``x`` of batch ``b`` at ``b * idist + istride * (x[-1] + inembed[-1] * (x[-2] +
    ...))``; ``inembed``/``onembed`` None: the basic (dense) layout."""
    arrays = _many("hipfftPlanMany", rank, n, inembed, onembed)
    a, i, o = (_address(x) for x in arrays)
    return _plan("hipfftPlanMany", rank, a, i, istride, idist, o, ostride, odist, type, batch)


def hipfftMakePlan1d(plan: int, nx: int, type: int, batch: int = 1) -> int:
    """Make a created plan (hipfftPlan1d's); its work size in bytes."""
    return _with_size(plan, "hipfftMakePlan1d", nx, type, batch)


def hipfftMakePlan2d(plan: int, nx: int, ny: int, type: int) -> int:
    """Make a created plan (hipfftPlan2d's); its work size in bytes."""
    return _with_size(plan, "hipfftMakePlan2d", nx, ny, type)


def hipfftMakePlan3d(plan: int, nx: int, ny: int, nz: int, type: int) -> int:
    """Make a created plan (hipfftPlan3d's); its work size in bytes."""
    return _with_size(plan, "hipfftMakePlan3d", nx, ny, nz, type)


def hipfftMakePlanMany(
    plan: int, rank: int, n: Sequence[int], inembed: Ints, istride: int, idist: int,
    onembed: Ints, ostride: int, odist: int, type: int, batch: int,
) -> int:  # fmt: skip
    """Make a created plan (hipfftPlanMany's); its work size in bytes."""
    arrays = _many("hipfftMakePlanMany", rank, n, inembed, onembed)
    a, i, o = (_address(x) for x in arrays)
    return _with_size(plan, "hipfftMakePlanMany", rank, a, i, istride, idist, o, ostride, odist, type, batch)


def hipfftGetSize1d(plan: int, nx: int, type: int, batch: int = 1) -> int:
    """The work size in bytes a 1-D plan of these parameters needs."""
    return _with_size(plan, "hipfftGetSize1d", nx, type, batch)


def hipfftGetSize2d(plan: int, nx: int, ny: int, type: int) -> int:
    """The work size in bytes a 2-D plan of these parameters needs."""
    return _with_size(plan, "hipfftGetSize2d", nx, ny, type)


def hipfftGetSize3d(plan: int, nx: int, ny: int, nz: int, type: int) -> int:
    """The work size in bytes a 3-D plan of these parameters needs."""
    return _with_size(plan, "hipfftGetSize3d", nx, ny, nz, type)


def hipfftGetSizeMany(
    plan: int, rank: int, n: Sequence[int], inembed: Ints, istride: int, idist: int,
    onembed: Ints, ostride: int, odist: int, type: int, batch: int,
) -> int:  # fmt: skip
    """The work size in bytes a plan of hipfftPlanMany's parameters needs."""
    arrays = _many("hipfftGetSizeMany", rank, n, inembed, onembed)
    a, i, o = (_address(x) for x in arrays)
    return _with_size(plan, "hipfftGetSizeMany", rank, a, i, istride, idist, o, ostride, odist, type, batch)


def hipfftGetSize(plan: int) -> int:
    """The made plan's work size in bytes."""
    return _with_size(plan, "hipfftGetSize")


def hipfftExtPlanScaleFactor(plan: int, scalefactor: float) -> None:
    """Multiply every result of the plan by ``scalefactor`` (finite), set after
    hipfftCreate and before the plan is made.  HIPFFT_NOT_IMPLEMENTED where the library
    has no scale factor (cuFFT)."""
    _on(plan, "hipfftExtPlanScaleFactor", float(scalefactor))


def hipfftSetStream(plan: int, stream: Any) -> None:
    """Queue the plan's transforms on ``stream``: a hipkit Stream, 0 or None (the null
    stream), or a native stream handle."""
    state_of(plan, "hipfftSetStream")
    _on(plan, "hipfftSetStream", native_stream(stream))


def hipfftSetWorkArea(plan: int, workArea: Any) -> None:
    """The plan's work area: device memory of at least its work size."""
    state = state_of(plan, "hipfftSetWorkArea")
    _on(plan, "hipfftSetWorkArea", device_pointer(workArea, state.device, "hipfftSetWorkArea", "workArea"))


def hipfftSetAutoAllocation(plan: int, autoAllocate: int) -> None:
    """Whether the plan allocates its own work area (1, the default) or is given one
    (0: call hipfftSetWorkArea before executing)."""
    _on(plan, "hipfftSetAutoAllocation", int(autoAllocate))


def hipfftDestroy(plan: int) -> None:
    """Release the plan; any later use answers HIPFFT_INVALID_PLAN."""
    _on(plan, "hipfftDestroy")
    live.pop(plan, None)


# ------------------------------------------------------------------ the library


def _get_int(name: str, *args: Any) -> int:
    """What hipFFT function ``name`` of the current device's provider writes to its
    ``int*`` out-parameter, the last."""
    function = function_of(library_of(get_device(), name), name)
    value = ctypes.c_int(0)
    call(name, function, *args, ctypes.addressof(value))
    return value.value


def hipfftGetVersion() -> int:
    """The version of the current device's hipFFT, as its provider answers: on the CPU
    the hipFFT API hipkit follows, written as hipFFT writes its version (major * 10000 +
    minor * 100 + patch: 10021 for 1.0.21); on NVIDIA cuFFT's, as hipFFT there answers
    (cuFFT's number, major * 1000 + minor * 100 + patch: 12500 for 12.5.0); on AMD ROCm's
    hipFFT's own answer (rocFFT's version)."""
    return _get_int("hipfftGetVersion")


def hipfftGetProperty(type: int) -> int:
    """A part of that version: ``type`` HIPFFT_MAJOR_VERSION, HIPFFT_MINOR_VERSION or
    HIPFFT_PATCH_LEVEL (another: HIPFFT_INVALID_VALUE).

    Example
    -------
    >>> hipfft.hipfftGetProperty(hipfft.HIPFFT_MAJOR_VERSION)  # doctest: +SKIP
    1
    """
    return _get_int("hipfftGetProperty", int(type))


# ------------------------------------------------------------------ transforms


def _exec(name: str, plan: int, idata: Any, odata: Any, *direction: int) -> None:
    state = state_of(plan, name)
    device = state.device
    i = idata if type(idata) is int else device_pointer(idata, device, name, "idata")
    o = odata if type(odata) is int else device_pointer(odata, device, name, "odata")
    call(name, state.function(name), plan, i, o, *direction)


def hipfftExecC2C(plan: int, idata: Any, odata: Any, direction: int) -> None:
    """Complex-to-complex, single precision; ``direction`` HIPFFT_FORWARD (-1) or
    HIPFFT_BACKWARD (1, unnormalized).  ``idata is odata``: in place."""
    _exec("hipfftExecC2C", plan, idata, odata, direction)


def hipfftExecZ2Z(plan: int, idata: Any, odata: Any, direction: int) -> None:
    """Complex-to-complex, double precision."""
    _exec("hipfftExecZ2Z", plan, idata, odata, direction)


def hipfftExecR2C(plan: int, idata: Any, odata: Any) -> None:
    """Real-to-complex (forward), single precision: n // 2 + 1 outputs on the last axis."""
    _exec("hipfftExecR2C", plan, idata, odata)


def hipfftExecD2Z(plan: int, idata: Any, odata: Any) -> None:
    """Real-to-complex (forward), double precision."""
    _exec("hipfftExecD2Z", plan, idata, odata)


def hipfftExecC2R(plan: int, idata: Any, odata: Any) -> None:
    """Complex-to-real (backward, unnormalized), single precision."""
    _exec("hipfftExecC2R", plan, idata, odata)


def hipfftExecZ2D(plan: int, idata: Any, odata: Any) -> None:
    """Complex-to-real (backward, unnormalized), double precision."""
    _exec("hipfftExecZ2D", plan, idata, odata)
