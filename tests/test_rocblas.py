"""rocBLAS's C API on the platforms that serve hipBLAS themselves (``rocblas/rocblas.h``:
``hipkit_blas/rocblas_api.h`` over hipBLAS's).

``tests/native_programs/rocblas_calls.cpp``, a rocBLAS program as rocBLAS's users write
one, is built with ``hipkit cc -lrocblas`` and run on the CPU on fresh random inputs this
test writes; what it writes back is compared with NumPy.  A second program takes the
address of every rocBLAS function the headers define, so that each is compiled and
linked.  For NVIDIA both compile with nvcc (no GPU here to run them).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_cc import build, hipkit_command

from hipkit import platforms
from hipkit.platforms.nvidia import toolkit
from hipkit.platforms.nvidia.toolchain import NvidiaToolchain
from hipkit.tables import INCLUDE_DIR

PROGRAM = Path(__file__).with_name("native_programs") / "rocblas_calls.cpp"
M, N, K, BATCH, LEN = 13, 11, 7, 3, 1000  # rocblas_calls.cpp's sizes
HIP_COMPLEX = "-DROCM_MATHLIBS_API_USE_HIP_COMPLEX"  # rocBLAS's complex types are HIP's

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

# rocBLAS's functions written by hand in hipkit_blas/rocblas_api.h and rocblas_gemm_ex.h
# (the compute routines are generated into hipkit_blas/rocblas_routines.h).
HAND_WRITTEN = (
    "rocblas_create_handle",
    "rocblas_destroy_handle",
    "rocblas_set_stream",
    "rocblas_get_stream",
    "rocblas_set_pointer_mode",
    "rocblas_get_pointer_mode",
    "rocblas_set_atomics_mode",
    "rocblas_get_atomics_mode",
    "rocblas_set_math_mode",
    "rocblas_get_math_mode",
    "rocblas_set_vector",
    "rocblas_get_vector",
    "rocblas_set_matrix",
    "rocblas_get_matrix",
    "rocblas_set_vector_async",
    "rocblas_get_vector_async",
    "rocblas_set_matrix_async",
    "rocblas_get_matrix_async",
    "rocblas_status_to_string",
    "rocblas_initialize",
    "rocblas_get_version_string",
    "rocblas_get_version_string_size",
    "rocblas_gemm_ex",
    "rocblas_gemm_batched_ex",
    "rocblas_gemm_strided_batched_ex",
)


def generated_names() -> list[str]:
    """The rocBLAS functions hipkit_blas/rocblas_routines.h defines."""
    text = (INCLUDE_DIR / "hipkit_blas" / "rocblas_routines.h").read_text()
    return re.findall(r"^inline rocblas_status (rocblas_\w+)\(", text, re.MULTILINE)


def every_name_program() -> str:
    names = [*generated_names(), *HAND_WRITTEN]
    addresses = "".join(f"    reinterpret_cast<const void*>(&{name}),\n" for name in names)
    return (
        "#include <rocblas.h>\n#include <cstdio>\n\n"
        f"static const void* functions[] = {{\n{addresses}}};\n\n"
        "int main() {\n  int defined = 0;\n"
        "  for (const void* f : functions) defined += f != nullptr;\n"
        '  printf("%d\\n", defined);\n  return 0;\n}\n'
    )


def padded(a: np.ndarray, ld: int) -> np.ndarray:
    """`a` column-major with leading dimension `ld` (random padding), as a flat array."""
    rows, cols = a.shape
    out = np.full((cols, ld), 1e30, dtype=a.dtype)
    out[:, :rows] = a.T
    return out.ravel()


def unpadded(flat: np.ndarray, rows: int, cols: int, ld: int) -> np.ndarray:
    return flat.reshape(cols, ld)[:, :rows].T


def column_major(a: np.ndarray) -> np.ndarray:
    return np.asfortranarray(a).ravel(order="F")


def from_column_major(flat: np.ndarray, rows: int, cols: int) -> np.ndarray:
    return flat[: rows * cols].reshape(cols, rows).T


def strided(matrices: list[np.ndarray], stride: int) -> np.ndarray:
    out = np.zeros(stride * len(matrices), dtype=matrices[0].dtype)
    for i, a in enumerate(matrices):
        out[i * stride : i * stride + a.size] = column_major(a)
    return out


def complex_random(rng, *shape: int) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def write_inputs(data: Path, rng) -> dict[str, np.ndarray]:
    """rocblas_calls.cpp's inputs, fresh, written to `data`; the arrays by name."""
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    f64 = lambda *s: rng.standard_normal(s)  # noqa: E731
    x = {
        "sgemm_a": f32(K, M),
        "sgemm_b": f32(N, K),
        "sgemm_c": f32(M, N),
        "dgemm_a": f64(M, K),
        "dgemm_b": f64(N, K),
        "dgemm_c": f64(M, N),
        "cgemm_a": complex_random(rng, K, M),
        "cgemm_b": complex_random(rng, K, N),
        "cgemm_c": complex_random(rng, M, N),
        "batched_a": [f32(M, K) for _ in range(BATCH)],
        "batched_b": [f32(K, N) for _ in range(BATCH)],
        "x": f32(LEN),
        "y": f32(LEN),
        "ex_a": f32(M, K).astype(np.float16),
        "ex_b": f32(K, N).astype(np.float16),
        "ex_c": f32(M, N),
        "bex_a": [f64(M, K) for _ in range(BATCH)],
        "bex_b": [f64(N, K) for _ in range(BATCH)],
        "bex_c": [f64(M, N) for _ in range(BATCH)],
        "sbex_a": [f32(K, M) for _ in range(BATCH)],
        "sbex_b": [f32(K, N) for _ in range(BATCH)],
        "sbex_c": [f32(M, N) for _ in range(BATCH)],
    }
    files = {
        "sgemm_a": padded(x["sgemm_a"], K + 3),
        "sgemm_b": padded(x["sgemm_b"], N + 2),
        "sgemm_c": padded(x["sgemm_c"], M + 4),
        "batched_a": strided(x["batched_a"], M * K + 5),
        "batched_b": strided(x["batched_b"], K * N + 3),
        "ex_c": padded(x["ex_c"], M + 1),
        **{
            name: strided(x[name], x[name][0].size)
            for name in ("bex_a", "bex_b", "bex_c", "sbex_a", "sbex_b", "sbex_c")
        },
    }
    for name, value in x.items():
        array = files.get(name)
        (array if array is not None else column_major(value)).tofile(data / name)
    return x


@pytest.fixture(scope="module")
def calls(tmp_path_factory) -> Path:
    """rocblas_calls.cpp built for the CPU."""
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("rocblas")
    build(directory, "-O1", "-o", "rocblas_calls", str(PROGRAM), "-lrocblas")
    return directory / "rocblas_calls"


@needs_cpu
def test_rocblas_program_matches_numpy(calls, tmp_path, rng):
    x = write_inputs(tmp_path, rng)
    done = subprocess.run([str(calls), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = dict(line.split("=", 1) for line in done.stdout.splitlines())
    out = lambda name, dtype: np.fromfile(tmp_path / f"{name}.out", dtype)  # noqa: E731

    assert report["stream_kept"] == "1"
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\w+", report["version"])

    want = 0.75 * x["sgemm_a"].T.astype(np.float64) @ x["sgemm_b"].T - 0.5 * x["sgemm_c"]
    got = unpadded(out("sgemm_c", np.float32), M, N, M + 4)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

    want = 2 * x["dgemm_a"] @ x["dgemm_b"].T + x["dgemm_c"]
    np.testing.assert_allclose(
        from_column_major(out("dgemm_c", np.float64), M, N), want, rtol=1e-12, atol=1e-12
    )

    alpha, beta = 0.75 - 1j, 1j
    assert report["cgemm_alpha"] == "0.75,-1"
    a, b = x["cgemm_a"].astype(np.complex128), x["cgemm_b"]
    want = alpha * a.conj().T @ b + beta * x["cgemm_c"]
    np.testing.assert_allclose(
        from_column_major(out("cgemm_c", np.complex64), M, N), want, rtol=1e-5, atol=1e-5
    )

    c = out("batched_c", np.float32)
    stride = M * N + 1
    for i in range(BATCH):
        want = x["batched_a"][i].astype(np.float64) @ x["batched_b"][i]
        got = from_column_major(c[i * stride :], M, N)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        assert c[i * stride + M * N :][: stride - M * N].tolist() == [0.0] * (stride - M * N)

    y = out("axpy_y", np.float32)
    np.testing.assert_allclose(y, -1.5 * x["x"] + x["y"], rtol=1e-6, atol=1e-6)
    assert report["pointer_mode"] == "0"
    assert float(report["sdot"]) == pytest.approx(float(x["x"].astype(np.float64) @ y), rel=1e-4, abs=1e-3)
    want = float(x["x"][::2].astype(np.float64) @ y[: LEN // 2].astype(np.float64))
    assert float(report["ddot_strided"]) == pytest.approx(want, rel=1e-12, abs=1e-12)

    a, b = x["ex_a"].astype(np.float64), x["ex_b"].astype(np.float64)
    want = 2 * a @ b + 0.5 * x["ex_c"]
    np.testing.assert_allclose(unpadded(out("ex_d", np.float32), M, N, M + 6), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(unpadded(out("ex_c", np.float32), M, N, M + 1), x["ex_c"])

    d = out("bex_d", np.float64)
    for i in range(BATCH):
        want = x["bex_a"][i] @ x["bex_b"][i].T - x["bex_c"][i]
        got = from_column_major(d[i * M * N :], M, N)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

    d = out("sbex_d", np.float32)
    ldd, stride = M + 2, (M + 2) * N + 4
    gaps = d.reshape(BATCH, stride).copy()
    for i in range(BATCH):
        want = x["sbex_a"][i].T.astype(np.float64) @ x["sbex_b"][i] + 2 * x["sbex_c"][i]
        np.testing.assert_allclose(
            unpadded(d[i * stride :][: ldd * N], M, N, ldd), want, rtol=1e-5, atol=1e-5
        )
        gaps[i, : ldd * N].reshape(N, ldd)[:, :M] = 0
    assert not gaps.any()  # D's padding and the gaps between its matrices are left alone

    assert [float(v) for v in report["complex_quotient"].split(",")] == pytest.approx([-0.2, 0.4], rel=1e-15)
    assert float(report["complex_abs"]) == 5.0
    # 1/3 rounded to bfloat16 (8 significant bits, nearest even): 0x3eab.
    assert float(report["bfloat16_third"]) == float(
        np.frombuffer(np.uint32(0x3EAB0000).tobytes(), np.float32)[0]
    )


@needs_cpu
def test_rocblas_statuses(calls, tmp_path, rng):
    """Bad arguments get rocBLAS's statuses: sizes invalid_size, an unknown enum
    invalid_value, a null handle
    invalid_handle, null pointers invalid_pointer, what hipBLAS has no form of
    not_implemented, an unknown solution index invalid_value."""
    write_inputs(tmp_path, rng)
    done = subprocess.run([str(calls), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = dict(line.split("=", 1) for line in done.stdout.splitlines())
    assert report["negative_n"] == "rocblas_status_invalid_size"
    assert report["small_lda"] == "rocblas_status_invalid_size"
    assert report["bad_operation"] == "rocblas_status_invalid_value"
    assert report["null_handle"] == "rocblas_status_invalid_handle"
    assert report["create_null"] == "rocblas_status_invalid_pointer"
    assert report["ex_f8"] == "rocblas_status_not_implemented"
    assert report["ex_c_is_d_other_ld"] == "rocblas_status_invalid_size"
    assert report["ex_solution_index"] == "rocblas_status_invalid_value"
    assert report["vector_async_inc0"] == "rocblas_status_invalid_size"
    assert report["matrix_null"] == "rocblas_status_invalid_pointer"
    assert report["undefined_status"] == "<undefined rocblas_status value>"


@needs_cpu
@pytest.mark.parametrize("complex_flags", [[], [HIP_COMPLEX]], ids=["rocblas", "hip"])
def test_every_rocblas_name_compiles_and_links(tmp_path, complex_flags):
    """Each function the headers define, with rocBLAS's complex types or (as rocBLAS
    allows) HIP's."""
    (tmp_path / "names.cpp").write_text(every_name_program())
    build(tmp_path, *complex_flags, "-o", "names", "names.cpp", "-lrocblas")
    done = subprocess.run([str(tmp_path / "names")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(generated_names()) + len(HAND_WRITTEN) > 100


def nvidia_compile_missing() -> str:
    """Why BLAS programs cannot be built for NVIDIA here ("" when they can): nvcc and
    cuBLAS's headers and libraries are needed (not a GPU)."""
    return NvidiaToolchain.missing() or ("" if toolkit.find_cublas() else toolkit.CUBLAS_MISSING)


@pytest.mark.parametrize("program", ["rocblas_calls", "names"])
def test_rocblas_builds_for_nvidia(tmp_path, program):
    """Compiled with nvcc and linked against cuBLAS (-lrocblas): every function the
    headers define resolves (run where an NVIDIA GPU is)."""
    missing = nvidia_compile_missing()
    if missing:
        pytest.skip(missing)
    if program == "names":
        source = tmp_path / "names.cpp"
        source.write_text(every_name_program())
    else:
        source = PROGRAM
    done = hipkit_command("cc", "--platform", "nvidia", "-o", program, str(source), "-lrocblas", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
