"""Whole test programs built twice and compared, for test_cpu_aarch64.py and
test_cpu_isa.py: natively (the reference, whose own tests check it against
NumPy) and for another target (an ISA level, AArch64 under qemu), each run on
the same fresh random inputs; the exit status, the output and every file the
program writes must be the same, but for the lines that name the machine.

Each :class:`Case` is one of the repository's test programs with its inputs and
how it runs: plain kernels, shared memory and barriers, warp shuffles and
ballots at warp size 32 and 64, atomics, streams and events, a cooperative grid
sync, graphs, HIP's error codes, a device-side assert and a fault caught
(signals.cpp), on the split executor and on fibers.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import test_cc
import test_cc_cooperative
import test_cc_graphs
import test_cc_host_funcs
import test_cpu_warp_programs
from test_cli import environment

__all__ = ["CASES", "LEVEL_CASES", "Case", "Run", "assert_same", "build", "case_environment", "run"]


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
    Case("cooperative-32", test_cc_cooperative.PROGRAM, _coop, warp_size=32),
    Case("cooperative-64", test_cc_cooperative.PROGRAM, _coop),
    Case("graphs", test_cc_graphs.GRAPHS, _seed),
    Case("ballots-32", AGGREGATE, _aggregate, warp_size=32, threads=1),
    Case("ballots-32-fiber", AGGREGATE, _aggregate, warp_size=32, executor="fiber", threads=1),
    Case("sort-64-fiber", test_cpu_warp_programs.SORT, _sort("shared"), executor="fiber"),
    Case("sort-32-registers", test_cpu_warp_programs.SORT, _sort("registers"), warp_size=32),
    Case("errors", test_cc.ERRORS, _arguments(), exit_code=3),
    Case("host-fault", test_cc_host_funcs.HOST_FUNCS, _arguments("fault")),
]
# Built for every level of an architecture: integer results (the float ones of
# "features" may be contracted to fused multiply-adds on a level with FMA only).
LEVEL_CASES = [case for case in CASES if case.name in ("cooperative-64", "sort-32-registers")]
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


def _run_in(command: list[str], folder: Path, env: dict[str, str]) -> Run:
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, timeout=300)
    files, machine = {}, []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        files[str(path.relative_to(folder))], named = _lines_apart(path.read_bytes())
        machine += named
    stdout, named = _lines_apart(done.stdout)
    return Run(done.returncode, stdout.decode(), done.stderr.decode(errors="replace"), files, machine + named)


def build(case: Case, folder: Path, **changes: str) -> Path:
    """``case``'s program built by hipkit cc in ``folder``, with the environment's ``changes``."""
    env = case_environment(case, **changes)
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


def run(case: Case, programs: dict[str, tuple[Path, list[str]]], folder: Path, rng) -> dict[str, Run]:
    """Each of ``programs`` (name -> the executable and the command before it,
    such as qemu) run on one set of ``case``'s fresh inputs, in a folder of its own."""
    inputs = folder / "inputs"
    inputs.mkdir()
    args = case.inputs(inputs, rng)
    runs = {}
    for name, (program, prefix) in programs.items():
        shutil.copytree(inputs, folder / f"run-{name}")
        runs[name] = _run_in([*prefix, str(program), *args], folder / f"run-{name}", case_environment(case))
    return runs


def case_environment(case: Case, **changes: str) -> dict[str, str]:
    """The environment ``case`` is built and run in, with ``changes``."""
    settings: dict[str, str | None] = {
        "HIPKIT_PLATFORM": "cpu",
        "HIPKIT_CPU_WARP_SIZE": str(case.warp_size),
        "HIPKIT_CPU_EXEC": case.executor,
        "HIPKIT_CPU_THREADS": str(case.threads),
        "HIPKIT_CPU_ISA": None,  # native
    }
    return environment(**{**settings, **changes})


def assert_same(case: Case, native: Run, other: Run, what: str) -> None:
    """``other`` (the build for ``what``) did what the native build did."""
    assert native.returncode == case.exit_code, native.stderr
    assert other.returncode == case.exit_code, f"{what}: {other.stderr}"
    assert other.stdout == native.stdout, what
    assert other.files.keys() == native.files.keys(), what
    for name, data in native.files.items():
        assert other.files[name] == data, f"{name} of {what}"
