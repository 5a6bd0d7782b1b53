"""hipBLAS's handles and the functions of the handle, over the platforms' providers.

A handle is made on the current device, with the provider of that device's
platform (its ``blas`` face), and is known here until destroyed: a call with a
handle not in :data:`live` answers HIPBLAS_STATUS_NOT_INITIALIZED without reaching
the provider.  What a routine's wrapper needs of its handle (the device, the
provider's functions, the pointer mode) is kept in its :class:`HandleState`, so that
a call makes no C call beyond the routine.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Any

from .. import platforms
from ..platforms.base.blas import BlasLibrary, BlasUnavailable
from ..runtime import hooks
from ..runtime.device import Device, get_device
from ..runtime.memory import device_pointer as foreign_pointer
from ..runtime.stream import stream_handle
from ..tables import blas_api
from ._args import host_pointer
from ._enums import hipblasAtomicsMode_t, hipblasMath_t, hipblasPointerMode_t, hipblasStatus_t
from ._status import HipblasError

NOT_INITIALIZED = hipblasStatus_t.HIPBLAS_STATUS_NOT_INITIALIZED
NOT_SUPPORTED = hipblasStatus_t.HIPBLAS_STATUS_NOT_SUPPORTED
DEVICE_MODE = hipblasPointerMode_t.HIPBLAS_POINTER_MODE_DEVICE

# Every routine of blas_api by its index: a wrapper finds its provider's function at
# that index of the handle's Library.functions, a list lookup.
ROUTINES = blas_api.routines()


class Library:
    """One platform's provider, and its functions as found (None until first called)."""

    def __init__(self, blas: BlasLibrary):
        self.blas = blas
        self.functions: list[Callable[..., int] | None] = [None] * len(ROUTINES)
        self._handle_functions: dict[str, Callable[..., int]] = {}

    def routine(self, index: int) -> Callable[..., int]:
        """The provider's function of ROUTINES[index]; NOT_SUPPORTED where it has none."""
        name = ROUTINES[index].name
        try:
            function = self.blas.function(name)
        except KeyError:
            raise HipblasError(NOT_SUPPORTED, name, f"{self.blas.description} has no {name}") from None
        self.functions[index] = function
        return function

    def handle_function(self, name: str) -> Callable[..., int]:
        function = self._handle_functions.get(name)
        if function is None:
            try:
                function = self._handle_functions[name] = self.blas.function(name)
            except KeyError:
                raise HipblasError(NOT_SUPPORTED, name, f"{self.blas.description} has no {name}") from None
        return function


class HandleState:
    """What hipkit keeps of a live handle."""

    __slots__ = ("device", "device_mode", "functions", "generations", "handle", "library", "native")

    def __init__(self, handle: int, device: Device, library: Library):
        self.handle = handle
        self.device = device
        self.library = library
        self.functions = library.functions
        self.device_mode = False  # HIPBLAS_POINTER_MODE_HOST, hipBLAS's default
        # A device reset takes the handle with the device's context: a call on it then
        # would reach the vendor library with a dead context (a crash on cuBLAS).
        self.native = device._native
        self.generations = (device.platform, device.platform.reset_generation(self.native))

    def reset(self) -> bool:
        """Whether the device was reset since the handle was made (then it is gone)."""
        platform, generation = self.generations
        return platform.reset_generation(self.native) != generation


# The live handles, by their value.
live: dict[int, HandleState] = {}
_libraries: dict[str, Library] = {}
_lock = threading.Lock()


def library_of(device: Device, function: str) -> Library:
    """The provider of ``device``'s platform, loaded once; NOT_INITIALIZED (saying
    what is missing) where the platform has none here."""
    name = device.platform.name
    library = _libraries.get(name)
    if library is not None:
        return library
    with _lock:
        if name not in _libraries:
            loader = platforms.faces(name).load("blas")
            if loader is None:
                raise HipblasError(NOT_INITIALIZED, function, f"the {name} platform serves no BLAS")
            try:
                _libraries[name] = Library(loader())
            except BlasUnavailable as exc:
                raise HipblasError(NOT_INITIALIZED, function, f"{name}: {exc}") from exc
        return _libraries[name]


def provider(device: Device | None = None) -> str:
    """The library that serves hipBLAS on ``device``'s platform (default: the current
    device), with its version: "OpenBLAS 0.3.34 (scipy-openblas32), 2 threads",
    "cuBLAS 13.1.0".  HipblasError(HIPBLAS_STATUS_NOT_INITIALIZED), saying what to
    install, where the platform has none here."""
    return library_of(device or get_device(), "provider").blas.description


def not_initialized(function: str, handle: Any) -> HipblasError:
    shown = f"0x{handle:x}" if isinstance(handle, int) else repr(handle)
    return HipblasError(NOT_INITIALIZED, function, f"{shown} is not a live hipblasHandle_t")


def state_of(handle: Any, function: str) -> HandleState:
    try:
        state = live.get(handle)
    except TypeError:  # unhashable
        state = None
    if state is None:
        raise not_initialized(function, handle)
    if state.reset():
        raise reset_took(function, handle)
    return state


def reset_took(function: str, handle: int) -> HipblasError:
    """The error of a call on a handle whose device was reset since (forgotten now)."""
    live.pop(handle, None)
    return HipblasError(NOT_INITIALIZED, function, f"0x{handle:x}: its device was reset since it was made")


def call(name: str, function: Callable[..., int], *args: Any) -> None:
    """Call a provider's function as hipBLAS function ``name``, through the tools at
    the hook point (their API rows); a status other than success raises."""
    tool = hooks.api
    status = function(*args) if tool is None else tool(name, function, args, {})
    if status:
        raise HipblasError(status, name)


def _on(handle: Any, name: str, *args: Any) -> HandleState:
    """Call the handle's function ``name`` with the handle and ``args``; its state."""
    state = state_of(handle, name)
    call(name, state.library.handle_function(name), handle, *args)
    return state


# ------------------------------------------------------------------ the handle's functions


def hipblasCreate() -> int:
    """A new handle on the current device (its stream: the null stream; pointer mode:
    host)."""
    device = get_device()
    library = library_of(device, "hipblasCreate")
    device.set_current()  # the vendor library makes its handle on this device...
    library.blas.set_device(device._native)  # ...or is told it (the CPU's provider)
    slot = ctypes.c_void_p()
    call("hipblasCreate", library.handle_function("hipblasCreate"), ctypes.addressof(slot))
    handle = slot.value or 0
    live[handle] = HandleState(handle, device, library)
    return handle


def hipblasDestroy(handle: int) -> None:
    """Release the handle; any later use answers HIPBLAS_STATUS_NOT_INITIALIZED."""
    _on(handle, "hipblasDestroy")
    live.pop(handle, None)


def hipblasSetStream(handle: int, streamId: Any) -> None:
    """Queue the handle's work on ``streamId``: a hipkit Stream, 0 or None (the null
    stream), or a native stream handle (an int, or a stream of another library)."""
    state_of(handle, "hipblasSetStream")
    _on(handle, "hipblasSetStream", stream_handle(streamId))


def hipblasGetStream(handle: int) -> int:
    """The native handle of the handle's stream (0: the null stream)."""
    state = state_of(handle, "hipblasGetStream")
    slot = ctypes.c_void_p()
    call(
        "hipblasGetStream", state.library.handle_function("hipblasGetStream"), handle, ctypes.addressof(slot)
    )
    return slot.value or 0


def _get_int(handle: int, name: str) -> int:
    slot = ctypes.c_int()
    _on(handle, name, ctypes.addressof(slot))
    return slot.value


def hipblasSetPointerMode(handle: int, mode: int) -> None:
    """Where scalars and results are: HIPBLAS_POINTER_MODE_HOST (Python numbers in,
    values out) or HIPBLAS_POINTER_MODE_DEVICE (device pointers both ways)."""
    state = _on(handle, "hipblasSetPointerMode", mode)
    state.device_mode = mode == DEVICE_MODE


def hipblasGetPointerMode(handle: int) -> hipblasPointerMode_t:
    """The handle's pointer mode."""
    return hipblasPointerMode_t(_get_int(handle, "hipblasGetPointerMode"))


def hipblasSetAtomicsMode(handle: int, atomics_mode: int) -> None:
    """Whether the handle's routines may use atomics."""
    state = state_of(handle, "hipblasSetAtomicsMode")
    call(
        "hipblasSetAtomicsMode", state.library.handle_function("hipblasSetAtomicsMode"), handle, atomics_mode
    )


def hipblasGetAtomicsMode(handle: int) -> hipblasAtomicsMode_t:
    """The handle's atomics mode."""
    return hipblasAtomicsMode_t(_get_int(handle, "hipblasGetAtomicsMode"))


def hipblasSetMathMode(handle: int, mode: int) -> None:
    """The handle's math mode (TF32 only with HIPBLAS_TF32_TENSOR_OP_MATH)."""
    _on(handle, "hipblasSetMathMode", mode)


def hipblasGetMathMode(handle: int) -> hipblasMath_t:
    """The handle's math mode."""
    return hipblasMath_t(_get_int(handle, "hipblasGetMathMode"))


def hipblasGetVersion(handle: int) -> int:
    """hipBLAS's version as one number, as hipBLAS encodes it."""
    return _get_int(handle, "hipblasGetVersion")


# ------------------------------------------------------------------ host <-> device copies


def _copy(name: str, *args: Any) -> None:
    device = get_device()
    call(name, library_of(device, name).handle_function(name), *args)


def _device(value: Any, name: str, param: str) -> int:
    return value if type(value) is int else foreign_pointer(value, get_device(), name, param)


def hipblasSetVector(n: int, elemSize: int, x: Any, incx: int, y: Any, incy: int) -> None:
    """Copy ``n`` elements of ``elemSize`` bytes, ``incx`` apart in host memory ``x``
    (a NumPy array, a buffer or an address), to device memory ``y``, ``incy`` apart."""
    source, keep = host_pointer(x, "hipblasSetVector", "x", writable=False)
    _copy("hipblasSetVector", n, elemSize, source, incx, _device(y, "hipblasSetVector", "y"), incy)
    del keep


def hipblasGetVector(n: int, elemSize: int, x: Any, incx: int, y: Any, incy: int) -> None:
    """Copy ``n`` elements from device memory ``x`` to host memory ``y``."""
    target, keep = host_pointer(y, "hipblasGetVector", "y", writable=True)
    _copy("hipblasGetVector", n, elemSize, _device(x, "hipblasGetVector", "x"), incx, target, incy)
    del keep


def hipblasSetMatrix(rows: int, cols: int, elemSize: int, AP: Any, lda: int, BP: Any, ldb: int) -> None:
    """Copy a column-major ``rows`` x ``cols`` matrix from host memory ``AP`` (columns
    ``lda`` elements apart) to device memory ``BP`` (``ldb`` apart)."""
    source, keep = host_pointer(AP, "hipblasSetMatrix", "AP", writable=False)
    _copy("hipblasSetMatrix", rows, cols, elemSize, source, lda, _device(BP, "hipblasSetMatrix", "BP"), ldb)
    del keep


def hipblasGetMatrix(rows: int, cols: int, elemSize: int, AP: Any, lda: int, BP: Any, ldb: int) -> None:
    """Copy a column-major matrix from device memory ``AP`` to host memory ``BP``."""
    target, keep = host_pointer(BP, "hipblasGetMatrix", "BP", writable=True)
    _copy("hipblasGetMatrix", rows, cols, elemSize, _device(AP, "hipblasGetMatrix", "AP"), lda, target, ldb)
    del keep
