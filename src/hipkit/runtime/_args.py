"""Kernel arguments: Python values packed as the kernel's parameters.

The kernel's parameter list (size, alignment and kind of each, from the
compiled module) decides how each argument is converted, so a Python ``int``
becomes an ``int``, ``unsigned long long`` or ``float`` as the kernel declares,
with range checks instead of silent truncation.  Layout: each parameter at the
next offset aligned to its alignment, as CUDA's parameter buffer.
"""

from __future__ import annotations

import ctypes
import functools
import numbers
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from ..platforms.base.platform import PARAM_FLOAT, PARAM_POINTER, PARAM_SIGNED, PARAM_UNSIGNED, Param
from .memory import Allocation, DeviceArray

_INT_CODES = {1: "b", 2: "h", 4: "i", 8: "q"}
_FLOAT_CODES = {2: "e", 4: "f", 8: "d"}


class Packer:
    """Packs the arguments of one kernel; made once per kernel.

    ``pack(args)`` is generated for the kernel's parameter list as one
    straight-line function (as ``collections.namedtuple`` makes its methods):
    the common argument types (a live array of the kernel's device, an ``int``
    in range, a ``float``) are taken inline; anything else goes through the
    parameter's converter, which also gives the errors.  A launch is Python's
    hot path, and this halves its packing time against a loop over converters.
    """

    def __init__(self, params: tuple[Param, ...], kernel_name: str, device):
        self.params = params
        self.kernel_name = kernel_name
        self.device = device
        self._foreign_arrays = device.platform.cuda_array_interface
        fmt = ["="]
        offset = 0
        self._converters: list[Callable[[Any], Any]] = []
        inline: list[str] = []
        for index, p in enumerate(params):
            pad = -offset % max(p.align, 1)
            if pad:
                fmt.append(f"{pad}x")
            offset += pad
            code, convert = self._converter(index, p)
            fmt.append(code)
            self._converters.append(convert)
            inline.append(_inline_conversion(index, p))
            offset += p.size
        self.size = offset
        self._struct = struct.Struct("".join(fmt))
        self.pack: Callable[[tuple], bytes] = self._generate(inline)

    def _generate(self, inline: list[str]) -> Callable[[tuple], bytes]:
        count = len(inline)
        names = "".join(f"a{i}, " for i in range(count))
        lines = [
            "def pack(args):",
            f"    if len(args) != {count}:",
            "        raise arity(len(args))",
        ]
        if count:
            lines.append(f"    {names}= args")
        if any(p.kind == PARAM_POINTER for p in self.params):
            lines.append("    g = generation(native)")
        lines.append(f"    return struct_pack({', '.join(inline)})")
        namespace: dict[str, Any] = {
            "arity": self._arity_error,
            "generation": self.device.platform.reset_generation,
            "native": self.device._native,
            "device": self.device,
            "struct_pack": self._struct.pack,
            "DeviceArray": DeviceArray,
            "Allocation": Allocation,
        }
        namespace.update((f"c{i}", convert) for i, convert in enumerate(self._converters))
        exec("\n".join(lines), namespace)  # our own text, made from the parameter kinds
        return namespace["pack"]

    def _arity_error(self, given: int) -> TypeError:
        count = len(self.params)
        if not count:
            return TypeError(f"kernel {self.kernel_name} takes no arguments, {given} given")
        return TypeError(f"kernel {self.kernel_name} takes {count} argument(s), {given} given")

    def _fail(self, index: int, what: str, value: Any) -> TypeError:
        return TypeError(
            f"kernel {self.kernel_name}, argument {index}: {what}, got {type(value).__name__} {value!r:.60}"
        )

    def _converter(self, index: int, p: Param) -> tuple[str, Callable[[Any], Any]]:
        if p.kind == PARAM_POINTER:
            return "Q", functools.partial(self._pointer, index)
        if p.kind in (PARAM_SIGNED, PARAM_UNSIGNED) and p.size in _INT_CODES:
            signed = p.kind == PARAM_SIGNED
            bits = p.size * 8
            low, high = _int_range(p)
            code = _INT_CODES[p.size] if signed else _INT_CODES[p.size].upper()
            kind = f"{'' if signed else 'u'}int{bits}"

            def integer(value):
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


def _int_range(p: Param) -> tuple[int, int]:
    bits = p.size * 8
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if p.kind == PARAM_SIGNED else (0, (1 << bits) - 1)


def _inline_conversion(index: int, p: Param) -> str:
    """The expression ``pack`` uses for argument ``a{index}``: the common case
    inline, else the converter ``c{index}``."""
    a, slow = f"a{index}", f"c{index}(a{index})"
    if p.kind == PARAM_POINTER:
        return (
            f"{a}.ptr if type({a}) is DeviceArray and {a}.device is device and "
            f"type({a}._owner) is Allocation and {a}._owner.generation == g else {slow}"
        )
    if p.kind in (PARAM_SIGNED, PARAM_UNSIGNED) and p.size in _INT_CODES:
        low, high = _int_range(p)
        return f"{a} if type({a}) is int and {low} <= {a} <= {high} else {slow}"
    if p.kind == PARAM_FLOAT and p.size in (4, 8):
        return f"{a} if type({a}) is float else {slow}"
    return slow


def _as_bytes(value: Any) -> bytes | None:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, ctypes.Structure | ctypes.Union | ctypes.Array):
        return bytes(value)
    if isinstance(value, (np.generic, np.ndarray)):
        return np.ascontiguousarray(value).tobytes()
    return None
