"""The CPU platform on AArch64, checked under qemu on an x86-64 machine.

The repository's own test programs (:mod:`program_builds`) are built by
``hipkit cc`` natively and with the cross compiler
(``HIPKIT_CXX=aarch64-linux-gnu-g++``, ``HIPKIT_CPU_ISA=armv8-a``: libhipkit_cpu
with its AArch64 fiber switch, and the kernel headers, are built for AArch64
too); the AArch64 build runs under ``qemu-aarch64 -L /usr/aarch64-linux-gnu``
and must do what the native one does on the same fresh random inputs, its
device's architecture being AArch64's.  One is built for each later
level of the architecture too (qemu's CPU executes them all); hipkit run
refuses to run an AArch64 program here; the Python API's kernel modules
compile for AArch64 too (the benchmark's five kernels), and are refused here
with hipErrorNoBinaryForGpu.

``make test`` installs the cross compiler and qemu (``make cross-toolchain``:
``hipkit.platforms.cpu.isa.CROSS_PACKAGES``); where they are missing the tests
skip and say so.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import test_cc
from program_builds import CASES, LEVEL_CASES, assert_same, build, case_environment, run
from test_cli import environment
from test_cpu_isa import SOURCE, _kernels

from hipkit import HipError, hip, hipError_t, platforms
from hipkit.platforms.cpu import isa

CROSS_CXX = isa.CROSS_COMPILERS["aarch64"]
QEMU = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]


def _missing() -> str:
    if platform.machine() != "x86_64":
        return f"cross-builds from x86-64, this machine is {platform.machine()}"
    absent = [tool for tool in (CROSS_CXX, QEMU[0]) if shutil.which(tool) is None]
    if absent:
        return (
            f"{' and '.join(absent)} not found (make cross-toolchain installs {' '.join(isa.CROSS_PACKAGES)})"
        )
    return ""


cpu_absent = platforms.status()["cpu"]
pytestmark = [
    pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}"),
    pytest.mark.skipif(bool(_missing()), reason=_missing()),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_aarch64_build_matches_the_native_one(case, tmp_path, rng):
    native = build(case, tmp_path / "native")
    cross = build(case, tmp_path / "aarch64", HIPKIT_CXX=CROSS_CXX, HIPKIT_CPU_ISA="armv8-a")
    runs = run(case, {"native": (native, []), "aarch64": (cross, QEMU)}, tmp_path, rng)
    assert_same(case, runs["native"], runs["aarch64"], "aarch64")
    arch = [line for line in runs["aarch64"].machine if line.startswith("gcnArchName=")]
    assert arch == [
        line.replace("x86_64", "aarch64")
        for line in runs["native"].machine
        if line.startswith("gcnArchName=")
    ]


@pytest.mark.parametrize("level", isa.LEVELS["aarch64"][1:])
def test_each_aarch64_level_matches_the_native_build(level, tmp_path, rng):
    case = LEVEL_CASES[0]
    native = build(case, tmp_path / "native")
    cross = build(case, tmp_path / level, HIPKIT_CXX=CROSS_CXX, HIPKIT_CPU_ISA=level)
    runs = run(case, {"native": (native, []), level: (cross, QEMU)}, tmp_path, rng)
    assert_same(case, runs["native"], runs[level], level)


def test_hipkit_run_refuses_a_program_for_another_architecture(tmp_path):
    case = LEVEL_CASES[0]
    test_cc.write(tmp_path, "program.hip", case.source)
    done = subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "run", "program.hip"],
        cwd=tmp_path,
        env=case_environment(case, HIPKIT_CXX=CROSS_CXX, HIPKIT_CPU_ISA="armv8-a"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "hipErrorNoBinaryForGpu" in done.stderr
    assert "compiled for aarch64 (-march=armv8-a), and this machine is x86_64" in done.stderr
    assert "qemu-aarch64" in done.stderr


def test_kernel_modules_compile_for_aarch64_and_are_refused_here(tmp_path):
    # The Python API's path (kernels in a shared object), compiled in a process of its
    # own: a process keeps its compiler's identity.
    code = (
        "import sys; from hipkit.platforms.cpu import compiler; "
        "binary = compiler.compile_source(sys.stdin.read(), name='kernels.hip'); "
        "print(binary.path); print(*sorted(k['name'] for k in binary.kernels))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=SOURCE,
        env=environment(HIPKIT_CXX=CROSS_CXX, HIPKIT_CPU_ISA="armv8.2-a"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    path, names = done.stdout.splitlines()
    assert set(_kernels.LABELS) <= set(names.split())  # the five kernels
    data = Path(path).read_bytes()
    assert data[:4] == b"\x7fELF" and int.from_bytes(data[0x12:0x14], "little") == 183  # EM_AARCH64
    with pytest.raises(HipError) as error:
        hip.hipModuleLoadData(data)
    assert error.value.code == hipError_t.hipErrorNoBinaryForGpu
    assert "compiled for aarch64 (-march=armv8.2-a), and this machine is x86_64" in str(error.value)


def test_the_cpu_platform_says_a_cross_compiler_is_for_programs_only():
    done = subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "info"],
        env=environment(HIPKIT_PLATFORM=None, HIPKIT_CXX=CROSS_CXX, HIPKIT_CPU_ISA="armv8-a"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (
        f"HIPKIT_CXX='{CROSS_CXX}' compiles for aarch64, and this machine is x86_64"
        in done.stdout + done.stderr
    )
