"""One hipFFT plan's worth of a NumPy-shaped transform: up to three axes of an array.

The axes transformed come last in the plan's order and the others (the batch) first,
in the array's order.  Where the array's strides are a hipFFT layout (its transformed
axes' strides nest, its batch axes fold into one distance) the plan reads the array
where it is; otherwise (zero padding, a dtype to convert, a layout hipFFT cannot
describe, a C2R input the library may overwrite) hipkit's gather kernel first copies
it, in the plan's order, into a buffer the transform then works in, in place where the
types allow.  The result is C-contiguous in the plan's order, returned as a view in
the array's order.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from ..hipfft.plans import call, library_of
from ..platforms.base.fft import HIPFFT_BACKWARD, HIPFFT_FORWARD, hipfftType
from ..runtime.device import Device
from ..runtime.memory import DeviceArray, empty, from_dlpack
from ..runtime.stream import Event, stream_handle
from ._kernels import kernels
from ._plan_cache import get_plan_cache

T = hipfftType
# (kind, complex dtype) -> (hipfftType, exec function)
_TYPES = {
    ("c2c", np.dtype(np.complex64)): (T.HIPFFT_C2C, "hipfftExecC2C"),
    ("c2c", np.dtype(np.complex128)): (T.HIPFFT_Z2Z, "hipfftExecZ2Z"),
    ("r2c", np.dtype(np.complex64)): (T.HIPFFT_R2C, "hipfftExecR2C"),
    ("r2c", np.dtype(np.complex128)): (T.HIPFFT_D2Z, "hipfftExecD2Z"),
    ("c2r", np.dtype(np.complex64)): (T.HIPFFT_C2R, "hipfftExecC2R"),
    ("c2r", np.dtype(np.complex128)): (T.HIPFFT_Z2D, "hipfftExecZ2D"),
}
_COMPLEX: dict[np.dtype, np.dtype] = {
    np.dtype(np.float32): np.dtype(np.complex64),
    np.dtype(np.float64): np.dtype(np.complex128),
    np.dtype(np.complex64): np.dtype(np.complex64),
    np.dtype(np.complex128): np.dtype(np.complex128),
}
_REAL: dict[np.dtype, np.dtype] = {
    np.dtype(np.complex64): np.dtype(np.float32),
    np.dtype(np.complex128): np.dtype(np.float64),
}
NORMS = (None, "backward", "ortho", "forward")


def scale_of(norm: str | None, forward: bool, points: int) -> float:
    """The factor NumPy's ``norm`` puts on a transform of ``points`` points."""
    if norm is None or norm == "backward":
        return 1.0 if forward else 1.0 / points
    if norm == "ortho":
        return 1.0 / math.sqrt(points)
    if norm == "forward":
        return 1.0 / points if forward else 1.0
    raise ValueError(f'norm: {norm!r}; expected None, "backward", "ortho" or "forward"')


def as_array(value: Any, name: str = "a") -> DeviceArray:
    """``value`` as a device array: a DeviceArray, or a DLPack tensor on a device of the
    current platform (torch, CuPy; NumPy on the CPU), viewed in place."""
    if isinstance(value, DeviceArray):
        return value
    if not hasattr(value, "__dlpack__"):
        raise TypeError(
            f"{name}: expected a hipkit DeviceArray or a DLPack tensor, got {type(value).__name__}"
        )
    try:
        return from_dlpack(value)
    except BufferError as exc:
        raise (TypeError if "dtype" in str(exc) else ValueError)(f"{name}: {exc}") from None


def complex_dtype(array: DeviceArray, real_only: bool = False) -> np.dtype:
    """The complex dtype a transform of ``array`` computes in (TypeError for others)."""
    found = _COMPLEX.get(array.dtype)
    if found is None or (real_only and array.dtype.kind == "c"):
        served = "float32, float64" if real_only else "float32, float64, complex64, complex128"
        raise TypeError(f"hipkit.fft: dtype {array.dtype} is not served ({served})")
    return found


class _Pending(threading.local):
    """Foreign tensors of work in flight, kept until an event after the work is done."""

    def __init__(self) -> None:
        self.items: list[tuple[Event, Any]] = []


_pending = _Pending()


def keep(device: Device, objects: Any, stream: Any) -> None:
    """Keep ``objects`` alive until the work queued on ``stream`` so far is done."""
    items = _pending.items
    while items and items[0][0].query():
        del items[0]
    event = Event(device, timing=False)
    event.record(stream)
    items.append((event, objects))


def _layout(
    array: DeviceArray, batch_axes: list[int], axes: tuple[int, ...], lengths: tuple[int, ...]
) -> tuple[tuple[int, ...] | None, int, int, int] | None:
    """The hipFFT layout (inembed, istride, idist, batch) that reads ``array`` as it is
    (``lengths`` along ``axes``), None where there is none; inembed None where it is
    the basic layout."""
    size = array.itemsize
    if any(array.strides[a] % size for a in range(array.ndim)):
        return None
    st = [array.strides[a] // size for a in axes]
    if min(st) <= 0:
        return None
    embed = [lengths[0]]
    for k in range(1, len(axes)):
        if st[k - 1] % st[k] or st[k - 1] // st[k] < lengths[k]:
            return None
        embed.append(st[k - 1] // st[k])
    folded = [(array.shape[b], array.strides[b] // size) for b in batch_axes if array.shape[b] != 1]
    batch, dist = 1, st[0] * lengths[0]
    if folded:
        for (_, outer), (n_inner, inner) in zip(folded, folded[1:], strict=False):
            if outer != inner * n_inner:
                return None
        batch, dist = math.prod(n for n, _ in folded), folded[-1][1]
        if dist <= 0:
            return None
    dense = st[-1] == 1 and tuple(embed[1:]) == lengths[1:] and (batch == 1 or dist == math.prod(lengths))
    if dense:
        return None, 1, math.prod(lengths), batch
    return tuple(embed), st[-1], dist, batch


class _Setup:
    """Everything a transform of one geometry decides before its plan: made once per
    (kind, array geometry, axes, lengths, direction, norm, stream, out given) and kept,
    so that a repeated call goes straight to the plan cache and the exec."""

    __slots__ = (
        "args",
        "direct",
        "gather",
        "index",
        "in_dtype",
        "in_shape",
        "key",
        "name",
        "order",
        "out_dtype",
        "out_shape",
        "result_shape",
        "in_place",
        "identity",
    )

    def __init__(
        self,
        kind: str,
        x: DeviceArray,
        axes: tuple[int, ...],
        lengths: tuple[int, ...],
        forward: bool,
        norm: str | None,
        native: int,
        has_out: bool,
    ) -> None:
        cdtype = complex_dtype(x, real_only=kind == "r2c")
        half = (*lengths[:-1], lengths[-1] // 2 + 1)
        in_len = half if kind == "c2r" else lengths
        out_len = half if kind == "r2c" else lengths
        self.in_dtype = cdtype if kind != "r2c" else _REAL[cdtype]
        self.out_dtype = cdtype if kind != "c2r" else _REAL[cdtype]
        batch_axes = [a for a in range(x.ndim) if a not in axes]
        self.order = order = [*batch_axes, *axes]
        self.identity = order == sorted(order)
        batch_shape = [x.shape[b] for b in batch_axes]
        self.index: tuple[slice, ...] | None = None
        if any(x.shape[a] > m for a, m in zip(axes, in_len, strict=True)):  # truncation: a view
            index = [slice(None)] * x.ndim
            for a, m in zip(axes, in_len, strict=True):
                index[a] = slice(0, m)
            self.index = tuple(index)
            x = x[self.index]
        self.out_shape = [*batch_shape, *out_len]
        self.result_shape = result_shape = list(x.shape)
        for a, m in zip(axes, out_len, strict=True):
            result_shape[a] = m
        self.in_shape = [*batch_shape, *in_len]
        self.key: tuple[Any, ...] | None = None
        if 0 in self.out_shape:
            return
        library = library_of(x.device, "hipkit.fft")
        layout = None
        if x.dtype == self.in_dtype and all(x.shape[a] == m for a, m in zip(axes, in_len, strict=True)):
            if kind != "c2r" or library.c2r_keeps_input:
                layout = _layout(x, batch_axes, axes, in_len)
        self.gather = layout is None
        if layout is None:
            layout = (None, 1, math.prod(in_len), math.prod(batch_shape))
        inembed, istride, idist, batch = layout
        self.direct = has_out and self.identity  # out is the plan's output itself
        self.in_place = self.gather and kind == "c2c" and not self.direct
        onembed, ostride, odist = (
            (None, 1, math.prod(out_len)) if inembed is None else (out_len, 1, math.prod(out_len))
        )
        kind_type, self.name = _TYPES[(kind, cdtype)]
        self.args: tuple[int, ...] = (
            (HIPFFT_FORWARD if forward else HIPFFT_BACKWARD,) if kind == "c2c" else ()
        )
        scale = scale_of(norm, forward, math.prod(lengths))
        self.key = (
            kind_type,
            len(axes),
            lengths,
            inembed,
            istride,
            idist,
            onembed,
            ostride,
            odist,
            batch,
            scale,
            native,
        )


_setups: dict[tuple[Any, ...], _Setup] = {}
_MAX_SETUPS = 1024  # geometries kept; past it the memo starts again


def _setup(
    kind: str,
    x: DeviceArray,
    axes: tuple[int, ...],
    lengths: tuple[int, ...],
    forward: bool,
    norm: str | None,
    native: int,
    has_out: bool,
) -> _Setup:
    memo = (kind, x.device, x.shape, x.strides, x.dtype, axes, lengths, forward, norm, native, has_out)
    setup = _setups.get(memo)
    if setup is None:  # a bad input raises here, before any work, and is never kept
        setup = _Setup(kind, x, axes, lengths, forward, norm, native, has_out)
        if len(_setups) >= _MAX_SETUPS:
            _setups.clear()
        _setups[memo] = setup
    return setup


def transform(
    kind: str,
    x: DeviceArray,
    axes: tuple[int, ...],
    lengths: tuple[int, ...],
    forward: bool,
    norm: str | None,
    stream: Any,
    out: DeviceArray | None = None,
) -> DeviceArray:
    """The ``kind`` ("c2c", "r2c", "c2r") transform of ``x`` over ``axes`` (at most
    three, distinct, non-negative), of ``lengths`` points each (the real side's for
    r2c and c2r), normalized by ``norm``; written to ``out`` where given (the result's
    shape and dtype, C-contiguous)."""
    device = x.device
    native = stream_handle(stream) if stream is not None else 0
    setup = _setup(kind, x, axes, lengths, forward, norm, native, out is not None)
    if setup.index is not None:
        x = x[setup.index]
    key = setup.key
    if key is None:  # no points: nothing to transform
        return _in_array_order(empty(setup.out_shape, setup.out_dtype, device=device, stream=stream), setup)
    if out is not None:
        _check_out(out, setup.result_shape, setup.out_dtype)
    source = x
    if setup.gather:
        source = empty(setup.in_shape, setup.in_dtype, device=device, stream=stream)
        size = x.itemsize
        order = setup.order
        kernels(device).gather(
            source,
            x,
            tuple(x.shape[o] for o in order),
            tuple(x.strides[o] // size for o in order),
            None,
            stream,
        )
    direct = setup.direct
    if setup.in_place:
        result = source
    elif direct:
        result = out  # type: ignore[assignment]
    else:
        result = empty(setup.out_shape, setup.out_dtype, device=device, stream=stream)
    plan, kept = get_plan_cache(device).get(key, setup.name)
    call(setup.name, plan.run, plan.handle, source.ptr, result.ptr, *setup.args)
    if plan.post_scale != 1.0:
        kernels(device).scale(result, plan.post_scale, stream)
    if not kept:
        device.platform.stream_synchronize(device._native, native)
        plan.destroy()
    if direct:
        return result
    view = _in_array_order(result, setup)
    if out is None:
        return view
    size = view.itemsize
    kernels(device).gather(out, view, view.shape, tuple(st // size for st in view.strides), None, stream)
    return out


def _check_out(out: DeviceArray, shape: list[int], dtype: np.dtype) -> None:
    if tuple(out.shape) != tuple(shape) or out.dtype != dtype or not out.is_contiguous:
        raise ValueError(f"out: {out.dtype}{list(out.shape)}, the result is {dtype}{shape} (C-contiguous)")


def _in_array_order(out: DeviceArray, setup: _Setup) -> DeviceArray:
    """The C-contiguous ``out`` (in the plan's axis order) as a view in the array's:
    ``out`` itself where the orders are the same."""
    if setup.identity:
        return out
    order = setup.order
    strides = [0] * len(order)
    for position, axis in enumerate(order):
        strides[axis] = out.strides[position]
    return DeviceArray(
        setup.result_shape,
        out.dtype,
        ptr=out.ptr,
        owner=out._owner,
        device=out.device,
        strides=tuple(strides),
    )
