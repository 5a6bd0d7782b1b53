"""Memory, HIP-named: hipMalloc/hipFree, hipHostMalloc/hipHostFree, hipMemcpy,
hipMemset and its D8/D16/D32 forms, hipMemGetInfo.

Pointers are ints.  Where a copy reads or writes host memory, the argument may
also be any object with the buffer protocol (a NumPy array, a bytearray); it is
checked to be contiguous, large enough and, as a destination, writable.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .._errors import HipError, hipError_t
from ..runtime.device import get_device
from ..runtime.memory import DeviceArray
from . import _state
from ._device import device_by_id
from ._state import hip_api
from ._stream import resolve_stream
from ._types import (
    hipHostMallocCoherent,
    hipHostMallocMapped,
    hipHostMallocNonCoherent,
    hipHostMallocNumaUser,
    hipHostMallocPortable,
    hipHostMallocWriteCombined,
    hipMemcpyKind,
)

_HOST_MALLOC_FLAGS = (
    hipHostMallocPortable
    | hipHostMallocMapped
    | hipHostMallocWriteCombined
    | hipHostMallocNumaUser
    | hipHostMallocCoherent
    | hipHostMallocNonCoherent
)

K = hipMemcpyKind
# Which side of a copy may be host memory: (dst, src).
_HOST_SIDES = {
    K.hipMemcpyHostToHost: (True, True),
    K.hipMemcpyHostToDevice: (False, True),
    K.hipMemcpyDeviceToHost: (True, False),
    K.hipMemcpyDeviceToDevice: (False, False),
    K.hipMemcpyDefault: (True, True),
}


def _size(value: Any, what: str = "size") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise HipError(hipError_t.hipErrorInvalidValue, f"{what} must be a non-negative int, got {value!r}")
    return int(value)


def pointer(value: Any, nbytes: int, what: str, *, host_ok: bool, writable: bool = False) -> tuple[int, Any]:
    """(address, object to keep alive) of a copy's ``dst`` or ``src``: an int
    address, None, a ctypes.c_void_p, a hipkit.DeviceArray, or (where ``host_ok``)
    a buffer-protocol object of at least ``nbytes`` bytes."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value), None
    if value is None:
        return 0, None
    if isinstance(value, ctypes.c_void_p):
        return value.value or 0, None
    if isinstance(value, DeviceArray):
        value._check()
        if not value.is_contiguous or value.nbytes < nbytes:
            raise HipError(
                hipError_t.hipErrorInvalidValue,
                f"{what}: a contiguous device array of at least {nbytes} bytes is needed",
            )
        return value.ptr, value
    try:
        view = memoryview(value)
    except TypeError:
        raise HipError(
            hipError_t.hipErrorInvalidValue,
            f"{what}: expected a pointer (int) or a buffer, got {type(value).__name__}",
        ) from None
    if not host_ok:
        raise HipError(
            hipError_t.hipErrorInvalidValue, f"{what} is a host buffer, but the copy kind says device memory"
        )
    if not view.contiguous:
        raise HipError(hipError_t.hipErrorInvalidValue, f"{what}: the buffer is not contiguous")
    if view.nbytes < nbytes:
        raise HipError(
            hipError_t.hipErrorInvalidValue,
            f"{what}: the buffer has {view.nbytes} bytes, the copy needs {nbytes}",
        )
    if writable and view.readonly:
        raise HipError(hipError_t.hipErrorInvalidValue, f"{what}: the buffer is read-only")
    # NumPy reads the address of any contiguous buffer, read-only ones included.
    array = np.frombuffer(view, np.uint8) if view.c_contiguous else np.asarray(view)
    return array.ctypes.data, view


def _kind(kind: Any) -> hipMemcpyKind:
    try:
        return hipMemcpyKind(kind)
    except ValueError:
        raise HipError(hipError_t.hipErrorInvalidMemcpyDirection, f"invalid hipMemcpyKind {kind!r}") from None


@hip_api
def hipMalloc(size: int) -> int:  # HIP's names
    """hipMalloc: allocate ``size`` bytes of device memory; returns the pointer (0 for 0 bytes)."""
    size = _size(size)
    device = get_device()
    ptr = device.platform.malloc(device._native, size) if size else 0
    if ptr:
        _state.device_memory.add(ptr, size, device)
    return ptr


@hip_api
def hipFree(ptr: int) -> None:
    """hipFree: free memory from hipMalloc (waits for work that may use it); 0 is ignored."""
    if not ptr:
        return
    entry = _state.device_memory.get(ptr)
    entry.device.platform.free(entry.device._native, ptr)
    _state.device_memory.pop(ptr)


@hip_api
def hipHostMalloc(size: int, flags: int = 0) -> int:
    """hipHostMalloc: allocate ``size`` bytes of page-locked host memory; returns the pointer."""
    size = _size(size)
    if flags & ~_HOST_MALLOC_FLAGS or (flags & hipHostMallocCoherent and flags & hipHostMallocNonCoherent):
        raise HipError(hipError_t.hipErrorInvalidValue, f"invalid hipHostMalloc flags 0x{flags:x}")
    device = get_device()
    ptr = device.platform.host_malloc(size) if size else 0
    if ptr:
        _state.host_memory.add(ptr, size, device)
    return ptr


@hip_api
def hipHostFree(ptr: int) -> None:
    """hipHostFree: free memory from hipHostMalloc; 0 is ignored."""
    if not ptr:
        return
    entry = _state.host_memory.get(ptr)
    entry.device.platform.host_free(ptr)
    _state.host_memory.pop(ptr)


@hip_api
def hipMemGetInfo() -> tuple[int, int]:
    """hipMemGetInfo: (free, total) bytes of the current device's memory."""
    return get_device().mem_info()


def _copy(dst, src, size, kind, stream, asynchronous: bool) -> None:
    size = _size(size, "sizeBytes")
    kind = _kind(kind)
    device, handle = resolve_stream(stream)
    dst_host, src_host = _HOST_SIDES[kind]
    dst_ptr, dst_keep = pointer(dst, size, "dst", host_ok=dst_host, writable=True)
    src_ptr, src_keep = pointer(src, size, "src", host_ok=src_host)
    device.platform.memcpy(device._native, dst_ptr, src_ptr, size, int(kind), handle, asynchronous)
    if asynchronous:
        _state.keep_alive(device, handle, [k for k in (dst_keep, src_keep) if k is not None])


@hip_api
def hipMemcpy(dst, src, sizeBytes: int, kind: int) -> None:
    """hipMemcpy: copy ``sizeBytes`` bytes from ``src`` to ``dst`` (hipMemcpyKind ``kind``);
    returns when the copy is done."""
    _copy(dst, src, sizeBytes, kind, None, False)


@hip_api
def hipMemcpyAsync(dst, src, sizeBytes: int, kind: int, stream=None) -> None:
    """hipMemcpyAsync: queue the copy on ``stream`` (0/None: the null stream).  Python
    buffers passed are kept alive until the host synchronizes with the stream."""
    _copy(dst, src, sizeBytes, kind, stream, True)


def _copy_peer(dst, dst_device_id, src, src_device_id, size, stream, asynchronous: bool) -> None:
    size = _size(size, "sizeBytes")
    dst_device, src_device = device_by_id(dst_device_id), device_by_id(src_device_id)
    device, handle = resolve_stream(stream, dst_device if stream else None)
    dst_ptr, dst_keep = pointer(dst, size, "dst", host_ok=False, writable=True)
    src_ptr, src_keep = pointer(src, size, "src", host_ok=False)
    if dst_device.platform is not src_device.platform:
        raise HipError(hipError_t.hipErrorInvalidDevice, "peer copies stay within one platform")
    dst_device.platform.memcpy_peer(
        dst_device._native, dst_ptr, src_device._native, src_ptr, size, handle, asynchronous
    )
    if asynchronous:
        _state.keep_alive(device, handle, [k for k in (dst_keep, src_keep) if k is not None])


@hip_api
def hipMemcpyPeer(dst, dstDeviceId: int, src, srcDeviceId: int, sizeBytes: int) -> None:
    """hipMemcpyPeer: copy ``sizeBytes`` from device ``srcDeviceId``'s memory to
    device ``dstDeviceId``'s; returns when done."""
    _copy_peer(dst, dstDeviceId, src, srcDeviceId, sizeBytes, None, False)


@hip_api
def hipMemcpyPeerAsync(dst, dstDeviceId: int, src, srcDeviceId: int, sizeBytes: int, stream=None) -> None:
    """hipMemcpyPeerAsync: queue the peer copy on ``stream`` (a stream of ``dstDeviceId``)."""
    _copy_peer(dst, dstDeviceId, src, srcDeviceId, sizeBytes, stream, True)


def _set(dst, value, count, elem_size: int, stream, asynchronous: bool) -> None:
    count = _size(count, "count")
    bits = 8 * elem_size
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or not -(1 << (bits - 1)) <= value < 1 << bits
    ):
        raise HipError(hipError_t.hipErrorInvalidValue, f"value {value!r} does not fit in {bits} bits")
    device, handle = resolve_stream(stream)
    ptr, keep = pointer(dst, count * elem_size, "dst", host_ok=False)
    device.platform.memset(
        device._native, ptr, int(value) & ((1 << bits) - 1), count, elem_size, handle, asynchronous
    )
    if asynchronous and keep is not None:
        _state.keep_alive(device, handle, [keep])


@hip_api
def hipMemset(dst, value: int, sizeBytes: int) -> None:
    """hipMemset: set ``sizeBytes`` bytes at ``dst`` to the byte ``value``."""
    _set(dst, value, sizeBytes, 1, None, False)


@hip_api
def hipMemsetAsync(dst, value: int, sizeBytes: int, stream=None) -> None:
    """hipMemsetAsync: queue hipMemset on ``stream``."""
    _set(dst, value, sizeBytes, 1, stream, True)


@hip_api
def hipMemsetD8(dest, value: int, count: int) -> None:
    """hipMemsetD8: set ``count`` bytes at ``dest`` to ``value``."""
    _set(dest, value, count, 1, None, False)


@hip_api
def hipMemsetD16(dest, value: int, count: int) -> None:
    """hipMemsetD16: set ``count`` 16-bit words at ``dest`` to ``value``."""
    _set(dest, value, count, 2, None, False)


@hip_api
def hipMemsetD32(dest, value: int, count: int) -> None:
    """hipMemsetD32: set ``count`` 32-bit words at ``dest`` to ``value``."""
    _set(dest, value, count, 4, None, False)


@hip_api
def hipMemsetD8Async(dest, value: int, count: int, stream=None) -> None:
    """hipMemsetD8Async: queue hipMemsetD8 on ``stream``."""
    _set(dest, value, count, 1, stream, True)


@hip_api
def hipMemsetD16Async(dest, value: int, count: int, stream=None) -> None:
    """hipMemsetD16Async: queue hipMemsetD16 on ``stream``."""
    _set(dest, value, count, 2, stream, True)


@hip_api
def hipMemsetD32Async(dest, value: int, count: int, stream=None) -> None:
    """hipMemsetD32Async: queue hipMemsetD32 on ``stream``."""
    _set(dest, value, count, 4, stream, True)
