"""hipkit.blas against NumPy on fresh random data, on every platform present: row-major
arrays in C order, Fortran order (transposed views) and slices, every operation,
every type (float16 and bfloat16 for gemm and matmul), batches broadcast by a stride
of 0, reductions to the host and to device memory, streams, other libraries'
tensors in place.  Its errors are in test_blas_errors.py."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_hipblas import (
    ON_EVERY_PLATFORM,
    _provider,  # noqa: F401  (autouse: skips where no BLAS is served)
    close,
    random,
    triangle,
    well_conditioned,
)

import hipkit
from hipkit import blas
from hipkit.platforms.base.platform import kDLCPU

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
LAYOUTS = ["C", "F", "slice"]


def transposed(x: hipkit.DeviceArray) -> hipkit.DeviceArray:
    """``x`` with its last two axes swapped (``x.T`` of a matrix): a view."""
    *batch, rows, cols = x.shape
    *outer, s0, s1 = x.strides
    shape, strides = (*batch, cols, rows), (*outer, s1, s0)
    return hipkit.DeviceArray(shape, x.dtype, ptr=x.ptr, owner=x, device=x.device, strides=strides)


def laid_out(host: np.ndarray, layout: str) -> hipkit.DeviceArray:
    """``host`` on the device: in C order, in Fortran order (a transposed view of a C
    array) or as a slice of a wider C array (rows further apart than their length)."""
    if layout == "C":
        return hipkit.to_device(host)
    if layout == "F":
        return transposed(hipkit.to_device(np.ascontiguousarray(host.T)))
    wide = np.zeros((host.shape[0], host.shape[1] + 3), host.dtype)
    wide[:, 1 : 1 + host.shape[1]] = host
    return hipkit.to_device(wide)[:, 1 : 1 + host.shape[1]]


def conjugated_across(dtype, trans: str, layout: str, result_layout: str) -> bool:
    """Whether op(x) is a conjugate transpose of an x stored unlike the result (one in
    Fortran order, the other not): the conjugate of a storage untransposed, which BLAS
    lacks."""
    return np.dtype(dtype).kind == "c" and trans == "C" and (layout == "F") != (result_layout == "F")


def op(x: np.ndarray, trans: str) -> np.ndarray:
    return {"N": x, "T": x.T, "C": x.conj().T}[trans]


def shaped(trans: str, rows: int, cols: int) -> tuple[int, int]:
    """The shape of a matrix whose op(...) is rows x cols."""
    return (rows, cols) if trans == "N" else (cols, rows)


# ------------------------------------------------------------------ gemm and matmul


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ta", "NTC")
@pytest.mark.parametrize("tb", "NTC")
def test_gemm(device, rng, dtype, ta, tb):
    m, n, k = (int(v) for v in rng.integers(1, 20, 3))
    for layouts in (("C", "C", "C"), tuple(rng.choice(LAYOUTS, 3))):
        a = random(rng, shaped(ta, m, k), dtype)
        b = random(rng, shaped(tb, k, n), dtype)
        c = random(rng, (m, n), dtype)
        alpha, beta = random(rng, 2, dtype)
        if conjugated_across(dtype, ta, layouts[0], layouts[2]) or conjugated_across(
            dtype, tb, layouts[1], layouts[2]
        ):
            continue  # no BLAS form: test_blas_errors.py
        out = laid_out(c, layouts[2])
        result = blas.gemm(laid_out(a, layouts[0]), laid_out(b, layouts[1]), out, alpha=alpha, beta=beta,
                           trans_a=ta, trans_b=tb)  # fmt: skip
        assert result is out
        close(out.get(), alpha * op(a, ta) @ op(b, tb) + beta * c, dtype, k)
    made = blas.gemm(hipkit.to_device(a), hipkit.to_device(b), trans_a=ta, trans_b=tb)
    assert made.shape == (m, n) and made.dtype == dtype and made.is_contiguous
    close(made.get(), op(a, ta) @ op(b, tb), dtype, k)


@pytest.mark.parametrize("ta", "NTC")
@pytest.mark.parametrize("tb", "NTC")
def test_gemm_of_one_row_or_column_takes_either_layout(device, rng, ta, tb):
    # A 1 x n matrix is both C- and Fortran-ordered: whichever gives every operand a
    # BLAS operation is taken, so no conjugate transpose is refused for its layout.
    dtype = np.complex128
    for m, n, k in ((1, 3, 2), (3, 1, 2), (2, 3, 1), (1, 1, 1)):
        for layouts in itertools.product(LAYOUTS, repeat=3):
            a, b, c = (
                random(rng, shaped(ta, m, k), dtype),
                random(rng, shaped(tb, k, n), dtype),
                random(rng, (m, n), dtype),
            )
            # A slice of one column is rows apart: C order only.
            either = [
                min(x.shape) == 1 and layout != "slice" for x, layout in zip((a, b), layouts[:2], strict=True)
            ]
            if conjugated_across(dtype, ta, layouts[0], layouts[2]) and not either[0]:
                continue
            if conjugated_across(dtype, tb, layouts[1], layouts[2]) and not either[1]:
                continue
            out = laid_out(c, layouts[2])
            blas.gemm(laid_out(a, layouts[0]), laid_out(b, layouts[1]), out, beta=1.0, trans_a=ta, trans_b=tb)
            close(out.get(), op(a, ta) @ op(b, tb) + c, dtype, k)


def _half_types() -> list:
    types = [np.dtype(np.float16)]
    try:
        import ml_dtypes

        types.append(np.dtype(ml_dtypes.bfloat16))
    except ImportError:
        pass
    return types


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", _half_types(), ids=str)
def test_half_types_accumulate_in_float32(device, rng, dtype):
    m, n, k = 9, 7, 33
    a, b = random(rng, (m, k), np.float32).astype(dtype), random(rng, (n, k), np.float32).astype(dtype)
    expected = a.astype(np.float64) @ b.astype(np.float64).T
    close(blas.gemm(hipkit.to_device(a), hipkit.to_device(b), trans_b=True).get().astype(np.float64),
          expected, dtype)  # fmt: skip  # float32 sums: only the result's rounding
    batch = random(rng, (3, m, k), np.float32).astype(dtype)
    result = blas.matmul(hipkit.to_device(batch), transposed(hipkit.to_device(b)))
    close(result.get().astype(np.float64), batch.astype(np.float64) @ b.astype(np.float64).T, dtype)


@ON_EVERY_PLATFORM
def test_tf32_only_when_asked(device, rng):
    """Full float32 by default; allow_tf32 may round the inputs to TF32 (on hardware
    without TF32 it changes nothing)."""
    a, b = random(rng, (16, 64), np.float32), random(rng, (64, 8), np.float32)
    da, db = hipkit.to_device(a), hipkit.to_device(b)
    close(blas.gemm(da, db).get(), a.astype(np.float64) @ b, np.float32, 64)
    close(blas.gemm(da, db, allow_tf32=True).get(), a.astype(np.float64) @ b, np.float16, 64)
    close(blas.matmul(da, db, allow_tf32=True).get(), a.astype(np.float64) @ b, np.float16, 64)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
@pytest.mark.parametrize(
    "shape_a, shape_b",
    [
        ((3, 4, 5), (3, 5, 2)),
        ((4, 5), (3, 5, 2)),
        ((2, 3, 4, 5), (5, 6)),
        ((0, 4, 5), (5, 2)),
        ((1, 4, 5), (3, 5, 2)),
    ],
)
def test_matmul_batches(device, rng, dtype, shape_a, shape_b):
    a, b = random(rng, shape_a, dtype), random(rng, shape_b, dtype)
    result = blas.matmul(hipkit.to_device(a), hipkit.to_device(b))
    expected = np.matmul(a, b)
    assert result.shape == expected.shape
    close(result.get(), expected, dtype, a.shape[-1])
    out = hipkit.zeros(expected.shape, dtype)
    assert blas.matmul(hipkit.to_device(a), hipkit.to_device(b), out) is out
    close(out.get(), expected, dtype, a.shape[-1])


@ON_EVERY_PLATFORM
def test_matmul_of_views(device, rng):
    """Each matrix of a batch transposed, a batch sliced, a matrix broadcast: strides
    only, no copy."""
    a, b = random(rng, (4, 6, 5), np.float64), random(rng, (4, 6, 3), np.float64)
    b_t = transposed(hipkit.to_device(b))  # (4, 3, 6)
    close(blas.matmul(b_t, hipkit.to_device(a)).get(), np.matmul(b.transpose(0, 2, 1), a), np.float64, 6)
    wide, c = random(rng, (4, 6, 9), np.float64), random(rng, (5, 2), np.float64)
    sliced = hipkit.to_device(wide)[:, :, 2:7]
    close(blas.matmul(sliced, hipkit.to_device(c)).get(), np.matmul(wide[:, :, 2:7], c), np.float64, 5)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("count", [0, 1, 4])
def test_gemm_batched_lists(device, rng, count):
    m, n, k = 5, 3, 7
    a = [random(rng, (k, m), np.complex64) for _ in range(count)]
    b = [random(rng, (k, n), np.complex64) for _ in range(count)]
    c = [random(rng, (m, n), np.complex64) for _ in range(count)]
    out = [hipkit.to_device(x) for x in c]
    result = blas.gemm_batched([hipkit.to_device(x) for x in a], [laid_out(x, "slice") for x in b], out,
                               alpha=2j, beta=0.5, trans_a="C")  # fmt: skip
    assert result == out
    for x, y, z, got in zip(a, b, c, result, strict=True):
        close(got.get(), 2j * x.conj().T @ y + 0.5 * z, np.complex64, k)
    made = blas.gemm_batched([hipkit.to_device(x.T.copy()) for x in a], [hipkit.to_device(y) for y in b])
    for x, y, got in zip(a, b, made, strict=True):
        close(got.get(), x.T @ y, np.complex64, k)


# ------------------------------------------------------------------ level 2


def vector_on_device(host: np.ndarray, step: int) -> hipkit.DeviceArray:
    """``host`` as a strided view (``step`` elements apart; negative: reversed)."""
    n = len(host)
    buffer = np.zeros(max(1 + (n - 1) * abs(step), 1), host.dtype)
    places = np.arange(n) * abs(step)
    buffer[places if step > 0 else places[::-1]] = host
    whole = hipkit.to_device(buffer)
    return whole[::step] if n else whole[:0]


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", "NTC")
@pytest.mark.parametrize("layout", ["C", "F"])
def test_gemv(device, rng, dtype, trans, layout):
    m, n = (int(v) for v in rng.integers(1, 15, 2))
    a = random(rng, (m, n), dtype)
    rows, cols = (m, n) if trans == "N" else (n, m)
    x, y = random(rng, cols, dtype), random(rng, rows, dtype)
    alpha, beta = random(rng, 2, dtype)
    out = vector_on_device(y, -2)
    assert (
        blas.gemv(laid_out(a, layout), vector_on_device(x, 3), out, alpha=alpha, beta=beta, trans=trans)
        is out
    )
    close(out.get(), alpha * op(a, trans) @ x + beta * y, dtype, cols)
    close(
        blas.gemv(laid_out(a, layout), hipkit.to_device(x), trans=trans).get(), op(a, trans) @ x, dtype, cols
    )


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("conj", [False, True])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_ger(device, rng, dtype, conj, layout):
    m, n = (int(v) for v in rng.integers(1, 15, 2))
    a, x, y = random(rng, (m, n), dtype), random(rng, m, dtype), random(rng, n, dtype)
    alpha = random(rng, (), dtype)[()]
    da = laid_out(a, layout)
    assert blas.ger(vector_on_device(x, -1), vector_on_device(y, 2), da, alpha=alpha, conj=conj) is da
    close(da.get(), a + alpha * np.outer(x, y.conj() if conj else y), dtype)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_symv(device, rng, dtype, lower, layout):
    n = int(rng.integers(1, 15))
    a, x, y = random(rng, (n, n), dtype), random(rng, n, dtype), random(rng, n, dtype)
    half = np.tril(a) if lower else np.triu(a)
    symmetric = half + half.T - np.diag(a.diagonal())
    out = hipkit.to_device(y)
    blas.symv(laid_out(a, layout), hipkit.to_device(x), out, alpha=1.5, beta=-1.0, lower=lower)
    close(out.get(), 1.5 * symmetric @ x - y, dtype, n)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", "NTC")
@pytest.mark.parametrize("layout", ["C", "F"])
def test_trsv_and_trmv(device, rng, dtype, trans, layout):
    n = int(rng.integers(1, 15))
    a, x = well_conditioned(rng, n, dtype), random(rng, n, dtype)
    for lower in (False, True):
        unit = bool(rng.integers(2))
        t = op(triangle(a, lower, unit), trans)
        dx = vector_on_device(x, -2)
        options = {"lower": lower, "trans": trans, "unit_diagonal": unit}
        assert blas.trmv(laid_out(a, layout), dx, **options) is dx
        close(dx.get(), t @ x, dtype, n)
        blas.trsv(laid_out(a, layout), dx, **options)
        close(dx.get(), x, dtype, n)


# ------------------------------------------------------------------ level 3 beside gemm


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_symm(device, rng, dtype, side, layout):
    m, n = (int(v) for v in rng.integers(1, 12, 2))
    size = m if side == "left" else n
    a, b, c = random(rng, (size, size), dtype), random(rng, (m, n), dtype), random(rng, (m, n), dtype)
    for lower in (False, True):
        half = np.tril(a) if lower else np.triu(a)
        s = half + half.T - np.diag(a.diagonal())
        product = s @ b if side == "left" else b @ s
        out = laid_out(c, layout)
        blas.symm(laid_out(a, "C"), laid_out(b, layout), out, side=side, lower=lower, alpha=2.0, beta=0.5)
        close(out.get(), 2.0 * product + 0.5 * c, dtype, size)
        close(
            blas.symm(laid_out(a, "F"), laid_out(b, layout), side=side, lower=lower).get(),
            product,
            dtype,
            size,
        )


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", "NT")
@pytest.mark.parametrize("layout", ["C", "F"])
def test_syrk_and_syr2k(device, rng, dtype, trans, layout):
    n, k = (int(v) for v in rng.integers(1, 12, 2))
    a, b = random(rng, shaped(trans, n, k), dtype), random(rng, shaped(trans, n, k), dtype)
    c = random(rng, (n, n), dtype)
    oa, ob = op(a, trans), op(b, trans)
    for lower in (False, True):
        keep = np.tril if lower else np.triu
        out = laid_out(c, layout)
        blas.syrk(laid_out(a, layout), out, trans=trans, lower=lower, alpha=0.5, beta=2.0)
        got = out.get()
        close(keep(got), keep(0.5 * oa @ oa.T + 2.0 * c), dtype, k)
        np.testing.assert_array_equal(got - keep(got), c - keep(c))
        made = blas.syr2k(laid_out(a, layout), laid_out(b, layout), trans=trans, lower=lower).get()
        close(keep(made), keep(oa @ ob.T + ob @ oa.T), dtype, k)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("trans", "NTC")
def test_trsm_and_trmm(device, rng, dtype, side, trans):
    m, n = (int(v) for v in rng.integers(1, 12, 2))
    size = m if side == "left" else n
    a, b = well_conditioned(rng, size, dtype), random(rng, (m, n), dtype)
    alpha = random(rng, (), dtype)[()]
    for layout_a, layout_b in (("C", "C"), ("C", "F"), ("F", "C"), ("slice", "slice")):
        if conjugated_across(dtype, trans, layout_a, layout_b):
            continue  # no BLAS form: test_blas_errors.py
        lower, unit = bool(rng.integers(2)), bool(rng.integers(2))
        t = op(triangle(a, lower, unit), trans)
        options = {"side": side, "lower": lower, "trans": trans, "unit_diagonal": unit, "alpha": alpha}
        product = blas.trmm(laid_out(a, layout_a), laid_out(b, layout_b), **options)
        close(product.get(), alpha * (t @ b if side == "left" else b @ t), dtype, size)
        db = laid_out(b, layout_b)
        assert blas.trsm(laid_out(a, layout_a), db, **options) is db
        x = db.get()
        close(t @ x if side == "left" else x @ t, alpha * b, dtype, size)
        source = laid_out(b, layout_b)
        out = hipkit.zeros((m, n), dtype)
        assert blas.trsm(laid_out(a, layout_a), source, out, **options) is out
        close(out.get(), x, dtype, size)
        np.testing.assert_array_equal(source.get(), b)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ta", "NTC")
@pytest.mark.parametrize("tb", "NTC")
def test_geam(device, rng, dtype, ta, tb):
    m, n = (int(v) for v in rng.integers(1, 12, 2))
    a, b = random(rng, shaped(ta, m, n), dtype), random(rng, shaped(tb, m, n), dtype)
    layouts = rng.choice(["C", "slice"] if "C" in ta + tb else LAYOUTS, 3)
    out = laid_out(np.zeros((m, n), dtype), layouts[2])
    blas.geam(
        laid_out(a, layouts[0]), laid_out(b, layouts[1]), out, alpha=2.0, beta=-1.0, trans_a=ta, trans_b=tb
    )
    close(out.get(), 2.0 * op(a, ta) - op(b, tb), dtype)
    close(blas.geam(hipkit.to_device(a), hipkit.to_device(b), trans_a=ta, trans_b=tb).get(),
          op(a, ta) + op(b, tb), dtype)  # fmt: skip


# ------------------------------------------------------------------ level 1


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("steps", [(1, 1), (2, -1), (-3, 2)])
def test_vector_routines(device, rng, dtype, steps):
    n = int(rng.integers(1, 40))
    x, y = random(rng, n, dtype), random(rng, n, dtype)
    alpha = random(rng, (), dtype)[()]
    dx, dy = vector_on_device(x, steps[0]), vector_on_device(y, steps[1])
    assert blas.axpy(alpha, dx, dy) is dy
    close(dy.get(), y + alpha * x, dtype)
    assert blas.scal(alpha, dy) is dy
    close(dy.get(), alpha * (y + alpha * x), dtype)
    blas.scal(0.5, dx)  # a real alpha on complex x: Csscal, Zdscal
    close(dx.get(), 0.5 * x, dtype)
    dx, dy = vector_on_device(x, steps[0]), vector_on_device(y, steps[1])
    close(blas.dot(dx, dy), x @ y, dtype, n)
    close(blas.vdot(dx, dy), np.vdot(x, y), dtype, n)
    assert blas.dotc is blas.vdot
    assert type(blas.dot(dx, dy)) is np.dtype(dtype).type
    real = np.dtype(np.dtype(dtype).char.lower())
    close(blas.nrm2(dx), np.linalg.norm(x), real, n)
    close(blas.asum(dx), np.sum(np.abs(x.real) + np.abs(x.imag)), real, n)
    assert type(blas.nrm2(dx)) is real.type
    copied = blas.copy(dx)
    assert copied.is_contiguous
    np.testing.assert_array_equal(copied.get(), x)
    assert blas.copy(dx, dy) is dy
    np.testing.assert_array_equal(dy.get(), x)
    dy = vector_on_device(y, steps[1])
    blas.swap(dx, dy)
    np.testing.assert_array_equal(dx.get(), y)
    np.testing.assert_array_equal(dy.get(), x)
    theta = rng.uniform(0, 2 * np.pi)
    c, s = np.cos(theta), np.sin(theta)
    for sine in (s, s * np.exp(1j * theta)) if np.dtype(dtype).kind == "c" else (s,):
        dx, dy = vector_on_device(x, steps[0]), vector_on_device(y, steps[1])
        blas.rot(dx, dy, c, sine)
        close(dx.get(), c * x + sine * y, dtype)
        close(dy.get(), c * y - np.conj(sine) * x, dtype)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("dtype", DTYPES)
def test_indices_are_numpys(device, rng, dtype):
    """0-based, as argmax; of |re| + |im|, as BLAS measures."""
    x = random(rng, int(rng.integers(1, 40)), dtype)
    measure = np.abs(x.real) + np.abs(x.imag)
    for view in (hipkit.to_device(x), vector_on_device(x, 3)):
        assert blas.iamax(view) == np.argmax(measure)
        assert blas.iamin(view) == np.argmin(measure)
        assert type(blas.iamax(view)) is int


@ON_EVERY_PLATFORM
def test_reductions_into_device_memory(device, rng):
    """With out, the result stays on the device (nothing waits for it)."""
    x, y = random(rng, 25, np.complex64), random(rng, 25, np.complex64)
    dx, dy = hipkit.to_device(x), hipkit.to_device(y)
    results = hipkit.zeros(2, np.complex64)
    norms = hipkit.zeros(2, np.float32)
    assert blas.dot(dx, dy, results[0:1]) is not None
    blas.vdot(dx, dy, results[1:2])
    blas.nrm2(dx, norms[0:1])
    blas.asum(dx, norms[1:2])
    close(results.get(), [x @ y, np.vdot(x, y)], np.complex64, 25)
    close(norms.get(), [np.linalg.norm(x), np.sum(np.abs(x.real) + np.abs(x.imag))], np.float32, 25)
    close(blas.dot(dx, dy), x @ y, np.complex64, 25)  # and the handle is back in host mode


# ------------------------------------------------------------------ streams, tensors in place


@ON_EVERY_PLATFORM
def test_streams(device, rng):
    """Each call on the stream given; the thread's handle follows it, in order with
    the other work of that stream."""
    a, b = random(rng, (20, 30), np.float32), random(rng, (30, 10), np.float32)
    first, second = hipkit.Stream(non_blocking=True), hipkit.Stream(non_blocking=True)
    da, db = hipkit.to_device(a), hipkit.to_device(b)
    c = blas.gemm(da, db, stream=first)
    d = blas.gemm(da, db, stream=second)
    blas.scal(2.0, c.reshape(-1), stream=first)
    first.synchronize()
    second.synchronize()
    close(c.get(), 2 * a @ b, np.float32, 30)
    close(d.get(), a @ b, np.float32, 30)
    close(blas.nrm2(c.reshape(-1), stream=first.native_handle), np.linalg.norm(2 * a @ b), np.float32, 600)


@ON_EVERY_PLATFORM
def test_tensors_of_other_libraries(device, rng):
    """DLPack tensors on the device are used in place (NumPy's where the device's
    memory is the host's), also mixed with hipkit's arrays, also as temporaries."""
    if device.platform.dlpack_device_type != kDLCPU:
        pytest.skip("NumPy arrays are not this device's memory")
    a, b = random(rng, (6, 5), np.float64), random(rng, (5, 4), np.float64)
    out = np.zeros((6, 4))
    blas.gemm(a, b.T.copy().T, out)  # b in Fortran order, seen through DLPack's strides
    device.synchronize()
    close(out, a @ b, np.float64, 5)
    close(blas.gemm(a.T, hipkit.to_device(a)).get(), a.T @ a, np.float64, 6)
    y = np.ones(6)
    for _ in range(3):
        blas.axpy(2.0, np.arange(6.0), y)  # a temporary x, kept until the work is done
    device.synchronize()
    np.testing.assert_array_equal(y, 1 + 6 * np.arange(6.0))
    assert blas.dot(a[:, 0], a[:, 1]) == pytest.approx(a[:, 0] @ a[:, 1])


@ON_EVERY_PLATFORM
def test_threads_each_have_a_handle(device, rng):
    """Calls from several threads at once, each on a stream of its own."""
    import threading

    a = [random(rng, (12, 12), np.float64) for _ in range(4)]
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        with device:
            stream = hipkit.Stream(non_blocking=True)
            da = hipkit.to_device(a[i])
            c = da
            for _ in range(5):
                c = blas.gemm(da, c, stream=stream)
            stream.synchronize()
            results[i] = c.get()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, x in enumerate(a):
        close(results[i], np.linalg.matrix_power(x, 6), np.float64, 12 * 6)
