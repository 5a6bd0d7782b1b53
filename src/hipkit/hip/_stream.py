"""Streams and events, HIP-named.

hipStreamCreate and hipEventCreate return the platform's handle (an int), the
same number the platform's own API would use; hipkit tracks it until
hipStreamDestroy / hipEventDestroy or a device reset.  Where a stream or event
is expected, a :class:`hipkit.Stream` / :class:`hipkit.Event` is accepted too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._errors import HipError, hipError_t
from ..runtime.device import Device, get_device
from ..runtime.stream import Event, Stream
from . import _state
from ._state import hip_api
from ._types import hipEventBlockingSync, hipEventDisableTiming, hipEventInterprocess, hipStreamNonBlocking


def stream_object(stream: Any) -> Stream | None:
    """The live Stream a stream argument names; None for the null stream (0/None)."""
    if stream is None or (isinstance(stream, (int, np.integer)) and stream == 0):
        return None
    obj = stream if isinstance(stream, Stream) else _state.streams.get(stream).obj
    obj._check()
    return obj


def resolve_stream(stream: Any, device: Device | None = None) -> tuple[Device, int]:
    """(device, platform handle) of a stream argument; 0/None is the null stream
    of ``device`` (default: the current device)."""
    obj = stream_object(stream)
    if obj is None:
        return device or get_device(), 0
    if device is not None and obj.device != device:
        raise HipError(hipError_t.hipErrorInvalidHandle, f"the stream is on {obj.device!r}, not {device!r}")
    return obj.device, obj.handle


def resolve_event(event: Any) -> Event:
    obj = event if isinstance(event, Event) else _state.events.get(event).obj
    obj._check()
    return obj


@hip_api
def hipStreamCreate() -> int:  # HIP's names
    """hipStreamCreate: a new blocking stream on the current device; returns its handle."""
    return hipStreamCreateWithFlags(0)


@hip_api
def hipStreamCreateWithFlags(flags: int) -> int:
    """hipStreamCreateWithFlags: a new stream; ``flags`` hipStreamDefault or hipStreamNonBlocking."""
    if flags not in (0, hipStreamNonBlocking):
        raise HipError(hipError_t.hipErrorInvalidValue, f"invalid stream flags {flags!r}")
    stream = Stream(get_device(), non_blocking=bool(flags))
    return _state.streams.add(stream.handle, stream, stream.device)


@hip_api
def hipStreamDestroy(stream: int) -> None:
    """hipStreamDestroy: destroy a stream from hipStreamCreate; its queued work completes."""
    if not stream:
        raise HipError(hipError_t.hipErrorInvalidHandle, "the null stream cannot be destroyed")
    obj: Stream = _state.streams.get(stream).obj
    obj.destroy()
    _state.streams.pop(stream)
    _state.orphan(obj.device, obj.handle)


@hip_api
def hipStreamSynchronize(stream=None) -> None:
    """hipStreamSynchronize: wait until the work queued on ``stream`` is done."""
    device, handle = resolve_stream(stream)
    device.platform.stream_synchronize(device._native, handle)
    _state.release(device, handle)


@hip_api
def hipStreamQuery(stream=None) -> hipError_t:
    """hipStreamQuery: hipSuccess if ``stream``'s work is done, else hipErrorNotReady
    (returned, not raised, and not recorded as the last error)."""
    device, handle = resolve_stream(stream)
    if not device.platform.stream_query(device._native, handle):
        return hipError_t.hipErrorNotReady
    _state.release(device, handle)
    return hipError_t.hipSuccess


@hip_api
def hipStreamWaitEvent(stream, event, flags: int = 0) -> None:
    """hipStreamWaitEvent: later work on ``stream`` waits until ``event`` completes;
    the event may be another device's (of the same platform), as in HIP."""
    if flags != 0:
        raise HipError(hipError_t.hipErrorInvalidValue, "hipStreamWaitEvent: flags must be 0")
    waited = resolve_event(event)
    device, handle = resolve_stream(stream)
    if device.platform is not waited.device.platform:
        raise HipError(
            hipError_t.hipErrorInvalidHandle, f"the event is on {waited.device!r}, the stream on {device!r}"
        )
    device.platform.stream_wait_event(device._native, handle, waited.handle)


@hip_api
def hipEventCreate() -> int:
    """hipEventCreate: a new event (timing enabled) on the current device; returns its handle."""
    return hipEventCreateWithFlags(0)


@hip_api
def hipEventCreateWithFlags(flags: int) -> int:
    """hipEventCreateWithFlags: a new event; ``flags`` an or of hipEventDefault,
    hipEventBlockingSync and hipEventDisableTiming."""
    if isinstance(flags, int) and flags & hipEventInterprocess:
        raise HipError(hipError_t.hipErrorNotSupported, "hipEventInterprocess is not supported")
    if not isinstance(flags, int) or flags & ~(hipEventBlockingSync | hipEventDisableTiming):
        raise HipError(hipError_t.hipErrorInvalidValue, f"invalid event flags {flags!r}")
    event = Event(
        get_device(), timing=not flags & hipEventDisableTiming, blocking=bool(flags & hipEventBlockingSync)
    )
    return _state.events.add(event.handle, event, event.device)


@hip_api
def hipEventDestroy(event: int) -> None:
    """hipEventDestroy: destroy an event from hipEventCreate."""
    obj: Event = _state.events.get(event).obj
    obj.destroy()
    _state.events.pop(event)


@hip_api
def hipEventRecord(event, stream=None) -> None:
    """hipEventRecord: record ``event`` on ``stream`` (0/None: the null stream)."""
    obj = resolve_event(event)
    device, handle = resolve_stream(stream, obj.device)
    device.platform.event_record(device._native, obj.handle, handle)


@hip_api
def hipEventSynchronize(event) -> None:
    """hipEventSynchronize: wait until the work before the event's record is done."""
    obj = resolve_event(event)
    obj.device.platform.event_synchronize(obj.device._native, obj.handle)


@hip_api
def hipEventQuery(event) -> hipError_t:
    """hipEventQuery: hipSuccess if the event has completed, else hipErrorNotReady (returned)."""
    obj = resolve_event(event)
    done = obj.device.platform.event_query(obj.device._native, obj.handle)
    return hipError_t.hipSuccess if done else hipError_t.hipErrorNotReady


@hip_api
def hipEventElapsedTime(start, stop) -> float:
    """hipEventElapsedTime: milliseconds between two recorded, completed events."""
    first, last = resolve_event(start), resolve_event(stop)
    return first.device.platform.event_elapsed(first.device._native, first.handle, last.handle)
