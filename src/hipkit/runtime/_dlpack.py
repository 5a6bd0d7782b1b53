"""DLPack interchange, both directions, in pure Python (ctypes).

``export`` wraps memory hipkit owns in a DLPack capsule; ``import_`` consumes any DLPack producer
(an object with ``__dlpack__``, or a capsule). The structs follow ``dlpack.h`` 1.0; both the legacy
``"dltensor"`` capsule and the versioned ``"dltensor_versioned"`` one are made and accepted.

Example
-------
>>> import numpy as np
>>> a = np.arange(6.0).reshape(2, 3)
>>> t = import_(a)
>>> t.shape, t.strides, t.dtype
((2, 3), (24, 8), dtype('float64'))
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from ctypes import (
    Structure,
    c_char_p,
    c_int,
    c_int32,
    c_int64,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
    py_object,
)
from dataclasses import dataclass

import numpy as np

_kDLInt, _kDLUInt, _kDLFloat, _kDLBfloat, _kDLComplex, _kDLBool = 0, 1, 2, 4, 5, 6
_FLAG_READ_ONLY = 1


class DLDevice(Structure):
    """dlpack.h ``DLDevice``: where the memory is."""

    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    """dlpack.h ``DLDataType``: type code, bits, vector lanes."""

    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    """dlpack.h ``DLTensor``: the array view (strides in elements)."""

    # shape and strides are int64_t*, held as plain addresses: cheaper to set than POINTER fields.
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", c_void_p),
        ("strides", c_void_p),
        ("byte_offset", c_uint64),
    ]


# Both managed structs take a pointer to themselves; c_void_p lets one deleter serve both kinds.
DLDeleter = ctypes.CFUNCTYPE(None, c_void_p)


class DLManagedTensor(Structure):
    """dlpack.h ``DLManagedTensor``: the legacy (pre-1.0) capsule payload."""

    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DLDeleter)]


class DLPackVersion(Structure):
    """dlpack.h ``DLPackVersion``."""

    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(Structure):
    """dlpack.h ``DLManagedTensorVersioned``: the 1.x capsule payload."""

    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", c_void_p),
        ("deleter", DLDeleter),
        ("flags", c_uint64),
        ("dl_tensor", DLTensor),
    ]


# Private prototypes, not ctypes.pythonapi.X.argtypes = ..., which would change them for every
# other user of ctypes in the process. The capsule is passed as an address (c_void_p) because the
# destructor sees it at refcount 0: wrapping it in a py_object would resurrect and free it twice.
def _api(name: str, restype, *argtypes):
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_CapsuleDestructor = ctypes.CFUNCTYPE(None, c_void_p)
_capsule_new = _api("PyCapsule_New", py_object, c_void_p, c_void_p, _CapsuleDestructor)
_capsule_get_name = _api("PyCapsule_GetName", c_char_p, c_void_p)
_capsule_get_pointer = _api("PyCapsule_GetPointer", c_void_p, c_void_p, c_char_p)
_capsule_set_name = _api("PyCapsule_SetName", c_int, c_void_p, c_void_p)
_py_incref = _api("Py_IncRef", None, py_object)

# PyCapsule stores the name pointer, not a copy, so names live in buffers that are never freed.
_NAMES = {
    n: ctypes.create_string_buffer(n)
    for n in (b"dltensor", b"dltensor_versioned", b"used_dltensor", b"used_dltensor_versioned")
}
_CapsuleType = type(_capsule_new(1, ctypes.addressof(_NAMES[b"dltensor"]), _CapsuleDestructor()))

_err_occurred = _api("PyErr_Occurred", c_void_p)

# What each exported capsule keeps alive (struct, shape/strides array, owner), by struct address.
# The deleter removes the entry; holding the objects here means ctypes frees exactly what it made.
_live: dict[int, tuple[object, object, object]] = {}


def _c_callbacks() -> tuple[object, object]:
    # Closures rather than functions reading globals: C may call them during interpreter
    # teardown, when CPython may already have set this module's globals to None.
    live, err_occurred = _live, _err_occurred
    get_name, get_pointer = _capsule_get_name, _capsule_get_pointer

    def guarded(body: Callable[[int], None]) -> Callable[[int | None], None]:
        def callback(address: int | None) -> None:
            # C code may drop a capsule, or call a deleter, with its own exception set (NumPy
            # does when it rejects a tensor), and Python code cannot run under a pending
            # exception: every C call would fail. Take it first (a Python-API call through
            # ctypes raises it), do the work, then re-raise: ctypes cannot hand it back to the
            # C caller, but reports it as unraisable instead of losing it.
            pending = None
            try:
                err_occurred()
            except BaseException as exc:
                pending = exc
            body(address or 0)
            if pending is not None:
                raise pending

        return callback

    def release(managed: int) -> None:
        live.pop(managed, None)

    def destroy_capsule(capsule: int) -> None:
        # Still named "dltensor*": never consumed, so the tensor is ours to free. A consumer
        # renamed it used_* and will call the deleter itself.
        name = get_name(capsule)
        if name in (b"dltensor", b"dltensor_versioned"):
            release(get_pointer(capsule, name))

    return DLDeleter(guarded(release)), _CapsuleDestructor(guarded(destroy_capsule))


_DELETER, _CAPSULE_DESTRUCTOR = _c_callbacks()
# C holds these pointers past any Python reference (even past module teardown): never free them.
for _keep in (_DELETER, _CAPSULE_DESTRUCTOR, *_NAMES.values()):
    _py_incref(_keep)


def _dtype_table() -> list[tuple[np.dtype, tuple[int, int, int]]]:
    table = [(np.dtype(np.bool_), (_kDLBool, 8, 1))]
    for code, kind, sizes in (
        (_kDLInt, "i", (1, 2, 4, 8)),
        (_kDLUInt, "u", (1, 2, 4, 8)),
        (_kDLFloat, "f", (2, 4, 8)),
        (_kDLComplex, "c", (8, 16)),
    ):
        table += [(np.dtype(f"{kind}{n}"), (code, 8 * n, 1)) for n in sizes]
    try:  # bfloat16 has no NumPy type of its own; ml_dtypes supplies one when installed
        import ml_dtypes

        table.append((np.dtype(ml_dtypes.bfloat16), (_kDLBfloat, 16, 1)))
    except ImportError:
        pass
    return table


_DTYPES = _dtype_table()
_DL_OF = dict(_DTYPES)  # equal dtypes hash equal ('l' and 'q'); '>f4' is neither
_DTYPE_OF = {dl: dt for dt, dl in _DTYPES}


def dtype_to_dl(dtype: np.dtype | type | str) -> tuple[int, int, int]:
    """DLPack ``(code, bits, lanes)`` of a NumPy dtype; BufferError if DLPack has none.

    >>> dtype_to_dl(np.float32)
    (2, 32, 1)
    """
    dt = np.dtype(dtype)
    dl = _DL_OF.get(dt)
    if dl is None:
        raise BufferError(f"dtype {dt} cannot be exchanged through DLPack")
    return dl


def dl_to_dtype(code: int, bits: int, lanes: int) -> np.dtype:
    """NumPy dtype of a DLPack ``(code, bits, lanes)``; BufferError if NumPy has none.

    >>> dl_to_dtype(0, 64, 1)
    dtype('int64')
    """
    dt = _DTYPE_OF.get((code, bits, lanes))
    if dt is None:
        raise BufferError(f"DLPack dtype (code={code}, bits={bits}, lanes={lanes}) has no NumPy dtype")
    return dt


def _contiguous_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def export(
    ptr: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...] | None,
    dtype: np.dtype,
    device_type: int,
    device_id: int,
    owner: object,
    max_version: tuple[int, int] | None = None,
) -> object:
    """Make a DLPack capsule viewing the memory at ``ptr``.

    ``strides`` are in bytes, NumPy style (None: C-contiguous); the capsule carries them in
    elements, so a byte stride that is not a multiple of the itemsize raises BufferError.
    ``owner`` stays alive until the consumer calls the deleter, or until the capsule is destroyed
    unconsumed. With ``max_version >= (1, 0)`` the capsule is ``"dltensor_versioned"`` (version 1.0,
    flags 0), else the legacy ``"dltensor"``. Returns the PyCapsule.

    Example, in a class's ``__dlpack__``::

        return export(a.ctypes.data, a.shape, a.strides, a.dtype, kDLCPU, 0, a, max_version)
    """
    dtype = np.dtype(dtype)
    code, bits, lanes = dtype_to_dl(dtype)
    shape = tuple(int(n) for n in shape)
    if strides is None:
        strides = _contiguous_strides(shape, dtype.itemsize)
    if len(strides) != len(shape):
        raise ValueError(f"{len(strides)} strides for {len(shape)} dimensions")
    if any(s % dtype.itemsize for s in strides):
        raise BufferError(
            f"strides {tuple(strides)} (bytes) are not multiples of the itemsize {dtype.itemsize} of {dtype}"
        )
    ndim = len(shape)
    # One array holds shape then strides; it is freed with the struct, by the deleter.
    dims = (c_int64 * (2 * ndim))(*shape, *(s // dtype.itemsize for s in strides))
    # Strides are always filled in: DLPack 1.0 consumers may rely on them when ndim > 0.
    shape_at = ctypes.addressof(dims)
    tensor = DLTensor(
        ptr,
        DLDevice(device_type, device_id),
        ndim,
        DLDataType(code, bits, lanes),
        shape_at,
        shape_at + 8 * ndim,
        0,
    )
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    managed: DLManagedTensor | DLManagedTensorVersioned
    if versioned:
        managed = DLManagedTensorVersioned(DLPackVersion(1, 0), None, _DELETER, 0, tensor)
    else:
        managed = DLManagedTensor(tensor, None, _DELETER)
    address = ctypes.addressof(managed)
    _live[address] = (managed, dims, owner)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    try:
        return _capsule_new(address, ctypes.addressof(_NAMES[name]), _CAPSULE_DESTRUCTOR)
    except BaseException:
        del _live[address]
        raise


class _Keepalive:
    """Owns a consumed DLManagedTensor(Versioned): calls its deleter once, when released."""

    __slots__ = ("_deleter", "_managed")

    def __init__(self, deleter: int | None, managed: int):
        # DLPack allows a NULL deleter: nothing to free. The function object is made now, not in
        # __del__, which may run at interpreter teardown.
        self._deleter = DLDeleter(deleter) if deleter else None
        self._managed = managed

    def __del__(self) -> None:
        deleter, self._deleter = self._deleter, None
        if deleter is not None:
            deleter(self._managed)


@dataclass
class Imported:
    """A consumed DLPack tensor. ``strides`` are in bytes; the memory lives while ``keepalive``
    does, and dropping the last reference to ``keepalive`` calls the producer's deleter once."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: np.dtype
    device_type: int
    device_id: int
    readonly: bool
    keepalive: object


def _capsule_of(obj: object, stream: object) -> object:
    if isinstance(obj, _CapsuleType):
        return obj
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(
            f"{type(obj).__name__} object does not support DLPack: expected an object "
            "with __dlpack__ and __dlpack_device__, or a DLPack capsule"
        )
    # Producers older than DLPack 1.0 (or the array API 2023) lack max_version, or even stream.
    try:
        return obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:
        try:
            return obj.__dlpack__(stream=stream)
        except TypeError:
            return obj.__dlpack__()


def import_(obj: object, *, stream: object = None) -> Imported:
    """Consume a DLPack producer: an object with ``__dlpack__``, or a DLPack capsule.

    Both capsule kinds are accepted; the capsule is renamed ``used_*`` so that it cannot be consumed
    twice (BufferError on a second try). A non-DLPack object raises TypeError.

    >>> import numpy as np
    >>> from hipkit.platforms.base.platform import kDLCPU
    >>> t = import_(np.zeros(4, np.int32))
    >>> t.shape, t.dtype, t.device_type == kDLCPU
    ((4,), dtype('int32'), True)
    """
    capsule = _capsule_of(obj, stream)
    if not isinstance(capsule, _CapsuleType):
        raise TypeError(f"__dlpack__ returned {type(capsule).__name__}, not a capsule")
    name = _capsule_get_name(id(capsule))
    if name in (b"used_dltensor", b"used_dltensor_versioned"):
        raise BufferError("DLPack capsule already consumed")
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise TypeError(f"capsule named {name!r} is not a DLPack capsule")
    managed_address = _capsule_get_pointer(id(capsule), name)
    managed: DLManagedTensor | DLManagedTensorVersioned
    if name == b"dltensor_versioned":
        managed = DLManagedTensorVersioned.from_address(managed_address)
        if managed.version.major != 1:
            # The layout past `version` is unknown; leave the capsule unconsumed so it frees itself.
            raise BufferError(
                f"DLPack version {managed.version.major}.{managed.version.minor} is not supported (need 1.x)"
            )
        readonly = bool(managed.flags & _FLAG_READ_ONLY)
    else:
        managed, readonly = DLManagedTensor.from_address(managed_address), False
    t = managed.dl_tensor
    dtype = dl_to_dtype(t.dtype.code, t.dtype.bits, t.dtype.lanes)
    ndim, itemsize = t.ndim, dtype.itemsize
    shape = tuple((c_int64 * ndim).from_address(t.shape)) if ndim else ()
    if ndim and t.strides:
        strides = tuple(s * itemsize for s in (c_int64 * ndim).from_address(t.strides))
    else:  # NULL strides mean C-contiguous
        strides = _contiguous_strides(shape, itemsize)
    deleter = ctypes.cast(managed.deleter, c_void_p).value
    # Everything that can fail is done: from here on this side owns the tensor.
    _capsule_set_name(id(capsule), ctypes.addressof(_NAMES[b"used_" + name]))
    return Imported(
        ptr=(t.data or 0) + t.byte_offset,
        shape=shape,
        strides=strides,
        dtype=dtype,
        device_type=t.device.device_type,
        device_id=t.device.device_id,
        readonly=readonly,
        keepalive=_Keepalive(deleter, managed_address),
    )
