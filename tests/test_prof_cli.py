"""``hipkit prof``, run as a user runs it: a Python program in a child process,
traced from its start, its exit status passed through, rocprofv3's files written
even when the program fails."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_cli import environment
from test_prof import ROCPROF_COLUMNS, validate_chrome_trace

from hipkit import platforms

if platforms.status()["cpu"]:
    pytest.skip(f"cpu platform absent: {platforms.status()['cpu']}", allow_module_level=True)

PROGRAM = """
import sys
import numpy as np
import hipkit

SOURCE = '''
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) C[idx] = A[idx] + B[idx];
}
extern "C" __global__ void empty() {}
'''
mod = hipkit.compile(SOURCE)
n = 1000
a = hipkit.to_device(np.ones(n, np.float32))
c = hipkit.empty(n, np.float32)
with hipkit.range("loop"):
    for _ in range(3):
        mod.get_function("vectorAdd")[4, 256](a, a, c, n)
    mod.get_function("empty")[1, 1]()
assert c.get()[0] == 2
how = sys.argv[1] if len(sys.argv) > 1 else "ok"
if how == "raise":
    raise RuntimeError("failed after launching")
if how == "exit":
    sys.exit(3)
if how == "term":
    import os, signal
    os.kill(os.getpid(), signal.SIGTERM)
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    return path


def prof(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = environment(HIPKIT_PLATFORM="cpu", HIPKIT_PROF_DIR=None)
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "prof", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def kernel_names(path: Path) -> list[str]:
    with open(path, newline="") as f:
        return [row["Kernel_Name"] for row in csv.DictReader(f)]


def test_prof_writes_rocprofv3s_files(program, tmp_path):
    options = ("--stats", "--summary", "-d", "out", "-o", "run", "-f", "csv", "json")
    done = prof(*options, "--", "python", str(program), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    for name, columns in ROCPROF_COLUMNS.items():
        header = (out / f"run_{name}").read_text().splitlines()[0]
        assert header == ",".join(f'"{c}"' for c in columns.split(","))
    assert kernel_names(out / "run_kernel_trace.csv") == ["vectorAdd"] * 3 + ["empty"]
    for stats in ("kernel", "hip_api", "memory_copy", "marker_api", "memory_allocation"):
        assert (out / f"run_{stats}_stats.csv").is_file()
    data = validate_chrome_trace(out / "run_trace.json")
    assert sum(e["ph"] == "X" and e.get("cat") == "kernel" for e in data["traceEvents"]) == 4
    assert "Kernels" in done.stderr and "vectorAdd" in done.stderr and "busy" in done.stderr


def test_prof_passes_the_exit_status(program, tmp_path):
    done = prof("-d", "out", "-o", "run", "--", str(program), "exit", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert kernel_names(tmp_path / "out" / "run_kernel_trace.csv") == ["vectorAdd"] * 3 + ["empty"]


@pytest.mark.parametrize("how, status", [("raise", 1), ("term", 128 + 15)])
def test_a_failing_program_leaves_its_trace(program, tmp_path, how, status):
    done = prof(
        "-d", "out", "-o", "run", "-f", "json", "csv", "--", "python", str(program), how, cwd=tmp_path
    )
    assert done.returncode == status, done.stderr
    if how == "raise":
        assert "failed after launching" in done.stderr
    assert kernel_names(tmp_path / "out" / "run_kernel_trace.csv") == ["vectorAdd"] * 3 + ["empty"]
    validate_chrome_trace(tmp_path / "out" / "run_trace.json")


def test_prof_traces_the_domains_asked(program, tmp_path):
    done = prof("--kernel-trace", "--kernel-exclude-regex", "^vec", "--", str(program), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (written,) = tmp_path.glob("*/*.csv")  # %hostname%/%pid%_kernel_trace.csv by default
    assert written.parent.name == os.uname().nodename and written.name.endswith("_kernel_trace.csv")
    assert written.name.split("_")[0].isdigit()
    assert kernel_names(written) == ["empty"]


def test_prof_usage_errors(program, tmp_path):
    done = prof("-f", "csv", "otf2", "--", str(program), cwd=tmp_path)
    assert done.returncode == 2 and "invalid choice: 'otf2'" in done.stderr
    done = prof("--stats", cwd=tmp_path)
    assert done.returncode == 2 and "no command given" in done.stderr
    done = prof("--kernel-include-regex", "(", "--", str(program), cwd=tmp_path)
    assert done.returncode == 2 and "kernel include regex '('" in done.stderr
    done = prof("--", str(tmp_path / "missing-program"), cwd=tmp_path)
    assert done.returncode == 127 and "cannot run" in done.stderr


def test_a_program_without_hipkit(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text(textwrap.dedent("import sys\nprint('hello')\nsys.exit(5)\n"))
    done = prof("--", "python", str(script), cwd=tmp_path)
    assert done.returncode == 5 and done.stdout == "hello\n"
    assert "did not use hipkit" in done.stderr
