"""hipFFT's C functions written once in Python, for the providers whose library is not
hipFFT itself: the CPU's (scipy.fft) and NVIDIA's (cuFFT through nvmath-python).

:class:`PythonFftLibrary` reads every function's C arguments, applies hipFFT's rules
(:mod:`hipkit.platforms.base.fft`, by :func:`~.fft_plan.describe`), keeps each plan's
state (:class:`Plan`), and leaves a subclass only what its library does: make a plan
for a description, execute it, set its stream and work area, destroy it.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import threading
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

from .fft import FFT_FUNCTIONS, HIPFFT_VERSION, FftLibrary, hipfftLibraryPropertyType, hipfftResult
from .fft_plan import EXEC_TYPES, PlanDescription, describe, direction_ok, many, write_handle, write_size

__all__ = ["Plan", "PythonFftLibrary"]

R = hipfftResult
# Handles far above the small ints cuFFT numbers its plans with: the front end tells
# the platforms' plans apart by handle.
_ids = itertools.count(1 << 40)
_PROPERTIES = frozenset(hipfftLibraryPropertyType)


class Plan:
    """A live plan: its description once made, and what was set on it."""

    __slots__ = (
        "auto_allocate",
        "desc",
        "device",
        "handle",
        "native",
        "scale",
        "state",
        "stream",
        "work",
        "work_area",
    )

    def __init__(self, handle: int, device: int) -> None:
        self.handle = handle
        self.device = device
        self.desc: PlanDescription | None = None
        self.native: Any = None  # the library's own plan
        self.state: Any = None  # what the subclass derives from desc, for its exec
        self.stream = 0
        self.scale = 1.0
        self.work = 0
        self.work_area = 0
        self.auto_allocate = True


class PythonFftLibrary(FftLibrary):
    """hipFFT's functions over a subclass's library (module doc).

    Subclasses implement :meth:`_make`, :meth:`_run`, and, where their library has
    them, :meth:`_create`, :meth:`_release`, :meth:`_set_stream`, :meth:`_set_work_area`,
    :meth:`_set_auto_allocation`, and where it answers a version of its own,
    :meth:`_get_version` and :meth:`_get_property`; ``scales`` says whether :meth:`_run`
    applies ``plan.scale`` (else hipfftExtPlanScaleFactor answers HIPFFT_NOT_IMPLEMENTED).
    """

    scales = False

    def __init__(self) -> None:
        self.plans: dict[int, Plan] = {}
        self._device = threading.local()
        self._functions: dict[str, Callable[..., int]] = {name: getattr(self, name) for name in FFT_FUNCTIONS}

    def function(self, name: str) -> Callable[..., int]:
        return self._functions[name]

    def set_device(self, device: int) -> None:
        self._device.index = device

    # ------------------------------------------------------------ for subclasses

    def _create(self) -> int:
        """A new plan handle (the library's own where it has handles)."""
        return next(_ids)

    @abstractmethod
    def _make(self, plan: Plan, desc: PlanDescription) -> tuple[int, int]:
        """Make ``plan`` for ``desc``: (hipfftResult, work size in bytes)."""

    @abstractmethod
    def _run(self, plan: Plan, idata: int, odata: int, direction: int, in_place: bool) -> int:
        """Execute the made ``plan`` (its arguments checked): a hipfftResult."""

    def _estimate(self, plan: Plan, desc: PlanDescription) -> int:
        """The work size a plan of ``desc`` would need (hipfftGetSize*)."""
        return 0

    def _release(self, plan: Plan) -> int:
        return R.HIPFFT_SUCCESS

    def _set_stream(self, plan: Plan) -> int:
        return R.HIPFFT_SUCCESS

    def _set_work_area(self, plan: Plan) -> int:
        return R.HIPFFT_SUCCESS

    def _set_auto_allocation(self, plan: Plan) -> int:
        return R.HIPFFT_SUCCESS

    def _get_version(self) -> int:
        """hipfftGetVersion's number: by default the version of the hipFFT whose API
        hipkit follows (:data:`~.fft.HIPFFT_VERSION`), written as hipFFT writes its
        version: major * 10000 + minor * 100 + patch."""
        major, minor, patch = HIPFFT_VERSION
        return major * 10000 + minor * 100 + patch

    def _get_property(self, type: hipfftLibraryPropertyType) -> int:
        """hipfftGetProperty's value of ``type``: by default that part of
        :data:`~.fft.HIPFFT_VERSION`."""
        return HIPFFT_VERSION[type]

    # ------------------------------------------------------------ hipFFT's functions

    def _plan(self, handle: int) -> Plan | None:
        return self.plans.get(handle) if handle else None

    def hipfftCreate(self, plan: int) -> int:
        if not plan:
            return R.HIPFFT_INVALID_VALUE
        handle = self._create()
        self.plans[handle] = Plan(handle, getattr(self._device, "index", 0))
        write_handle(plan, handle)
        return R.HIPFFT_SUCCESS

    def hipfftDestroy(self, plan: int) -> int:
        state = self.plans.pop(plan, None) if plan else None
        return R.HIPFFT_INVALID_PLAN if state is None else self._release(state)

    def _plan_and_make(self, address: int, *many_args: Any) -> int:
        """hipfftPlan*: create, then make; a plan that cannot be made is destroyed."""
        code = self.hipfftCreate(address)
        if code:
            return code
        handle = ctypes.c_uint64.from_address(address).value
        code = self._make_described(handle, *many_args, 0)  # type: ignore[call-arg]
        if code:
            self.hipfftDestroy(handle)
            write_handle(address, 0)
        return code

    def hipfftPlan1d(self, plan: int, nx: int, type: int, batch: int) -> int:
        return self._plan_and_make(plan, 1, (nx,), None, 1, 0, None, 1, 0, type, batch)

    def hipfftPlan2d(self, plan: int, nx: int, ny: int, type: int) -> int:
        return self._plan_and_make(plan, 2, (nx, ny), None, 1, 0, None, 1, 0, type, 1)

    def hipfftPlan3d(self, plan: int, nx: int, ny: int, nz: int, type: int) -> int:
        return self._plan_and_make(plan, 3, (nx, ny, nz), None, 1, 0, None, 1, 0, type, 1)

    def hipfftPlanMany(self, plan: int, *args: int) -> int:
        return self._plan_and_make(plan, *many(args[:8]), *args[8:])

    def _make_described(
        self, handle: int, rank: int, n: Any, inembed: Any, istride: int, idist: int, onembed: Any,
        ostride: int, odist: int, type: int, batch: int, work_size: int,
    ) -> int:  # fmt: skip
        plan = self._plan(handle)
        if plan is None:
            return R.HIPFFT_INVALID_PLAN
        if n is None:
            return R.HIPFFT_INVALID_SIZE
        desc = describe(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch)
        if isinstance(desc, int):
            return desc
        code, work = self._make(plan, desc)
        if code == R.HIPFFT_SUCCESS:
            plan.desc, plan.work = desc, work
            write_size(work_size, work)
        return code

    def hipfftMakePlan1d(self, plan: int, nx: int, type: int, batch: int, work_size: int) -> int:
        return self._make_described(plan, 1, (nx,), None, 1, 0, None, 1, 0, type, batch, work_size)

    def hipfftMakePlan2d(self, plan: int, nx: int, ny: int, type: int, work_size: int) -> int:
        return self._make_described(plan, 2, (nx, ny), None, 1, 0, None, 1, 0, type, 1, work_size)

    def hipfftMakePlan3d(self, plan: int, nx: int, ny: int, nz: int, type: int, work_size: int) -> int:
        return self._make_described(plan, 3, (nx, ny, nz), None, 1, 0, None, 1, 0, type, 1, work_size)

    def hipfftMakePlanMany(self, plan: int, *args: int) -> int:
        return self._make_described(plan, *many(args[:8]), *args[8:])

    def _size_described(self, handle: int, rank: int, n: Any, *rest: Any) -> int:
        plan = self._plan(handle)
        if plan is None:
            return R.HIPFFT_INVALID_PLAN
        if n is None:
            return R.HIPFFT_INVALID_SIZE
        desc = describe(rank, n, *rest[:-1])
        if isinstance(desc, int):
            return desc
        write_size(rest[-1], self._estimate(plan, desc))
        return R.HIPFFT_SUCCESS

    def hipfftGetSize1d(self, plan: int, nx: int, type: int, batch: int, work_size: int) -> int:
        return self._size_described(plan, 1, (nx,), None, 1, 0, None, 1, 0, type, batch, work_size)

    def hipfftGetSize2d(self, plan: int, nx: int, ny: int, type: int, work_size: int) -> int:
        return self._size_described(plan, 2, (nx, ny), None, 1, 0, None, 1, 0, type, 1, work_size)

    def hipfftGetSize3d(self, plan: int, nx: int, ny: int, nz: int, type: int, work_size: int) -> int:
        return self._size_described(plan, 3, (nx, ny, nz), None, 1, 0, None, 1, 0, type, 1, work_size)

    def hipfftGetSizeMany(self, plan: int, *args: int) -> int:
        return self._size_described(plan, *many(args[:8]), *args[8:])

    def hipfftGetSize(self, plan: int, work_size: int) -> int:
        state = self._plan(plan)
        if state is None:
            return R.HIPFFT_INVALID_PLAN
        if not work_size:
            return R.HIPFFT_INVALID_VALUE
        write_size(work_size, state.work)
        return R.HIPFFT_SUCCESS

    def hipfftGetVersion(self, version: int) -> int:
        if not version:
            return R.HIPFFT_INVALID_VALUE
        ctypes.c_int.from_address(version).value = self._get_version()
        return R.HIPFFT_SUCCESS

    def hipfftGetProperty(self, type: int, value: int) -> int:
        if not value or type not in _PROPERTIES:
            return R.HIPFFT_INVALID_VALUE
        ctypes.c_int.from_address(value).value = self._get_property(hipfftLibraryPropertyType(type))
        return R.HIPFFT_SUCCESS

    def hipfftExtPlanScaleFactor(self, plan: int, scale: float) -> int:
        state = self._plan(plan)
        if state is None:
            return R.HIPFFT_INVALID_PLAN
        if not math.isfinite(scale):
            return R.HIPFFT_INVALID_VALUE
        if not self.scales:
            return R.HIPFFT_NOT_IMPLEMENTED
        state.scale = float(scale)
        return R.HIPFFT_SUCCESS

    def hipfftSetStream(self, plan: int, stream: int | None) -> int:
        state = self._plan(plan)
        if state is None:
            return R.HIPFFT_INVALID_PLAN
        state.stream = stream or 0
        return self._set_stream(state)

    def hipfftSetWorkArea(self, plan: int, work_area: int | None) -> int:
        state = self._plan(plan)
        if state is None:
            return R.HIPFFT_INVALID_PLAN
        state.work_area = work_area or 0
        return self._set_work_area(state)

    def hipfftSetAutoAllocation(self, plan: int, auto_allocate: int) -> int:
        state = self._plan(plan)
        if state is None:
            return R.HIPFFT_INVALID_PLAN
        state.auto_allocate = bool(auto_allocate)
        return self._set_auto_allocation(state)

    def _exec(self, name: str, plan: int, idata: int, odata: int, direction: int) -> int:
        state = self.plans.get(plan) if plan else None
        desc = state.desc if state is not None else None
        if desc is None or EXEC_TYPES[name] != desc.type:
            return R.HIPFFT_INVALID_PLAN
        if not idata or not odata or not direction_ok(direction):
            return R.HIPFFT_INVALID_VALUE
        in_place = idata == odata
        if in_place and not desc.in_place_ok:
            return R.HIPFFT_INVALID_VALUE
        return self._run(state, idata, odata, direction, in_place)  # type: ignore[arg-type]

    def hipfftExecC2C(self, plan: int, idata: int, odata: int, direction: int) -> int:
        return self._exec("hipfftExecC2C", plan, idata, odata, direction)

    def hipfftExecZ2Z(self, plan: int, idata: int, odata: int, direction: int) -> int:
        return self._exec("hipfftExecZ2Z", plan, idata, odata, direction)

    def hipfftExecR2C(self, plan: int, idata: int, odata: int) -> int:
        return self._exec("hipfftExecR2C", plan, idata, odata, -1)

    def hipfftExecD2Z(self, plan: int, idata: int, odata: int) -> int:
        return self._exec("hipfftExecD2Z", plan, idata, odata, -1)

    def hipfftExecC2R(self, plan: int, idata: int, odata: int) -> int:
        return self._exec("hipfftExecC2R", plan, idata, odata, 1)

    def hipfftExecZ2D(self, plan: int, idata: int, odata: int) -> int:
        return self._exec("hipfftExecZ2D", plan, idata, odata, 1)
