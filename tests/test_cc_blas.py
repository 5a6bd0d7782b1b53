"""hipBLAS in programs built by ``hipkit cc`` for the CPU: ``<hipblas/hipblas.h>``
(and ``<hipblas.h>``, its old path) and ``-lhipblas`` / ``-lrocblas``, which link the
CPU's provider (libhipkit_cpu_blas.so on OpenBLAS).  Results against NumPy on fresh
random data through files; every routine and alias of hipkit.tables.blas_api linked;
the provider linked only where asked for; the program's trace under ``hipkit prof``.
The provider itself is tested from Python in test_cpu_blas.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_cc import FILES, build, hipkit_command, write
from test_cc_manifest import settle
from test_cli import environment

from hipkit import cli, platforms
from hipkit.cc import manifest
from hipkit.platforms.base.blas import HANDLE_FUNCTIONS, BlasUnavailable
from hipkit.platforms.base.options import parse_args
from hipkit.profiler import Domains
from hipkit.profiler.programs import read_traces
from hipkit.tables import blas_api


def _openblas_missing() -> str:
    if platforms.status()["cpu"]:
        return f"cpu platform absent: {platforms.status()['cpu']}"
    from hipkit.platforms.cpu import blas

    try:
        blas.find_openblas()
    except BlasUnavailable as exc:
        return str(exc)
    return ""


MISSING = _openblas_missing()
pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)

SGEMM = (
    r"""
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#define CHECK(call)                                                                 \
  do {                                                                              \
    hipError_t e_ = (call);                                                         \
    if (e_ != hipSuccess) {                                                         \
      fprintf(stderr, "line %d: %s: %s\n", __LINE__, #call, hipGetErrorName(e_));   \
      return 1;                                                                     \
    }                                                                               \
  } while (0)
#define CHECK_BLAS(call)                                                            \
  do {                                                                              \
    hipblasStatus_t s_ = (call);                                                    \
    if (s_ != HIPBLAS_STATUS_SUCCESS) {                                             \
      fprintf(stderr, "line %d: %s: %s\n", __LINE__, #call, hipblasStatusToString(s_)); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)
"""
    + FILES
    + r"""
// argv: m n k alpha beta [device].  C = alpha A^T B + beta C (A stored k x m), then
// dot = C . C with the result in host memory, on a stream of the device.
int main(int argc, char** argv) {
  if (argc > 6) CHECK(hipSetDevice(atoi(argv[6])));
  const int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  const float alpha = float(atof(argv[4])), beta = float(atof(argv[5]));
  std::vector<float> a = load<float>("a.bin"), b = load<float>("b.bin"), c = load<float>("c.bin");
  float *da, *db, *dc;
  CHECK(hipMalloc(&da, a.size() * sizeof(float)));
  CHECK(hipMalloc(&db, b.size() * sizeof(float)));
  CHECK(hipMalloc(&dc, c.size() * sizeof(float)));
  CHECK(hipMemcpy(da, a.data(), a.size() * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(db, b.data(), b.size() * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dc, c.data(), c.size() * sizeof(float), hipMemcpyHostToDevice));
  hipblasHandle_t handle;
  hipStream_t stream;
  CHECK_BLAS(hipblasCreate(&handle));
  CHECK(hipStreamCreate(&stream));
  CHECK_BLAS(hipblasSetStream(handle, stream));
  CHECK_BLAS(hipblasSgemm(handle, HIPBLAS_OP_T, HIPBLAS_OP_N, m, n, k, &alpha, da, k, db, k, &beta, dc, m));
  float dot = -1;
  CHECK_BLAS(hipblasSdot(handle, m * n, dc, 1, dc, 1, &dot));  // waits: the result is the host's
  CHECK(hipMemcpyAsync(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost, stream));
  CHECK(hipStreamSynchronize(stream));
  save("out.bin", c);
  printf("dot=%.9g\n", dot);
  CHECK_BLAS(hipblasDestroy(handle));
  CHECK(hipStreamDestroy(stream));
  return 0;
}
"""
)


def run(program: Path, *args: str, **env: str) -> str:
    done = subprocess.run(
        [str(program), *args],
        cwd=program.parent,
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def sgemm(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("sgemm")
    write(directory, "sgemm.hip", SGEMM)
    build(directory, "-O2", "-o", "sgemm", "sgemm.hip", "-lhipblas")
    return directory / "sgemm"


def inputs(directory: Path, m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random A (k x m), B (k x n), C (m x n), written column-major."""
    rng = np.random.default_rng()
    a, b, c = (rng.standard_normal(shape).astype(np.float32) for shape in ((k, m), (k, n), (m, n)))
    for name, x in (("a", a), ("b", b), ("c", c)):
        x.ravel(order="F").tofile(directory / f"{name}.bin")
    return a, b, c


def test_a_program_multiplies_and_dots_on_its_stream(sgemm):
    m, n, k = 33, 17, 40
    a, b, c = inputs(sgemm.parent, m, n, k)
    out = run(sgemm, str(m), str(n), str(k), "1.5", "-0.25")
    got = np.fromfile(sgemm.parent / "out.bin", np.float32).reshape(n, m).T
    expected = 1.5 * a.T @ b - 0.25 * c
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    dot = float(out.strip().removeprefix("dot="))
    np.testing.assert_allclose(dot, np.sum(expected.astype(np.float64) ** 2), rtol=1e-4)


def test_a_traced_programs_blas_calls_are_api_rows_with_their_work(sgemm, tmp_path):
    """Under hipkit prof each call is an API row and its work a kernel of its name,
    correlated, on the device current when the handle was made."""
    m, n, k = 8, 4, 6
    inputs(sgemm.parent, m, n, k)
    run(sgemm, str(m), str(n), str(k), "1", "0", "1", HIPKIT_PROF_DIR=str(tmp_path), HIPKIT_CPU_DEVICES="2")
    ((_, trace),) = read_traces(tmp_path, Domains(), "demangled", pytest.fail)
    calls = {c.function: c for c in trace.api_calls}
    assert {"hipblasCreate", "hipblasSetStream", "hipblasSgemm", "hipblasSdot", "hipblasDestroy"} <= set(
        calls
    )
    kernels = {kernel.name: kernel for kernel in trace.kernels}
    for name in ("hipblasSgemm", "hipblasSdot"):
        assert kernels[name].correlation_id == calls[name].correlation_id
        assert kernels[name].device == "cpu:1" and kernels[name].stream != 0
        assert calls[name].start_ns <= kernels[name].start_ns <= kernels[name].end_ns
    assert kernels["hipblasSdot"].end_ns <= calls["hipblasSdot"].end_ns  # the call waited for its result


def every_name() -> list[str]:
    return [
        *(name for r in blas_api.routines() for name in r.names),
        *HANDLE_FUNCTIONS,
        "hipblasStatusToString",
    ]


@pytest.mark.parametrize("library", ["-lhipblas", "-lrocblas"])
def test_every_routine_and_alias_links(tmp_path, library):
    """A program taking the address of every hipBLAS function of blas_api (the _v2
    aliases call the routines): a routine the provider lacks fails the link."""
    names = every_name()
    table = ",\n".join(f"    reinterpret_cast<const void*>(&{name})" for name in names)
    source = f"""
        #include <hipblas/hipblas.h>
        #include <cstdio>
        const void* const every[] = {{
        {table}
        }};
        int main() {{
          int linked = 0;
          for (const void* f : every) linked += f != nullptr;
          printf("%d\\n", linked);
          return 0;
        }}
    """
    write(tmp_path, "every.cpp", source)
    build(tmp_path, "-o", "every", "every.cpp", library)
    assert run(tmp_path / "every").strip() == str(len(names))


def needed(program: Path) -> list[str]:
    dynamic = subprocess.run(
        ["readelf", "-d", str(program)], capture_output=True, text=True, check=True
    ).stdout
    return [line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]


def test_the_old_header_builds_and_only_blas_programs_link_the_provider(tmp_path):
    write(
        tmp_path,
        "old.hip",
        """
        #include <hipblas.h>
        int main() {
          hipblasHandle_t h;
          if (hipblasCreate(&h) != HIPBLAS_STATUS_SUCCESS) return 1;
          return hipblasDestroy(h) == HIPBLAS_STATUS_SUCCESS ? 0 : 1;
        }
        """,
    )
    write(tmp_path, "plain.hip", "#include <hip/hip_runtime.h>\nint main() { return 0; }\n")
    build(tmp_path, "-o", "old", "old.hip", "-lhipblas")
    build(tmp_path, "-o", "plain", "plain.hip")
    run(tmp_path / "old")
    assert "libhipkit_cpu_blas.so" in needed(tmp_path / "old")
    assert "libhipkit_cpu_blas.so" not in needed(tmp_path / "plain")


def test_hipkit_run_finds_a_blas_program_and_its_manifest_needs_the_provider(tmp_path):
    write(tmp_path, "sgemm.hip", SGEMM)
    m, n, k = 5, 6, 7
    a, b, c = inputs(tmp_path, m, n, k)
    settle()  # a source just written makes no manifest
    for _ in range(2):  # built, then found through its manifest
        done = hipkit_command(
            "run", "sgemm.hip", "-lhipblas", "--", str(m), str(n), str(k), "1", "1", cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        got = np.fromfile(tmp_path / "out.bin", np.float32).reshape(n, m).T
        np.testing.assert_allclose(got, a.T @ b + c, rtol=1e-4, atol=1e-4)
        c.ravel(order="F").tofile(tmp_path / "c.bin")
    options = parse_args(["sgemm.hip", "-lhipblas"])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        patch.setenv("HIPKIT_PLATFORM", "cpu")
        key = manifest.key(options)
    assert key is not None
    lines = Path(manifest.manifest_path(key)).read_text().splitlines()
    assert any(line.startswith("needs\t") and line.endswith("/libhipkit_cpu_blas.so") for line in lines)


def test_linking_hipblas_without_openblas_says_what_to_install(tmp_path, monkeypatch, capsys):
    from hipkit.platforms.cpu import blas

    write(tmp_path, "a.hip", "int main() { return 0; }\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HIPKIT_PLATFORM", "cpu")
    monkeypatch.setattr(blas, "_wheel", lambda: None)  # neither the wheel nor the system's
    monkeypatch.setattr(blas, "_system", lambda: None)
    assert cli.main(["cc", "-o", "a", "a.hip", "-lhipblas"]) == 1
    err = capsys.readouterr().err
    assert "-lhipblas: hipBLAS on the CPU needs OpenBLAS" in err
    assert "pip install 'hipkit[cpu]' (scipy-openblas32) or apt-get install libopenblas0" in err
    assert not (tmp_path / "a").exists()
    assert cli.main(["cc", "-o", "a", "a.hip"]) == 0  # no BLAS asked for: none needed


def test_the_program_and_its_manifest_follow_the_openblas_linked(tmp_path, monkeypatch):
    """Another OpenBLAS file is another provider, so another program; HIPKIT_OPENBLAS
    is one of the variables of hipkit run's manifest key."""
    import shutil

    from hipkit.platforms.cpu import blas
    from hipkit.platforms.cpu.toolchain import CpuToolchain

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HIPKIT_PLATFORM", "cpu")
    options = parse_args(["main.o", "-lhipblas"])
    toolchain = CpuToolchain()
    first, first_key = toolchain.program_key([], options), manifest.key(options)
    first_files = toolchain.run_time_files()
    other = tmp_path / "openblas" / blas.find_openblas().path.name
    other.parent.mkdir()
    shutil.copy2(blas.find_openblas().path, other)
    monkeypatch.setenv("HIPKIT_OPENBLAS", str(other))
    assert toolchain.program_key([], options) != first
    assert manifest.key(options) != first_key
    (runtime, provider) = toolchain.run_time_files()
    assert (
        runtime == first_files[0] and provider != first_files[1] and provider.name == "libhipkit_cpu_blas.so"
    )
    assert toolchain.program_key([], parse_args(["main.o"])) and toolchain.run_time_files() == [runtime]
