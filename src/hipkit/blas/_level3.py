"""Matrix-matrix routines beside gemm: symm, syrk, syr2k, trsm, trmm, geam.

With the result stored as its transpose (C order), a routine is called on the
transposes: ``C^T = B^T A`` (symm's side flips), ``X^T op(A)^T = B^T`` (trsm's and
trmm's side flips, op(A) becomes its transpose), the triangle read flips with each
matrix stored as its transpose, and a routine that cannot transpose an operand
(symm's and trmm's B, syr2k's pair) needs it stored as the result is.
"""

from __future__ import annotations

from typing import Any

from .. import hipblas
from ..runtime.memory import DeviceArray
from ._context import Call
from ._layout import matrix, new_matrix, operation, transpose
from ._level2 import NON_UNIT, UNIT, fill
from ._types import COMPLEX, family

_SYMM = family("hipblas{}symm")
_SYRK = family("hipblas{}syrk")
_SYR2K = family("hipblas{}syr2k")
_TRSM = family("hipblas{}trsm")
_TRMM = family("hipblas{}trmm")
_GEAM = family("hipblas{}geam")
_SIDES = {"left": 0, "l": 0, "L": 0, "right": 1, "r": 1, "R": 1}
_LEFT, _RIGHT = hipblas.HIPBLAS_SIDE_LEFT, hipblas.HIPBLAS_SIDE_RIGHT


def _side(value: Any) -> int:
    side = _SIDES.get(value) if isinstance(value, str) else None
    if side is None:
        raise ValueError(f"side: expected 'left' or 'right', got {value!r}")
    return side


def _two_d(x: DeviceArray, name: str) -> tuple[int, int]:
    if len(x.shape) != 2:
        raise ValueError(f"{name}: expected a 2-D matrix, got shape {x.shape}")
    return x.shape


def _out(call: Call, out: Any, shape: tuple[int, int], stored: int, beta: Any) -> tuple[Any, DeviceArray]:
    """(what to return, its device array): ``out``, or a new matrix stored as ``stored``."""
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta!r} with no out to accumulate into (give out, or beta=0)")
        made = new_matrix(shape, call.dtype, call.operands.device, stored, call.stream)  # type: ignore[arg-type]
        return made, made
    target = call.operands.array(out, "out")
    if target.dtype != call.dtype:
        raise TypeError(f"out: dtype {target.dtype} differs from a's {call.dtype}")
    if tuple(target.shape) != shape:
        raise ValueError(f"out: shape {tuple(target.shape)}, the result's is {shape}")
    return out, target


def _same_storage(stored: int, name: str, stored_out: int) -> None:
    if stored != stored_out:
        order = ("Fortran", "C")
        raise ValueError(
            f"{name}: in {order[stored]} order, out in {order[stored_out]} order: this routine "
            f"needs them alike (pass {name}.copy() or an out like it)"
        )


def symm(a: Any, b: Any, out: Any = None, *, side: str = "left", lower: bool = False, alpha: Any = 1.0,
         beta: Any = 0.0, stream: Any = None) -> Any:  # fmt: skip
    """``out = alpha * a @ b + beta * out`` (``side="right"``: ``b @ a``) for symmetric
    ``a``, of which the ``lower`` (or upper) triangle is read."""
    call = Call(_SYMM, stream, a=a, b=b)
    ma, mb = call.arrays
    right = _side(side)
    m, n = _two_d(mb, "b")
    na = _two_d(ma, "a")
    if na != ((n, n) if right else (m, m)):
        raise ValueError(f"a: shape {na}, b of shape {(m, n)} needs {(n, n) if right else (m, m)} ({side})")
    sa, lda = matrix(ma, "a")
    sb, ldb = matrix(mb, "b")
    result, c = _out(call, out, (m, n), sb, beta)
    sc, ldc = matrix(c, "out")
    _same_storage(sb, "b", sc)
    rows, cols, flipped = (n, m, not right) if sc else (m, n, right)
    call.routine(call.h, _RIGHT if flipped else _LEFT, fill(lower, sa), rows, cols, alpha, ma.ptr, lda,
                 mb.ptr, ldb, beta, c.ptr, ldc)  # fmt: skip
    call.done()
    return result


def _rank_k(call: Call, out: Any, trans: Any, lower: bool, beta: Any) -> tuple:
    ma = call.arrays[0]
    t, c = transpose(trans, "trans", call.dtype in COMPLEX)
    if c:
        raise ValueError("trans: syrk and syr2k of complex types take 'N' or 'T' (symmetric, not Hermitian)")
    rows, k = _two_d(ma, "a")
    n, k = (k, rows) if t else (rows, k)
    sa, lda = matrix(ma, "a")
    result, cm = _out(call, out, (n, n), 1, beta)
    if cm.shape != (n, n):
        raise ValueError(f"out: shape {cm.shape}, the result's is {(n, n)}")
    sc, ldc = matrix(cm, "out")
    return t, n, k, sa, lda, result, cm, fill(lower, sc), ldc


def syrk(a: Any, out: Any = None, *, trans: Any = False, lower: bool = False, alpha: Any = 1.0,
         beta: Any = 0.0, stream: Any = None) -> Any:  # fmt: skip
    """``out = alpha * op(a) @ op(a).T + beta * out``, only the ``lower`` (or upper)
    triangle of ``out`` written (the other is left as it was)."""
    call = Call(_SYRK, stream, a=a)
    t, n, k, sa, lda, result, c, uplo, ldc = _rank_k(call, out, trans, lower, beta)
    call.routine(
        call.h, uplo, operation(sa, t, 0, "a"), n, k, alpha, call.arrays[0].ptr, lda, beta, c.ptr, ldc
    )
    call.done()
    return result


def syr2k(a: Any, b: Any, out: Any = None, *, trans: Any = False, lower: bool = False, alpha: Any = 1.0,
          beta: Any = 0.0, stream: Any = None) -> Any:  # fmt: skip
    """``out = alpha * (op(a) @ op(b).T + op(b) @ op(a).T) + beta * out``, only the
    ``lower`` (or upper) triangle of ``out`` written."""
    call = Call(_SYR2K, stream, a=a, b=b)
    ma, mb = call.arrays
    if _two_d(mb, "b") != ma.shape:
        raise ValueError(f"b: shape {mb.shape}, a's is {ma.shape}")
    t, n, k, sa, lda, result, c, uplo, ldc = _rank_k(call, out, trans, lower, beta)
    sb, ldb = matrix(mb, "b")
    if sb != sa:
        raise ValueError("b: stored unlike a (one C order, one Fortran order): pass b.copy() and a C-order a")
    call.routine(
        call.h, uplo, operation(sa, t, 0, "a"), n, k, alpha, ma.ptr, lda, mb.ptr, ldb, beta, c.ptr, ldc
    )
    call.done()
    return result


def _triangular_plan(call: Call, side: str, lower: bool, trans: Any, unit_diagonal: bool, b: DeviceArray):
    ma = call.arrays[0]
    right = _side(side)
    m, n = _two_d(b, "b")
    need = n if right else m
    if _two_d(ma, "a") != (need, need):
        raise ValueError(f"a: shape {ma.shape}, b of shape {(m, n)} needs {(need, need)} ({side})")
    t, c = transpose(trans, "trans", call.dtype in COMPLEX)
    sa, lda = matrix(ma, "a")
    sb, _ = matrix(b, "b")
    if sb:  # X^T op(A)^T = B^T: the other side, op(A)^T
        sides, op, rows, cols = (_LEFT if right else _RIGHT), operation(sa, 1 - t, c, "a"), n, m
    else:
        sides, op, rows, cols = (_RIGHT if right else _LEFT), operation(sa, t, c, "a"), m, n
    return sides, fill(lower, sa), op, UNIT if unit_diagonal else NON_UNIT, rows, cols, lda, sb


def trsm(a: Any, b: Any, out: Any = None, *, side: str = "left", lower: bool = False, trans: Any = False,
         unit_diagonal: bool = False, alpha: Any = 1.0, stream: Any = None) -> Any:  # fmt: skip
    """Solve ``op(a) @ x = alpha * b`` (``side="right"``: ``x @ op(a) = alpha * b``) for
    triangular ``a``; ``x`` is written over ``b``, or into ``out`` (b is copied there
    first, and left as it was); returns that array."""
    call = Call(_TRSM, stream, a=a, b=b)
    ma, mb = call.arrays
    result, target = b, mb
    if out is not None:
        result, target = _out(call, out, _two_d(mb, "b"), 1, 0)
        geam(mb, mb, target, alpha=1.0, beta=0.0, stream=stream)
    plan = _triangular_plan(call, side, lower, trans, unit_diagonal, target)
    sides, uplo, op, diag, rows, cols, lda, _ = plan
    _, ldb = matrix(target, "b" if out is None else "out")
    call.routine(call.h, sides, uplo, op, diag, rows, cols, alpha, ma.ptr, lda, target.ptr, ldb)
    call.done()
    return result


def trmm(a: Any, b: Any, out: Any = None, *, side: str = "left", lower: bool = False, trans: Any = False,
         unit_diagonal: bool = False, alpha: Any = 1.0, stream: Any = None) -> Any:  # fmt: skip
    """``out = alpha * op(a) @ b`` (``side="right"``: ``alpha * b @ op(a)``) for
    triangular ``a``; ``out=None`` makes a new array."""
    call = Call(_TRMM, stream, a=a, b=b)
    ma, mb = call.arrays
    sides, uplo, op, diag, rows, cols, lda, sb = _triangular_plan(call, side, lower, trans, unit_diagonal, mb)
    _, ldb = matrix(mb, "b")
    result, c = _out(call, out, _two_d(mb, "b"), sb, 0)
    sc, ldc = matrix(c, "out")
    _same_storage(sb, "b", sc)
    call.routine(call.h, sides, uplo, op, diag, rows, cols, alpha, ma.ptr, lda, mb.ptr, ldb, c.ptr, ldc)
    call.done()
    return result


def geam(a: Any, b: Any, out: Any = None, *, alpha: Any = 1.0, beta: Any = 1.0, trans_a: Any = False,
         trans_b: Any = False, stream: Any = None) -> Any:  # fmt: skip
    """``out = alpha * op(a) + beta * op(b)``; ``out=None`` makes a new array."""
    call = Call(_GEAM, stream, a=a, b=b)
    ma, mb = call.arrays
    complex_ = call.dtype in COMPLEX
    ta, ca = transpose(trans_a, "trans_a", complex_)
    tb, cb = transpose(trans_b, "trans_b", complex_)
    shape_a, shape_b = _two_d(ma, "a"), _two_d(mb, "b")
    m, n = shape_a[::-1] if ta else shape_a
    if (shape_b[::-1] if tb else shape_b) != (m, n):
        raise ValueError(f"b: op(b) of shape {shape_b[::-1] if tb else shape_b}, op(a)'s is {(m, n)}")
    result, c = _out(call, out, (m, n), 1, 0)
    sa, lda = matrix(ma, "a")
    sb, ldb = matrix(mb, "b")
    sc, ldc = matrix(c, "out")
    if sc:  # C^T = alpha op(A)^T + beta op(B)^T
        op_a, op_b, rows, cols = operation(sa, 1 - ta, ca, "a"), operation(sb, 1 - tb, cb, "b"), n, m
    else:
        op_a, op_b, rows, cols = operation(sa, ta, ca, "a"), operation(sb, tb, cb, "b"), m, n
    call.routine(call.h, op_a, op_b, rows, cols, alpha, ma.ptr, lda, beta, mb.ptr, ldb, c.ptr, ldc)
    call.done()
    return result
