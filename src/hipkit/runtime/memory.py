"""Device memory and device arrays.

:class:`DeviceArray` is an n-dimensional view of device memory, in the spirit of
CuPy's ndarray without the arithmetic: shape, dtype, strides, slicing views,
copies to and from the host, DLPack.  Kernels take it as a pointer argument.

Example
-------
>>> import numpy as np, hipkit
>>> a = hipkit.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
>>> a[:, 1].get()
array([1., 4.], dtype=float32)
"""

from __future__ import annotations

import ctypes
import math
import weakref
from typing import Any

import numpy as np

from .._errors import HipError, hipError_t
from ..platforms.base.platform import DEVICE_TO_DEVICE, DEVICE_TO_HOST, HOST_TO_DEVICE, kDLCPU
from . import _dlpack
from .device import Device, get_device
from .pool import get_default_memory_pool
from .stream import stream_handle


class Allocation:
    """Owns ``nbytes`` of device memory from the device's memory pool, given back
    when the last reference goes.

    ``stream`` (default: the null stream) is the stream the memory is for: once given
    back, it serves only later allocations on that stream (see
    :mod:`hipkit.runtime.pool`).  A device reset frees all memory: the allocation is
    then *stale* and :meth:`check` raises instead of letting a kernel touch freed
    memory.
    """

    def __init__(self, nbytes: int, device: Device | None = None, stream=None):
        if nbytes < 0:
            raise ValueError(f"negative allocation size {nbytes}")
        self.device = device or get_device()
        self.nbytes = nbytes
        if nbytes:
            pool = get_default_memory_pool(self.device)
            self.ptr, self.generation = pool.malloc(nbytes, stream_handle(stream))
            self._finalizer: weakref.finalize | None = weakref.finalize(
                self, pool.free, self.ptr, self.generation
            )
        else:
            self.ptr = 0
            self.generation = self.device.platform.reset_generation(self.device._native)
            self._finalizer = None

    def check(self) -> None:
        """Raise if a device reset has freed this memory."""
        dev = self.device
        if dev.platform.reset_generation(dev._native) != self.generation:
            raise HipError(hipError_t.hipErrorInvalidHandle, "this memory was freed by a device reset")

    def free(self) -> None:
        """Give the memory back now rather than when garbage-collected: to the pool,
        which reuses it for the next allocation of its size and stream
        (``HIPKIT_MEMORY_POOL=off``: to the platform at once)."""
        if self._finalizer is not None:
            self._finalizer()


class DeviceArray:
    """An array in device memory.

    Make one with :func:`to_device`, :func:`empty`, :func:`zeros` or
    :func:`from_dlpack`.  Indexing with integers, slices, ``...`` and ``None``
    gives views; ``get()`` copies to a NumPy array.
    """

    __slots__ = ("shape", "dtype", "strides", "ptr", "device", "_owner", "__weakref__")

    def __init__(
        self, shape, dtype, *, ptr: int, owner: Any, device: Device, strides: tuple[int, ...] | None = None
    ):
        self.shape = tuple(map(int, shape))
        self.dtype = np.dtype(dtype)
        self.strides = tuple(strides) if strides is not None else _c_strides(self.shape, self.dtype.itemsize)
        self.ptr = int(ptr)
        self.device = device
        self._owner = owner

    # -- geometry
    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def is_contiguous(self) -> bool:
        """C-contiguous (row-major, no gaps)."""
        return self.size <= 1 or self.strides == _c_strides(self.shape, self.itemsize)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def _check(self) -> None:
        if isinstance(self._owner, Allocation):
            self._owner.check()

    def _span(self) -> tuple[int, int]:
        """(byte offset from ptr, byte length) of the memory the array touches."""
        if self.size == 0:
            return 0, 0
        low = sum(s * (n - 1) for s, n in zip(self.strides, self.shape, strict=True) if s < 0)
        high = sum(s * (n - 1) for s, n in zip(self.strides, self.shape, strict=True) if s > 0)
        return low, high - low + self.itemsize

    # -- views
    def __getitem__(self, key) -> DeviceArray:
        key = key if isinstance(key, tuple) else (key,)
        if not all(k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)) for k in key):
            raise IndexError("device arrays support basic indexing only (integers, slices, ..., None)")
        if Ellipsis not in key:
            key += (Ellipsis,)  # so that integers alone still give a (0-d) view
        probe = _geometry_probe(self.shape, self.strides, self.dtype)
        view = probe[key]
        offset = view.__array_interface__["data"][0] - probe.__array_interface__["data"][0]
        return DeviceArray(
            view.shape,
            self.dtype,
            ptr=self.ptr + offset,
            owner=self._owner,
            device=self.device,
            strides=view.strides,
        )

    def reshape(self, *shape) -> DeviceArray:
        """A view with another shape (the array must be C-contiguous)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = _resolve_shape(shape, self.size)
        if not self.is_contiguous:
            raise ValueError("reshape needs a C-contiguous array; copy() it first")
        return DeviceArray(shape, self.dtype, ptr=self.ptr, owner=self._owner, device=self.device)

    def view(self, dtype) -> DeviceArray:
        """The same bytes seen as another dtype of the same item size."""
        dtype = np.dtype(dtype)
        if dtype.itemsize != self.itemsize:
            raise ValueError("view() needs a dtype of the same item size")
        return DeviceArray(
            self.shape, dtype, ptr=self.ptr, owner=self._owner, device=self.device, strides=self.strides
        )

    # -- copies
    def get(self, stream=None, out: np.ndarray | None = None) -> np.ndarray:
        """Copy to a new (or the given) NumPy array.  With a ``stream`` the copy is
        asynchronous: the result is valid once the stream has been synchronized."""
        self._check()
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif out.shape != self.shape or out.dtype != self.dtype:
            raise ValueError(f"out must be {self.dtype}{list(self.shape)}, got {out.dtype}{list(out.shape)}")
        if self.size == 0:
            return out
        if self.is_contiguous and out.flags.c_contiguous:
            self._copy(out.ctypes.data, self.ptr, self.nbytes, DEVICE_TO_HOST, stream)
            return out
        start, length = self._span()
        staging = np.empty(length, np.uint8)
        self._copy(staging.ctypes.data, self.ptr + start, length, DEVICE_TO_HOST, None)
        out[...] = _strided_view(staging, -start, self.shape, self.strides, self.dtype)
        return out

    def set(self, array, stream=None) -> None:
        """Copy a host array (anything NumPy can convert, broadcast to this shape) in."""
        self._check()
        src = np.ascontiguousarray(np.broadcast_to(np.asarray(array, dtype=self.dtype), self.shape))
        if self.size == 0:
            return
        if self.is_contiguous:
            self._copy(self.ptr, src.ctypes.data, self.nbytes, HOST_TO_DEVICE, stream)
            return
        start, length = self._span()
        staging = np.empty(length, np.uint8)
        self._copy(staging.ctypes.data, self.ptr + start, length, DEVICE_TO_HOST, None)
        _strided_view(staging, -start, self.shape, self.strides, self.dtype)[...] = src
        self._copy(self.ptr + start, staging.ctypes.data, length, HOST_TO_DEVICE, None)

    def copy(self, stream=None, device: Device | None = None) -> DeviceArray:
        """A new C-contiguous array with the same contents, on this device or on
        ``device`` (another GPU of the platform: a peer copy; another platform:
        through the host).  ``stream`` belongs to the destination device."""
        self._check()
        device = device or self.device
        out = empty(self.shape, self.dtype, device=device)
        if not self.is_contiguous or device.platform is not self.device.platform:
            out.set(self.get())
        elif device != self.device:
            if self.nbytes:
                device.platform.memcpy_peer(
                    device._native,
                    out.ptr,
                    self.device._native,
                    self.ptr,
                    self.nbytes,
                    stream_handle(stream),
                    stream is not None,
                )
        elif self.nbytes:
            self._copy(out.ptr, self.ptr, self.nbytes, DEVICE_TO_DEVICE, stream)
        return out

    def fill(self, value) -> None:
        """Set every element to ``value``."""
        if value == 0 and self.is_contiguous:
            self._check()
            if self.nbytes:
                platform = self.device.platform
                platform.memset(self.device._native, self.ptr, 0, self.nbytes, 1, 0, False)
            return
        self.set(np.full(self.shape, value, self.dtype))

    def _copy(self, dst: int, src: int, nbytes: int, kind: int, stream) -> None:
        handle = stream_handle(stream)
        self.device.platform.memcpy(self.device._native, dst, src, nbytes, kind, handle, stream is not None)

    # -- interop
    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA Array Interface v3 (GPU platforms): CuPy, PyTorch, Numba and
        others view the array zero-copy (``cupy.asarray(a)``, ``torch.as_tensor(a)``)."""
        if not self.device.platform.cuda_array_interface:
            raise AttributeError(f"{self.device.platform.name} memory has no __cuda_array_interface__")
        self._check()
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": self.dtype.descr,
            "data": (self.ptr if self.size else 0, False),
            "strides": None if self.is_contiguous else self.strides,
            "version": 3,
            "stream": 1,  # hipkit's work is ordered on the legacy default stream
        }

    def __dlpack_device__(self) -> tuple[int, int]:
        return _dlpack_device(self.device)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export as a DLPack capsule (zero-copy)."""
        if copy:
            raise BufferError("hipkit exports device arrays without copying (copy=True unsupported)")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"cannot export to DLPack device {dl_device}")
        self._check()
        if stream is not None and stream != -1:
            self.device.synchronize()
        return _dlpack.export(
            self.ptr,
            self.shape,
            self.strides,
            self.dtype,
            *self.__dlpack_device__(),
            owner=self,
            max_version=max_version,
        )

    def __array__(self, *args, **kwargs):
        raise TypeError("implicit conversion of a device array to NumPy is not allowed; use .get()")

    def __repr__(self) -> str:
        return (
            f"<hipkit.DeviceArray shape={self.shape} dtype={self.dtype} "
            f"device={self.device.platform.name}:{self.device.index}>"
        )


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides = []
    step = itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _resolve_shape(shape, size: int) -> tuple[int, ...]:
    shape = tuple(int(n) for n in shape)
    if shape.count(-1) > 1:
        raise ValueError("only one dimension can be -1")
    if -1 in shape:
        known = int(np.prod([n for n in shape if n != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape size {size} into {shape}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise ValueError(f"cannot reshape size {size} into {shape}")
    return shape


def _geometry_probe(shape, strides, dtype) -> np.ndarray:
    """An array with this geometry over a one-element buffer: indexing it
    computes views (never reads elements) without touching device memory."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape, strides, writeable=False)


def _strided_view(buffer: np.ndarray, offset: int, shape, strides, dtype) -> np.ndarray:
    return np.ndarray(shape, dtype, buffer=buffer, offset=offset, strides=strides)


# ------------------------------------------------------------------ factories


def empty(shape, dtype=np.float32, device: Device | None = None, *, stream=None) -> DeviceArray:
    """An uninitialized device array, its memory from the device's pool for work on
    ``stream`` (default: the null stream; see :mod:`hipkit.runtime.pool`)."""
    shape = (shape,) if np.isscalar(shape) else tuple(shape)
    dtype = np.dtype(dtype)
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimension in {shape}")
    device = device or get_device()
    nbytes = math.prod(map(int, shape)) * dtype.itemsize  # not np.prod: 3 us of a 10 us call
    alloc = Allocation(nbytes, device, stream)
    return DeviceArray(shape, dtype, ptr=alloc.ptr, owner=alloc, device=device)


def zeros(shape, dtype=np.float32, device: Device | None = None) -> DeviceArray:
    """A device array of zeros."""
    out = empty(shape, dtype, device)
    out.fill(0)
    return out


def empty_like(array, dtype=None) -> DeviceArray:
    """An uninitialized device array with the shape (and dtype) of ``array``."""
    device = array.device if isinstance(array, DeviceArray) else None
    return empty(array.shape, dtype or array.dtype, device)


def zeros_like(array, dtype=None) -> DeviceArray:
    """A device array of zeros with the shape (and dtype) of ``array``."""
    out = empty_like(array, dtype)
    out.fill(0)
    return out


def _dlpack_device(device: Device) -> tuple[int, int]:
    """The device as DLPack names it: the platform's type and index, but index 0
    for CPU memory, as DLPack has it (every CPU device's memory is the host's)."""
    kind = device.platform.dlpack_device_type
    return kind, 0 if kind == kDLCPU else device._native


class _Pinned:
    """Owns page-locked host memory (hipHostMalloc), freed with the last array viewing it."""

    def __init__(self, nbytes: int, device: Device):
        platform = device.platform
        self.ptr = platform.host_malloc(nbytes)
        self._finalizer = weakref.finalize(self, _free_pinned, platform, self.ptr)


def _free_pinned(platform, ptr: int) -> None:
    try:
        platform.host_free(ptr)
    except HipError:
        pass  # a sticky error: the memory goes with the next reset, or with the process


def empty_pinned(shape, dtype=np.float32, device: Device | None = None) -> np.ndarray:
    """An uninitialized NumPy array in page-locked host memory (as cupyx.empty_pinned):
    copies between it and device arrays run at full bus speed, and asynchronously."""
    shape = (shape,) if np.isscalar(shape) else tuple(shape)
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if count < 0 or any(n < 0 for n in shape):
        raise ValueError(f"negative dimension in {shape}")
    if count == 0:
        return np.empty(shape, dtype)
    owner = _Pinned(count * dtype.itemsize, device or get_device())
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(owner.ptr)
    buffer._hipkit_owner = owner  # type: ignore[attr-defined] # the array's base keeps the memory
    return np.frombuffer(buffer, dtype, count).reshape(shape)


def to_device(array, dtype=None, device: Device | None = None, stream=None) -> DeviceArray:
    """Copy a host array (or anything NumPy can convert) to a new device array (its
    memory for work on ``stream``, which the copy is queued on)."""
    host = np.asarray(array, dtype=dtype)
    out = empty(host.shape, host.dtype, device, stream=stream)
    out.set(host, stream=stream)
    return out


def from_dlpack(obj, device: Device | None = None) -> DeviceArray:
    """A zero-copy device array viewing another library's DLPack tensor (for
    example a NumPy array on the CPU platform)."""
    device = device or get_device()
    imported = _dlpack.import_(obj)
    want, want_id = _dlpack_device(device)
    if imported.device_type != want:
        raise BufferError(
            f"DLPack tensor is on device type {imported.device_type}, "
            f"not {device.platform.name} memory (type {want})"
        )
    if imported.device_id != want_id:
        raise BufferError(f"DLPack tensor is on device {imported.device_id}, not on {device!r}")
    return DeviceArray(
        imported.shape,
        imported.dtype,
        ptr=imported.ptr,
        owner=imported.keepalive,
        device=device,
        strides=imported.strides,
    )


def device_pointer(value: Any, device: Device, function: str, param: str) -> int:
    """The device address of a C API's pointer argument ``param`` of ``function``
    (hipBLAS's, hipFFT's): an int, None (NULL), a NumPy integer, a DeviceArray, an
    object with ``__cuda_array_interface__`` or one with ``__dlpack__`` on ``device``
    (zero-copy).  TypeError for anything else, ValueError for a tensor elsewhere."""
    if value is None:
        return 0
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, DeviceArray):
        return value.ptr
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None and device.platform.cuda_array_interface:
        return int(interface["data"][0])
    if hasattr(value, "__dlpack__"):
        try:
            return from_dlpack(value, device).ptr
        except BufferError as exc:
            raise ValueError(f"{function}: {param}: {exc}") from None
    raise TypeError(
        f"{function}: {param}: expected a device pointer (int), a hipkit DeviceArray or a "
        f"DLPack tensor, got {type(value).__name__}"
    )
