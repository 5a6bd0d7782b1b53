"""numpy.fft's helpers: the sample frequencies and the shifts, on the device."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..runtime.device import Device
from ..runtime.memory import DeviceArray, empty, to_device
from ._kernels import kernels
from ._transforms import as_array, keep


def fftfreq(n: int, d: float = 1.0, *, device: Device | None = None) -> DeviceArray:
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``,
    as ``numpy.fft.fftfreq`` (float64), on ``device`` (default: the current one)."""
    if n < 1:
        raise ValueError(f"fftfreq: n must be >= 1, got {n}")
    return to_device(np.fft.fftfreq(n, d), device=device)


def rfftfreq(n: int, d: float = 1.0, *, device: Device | None = None) -> DeviceArray:
    """The sample frequencies of :func:`~hipkit.fft.rfft`'s outputs, as
    ``numpy.fft.rfftfreq``."""
    if n < 1:
        raise ValueError(f"rfftfreq: n must be >= 1, got {n}")
    return to_device(np.fft.rfftfreq(n, d), device=device)


def _shift(value: Any, axes: int | Sequence[int] | None, inverse: bool, stream: Any) -> DeviceArray:
    x = as_array(value, "x")
    ndim = x.ndim
    if axes is None:
        chosen = list(range(ndim))
    else:
        listed = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
        for axis in listed:
            if not -ndim <= axis < ndim:
                raise ValueError(f"axis {axis} is out of bounds for an array of {ndim} dimensions")
        chosen = [axis % ndim for axis in listed]
    shift = [0] * ndim
    for axis in chosen:
        n = x.shape[axis]
        # out[i] = x[(i - k) mod n]: fftshift rolls by k = n // 2, ifftshift by -(n // 2)
        shift[axis] = (shift[axis] + (n // 2 if inverse else n - n // 2)) % max(n, 1)
    if x.dtype.kind not in "fc" or x.itemsize not in (4, 8, 16):
        raise TypeError(f"fftshift: dtype {x.dtype} is not served (float32, float64, complex64, complex128)")
    out = empty(x.shape, x.dtype, device=x.device, stream=stream)
    size = x.itemsize
    kernels(x.device).gather(out, x, x.shape, tuple(st // size for st in x.strides), tuple(shift), stream)
    if x is not value:
        keep(x.device, value, stream)
    return out


def fftshift(x: Any, axes: int | Sequence[int] | None = None, *, stream: Any = None) -> DeviceArray:
    """The zero frequency moved to the middle, as ``numpy.fft.fftshift`` (a new array)."""
    return _shift(x, axes, False, stream)


def ifftshift(x: Any, axes: int | Sequence[int] | None = None, *, stream: Any = None) -> DeviceArray:
    """The inverse of :func:`fftshift`, as ``numpy.fft.ifftshift``."""
    return _shift(x, axes, True, stream)
