"""Every error users can provoke: hipBLAS's statuses through hipkit.hipblas (as
hipBLAS answers them on ROCm, where it forwards to rocBLAS: a null or destroyed
handle NOT_INITIALIZED, a negative size or a short leading dimension INVALID_VALUE,
an enumerator hipBLAS lacks INVALID_ENUM, an Ex combination no library has
NOT_SUPPORTED), the front end's own TypeErrors, and every ValueError and TypeError
of hipkit.blas."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_blas import transposed
from test_cli import environment
from test_hipblas import (
    ON_EVERY_PLATFORM,
    OPS,
    Matrix,
    Vector,
    _provider,  # noqa: F401  (autouse: skips where no BLAS is served)
    random,
)

import hipkit
from hipkit import blas, hipblas, platforms

S = hipblas.hipblasStatus_t


def status(expected: S, call, *args) -> hipblas.HipblasError:
    with pytest.raises(hipblas.HipblasError) as caught:
        call(*args)
    error = caught.value
    assert error.status is expected, str(error)
    assert error.function == call.__name__ and call.__name__ in str(error) and expected.name in str(error)
    return error


@pytest.fixture
def handle(device):
    h = hipblas.hipblasCreate()
    yield h
    hipblas.hipblasDestroy(h)


# ------------------------------------------------------------------ hipBLAS's statuses


@ON_EVERY_PLATFORM
def test_a_null_unknown_or_destroyed_handle_is_not_initialized(device, rng):
    x = Vector(random(rng, 4, np.float32))
    gone = hipblas.hipblasCreate()
    hipblas.hipblasDestroy(gone)
    for handle in (0, None, gone, 12345, "handle"):
        status(S.HIPBLAS_STATUS_NOT_INITIALIZED, hipblas.hipblasSscal, handle, 4, 2.0, x.ptr, 1)
        status(S.HIPBLAS_STATUS_NOT_INITIALIZED, hipblas.hipblasSnrm2, handle, 4, x.ptr, 1)
    for function, args in (
        (hipblas.hipblasDestroy, ()),
        (hipblas.hipblasSetStream, (0,)),
        (hipblas.hipblasGetStream, ()),
        (hipblas.hipblasSetPointerMode, (hipblas.HIPBLAS_POINTER_MODE_HOST,)),
        (hipblas.hipblasGetMathMode, ()),
        (hipblas.hipblasGetVersion, ()),
    ):
        status(S.HIPBLAS_STATUS_NOT_INITIALIZED, function, gone, *args)


@ON_EVERY_PLATFORM
def test_bad_sizes_and_leading_dimensions_are_invalid_values(device, handle, rng):
    x = Vector(random(rng, 4, np.float32))
    a = Matrix(random(rng, (4, 4), np.float32), 4)
    head = (handle, OPS["N"], OPS["N"])
    for args in ((-1, 4, 4, 1.0, a.ptr, 4, a.ptr, 4, 0.0, a.ptr, 4),  # negative m
                 (4, 4, 4, 1.0, a.ptr, 3, a.ptr, 4, 0.0, a.ptr, 4),  # lda < m
                 (4, 4, 4, 1.0, a.ptr, 4, a.ptr, 4, 0.0, a.ptr, 2)):  # ldc < m  # fmt: skip
        status(S.HIPBLAS_STATUS_INVALID_VALUE, hipblas.hipblasSgemm, *head, *args)
    status(S.HIPBLAS_STATUS_INVALID_VALUE, hipblas.hipblasStrsv, handle, hipblas.HIPBLAS_FILL_MODE_LOWER,
           OPS["N"], hipblas.HIPBLAS_DIAG_UNIT, -1, a.ptr, 4, x.ptr, 1)  # negative n  # fmt: skip
    # Level 1 takes a size below 1 for nothing to do (rocBLAS's quick return), as hipBLAS does on ROCm.
    before = x.get()
    hipblas.hipblasSscal(handle, -1, 2.0, x.ptr, 1)
    assert hipblas.hipblasSnrm2(handle, -1, x.ptr, 1) == 0
    np.testing.assert_array_equal(x.get(), before)
    # incx 0: rocBLAS refuses it; hipBLAS on cuBLAS answers cuBLAS's answer, and cuBLAS 13
    # takes it (x[0] for every element: seen on the H200, 2026-12-01).
    if not hipblas.provider(device).startswith("cuBLAS"):
        status(S.HIPBLAS_STATUS_INVALID_VALUE, hipblas.hipblasSgemv, handle, OPS["N"], 4, 4, 1.0, a.ptr, 4,
               x.ptr, 0, 0.0, x.ptr, 1)  # fmt: skip
    status(S.HIPBLAS_STATUS_INVALID_VALUE, hipblas.hipblasSgemmStridedBatched, *head, 4, 4, 4, 1.0, a.ptr,
           4, 0, a.ptr, 4, 0, 0.0, a.ptr, 4, 16, -1)  # negative batch count  # fmt: skip


@ON_EVERY_PLATFORM
def test_an_enumerator_hipblas_lacks_is_an_invalid_enum(device, handle, rng):
    a = Matrix(random(rng, (4, 4), np.float64), 4)
    x = Vector(random(rng, 4, np.float64))
    status(S.HIPBLAS_STATUS_INVALID_ENUM, hipblas.hipblasDgemm, handle, 0, OPS["N"], 4, 4, 4, 1.0, a.ptr, 4,
           a.ptr, 4, 0.0, a.ptr, 4)  # fmt: skip
    status(S.HIPBLAS_STATUS_INVALID_ENUM, hipblas.hipblasDtrsv, handle, 99, OPS["N"],
           hipblas.HIPBLAS_DIAG_NON_UNIT, 4, a.ptr, 4, x.ptr, 1)  # fmt: skip


@ON_EVERY_PLATFORM
def test_an_ex_combination_no_library_has_is_not_supported(device, handle, rng):
    a = Matrix(random(rng, (4, 4), np.float64), 4)
    t32, t64 = hipblas.HIP_R_32F, hipblas.HIP_R_64F
    status(S.HIPBLAS_STATUS_NOT_SUPPORTED, hipblas.hipblasGemmEx, handle, OPS["N"], OPS["N"], 4, 4, 4, 1.0,
           a.ptr, t32, 4, a.ptr, t64, 4, 0.0, a.ptr, t32, 4, hipblas.HIPBLAS_COMPUTE_32F,
           hipblas.HIPBLAS_GEMM_DEFAULT)  # fmt: skip


# ------------------------------------------------------------------ hipkit.hipblas's own


@ON_EVERY_PLATFORM
def test_arguments_python_cannot_pass(device, handle, rng):
    x = Vector(random(rng, 4, np.float32))
    with pytest.raises(TypeError, match=r"hipblasSscal\(handle, n, alpha, x, incx\): 4 arguments"):
        hipblas.hipblasSscal(handle, 4, 2.0, x.ptr)
    with pytest.raises(TypeError, match="hipblasSscal: alpha: .*host pointer mode"):
        hipblas.hipblasSscal(handle, 4, 1j, x.ptr, 1)
    with pytest.raises(TypeError, match="hipblasSscal: x: expected a device pointer"):
        hipblas.hipblasSscal(handle, 4, 2.0, "x", 1)
    with pytest.raises(TypeError, match="hipblasSnrm2.*4 arguments given \\(device pointer mode\\)"):
        hipblas.hipblasSetPointerMode(handle, hipblas.HIPBLAS_POINTER_MODE_DEVICE)
        hipblas.hipblasSnrm2(handle, 4, x.ptr, 1)
    hipblas.hipblasSetPointerMode(handle, hipblas.HIPBLAS_POINTER_MODE_HOST)
    with pytest.raises(TypeError, match="not a stream"):
        hipblas.hipblasSetStream(handle, "stream")
    with pytest.raises(TypeError, match="hipblasGetVector: y: expected host memory"):
        hipblas.hipblasGetVector(4, 4, x.ptr, 1, "y", 1)
    with pytest.raises(ValueError, match="hipblasGetVector: y: the host array is read-only"):
        readonly = np.zeros(4, np.float32)
        readonly.flags.writeable = False
        hipblas.hipblasGetVector(4, 4, x.ptr, 1, readonly, 1)


@ON_EVERY_PLATFORM
def test_a_platform_without_blas_here(monkeypatch, device):
    """Where a platform's provider cannot load (its library not installed), hipblasCreate
    answers NOT_INITIALIZED with what to install."""
    from hipkit.hipblas import _handles
    from hipkit.platforms.base.blas import BlasUnavailable
    from hipkit.platforms.base.faces import Faces

    def unavailable():
        raise BlasUnavailable("install the vendor's BLAS")

    load = Faces.load
    monkeypatch.setattr(Faces, "load", lambda self, face: unavailable if face == "blas" else load(self, face))
    monkeypatch.setattr(_handles, "_libraries", {})
    error = status(S.HIPBLAS_STATUS_NOT_INITIALIZED, hipblas.hipblasCreate)
    assert "install the vendor's BLAS" in str(error)
    monkeypatch.setattr(Faces, "load", lambda self, face: None if face == "blas" else load(self, face))
    assert "serves no BLAS" in str(status(S.HIPBLAS_STATUS_NOT_INITIALIZED, hipblas.hipblasCreate))


# ------------------------------------------------------------------ hipkit.blas


def raises(kind, pattern: str, call, *args, **kwargs) -> None:
    with pytest.raises(kind, match=pattern):
        call(*args, **kwargs)


@ON_EVERY_PLATFORM
def test_shapes_that_do_not_fit(device, rng):
    m34, m45, m35 = (hipkit.to_device(random(rng, s, np.float32)) for s in ((3, 4), (4, 5), (3, 5)))
    v3, v4, v5 = (hipkit.to_device(random(rng, n, np.float32)) for n in (3, 4, 5))
    raises(ValueError, r"b: shape \(3, 5\) does not follow a's \(3, 4\)", blas.gemm, m34, m35)
    raises(ValueError, r"b: shape \(4, 5\) \(transposed\)", blas.gemm, m34, m45, trans_b=True)
    raises(ValueError, r"out: shape \(3, 4\), the product's is \(3, 5\)", blas.gemm, m34, m45, m34)
    raises(ValueError, "a: gemm takes 2-D arrays", blas.gemm, v3, m34)
    raises(ValueError, r"beta: 0.5 with no out", blas.gemm, m34, m45, beta=0.5)
    batch = hipkit.to_device(random(rng, (2, 3, 4), np.float32))
    raises(ValueError, r"b: batch axes \(3,\) do not broadcast against a's \(2,\)",
           blas.matmul, batch, hipkit.to_device(random(rng, (3, 4, 5), np.float32)))  # fmt: skip
    raises(ValueError, "a: matmul takes arrays of 2 or more axes", blas.matmul, v3, m34)
    raises(ValueError, r"out: shape \(3, 5\), the product's is \(2, 3, 5\)", blas.matmul, batch, m45, m35)
    raises(ValueError, r"x: length 5, op\(a\) of shape \(3, 4\) needs 4", blas.gemv, m34, v5)
    raises(ValueError, r"out: shape \(4,\), the result's is \(3,\)", blas.gemv, m34, v4, v4)
    raises(ValueError, "y: length 4, x's is 3", blas.axpy, 1.0, v3, v4)
    raises(ValueError, "x: expected a 1-D array", blas.nrm2, m34)
    raises(ValueError, r"y: outer\(x, y\) of lengths \(3, 5\) does not match a's shape \(3, 4\)",
           blas.ger, v3, v5, m34)  # fmt: skip
    raises(ValueError, "a: expected a square matrix", blas.symv, m34, v4)
    raises(ValueError, "a: expected a square matrix", blas.trsv, m34, v4)
    raises(ValueError, r"a: shape \(3, 4\), b of shape \(4, 5\) needs \(4, 4\)", blas.trsm, m34, m45)
    raises(ValueError, r"a: shape \(3, 4\), b of shape \(3, 5\) needs \(5, 5\) \(right\)",
           blas.symm, m34, m35, side="right")  # fmt: skip
    raises(ValueError, r"b: op\(b\) of shape \(4, 5\), op\(a\)'s is \(3, 4\)", blas.geam, m34, m45)
    raises(ValueError, r"b: shape \(3, 5\), a's is \(3, 4\)", blas.syr2k, m34, m35)
    raises(ValueError, "b: a, b differ in length: 2, 1", blas.gemm_batched, [m34, m34], [m45])
    raises(ValueError, r"a\[1\]: float32\[4, 5\] strides .* unlike a\[0\]'s float32\[3, 4\]",
           blas.gemm_batched, [m34, m45], [m45, m45])  # fmt: skip
    raises(ValueError, "x: iamax of an empty vector", blas.iamax, v3[:0])
    raises(ValueError, "out: shape .*: a reduction writes one element", blas.dot, v3, v3, v3)


@ON_EVERY_PLATFORM
def test_dtypes_that_do_not_fit(device, rng):
    f32, f64 = (
        hipkit.to_device(random(rng, (3, 3), np.float32)),
        hipkit.to_device(random(rng, (3, 3), np.float64)),
    )
    ints = hipkit.zeros((3, 3), np.int32)
    half = hipkit.zeros(3, np.float16)
    raises(TypeError, "b: dtype float64 differs from a's float32", blas.gemm, f32, f64)
    raises(TypeError, "out: dtype float64 differs from a's float32", blas.gemm, f32, f32, f64)
    raises(TypeError, "a: dtype int32 is not served by gemm", blas.gemm, ints, ints)
    raises(TypeError, "x: dtype float16 is not served here", blas.axpy, 1.0, half, half)
    raises(TypeError, "y: dtype float64 differs from x's float32", blas.dot, f32[0], f64[0])
    raises(TypeError, "out: dtype float32 differs from the result's float64", blas.nrm2, f64[0], f32[0, :1])
    raises(TypeError, "hipblasSaxpy: alpha: .*host pointer mode", blas.axpy, 1j, f32[0], f32[1])
    raises(TypeError, "x: expected a hipkit DeviceArray or a DLPack tensor, got list", blas.nrm2, [1.0])


@ON_EVERY_PLATFORM
def test_layouts_without_a_blas_form(device, rng):
    wide = hipkit.to_device(random(rng, (6, 8), np.complex64))
    every_other = wide[::2, ::2]  # both strides past one element
    raises(ValueError, r"a: a 3x4 matrix with strides \(128, 16\) bytes has no BLAS layout.*a.copy\(\)",
           blas.gemm, every_other, wide[:4, :4])  # fmt: skip
    out = hipkit.zeros((6, 8), np.complex64)[::2, ::2]
    raises(ValueError, "out: a 3x4 matrix with strides", blas.gemm, wide[:3, :5], wide[:5, :4], out)
    square = hipkit.to_device(random(rng, (4, 4), np.complex64))
    raises(ValueError, "a: the conjugate transpose of this transposed view has no BLAS operation",
           blas.gemm, transposed(square), square, trans_a="C")  # fmt: skip
    raises(ValueError, "b: in Fortran order, out in C order", blas.symm, square, transposed(square), square)
    raises(ValueError, "b: stored unlike a", blas.syr2k, square, transposed(square))
    raises(ValueError, "trans: syrk and syr2k of complex types take 'N' or 'T'", blas.syrk, square, trans="C")
    broadcast = hipkit.DeviceArray(
        (3,), np.complex64, ptr=square.ptr, owner=square, device=device, strides=(0,)
    )
    raises(ValueError, r"x: stride 0 bytes is not a whole, nonzero number", blas.nrm2, broadcast)
    raises(ValueError, "x: iamax of a reversed view", blas.iamax, square[0, ::-1])
    a, b = hipkit.zeros((2, 1, 3, 3), np.float32), hipkit.zeros((1, 2, 3, 3), np.float32)
    raises(ValueError, r"a: batch axes \(2, 1\) broadcast partly against \(2, 2\)", blas.matmul, a, b)


@ON_EVERY_PLATFORM
def test_arguments_that_name_nothing(device, rng):
    square = hipkit.to_device(random(rng, (3, 3), np.float64))
    raises(ValueError, "trans_a: expected False/'N', True/'T' or 'C'/'H', got 'X'", blas.gemm, square, square,
           trans_a="X")  # fmt: skip
    raises(ValueError, "side: expected 'left' or 'right', got 'up'", blas.trsm, square, square, side="up")
    other = hipkit.Stream()
    raises(TypeError, "not a stream", blas.gemm, square, square, stream="s")
    assert blas.gemm(square, square, stream=other) is not None


def test_arrays_and_streams_of_different_devices_are_refused(tmp_path):
    """Two CPU devices (a process of its own: the runtime reads HIPKIT_CPU_DEVICES once)."""
    if platforms.status()["cpu"]:
        pytest.skip(f"cpu platform absent: {platforms.status()['cpu']}")
    body = textwrap.dedent("""
        import numpy as np, hipkit, pytest
        from hipkit import blas
        first, second = hipkit.Device(0, "cpu"), hipkit.Device(1, "cpu")
        a = hipkit.to_device(np.ones((3, 3), np.float32), device=first)
        b = hipkit.to_device(np.ones((3, 3), np.float32), device=second)
        with pytest.raises(ValueError, match="b: on <hipkit.Device 1 .*, the other arrays on <hipkit.Dev"):
            blas.gemm(a, b)
        with pytest.raises(ValueError, match="stream: .* is not on the arrays' device"):
            blas.gemm(a, a, stream=hipkit.Stream(second))
        np.testing.assert_array_equal(blas.gemm(b, b).get(), np.full((3, 3), 3.0))  # a handle per device
        np.testing.assert_array_equal(blas.gemm(a, a).get(), np.full((3, 3), 3.0))
        with second:
            np.testing.assert_array_equal(blas.gemm(np.ones((2, 2), np.float32), b[:2, :2]).get(), 2.0)
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", body], env=environment(HIPKIT_CPU_DEVICES="2"),
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


@ON_EVERY_PLATFORM
def test_a_device_reset_takes_the_handles(device, rng):
    # The reset takes the device's context with the handle: a call on it answers
    # NOT_INITIALIZED without reaching the vendor library, and hipkit.blas makes
    # itself a new handle.
    a = hipkit.to_device(random(rng, (4, 4), np.float32))
    blas.gemm(a, a)
    handle = hipblas.hipblasCreate()
    device.synchronize()
    device.reset()
    a = hipkit.to_device(random(rng, (4, 4), np.float32))
    caught = status(S.HIPBLAS_STATUS_NOT_INITIALIZED, hipblas.hipblasSgemm, handle, OPS["N"], OPS["N"], 4, 4,
                    4, 1.0, a.ptr, 4, a.ptr, 4, 0.0, a.ptr, 4)  # fmt: skip
    assert "reset" in str(caught)
    status(S.HIPBLAS_STATUS_NOT_INITIALIZED, hipblas.hipblasDestroy, handle)  # forgotten already
    host = a.get()
    np.testing.assert_allclose(blas.gemm(a, a).get(), host @ host, rtol=1e-5, atol=1e-5)
