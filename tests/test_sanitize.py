"""hipkit sanitize's memcheck on the CPU platform: the planted bugs of
``sanitizer_programs/`` (each program's ``EXPECT:`` lines are pieces of its report)
and their clean twins, run as ``hipkit sanitize -- hipkit run FILE``; a Python
script's kernels under ``hipkit sanitize -- python script.py`` and under
``HIPKIT_SANITIZE``; the options; and that the ordinary build has no probes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hipkit
from hipkit import config, platforms

PROGRAMS = Path(__file__).resolve().parent / "sanitizer_programs"
pytestmark = pytest.mark.skipif(bool(platforms.status()["cpu"]), reason=f"cpu: {platforms.status()['cpu']}")


def sanitize(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess:
    """``hipkit sanitize ARGS`` in a child, on the CPU platform."""
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "sanitize", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "HIPKIT_PLATFORM": "cpu", **env},
        timeout=600,
    )


def expectations(path: Path) -> list[str]:
    text = path.read_text()
    marked = [k for k, line in enumerate(text.splitlines(), 1) if "// <-" in line]
    line = str(marked[0]) if marked else "?"
    return [m.replace("{line}", line) for m in re.findall(r"^// EXPECT: (.*)$", text, re.M)]


def reports(stderr: str) -> list[str]:
    """The reports of a run, one string each."""
    return [r for r in stderr.split("=========\n") if "Invalid __global__" in r]


@pytest.mark.parametrize("program", sorted(p.name for p in PROGRAMS.glob("*.hip")))
def test_planted_bugs_and_their_clean_twins(program):
    path = PROGRAMS / program
    options = re.findall(r"^// OPTIONS: (.*)$", path.read_text(), re.M)
    extra = options[0].split() if options else []
    done = sanitize("--print-limit", "1", "--error-exitcode", "9", *extra, "--", "hipkit", "run", str(path))
    clean = program.endswith("_clean.hip")
    for piece in expectations(path):
        assert piece in done.stderr, f"{piece!r} not in the report:\n{done.stderr}"
    assert done.stderr.startswith("========= HIPKIT-SANITIZER\n")
    leaks = "--leak-check" in extra  # errors at exit, not in a kernel
    assert len(reports(done.stderr)) == (0 if clean or leaks else 1)  # --print-limit 1
    # The kernel that made errors fails as a launch; the program then ends normally, and
    # the errors give --error-exitcode's status.
    assert done.stdout == ("hipSuccess\n" if clean or leaks else "hipErrorLaunchFailure\n")
    assert done.returncode == (0 if clean else 9), done.stderr


SCRIPT = r"""
import sys, numpy as np, hipkit
SRC = '''
extern "C" __global__ void scale(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i GUARD n) out[i] = 2.0f * in[i];
}
'''
n = int(sys.argv[2])
mod = hipkit.compile(SRC.replace("GUARD", sys.argv[1]), name="scale.hip")
x = np.random.default_rng(int(sys.argv[3])).random(n, dtype=np.float32)
y = hipkit.empty(n, np.float32)
try:
    mod.get_function("scale")[(n + 63) // 64 + 1, 64](hipkit.to_device(x), y, np.int32(n))
    hipkit.get_device().synchronize()
    print("ok", bool(np.array_equal(y.get(), 2 * x)))
except hipkit.HipError as exc:
    print("failed:", exc)
"""


@pytest.fixture
def script(tmp_path) -> Path:
    path = tmp_path / "scale.py"
    path.write_text(SCRIPT)
    return path


def test_a_python_scripts_kernel_off_by_one(script, rng):
    n = int(rng.integers(100, 1000))
    done = sanitize("--", "python", str(script), "<=", str(n), "1")
    found = reports(done.stderr)
    # Thread n reads and writes one element past the ends of in and out.
    assert len(found) == 2 and "ERROR SUMMARY: 2 errors" in done.stderr, done.stderr
    read, write = found
    block, thread = divmod(n, 64)
    for report, kind in ((read, "read"), (write, "write")):
        assert f"Invalid __global__ {kind} of size 4 bytes" in report
        assert re.search(r"at scale\+0x[0-9a-f]+ in scale\.hip:4\n", report), report
        assert f"by thread ({thread},0,0) in block ({block},0,0)" in report
        assert "is 0 bytes after the nearest allocation at 0x" in report
        assert f"of size {4 * n} bytes" in report
    assert (
        done.stdout.startswith("failed: hipErrorLaunchFailure (719)")
        and "memcheck found 2 errors" in done.stdout
    )
    assert done.returncode == 0  # the script's own status: no --error-exitcode


def test_a_clean_kernel_runs_as_always(script, rng):
    n = int(rng.integers(100, 1000))
    done = sanitize("--error-exitcode", "5", "--", str(script), "<", str(n), "2")
    assert done.stdout == "ok True\n" and "ERROR SUMMARY: 0 errors" in done.stderr, done.stderr
    assert done.returncode == 0


def test_print_limit(tmp_path):
    path = tmp_path / "many.py"
    path.write_text(
        SCRIPT.replace("if (i GUARD n) out[i] = 2.0f * in[i];", "if (i >= n - 32) out[i + 32] = 1.0f;")
    )
    # Two blocks of 64 for n = 64: threads 32 to 127 write past the end of out.
    done = sanitize("--print-limit", "3", "--", str(path), "<", "64", "4")
    assert len(reports(done.stderr)) == 3
    assert "ERROR SUMMARY: 96 errors" in done.stderr, done.stderr
    done = sanitize("--print-limit", "0", "--", str(path), "<", "64", "4")
    assert len(reports(done.stderr)) == 96


def test_the_environment_variable_alone(script):
    done = subprocess.run(
        [sys.executable, str(script), "<=", "200", "5"],
        capture_output=True,
        text=True,
        env={**os.environ, "HIPKIT_PLATFORM": "cpu", "HIPKIT_SANITIZE": "memcheck"},
        timeout=600,
    )
    assert "ERROR SUMMARY: 2 errors" in done.stderr and "by thread (8,0,0) in block (3,0,0)" in done.stderr


def test_usage_errors(script):
    done = sanitize()
    assert done.returncode == 2 and "no command given" in done.stderr
    done = sanitize("--tool", "racecheck", "--", str(script))
    assert done.returncode == 2 and "invalid choice: 'racecheck'" in done.stderr
    done = sanitize("--error-exitcode", "300", "--", str(script))
    assert done.returncode == 2 and "--error-exitcode 300: expected 0 to 255" in done.stderr
    done = sanitize("--print-limit", "-1", "--", str(script))
    assert done.returncode == 2 and "--print-limit -1" in done.stderr
    done = sanitize("--", "no-such-program-here")
    assert done.returncode == 127 and "cannot run no-such-program-here" in done.stderr


def test_a_process_without_cpu_kernels():
    done = sanitize("--", "python", "-c", "print('hello')")
    assert done.stdout == "hello\n" and "ERROR SUMMARY: 0 errors (no CPU kernel ran)" in done.stderr


def test_a_bad_HIPKIT_SANITIZE(script, monkeypatch):
    done = subprocess.run(
        [sys.executable, str(script), "<", "10", "6"],
        capture_output=True,
        text=True,
        env={**os.environ, "HIPKIT_PLATFORM": "cpu", "HIPKIT_SANITIZE": "racecheck"},
        timeout=600,
    )
    # The runtime reads it first, when the device starts.
    assert done.returncode != 0 and "HIPKIT_SANITIZE=racecheck: expected off or memcheck" in done.stderr
    monkeypatch.setenv("HIPKIT_SANITIZE", "racecheck")
    with pytest.raises(ValueError, match="HIPKIT_SANITIZE='racecheck': expected one of off, memcheck"):
        config.get("HIPKIT_SANITIZE")


def test_the_ordinary_build_has_no_probes(monkeypatch):
    monkeypatch.delenv("HIPKIT_SANITIZE", raising=False)
    with hipkit.Device(0, platform="cpu"):
        mod = hipkit.compile('extern "C" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }')
    symbols = subprocess.run(["nm", "-u", str(mod.binary.path)], capture_output=True, text=True).stdout
    assert "__asan" not in symbols and "__hk_probe_thread" not in symbols


def _nvidia_gpu_with_compute_sanitizer() -> str:
    """Why the NVIDIA half cannot run here ("" when it can)."""
    from hipkit.platforms.nvidia import toolkit

    if platforms.status().get("nvidia"):
        return f"nvidia: {platforms.status()['nvidia']}"
    if toolkit.find_compute_sanitizer() is None:
        return toolkit.COMPUTE_SANITIZER_MISSING
    return ""


def test_gpu_kernels_under_compute_sanitizer(script):
    reason = _nvidia_gpu_with_compute_sanitizer()
    if reason:
        pytest.skip(reason)
    done = sanitize("--error-exitcode", "7", "--", str(script), "<=", "100", "8", HIPKIT_PLATFORM="nvidia")
    # compute-sanitizer's own report (on stdout, as it prints) of the NVRTC-built kernel:
    # thread 100 is thread 36 of block 1, past the end of the exact 400-byte allocations
    # (the pool does not cache).
    report = done.stdout + done.stderr
    assert "COMPUTE-SANITIZER" in report, report
    assert "Invalid __global__" in report and "by thread (36,0,0) in block (1,0,0)" in report
    assert done.returncode == 7, report


def test_a_missing_compute_sanitizer_is_named(script, tmp_path):
    """Where NVIDIA's platform is chosen but compute-sanitizer is nowhere, the message
    says where it comes from, and the CPU's checks still run."""
    from hipkit.platforms.nvidia import toolkit

    done = sanitize(
        "--",
        str(script),
        "<",
        "10",
        "9",
        HIPKIT_PLATFORM="nvidia",
        PATH=os.path.dirname(sys.executable),
        CUDA_HOME=str(tmp_path),
    )
    if toolkit.DEFAULT_HOME.joinpath("bin", "compute-sanitizer").exists():
        pytest.skip("compute-sanitizer is in /usr/local/cuda, which the search always reads")
    assert toolkit.COMPUTE_SANITIZER_MISSING in done.stderr


CONTEXT = r"""
import numpy as np, pytest, hipkit
SRC = '''
extern "C" __global__ void scale(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 2.0f * in[i];
}
'''
hipkit.compile(SRC, name="before.hip")  # compiled before the block: no probes
with hipkit.sanitize("memcheck", print_limit=0) as checks:
    mod = hipkit.compile(SRC, name="inside.hip")
    x = hipkit.to_device(np.ones(100, np.float32))
    y = hipkit.empty(100, np.float32)
    mod.get_function("scale")[2, 64](x, y, np.int32(100))
print("errors", checks.errors)
with pytest.raises(hipkit.HipError, match="memcheck found 2 errors in kernel scale"):
    hipkit.get_device().synchronize()
hipkit.get_device().reset()
with hipkit.sanitize() as clean:
    mod = hipkit.compile(SRC.replace("<=", "<"), name="clean.hip")
    x = hipkit.to_device(np.ones(100, np.float32))
    y = hipkit.empty(100, np.float32)
    mod.get_function("scale")[2, 64](x, y, np.int32(100))
print("clean", clean.errors, bool((y.get() == 2).all()))
with pytest.raises(ValueError, match="unknown sanitizer tool 'racecheck'"):
    hipkit.sanitize("racecheck")
with pytest.raises(ValueError, match="print_limit=-1"):
    hipkit.sanitize(print_limit=-1)
with hipkit.sanitize():
    with pytest.raises(RuntimeError, match="HIPKIT_SANITIZE already checks this process"):
        with hipkit.sanitize():
            pass
print("done")
"""


def test_the_python_context_manager(tmp_path):
    path = tmp_path / "context.py"
    path.write_text(CONTEXT)
    done = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "HIPKIT_PLATFORM": "cpu"},
        timeout=600,
    )
    assert done.stdout == "errors 2\nclean 0 True\ndone\n", done.stderr
    found = reports(done.stderr)
    assert len(found) == 2 and all(
        "inside.hip:4" in r and "by thread (36,0,0) in block (1,0,0)" in r for r in found
    )
    assert done.stderr.count("ERROR SUMMARY: 2 errors") == 1 and "ERROR SUMMARY: 0 errors" in done.stderr
