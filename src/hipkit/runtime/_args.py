"""Kernel arguments: Python values packed as the kernel's parameters.

The kernel's parameter list (size, alignment and kind of each, from the
compiled module) decides how each argument is converted, so a Python ``int``
becomes an ``int``, ``unsigned long long`` or ``float`` as the kernel declares,
with range checks instead of silent truncation.  Layout: each parameter at the
next offset aligned to its alignment, as CUDA's parameter buffer.
"""

from __future__ import annotations

import ctypes
import numbers
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from ..platforms.base import PARAM_FLOAT, PARAM_POINTER, PARAM_SIGNED, PARAM_UNSIGNED, Param
from .memory import Allocation, DeviceArray

_INT_CODES = {1: "b", 2: "h", 4: "i", 8: "q"}
_FLOAT_CODES = {2: "e", 4: "f", 8: "d"}


class Packer:
    """Packs the arguments of one kernel; made once per kernel."""

    def __init__(self, params: tuple[Param, ...], kernel_name: str, device):
        self.params = params
        self.kernel_name = kernel_name
        self.device = device
        self._foreign_arrays = device.platform.cuda_array_interface
        fmt = ["="]
        offset = 0
        self._converters: list[Callable[[Any], Any]] = []
        for index, p in enumerate(params):
            pad = -offset % max(p.align, 1)
            if pad:
                fmt.append(f"{pad}x")
            offset += pad
            code, convert = self._converter(index, p)
            fmt.append(code)
            self._converters.append(convert)
            offset += p.size
        self.size = offset
        self._struct = struct.Struct("".join(fmt))
        if not params:
            self.pack = self._pack_nothing  # type: ignore[method-assign] # the empty kernel's launch, fast

    def pack(self, args: tuple) -> bytes:
        if len(args) != len(self.params):
            raise TypeError(
                f"kernel {self.kernel_name} takes {len(self.params)} argument(s), {len(args)} given"
            )
        return self._struct.pack(*[convert(a) for convert, a in zip(self._converters, args, strict=False)])

    def _pack_nothing(self, args: tuple) -> bytes:
        if args:
            raise TypeError(f"kernel {self.kernel_name} takes no arguments, {len(args)} given")
        return b""

    def _fail(self, index: int, what: str, value: Any) -> TypeError:
        return TypeError(
            f"kernel {self.kernel_name}, argument {index}: {what}, got {type(value).__name__} {value!r:.60}"
        )

    def _converter(self, index: int, p: Param) -> tuple[str, Callable[[Any], Any]]:
        if p.kind == PARAM_POINTER:
            device = self.device
            generation = device.platform.reset_generation
            native = device._native

            def pointer(value):
                # The common case first, cheaply: a live array of this device's own memory.
                if type(value) is DeviceArray and value.device is device:
                    owner = value._owner
                    if type(owner) is Allocation and owner.generation == generation(native):
                        return value.ptr
                return self._pointer(index, value)

            return "Q", pointer
        if p.kind in (PARAM_SIGNED, PARAM_UNSIGNED) and p.size in _INT_CODES:
            signed = p.kind == PARAM_SIGNED
            bits = p.size * 8
            low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
            code = _INT_CODES[p.size] if signed else _INT_CODES[p.size].upper()
            kind = f"{'' if signed else 'u'}int{bits}"

            def integer(value):
                if type(value) is int and low <= value <= high:
                    return value
                if isinstance(value, (float, complex, np.floating, np.complexfloating)) or not isinstance(
                    value, (numbers.Integral, np.integer, np.bool_)
                ):
                    raise self._fail(index, f"expected an integer for a {kind} parameter", value)
                number = int(value)
                if not low <= number <= high:
                    raise self._fail(index, f"value out of range for {kind}", value)
                return number

            return code, integer
        if p.kind == PARAM_FLOAT and p.size in _FLOAT_CODES:

            def floating(value):
                if type(value) is float:
                    return value
                if not isinstance(value, (numbers.Real, np.number)) or isinstance(value, np.complexfloating):
                    raise self._fail(
                        index, f"expected a real number for a float{p.size * 8} parameter", value
                    )
                return float(value)

            return _FLOAT_CODES[p.size], floating

        # Structs and vector types (and anything else) travel as raw bytes.
        def raw(value):
            data = _as_bytes(value)
            if data is None or len(data) != p.size:
                raise self._fail(
                    index, f"expected {p.size} bytes (a struct, vector or NumPy record) by value", value
                )
            return data

        return f"{p.size}s", raw

    def _pointer(self, index: int, value: Any) -> int:
        if isinstance(value, DeviceArray):
            if value.device is not self.device and value.device != self.device:
                raise self._fail(index, f"array is on {value.device!r}, the kernel on {self.device!r}", value)
            value._check()
            return value.ptr
        if value is None:
            return 0
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return int(value)
        if isinstance(value, ctypes.c_void_p):
            return value.value or 0
        if isinstance(value, np.ndarray):
            raise self._fail(index, "host NumPy arrays are not device memory; use hipkit.to_device()", value)
        if self._foreign_arrays:
            # Other libraries' device arrays, zero-copy: PyTorch's data_ptr() is far
            # cheaper than its __cuda_array_interface__; CuPy, Numba and the rest have the interface.
            if getattr(value, "is_cuda", False) and hasattr(value, "data_ptr"):
                return int(value.data_ptr())
            interface = getattr(value, "__cuda_array_interface__", None)
            if interface is not None:
                return int(interface["data"][0])
        raise self._fail(index, "expected a device array, a device pointer (int) or None", value)


def _as_bytes(value: Any) -> bytes | None:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, ctypes.Structure | ctypes.Union | ctypes.Array):
        return bytes(value)
    if isinstance(value, (np.generic, np.ndarray)):
        return np.ascontiguousarray(value).tobytes()
    return None
