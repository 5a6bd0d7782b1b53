"""Matrix-vector routines: gemv, ger, symv, trsv, trmv.

A matrix stored as its transpose (C order) flips the triangle a routine reads and
the operation it applies (``_layout.py``).  The one operation BLAS lacks there, the
conjugate of the storage untransposed, is reached by conjugating vectors instead
(``conj(A^H x) = A^T conj(x)``): :func:`conjugate` does it in place with a real
scal of -1 on the imaginary parts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import hipblas
from ..runtime.memory import DeviceArray, empty
from ._context import Call
from ._layout import matrix, operation, transpose, vector
from ._types import COMPLEX, COMPLEX64, COMPLEX128, FLOAT32, FLOAT64, family

_R = hipblas.routines
_GEMV = family("hipblas{}gemv")
_GER = {
    FLOAT32: _R["hipblasSger"],
    FLOAT64: _R["hipblasDger"],
    **family("hipblas{}geru", (COMPLEX64, COMPLEX128)),
}
_GERC = family("hipblas{}gerc", (COMPLEX64, COMPLEX128))
_SYMV = family("hipblas{}symv")
_TRSV = family("hipblas{}trsv")
_TRMV = family("hipblas{}trmv")
_COPY = family("hipblas{}copy")
_REAL_SCAL = {COMPLEX64: _R["hipblasSscal"], COMPLEX128: _R["hipblasDscal"]}
LOWER, UPPER = hipblas.HIPBLAS_FILL_MODE_LOWER, hipblas.HIPBLAS_FILL_MODE_UPPER
UNIT, NON_UNIT = hipblas.HIPBLAS_DIAG_UNIT, hipblas.HIPBLAS_DIAG_NON_UNIT


def fill(lower: bool, stored: int) -> int:
    """The triangle of the storage that is the matrix's ``lower`` (or upper) one."""
    return LOWER if bool(lower) ^ bool(stored) else UPPER


def conjugate(call: Call, dtype: np.dtype, address: int, n: int, inc: int) -> None:
    """Conjugate ``n`` complex elements ``inc`` apart from ``address``, in place."""
    if n:
        half = dtype.itemsize // 2
        _REAL_SCAL[dtype](call.h, n, -1.0, address + half, 2 * abs(inc))


def _square(a: DeviceArray, name: str = "a") -> int:
    if len(a.shape) != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name}: expected a square matrix, got shape {a.shape}")
    return a.shape[0]


def _vector_out(call: Call, out: Any, length: int, beta: Any) -> tuple[Any, DeviceArray]:
    """(what to return, its device array) for a routine's output vector."""
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta!r} with no out to accumulate into (give out, or beta=0)")
        made = empty((length,), call.dtype, call.operands.device, stream=call.stream)
        return made, made
    target = call.operands.array(out, "out")
    if target.dtype != call.dtype:
        raise TypeError(f"out: dtype {target.dtype} differs from a's {call.dtype}")
    if target.shape != (length,):
        raise ValueError(f"out: shape {target.shape}, the result's is {(length,)}")
    return out, target


def gemv(
    a: Any,
    x: Any,
    out: Any = None,
    *,
    alpha: Any = 1.0,
    beta: Any = 0.0,
    trans: Any = False,
    stream: Any = None,
) -> Any:
    """``out = alpha * op(a) @ x + beta * out`` (``trans``: False/"N", True/"T", "C")."""
    call = Call(_GEMV, stream, a=a, x=x)
    matrix_, vector_ = call.arrays
    if len(matrix_.shape) != 2:
        raise ValueError(f"a: expected a 2-D matrix, got shape {matrix_.shape}")
    t, c = transpose(trans, "trans", call.dtype in COMPLEX)
    m, n = matrix_.shape
    rows, cols = (n, m) if t else (m, n)
    nx, px, incx = vector(vector_, "x")
    if nx != cols:
        raise ValueError(f"x: length {nx}, op(a) of shape {(rows, cols)} needs {cols}")
    result, y = _vector_out(call, out, rows, beta)
    _, py, incy = vector(y, "out")
    stored, lda = matrix(matrix_, "a")
    storage = (n, m) if stored else (m, n)
    if c and not (t ^ stored):  # A^H of C-order storage: conj(y) = conj(alpha) A^T conj(x) + ...
        temporary = empty((nx,), call.dtype, call.operands.device, stream=call.stream)
        _COPY[call.dtype](call.h, nx, px, incx, temporary.ptr, 1)
        conjugate(call, call.dtype, temporary.ptr, nx, 1)
        if beta != 0:
            conjugate(call, call.dtype, py, rows, incy)
        call.routine(call.h, hipblas.HIPBLAS_OP_N, *storage, np.conj(alpha), matrix_.ptr, lda,
                     temporary.ptr, 1, np.conj(beta), py, incy)  # fmt: skip
        conjugate(call, call.dtype, py, rows, incy)
        call.operands.foreign.append(temporary)  # freed once the work is done, not waited for
    else:
        op = operation(stored, t, c, "a")
        call.routine(call.h, op, *storage, alpha, matrix_.ptr, lda, px, incx, beta, py, incy)
    call.done()
    return result


def ger(x: Any, y: Any, a: Any, *, alpha: Any = 1.0, conj: bool = False, stream: Any = None) -> Any:
    """``a += alpha * outer(x, y)`` in place (``conj``: ``outer(x, conj(y))``, gerc);
    returns ``a``."""
    call = Call(_GER, stream, x=x, y=y, a=a)
    vx, vy, matrix_ = call.arrays
    if len(matrix_.shape) != 2:
        raise ValueError(f"a: expected a 2-D matrix, got shape {matrix_.shape}")
    m, n = matrix_.shape
    nx, px, incx = vector(vx, "x")
    ny, py, incy = vector(vy, "y")
    if (nx, ny) != (m, n):
        raise ValueError(f"y: outer(x, y) of lengths {(nx, ny)} does not match a's shape {(m, n)}")
    conj = bool(conj) and call.dtype in COMPLEX
    stored, lda = matrix(matrix_, "a")
    if not stored:
        routine = _GERC[call.dtype] if conj else call.routine
        routine(call.h, m, n, alpha, px, incx, py, incy, matrix_.ptr, lda)
    elif not conj:  # A^T += alpha y x^T
        call.routine(call.h, n, m, alpha, py, incy, px, incx, matrix_.ptr, lda)
    else:  # A^T += alpha conj(y) x^T
        temporary = empty((n,), call.dtype, call.operands.device, stream=call.stream)
        _COPY[call.dtype](call.h, n, py, incy, temporary.ptr, 1)
        conjugate(call, call.dtype, temporary.ptr, n, 1)
        call.routine(call.h, n, m, alpha, temporary.ptr, 1, px, incx, matrix_.ptr, lda)
        call.operands.foreign.append(temporary)
    call.done()
    return a


def symv(
    a: Any,
    x: Any,
    out: Any = None,
    *,
    alpha: Any = 1.0,
    beta: Any = 0.0,
    lower: bool = False,
    stream: Any = None,
) -> Any:
    """``out = alpha * a @ x + beta * out`` for symmetric ``a``, of which only the
    ``lower`` (or upper) triangle is read (complex: symmetric, not Hermitian)."""
    call = Call(_SYMV, stream, a=a, x=x)
    matrix_, vector_ = call.arrays
    n = _square(matrix_)
    nx, px, incx = vector(vector_, "x")
    if nx != n:
        raise ValueError(f"x: length {nx}, a of shape {matrix_.shape} needs {n}")
    result, y = _vector_out(call, out, n, beta)
    _, py, incy = vector(y, "out")
    stored, lda = matrix(matrix_, "a")
    call.routine(call.h, fill(lower, stored), n, alpha, matrix_.ptr, lda, px, incx, beta, py, incy)
    call.done()
    return result


def _triangular(
    table: dict, a: Any, x: Any, lower: bool, trans: Any, unit_diagonal: bool, stream: Any
) -> Any:
    call = Call(table, stream, a=a, x=x)
    matrix_, vector_ = call.arrays
    n = _square(matrix_)
    nx, px, incx = vector(vector_, "x")
    if nx != n:
        raise ValueError(f"x: length {nx}, a of shape {matrix_.shape} needs {n}")
    t, c = transpose(trans, "trans", call.dtype in COMPLEX)
    stored, lda = matrix(matrix_, "a")
    uplo, diag = fill(lower, stored), UNIT if unit_diagonal else NON_UNIT
    if c and not (t ^ stored):  # A^H of C-order storage: conj(op(A) x) = A^T conj(x)
        conjugate(call, call.dtype, px, n, incx)
        call.routine(call.h, uplo, hipblas.HIPBLAS_OP_N, diag, n, matrix_.ptr, lda, px, incx)
        conjugate(call, call.dtype, px, n, incx)
    else:
        call.routine(call.h, uplo, operation(stored, t, c, "a"), diag, n, matrix_.ptr, lda, px, incx)
    call.done()
    return x


def trsv(a: Any, x: Any, *, lower: bool = False, trans: Any = False, unit_diagonal: bool = False,
         stream: Any = None) -> Any:  # fmt: skip
    """Solve ``op(a) @ z = x`` for triangular ``a`` (its ``lower`` or upper triangle;
    ``unit_diagonal``: ones taken for its diagonal), ``z`` written over ``x``; returns ``x``."""
    return _triangular(_TRSV, a, x, lower, trans, unit_diagonal, stream)


def trmv(a: Any, x: Any, *, lower: bool = False, trans: Any = False, unit_diagonal: bool = False,
         stream: Any = None) -> Any:  # fmt: skip
    """``x = op(a) @ x`` for triangular ``a``, in place; returns ``x``."""
    return _triangular(_TRMV, a, x, lower, trans, unit_diagonal, stream)
