"""What every hipkit.blas call needs: its operands as device arrays on one device,
and that device's handle for this thread, on the call's stream.

Handles are made once per (device, thread) and kept; a call sets the handle's
stream and pointer mode only when they change.  Tensors of other libraries
(NumPy on the CPU, PyTorch, CuPy) are viewed in place; the views are kept until
the work queued on them is done (an event recorded after it), so that a temporary
tensor cannot be freed under the work.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import hipblas
from ..runtime.device import Device, get_device
from ..runtime.memory import DeviceArray, from_dlpack
from ..runtime.stream import Event, Stream, stream_handle
from ._layout import vector
from ._types import dtype_of, same_dtype

HOST_MODE = hipblas.HIPBLAS_POINTER_MODE_HOST
DEVICE_MODE = hipblas.HIPBLAS_POINTER_MODE_DEVICE


class Handle:
    """One device's hipBLAS handle for one thread: its stream and pointer mode as set,
    and the foreign tensors of work in flight."""

    __slots__ = ("__weakref__", "device", "device_mode", "generation", "handle", "pending", "stream")

    def __init__(self, device: Device):
        with device:
            self.handle = hipblas.hipblasCreate()
        self.device = device
        self.generation = device.platform.reset_generation(device._native)
        self.stream = 0
        self.device_mode = False
        self.pending: list[tuple[Event, list[Any]]] = []
        finalizer = weakref.finalize(self, _destroy, self.handle)
        finalizer.atexit = False  # at exit the provider may be gone: the process frees it

    def reset(self) -> bool:
        """Whether the device was reset since (the handle went with it: make another)."""
        return self.device.platform.reset_generation(self.device._native) != self.generation

    def use(self, stream: Any) -> int:
        """The handle, with its stream set to ``stream`` (None: the null stream)."""
        if stream is None:
            native = 0
        else:
            if isinstance(stream, Stream) and stream.device != self.device:
                raise ValueError(f"stream: {stream!r} is not on the arrays' device {self.device!r}")
            native = stream_handle(stream)
        if native != self.stream:
            hipblas.hipblasSetStream(self.handle, native)
            self.stream = native
        if self.pending:
            self._release()
        return self.handle

    def pointer_mode(self, device_mode: bool) -> None:
        if device_mode != self.device_mode:
            hipblas.hipblasSetPointerMode(self.handle, DEVICE_MODE if device_mode else HOST_MODE)
            self.device_mode = device_mode

    def keep(self, objects: list[Any], stream: Any) -> None:
        """Keep ``objects`` until the work queued on ``stream`` so far is done."""
        event = Event(self.device, timing=False)
        event.record(stream)
        self.pending.append((event, objects))

    def _release(self) -> None:
        pending = self.pending
        while pending and pending[0][0].query():
            del pending[0]


def _destroy(handle: int) -> None:
    try:
        hipblas.hipblasDestroy(handle)
    except hipblas.HipblasError:
        pass  # a device reset took it


class _Handles(threading.local):
    def __init__(self) -> None:
        self.by_device: dict[tuple[Any, int], Handle] = {}
        self.last: Handle | None = None


_handles = _Handles()


def handle_of(device: Device) -> Handle:
    """This thread's handle on ``device`` (made on first use)."""
    local = _handles
    last = local.last
    if last is not None and last.device is device and not last.reset():
        return last
    key = (device.platform, device.index)
    handle = local.by_device.get(key)
    if handle is None or handle.reset():
        handle = local.by_device[key] = Handle(device)
    local.last = handle
    return handle


class Operands:
    """The device of a call and its operands as device arrays (the foreign ones kept
    for :meth:`Handle.keep`)."""

    __slots__ = ("device", "foreign")

    def __init__(self, *arrays: Any):
        self.device: Device | None = None
        self.foreign: list[Any] = []
        for value in arrays:
            if type(value) is DeviceArray or isinstance(value, DeviceArray):
                self.device = value.device
                break

    def array(self, value: Any, name: str) -> DeviceArray:
        """``value`` as a device array on the call's device (ValueError otherwise)."""
        if type(value) is DeviceArray or isinstance(value, DeviceArray):
            if self.device is None:
                self.device = value.device
            elif value.device is not self.device and value.device != self.device:
                raise ValueError(f"{name}: on {value.device!r}, the other arrays on {self.device!r}")
            return value
        return self._foreign(value, name)

    def _foreign(self, value: Any, name: str) -> DeviceArray:
        if self.device is None:
            self.device = get_device()
        if not hasattr(value, "__dlpack__"):
            if hasattr(value, "__cuda_array_interface__"):
                return self._interface(value, name)
            raise TypeError(
                f"{name}: expected a hipkit DeviceArray or a DLPack tensor, got {type(value).__name__}"
            )
        try:
            array = from_dlpack(value, self.device)
        except BufferError as exc:
            text = str(exc)
            if "dtype" in text:
                raise TypeError(f"{name}: {text}") from None
            raise ValueError(f"{name}: {text} (the other arrays are on {self.device!r})") from None
        self.foreign.append(array)
        return array

    def _interface(self, value: Any, name: str) -> DeviceArray:
        device = self.device
        assert device is not None
        if not device.platform.cuda_array_interface:
            raise ValueError(f"{name}: a CUDA array, the other arrays on {device!r}")
        interface = value.__cuda_array_interface__
        dtype = np.dtype(interface["typestr"])
        array = DeviceArray(
            interface["shape"],
            dtype,
            ptr=interface["data"][0],
            owner=value,
            device=device,
            strides=interface.get("strides"),
        )
        self.foreign.append(array)
        return array


class Call:
    """One call of a routine: its operands (``named``: argument name -> value) as
    device arrays of one dtype, the routine of that dtype in ``table``, the handle on
    the stream."""

    __slots__ = ("arrays", "dtype", "h", "handle", "operands", "routine", "stream")

    def __init__(self, table: dict[np.dtype, Callable[..., Any]], stream: Any, **named: Any):
        operands = self.operands = Operands(*named.values())
        arrays = self.arrays = [operands.array(value, name) for name, value in named.items()]
        names = list(named)
        self.routine = dtype_of(table, arrays[0], names[0])
        self.dtype = arrays[0].dtype
        for array, name in zip(arrays[1:], names[1:], strict=True):
            same_dtype(array, self.dtype, name, names[0])
        self.handle = handle_of(operands.device)  # type: ignore[arg-type]
        self.h = self.handle.use(stream)
        self.stream = stream

    def pair(self) -> tuple[int, int, int, int, int]:
        """(n, px, incx, py, incy) of two vectors of one length."""
        n, px, incx = vector(self.arrays[0], "x")
        ny, py, incy = vector(self.arrays[1], "y")
        if ny != n:
            raise ValueError(f"y: length {ny}, x's is {n}")
        return n, px, incx, py, incy

    def done(self) -> None:
        if self.operands.foreign:
            self.handle.keep(self.operands.foreign, self.stream)

    def result(self, run: Callable[..., Any], out: Any, dtype: np.dtype) -> Any:
        """A reduction's value (host pointer mode), or, with ``out`` (device memory of
        one element of ``dtype``), written there and ``out`` returned."""
        if out is None:
            value = run()
            self.done()
            return value
        target = self.operands.array(out, "out")
        same_dtype(target, dtype, "out", "the result")
        if target.size != 1:
            raise ValueError(f"out: shape {target.shape}: a reduction writes one element")
        self.handle.pointer_mode(True)
        try:
            run(target.ptr)
        finally:
            self.handle.pointer_mode(False)  # hipkit.blas's handles are in host mode between calls
        self.done()
        return out
