"""hipkit.fft's own HIP kernels, the same on every platform: a strided gather (zero
padding, truncation, relayout, real to complex, the shifts of fftshift) and a scale.

They are compiled once per device (``hipkit.compile``, cached on disk) and launched on
the call's stream, in order with the transforms.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import numpy as np

from ..runtime.device import Device
from ..runtime.memory import DeviceArray
from ..runtime.module import Kernel, Module, compile

MAX_DIMS = 16  # the most axes a gather takes

_SOURCE = r"""
#include <hip/hip_runtime.h>

struct hk_c64 { float x, y; };
struct hk_c128 { double x, y; };

// dst (C order, `shape`) element d reads src at sum(s_i * stride_i), s_i = d_i + shift_i
// (mod shape_i); where some s_i >= extent_i (the source is shorter: padding) it is 0.
struct hk_geometry {
  long long rank;
  long long shape[16];
  long long stride[16];
  long long extent[16];
  long long shift[16];
};

template <typename D, typename S> __device__ inline D hk_convert(S v) { return v; }
template <> __device__ inline hk_c64 hk_convert<hk_c64, float>(float v) { return {v, 0.0f}; }
template <> __device__ inline hk_c128 hk_convert<hk_c128, double>(double v) { return {v, 0.0}; }
template <typename D> __device__ inline D hk_zero() { return D{}; }

template <typename D, typename S>
__global__ void hk_gather(D* dst, const S* src, hk_geometry g, long long total) {
  long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
    long long rest = i, offset = 0;
    bool inside = true;
    for (int k = (int)g.rank - 1; k >= 0; --k) {
      long long n = g.shape[k];
      long long d = rest % n;
      rest /= n;
      long long s = d + g.shift[k];
      if (s >= n) s -= n;
      if (s >= g.extent[k]) inside = false;
      offset += s * g.stride[k];
    }
    dst[i] = inside ? hk_convert<D, S>(src[offset]) : hk_zero<D>();
  }
}

template <typename T>
__global__ void hk_scale(T* data, T factor, long long n) {
  long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    data[i] *= factor;
}
"""

_C_NAMES: dict[np.dtype, str] = {
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.complex64): "hk_c64",
    np.dtype(np.complex128): "hk_c128",
}
_GATHERS: list[tuple[np.dtype, np.dtype]] = [
    (d, s)
    for d in _C_NAMES
    for s in _C_NAMES
    if d == s or (d.kind == "c" and s.kind == "f" and d.itemsize == 2 * s.itemsize)
]
_SCALES = ("float", "double")
_BLOCK = 256
_MAX_BLOCKS = 1 << 16


class _Geometry(ctypes.Structure):
    _fields_ = [
        ("rank", ctypes.c_longlong),
        ("shape", ctypes.c_longlong * MAX_DIMS),
        ("stride", ctypes.c_longlong * MAX_DIMS),
        ("extent", ctypes.c_longlong * MAX_DIMS),
        ("shift", ctypes.c_longlong * MAX_DIMS),
    ]


class Kernels:
    """The kernels compiled for one device."""

    def __init__(self, device: Device) -> None:
        gathers = [f"hk_gather<{_C_NAMES[d]}, {_C_NAMES[s]}>" for d, s in _GATHERS]
        scales = [f"hk_scale<{t}>" for t in _SCALES]
        module: Module = compile(
            _SOURCE, name="hipkit_fft.hip", name_expressions=gathers + scales, device=device
        )
        self._gather: dict[tuple[np.dtype, np.dtype], Kernel] = {
            pair: module.get_function(name) for pair, name in zip(_GATHERS, gathers, strict=True)
        }
        self._scale = {t: module.get_function(f"hk_scale<{t}>") for t in _SCALES}

    def gather(
        self,
        dst: DeviceArray,
        src: DeviceArray,
        extent: tuple[int, ...],
        strides: tuple[int, ...],
        shift: tuple[int, ...] | None,
        stream: Any,
    ) -> None:
        """Fill the C-contiguous ``dst`` from ``src``'s memory: dst element d reads the
        source element at ``(d + shift) % dst.shape`` (by ``strides``, in source
        elements), or 0 past ``extent``."""
        rank = dst.ndim
        if rank > MAX_DIMS:
            raise ValueError(f"hipkit.fft handles arrays of up to {MAX_DIMS} axes, got {rank}")
        g = _Geometry()
        g.rank = rank
        for k in range(rank):
            g.shape[k], g.stride[k], g.extent[k] = dst.shape[k], strides[k], extent[k]
            g.shift[k] = shift[k] if shift else 0
        total = dst.size
        if total == 0:
            return
        kernel = self._gather[(dst.dtype, src.dtype)]
        blocks = min(-(-total // _BLOCK), _MAX_BLOCKS)
        kernel.launch(blocks, _BLOCK, (dst.ptr, src.ptr, bytes(g), total), stream=stream)

    def scale(self, array: DeviceArray, factor: float, stream: Any) -> None:
        """Multiply the C-contiguous ``array`` by ``factor`` in place."""
        real = np.float32 if array.dtype in (np.float32, np.complex64) else np.float64
        count = array.size * (2 if array.dtype.kind == "c" else 1)
        if count == 0:
            return
        kernel = self._scale["float" if real is np.float32 else "double"]
        blocks = min(-(-count // _BLOCK), _MAX_BLOCKS)
        kernel.launch(blocks, _BLOCK, (array.ptr, real(factor), count), stream=stream)


_lock = threading.Lock()
_kernels: dict[tuple[Any, int, int], Kernels] = {}


def kernels(device: Device) -> Kernels:
    """The device's kernels, compiled on first use (and loaded again after a device
    reset, which unloads modules)."""
    key = (device.platform, device.index, device.platform.reset_generation(device._native))
    found = _kernels.get(key)
    if found is None:
        with _lock:
            found = _kernels.get(key)
            if found is None:
                found = _kernels[key] = Kernels(device)
    return found
