"""Matrix products: gemm, matmul (batches as strided-batched gemm), gemm_batched.

Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: with C stored
as its transpose (C order), B comes first; with C in Fortran order, A does.  Each
operand's operation follows from how it is stored (``_layout.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import hipblas
from ..runtime.memory import DeviceArray, empty, to_device
from ._context import Operands, handle_of
from ._layout import matrix, operand, storages, transpose
from ._types import COMPLEX, COMPUTE_TYPES, DATA_TYPES, HALF_TYPES, TF32_TYPES, family, same_dtype

_GEMM = family("hipblas{}gemm")
_BATCHED = family("hipblas{}gemmBatched")
_STRIDED = family("hipblas{}gemmStridedBatched")
_GEMM_EX = hipblas.routines["hipblasGemmEx"]
_BATCHED_EX = hipblas.routines["hipblasGemmBatchedEx"]
_STRIDED_EX = hipblas.routines["hipblasGemmStridedBatchedEx"]
_DEFAULT = hipblas.HIPBLAS_GEMM_DEFAULT
_TF32 = hipblas.HIPBLAS_COMPUTE_32F_FAST_TF32


def _dtype(a: DeviceArray, b: DeviceArray) -> np.dtype:
    dtype = a.dtype
    if dtype not in DATA_TYPES:
        served = ", ".join(str(t) for t in DATA_TYPES)
        raise TypeError(f"a: dtype {dtype} is not served by gemm (expected one of {served})")
    same_dtype(b, dtype, "b", "a")
    return dtype


def _ex(dtype: np.dtype, allow_tf32: bool) -> int:
    """The Ex compute type where the call goes through an Ex routine, else 0."""
    if dtype in HALF_TYPES:
        return COMPUTE_TYPES[dtype]
    if allow_tf32 and dtype in TF32_TYPES:
        return _TF32
    return 0


def _shapes(a: Any, b: Any, ta: int, tb: int) -> tuple[int, int, int]:
    m, k = (a.shape[-1], a.shape[-2]) if ta else a.shape[-2:]
    kb, n = (b.shape[-1], b.shape[-2]) if tb else b.shape[-2:]
    if kb != k:
        raise ValueError(
            f"b: shape {tuple(b.shape)}{' (transposed)' if tb else ''} does not follow a's "
            f"{tuple(a.shape)}{' (transposed)' if ta else ''}: op(a) has {k} columns, op(b) {kb} rows"
        )
    return m, n, k


def _plan(a: Any, b: Any, c: Any, ta: int, ca: int, tb: int, cb: int) -> tuple:
    """(op1, op2, first, ld1, second, ld2, ldc, swapped): the column-major call.  A
    matrix of one row or column may be taken either way: the way that gives every
    operand an operation."""
    if min(c.shape[-2:]) > 1:  # one layout (the common case)
        return _plan_for(*matrix(c, "out"), a, b, ta, ca, tb, cb)
    choices = storages(c, "out")
    for sc, ldc in choices[:-1]:
        try:
            return _plan_for(sc, ldc, a, b, ta, ca, tb, cb)
        except ValueError:
            pass
    return _plan_for(*choices[-1], a, b, ta, ca, tb, cb)


def _plan_for(sc: int, ldc: int, a: Any, b: Any, ta: int, ca: int, tb: int, cb: int) -> tuple:
    """_plan's call for an output stored as ``sc`` says, with leading dimension ``ldc``."""
    if sc:  # C^T = op(B)^T op(A)^T
        (op1, ld1), (op2, ld2) = operand(b, "b", 1 - tb, cb), operand(a, "a", 1 - ta, ca)
        return op1, op2, b, ld1, a, ld2, ldc, True
    (op1, ld1), (op2, ld2) = operand(a, "a", ta, ca), operand(b, "b", tb, cb)
    return op1, op2, a, ld1, b, ld2, ldc, False


def gemm(
    a: Any,
    b: Any,
    out: Any = None,
    *,
    alpha: Any = 1.0,
    beta: Any = 0.0,
    trans_a: Any = False,
    trans_b: Any = False,
    allow_tf32: bool = False,
    stream: Any = None,
) -> DeviceArray:
    """``out = alpha * op(a) @ op(b) + beta * out`` for 2-D arrays (``trans_*``: False or
    "N", True or "T", "C" or "H" for the conjugate transpose).  ``out=None`` makes a new
    array (then ``beta`` must be 0).  float16 and bfloat16 accumulate in float32;
    float32 and complex64 use TF32 only with ``allow_tf32=True``."""
    operands = Operands(a, b, out)
    a, b = operands.array(a, "a"), operands.array(b, "b")
    dtype = _dtype(a, b)
    for x, name in ((a, "a"), (b, "b")):
        if len(x.shape) != 2:
            raise ValueError(f"{name}: gemm takes 2-D arrays, got shape {x.shape} (matmul takes batches)")
    complex_ = dtype in COMPLEX
    ta, ca = transpose(trans_a, "trans_a", complex_)
    tb, cb = transpose(trans_b, "trans_b", complex_)
    m, n, k = _shapes(a, b, ta, tb)
    result, c = _output(operands, out, (m, n), dtype, beta, stream)
    op1, op2, first, ld1, second, ld2, ldc, swapped = _plan(a, b, c, ta, ca, tb, cb)
    rows, cols = (n, m) if swapped else (m, n)
    handle = handle_of(operands.device)  # type: ignore[arg-type]
    h = handle.use(stream)
    compute = _ex(dtype, allow_tf32)
    if compute:
        t = DATA_TYPES[dtype]
        _GEMM_EX(h, op1, op2, rows, cols, k, alpha, first.ptr, t, ld1, second.ptr, t, ld2,
                 beta, c.ptr, t, ldc, compute, _DEFAULT)  # fmt: skip
    else:
        _GEMM[dtype](h, op1, op2, rows, cols, k, alpha, first.ptr, ld1, second.ptr, ld2, beta, c.ptr, ldc)
    if operands.foreign:
        handle.keep(operands.foreign, stream)
    return result


def _output(
    operands: Operands, out: Any, shape: tuple[int, ...], dtype: np.dtype, beta: Any, stream: Any
) -> tuple[Any, DeviceArray]:
    """(what to return, its device array): ``out`` as given, or a new array (its
    memory for ``stream``, the product's)."""
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta!r} with no out to accumulate into (give out, or beta=0)")
        made = empty(shape, dtype, operands.device, stream=stream)
        return made, made
    target = operands.array(out, "out")
    same_dtype(target, dtype, "out", "a")
    if tuple(target.shape) != shape:
        raise ValueError(f"out: shape {tuple(target.shape)}, the product's is {shape}")
    return out, target


def _batch_stride(x: DeviceArray, batch: tuple[int, ...], name: str, broadcast: bool) -> int:
    """The elements between ``x``'s matrices along its batch axes: 0 where it has none
    (broadcast: one matrix for every product), else one stride its batch axes
    collapse to."""
    shape, strides = x.shape[:-2], x.strides[:-2]
    axes = [(n, s) for n, s in zip(shape, strides, strict=True) if n != 1]
    if not axes:
        if broadcast or int(np.prod(batch)) <= 1:
            return 0
        raise ValueError(f"out: shape {x.shape}, the batch is {batch}")
    full = (1,) * (len(batch) - len(shape)) + tuple(shape)
    if full != batch:
        raise ValueError(f"{name}: batch axes {tuple(shape)} broadcast partly against {batch}: no one stride")
    for (_, outer), (n, inner) in zip(axes, axes[1:], strict=False):
        if outer != inner * n:
            raise ValueError(f"{name}: batch strides {strides} do not collapse to one: pass {name}.copy()")
    stride = axes[-1][1]
    if stride <= 0 or stride % x.itemsize:
        raise ValueError(f"{name}: batch stride {stride} bytes is not a positive number of elements")
    return stride // x.itemsize


def matmul(a: Any, b: Any, out: Any = None, *, allow_tf32: bool = False, stream: Any = None) -> DeviceArray:
    """``a @ b`` as NumPy's matmul has it for arrays of 2 or more axes: the last two are
    the matrices, the others a batch (broadcast as NumPy does, a single matrix against
    a batch by a stride of 0), done as one strided-batched gemm."""
    operands = Operands(a, b, out)
    a, b = operands.array(a, "a"), operands.array(b, "b")
    for x, name in ((a, "a"), (b, "b")):
        if len(x.shape) < 2:
            raise ValueError(
                f"{name}: matmul takes arrays of 2 or more axes, got shape {x.shape} (gemv, dot)"
            )
    if len(a.shape) == len(b.shape) == 2:
        return gemm(a, b, out, allow_tf32=allow_tf32, stream=stream)
    dtype = _dtype(a, b)
    m, n, k = _shapes(a, b, 0, 0)
    try:
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    except ValueError:
        raise ValueError(
            f"b: batch axes {b.shape[:-2]} do not broadcast against a's {a.shape[:-2]}"
        ) from None
    stride_a = _batch_stride(a, batch, "a", broadcast=True)
    stride_b = _batch_stride(b, batch, "b", broadcast=True)
    result, c = _output(operands, out, (*batch, m, n), dtype, 0, stream)
    stride_c = _batch_stride(c, batch, "out", broadcast=False)
    count = int(np.prod(batch))
    op1, op2, first, ld1, second, ld2, ldc, swapped = _plan(a, b, c, 0, 0, 0, 0)
    rows, cols = (n, m) if swapped else (m, n)
    stride1, stride2 = (stride_b, stride_a) if swapped else (stride_a, stride_b)
    handle = handle_of(operands.device)  # type: ignore[arg-type]
    h = handle.use(stream)
    compute = _ex(dtype, allow_tf32)
    if compute:
        t = DATA_TYPES[dtype]
        _STRIDED_EX(h, op1, op2, rows, cols, k, 1.0, first.ptr, t, ld1, stride1, second.ptr, t, ld2,
                    stride2, 0.0, c.ptr, t, ldc, stride_c, count, compute, _DEFAULT)  # fmt: skip
    else:
        _STRIDED[dtype](h, op1, op2, rows, cols, k, 1.0, first.ptr, ld1, stride1, second.ptr, ld2,
                        stride2, 0.0, c.ptr, ldc, stride_c, count)  # fmt: skip
    if operands.foreign:
        handle.keep(operands.foreign, stream)
    return result


def gemm_batched(
    a: Sequence[Any],
    b: Sequence[Any],
    out: Sequence[Any] | None = None,
    *,
    alpha: Any = 1.0,
    beta: Any = 0.0,
    trans_a: Any = False,
    trans_b: Any = False,
    allow_tf32: bool = False,
    stream: Any = None,
) -> list[DeviceArray]:
    """:func:`gemm` of each ``a[i]``, ``b[i]`` into ``out[i]``, as one batched call: the
    matrices of each list alike (shape, dtype, strides), anywhere in memory."""
    if len(b) != len(a) or (out is not None and len(out) != len(a)):
        given = f"{len(a)}, {len(b)}" + ("" if out is None else f", {len(out)}")
        raise ValueError(f"b: a, b{'' if out is None else ' and out'} differ in length: {given}")
    if not a:
        return list(out or [])
    operands = Operands(*a, *b, *(out or ()))
    a_list = _alike(operands, a, "a")
    b_list = _alike(operands, b, "b")
    first_a, first_b = a_list[0], b_list[0]
    dtype = _dtype(first_a, first_b)
    complex_ = dtype in COMPLEX
    ta, ca = transpose(trans_a, "trans_a", complex_)
    tb, cb = transpose(trans_b, "trans_b", complex_)
    m, n, k = _shapes(first_a, first_b, ta, tb)
    if out is None:
        if beta != 0:
            raise ValueError(f"beta: {beta!r} with no out to accumulate into (give out, or beta=0)")
        c_list = [empty((m, n), dtype, operands.device, stream=stream) for _ in a_list]
    else:
        c_list = _alike(operands, out, "out")
        same_dtype(c_list[0], dtype, "out[0]", "a[0]")
        if tuple(c_list[0].shape) != (m, n):
            raise ValueError(f"out[0]: shape {tuple(c_list[0].shape)}, the product's is {(m, n)}")
    op1, op2, first, ld1, second, ld2, ldc, swapped = _plan(first_a, first_b, c_list[0], ta, ca, tb, cb)
    rows, cols = (n, m) if swapped else (m, n)
    lists = (b_list, a_list) if swapped else (a_list, b_list)
    device = operands.device
    pointers = [to_device(np.array([x.ptr for x in xs], np.uint64), device=device) for xs in (*lists, c_list)]
    handle = handle_of(device)  # type: ignore[arg-type]
    h = handle.use(stream)
    compute = _ex(dtype, allow_tf32)
    p1, p2, pc = (p.ptr for p in pointers)
    if compute:
        t = DATA_TYPES[dtype]
        _BATCHED_EX(h, op1, op2, rows, cols, k, alpha, p1, t, ld1, p2, t, ld2, beta, pc, t, ldc,
                    len(a_list), compute, _DEFAULT)  # fmt: skip
    else:
        _BATCHED[dtype](h, op1, op2, rows, cols, k, alpha, p1, ld1, p2, ld2, beta, pc, ldc, len(a_list))
    handle.keep([*pointers, *operands.foreign], stream)
    return c_list if out is None else list(out)


def _alike(operands: Operands, xs: Sequence[Any], name: str) -> list[DeviceArray]:
    arrays = [operands.array(x, f"{name}[{i}]") for i, x in enumerate(xs)]
    first = arrays[0]
    if len(first.shape) != 2:
        raise ValueError(f"{name}[0]: gemm_batched takes 2-D arrays, got shape {first.shape}")
    for i, x in enumerate(arrays[1:], 1):
        if x.shape != first.shape or x.strides != first.strides or x.dtype != first.dtype:
            raise ValueError(
                f"{name}[{i}]: {x.dtype}{list(x.shape)} strides {x.strides} unlike {name}[0]'s "
                f"{first.dtype}{list(first.shape)} strides {first.strides}: a batch's matrices are alike"
            )
    return arrays
