"""Kernel names in traces as rocprofv3 shows them: demangled by default,
mangled with -M, the bare function name with -T."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_cli import environment

from hipkit import platforms, profiler
from hipkit.profiler._names import demangle, truncate
from hipkit.profiler._spool import Spool

CXX = shutil.which("g++")
TOOLS = CXX and shutil.which("nm") and shutil.which("c++filt")

FUNCTIONS = """
namespace ns { template <int N> struct Foo { template <typename T> static void bar(T*, int) {} }; }
template <unsigned B, typename T> void reduce(const T*, T*) {}
struct Functor { void operator()(int) {} };
void vectorAdd(const float*, const float*, float*, int) {}
void instances() {
    ns::Foo<3>::bar<double>(nullptr, 0);
    reduce<256u, float>(nullptr, nullptr);
    Functor{}(1);
}
"""


@pytest.mark.skipif(not TOOLS, reason="needs g++, nm and c++filt")
def test_demangled_names_are_what_cxxfilt_says(tmp_path):
    """The symbols of a real object file, each demangled as binutils does."""
    (tmp_path / "f.cpp").write_text(FUNCTIONS)
    subprocess.run([CXX, "-c", "-o", "f.o", "f.cpp"], cwd=tmp_path, check=True)
    symbols = subprocess.run(
        ["nm", "--defined-only", "-j", "f.o"], cwd=tmp_path, capture_output=True, text=True
    )
    mangled = [s for s in symbols.stdout.split() if s.startswith("_Z")]
    assert len(mangled) >= 5
    reference = subprocess.run(
        ["c++filt", *mangled], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert [demangle(name) for name in mangled] == reference[: len(mangled)]


@pytest.mark.parametrize(
    ("name", "bare"),
    [
        ("_ZN2ns3FooILi3EE3barIdEEvPT_i", "bar"),  # void ns::Foo<3>::bar<double>(double*, int)
        ("_Z6reduceILj256EfEvPKT0_PS0_", "reduce"),
        ("_ZN7FunctorclEi", "operator()"),
        ("_Z9vectorAddPKfS0_Pfi", "vectorAdd"),
        ("Foo<int, float>::foo(a[], int (int))", "foo"),
        ("scale<float>", "scale"),  # a name expression of the Python API
        ("vectorAdd", "vectorAdd"),
    ],
)
def test_truncated_names_are_the_bare_function_name(name, bare):
    assert truncate(name) == bare


def test_names_that_are_not_mangled_stay_as_they_are():
    assert demangle("vectorAdd") == "vectorAdd"
    assert demangle("_Znot_a_symbol") == "_Znot_a_symbol"


def _spool_with(tmp_path: Path, names: list[str]) -> Path:
    spool = Spool(tmp_path / "1.spool")
    for i, name in enumerate(names):
        spool.rows["kernel"].append((i, i, 7, "cpu:0", 0, name, (1, 1, 1), (64, 1, 1), 0, 0, 10, 20, 30))
    spool.flush()
    return tmp_path / "1.spool"


def test_a_trace_shows_kernel_names_in_the_style_asked(tmp_path):
    path = _spool_with(tmp_path, ["_Z9vectorAddPKfS0_Pfi", "empty"])
    shown = {style: [k.name for k in profiler.from_file(path, style).kernels] for style in _STYLES}
    assert shown["demangled"] == ["vectorAdd(float const*, float const*, float*, int)", "empty"]
    assert shown["mangled"] == ["_Z9vectorAddPKfS0_Pfi", "empty"]
    assert shown["truncated"] == ["vectorAdd", "empty"]
    stats = profiler.from_file(path, "truncated").stats("kernel")
    assert sorted(row.Name for row in stats) == ["empty", "vectorAdd"]


_STYLES = ("demangled", "mangled", "truncated")


def test_an_unknown_style_is_refused(tmp_path):
    with pytest.raises(ValueError, match="kernel names: 'pretty'; one of demangled, mangled, truncated"):
        profiler.from_file(_spool_with(tmp_path, []), "pretty")


PROGRAM = """
import numpy as np
import hipkit

module = hipkit.compile('''
template <typename T> __global__ void scale(T* x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}''', name_expressions=["scale<float>"])
x = hipkit.to_device(np.ones(64, np.float32))
module.get_function("scale<float>")[1, 64](x, np.float32(2), 64)
hipkit.synchronize()
"""


PY = "program.py"
CPU_REASON = platforms.status()["cpu"]


def _prof(tmp_path: Path, *options: str) -> subprocess.CompletedProcess:
    (tmp_path / PY).write_text(textwrap.dedent(PROGRAM))
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "prof", *options, "-d", "out", "-o", "run", "--", "python", PY],
        env=environment(HIPKIT_PLATFORM="cpu", HIPKIT_PROF_DIR=None),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.skipif(bool(CPU_REASON), reason=f"cpu platform absent: {CPU_REASON}")
def test_prof_truncates_kernel_names_with_T(tmp_path):
    done = _prof(tmp_path, "-T", "--kernel-trace")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out" / "run_kernel_trace.csv", newline="") as f:
        assert [row["Kernel_Name"] for row in csv.DictReader(f)] == ["scale"]


def test_prof_refuses_M_with_T(tmp_path):
    done = _prof(tmp_path, "-M", "-T")
    assert done.returncode == 2
    assert "-M (--mangled-kernels) and -T (--truncate-kernels): choose one" in done.stderr
    assert not (tmp_path / "out").exists()
