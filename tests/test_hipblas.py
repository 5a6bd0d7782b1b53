"""hipkit.hipblas against NumPy on fresh random data, on every platform present: each
routine family in each type, every operation, leading dimensions past the matrix
(the padding must stay untouched), negative increments, batches of 0, 1 and
several, the Ex forms, device pointer mode; the handle's functions; the enums
against hipBLAS's headers; the profiler's rows; stream order behind a kernel.
The statuses users can provoke are in test_blas_errors.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import variants

import hipkit
from hipkit import hipblas
from hipkit.platforms.base.blas import HANDLE_FUNCTIONS, BlasUnavailable
from hipkit.tables import blas_api

# Every platform once (BLAS calls run no kernel of their own: the CPU's fiber variant
# would only repeat them).
ON_EVERY_PLATFORM = pytest.mark.parametrize("device", [v for v in variants() if "-" not in v], indirect=True)
TYPES = {
    "S": np.dtype(np.float32),
    "D": np.dtype(np.float64),
    "C": np.dtype(np.complex64),
    "Z": np.dtype(np.complex128),
}
OPS = {"N": hipblas.HIPBLAS_OP_N, "T": hipblas.HIPBLAS_OP_T, "C": hipblas.HIPBLAS_OP_C}
SIDES = {"L": hipblas.HIPBLAS_SIDE_LEFT, "R": hipblas.HIPBLAS_SIDE_RIGHT}
SENTINEL = 7.0  # what the padding of a matrix or vector holds, and must still hold


def random(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    values = rng.uniform(-1, 1, shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(-1, 1, shape)
    return values.astype(dtype)


def eps(dtype) -> float:
    dtype = np.dtype(dtype)
    if dtype.name == "bfloat16":
        return 2.0**-8
    return float(np.finfo(dtype).eps)


def close(actual, expected, dtype, k: int = 1) -> None:
    """Within rounding of ``k``-term sums in ``dtype``, relative to the largest value."""
    actual, expected = np.asarray(actual, np.complex128), np.asarray(expected, np.complex128)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if not expected.size:
        return
    scale = max(1.0, float(np.max(np.abs(expected))))
    error = float(np.max(np.abs(actual - expected)))
    assert error <= 8 * eps(dtype) * (k + 2) * scale, f"error {error:.3g} (scale {scale:.3g}, k={k})"


def op(x: np.ndarray, which: str) -> np.ndarray:
    return {"N": x, "T": x.T, "C": x.conj().T}[which]


class Matrix:
    """A column-major matrix in device memory with leading dimension ``ld`` >= rows;
    the ``ld - rows`` elements past each column hold SENTINEL."""

    def __init__(self, host: np.ndarray, ld: int | None = None):
        self.rows, self.cols = host.shape
        self.ld = ld if ld is not None else self.rows + 2
        buffer = np.full((max(self.cols, 1), self.ld), SENTINEL, host.dtype)
        buffer[: self.cols, : self.rows] = host.T
        self.array = hipkit.to_device(buffer)
        self.ptr = self.array.ptr

    def get(self) -> np.ndarray:
        buffer = self.array.get()
        assert np.all(buffer[: self.cols, self.rows :] == SENTINEL), "a routine wrote past the matrix"
        return buffer[: self.cols, : self.rows].T.copy()


class Vector:
    """A vector in device memory, ``inc`` elements apart (negative: BLAS's reversed
    order from the lowest address); the elements between hold SENTINEL."""

    def __init__(self, host: np.ndarray, inc: int = 1):
        self.n, self.inc = len(host), inc
        buffer = np.full(max(1 + (self.n - 1) * abs(inc), 1), SENTINEL, host.dtype)
        buffer[self._places()] = host
        self.array = hipkit.to_device(buffer)
        self.ptr = self.array.ptr

    def _places(self) -> np.ndarray:
        places = np.arange(self.n) * abs(self.inc)
        return places if self.inc > 0 else places[::-1]

    def get(self) -> np.ndarray:
        buffer = self.array.get()
        others = np.ones(len(buffer), bool)
        others[self._places()] = False
        assert np.all(buffer[others] == SENTINEL), "a routine wrote between the elements"
        return buffer[self._places()]


@pytest.fixture(autouse=True)
def _provider(request):
    """A test on a device skips where its platform serves no BLAS here (no provider, or
    its library not installed), saying why."""
    if "device" not in request.fixturenames:
        return
    request.getfixturevalue("device")
    try:
        hipblas.hipblasDestroy(hipblas.hipblasCreate())
    except hipblas.HipblasError as exc:
        if isinstance(exc.__cause__, BlasUnavailable) or "serves no BLAS" in exc.detail:
            pytest.skip(f"no BLAS here: {exc.detail}")
        raise


@pytest.fixture
def handle(device):
    h = hipblas.hipblasCreate()
    yield h
    hipblas.hipblasDestroy(h)


def routine(template: str, letter: str):
    """hipblas's routine ``template`` names for ``letter`` ("hipblas{}axpy", "S")."""
    return getattr(hipblas, template.format(letter))


def fill(lower: bool) -> int:
    return hipblas.HIPBLAS_FILL_MODE_LOWER if lower else hipblas.HIPBLAS_FILL_MODE_UPPER


def diag(unit: bool) -> int:
    return hipblas.HIPBLAS_DIAG_UNIT if unit else hipblas.HIPBLAS_DIAG_NON_UNIT


def triangle(a: np.ndarray, lower: bool, unit: bool) -> np.ndarray:
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        np.fill_diagonal(t, 1)
    return t


def well_conditioned(rng, n: int, dtype) -> np.ndarray:
    a = random(rng, (n, n), dtype)
    a[np.diag_indices(n)] += 2 * n * np.sign(a.real.diagonal() + 0.5)
    return a


# ------------------------------------------------------------------ what the module holds


def _header_enums() -> dict[str, dict[str, int]]:
    include = Path(hipkit.__file__).parent / "platforms" / "include"
    text = (include / "hipkit_blas" / "api.h").read_text()
    text += (include / "hipkit_portable" / "library_types.h").read_text()
    enums = {}
    for body, name in re.findall(r"typedef enum\s*\w*\s*\{(.*?)\}\s*(\w+);", text, re.S):
        enums[name] = {m: int(v) for m, v in re.findall(r"(\w+)\s*=\s*(-?\d+)", body)}
    return enums


def test_every_enum_is_the_headers():
    enums = _header_enums()
    python = {e.__name__: {m.name: m.value for m in e} for e in (
        hipblas.hipblasStatus_t, hipblas.hipblasOperation_t, hipblas.hipblasFillMode_t,
        hipblas.hipblasDiagType_t, hipblas.hipblasSideMode_t, hipblas.hipblasPointerMode_t,
        hipblas.hipblasAtomicsMode_t, hipblas.hipblasMath_t, hipblas.hipblasComputeType_t,
        hipblas.hipblasGemmAlgo_t, hipblas.hipDataType)}  # fmt: skip
    assert python == {name: enums[name] for name in python}
    assert set(enums) - set(python) == {"hipLibraryPropertyType"}  # no enum of hipBLAS left out
    for members in python.values():
        for name, value in members.items():
            assert getattr(hipblas, name) == value


def test_every_routine_and_alias_is_there():
    for r in blas_api.routines():
        function = getattr(hipblas, r.name)
        assert function.__name__ == r.name and r.name in function.__doc__
        assert all(getattr(hipblas, alias) is function for alias in r.aliases)
        assert hipblas.routines[r.name] is function
    for name in HANDLE_FUNCTIONS:
        assert callable(getattr(hipblas, name)) and getattr(hipblas, name).__doc__
    assert hipblas.hipblasStatusToString(3) == "HIPBLAS_STATUS_INVALID_VALUE"
    assert hipblas.hipblasStatusToString(99) == "Unrecognized status code"


# ------------------------------------------------------------------ the handle


@ON_EVERY_PLATFORM
def test_the_handles_functions(device, handle):
    assert hipblas.hipblasGetStream(handle) == 0
    stream = hipkit.Stream()
    hipblas.hipblasSetStream(handle, stream)
    assert hipblas.hipblasGetStream(handle) == stream.native_handle
    hipblas.hipblasSetStream(handle, None)
    assert hipblas.hipblasGetStream(handle) == 0
    hipblas.hipblasSetStream(handle, stream.native_handle)
    assert hipblas.hipblasGetStream(handle) == stream.native_handle
    hipblas.hipblasSetStream(handle, 0)
    assert hipblas.hipblasGetPointerMode(handle) == hipblas.HIPBLAS_POINTER_MODE_HOST
    hipblas.hipblasSetPointerMode(handle, hipblas.HIPBLAS_POINTER_MODE_DEVICE)
    assert hipblas.hipblasGetPointerMode(handle) is hipblas.HIPBLAS_POINTER_MODE_DEVICE
    hipblas.hipblasSetPointerMode(handle, hipblas.HIPBLAS_POINTER_MODE_HOST)
    for setter, getter, values in (
        (hipblas.hipblasSetAtomicsMode, hipblas.hipblasGetAtomicsMode, hipblas.hipblasAtomicsMode_t),
        (hipblas.hipblasSetMathMode, hipblas.hipblasGetMathMode, (hipblas.HIPBLAS_DEFAULT_MATH,
                                                                   hipblas.HIPBLAS_PEDANTIC_MATH)),
    ):  # fmt: skip
        for value in values:
            setter(handle, value)
            assert getter(handle) == value
    assert hipblas.hipblasGetMathMode(handle) is hipblas.HIPBLAS_PEDANTIC_MATH
    assert hipblas.hipblasGetVersion(handle) >= 30000  # hipBLAS 3


@ON_EVERY_PLATFORM
def test_host_device_copies(device, rng):
    n, inc_x, inc_y = 7, 2, 3
    host = random(rng, 1 + (n - 1) * inc_x, np.complex64)
    y = Vector(np.zeros(n, np.complex64), inc_y)
    hipblas.hipblasSetVector(n, 8, host, inc_x, y.ptr, inc_y)
    np.testing.assert_array_equal(y.get(), host[::inc_x])
    back = np.zeros(1 + (n - 1) * 2, np.complex64)
    hipblas.hipblasGetVector(n, 8, y.array, inc_y, back, 2)
    np.testing.assert_array_equal(back[::2], host[::inc_x])
    rows, cols, lda, ldb = 3, 4, 5, 6
    a = random(rng, (cols, lda), np.float64)  # column-major rows x cols, lda apart
    b = Matrix(np.zeros((rows, cols)), ldb)
    hipblas.hipblasSetMatrix(rows, cols, 8, a, lda, b.ptr, ldb)
    np.testing.assert_array_equal(b.get(), a[:, :rows].T)
    out = np.zeros((cols, 4))
    hipblas.hipblasGetMatrix(rows, cols, 8, b.ptr, ldb, out, 4)
    np.testing.assert_array_equal(out[:, :rows], a[:, :rows])


# ------------------------------------------------------------------ level 1

INCREMENTS = [(1, 1), (2, -3), (-1, 2)]


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("incx, incy", INCREMENTS)
def test_two_vector_routines(device, handle, rng, letter, incx, incy):
    dtype = TYPES[letter]
    n = int(rng.integers(1, 40))
    x, y = random(rng, n, dtype), random(rng, n, dtype)
    alpha = random(rng, (), dtype)[()]

    vx, vy = Vector(x, incx), Vector(y, incy)
    routine("hipblas{}axpy", letter)(handle, n, alpha, vx.ptr, incx, vy.ptr, incy)
    close(vy.get(), y + alpha * x, dtype)
    np.testing.assert_array_equal(vx.get(), x)

    vy = Vector(y, incy)
    routine("hipblas{}copy", letter)(handle, n, vx.ptr, incx, vy.ptr, incy)
    np.testing.assert_array_equal(vy.get(), x)

    vx, vy = Vector(x, incx), Vector(y, incy)
    routine("hipblas{}swap", letter)(handle, n, vx.array, incx, vy.array, incy)
    np.testing.assert_array_equal(vx.get(), y)
    np.testing.assert_array_equal(vy.get(), x)

    vx, vy = Vector(x, incx), Vector(y, incy)
    dots = {"": np.sum(x * y)} if letter in "SD" else {"u": np.sum(x * y), "c": np.sum(x.conj() * y)}
    for suffix, expected in dots.items():
        value = routine("hipblas{}dot" + suffix, letter)(handle, n, vx.ptr, incx, vy.ptr, incy)
        assert type(value) is dtype.type
        close(value, expected, dtype, n)

    theta = rng.uniform(0, 2 * np.pi)
    c, s = np.cos(theta), np.sin(theta)
    rotations = [("hipblas{}rot", s)]  # a real s: Srot, Drot, Csrot, Zdrot; complex: Crot, Zrot
    if letter in "CZ":
        rotations = [
            ("hipblas{}rot", s * np.exp(1j * theta)),
            ({"C": "hipblasCsrot", "Z": "hipblasZdrot"}[letter], s),
        ]
    for name, sine in rotations:
        vx, vy = Vector(x, incx), Vector(y, incy)
        routine(name, letter)(handle, n, vx.ptr, incx, vy.ptr, incy, c, sine)
        close(vx.get(), c * x + sine * y, dtype)
        close(vy.get(), c * y - np.conj(sine) * x, dtype)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("inc", [1, 3])
def test_one_vector_routines(device, handle, rng, letter, inc):
    dtype = TYPES[letter]
    n = int(rng.integers(1, 40))
    x = random(rng, n, dtype)
    real = np.dtype(dtype.char.lower())
    prefix = {"S": "S", "D": "D", "C": "Sc", "Z": "Dz"}[letter]
    vx = Vector(x, inc)
    close(getattr(hipblas, f"hipblas{prefix}nrm2")(handle, n, vx.ptr, inc), np.linalg.norm(x), real, n)
    measure = np.abs(x.real) + np.abs(x.imag)
    close(getattr(hipblas, f"hipblas{prefix}asum")(handle, n, vx.ptr, inc), measure.sum(), real, n)
    assert getattr(hipblas, f"hipblasI{letter.lower()}amax")(handle, n, vx.ptr, inc) == np.argmax(measure) + 1
    assert getattr(hipblas, f"hipblasI{letter.lower()}amin")(handle, n, vx.ptr, inc) == np.argmin(measure) + 1
    assert type(getattr(hipblas, f"hipblas{prefix}nrm2")(handle, n, vx.ptr, inc)) is real.type

    alpha = random(rng, (), dtype)[()]
    routine("hipblas{}scal", letter)(handle, n, alpha, vx.ptr, inc)
    close(vx.get(), alpha * x, dtype)
    if letter in "CZ":
        vx = Vector(x, inc)
        getattr(hipblas, "hipblasCsscal" if letter == "C" else "hipblasZdscal")(handle, n, 0.5, vx.ptr, inc)
        close(vx.get(), 0.5 * x, dtype)


# ------------------------------------------------------------------ level 2


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("trans", "NTC")
@pytest.mark.parametrize("incx, incy", [(1, 1), (-2, 3)])
def test_gemv(device, handle, rng, letter, trans, incx, incy):
    dtype = TYPES[letter]
    m, n = (int(v) for v in rng.integers(1, 13, 2))
    a = random(rng, (m, n), dtype)
    rows, cols = (m, n) if trans == "N" else (n, m)
    x, y = random(rng, cols, dtype), random(rng, rows, dtype)
    alpha, beta = random(rng, 2, dtype)
    ma, vx, vy = Matrix(a, m + 3), Vector(x, incx), Vector(y, incy)
    routine("hipblas{}gemv", letter)(
        handle, OPS[trans], m, n, alpha, ma.ptr, ma.ld, vx.ptr, incx, beta, vy.ptr, incy
    )
    close(vy.get(), alpha * op(a, trans) @ x + beta * y, dtype, cols)
    np.testing.assert_array_equal(ma.get(), a)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("name", ["hipblasSger", "hipblasDger", "hipblasCgeru", "hipblasCgerc",
                                  "hipblasZgeru", "hipblasZgerc"])  # fmt: skip
def test_ger(device, handle, rng, name):
    dtype = TYPES[name[len("hipblas")]]
    m, n = (int(v) for v in rng.integers(1, 13, 2))
    a, x, y = random(rng, (m, n), dtype), random(rng, m, dtype), random(rng, n, dtype)
    alpha = random(rng, (), dtype)[()]
    ma, vx, vy = Matrix(a, m + 1), Vector(x, -2), Vector(y, 3)
    getattr(hipblas, name)(handle, m, n, alpha, vx.ptr, -2, vy.ptr, 3, ma.ptr, ma.ld)
    close(ma.get(), a + alpha * np.outer(x, y.conj() if name.endswith("c") else y), dtype)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("lower", [False, True])
def test_symv(device, handle, rng, letter, lower):
    dtype = TYPES[letter]
    n = int(rng.integers(1, 13))
    a, x, y = random(rng, (n, n), dtype), random(rng, n, dtype), random(rng, n, dtype)
    alpha, beta = random(rng, 2, dtype)
    half = np.tril(a) if lower else np.triu(a)
    symmetric = half + half.T - np.diag(a.diagonal())  # complex symmetric, not Hermitian
    ma, vx, vy = Matrix(a, n + 2), Vector(x, 1), Vector(y, -1)
    uplo = fill(lower)
    routine("hipblas{}symv", letter)(handle, uplo, n, alpha, ma.ptr, ma.ld, vx.ptr, 1, beta, vy.ptr, -1)
    close(vy.get(), alpha * symmetric @ x + beta * y, dtype, n)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("trans", "NTC")
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_trsv_and_trmv(device, handle, rng, letter, trans, lower, unit):
    dtype = TYPES[letter]
    n = int(rng.integers(1, 13))
    a, x = well_conditioned(rng, n, dtype), random(rng, n, dtype)
    t = op(triangle(a, lower, unit), trans)
    args = (fill(lower), OPS[trans], diag(unit), n)
    ma, vx = Matrix(a, n + 1), Vector(x, 2)
    routine("hipblas{}trmv", letter)(handle, *args, ma.ptr, ma.ld, vx.ptr, 2)
    close(vx.get(), t @ x, dtype, n)
    vx = Vector(x, 2)
    routine("hipblas{}trsv", letter)(handle, *args, ma.ptr, ma.ld, vx.ptr, 2)
    close(t @ vx.get(), x, dtype, n)


# ------------------------------------------------------------------ level 3


def _gemm_operands(rng, dtype, ta: str, tb: str, m: int, n: int, k: int):
    a = random(rng, (m, k) if ta == "N" else (k, m), dtype)
    b = random(rng, (k, n) if tb == "N" else (n, k), dtype)
    return a, b, random(rng, (m, n), dtype)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "HSDCZ")
@pytest.mark.parametrize("ta", "NTC")
@pytest.mark.parametrize("tb", "NTC")
def test_gemm(device, handle, rng, letter, ta, tb):
    dtype = TYPES.get(letter, np.dtype(np.float16))
    m, n, k = (int(v) for v in rng.integers(1, 17, 3))
    a, b, c = _gemm_operands(rng, dtype, ta, tb, m, n, k)
    alpha, beta = random(rng, 2, dtype)
    ma, mb, mc = Matrix(a, a.shape[0] + 1), Matrix(b, b.shape[0] + 2), Matrix(c, m + 3)
    routine("hipblas{}gemm", letter)(handle, OPS[ta], OPS[tb], m, n, k, alpha, ma.ptr, ma.ld, mb.ptr, mb.ld,
                                     beta, mc.ptr, mc.ld)  # fmt: skip
    wide = np.complex128 if dtype.kind == "c" else np.float64
    expected = alpha.astype(wide) * op(a.astype(wide), ta) @ op(b.astype(wide), tb) + beta.astype(wide) * c
    close(mc.get(), expected, dtype, k)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "HSZ")
@pytest.mark.parametrize("count", [0, 1, 3])
def test_batched_and_strided_gemm(device, handle, rng, letter, count):
    dtype = TYPES.get(letter, np.dtype(np.float16))
    m, n, k = (int(v) for v in rng.integers(1, 9, 3))
    pairs = [_gemm_operands(rng, dtype, "T", "N", m, n, k) for _ in range(count)]
    alpha, beta = random(rng, 2, dtype)
    expected = [alpha * op(a, "T") @ b + beta * c for a, b, c in pairs]
    matrices = [(Matrix(a, k), Matrix(b, k + 1), Matrix(c, m)) for a, b, c in pairs]
    pointers = [hipkit.to_device(np.array([x[i].ptr for x in matrices] or [0], np.uint64)) for i in range(3)]
    routine("hipblas{}gemmBatched", letter)(handle, OPS["T"], OPS["N"], m, n, k, alpha, pointers[0], k,
                                            pointers[1], k + 1, beta, pointers[2], m, count)  # fmt: skip
    for (_, _, mc), want in zip(matrices, expected, strict=True):
        close(mc.get(), want, dtype, k)
    # The same products strided: each operand's matrices one after another, with padding.
    strided = [Matrix(np.hstack([p[i] for p in pairs]) if pairs else np.zeros((1, 1), dtype), ld)
               for i, ld in ((0, k + 1), (1, k), (2, m + 2))]  # fmt: skip
    strides = [x.ld * (x.cols // max(count, 1)) for x in strided]
    routine("hipblas{}gemmStridedBatched", letter)(
        handle, OPS["T"], OPS["N"], m, n, k, alpha, strided[0].ptr, k + 1, strides[0], strided[1].ptr, k,
        strides[1], beta, strided[2].ptr, m + 2, strides[2], count)  # fmt: skip
    if pairs:
        close(strided[2].get(), np.hstack(expected), dtype, k)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("lower", [False, True])
def test_symm(device, handle, rng, letter, side, lower):
    dtype = TYPES[letter]
    m, n = (int(v) for v in rng.integers(1, 11, 2))
    size = m if side == "L" else n
    a, b, c = random(rng, (size, size), dtype), random(rng, (m, n), dtype), random(rng, (m, n), dtype)
    alpha, beta = random(rng, 2, dtype)
    half = np.tril(a) if lower else np.triu(a)
    s = half + half.T - np.diag(a.diagonal())
    ma, mb, mc = Matrix(a, size + 1), Matrix(b, m + 2), Matrix(c, m + 1)
    routine("hipblas{}symm", letter)(
        handle, SIDES[side], fill(lower), m, n, alpha, ma.ptr, ma.ld, mb.ptr, mb.ld, beta, mc.ptr, mc.ld
    )
    close(mc.get(), alpha * (s @ b if side == "L" else b @ s) + beta * c, dtype, size)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("trans", "NT")
@pytest.mark.parametrize("lower", [False, True])
def test_syrk_and_syr2k(device, handle, rng, letter, trans, lower):
    dtype = TYPES[letter]
    n, k = (int(v) for v in rng.integers(1, 11, 2))
    a, b = (random(rng, (n, k) if trans == "N" else (k, n), dtype) for _ in range(2))
    c = random(rng, (n, n), dtype)
    alpha, beta = random(rng, 2, dtype)
    keep = np.tril if lower else np.triu
    uplo = fill(lower)
    oa, ob = op(a, trans), op(b, trans)
    for name, expected in (
        ("hipblas{}syrk", alpha * oa @ oa.T + beta * c),
        ("hipblas{}syr2k", alpha * (oa @ ob.T + ob @ oa.T) + beta * c),
    ):
        ma, mb, mc = Matrix(a, a.shape[0] + 1), Matrix(b, b.shape[0] + 2), Matrix(c, n + 1)
        extra = (mb.ptr, mb.ld) if "2" in name else ()
        routine(name, letter)(
            handle, uplo, OPS[trans], n, k, alpha, ma.ptr, ma.ld, *extra, beta, mc.ptr, mc.ld
        )
        result = mc.get()
        close(keep(result), keep(expected), dtype, k)
        np.testing.assert_array_equal(result - keep(result), c - keep(c))  # the other triangle untouched


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("trans", "NTC")
def test_trsm_and_trmm(device, handle, rng, letter, side, trans):
    dtype = TYPES[letter]
    m, n = (int(v) for v in rng.integers(1, 11, 2))
    size = m if side == "L" else n
    a, b = well_conditioned(rng, size, dtype), random(rng, (m, n), dtype)
    alpha = random(rng, (), dtype)[()]
    for lower in (False, True):
        for unit in (False, True):
            t = op(triangle(a, lower, unit), trans)
            args = (SIDES[side], fill(lower), OPS[trans], diag(unit), m, n, alpha)
            ma, mb, mc = Matrix(a, size + 2), Matrix(b, m + 1), Matrix(np.zeros((m, n), dtype), m + 3)
            routine("hipblas{}trmm", letter)(handle, *args, ma.ptr, ma.ld, mb.ptr, mb.ld, mc.ptr, mc.ld)
            close(mc.get(), alpha * (t @ b if side == "L" else b @ t), dtype, size)
            np.testing.assert_array_equal(mb.get(), b)
            routine("hipblas{}trsm", letter)(handle, *args, ma.ptr, ma.ld, mb.ptr, mb.ld)
            x = mb.get()
            close(t @ x if side == "L" else x @ t, alpha * b, dtype, size)


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("letter", "SDCZ")
@pytest.mark.parametrize("ta", "NTC")
@pytest.mark.parametrize("tb", "NTC")
def test_geam(device, handle, rng, letter, ta, tb):
    dtype = TYPES[letter]
    m, n = (int(v) for v in rng.integers(1, 11, 2))
    a = random(rng, (m, n) if ta == "N" else (n, m), dtype)
    b = random(rng, (m, n) if tb == "N" else (n, m), dtype)
    alpha, beta = random(rng, 2, dtype)
    ma, mb = Matrix(a, a.shape[0] + 1), Matrix(b, b.shape[0] + 2)
    mc = Matrix(np.zeros((m, n), dtype), m + 1)
    geam = routine("hipblas{}geam", letter)
    geam(handle, OPS[ta], OPS[tb], m, n, alpha, ma.ptr, ma.ld, beta, mb.ptr, mb.ld, mc.ptr, mc.ld)
    close(mc.get(), alpha * op(a, ta) + beta * op(b, tb), dtype)


# ------------------------------------------------------------------ the Ex forms


def _bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="bfloat16 needs ml_dtypes")
    return np.dtype(ml_dtypes.bfloat16)


EX_CASES = {  # data type, compute type, NumPy dtype (None: bfloat16), tolerance's dtype
    "16F": (hipblas.HIP_R_16F, hipblas.HIPBLAS_COMPUTE_32F, np.float16, np.float16),
    "16BF": (hipblas.HIP_R_16BF, hipblas.HIPBLAS_COMPUTE_32F, None, None),
    "32F": (hipblas.HIP_R_32F, hipblas.HIPBLAS_COMPUTE_32F, np.float32, np.float32),
    "32F_TF32": (hipblas.HIP_R_32F, hipblas.HIPBLAS_COMPUTE_32F_FAST_TF32, np.float32, np.float16),
    "64F": (hipblas.HIP_R_64F, hipblas.HIPBLAS_COMPUTE_64F, np.float64, np.float64),
    "C32F": (hipblas.HIP_C_32F, hipblas.HIPBLAS_COMPUTE_32F, np.complex64, np.complex64),
    "C64F": (hipblas.HIP_C_64F, hipblas.HIPBLAS_COMPUTE_64F, np.complex128, np.complex128),
}


@ON_EVERY_PLATFORM
@pytest.mark.parametrize("case", list(EX_CASES))
@pytest.mark.parametrize("count", [0, 1, 3])
def test_gemm_ex_forms(device, handle, rng, case, count):
    """GemmEx (count 1), GemmBatchedEx and GemmStridedBatchedEx; scalars of the compute
    type (float32 for half data), results as close as the data type's rounding
    (TF32's: float16's mantissa)."""
    data_type, compute, dtype, tolerance = EX_CASES[case]
    dtype = np.dtype(dtype) if dtype is not None else _bfloat16()
    tolerance = np.dtype(tolerance) if tolerance is not None else dtype
    m, n, k = (int(v) for v in rng.integers(1, 9, 3))
    wide = np.complex128 if dtype.kind == "c" else np.float64
    pairs = [
        tuple(x.astype(dtype) for x in _gemm_operands(rng, wide, "N", "T", m, n, k)) for _ in range(count)
    ]
    alpha, beta = random(rng, 2, wide)
    expected = [alpha * a.astype(wide) @ b.astype(wide).T + beta * c.astype(wide) for a, b, c in pairs]
    matrices = [(Matrix(a, m + 1), Matrix(b, n), Matrix(c, m + 2)) for a, b, c in pairs]
    t = data_type
    default = hipblas.HIPBLAS_GEMM_DEFAULT
    head = (handle, OPS["N"], OPS["T"], m, n, k, alpha)
    if count == 1:
        ma, mb, mc = matrices[0]
        hipblas.hipblasGemmEx(
            *head, ma.ptr, t, ma.ld, mb.ptr, t, mb.ld, beta, mc.ptr, t, mc.ld, compute, default
        )
        close(mc.get(), expected[0], tolerance, k)
        matrices = [(Matrix(a, m + 1), Matrix(b, n), Matrix(c, m + 2)) for a, b, c in pairs]
    pointers = [hipkit.to_device(np.array([x[i].ptr for x in matrices] or [0], np.uint64)) for i in range(3)]
    hipblas.hipblasGemmBatchedEx(*head, pointers[0], t, m + 1, pointers[1], t, n, beta, pointers[2], t, m + 2,
                                 count, compute, default)  # fmt: skip
    for (_, _, mc), want in zip(matrices, expected, strict=True):
        close(mc.get(), want, tolerance, k)
    strided = [Matrix(np.hstack([p[i] for p in pairs]) if pairs else np.zeros((1, 1), dtype), ld)
               for i, ld in ((0, m + 1), (1, n), (2, m))]  # fmt: skip
    strides = [x.ld * (x.cols // max(count, 1)) for x in strided]
    hipblas.hipblasGemmStridedBatchedEx(*head, strided[0].ptr, t, m + 1, strides[0], strided[1].ptr, t, n,
                                        strides[1], beta, strided[2].ptr, t, m, strides[2], count, compute,
                                        default)  # fmt: skip
    if pairs:
        close(strided[2].get(), np.hstack(expected), tolerance, k)


# ------------------------------------------------------------------ pointer modes, tensors, streams


@ON_EVERY_PLATFORM
def test_device_pointer_mode(device, handle, rng):
    """Scalars read from device memory and results written there; the handle's
    pointer mode decides, with no change to the arguments' order."""
    n = 17
    x, y = random(rng, n, np.float32), random(rng, n, np.float32)
    scalars = hipkit.to_device(np.array([2.5, -0.5], np.float32))
    results = hipkit.zeros(4, np.float32)
    index = hipkit.zeros(1, np.int32)
    vx, vy = Vector(x), Vector(y)
    hipblas.hipblasSetPointerMode(handle, hipblas.HIPBLAS_POINTER_MODE_DEVICE)
    hipblas.hipblasSaxpy(handle, n, scalars, vx.ptr, 1, vy.ptr, 1)
    assert hipblas.hipblasSdot(handle, n, vx.ptr, 1, vx.ptr, 1, results.ptr) is None
    assert hipblas.hipblasSnrm2(handle, n, vx.array, 1, results[1:]) is None
    hipblas.hipblasIsamax(handle, n, vx.ptr, 1, index)
    a = Matrix(random(rng, (3, n), np.float32), 3)
    c = Matrix(random(rng, (3, 3), np.float32), 3)
    c_before = c.get()
    hipblas.hipblasSgemm(
        handle, OPS["N"], OPS["T"], 3, 3, n, scalars, a.ptr, 3, a.ptr, 3, scalars[1:], c.ptr, 3
    )
    hipblas.hipblasSetPointerMode(handle, hipblas.HIPBLAS_POINTER_MODE_HOST)
    close(vy.get(), y + 2.5 * x, np.float32)
    close(results.get()[:2], [x @ x, np.linalg.norm(x)], np.float32, n)
    assert index.get()[0] == np.argmax(np.abs(x)) + 1
    host_a = a.get()
    close(c.get(), 2.5 * host_a @ host_a.T - 0.5 * c_before, np.float32, n)
    assert hipblas.hipblasSdot(handle, n, vx.ptr, 1, vx.ptr, 1) == pytest.approx(x @ x, rel=1e-5)


@ON_EVERY_PLATFORM
def test_tensors_of_other_libraries_in_place(device, handle, rng):
    """A DLPack tensor on the handle's device is used in place (NumPy's, where the
    device's memory is the host's)."""
    from hipkit.platforms.base.platform import kDLCPU

    if device.platform.dlpack_device_type != kDLCPU:
        pytest.skip("NumPy arrays are not this device's memory")
    x, y = random(rng, 12, np.float64), random(rng, 12, np.float64)
    expected = y + 3 * x
    hipblas.hipblasDaxpy(handle, 12, 3.0, x, 1, y, 1)
    device.synchronize()
    close(y, expected, np.float64)
    assert hipblas.hipblasDdot(handle, 12, x, 1, y, 1) == pytest.approx(x @ y)


FILL = r"""
extern "C" __global__ void fill(float* x, float value, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = value;
}
"""


@ON_EVERY_PLATFORM
def test_library_calls_follow_kernels_on_their_stream(device, handle):
    """A routine queued on a stream behind a kernel reads what the kernel wrote
    (the kernel spins first, so that reading early would read zeros)."""
    from test_runtime_streams import SOURCE, Spinner

    spinner = Spinner(hipkit.compile(SOURCE), device)
    fill_kernel = hipkit.compile(FILL).get_function("fill")
    stream = hipkit.Stream(non_blocking=True)
    hipblas.hipblasSetStream(handle, stream)
    n = 300
    x, y = hipkit.zeros(n, np.float32), hipkit.zeros(n, np.float32)
    spinner.spin(30, stream)
    fill_kernel[1, 64, 0, stream](x, np.float32(2.0), n)
    hipblas.hipblasScopy(handle, n, x, 1, y, 1)
    assert hipblas.hipblasSasum(handle, n, y, 1) == 2.0 * n  # host mode: waits for the stream
    stream.synchronize()
    np.testing.assert_array_equal(y.get(), np.full(n, 2.0, np.float32))


@ON_EVERY_PLATFORM
def test_profiled_calls_are_api_rows_with_their_work(device, handle, rng):
    from hipkit import blas

    a, b = (hipkit.to_device(random(rng, (8, 8), np.float32)) for _ in range(2))
    blas.gemm(a, b)  # this thread's handle made before the profile
    with hipkit.profile() as p:
        blas.gemm(a, b)
        hipblas.hipblasSaxpy(handle, 64, 1.0, a, 1, b, 1)
        device.synchronize()
    calls = [x for x in p.api_calls if x.function.startswith("hipblas")]
    assert [x.function for x in calls] == ["hipblasSgemm", "hipblasSaxpy"]
    for call in calls:
        work = [k for k in p.kernels if k.correlation_id == call.correlation_id]
        assert work, f"no kernel row correlated with {call.function}"
        if device.platform.name == "cpu":  # the CPU provider's work is a host function named after it
            assert [k.name for k in work] == [call.function]
