"""Row-major arrays as BLAS's column-major operands, by their strides, with no copy.

A matrix whose rows are contiguous (stride of its last axis one element) is,
column-major, its own transpose with leading dimension its row stride; one whose
columns are contiguous (a transposed view, Fortran order) is itself, column-major,
with leading dimension its column stride.  A routine then asks for the operation
on that storage that gives the matrix it wants (:func:`operation`).  Anything else
(both strides past one element, negative or zero strides) has no BLAS form: a
ValueError names the argument, and a contiguous copy (``x.copy()``) is the remedy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..hipblas import HIPBLAS_OP_C, HIPBLAS_OP_N, HIPBLAS_OP_T
from ..runtime.device import Device
from ..runtime.memory import DeviceArray, empty

# trans arguments: -> (transposed, conjugated)
TRANSPOSES = {
    False: (0, 0),
    True: (1, 0),
    "N": (0, 0),
    "n": (0, 0),
    "T": (1, 0),
    "t": (1, 0),
    "C": (1, 1),
    "c": (1, 1),
    "H": (1, 1),
    "h": (1, 1),
}


def transpose(value: object, name: str, complex_: bool) -> tuple[int, int]:
    """(transposed, conjugated) of a ``trans`` argument: False/"N", True/"T", "C"/"H"
    (the conjugate transpose: the transpose for real types)."""
    try:
        t, c = TRANSPOSES[value]  # type: ignore[index]
    except (KeyError, TypeError):
        raise ValueError(f"{name}: expected False/'N', True/'T' or 'C'/'H', got {value!r}") from None
    return t, c & complex_


def matrix(x: DeviceArray, name: str) -> tuple[int, int]:
    """(stored, ld): ``stored`` 1 where the column-major storage of ``x`` is its
    transpose (rows contiguous), 0 where it is ``x`` (columns contiguous); ``ld`` the
    leading dimension of that storage, in elements."""
    shape, strides = x.shape, x.strides
    rows, cols, s0, s1 = shape[-2], shape[-1], strides[-2], strides[-1]
    size = x.dtype.itemsize
    if s1 == size and rows > 1 and s0 >= cols * size and s0 % size == 0:  # the common case: C order
        return 1, s0 // size
    return storages(x, name)[0]


def storages(x: DeviceArray, name: str) -> list[tuple[int, int]]:
    """Every (stored, ld) of :func:`matrix` that fits ``x``, C order's first: a matrix
    of one row or one column is both (a routine picks the one its operands need)."""
    shape, strides = x.shape, x.strides
    rows, cols, s0, s1 = shape[-2], shape[-1], strides[-2], strides[-1]
    size = x.dtype.itemsize
    found = []
    if s0 % size == 0 and s1 % size == 0:
        e0, e1 = s0 // size, s1 // size
        if cols <= 1 or e1 == 1:
            ld = e0 if rows > 1 else max(cols, 1)
            if ld >= max(cols, 1):
                found.append((1, ld))
        if rows <= 1 or e0 == 1:
            ld = e1 if cols > 1 else max(rows, 1)
            if ld >= max(rows, 1):
                found.append((0, ld))
    if not found:
        raise ValueError(
            f"{name}: a {rows}x{cols} matrix with strides {strides[-2:]} bytes has no BLAS layout "
            f"(one axis of stride {size}, the other positive and past it): pass {name}.copy()"
        )
    return found


def operation(stored: int, transposed: int, conjugated: int, name: str) -> int:
    """The BLAS operation on a matrix's column-major storage (``stored`` as
    :func:`matrix` says) that gives the matrix transposed and conjugated as asked."""
    if transposed ^ stored:
        return HIPBLAS_OP_C if conjugated else HIPBLAS_OP_T
    if conjugated:
        raise ValueError(
            f"{name}: the conjugate transpose of this transposed view has no BLAS operation: "
            f"pass a C-contiguous {name}"
        )
    return HIPBLAS_OP_N


def operand(x: DeviceArray, name: str, transposed: int, conjugated: int) -> tuple[int, int]:
    """(operation, ld) of :func:`operation` on ``x``'s storage; a matrix of one row or
    column takes the storage that has the operation."""
    if min(x.shape[-2:]) > 1:  # one layout (the common case)
        stored, ld = matrix(x, name)
        return operation(stored, transposed, conjugated, name), ld
    options = storages(x, name)
    for stored, ld in options[:-1]:
        if transposed ^ stored or not conjugated:
            return operation(stored, transposed, conjugated, name), ld
    stored, ld = options[-1]
    return operation(stored, transposed, conjugated, name), ld


def vector(x: DeviceArray, name: str) -> tuple[int, int, int]:
    """(n, address, inc) of a 1-D array for BLAS: a negative stride is a negative
    increment from the element lowest in memory, as BLAS has it."""
    if len(x.shape) != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {x.shape}")
    n = x.shape[0]
    stride = x.strides[0]
    size = x.itemsize
    if n <= 1:
        return n, x.ptr, 1
    if stride == 0 or stride % size:
        raise ValueError(f"{name}: stride {stride} bytes is not a whole, nonzero number of elements")
    inc = stride // size
    return n, x.ptr if inc > 0 else x.ptr + (n - 1) * stride, inc


def new_matrix(
    shape: tuple[int, int], dtype: np.dtype, device: Device, stored: int, stream: Any
) -> DeviceArray:
    """A new matrix whose storage is as ``stored`` says (1: C order, 0: Fortran order),
    its memory for ``stream`` (the call's)."""
    if stored:
        return empty(shape, dtype, device, stream=stream)
    base = empty((shape[1], shape[0]), dtype, device, stream=stream)
    return DeviceArray(shape, dtype, ptr=base.ptr, owner=base, device=device, strides=base.strides[::-1])
