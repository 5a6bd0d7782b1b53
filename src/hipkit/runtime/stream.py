"""Streams and events.

Work queued on one stream runs in order; different streams may overlap.  The
null stream (``stream=None``) synchronizes with every blocking stream, as
HIP's legacy default stream does.

Example
-------
>>> s = hipkit.Stream()
>>> start, stop = hipkit.Event(), hipkit.Event()
>>> start.record(s); kernel.launch(grid, block, args, stream=s); stop.record(s)
>>> stop.synchronize(); start.elapsed_time(stop)   # milliseconds
"""

from __future__ import annotations

import weakref

from .._errors import HipError, hipError_t
from .device import Device, get_device


class _Handle:
    """A platform handle (stream or event) released when garbage-collected,
    unless a device reset already destroyed it."""

    def __init__(self, device: Device, handle: int, destroy):
        self.device = device
        self.handle = handle
        self._generation = device.platform.reset_generation(device._native)
        self._destroy_handle = destroy
        self._finalizer = weakref.finalize(self, _destroy, device, handle, self._generation, destroy)

    def destroy(self) -> None:
        """Release it now (hipStreamDestroy / hipEventDestroy) rather than when
        garbage-collected, reporting errors; later use raises HipError."""
        self._check()
        self._finalizer.detach()
        self._generation = -1
        self._destroy_handle(self.device._native, self.handle)

    def _check(self) -> None:
        dev = self.device
        if dev.platform.reset_generation(dev._native) != self._generation:
            raise HipError(
                hipError_t.hipErrorInvalidHandle, f"this {type(self).__name__.lower()} was destroyed"
            )


def _destroy(device: Device, handle: int, generation: int, destroy) -> None:
    if device.platform.reset_generation(device._native) == generation:
        try:
            destroy(device._native, handle)
        except HipError:
            pass  # a sticky error: destroyed by the next reset


def stream_handle(stream) -> int:
    """The platform handle of a stream given as a :class:`Stream`, None (the null
    stream), a raw handle, or another library's stream: an object with
    ``__cuda_stream__`` (cuda.core's protocol), ``cuda_stream`` (PyTorch) or ``ptr`` (CuPy)."""
    if stream is None:
        return 0
    if isinstance(stream, Stream):
        stream._check()
        return stream.handle
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for attribute in ("cuda_stream", "ptr"):
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    raise TypeError(f"not a stream: {type(stream).__name__} {stream!r:.60}")


def _not_owned(device: int, handle: int) -> None:
    """An external stream belongs to its library: hipkit never destroys it."""


class Stream(_Handle):
    """A queue of device work (hipStreamCreateWithFlags).

    Parameters
    ----------
    device
        Default: the current device.
    non_blocking
        hipStreamNonBlocking: do not synchronize with the null stream.
    external
        Wrap another library's stream instead of creating one (anything
        :func:`stream_handle` takes, e.g. ``torch.cuda.current_stream()``);
        hipkit does not destroy it.
    """

    def __init__(self, device: Device | None = None, non_blocking: bool = False, *, external=None):
        device = device or get_device()
        platform = device.platform
        if external is not None:
            super().__init__(device, stream_handle(external), _not_owned)
        else:
            super().__init__(
                device, platform.stream_create(device._native, non_blocking), platform.stream_destroy
            )
        self.non_blocking = non_blocking

    @property
    def native_handle(self) -> int:
        """The platform's own handle of this stream, for a vendor library that takes one
        (CUDA's ``CUstream``/``cudaStream_t``, ROCm's ``hipStream_t``, the CPU runtime's
        stream); the null stream is 0.  HipError(hipErrorInvalidHandle) once destroyed."""
        self._check()
        return self.handle

    @property
    def __cuda_stream__(self):
        """cuda.core's stream protocol (GPU platforms): ``(0, handle)``, so that
        cuda.core, CuPy and others can use this stream."""
        if not self.device.platform.cuda_array_interface:
            raise AttributeError(f"{self.device.platform.name} streams are not CUDA streams")
        self._check()
        return lambda: (0, self.handle)

    def synchronize(self) -> None:
        """Wait until all work queued on the stream is done."""
        self._check()
        self.device.platform.stream_synchronize(self.device._native, self.handle)

    def query(self) -> bool:
        """True if all queued work is done (hipStreamQuery)."""
        self._check()
        return self.device.platform.stream_query(self.device._native, self.handle)

    def wait(self, event: Event) -> None:
        """Make later work on this stream wait for ``event`` (hipStreamWaitEvent)."""
        self._check()
        event._check()
        self.device.platform.stream_wait_event(self.device._native, self.handle, event.handle)

    def record(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one if None) on this stream and return it."""
        event = event or Event(self.device)
        event.record(self)
        return event

    def __repr__(self) -> str:
        return f"<hipkit.Stream 0x{self.handle:x} on {self.device!r}>"


class Event(_Handle):
    """A marker in a stream (hipEventCreateWithFlags).

    Parameters
    ----------
    timing
        False: hipEventDisableTiming (no timestamp, cheaper).
    blocking
        hipEventBlockingSync: ``synchronize`` sleeps instead of spinning.
    """

    def __init__(self, device: Device | None = None, timing: bool = True, blocking: bool = False):
        device = device or get_device()
        platform = device.platform
        super().__init__(
            device, platform.event_create(device._native, timing, blocking), platform.event_destroy
        )

    def record(self, stream: Stream | None = None) -> Event:
        """Record the event on ``stream`` (None: the null stream)."""
        self._check()
        self.device.platform.event_record(self.device._native, self.handle, stream_handle(stream))
        return self

    def synchronize(self) -> None:
        """Wait until the work before the event's record is done."""
        self._check()
        self.device.platform.event_synchronize(self.device._native, self.handle)

    def query(self) -> bool:
        """True if the event has completed (hipEventQuery)."""
        self._check()
        return self.device.platform.event_query(self.device._native, self.handle)

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event to ``end`` (hipEventElapsedTime)."""
        self._check()
        end._check()
        return self.device.platform.event_elapsed(self.device._native, self.handle, end.handle)

    def __repr__(self) -> str:
        return f"<hipkit.Event 0x{self.handle:x} on {self.device!r}>"
