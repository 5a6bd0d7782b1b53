"""Vector routines: axpy, scal, copy, swap, dot, vdot, nrm2, asum, iamax, iamin, rot.

Vectors are 1-D arrays of any nonzero stride; a negative stride is BLAS's negative
increment, which axpy, copy, swap, dot, vdot and rot take; scal, nrm2 and asum do
not depend on the order and read the elements from the lowest in memory; iamax and
iamin refuse a reversed view (their index would count from its end).  In-place
routines return the caller's array.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import hipblas
from ..runtime.memory import empty
from ._context import Call, Operands
from ._layout import vector
from ._types import COMPLEX, COMPLEX64, COMPLEX128, FLOAT32, FLOAT64, REAL, family

_R = hipblas.routines
_COMPLEX = (COMPLEX64, COMPLEX128)
_AXPY = family("hipblas{}axpy")
_SCAL = family("hipblas{}scal")
_SCAL_REAL = {COMPLEX64: _R["hipblasCsscal"], COMPLEX128: _R["hipblasZdscal"]}
_COPY = family("hipblas{}copy")
_SWAP = family("hipblas{}swap")
_REAL_DOT = {FLOAT32: _R["hipblasSdot"], FLOAT64: _R["hipblasDdot"]}
_DOT = {**_REAL_DOT, **family("hipblas{}dotu", _COMPLEX)}
_DOTC = {**_REAL_DOT, **family("hipblas{}dotc", _COMPLEX)}
_NORMS = tuple(zip((FLOAT32, FLOAT64, COMPLEX64, COMPLEX128), ("S", "D", "Sc", "Dz"), "sdcz", strict=True))
_NRM2 = {t: _R[f"hipblas{x}nrm2"] for t, x, _ in _NORMS}
_ASUM = {t: _R[f"hipblas{x}asum"] for t, x, _ in _NORMS}
_AMAX = {t: _R[f"hipblasI{x}amax"] for t, _, x in _NORMS}
_AMIN = {t: _R[f"hipblasI{x}amin"] for t, _, x in _NORMS}
_ROT = {FLOAT32: _R["hipblasSrot"], FLOAT64: _R["hipblasDrot"], **family("hipblas{}rot", _COMPLEX)}
_ROT_REAL = {COMPLEX64: _R["hipblasCsrot"], COMPLEX128: _R["hipblasZdrot"]}


def axpy(alpha: Any, x: Any, y: Any, *, stream: Any = None) -> Any:
    """``y += alpha * x``, in place; returns ``y``."""
    call = Call(_AXPY, stream, x=x, y=y)
    n, px, incx, py, incy = call.pair()
    call.routine(call.h, n, alpha, px, incx, py, incy)
    call.done()
    return y


def scal(alpha: Any, x: Any, *, stream: Any = None) -> Any:
    """``x *= alpha``, in place; returns ``x`` (a real alpha on complex x: Csscal, Zdscal)."""
    call = Call(_SCAL, stream, x=x)
    n, px, inc = vector(call.arrays[0], "x")
    routine = call.routine
    if call.dtype in COMPLEX and not np.iscomplexobj(alpha):
        routine = _SCAL_REAL[call.dtype]
    routine(call.h, n, alpha, px, abs(inc))
    call.done()
    return x


def copy(x: Any, out: Any = None, *, stream: Any = None) -> Any:
    """``out[:] = x``; ``out=None`` makes a new contiguous array.  Returns ``out``."""
    if out is None:
        operands = Operands(x)
        source = operands.array(x, "x")
        out = empty(source.shape[:1], source.dtype, operands.device, stream=stream)
    call = Call(_COPY, stream, x=x, y=out)
    n, px, incx, py, incy = call.pair()
    call.routine(call.h, n, px, incx, py, incy)
    call.done()
    return out


def swap(x: Any, y: Any, *, stream: Any = None) -> None:
    """Exchange the contents of ``x`` and ``y``, in place."""
    call = Call(_SWAP, stream, x=x, y=y)
    n, px, incx, py, incy = call.pair()
    call.routine(call.h, n, px, incx, py, incy)
    call.done()


def dot(x: Any, y: Any, out: Any = None, *, stream: Any = None) -> Any:
    """``sum(x * y)``, unconjugated as NumPy's dot (Sdot, Cdotu...): a NumPy scalar, or
    written to ``out`` (a one-element device array) and ``out`` returned."""
    call = Call(_DOT, stream, x=x, y=y)
    n, px, incx, py, incy = call.pair()
    return call.result(lambda *r: call.routine(call.h, n, px, incx, py, incy, *r), out, call.dtype)


def vdot(x: Any, y: Any, out: Any = None, *, stream: Any = None) -> Any:
    """``sum(conj(x) * y)``, as NumPy's vdot (Cdotc, Zdotc; dot for real types)."""
    call = Call(_DOTC, stream, x=x, y=y)
    n, px, incx, py, incy = call.pair()
    return call.result(lambda *r: call.routine(call.h, n, px, incx, py, incy, *r), out, call.dtype)


dotc = vdot


def nrm2(x: Any, out: Any = None, *, stream: Any = None) -> Any:
    """The Euclidean norm of ``x``, real, of x's precision."""
    call = Call(_NRM2, stream, x=x)
    n, px, inc = vector(call.arrays[0], "x")
    return call.result(lambda *r: call.routine(call.h, n, px, abs(inc), *r), out, REAL[call.dtype])


def asum(x: Any, out: Any = None, *, stream: Any = None) -> Any:
    """``sum(|x.real| + |x.imag|)``, BLAS's asum (for complex x that is not sum(|x|))."""
    call = Call(_ASUM, stream, x=x)
    n, px, inc = vector(call.arrays[0], "x")
    return call.result(lambda *r: call.routine(call.h, n, px, abs(inc), *r), out, REAL[call.dtype])


def _index(x: Any, table: dict[np.dtype, Callable[..., Any]], stream: Any, what: str) -> int:
    call = Call(table, stream, x=x)
    n, px, inc = vector(call.arrays[0], "x")
    if n == 0:
        raise ValueError(f"x: {what} of an empty vector")
    if inc < 0:
        raise ValueError(f"x: {what} of a reversed view (stride {call.arrays[0].strides[0]} bytes)")
    index = call.routine(call.h, n, px, inc) - 1  # hipBLAS counts from 1
    call.done()
    return int(index)


def iamax(x: Any, *, stream: Any = None) -> int:
    """The 0-based index (as NumPy's argmax) of the first element of largest
    ``|x.real| + |x.imag|`` (BLAS's measure; for real x, ``|x|``)."""
    return _index(x, _AMAX, stream, "iamax")


def iamin(x: Any, *, stream: Any = None) -> int:
    """The 0-based index of the first element of smallest ``|x.real| + |x.imag|``."""
    return _index(x, _AMIN, stream, "iamin")


def rot(x: Any, y: Any, c: Any, s: Any, *, stream: Any = None) -> None:
    """The plane rotation, in place: ``x, y = c*x + s*y, c*y - conj(s)*x`` (``c`` real,
    ``s`` real, or complex for complex vectors)."""
    call = Call(_ROT, stream, x=x, y=y)
    n, px, incx, py, incy = call.pair()
    routine = call.routine
    if call.dtype in COMPLEX and not np.iscomplexobj(s):
        routine = _ROT_REAL[call.dtype]
    routine(call.h, n, px, incx, py, incy, c, s)
    call.done()
