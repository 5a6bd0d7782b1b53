"""The NVIDIA platform's hipBLAS: hipBLAS on cuBLAS for programs (``hipblas/hipblas.h``,
``hipkit cc --platform nvidia -lhipblas``) and for Python (``platforms/nvidia/blas.py``
over nvmath-python's cuBLAS bindings).

Without a GPU: the program headers compile for a program calling every routine and
handle function, it links with cuBLAS and runs (cuBLAS refuses to make a handle, each
call answers without one), the header's conversion tables are the Python provider's, and
the provider has every function and answers what it answers without cuBLAS.  With an
NVIDIA GPU: cuBLAS's results through the provider against NumPy, and the program's.
"""

from __future__ import annotations

import ctypes
import inspect
import re
import subprocess
import sys
import threading

import numpy as np
import pytest
from test_cc import build, write

import hipkit
from hipkit import platforms
from hipkit._errors import CompileError
from hipkit.platforms.base.blas import HANDLE_FUNCTIONS, BlasUnavailable
from hipkit.platforms.base.options import parse_args
from hipkit.platforms.nvidia import blas as nvblas
from hipkit.platforms.nvidia import gpu_present, toolchain, toolkit
from hipkit.platforms.nvidia.toolchain import NvidiaToolchain
from hipkit.tables import blas_api

NVCC_MISSING = NvidiaToolchain.missing()
CUBLAS = toolkit.find_cublas()
needs_cublas = pytest.mark.skipif(
    bool(NVCC_MISSING) or CUBLAS is None, reason=NVCC_MISSING or toolkit.CUBLAS_MISSING
)
NVIDIA_ABSENT = platforms.status().get("nvidia", "this hipkit has no nvidia platform")


def _nvmath_cublas():
    return pytest.importorskip("nvmath.bindings.cublas", reason="nvmath-python is not installed")


# ---------------------------------------------------------------- a program calling everything

# hipBLAS's values of the header's enums, each converted by the header as the Python
# provider converts it (tables), and the statuses and version it answers.
_PROGRAM = r"""
#include <hipblas/hipblas.h>
#include <cstdio>
#include <cstring>

template <class H>
static void table(const char* kind, int from, int to) {
  for (int v = from; v <= to; ++v) {
    __hk_blas::invalid_enum = false;
    int c = static_cast<int>(__hk_blas::cu(static_cast<H>(v)));
    if (__hk_blas::invalid_enum) std::printf("%s %d -\n", kind, v);
    else std::printf("%s %d %d\n", kind, v, c);
  }
  __hk_blas::invalid_enum = false;
}

static void tables() {
  table<hipblasOperation_t>("operation", 0, 200);
  table<hipblasFillMode_t>("fill", 0, 200);
  table<hipblasDiagType_t>("diag", 0, 200);
  table<hipblasSideMode_t>("side", 0, 200);
  table<hipblasComputeType_t>("compute", -1, 200);
  table<hipblasGemmAlgo_t>("algo", 0, 200);
  table<hipblasPointerMode_t>("pointer", -1, 200);
  table<hipblasAtomicsMode_t>("atomics", -1, 200);
  table<hipDataType>("datatype", 0, 40);
  for (int v = -1; v <= 200; ++v) {
    cublasMath_t c;
    if (__hk_blas::cu_math(static_cast<hipblasMath_t>(v), &c)) std::printf("math %d %d\n", v, c);
    else std::printf("math %d -\n", v);
    hipblasMath_t h;
    if (__hk_blas::hip_math(static_cast<cublasMath_t>(v), &h)) std::printf("math_back %d %d\n", v, h);
    else std::printf("math_back %d -\n", v);
  }
  for (int v = 0; v <= 40; ++v)
    std::printf("status %d %d\n", v, __hk_blas::status(static_cast<cublasStatus_t>(v)));
  int version = 0;
  hipblasGetVersion(reinterpret_cast<hipblasHandle_t>(1), &version);
  std::printf("version %d\n", version);
}

// Every routine and handle function, with null arguments: compiled and linked, never run.
static int every_call() {
  int s = 0;
@CALLS@
  return s;
}

// With a handle: a GEMM, and enum values hipBLAS lacks, which reach cuBLAS as values it
// refuses: each call answers HIPBLAS_STATUS_INVALID_ENUM and leaves C as it was.
static void on_the_gpu(hipblasHandle_t handle) {
  float host[4] = {1, 2, 3, 4}, nines[4] = {9, 9, 9, 9}, one = 1, zero = 0;
  float *a = nullptr, *c = nullptr;
  hipMalloc(&a, sizeof host);
  hipMalloc(&c, sizeof host);
  hipMemcpy(a, host, sizeof host, hipMemcpyHostToDevice);
  int s = hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_N, 2, 2, 2, &one, a, 2, a, 2, &zero, c, 2);
  hipMemcpy(host, c, sizeof host, hipMemcpyDeviceToHost);
  std::printf("sgemm: %d %g %g %g %g\n", s, host[0], host[1], host[2], host[3]);
  hipMemcpy(c, nines, sizeof nines, hipMemcpyHostToDevice);
  const auto N = HIPBLAS_OP_N;
  std::printf("refused op: %d\n", hipblasSgemm(handle, static_cast<hipblasOperation_t>(7), N, 2, 2, 2,
                                                &one, a, 2, a, 2, &zero, c, 2));
  std::printf("refused side: %d\n", hipblasStrsm(handle, HIPBLAS_SIDE_BOTH, HIPBLAS_FILL_MODE_UPPER, N,
                                                  HIPBLAS_DIAG_UNIT, 2, 2, &one, a, 2, c, 2));
  std::printf("refused fill: %d\n", hipblasStrsm(handle, HIPBLAS_SIDE_LEFT, static_cast<hipblasFillMode_t>(7),
                                                  N, HIPBLAS_DIAG_UNIT, 2, 2, &one, a, 2, c, 2));
  std::printf("refused diag: %d\n", hipblasStrsm(handle, HIPBLAS_SIDE_LEFT, HIPBLAS_FILL_MODE_UPPER, N,
                                                  static_cast<hipblasDiagType_t>(7), 2, 2, &one, a, 2, c, 2));
  const auto R = HIP_R_32F;
  s = hipblasGemmEx(handle, N, N, 2, 2, 2, &one, a, R, 2, a, R, 2, &zero, c, R, 2,
                    static_cast<hipblasComputeType_t>(99), HIPBLAS_GEMM_DEFAULT);
  std::printf("refused compute: %d\n", s);
  s = hipblasGemmEx(handle, N, N, 2, 2, 2, &one, a, R, 2, a, R, 2, &zero, c, R, 2, HIPBLAS_COMPUTE_32F,
                    static_cast<hipblasGemmAlgo_t>(7));
  std::printf("refused algo: %d\n", s);
  hipMemcpy(host, c, sizeof host, hipMemcpyDeviceToHost);
  std::printf("untouched: %d\n", host[0] == 9 && host[1] == 9 && host[2] == 9 && host[3] == 9);
  int version = 0;
  std::printf("version: %d\n", hipblasGetVersion(handle, &version));
  std::printf("destroy: %d\n", hipblasDestroy(handle));
  hipFree(a);
  hipFree(c);
}

int main(int argc, char** argv) {
  if (argc > 1 && !std::strcmp(argv[1], "tables")) {
    tables();
    return 0;
  }
  if (argc > 99) return every_call();
  hipblasHandle_t handle = nullptr;
  std::printf("create: %d\n", hipblasCreate(&handle));
  float one = 1;
  std::printf("null handle: %d\n", hipblasSaxpy(nullptr, 1, &one, nullptr, 1, nullptr, 1));
  std::printf("bad enum: %d\n", hipblasSgemm(nullptr, static_cast<hipblasOperation_t>(7), HIPBLAS_OP_N,
                                             1, 1, 1, &one, nullptr, 1, nullptr, 1, &one, nullptr, 1));
  std::printf("string: %s\n", hipblasStatusToString(HIPBLAS_STATUS_INVALID_ENUM));
  if (handle) on_the_gpu(handle);
  return 0;
}
"""


def _declared(params: str) -> list[str]:
    """The C types of a HANDLE_FUNCTIONS parameter list ("hipblasHandle_t handle, ...")."""
    return [p.strip().rpartition(" ")[0] for p in params.split(",")]


def _calls() -> str:
    lines = []
    for r in blas_api.routines():
        types = [p.ctype + ("*" if p.role == blas_api.BATCH else "") for p in r.params]
        args = ", ".join(f"static_cast<{t}>(0)" for t in types)
        lines += [f"  s += {name}({args});" for name in r.names]
    for name, params in HANDLE_FUNCTIONS.items():
        args = ", ".join(f"static_cast<{t}>(0)" for t in _declared(params))
        lines.append(f"  s += {name}({args});")
    lines.append("  s += hipblasStatusToString(HIPBLAS_STATUS_SUCCESS)[0];")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """The program, built by hipkit cc --platform nvidia with -lhipblas."""
    directory = tmp_path_factory.mktemp("hipblas")
    source = write(directory, "calls.cpp", _PROGRAM.replace("@CALLS@", _calls()))
    exe = directory / "calls"
    build(directory, "--platform", "nvidia", "-Wall", str(source), "-o", str(exe), "-lhipblas")
    return exe


def _run(exe, *args: str) -> str:
    done = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@needs_cublas
def test_every_name_compiles_and_links(program):
    # (The fixture compiled a call of every routine name, its _v2 aliases included, and of
    # every handle function, and linked cuBLAS: each cuBLAS function the header calls exists.)
    assert program.is_file()


@needs_cublas
def test_the_program_runs_and_answers_as_hipblas(program):
    # (cuBLAS prints its own words for the refused values: " ** On entry to SGEMM ...".)
    out = dict(line.split(": ", 1) for line in _run(program).splitlines() if ": " in line)
    # hipblasCreate makes a handle where a GPU is; elsewhere cuBLAS cannot, and says so.
    assert out["create"] == ("1" if NVIDIA_ABSENT else "0")
    assert out["null handle"] == "1"  # HIPBLAS_STATUS_NOT_INITIALIZED
    assert out["bad enum"] == "10"  # HIPBLAS_STATUS_INVALID_ENUM
    assert out["string"] == "HIPBLAS_STATUS_INVALID_ENUM"
    if out["create"] == "0":
        assert out["sgemm"] == "0 7 10 15 22"  # [[1, 3], [2, 4]] squared, by columns
        refused = [out[f"refused {what}"] for what in ("op", "side", "fill", "diag", "compute", "algo")]
        assert refused == ["10"] * 6
        assert (out["untouched"], out["version"], out["destroy"]) == ("1", "0", "0")


def _expected_tables() -> list[str]:
    """The lines the program's "tables" prints, from the Python provider's tables."""

    def rows(kind: str, table: dict[int, int], start: int, stop: int) -> list[str]:
        return [f"{kind} {v} {table.get(v, '-')}" for v in range(start, stop + 1)]

    lines = rows("operation", nvblas.OPERATION, 0, 200) + rows("fill", nvblas.FILL_MODE, 0, 200)
    lines += rows("diag", nvblas.DIAG_TYPE, 0, 200) + rows("side", nvblas.SIDE_MODE, 0, 200)
    lines += rows("compute", nvblas.COMPUTE_TYPE, -1, 200) + rows("algo", nvblas.GEMM_ALGO, 0, 200)
    lines += rows("pointer", nvblas.POINTER_MODE, -1, 200) + rows("atomics", nvblas.ATOMICS_MODE, -1, 200)
    lines += [f"datatype {v} {v}" for v in range(41)]
    back = {c: h for h, c in nvblas.MATH_MODE.items()}
    for v in range(-1, 201):
        lines += [f"math {v} {nvblas.MATH_MODE.get(v, '-')}", f"math_back {v} {back.get(v, '-')}"]
    lines += [f"status {v} {nvblas.STATUS.get(v, nvblas.UNKNOWN)}" for v in range(41)]
    major, minor, patch = nvblas.HIPBLAS_VERSION
    return [*lines, f"version {major * 100000 + minor * 100 + patch}"]


@needs_cublas
def test_header_and_python_convert_alike(program):
    assert _run(program, "tables").splitlines() == _expected_tables()


def test_python_version_is_the_headers():
    api = (toolchain.PORTABLE_INCLUDE_DIR / "hipkit_blas" / "api.h").read_text()
    found = [
        int(re.search(rf"#define HIPBLAS_VERSION_{p} (\d+)", api).group(1))
        for p in ("MAJOR", "MINOR", "PATCH")
    ]
    assert tuple(found) == nvblas.HIPBLAS_VERSION


@needs_cublas
def test_rocblas_links_cublas_too():
    flags = NvidiaToolchain().link_flags(parse_args(["a.cpp", "-lrocblas"]))
    assert "-lrocblas" not in flags
    assert CUBLAS is not None and CUBLAS.link_flags == flags[-len(CUBLAS.link_flags) :]


@pytest.mark.skipif(bool(NVCC_MISSING), reason=NVCC_MISSING or "nvcc")
def test_without_cublas_hipblas_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(toolchain, "find_cublas", lambda: None)
    with pytest.raises(CompileError, match="pip install nvidia-cublas"):
        NvidiaToolchain().link_flags(parse_args(["a.cpp", "-lhipblas"]))
    assert NvidiaToolchain().link_flags(parse_args(["a.cpp", "-lm"]))  # others need no cuBLAS


@pytest.mark.parametrize("suffix", ["", ".13"])
def test_cublas_is_found_in_a_toolkit(tmp_path, monkeypatch, suffix):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cublas_v2.h").write_text("")
    (tmp_path / "lib64").mkdir()
    for name in ("libcublas", "libcublasLt"):
        (tmp_path / "lib64" / f"{name}.so{suffix}").write_text("")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    toolkit.find_cublas.cache_clear()
    try:
        found = toolkit.find_cublas()
    finally:
        toolkit.find_cublas.cache_clear()
    assert found is not None and found.include == tmp_path / "include"
    names = ["-lcublas", "-lcublasLt"] if not suffix else ["-l:libcublas.so.13", "-l:libcublasLt.so.13"]
    lib = tmp_path / "lib64"
    assert found.link_flags == [f"-L{lib}", *names, "-Xlinker", f"-rpath,{lib}"]


# ---------------------------------------------------------------- the Python provider, no GPU


@pytest.fixture
def offline():
    """The provider over nvmath's bindings and cuda.bindings' driver, neither loaded: what
    it answers without cuBLAS."""
    from cuda.bindings import driver

    return nvblas.CublasLibrary(_nvmath_cublas(), driver)


def test_the_face_is_the_provider():
    assert platforms.faces("nvidia").load("blas") is nvblas.library


def test_every_function_exists(offline):
    names = [n for r in blas_api.routines() for n in r.names] + list(HANDLE_FUNCTIONS)
    assert all(callable(offline.function(name)) for name in names)
    assert offline.function("hipblasCaxpy_v2") is offline.function("hipblasCaxpy")
    for r in blas_api.routines():  # hipBLAS's C parameters, by their names
        assert list(inspect.signature(offline.function(r.name)).parameters) == [p.name for p in r.params]
    with pytest.raises(KeyError):
        offline.function("hipblasSgemmx")


@pytest.mark.parametrize("routine", blas_api.routines(), ids=lambda r: r.name)
def test_arguments_reach_cublas_in_order(routine):
    # nvmath's functions take cuBLAS's parameters, named as cuBLAS does: hipBLAS's, in
    # hipBLAS's order, are the same ones (its trans is hipBLAS's transA).
    cublas = _nvmath_cublas()
    if routine.element == "H":  # through the Ex form, with the half types put in
        adapter = nvblas._half_gemm(routine.family, lambda *args: None)
        assert len(inspect.signature(adapter).parameters) == len(routine.params)
        return

    def normal(name: str) -> str:
        return re.sub(r"array$", "", name.lower().replace("_", "")).replace("transa", "trans")

    signature = getattr(cublas, nvblas.binding_name(routine)).__doc__.split("\n")[0]
    theirs = [normal(p.split()[-1]) for p in re.search(r"\((.*)\)", signature).group(1).split(",")]
    assert theirs == [normal(p.name) for p in routine.params]


def test_answers_without_cublas(offline):
    fake = 0x1234  # no handle of cuBLAS's: nothing below may reach cuBLAS
    assert offline.function("hipblasSgemm")(0, 111, 111, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1) == 1
    assert offline.function("hipblasSgemm")(fake, 114, 111, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1) == 10
    assert offline.function("hipblasStrsm")(fake, 143, 121, 111, 131, 1, 1, 0, 0, 1, 0, 1) == 10
    gemm_ex = offline.function("hipblasGemmEx")
    # (... A, aType, lda, B, bType, ldb, beta, C, cType, ldc, computeType, algo): algo 99
    assert gemm_ex(fake, 111, 111, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 2, 99) == 10
    assert offline.function("hipblasCreate")(0) == 3  # INVALID_VALUE
    assert offline.function("hipblasDestroy")(0) == 1
    assert offline.function("hipblasGetStream")(fake, 0) == 3
    assert offline.function("hipblasSetPointerMode")(fake, 2) == 10
    assert offline.function("hipblasSetMathMode")(fake, 1) == 7  # XF32_XDL: NOT_SUPPORTED
    version = ctypes.c_int()
    assert offline.function("hipblasGetVersion")(fake, ctypes.addressof(version)) == 0
    assert version.value == 300000


def test_without_nvmath_the_library_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "nvmath.bindings.cublas", None)
    nvblas.library.cache_clear()
    try:
        with pytest.raises(BlasUnavailable, match=r"pip install 'hipkit\[nvidia\]'"):
            nvblas.library()
    finally:
        nvblas.library.cache_clear()


@pytest.mark.skipif(gpu_present(), reason="an NVIDIA driver is here")
def test_without_a_driver_the_library_says_so():
    _nvmath_cublas()
    with pytest.raises(BlasUnavailable, match="driver"):
        nvblas.library()


# ---------------------------------------------------------------- cuBLAS on a GPU, through the provider

N, T, C = 111, 112, 113  # hipblasOperation_t
HOST, DEVICE = 0, 1  # hipblasPointerMode_t


@pytest.fixture
def gpu():
    if NVIDIA_ABSENT:
        pytest.skip(f"nvidia platform absent: {NVIDIA_ABSENT}")
    dev = hipkit.Device(0, platform="nvidia")
    with dev:
        dev.set_current()
        yield dev
    dev.synchronize()


@pytest.fixture
def blas(gpu):
    try:
        return nvblas.library()
    except BlasUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def handle(blas):
    slot = ctypes.c_void_p()
    assert blas.function("hipblasCreate")(ctypes.addressof(slot)) == 0
    yield slot.value
    assert blas.function("hipblasDestroy")(slot.value) == 0


def pack(matrices: list[np.ndarray], ld: int, stride: int = 0) -> np.ndarray:
    """Matrices by columns, ``ld`` elements apart, each ``stride`` after the last (BLAS's layout)."""
    rows, cols = matrices[0].shape
    stride = stride or ld * cols
    flat = np.zeros(stride * len(matrices), matrices[0].dtype)
    for i, m in enumerate(matrices):
        flat[i * stride : i * stride + ld * cols].reshape(cols, ld)[:, :rows] = m.T
    return flat


def unpack(flat: np.ndarray, shape: tuple[int, int], ld: int, stride: int = 0, count: int = 1) -> list:
    rows, cols = shape
    stride = stride or ld * cols
    return [flat[i * stride : i * stride + ld * cols].reshape(cols, ld)[:, :rows].T for i in range(count)]


def op(m: np.ndarray, trans: int) -> np.ndarray:
    return {N: m, T: m.T, C: m.conj().T}[trans]


def scalar(value, dtype) -> np.ndarray:
    return np.array([value], dtype)  # host pointer mode: read at .ctypes.data


def test_description(blas):
    assert re.fullmatch(r"cuBLAS \d+\.\d+\.\d+", blas.description)


@pytest.mark.parametrize("trans_a", [N, T])
@pytest.mark.parametrize("trans_b", [N, T])
def test_sgemm(blas, handle, gpu, rng, trans_a, trans_b):
    m, n, k = rng.integers(1, 9, 3)
    a = rng.standard_normal((m, k) if trans_a == N else (k, m)).astype(np.float32)
    b = rng.standard_normal((k, n) if trans_b == N else (n, k)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    lda, ldb, ldc = a.shape[0] + 2, b.shape[0] + 1, m + 3  # ld past the rows
    da, db, dc = (hipkit.to_device(pack([x], ld)) for x, ld in ((a, lda), (b, ldb), (c, ldc)))
    alpha, beta = scalar(1.5, np.float32), scalar(-0.5, np.float32)
    status = blas.function("hipblasSgemm")(
        handle,
        trans_a,
        trans_b,
        m,
        n,
        k,
        alpha.ctypes.data,
        da.ptr,
        lda,
        db.ptr,
        ldb,
        beta.ctypes.data,
        dc.ptr,
        ldc,
    )
    assert status == 0
    gpu.synchronize()
    expected = 1.5 * op(a, trans_a) @ op(b, trans_b) - 0.5 * c
    np.testing.assert_allclose(unpack(dc.get(), (m, n), ldc)[0], expected, rtol=1e-5, atol=1e-5)


def test_zgemm_conjugate_transpose(blas, handle, gpu, rng):
    m, n, k = 4, 3, 5
    a = (rng.standard_normal((k, m)) + 1j * rng.standard_normal((k, m))).astype(np.complex128)
    b = (rng.standard_normal((k, n)) + 1j * rng.standard_normal((k, n))).astype(np.complex128)
    da, db, dc = (
        hipkit.to_device(pack([a], k)),
        hipkit.to_device(pack([b], k)),
        hipkit.empty(m * n, np.complex128),
    )
    alpha, beta = scalar(2 - 1j, np.complex128), scalar(0, np.complex128)
    status = blas.function("hipblasZgemm")(
        handle, C, N, m, n, k, alpha.ctypes.data, da.ptr, k, db.ptr, k, beta.ctypes.data, dc.ptr, m
    )
    assert status == 0
    gpu.synchronize()
    np.testing.assert_allclose(unpack(dc.get(), (m, n), m)[0], (2 - 1j) * a.conj().T @ b, rtol=1e-12)


def test_sgemm_strided_batched(blas, handle, gpu, rng):
    m, n, k, count = 3, 4, 2, 3
    a = [rng.standard_normal((m, k)).astype(np.float32) for _ in range(count)]
    b = [rng.standard_normal((k, n)).astype(np.float32) for _ in range(count)]
    sa, sb, sc = m * k + 5, k * n + 1, m * n + 7  # strides past each matrix
    da, db = hipkit.to_device(pack(a, m, sa)), hipkit.to_device(pack(b, k, sb))
    dc = hipkit.to_device(np.zeros(sc * count, np.float32))
    one, zero = scalar(1, np.float32), scalar(0, np.float32)
    status = blas.function("hipblasSgemmStridedBatched")(
        handle,
        N,
        N,
        m,
        n,
        k,
        one.ctypes.data,
        da.ptr,
        m,
        sa,
        db.ptr,
        k,
        sb,
        zero.ctypes.data,
        dc.ptr,
        m,
        sc,
        count,
    )
    assert status == 0
    gpu.synchronize()
    for got, x, y in zip(unpack(dc.get(), (m, n), m, sc, count), a, b, strict=True):
        np.testing.assert_allclose(got, x @ y, rtol=1e-5, atol=1e-6)


def test_gemm_ex_bfloat16_with_float_compute(blas, handle, gpu, rng):
    bfloat16 = pytest.importorskip("ml_dtypes").bfloat16
    m, n, k = 8, 6, 16
    a = rng.standard_normal((m, k)).astype(bfloat16)
    b = rng.standard_normal((n, k)).astype(bfloat16)
    da, db, dc = (
        hipkit.to_device(pack([a], m)),
        hipkit.to_device(pack([b], n)),
        hipkit.empty(m * n, np.float32),
    )
    one, zero = scalar(1, np.float32), scalar(0, np.float32)
    r_16bf, r_32f, compute_32f, default = 14, 0, 2, 160
    status = blas.function("hipblasGemmEx")(
        handle, N, T, m, n, k, one.ctypes.data, da.ptr, r_16bf, m, db.ptr, r_16bf, n,
        zero.ctypes.data, dc.ptr, r_32f, m, compute_32f, default,
    )  # fmt: skip
    assert status == 0
    gpu.synchronize()
    expected = a.astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_allclose(unpack(dc.get(), (m, n), m)[0], expected, rtol=1e-5, atol=1e-5)


def test_hgemm(blas, handle, gpu, rng):
    # (nvmath binds no cublasHgemm: the provider calls cublasGemmEx in half, as cuBLAS's does.)
    m, n, k = 4, 5, 3
    a, b = (rng.integers(-3, 4, shape).astype(np.float16) for shape in ((m, k), (k, n)))  # exact in half
    da, db, dc = (
        hipkit.to_device(pack([a], m)),
        hipkit.to_device(pack([b], k)),
        hipkit.empty(m * n, np.float16),
    )
    one, zero = scalar(1, np.float16), scalar(0, np.float16)
    status = blas.function("hipblasHgemm")(
        handle, N, N, m, n, k, one.ctypes.data, da.ptr, m, db.ptr, k, zero.ctypes.data, dc.ptr, m
    )
    assert status == 0
    gpu.synchronize()
    np.testing.assert_array_equal(unpack(dc.get(), (m, n), m)[0], a.astype(np.float32) @ b.astype(np.float32))


def test_dot_in_host_and_device_pointer_mode(blas, handle, gpu, rng):
    n = 37
    x, y = rng.standard_normal(2 * n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dx, dy = hipkit.to_device(x), hipkit.to_device(y)
    expected = float(np.dot(x[::2].astype(np.float64), y))
    # float32 rounding is relative to the terms, not to a sum that may cancel
    tolerance = 1e-6 * float(np.abs(x[::2]).astype(np.float64) @ np.abs(y))
    sdot = blas.function("hipblasSdot")
    on_host = np.zeros(1, np.float32)
    assert sdot(handle, n, dx.ptr, 2, dy.ptr, 1, on_host.ctypes.data) == 0  # cuBLAS waits, then writes
    assert on_host[0] == pytest.approx(expected, abs=tolerance)

    mode = ctypes.c_int(-1)
    assert blas.function("hipblasSetPointerMode")(handle, DEVICE) == 0
    assert blas.function("hipblasGetPointerMode")(handle, ctypes.addressof(mode)) == 0
    assert mode.value == DEVICE
    on_device = hipkit.empty(1, np.float32)
    assert sdot(handle, n, dx.ptr, 2, dy.ptr, 1, on_device.ptr) == 0
    gpu.synchronize()
    assert on_device.get()[0] == pytest.approx(expected, abs=tolerance)
    assert blas.function("hipblasSetPointerMode")(handle, HOST) == 0


def test_cublas_refusals_are_hipblas_statuses(blas, handle):
    one = scalar(1, np.float32)
    sgemm = blas.function("hipblasSgemm")
    # m < 0: cuBLAS's CUBLAS_STATUS_INVALID_VALUE is HIPBLAS_STATUS_INVALID_VALUE.
    assert sgemm(handle, N, N, -1, 1, 1, one.ctypes.data, 0, 1, 0, 1, one.ctypes.data, 0, 1) == 3
    assert sgemm(handle, 7, N, 1, 1, 1, one.ctypes.data, 0, 1, 0, 1, one.ctypes.data, 0, 1) == 10
    assert blas.function("hipblasSetMathMode")(handle, 1) == 7  # HIPBLAS_XF32_XDL_MATH: not cuBLAS's


def test_handle_state(blas, handle, gpu):
    stream, got = hipkit.Stream(gpu), ctypes.c_void_p(1)
    assert blas.function("hipblasSetStream")(handle, stream.native_handle) == 0
    assert blas.function("hipblasGetStream")(handle, ctypes.addressof(got)) == 0
    assert (got.value or 0) == stream.native_handle
    assert blas.function("hipblasSetStream")(handle, 0) == 0
    mode = ctypes.c_int(-1)
    assert blas.function("hipblasSetMathMode")(handle, 3) == 0  # HIPBLAS_TF32_TENSOR_OP_MATH
    assert blas.function("hipblasGetMathMode")(handle, ctypes.addressof(mode)) == 0
    assert mode.value == 3
    assert blas.function("hipblasSetMathMode")(handle, 0) == 0


def test_another_thread_runs_in_the_handles_context(blas, handle, gpu, rng):
    # A new thread has no CUDA context current: the call runs in the handle's, pushed and
    # popped, and leaves the thread as it found it.
    from cuda.bindings import driver

    x = rng.standard_normal(16).astype(np.float32)
    dx, result, seen = hipkit.to_device(x), np.zeros(1, np.float32), []

    def work():
        seen.append(blas.function("hipblasSnrm2")(handle, 16, dx.ptr, 1, result.ctypes.data))
        seen.append(int(driver.cuCtxGetCurrent()[1]))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [0, 0]
    assert result[0] == pytest.approx(np.linalg.norm(x.astype(np.float64)), rel=1e-5)
