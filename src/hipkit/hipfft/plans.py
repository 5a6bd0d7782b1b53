"""hipFFT's plans over the platforms' providers (their ``fft`` face).

A plan is made on the current device, with the provider of that device's platform,
and is known here until destroyed: a call with a plan not in :data:`live` answers
HIPFFT_INVALID_PLAN without reaching the provider.  Every call passes the hook point
(the profiler's API rows), named by hipFFT.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .. import platforms
from ..platforms.base.fft import FftLibrary, FftUnavailable, hipfftResult
from ..runtime import hooks
from ..runtime.device import Device, get_device
from ..runtime.stream import stream_handle

__all__ = ["HipfftError", "PlanState", "call", "library_of", "live", "provider", "state_of"]

R = hipfftResult


class HipfftError(RuntimeError):
    """A hipFFT function answered a result other than HIPFFT_SUCCESS.

    ``result`` is the hipfftResult (an int where hipFFT has no such code),
    ``function`` the hipFFT function that answered it, ``detail`` what hipkit knows
    beyond the code.

    Example
    -------
    >>> try:
    ...     hipfft.hipfftPlan1d(0, hipfft.HIPFFT_C2C, 1)
    ... except hipfft.HipfftError as exc:
    ...     exc.result
    <hipfftResult.HIPFFT_INVALID_SIZE: 8>
    """

    def __init__(self, result: int, function: str, detail: str = ""):
        known = result in hipfftResult._value2member_map_
        self.result = hipfftResult(result) if known else result
        self.function = function
        self.detail = detail
        name = hipfftResult(result).name if known else "unknown hipfftResult"
        text = f"{function}: {name} ({int(result)})"
        super().__init__(f"{text}: {detail}" if detail else text)


class PlanState:
    """A live plan: its device and its provider."""

    __slots__ = ("device", "functions", "generation", "library")

    def __init__(self, device: Device, library: FftLibrary):
        self.device = device
        self.library = library
        self.functions: dict[str, Callable[..., int]] = {}
        self.generation = device.platform.reset_generation(device._native)

    def function(self, name: str) -> Callable[..., int]:
        found = self.functions.get(name)
        if found is None:
            found = self.functions[name] = function_of(self.library, name)
        return found


live: dict[int, PlanState] = {}
_libraries: dict[str, FftLibrary] = {}
_lock = threading.Lock()


def library_of(device: Device, function: str) -> FftLibrary:
    """The provider of ``device``'s platform, loaded once; HIPFFT_SETUP_FAILED (saying
    what is missing) where the platform has none here."""
    name = device.platform.name
    library = _libraries.get(name)
    if library is not None:
        return library
    with _lock:
        if name not in _libraries:
            loader = platforms.faces(name).load("fft")
            if loader is None:
                raise HipfftError(R.HIPFFT_SETUP_FAILED, function, f"the {name} platform serves no FFT")
            try:
                _libraries[name] = loader()
            except FftUnavailable as exc:
                raise HipfftError(R.HIPFFT_SETUP_FAILED, function, f"{name}: {exc}") from exc
        return _libraries[name]


def function_of(library: FftLibrary, name: str) -> Callable[..., int]:
    try:
        return library.function(name)
    except KeyError:
        raise HipfftError(R.HIPFFT_NOT_IMPLEMENTED, name, f"{library.description} has no {name}") from None


def provider(device: Device | None = None) -> str:
    """The library that serves hipFFT on ``device``'s platform (default: the current
    device), with its version: "scipy.fft 1.17.1 (pocketfft), 2 workers", "cuFFT
    12.0.0".  HipfftError(HIPFFT_SETUP_FAILED), saying what to install, where the
    platform has none here."""
    return library_of(device or get_device(), "provider").description


def call(name: str, function: Callable[..., int], *args: Any) -> None:
    """Call a provider's function as hipFFT function ``name``, through the tools at the
    hook point; a result other than success raises."""
    tool = hooks.api
    result = function(*args) if tool is None else tool(name, function, args, {})
    if result:
        raise HipfftError(result, name)


def state_of(plan: Any, function: str) -> PlanState:
    """The live plan ``plan``; HIPFFT_INVALID_PLAN where there is none (or its device
    was reset since, which took it)."""
    try:
        state = live.get(plan)
    except TypeError:  # unhashable
        state = None
    if state is None:
        raise HipfftError(R.HIPFFT_INVALID_PLAN, function, f"{plan!r} is not a live hipfftHandle")
    if state.device.platform.reset_generation(state.device._native) != state.generation:
        live.pop(plan, None)
        raise HipfftError(R.HIPFFT_INVALID_PLAN, function, f"{plan!r}: its device was reset since")
    return state


def new_plan(function: str, make: Callable[[FftLibrary, int], None]) -> int:
    """A plan made on the current device by ``make(library, address of the handle)``."""
    device = get_device()
    library = library_of(device, function)
    device.set_current()  # the vendor library makes its plan on this device...
    library.set_device(device._native)  # ...or is told it (the CPU's provider)
    slot = ctypes.c_uint64(0)
    make(library, ctypes.addressof(slot))
    handle = slot.value
    live[handle] = PlanState(device, library)
    return handle


def int_array(values: Sequence[int] | None, rank: int, function: str, name: str) -> Any:
    """A C array of ``rank`` ints (None: NULL)."""
    if values is None:
        return None
    values = list(values)
    if len(values) != rank:
        raise HipfftError(R.HIPFFT_INVALID_SIZE, function, f"{name}: {len(values)} values for rank {rank}")
    return (ctypes.c_int * rank)(*values)


def native_stream(stream: Any) -> int:
    return stream_handle(stream) if stream is not None else 0
