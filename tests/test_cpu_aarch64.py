"""The CPU platform on AArch64, checked under qemu on an x86-64 machine.

The repository's own test programs are built by ``hipkit cc`` twice: natively,
and with the cross compiler (``HIPKIT_CXX=aarch64-linux-gnu-g++``,
``HIPKIT_CPU_ISA=armv8-a``: libhipkit_cpu with its AArch64 fiber switch, and
the kernel headers, are built for AArch64 too).  Each runs on the same fresh
random inputs, natively and under ``qemu-aarch64 -L /usr/aarch64-linux-gnu``;
the exit status, the output and every file the program writes must be the
native build's (whose own tests check them against NumPy), but for the lines
that name the machine, where the device's architecture must be AArch64's.

The programs cover plain kernels, shared memory and barriers, warp shuffles
and ballots at warp size 32 and 64, atomics, streams and events, a cooperative
grid sync, graphs, HIP's error codes, a device-side assert and a fault caught
(signals.cpp), on the split
executor and on fibers.  ``make test`` installs the cross compiler and qemu
(:data:`PACKAGES`); where they are missing the tests skip and say so.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import test_cc
import test_cc_cooperative
import test_cc_graphs
import test_cc_host_funcs
import test_cpu_warp_programs
from test_cli import environment

from hipkit import platforms

# Debian's and Ubuntu's packages of the cross compiler (with its sysroot) and of qemu.
PACKAGES = ("g++-aarch64-linux-gnu", "qemu-user")
CROSS_CXX = "aarch64-linux-gnu-g++"
QEMU = ("qemu-aarch64", "-L", "/usr/aarch64-linux-gnu")


def _missing() -> str:
    if platform.machine() != "x86_64":
        return f"cross-builds from x86-64, this machine is {platform.machine()}"
    absent = [tool for tool in (CROSS_CXX, QEMU[0]) if shutil.which(tool) is None]
    if absent:
        return f"{' and '.join(absent)} not found (make test installs {' '.join(PACKAGES)})"
    return ""


cpu_absent = platforms.status()["cpu"]
pytestmark = [
    pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}"),
    pytest.mark.skipif(bool(_missing()), reason=_missing()),
]


@dataclass(frozen=True)
class Case:
    """A program, how it is given its inputs, and how it runs."""

    name: str
    source: str
    # Writes the inputs into a folder, returns the program's arguments.
    inputs: Callable[[Path, np.random.Generator], list[str]]
    warp_size: int = 64
    executor: str = "auto"
    # Worker threads, the same on every machine; 1 where float atomics or
    # atomic slots would otherwise make the results depend on the schedule.
    threads: int = 2
    exit_code: int = 0


def _features(folder: Path, rng: np.random.Generator) -> list[str]:
    test_cc.feature_inputs(folder, rng)
    return ["data"]


def _seed(folder: Path, rng: np.random.Generator) -> list[str]:
    return [str(rng.integers(1 << 30))]


def _coop(folder: Path, rng: np.random.Generator) -> list[str]:
    rng.integers(-1000, 1000, 4096, dtype=np.int32).tofile(folder / "in.bin")
    return ["in.bin"]


def _aggregate(folder: Path, rng: np.random.Generator) -> list[str]:
    n = 5000
    parts = (rng.integers(-100, 100, n), rng.integers(0, 6, n), rng.integers(-1, 3, 256))
    (folder / "in.bin").write_bytes(b"".join(p.astype(np.int32).tobytes() for p in parts))
    return ["in.bin"]


def _sort(kernel: str) -> Callable[[Path, np.random.Generator], list[str]]:
    def inputs(folder: Path, rng: np.random.Generator) -> list[str]:
        lengths = rng.integers(0, 129, 40)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        keys = rng.integers(-1000, 1000, int(offsets[-1])).astype(np.int32)
        (folder / "in.bin").write_bytes(np.int32(40).tobytes() + offsets.tobytes() + keys.tobytes())
        return ["in.bin", kernel]

    return inputs


def _arguments(*args: str) -> Callable[[Path, np.random.Generator], list[str]]:
    return lambda folder, rng: list(args)


AGGREGATE = test_cpu_warp_programs.AGGREGATE + test_cpu_warp_programs.AGGREGATE_MAIN
CASES = [
    Case("features", test_cc.FEATURES, _features, threads=1),
    Case("features-fiber", test_cc.FEATURES, _features, executor="fiber", threads=1),
    Case("cooperative-32", test_cc_cooperative.PROGRAM, _coop, warp_size=32),
    Case("cooperative-64", test_cc_cooperative.PROGRAM, _coop),
    Case("graphs", test_cc_graphs.GRAPHS, _seed),
    Case("ballots-32", AGGREGATE, _aggregate, warp_size=32, threads=1),
    Case("ballots-32-fiber", AGGREGATE, _aggregate, warp_size=32, executor="fiber", threads=1),
    Case("sort-64", test_cpu_warp_programs.SORT, _sort("shared")),
    Case("sort-32-registers", test_cpu_warp_programs.SORT, _sort("registers"), warp_size=32),
    Case("errors", test_cc.ERRORS, _arguments(), exit_code=3),
    Case("host-fault", test_cc_host_funcs.HOST_FUNCS, _arguments("fault")),
]
# Lines of output and of the files written that name the machine.
MACHINE_LINES = ("name=", "gcnArchName=")


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    files: dict[str, bytes]  # the files of the run's folder, less the lines naming the machine
    machine: list[str]  # those lines


def _lines_apart(data: bytes) -> tuple[bytes, list[str]]:
    lines = data.split(b"\n")
    named = [line for line in lines if line.startswith(tuple(p.encode() for p in MACHINE_LINES))]
    return b"\n".join(line for line in lines if line not in named), [line.decode() for line in named]


def _run(command: list[str], folder: Path, env: dict[str, str]) -> Run:
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, timeout=300)
    files, machine = {}, []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        files[str(path.relative_to(folder))], named = _lines_apart(path.read_bytes())
        machine += named
    stdout, named = _lines_apart(done.stdout)
    return Run(done.returncode, stdout.decode(), done.stderr.decode(errors="replace"), files, machine + named)


def _build(case: Case, folder: Path, env: dict[str, str]) -> Path:
    test_cc.write(folder, "program.hip", case.source)
    built = subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "cc", "-O2", "-o", "program", "program.hip"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    return folder / "program"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_aarch64_build_matches_the_native_one(case, tmp_path, rng):
    env = environment(
        HIPKIT_PLATFORM="cpu",
        HIPKIT_CPU_WARP_SIZE=str(case.warp_size),
        HIPKIT_CPU_EXEC=case.executor,
        HIPKIT_CPU_THREADS=str(case.threads),
        HIPKIT_CPU_ISA=None,
    )
    cross = {**env, "HIPKIT_CXX": CROSS_CXX, "HIPKIT_CPU_ISA": "armv8-a"}
    programs = {
        "native": _build(case, tmp_path / "native", env),
        "aarch64": _build(case, tmp_path / "aarch64", cross),
    }
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    args = case.inputs(inputs, rng)
    runs = {}
    for name, program in programs.items():
        shutil.copytree(inputs, tmp_path / f"run-{name}")
        command = [*QEMU, str(program)] if name == "aarch64" else [str(program)]
        runs[name] = _run([*command, *args], tmp_path / f"run-{name}", env)
    native, emulated = runs["native"], runs["aarch64"]
    assert native.returncode == case.exit_code, native.stderr
    assert emulated.returncode == case.exit_code, emulated.stderr
    assert emulated.stdout == native.stdout
    assert emulated.files.keys() == native.files.keys()
    for name, data in native.files.items():
        assert emulated.files[name] == data, name
    assert [line for line in emulated.machine if line.startswith("gcnArchName=")] == [
        line.replace("x86_64", "aarch64") for line in native.machine if line.startswith("gcnArchName=")
    ]
