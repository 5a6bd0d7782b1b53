"""What the HIP-named layer keeps: this thread's last error, and the handles
it gave out (allocations, streams, events, modules, functions).

Every handle is checked before it reaches a platform: an unknown one, or one
that a device reset destroyed, raises HipError instead of passing a bad
pointer down.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from .._errors import HipError, hipError_t
from ..runtime import hooks
from ..runtime.device import Device

F = TypeVar("F", bound=Callable[..., Any])

_thread = threading.local()


def last_error() -> int:
    return getattr(_thread, "last_error", 0)


def set_last_error(code: int) -> None:
    _thread.last_error = code


def hip_api(fn: F) -> F:
    """Record the code of a HipError that ``fn`` raises as this thread's last
    error (hipGetLastError).  Successful calls leave it, as CUDA and ROCm 6 do.
    With tools at the hook point (runtime/hooks.py), the call goes through each."""
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            tool = hooks.api
            if tool is None:
                return fn(*args, **kwargs)
            return tool(name, fn, args, kwargs)
        except HipError as exc:
            _thread.last_error = int(exc.code)
            raise

    return wrapper  # type: ignore[return-value]


def generation(device: Device) -> int:
    return device.platform.reset_generation(device._native)


@dataclass
class Entry:
    """One handle given out: what it stands for, on which device, since which reset."""

    obj: Any
    device: Device
    generation: int
    owner: int = 0  # a function's module


class Table:
    """Handles of one kind.  ``code`` is the error for a handle not in the table."""

    def __init__(self, what: str, code: int):
        self.what = what
        self.code = code
        self._items: dict[int, Entry] = {}
        self._lock = threading.Lock()

    def add(self, handle: int, obj: Any, device: Device, owner: int = 0) -> int:
        with self._lock:
            self._items[handle] = Entry(obj, device, generation(device), owner)
        return handle

    def get(self, handle: Any) -> Entry:
        handle = _as_int(handle)
        entry = self._items.get(handle) if handle is not None else None
        if entry is None:
            shown = f"0x{handle:x}" if handle is not None else "this"
            raise HipError(self.code, f"{shown} is not a live {self.what}")
        if generation(entry.device) != entry.generation:
            self.discard(lambda e: e is entry)
            raise HipError(self.code, f"0x{handle:x}: this {self.what} was destroyed by a device reset")
        return entry

    def pop(self, handle: Any) -> Entry:
        entry = self.get(handle)
        self.discard(lambda e: e is entry)
        return entry

    def items(self) -> list[tuple[int, Entry]]:
        with self._lock:
            return list(self._items.items())

    def discard(self, which: Callable[[Entry], bool]) -> list[Entry]:
        """Forget the entries ``which`` selects; return them."""
        with self._lock:
            gone = [h for h, e in self._items.items() if which(e)]
            return [self._items.pop(h) for h in gone]


def _as_int(handle: Any) -> int | None:
    if isinstance(handle, (int, np.integer)) and not isinstance(handle, bool):
        return int(handle)
    return None


INVALID_HANDLE = hipError_t.hipErrorInvalidHandle
INVALID_VALUE = hipError_t.hipErrorInvalidValue

device_memory = Table("hipMalloc pointer", INVALID_VALUE)
host_memory = Table("hipHostMalloc pointer", INVALID_VALUE)
streams = Table("stream", INVALID_HANDLE)
events = Table("event", INVALID_HANDLE)
modules = Table("module", INVALID_HANDLE)
functions = Table("function", INVALID_HANDLE)
TABLES = (device_memory, host_memory, streams, events, modules, functions)


# Python buffers that queued asynchronous copies read or write, kept alive until
# the host has synchronized with their stream (HIP leaves that to the caller;
# in Python a temporary array would otherwise be freed under the copy).
_in_flight: dict[tuple[Device, int | None], list[Any]] = {}
_in_flight_lock = threading.Lock()


def keep_alive(device: Device, stream: int, objects: list[Any]) -> None:
    if objects:
        with _in_flight_lock:
            _in_flight.setdefault((device, stream), []).extend(objects)


def release(device: Device, stream: int | None = None, *, everything: bool = False) -> None:
    """The host has synchronized with ``stream`` (or, ``everything``, the device)."""
    with _in_flight_lock:
        for key in [k for k in _in_flight if k[0] == device and (everything or k[1] == stream)]:
            del _in_flight[key]


def orphan(device: Device, stream: int) -> None:
    """``stream`` is destroyed: its buffers wait for the next device synchronize."""
    with _in_flight_lock:
        kept = _in_flight.pop((device, stream), [])
        if kept:
            _in_flight.setdefault((device, None), []).extend(kept)
