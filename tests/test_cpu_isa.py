"""HIPKIT_CPU_ISA: the five benchmark kernels, and two whole test programs
(program_builds.LEVEL_CASES), compiled for each level of this architecture
(x86-64-v2, -v3, -v4 on x86-64); each level this CPU executes run on fresh
random data with results identical to the native build's, each it does not
refused (the module with hipErrorNoBinaryForGpu, the program by hipkit run);
what this CPU executes, read two ways; a module and a program for a CPU it is
not refused; a -march value the compiler rejects; programs built by hipkit cc
for a chosen level.  AArch64's levels: test_cpu_aarch64.py, under qemu.
"""

from __future__ import annotations

import importlib.util
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from program_builds import LEVEL_CASES, assert_same, build, run
from test_cc import write
from test_cli import environment

import hipkit
from hipkit import CompileOptionError, HipError, hip, hipError_t, platforms
from hipkit.platforms.cpu import isa

cpu_absent = platforms.status()["cpu"]
pytestmark = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

_BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "cpu_kernels.py"
_spec = importlib.util.spec_from_file_location("cpu_kernels", _BENCHMARK)
assert _spec and _spec.loader
_kernels = sys.modules["cpu_kernels"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kernels)
SOURCE: str = _kernels.HIP_SOURCE  # the benchmark's five kernels, as measured

# What the error paths compile: small, so that they cost little time.
SMALL = 'extern "C" __global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }'
_SMALL_PROGRAM = f"""
#include <hip/hip_runtime.h>
#include <cstdio>
{SMALL}
int main() {{
  float* x;
  hipMalloc(&x, 4 * sizeof(float));
  scale<<<1, 4>>>(x, 2.0f);
  printf("%d\\n", hipDeviceSynchronize());
}}
"""
LEVELS = isa.LEVELS.get(platform.machine(), ())[1:]  # the baseline's code is every level's subset
# Levels of x86-64 by the psABI, as Linux names the flags in /proc/cpuinfo.
_X86_FLAGS = {
    "x86-64-v2": "cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3",
    "x86-64-v3": "avx avx2 bmi1 bmi2 f16c fma abm movbe xsave",
    "x86-64-v4": "avx512f avx512bw avx512cd avx512dq avx512vl",
}


@pytest.fixture(autouse=True)
def _on_the_cpu():
    """These are the CPU platform's tests: its device is the current one, whatever
    the default platform (the GPU's where one is)."""
    reason = platforms.status()["cpu"]
    if reason:
        pytest.skip(f"cpu platform absent: {reason}")
    with hipkit.Device(0, platform="cpu"):
        yield


def compile_for(level: str, monkeypatch, source: str = SOURCE) -> tuple:
    """``source`` compiled, not loaded, with HIPKIT_CPU_ISA=level."""
    monkeypatch.setenv("HIPKIT_CPU_ISA", level)
    cpu = platforms.platform_class("cpu")
    target = hipkit.get_device().target
    binary = cpu.compile(source, target, name="kernels.hip", options=(), name_expressions=(), headers={})
    return binary, target


def run_kernels(module: hipkit.Module, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The five kernels of ``module`` on ``inputs``; their results on the host."""
    k = {name: module.get_function(name) for name in _kernels.LABELS}
    a, b, x = (hipkit.to_device(inputs[key]) for key in "abx")
    matrix, data = hipkit.to_device(inputs["matrix"]), hipkit.to_device(inputs["data"])
    n, blocks, (height, width) = inputs["a"].size, inputs["x"].size // 256, inputs["matrix"].shape
    c, tree, warp = hipkit.empty(n), hipkit.empty(blocks), hipkit.empty(blocks)
    transposed, bins = hipkit.empty((width, height)), hipkit.zeros(256, np.uint32)
    k["vector_add"][(n + 255) // 256, 256](a, b, c, n)
    k["tree_reduce"][blocks, 256](x, tree, blocks * 256)
    k["warp_reduce"][blocks, 256](x, warp, blocks * 256)
    k["transpose"][(width // 32, height // 32), (32, 8)](transposed, matrix, width, height)
    k["histogram"][8, 256](data, bins, inputs["data"].size)
    hipkit.synchronize()
    results = {"vector_add": c, "tree_reduce": tree, "warp_reduce": warp, "transpose": transposed}
    return {name: array.get() for name, array in {**results, "histogram": bins}.items()}


@pytest.mark.parametrize("level", LEVELS)
def test_each_level_compiles_and_matches_the_native_build(level, monkeypatch, rng):
    binary, target = compile_for(level, monkeypatch)
    native, _ = compile_for("native", monkeypatch)
    assert binary.path != native.path  # the ISA is in the cache key
    recorded = isa._section(binary.path, isa.SECTION).split()
    assert recorded[0] == level and frozenset(recorded[1:]) == isa.features(level)
    device = hipkit.get_device()
    if level not in isa.executable_levels():  # compiled, and refused
        with pytest.raises(HipError) as error:
            hipkit.Module(binary, target, device)
        assert error.value.code == hipError_t.hipErrorNoBinaryForGpu
        return
    inputs = {
        "a": rng.standard_normal((1 << 16) + 37, np.float32),  # a partial last block
        "b": rng.standard_normal((1 << 16) + 37, np.float32),
        "x": rng.standard_normal(256 * 96, np.float32),
        "matrix": rng.standard_normal((96, 160), np.float32),
        "data": rng.integers(0, 256, (1 << 16) + 5, dtype=np.uint8),
    }
    got = run_kernels(hipkit.Module(binary, target, device), inputs)
    want = run_kernels(hipkit.Module(native, target, device), inputs)
    # Every float result is a fixed sequence of IEEE additions (tree, shuffle
    # rounds) or a copy: no multiply to fuse and no reassociation, so any ISA
    # must give the native build's bits.
    for name in _kernels.LABELS:
        np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name} for {level}")
    # and the native build is right
    np.testing.assert_array_equal(want["vector_add"], inputs["a"] + inputs["b"])
    sums = inputs["x"].reshape(-1, 256).sum(axis=1, dtype=np.float64)
    np.testing.assert_allclose(want["tree_reduce"], sums, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(want["warp_reduce"], sums, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(want["transpose"], inputs["matrix"].T)
    np.testing.assert_array_equal(want["histogram"], np.bincount(inputs["data"], minlength=256))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("case", LEVEL_CASES, ids=lambda case: case.name)
def test_each_level_builds_whole_programs_that_match_the_native_build(case, level, tmp_path, rng):
    native = build(case, tmp_path / "native")
    program = build(case, tmp_path / level, HIPKIT_CPU_ISA=level)
    if level in isa.executable_levels():
        runs = run(case, {"native": (native, []), level: (program, [])}, tmp_path, rng)
        assert_same(case, runs["native"], runs[level], level)
    else:  # hipkit cc built it; hipkit run refuses to run it here
        assert program.is_file()
        write(tmp_path, "program.hip", case.source)
        done = hipkit_with_isa(level, "run", "program.hip", cwd=tmp_path)
        assert done.returncode == 1 and "hipErrorNoBinaryForGpu" in done.stderr


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the psABI levels of /proc/cpuinfo are x86-64's")
def test_executable_levels_agree_with_proc_cpuinfo():
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            break
    expected = ["x86-64"]
    for level, needed in _X86_FLAGS.items():
        if not set(needed.split()) <= flags:
            break
        expected.append(level)
    assert list(isa.executable_levels()) == expected


def test_a_module_for_a_cpu_this_one_is_not_is_refused(monkeypatch, tmp_path):
    # Real targets, tried in turn: the first this CPU lacks instructions of.
    candidates = {"x86_64": ("x86-64-v4", "sapphirerapids", "knl"), "aarch64": ("armv8.2-a+sve", "armv9-a")}
    for level in candidates.get(platform.machine(), ()):
        try:
            lacking = isa.missing(isa.features(level))
        except ValueError:  # a compiler that does not know it
            continue
        if lacking:
            break
    else:
        pytest.skip(f"this CPU executes every target tried for {platform.machine()}")
    binary, target = compile_for(level, monkeypatch, SMALL)
    device = hipkit.get_device()
    with pytest.raises(HipError) as error:
        hipkit.Module(binary, target, device)
    assert error.value.code == hipError_t.hipErrorNoBinaryForGpu
    message = str(error.value)
    assert f"-march={level}" in message and "HIPKIT_CPU_ISA" in message
    assert all(feature in message for feature in lacking)
    # hiprtc's bytes, as a program would save them, are refused the same way.
    with pytest.raises(HipError, match=f"-march={level}"):
        hip.hipModuleLoadData(binary.path.read_bytes())
    # A program for it: hipkit cc builds it, hipkit run refuses it, and says why.
    write(tmp_path, "small.hip", _SMALL_PROGRAM)
    built = hipkit_with_isa(level, "cc", "small.hip", "-o", "small", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    refused = hipkit_with_isa(level, "run", "small.hip", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "hipErrorNoBinaryForGpu" in refused.stderr and f"-march={level}" in refused.stderr
    assert all(feature in refused.stderr for feature in lacking)
    monkeypatch.setenv("HIPKIT_CPU_ISA", "native")  # and the process goes on
    x = hipkit.to_device(np.arange(4, dtype=np.float32))
    hipkit.compile(SMALL).get_function("scale")[1, 4](x, np.float32(2))
    np.testing.assert_array_equal(x.get(), [0, 2, 4, 6])


def test_a_value_the_compiler_rejects_names_the_variable(monkeypatch):
    monkeypatch.setenv("HIPKIT_CPU_ISA", "x86-64-v9")
    with pytest.raises(CompileOptionError, match="HIPKIT_CPU_ISA='x86-64-v9'.*rejects"):
        hipkit.compile(SMALL)
    monkeypatch.setenv("HIPKIT_CPU_ISA", "-O3")  # not a -march value at all
    with pytest.raises(ValueError, match="HIPKIT_CPU_ISA"):
        hipkit.compile(SMALL)


def hipkit_with_isa(level: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", *args],
        cwd=cwd,
        env=environment(HIPKIT_PLATFORM="cpu", HIPKIT_CPU_ISA=level),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.skipif(platform.machine() != "x86_64", reason="tells x86-64-v2 from -v3 code by __AVX2__")
def test_programs_are_built_for_the_chosen_level(tmp_path):
    # The level's macros reach the program's preprocessing and compile; hipkit
    # run keys its cached program by the variable, so each level runs its own.
    write(
        tmp_path,
        "isa.hip",
        """
        #include <hip/hip_runtime.h>
        #include <cstdio>
        __global__ void one(int* out) { *out = 1; }
        int main() {
            int* d;
            int h = 0;
            hipMalloc(&d, sizeof(int));
            one<<<1, 1>>>(d);
            hipMemcpy(&h, d, sizeof(int), hipMemcpyDeviceToHost);
        #ifdef __AVX2__
            printf("%d avx2\\n", h);
        #else
            printf("%d no avx2\\n", h);
        #endif
            return 0;
        }
        """,
    )
    levels = ["x86-64-v2", *(["x86-64-v3"] if "x86-64-v3" in isa.executable_levels() else [])]
    for level, expected in zip(levels, ("1 no avx2", "1 avx2"), strict=False):
        done = hipkit_with_isa(level, "run", "isa.hip", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == expected, level
    done = hipkit_with_isa("no-such-cpu", "cc", "isa.hip", "-o", "isa", cwd=tmp_path)
    assert done.returncode != 0 and "HIPKIT_CPU_ISA='no-such-cpu'" in done.stderr
