"""The CPU platform's hipBLAS provider (libhipkit_cpu_blas.so on OpenBLAS) through the
BLAS seam, as the front ends call it: hipBLAS's C functions with C's arguments, on
device arrays of hipkit's runtime.  Results against NumPy on fresh random data,
column-major with leading dimensions larger than the rows (the padding must be left
alone); hipBLAS's statuses; pointer modes; stream order behind a kernel.

Nothing waits on time: work that must not have run yet sits behind a kernel that
spins until the test sets a flag in device memory, after the calls under test
returned (it gives up after billions of spins, and the results then say so)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hipkit
from hipkit import HipError, platforms
from hipkit.platforms.base.blas import BlasUnavailable

CPU = platforms.status()["cpu"]
pytestmark = pytest.mark.skipif(bool(CPU), reason=f"cpu platform absent: {CPU}")

# hipBLAS's numbers (hipkit_blas/api.h, hipkit_portable/library_types.h).
OP_N, OP_T, OP_C = 111, 112, 113
UPPER, LOWER, FULL = 121, 122, 123
NON_UNIT, UNIT = 131, 132
LEFT, RIGHT = 141, 142
HOST, DEVICE = 0, 1
SUCCESS, NOT_INITIALIZED, INVALID_VALUE, NOT_SUPPORTED, HANDLE_IS_NULLPTR, INVALID_ENUM = 0, 1, 3, 7, 9, 10
R_32F, R_64F, R_16F, R_8I, C_32F, R_32I, R_16BF = 0, 1, 2, 3, 4, 10, 14
COMPUTE_16F, COMPUTE_32F, COMPUTE_32F_FAST_TF32, COMPUTE_64F, COMPUTE_32I = 0, 2, 6, 7, 9
GEMM_DEFAULT = 160

GATE = r"""
// Spins until *flag is set (by the test, after the calls under test returned), then
// fills a with 2, or with -1 if it gave up (a call waited for its work).
extern "C" __global__ void wait_then_fill(volatile int* flag, float* a, int n, long long limit) {
  long long spins = 0;
  while (*flag == 0 && spins < limit) ++spins;
  const float v = *flag != 0 ? 2.0f : -1.0f;
  for (int i = 0; i < n; ++i) a[i] = v;
}
"""

rng = np.random.default_rng()


@pytest.fixture(scope="module")
def cpu() -> hipkit.Device:
    return hipkit.Device(0, platform="cpu")


@pytest.fixture(scope="module")
def lib(cpu):
    try:
        return platforms.faces("cpu").load("blas")()
    except BlasUnavailable as exc:
        pytest.skip(str(exc))


def call(lib, name: str, *args) -> int:
    return lib.function(name)(*args)


def ok(lib, name: str, *args) -> None:
    status = call(lib, name, *args)
    assert status == SUCCESS, f"{name} answered {status}"


@pytest.fixture
def handle(lib, cpu):
    with cpu:
        lib.set_device(0)
        slot = ctypes.c_void_p()
        ok(lib, "hipblasCreate", ctypes.addressof(slot))
        yield slot.value
        ok(lib, "hipblasDestroy", slot.value)


def random(shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def scalar(value, dtype) -> np.ndarray:
    """A host scalar (its address is ``.ctypes.data``)."""
    return np.array([value], dtype)


class Matrix:
    """A column-major device matrix with leading dimension ``ld``; the padding rows
    hold random values, which no routine may change."""

    def __init__(self, value: np.ndarray, ld: int | None = None):
        self.rows, self.cols = value.shape
        self.ld = ld or self.rows
        self.host = random((self.cols, self.ld), value.dtype)  # row j is column j
        self.host[:, : self.rows] = value.T
        self.device = hipkit.to_device(self.host)

    @property
    def ptr(self) -> int:
        return self.device.ptr

    def get(self) -> np.ndarray:
        out = self.device.get()
        np.testing.assert_array_equal(out[:, self.rows :], self.host[:, self.rows :], "padding changed")
        return out[:, : self.rows].T


def op(m: np.ndarray, trans: int) -> np.ndarray:
    return m if trans == OP_N else m.T if trans == OP_T else m.conj().T


def tolerance(dtype) -> dict:
    return {"rtol": 1e-4, "atol": 1e-4} if np.dtype(dtype) in (np.float32, np.complex64) else {"rtol": 1e-10}


# ---------------------------------------------------------------- level 3


def gemm(lib, handle, name, dtype, ta, tb, m=5, n=4, k=3, pad=2):
    a = random((m, k) if ta == OP_N else (k, m), dtype)
    b = random((k, n) if tb == OP_N else (n, k), dtype)
    c = random((m, n), dtype)
    alpha, beta = random(1, dtype), random(1, dtype)
    A, B, C = Matrix(a, a.shape[0] + pad), Matrix(b, b.shape[0] + pad), Matrix(c, m + pad)
    head = (handle, ta, tb, m, n, k)
    ok(lib, name, *head, alpha.ctypes.data, A.ptr, A.ld, B.ptr, B.ld, beta.ctypes.data, C.ptr, C.ld)
    expected = alpha[0] * op(a, ta) @ op(b, tb) + beta[0] * c
    np.testing.assert_allclose(C.get(), expected, **tolerance(dtype))


@pytest.mark.parametrize("ta", [OP_N, OP_T])
@pytest.mark.parametrize("tb", [OP_N, OP_T])
def test_sgemm_every_transpose_with_padded_leading_dimensions(lib, handle, ta, tb):
    gemm(lib, handle, "hipblasSgemm", np.float32, ta, tb)


def test_dgemm(lib, handle):
    gemm(lib, handle, "hipblasDgemm", np.float64, OP_T, OP_N, m=17, n=9, k=13)


@pytest.mark.parametrize(
    ("name", "dtype"), [("hipblasCgemm", np.complex64), ("hipblasZgemm_v2", np.complex128)]
)
@pytest.mark.parametrize(("ta", "tb"), [(OP_C, OP_N), (OP_N, OP_C), (OP_C, OP_T)])
def test_complex_gemm_with_conjugate_transposes(lib, handle, name, dtype, ta, tb):
    gemm(lib, handle, name, dtype, ta, tb)


@pytest.mark.parametrize("batch", [0, 1, 3])
def test_sgemm_strided_batched(lib, handle, cpu, batch):
    m, n, k = 4, 3, 5
    a, b, c = (
        random((batch, k, m), np.float32),
        random((batch, n, k), np.float32),
        random((batch, n, m), np.float32),
    )
    # Each matrix column-major (a[i] is A_i transposed in C order), with a gap between them.
    stride_a, stride_b, stride_c = m * k + 3, k * n + 1, m * n + 2
    bufs = [np.zeros(max(batch, 1) * s, np.float32) for s in (stride_a, stride_b, stride_c)]
    for i in range(batch):
        for buf, x, s in zip(bufs, (a, b, c), (stride_a, stride_b, stride_c), strict=True):
            buf[i * s : i * s + x[i].size] = x[i].ravel()
    A, B, C = (hipkit.to_device(buf) for buf in bufs)
    alpha, beta = scalar(1.5, np.float32), scalar(-0.5, np.float32)
    a_and_b = (alpha.ctypes.data, A.ptr, m, stride_a, B.ptr, k, stride_b)
    c_args = (beta.ctypes.data, C.ptr, m, stride_c)
    ok(lib, "hipblasSgemmStridedBatched", handle, OP_N, OP_N, m, n, k, *a_and_b, *c_args, batch)
    cpu.synchronize()
    out = C.get()
    for i in range(batch):
        expected = 1.5 * (a[i].T @ b[i].T) - 0.5 * c[i].T
        got = out[i * stride_c : i * stride_c + m * n].reshape(n, m).T
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    if batch == 0:
        np.testing.assert_array_equal(out, bufs[2])


def test_dgemm_batched_reads_its_arrays_of_device_pointers(lib, handle, cpu):
    m, n, k, batch = 3, 4, 2, 3
    a, b, c = ([random(s, np.float64) for _ in range(batch)] for s in ((m, k), (k, n), (m, n)))
    A, B, C = ([Matrix(x) for x in xs] for xs in (a, b, c))
    pointers = [hipkit.to_device(np.array([x.ptr for x in xs], np.uint64)) for xs in (A, B, C)]
    alpha, beta = scalar(2.0, np.float64), scalar(1.0, np.float64)
    ptr_a, ptr_b, ptr_c = (p.ptr for p in pointers)
    head = (handle, OP_N, OP_N, m, n, k)
    arrays = (alpha.ctypes.data, ptr_a, m, ptr_b, k, beta.ctypes.data, ptr_c, m)
    ok(lib, "hipblasDgemmBatched", *head, *arrays, batch)
    cpu.synchronize()
    for i in range(batch):
        np.testing.assert_allclose(C[i].get(), 2.0 * a[i] @ b[i] + c[i], rtol=1e-12)


def to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 to bfloat16 bits, to nearest even (as the provider rounds)."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("data", ["f16", "bf16"])
@pytest.mark.parametrize("out", ["same", "f32"])
def test_gemm_ex_half_and_bfloat16_inputs_computed_in_float(lib, handle, cpu, data, out):
    m, n, k = 6, 5, 7
    a32, b32, c32 = random((m, k), np.float32), random((k, n), np.float32), random((m, n), np.float32)
    if data == "f16":
        kind = R_16F
        a, b, c_in = (x.astype(np.float16) for x in (a32, b32, c32))
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
    else:
        kind = R_16BF
        a, b, c_in = (to_bf16(x) for x in (a32, b32, c32))
        a32, b32 = from_bf16(a), from_bf16(b)
    c_kind = kind if out == "same" else R_32F
    c_in = c_in if out == "same" else c32
    c_start = c_in.astype(np.float32) if data == "f16" or out == "f32" else from_bf16(c_in)
    A, B, C = Matrix(a), Matrix(b), Matrix(c_in)
    alpha, beta = scalar(0.75, np.float32), scalar(0.5, np.float32)
    a_and_b = (alpha.ctypes.data, A.ptr, kind, m, B.ptr, kind, k)
    c_and_compute = (beta.ctypes.data, C.ptr, c_kind, m, COMPUTE_32F, GEMM_DEFAULT)
    ok(lib, "hipblasGemmEx", handle, OP_N, OP_N, m, n, k, *a_and_b, *c_and_compute)
    cpu.synchronize()
    expected = 0.75 * a32 @ b32 + 0.5 * c_start  # float's products and sums, rounded once
    got = C.get()
    if out == "f32":
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    elif data == "f16":
        np.testing.assert_array_equal(got, expected.astype(np.float16))
    else:
        np.testing.assert_array_equal(got, to_bf16(expected))


def test_gemm_ex_float_and_complex_and_half_scalars(lib, handle, cpu):
    """R_32F with TF32 allowed (computed in float here), C_32F, and half data with
    16F compute, whose scalars are halves."""
    m, n, k = 4, 3, 2
    for kind, compute, dtype, scalar_type in [
        (R_32F, COMPUTE_32F_FAST_TF32, np.float32, np.float32),
        (C_32F, COMPUTE_32F, np.complex64, np.complex64),
        (R_16F, COMPUTE_16F, np.float16, np.float16),
    ]:
        a, b, c = random((m, k), dtype), random((k, n), dtype), random((m, n), dtype)
        A, B, C = Matrix(a), Matrix(b), Matrix(c)
        alpha, beta = scalar(2, scalar_type), scalar(1, scalar_type)
        a_and_b = (alpha.ctypes.data, A.ptr, kind, m, B.ptr, kind, k)
        c_and_compute = (beta.ctypes.data, C.ptr, kind, m, compute, GEMM_DEFAULT)
        ok(lib, "hipblasGemmEx_v2", handle, OP_N, OP_N, m, n, k, *a_and_b, *c_and_compute)
        cpu.synchronize()
        wide = np.complex64 if dtype == np.complex64 else np.float32
        expected = (2 * a.astype(wide) @ b.astype(wide) + c.astype(wide)).astype(dtype)
        np.testing.assert_allclose(C.get(), expected, rtol=2e-3, atol=2e-3)


def test_strsm_and_trmm_left_and_right(lib, handle, cpu):
    m, n = 5, 4
    for side, size in ((LEFT, m), (RIGHT, n)):
        a = np.tril(random((size, size), np.float32)) + 4 * np.eye(size, dtype=np.float32)
        garbage = a + np.triu(random((size, size), np.float32), 1)  # the upper part is not read
        b = random((m, n), np.float32)
        A, B = Matrix(garbage, size + 1), Matrix(b, m + 3)
        alpha = scalar(2.0, np.float32)
        modes = (side, LOWER, OP_T, NON_UNIT)
        ok(lib, "hipblasStrsm", handle, *modes, m, n, alpha.ctypes.data, A.ptr, A.ld, B.ptr, B.ld)
        cpu.synchronize()
        x = B.get()
        lhs = a.T @ x if side == LEFT else x @ a.T
        np.testing.assert_allclose(lhs, 2.0 * b, rtol=1e-4, atol=1e-4)
        # hipBLAS's trmm is out of place: C = alpha op(A) B, B unchanged.
        B, C = Matrix(b, m + 1), Matrix(np.zeros((m, n), np.float32), m + 2)
        modes = (side, LOWER, OP_N, UNIT)
        a_b_c = (alpha.ctypes.data, A.ptr, A.ld, B.ptr, B.ld, C.ptr, C.ld)
        ok(lib, "hipblasStrmm", handle, *modes, m, n, *a_b_c)
        cpu.synchronize()
        unit = np.tril(a, -1) + np.eye(size, dtype=np.float32)
        expected = 2.0 * (unit @ b if side == LEFT else b @ unit)
        np.testing.assert_allclose(C.get(), expected, rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(B.get(), b)


def test_ztrmm_in_place(lib, handle, cpu):
    """C may be B (with ldb == ldc): OpenBLAS's own in-place form."""
    m, n = 3, 4
    a, b = np.triu(random((m, m), np.complex128)), random((m, n), np.complex128)
    A, B = Matrix(a), Matrix(b, m + 2)
    alpha = scalar(1 - 1j, np.complex128)
    modes = (LEFT, UPPER, OP_C, NON_UNIT)
    ok(lib, "hipblasZtrmm", handle, *modes, m, n, alpha.ctypes.data, A.ptr, m, B.ptr, B.ld, B.ptr, B.ld)
    cpu.synchronize()
    np.testing.assert_allclose(B.get(), (1 - 1j) * a.conj().T @ b, rtol=1e-12)


@pytest.mark.parametrize(("ta", "tb"), [(OP_N, OP_N), (OP_T, OP_N), (OP_N, OP_T), (OP_T, OP_T)])
def test_sgeam(lib, handle, cpu, ta, tb):
    m, n = 4, 6
    a = random((m, n) if ta == OP_N else (n, m), np.float32)
    b = random((m, n) if tb == OP_N else (n, m), np.float32)
    A, B, C = (
        Matrix(a, a.shape[0] + 1),
        Matrix(b, b.shape[0] + 2),
        Matrix(np.zeros((m, n), np.float32), m + 1),
    )
    alpha, beta = scalar(1.5, np.float32), scalar(-2.0, np.float32)
    a_and_b = (alpha.ctypes.data, A.ptr, A.ld, beta.ctypes.data, B.ptr, B.ld)
    ok(lib, "hipblasSgeam", handle, ta, tb, m, n, *a_and_b, C.ptr, C.ld)
    cpu.synchronize()
    np.testing.assert_allclose(C.get(), 1.5 * op(a, ta) - 2.0 * op(b, tb), rtol=1e-5, atol=1e-5)


def test_cgeam_in_place_and_conjugate(lib, handle, cpu):
    """C == A (op N, lda == ldc): C = alpha C + beta op(B), with op(B) conjugated."""
    m, n = 3, 5
    a, b = random((m, n), np.complex64), random((n, m), np.complex64)
    A, B = Matrix(a, m + 1), Matrix(b)
    alpha, beta = scalar(0.5j, np.complex64), scalar(2, np.complex64)
    a_and_b = (alpha.ctypes.data, A.ptr, A.ld, beta.ctypes.data, B.ptr, n)
    ok(lib, "hipblasCgeam", handle, OP_N, OP_C, m, n, *a_and_b, A.ptr, A.ld)
    cpu.synchronize()
    np.testing.assert_allclose(A.get(), 0.5j * a + 2 * b.conj().T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("side", "uplo"), [(LEFT, UPPER), (RIGHT, LOWER)])
def test_dsymm_reads_one_triangle(lib, handle, cpu, side, uplo):
    m, n = 5, 3
    size = m if side == LEFT else n
    full = random((size, size), np.float64)
    sym = full + full.T
    unread = np.tril(np.ones(sym.shape, bool), -1) if uplo == UPPER else np.triu(np.ones(sym.shape, bool), 1)
    stored = np.where(unread, np.nan, sym)
    b, c = random((m, n), np.float64), random((m, n), np.float64)
    A, B, C = Matrix(stored, size + 2), Matrix(b), Matrix(c, m + 1)
    alpha, beta = scalar(0.5, np.float64), scalar(3.0, np.float64)
    a_and_b = (alpha.ctypes.data, A.ptr, A.ld, B.ptr, m)
    ok(lib, "hipblasDsymm", handle, side, uplo, m, n, *a_and_b, beta.ctypes.data, C.ptr, C.ld)
    cpu.synchronize()
    expected = 0.5 * (sym @ b if side == LEFT else b @ sym) + 3.0 * c
    np.testing.assert_allclose(C.get(), expected, rtol=1e-12)


def test_ssyrk_writes_its_triangle(lib, handle, cpu):
    n, k = 4, 6
    a, c = random((n, k), np.float32), random((n, n), np.float32)
    A, C = Matrix(a, n + 1), Matrix(c, n + 1)
    alpha, beta = scalar(1.0, np.float32), scalar(0.0, np.float32)
    a_and_c = (alpha.ctypes.data, A.ptr, A.ld, beta.ctypes.data, C.ptr, C.ld)
    ok(lib, "hipblasSsyrk", handle, LOWER, OP_N, n, k, *a_and_c)
    cpu.synchronize()
    got = C.get()
    np.testing.assert_allclose(np.tril(got), np.tril(a @ a.T), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(np.triu(got, 1), np.triu(c, 1))


# ---------------------------------------------------------------- levels 1 and 2


def strided(x: np.ndarray, inc: int) -> tuple[hipkit.DeviceArray, np.ndarray]:
    """x as a BLAS vector of increment ``inc`` (negative: walked from its end), padded
    with random values; the buffer as uploaded."""
    step = abs(inc)
    buf = random(len(x) * step, x.dtype)
    buf[::step] = x if inc > 0 else x[::-1]
    return hipkit.to_device(buf), buf


def test_saxpy_with_a_negative_increment(lib, handle, cpu):
    n = 9
    x, y = random(n, np.float32), random(n, np.float32)
    X, _ = strided(x, -2)
    Y, ybuf = strided(y, 3)
    alpha = scalar(-1.25, np.float32)
    ok(lib, "hipblasSaxpy", handle, n, alpha.ctypes.data, X.ptr, -2, Y.ptr, 3)
    cpu.synchronize()
    out = Y.get()
    np.testing.assert_allclose(out[::3], y - 1.25 * x, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(np.delete(out, np.s_[::3]), np.delete(ybuf, np.s_[::3]))


@pytest.mark.parametrize(
    ("name", "dtype", "expected"),
    [
        ("hipblasSdot", np.float32, lambda x, y: x @ y),
        ("hipblasDdot", np.float64, lambda x, y: x @ y),
        ("hipblasCdotu", np.complex64, lambda x, y: x @ y),
        ("hipblasZdotc_v2", np.complex128, lambda x, y: np.vdot(x, y)),
    ],
)
def test_dot_answers_in_host_memory_when_it_returns(lib, handle, name, dtype, expected):
    n = 1000
    x, y = random(n, dtype), random(n, dtype)
    X, _ = strided(x, 2)
    Y, _ = strided(y, -1)
    result = np.zeros(1, dtype)
    ok(lib, name, handle, n, X.ptr, 2, Y.ptr, -1, result.ctypes.data)  # no synchronize: the call waited
    np.testing.assert_allclose(
        result[0], expected(x, y), rtol=1e-4 if dtype in (np.float32, np.complex64) else 1e-12
    )


def test_nrm2_asum_iamax_iamin(lib, handle):
    n = 257
    z = random(n, np.complex128)
    Z, _ = strided(z, 2)
    nrm, total = np.zeros(1, np.float64), np.zeros(1, np.float64)
    ok(lib, "hipblasDznrm2", handle, n, Z.ptr, 2, nrm.ctypes.data)
    ok(lib, "hipblasDzasum", handle, n, Z.ptr, 2, total.ctypes.data)
    np.testing.assert_allclose(nrm[0], np.linalg.norm(z), rtol=1e-12)
    np.testing.assert_allclose(total[0], np.sum(np.abs(z.real) + np.abs(z.imag)), rtol=1e-12)
    x = random(n, np.float32)
    x[[17, 200]] = 50.0  # a tie: BLAS answers the first, 1-based
    x[99] = 1e-9
    X = hipkit.to_device(x)
    index = np.zeros(1, np.int32)
    ok(lib, "hipblasIsamax", handle, n, X.ptr, 1, index.ctypes.data)
    assert index[0] == 18
    ok(lib, "hipblasIsamin", handle, n, X.ptr, 1, index.ctypes.data)
    assert index[0] == 100
    snrm = np.ones(1, np.float32)
    ok(lib, "hipblasSnrm2", handle, n, X.ptr, 0, snrm.ctypes.data)  # incx <= 0: 0 (BLAS's answer)
    ok(lib, "hipblasIsamax", handle, 0, X.ptr, 1, index.ctypes.data)
    assert snrm[0] == 0 and index[0] == 0


def test_rotations_real_and_complex_sines(lib, handle, cpu):
    n = 7
    for name, dtype, s_type in [
        ("hipblasDrot", np.float64, np.float64),
        ("hipblasCsrot", np.complex64, np.float32),
        ("hipblasZrot", np.complex128, np.complex128),
    ]:
        x, y = random(n, dtype), random(n, dtype)
        X, Y = hipkit.to_device(x), hipkit.to_device(y)
        real = np.float32 if dtype == np.complex64 else np.float64
        c, s = scalar(0.6, real), scalar(0.8 if s_type != np.complex128 else 0.6 - 0.529j, s_type)
        ok(lib, name, handle, n, X.ptr, 1, Y.ptr, 1, c.ctypes.data, s.ctypes.data)
        cpu.synchronize()
        np.testing.assert_allclose(X.get(), c[0] * x + s[0] * y, rtol=1e-5)
        np.testing.assert_allclose(Y.get(), c[0] * y - np.conj(s[0]) * x, rtol=1e-5)


def test_scal_copy_swap(lib, handle, cpu):
    n = 11
    z, w = random(n, np.complex128), random(n, np.complex128)
    Z, W = hipkit.to_device(z), hipkit.to_device(w)
    ok(lib, "hipblasZdscal", handle, n, scalar(-3.0, np.float64).ctypes.data, Z.ptr, 1)
    ok(lib, "hipblasZswap", handle, n, Z.ptr, 1, W.ptr, 1)
    ok(lib, "hipblasZcopy", handle, 4, W.ptr, 1, Z.ptr, 2)
    cpu.synchronize()
    expected_z = w.copy()
    expected_z[0:8:2] = -3.0 * z[:4]
    np.testing.assert_allclose(W.get(), -3.0 * z)
    np.testing.assert_allclose(Z.get(), expected_z)


def test_sgemv_transposed_and_cgerc(lib, handle, cpu):
    m, n = 6, 4
    a, x, y = random((m, n), np.float32), random(m, np.float32), random(n, np.float32)
    A, X, Y = Matrix(a, m + 2), hipkit.to_device(x), hipkit.to_device(y)
    alpha, beta = scalar(2.0, np.float32), scalar(0.5, np.float32)
    a_and_x = (alpha.ctypes.data, A.ptr, A.ld, X.ptr, 1)
    ok(lib, "hipblasSgemv", handle, OP_T, m, n, *a_and_x, beta.ctypes.data, Y.ptr, 1)
    cpu.synchronize()
    np.testing.assert_allclose(Y.get(), 2.0 * a.T @ x + 0.5 * y, rtol=1e-5, atol=1e-5)
    g, u, v = random((m, n), np.complex64), random(m, np.complex64), random(n, np.complex64)
    G, U, V = Matrix(g, m + 1), hipkit.to_device(u), hipkit.to_device(v)
    alpha = scalar(1j, np.complex64)
    ok(lib, "hipblasCgerc", handle, m, n, alpha.ctypes.data, U.ptr, 1, V.ptr, 1, G.ptr, G.ld)
    cpu.synchronize()
    np.testing.assert_allclose(G.get(), g + 1j * np.outer(u, v.conj()), rtol=1e-5, atol=1e-5)


def test_csymv_and_dtrsv(lib, handle, cpu):
    n = 5
    full = random((n, n), np.complex64)
    sym = full + full.T  # complex symmetric, not Hermitian
    x, y = random(n, np.complex64), random(n, np.complex64)
    A, X, Y = Matrix(np.triu(sym), n + 1), hipkit.to_device(x), hipkit.to_device(y)
    alpha, beta = scalar(1 + 1j, np.complex64), scalar(-1, np.complex64)
    a_and_x = (alpha.ctypes.data, A.ptr, A.ld, X.ptr, 1)
    ok(lib, "hipblasCsymv", handle, UPPER, n, *a_and_x, beta.ctypes.data, Y.ptr, 1)
    cpu.synchronize()
    np.testing.assert_allclose(Y.get(), (1 + 1j) * sym @ x - y, rtol=1e-5, atol=1e-5)
    t = np.triu(random((n, n), np.float64)) + 4 * np.eye(n)
    b = random(n, np.float64)
    T, B = Matrix(t), hipkit.to_device(b)
    ok(lib, "hipblasDtrsv", handle, UPPER, OP_N, NON_UNIT, n, T.ptr, n, B.ptr, 1)
    cpu.synchronize()
    np.testing.assert_allclose(t @ B.get(), b, rtol=1e-12)


# ---------------------------------------------------------------- pointer modes, stream order


@pytest.fixture(scope="module")
def gate(cpu):
    return hipkit.compile(GATE, device=cpu).get_function("wait_then_fill")


def gated_stream(lib, handle, gate, n: int):
    """A stream whose first work is the gate kernel, filling a device array of n floats;
    the handle works on it.  Returns (stream, the array, the flag that opens the gate:
    set flag[0]).  Until it opens, the test touches device memory only through
    pointers: a synchronous copy would wait for the stream (the null stream's rule)."""
    stream = hipkit.Stream()
    flag, filled = hipkit.zeros(1, np.int32), hipkit.zeros(n, np.float32)
    gate[1, 1, 0, stream](flag, filled, n, 1 << 34)
    ok(lib, "hipblasSetStream", handle, stream.native_handle)
    return stream, filled, np.ctypeslib.as_array((ctypes.c_int32 * 1).from_address(flag.ptr)), flag


def test_a_routine_runs_in_stream_order_after_the_call_returned(lib, handle, gate):
    """sgemm behind a kernel that fills A once the test says so, after the sgemm
    call returned: it reads the kernel's A (a call that waited would have let the
    kernel give up and fill -1)."""
    m, n, k = 4, 3, 5
    b = random((k, n), np.float32)
    B, C = Matrix(b), Matrix(np.zeros((m, n), np.float32))
    stream, A, flag, _keep = gated_stream(lib, handle, gate, m * k)
    alpha, beta = scalar(1, np.float32), scalar(0, np.float32)
    head = (handle, OP_N, OP_N, m, n, k)
    ok(lib, "hipblasSgemm", *head, alpha.ctypes.data, A.ptr, m, B.ptr, k, beta.ctypes.data, C.ptr, m)
    flag[0] = 1
    stream.synchronize()
    np.testing.assert_allclose(C.get(), np.full((m, k), 2, np.float32) @ b, rtol=1e-5)
    current = ctypes.c_void_p()
    ok(lib, "hipblasGetStream", handle, ctypes.addressof(current))
    assert current.value == stream.native_handle


def test_pointer_modes_read_scalars_when_each_says(lib, handle, gate):
    """Host mode copies alpha at the call; device mode reads it, and writes a result,
    when the work runs (both changed here before the gate opens)."""
    n = 8
    y_host, y_device = hipkit.zeros(n, np.float32), hipkit.zeros(n, np.float32)
    device_alpha, result = hipkit.to_device(scalar(5.0, np.float32)), hipkit.zeros(1, np.float32)
    stream, X, flag, _keep = gated_stream(lib, handle, gate, n)
    alpha = scalar(3.0, np.float32)
    ok(lib, "hipblasSaxpy", handle, n, alpha.ctypes.data, X.ptr, 1, y_host.ptr, 1)
    alpha[0] = 100.0  # too late for the host-mode call
    ok(lib, "hipblasSetPointerMode", handle, DEVICE)
    ok(lib, "hipblasSaxpy", handle, n, device_alpha.ptr, X.ptr, 1, y_device.ptr, 1)
    ok(lib, "hipblasSdot", handle, n, X.ptr, 1, X.ptr, 1, result.ptr)  # returns at once: the gate is shut
    mode = ctypes.c_int(-1)
    ok(lib, "hipblasGetPointerMode", handle, ctypes.addressof(mode))
    ctypes.c_float.from_address(device_alpha.ptr).value = 7.0  # in time: read when the work runs
    flag[0] = 1
    stream.synchronize()
    assert mode.value == DEVICE
    np.testing.assert_array_equal(y_host.get(), np.full(n, 6.0, np.float32))
    np.testing.assert_array_equal(y_device.get(), np.full(n, 14.0, np.float32))
    assert result.get()[0] == 4.0 * n


def test_device_mode_gemm_reads_alpha_and_beta_from_device_memory(lib, handle, cpu):
    m, n, k = 3, 3, 2
    a, b, c = random((m, k), np.float64), random((k, n), np.float64), random((m, n), np.float64)
    A, B, C = Matrix(a), Matrix(b), Matrix(c)
    scalars = hipkit.to_device(np.array([-1.0, 2.0]))
    ok(lib, "hipblasSetPointerMode", handle, DEVICE)
    head = (handle, OP_N, OP_N, m, n, k)
    ok(lib, "hipblasDgemm", *head, scalars.ptr, A.ptr, m, B.ptr, k, scalars.ptr + 8, C.ptr, m)  # alpha, beta
    cpu.synchronize()
    np.testing.assert_allclose(C.get(), -(a @ b) + 2 * c, rtol=1e-12)


# ---------------------------------------------------------------- statuses


def test_statuses_of_the_argument_checks(lib, handle):
    """hipBLAS's answers (its enum conversions, then rocBLAS's checks)."""
    one = scalar(1, np.float32)
    x = hipkit.zeros(16, np.float32)
    f, p = one.ctypes.data, x.ptr

    def sgemm(h=handle, ta=OP_N, m=2, n=2, k=2, lda=2):
        return call(lib, "hipblasSgemm", h, ta, OP_N, m, n, k, f, p, lda, p, 2, f, p, 2)

    assert sgemm() == SUCCESS
    assert sgemm(h=None) == NOT_INITIALIZED
    assert sgemm(m=-1) == INVALID_VALUE
    assert sgemm(lda=1) == INVALID_VALUE  # lda < m
    assert sgemm(ta=OP_T, k=3, lda=2) == INVALID_VALUE  # lda < k for A transposed
    assert sgemm(ta=999) == INVALID_ENUM
    assert sgemm(m=0, lda=0) == SUCCESS  # a quick return: nothing to do
    assert call(lib, "hipblasSaxpy", None, 4, f, p, 1, p, 1) == NOT_INITIALIZED
    assert call(lib, "hipblasSaxpy", handle, -1, f, p, 1, p, 1) == SUCCESS  # n <= 0: BLAS's quick return
    assert call(lib, "hipblasSaxpy", handle, 4, f, None, 1, p, 1) == INVALID_VALUE
    assert call(lib, "hipblasSgemv", handle, OP_N, 2, 2, f, p, 2, p, 0, f, p, 1) == INVALID_VALUE  # incx == 0
    assert call(lib, "hipblasSsymm", handle, LEFT, FULL, 2, 2, f, p, 2, p, 2, f, p, 2) == INVALID_VALUE
    assert call(lib, "hipblasSsymm", handle, 7, UPPER, 2, 2, f, p, 2, p, 2, f, p, 2) == INVALID_ENUM
    assert call(lib, "hipblasSdot", handle, 4, p, 1, p, 1, None) == INVALID_VALUE
    assert call(lib, "hipblasCsyrk", handle, UPPER, OP_C, 2, 2, f, p, 2, f, p, 2) == INVALID_VALUE
    assert (
        call(lib, "hipblasStrmm", handle, LEFT, UPPER, OP_N, UNIT, 2, 2, f, p, 2, p, 2, p, 3) == INVALID_VALUE
    )
    assert call(lib, "hipblasCreate", None) == HANDLE_IS_NULLPTR
    assert call(lib, "hipblasDestroy", None) == NOT_INITIALIZED
    assert call(lib, "hipblasSetStream", handle, 0x1234) == INVALID_VALUE  # no such stream
    assert call(lib, "hipblasSetPointerMode", handle, 5) == INVALID_ENUM
    assert call(lib, "hipblasGetPointerMode", handle, None) == INVALID_VALUE
    version = ctypes.c_int()
    ok(lib, "hipblasGetVersion", handle, ctypes.addressof(version))
    assert version.value == 30000
    to_string = lib.library.hipblasStatusToString
    to_string.restype = ctypes.c_char_p
    assert to_string(INVALID_ENUM) == b"HIPBLAS_STATUS_INVALID_ENUM"


def test_gemm_ex_refuses_what_it_does_not_support_before_anything_else(lib, handle):
    """hipBLAS checks the types first: NOT_SUPPORTED even for a null handle."""
    one = scalar(1, np.float32)
    x = hipkit.zeros(16, np.float32)

    def ex(h, a, c, compute, algo=GEMM_DEFAULT):
        a_and_b = (one.ctypes.data, x.ptr, a, 2, x.ptr, a, 2)
        c_and_compute = (one.ctypes.data, x.ptr, c, 2, compute, algo)
        return call(lib, "hipblasGemmEx", h, OP_N, OP_N, 2, 2, 2, *a_and_b, *c_and_compute)

    assert ex(handle, R_8I, R_32I, COMPUTE_32I) == NOT_SUPPORTED  # no integer gemm in OpenBLAS
    assert ex(None, R_8I, R_32I, COMPUTE_32I) == NOT_SUPPORTED
    assert ex(handle, R_32F, R_32F, COMPUTE_64F) == NOT_SUPPORTED
    assert ex(handle, R_16BF, R_16BF, COMPUTE_16F) == NOT_SUPPORTED
    assert ex(handle, R_32F, R_32F, COMPUTE_32F, algo=99) == INVALID_ENUM
    assert ex(None, R_32F, R_32F, COMPUTE_32F) == NOT_INITIALIZED
    assert ex(handle, R_32F, R_32F, COMPUTE_32F) == SUCCESS


def test_set_and_get_vector_and_matrix(lib, cpu):
    with cpu:
        x = random(10, np.float64)
        y = hipkit.zeros(20, np.float64)
        ok(lib, "hipblasSetVector", 10, 8, x.ctypes.data, 1, y.ptr, 2)
        back = np.zeros(10)
        ok(lib, "hipblasGetVector", 10, 8, y.ptr, 2, back.ctypes.data, 1)
        np.testing.assert_array_equal(back, x)
        a = random((4, 3), np.complex64)
        d = Matrix(np.zeros((3, 3), np.complex64), 5)  # rows 0..2 of each column of ld 5
        host = np.asfortranarray(a)
        ok(lib, "hipblasSetMatrix", 3, 3, 8, host.ctypes.data, 4, d.ptr, 5)
        np.testing.assert_array_equal(d.get(), a[:3])
        assert call(lib, "hipblasSetVector", 4, 8, x.ctypes.data, 0, y.ptr, 1) == INVALID_VALUE
        assert call(lib, "hipblasGetMatrix", 3, 3, 8, d.ptr, 2, host.ctypes.data, 4) == INVALID_VALUE


# ---------------------------------------------------------------- the library


def test_the_library_is_described_and_runs_on_the_devices_workers(lib, cpu):
    workers = cpu.properties.multiProcessorCount
    assert lib.description.startswith("OpenBLAS ")
    assert lib.description.endswith(f", {workers} thread{'s' * (workers != 1)}")


def test_functions_are_hipblas_names_only(lib):
    with pytest.raises(KeyError):
        lib.function("cblas_sgemm")
    assert lib.function("hipblasCaxpy_v2") is lib.function("hipblasCaxpy_v2")
    with pytest.raises(HipError):
        lib.set_device(99)


def test_without_openblas_the_library_says_what_to_install(lib, monkeypatch):
    from hipkit.platforms.cpu import blas

    monkeypatch.setenv("HIPKIT_OPENBLAS", "/nonexistent/libopenblas.so")
    with pytest.raises(BlasUnavailable, match="HIPKIT_OPENBLAS=/nonexistent/libopenblas.so: no such file"):
        blas.library()
    monkeypatch.delenv("HIPKIT_OPENBLAS")
    monkeypatch.setattr(blas, "_wheel", lambda: None)  # neither the wheel nor the system's
    monkeypatch.setattr(blas, "_system", lambda: None)
    with pytest.raises(
        BlasUnavailable, match=r"pip install 'hipkit\[cpu\]' \(scipy-openblas32\) or apt-get install"
    ):
        blas.library()


def test_the_amd_platform_says_hipblas_is_missing_where_rocm_has_none(monkeypatch, tmp_path):
    monkeypatch.setenv("ROCM_PATH", str(tmp_path))
    monkeypatch.setattr("ctypes.CDLL", _no_library)
    with pytest.raises(BlasUnavailable, match="install ROCm's hipblas package"):
        platforms.faces("amd").load("blas")()


def _no_library(name, *args, **kwargs):
    raise OSError(f"{name}: cannot open shared object file")


def test_hipkit_openblas_names_the_library_and_its_prefix_is_read(lib, monkeypatch):
    from hipkit.platforms.cpu import _lib, blas

    wheel = blas.find_openblas()
    monkeypatch.setenv("HIPKIT_OPENBLAS", str(wheel.path))
    chosen = blas.find_openblas()
    assert (chosen.path, chosen.prefix, chosen.source) == (
        wheel.path.resolve(),
        wheel.prefix,
        "HIPKIT_OPENBLAS",
    )
    monkeypatch.setenv("HIPKIT_OPENBLAS", str(_lib.lib_dir() / _lib.LIBRARY_NAME))
    with pytest.raises(BlasUnavailable, match="not an OpenBLAS library"):
        blas.find_openblas()


def test_the_systems_openblas_serves_too(lib, monkeypatch, cpu):
    """Debian's libopenblas0, whose names have no prefix, when the wheel is absent."""
    from hipkit.platforms.cpu import blas

    if blas._system() is None:
        pytest.skip("no libopenblas.so.0 here (apt-get install libopenblas0)")
    monkeypatch.setattr(blas, "_wheel", lambda: None)
    system = blas.library()
    assert "(libopenblas0)" in system.description
    with cpu:
        slot = ctypes.c_void_p()
        ok(system, "hipblasCreate", ctypes.addressof(slot))
        try:
            gemm(system, slot.value, "hipblasZgemm", np.complex128, OP_C, OP_T)
            x = random(100, np.float32)
            result = np.zeros(1, np.float32)
            X = hipkit.to_device(x)
            ok(system, "hipblasSnrm2", slot.value, 100, X.ptr, 1, result.ctypes.data)
            np.testing.assert_allclose(result[0], np.linalg.norm(x), rtol=1e-5)
        finally:
            ok(system, "hipblasDestroy", slot.value)
