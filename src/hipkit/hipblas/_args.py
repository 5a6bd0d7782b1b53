"""Python values as hipBLAS's C arguments: device pointers, scalars, results.

Every conversion is chosen once per routine parameter (``_routines.py`` asks here
when it builds the wrappers); the fast path of a call is a type test.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np

from ..runtime.device import Device
from ..runtime.memory import device_pointer
from ..tables import blas_api
from ._enums import hipblasComputeType_t, hipDataType

_C64 = ctypes.c_float * 2
_C128 = ctypes.c_double * 2


def complex64(value: Any) -> ctypes.Array:
    z = complex(value)
    return _C64(z.real, z.imag)


def complex128(value: Any) -> ctypes.Array:
    z = complex(value)
    return _C128(z.real, z.imag)


def half(value: Any) -> ctypes.c_uint16:
    if isinstance(value, complex):
        raise TypeError("must be real number, not complex")
    return ctypes.c_uint16(int(np.float16(value).view(np.uint16)))


# A host scalar's C type -> the maker of its C value (from a Python or NumPy number).
SCALAR_MAKERS: dict[str, Callable[[Any], Any]] = {
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "hipComplex": complex64,
    "hipDoubleComplex": complex128,
    "hipblasHalf": half,
}

# The Ex routines' scalars are of the compute type: (for real data, for complex data).
_EX_SCALARS: dict[int, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {}
for _compute in hipblasComputeType_t:
    _bits = _compute.name.split("_")[2]  # 16F, 32F, 64F, 32I
    _by_bits: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
        "16F": (half, complex64),
        "32F": (ctypes.c_float, complex64),
        "64F": (ctypes.c_double, complex128),
        "32I": (ctypes.c_int32, complex128),
    }
    _EX_SCALARS[_compute] = _by_bits[_bits]
COMPLEX_TYPES = frozenset(t for t in hipDataType if t.name.startswith("HIP_C_"))


def ex_scalar(compute: int, ctype: int) -> Callable[[Any], Any]:
    """The maker of an Ex routine's scalars, for its compute type and C's data type.
    A compute type hipBLAS lacks gets 16 bytes (the widest scalar), for the library
    to refuse by its status."""
    makers = _EX_SCALARS.get(compute)
    if makers is None:
        return complex128
    return makers[1] if ctype in COMPLEX_TYPES else makers[0]


def _real_result(ctype: type, numpy_type: type) -> Callable[[Any], Any]:
    def read(slot: Any) -> Any:
        return numpy_type(slot.value)

    read.ctype = ctype  # type: ignore[attr-defined]
    return read


def _complex_result(ctype: type, numpy_type: type) -> Callable[[Any], Any]:
    def read(slot: Any) -> Any:
        return numpy_type(complex(slot[0], slot[1]))

    read.ctype = ctype  # type: ignore[attr-defined]
    return read


def _int_result(slot: Any) -> int:
    return int(slot.value)


_int_result.ctype = ctypes.c_int  # type: ignore[attr-defined]

# A result's C type -> (its C slot, how its value is read): NumPy scalars, as NumPy's own
# reductions give; amax/amin: a Python int (1-based, as hipBLAS counts).
RESULT_READERS: dict[str, Callable[[Any], Any]] = {
    "float*": _real_result(ctypes.c_float, np.float32),
    "double*": _real_result(ctypes.c_double, np.float64),
    "hipComplex*": _complex_result(_C64, np.complex64),
    "hipDoubleComplex*": _complex_result(_C128, np.complex128),
    "int*": _int_result,
}


def base_type(param: blas_api.Param) -> str:
    """``const hipComplex*`` -> ``hipComplex``."""
    return param.ctype.replace("const ", "").replace("*", "").strip()


def foreign_pointer(value: Any, device: Device, function: str, param: str) -> int:
    """The device address of anything but an int or a DeviceArray (the fast paths):
    :func:`hipkit.runtime.memory.device_pointer`'s."""
    return device_pointer(value, device, f"{function}: {param}")


def host_pointer(value: Any, function: str, param: str, writable: bool) -> tuple[int, Any]:
    """(address, what keeps it alive) of host memory: an int, a NumPy array or a buffer."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value), None
    try:
        array = value if isinstance(value, np.ndarray) else np.frombuffer(value, np.uint8)
    except TypeError:
        raise TypeError(
            f"{function}: {param}: expected host memory (a NumPy array, a buffer or an address), "
            f"got {type(value).__name__}"
        ) from None
    if writable and not array.flags.writeable:
        raise ValueError(f"{function}: {param}: the host array is read-only")
    return array.ctypes.data, array
