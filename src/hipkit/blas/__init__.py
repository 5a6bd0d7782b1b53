"""hipkit.blas: BLAS for NumPy-shaped arrays, row-major and in place, on every platform.

Arrays are hipkit DeviceArrays or any DLPack tensor on the device (PyTorch, CuPy;
on the CPU platform, NumPy arrays), in NumPy's row-major sense; nothing is copied.
Each call maps them onto hipBLAS's column-major routines (:mod:`hipkit.hipblas`, the
same path and the same profiler rows) by choosing transposes and leading dimensions
from their strides: C order, Fortran order, transposed views and slices whose last
(or first) axis is contiguous all go straight to BLAS.  Any other layout is a
ValueError naming the argument (pass ``x.copy()``); hipkit.blas never copies an
operand behind your back.

Conventions
-----------
- ``out=None`` makes the result on the operands' device, of their dtype; with
  ``out`` given it is written in place (and ``beta`` scales what it held).  Routines
  that update an operand (axpy, scal, ger, trsv, trmv, trsm, rot, swap) do it in
  place and return it.
- Reductions (dot, vdot, nrm2, asum) return a NumPy scalar (the call waits for it);
  with ``out`` (a one-element device array) they write there without waiting.
  iamax and iamin return a 0-based index, as NumPy's argmax (BLAS counts from 1).
- ``trans`` arguments: False or "N", True or "T", "C" or "H" (conjugate transpose).
- dtypes: float32, float64, complex64, complex128; gemm and matmul also float16 and
  bfloat16 (accumulating in float32).  TF32 is never used unless asked for
  (``allow_tf32=True`` on gemm, matmul, gemm_batched).
- ``stream=``: the stream to queue on (a hipkit Stream, a native handle, or None:
  the null stream).  Each thread has one hipBLAS handle per device, kept.
- Errors: a shape that does not fit -> ValueError naming the argument and the
  shapes; a dtype not served, or two that differ -> TypeError naming the argument;
  arrays on different devices -> ValueError; hipBLAS's own -> hipblas.HipblasError.

Example
-------
>>> import numpy as np, hipkit
>>> from hipkit import blas
>>> a = hipkit.to_device(np.random.rand(64, 32).astype(np.float32))
>>> b = hipkit.to_device(np.random.rand(32, 16).astype(np.float32))
>>> c = blas.gemm(a, b)                       # a @ b
>>> d = blas.gemm(a, c, trans_a=True)         # a.T @ c
>>> batch = hipkit.to_device(np.random.rand(8, 16, 64).astype(np.float32))
>>> e = blas.matmul(batch, a)                 # 8 products, one call: a broadcast
>>> float(blas.nrm2(c.reshape(-1))) > 0
True
"""

from __future__ import annotations

from ._gemm import gemm, gemm_batched, matmul
from ._level1 import asum, axpy, copy, dot, dotc, iamax, iamin, nrm2, rot, scal, swap, vdot
from ._level2 import gemv, ger, symv, trmv, trsv
from ._level3 import geam, symm, syr2k, syrk, trmm, trsm

__all__ = [
    "asum",
    "axpy",
    "copy",
    "dot",
    "dotc",
    "geam",
    "gemm",
    "gemm_batched",
    "gemv",
    "ger",
    "iamax",
    "iamin",
    "matmul",
    "nrm2",
    "rot",
    "scal",
    "swap",
    "symm",
    "symv",
    "syr2k",
    "syrk",
    "trmm",
    "trmv",
    "trsm",
    "trsv",
    "vdot",
]
