"""hipkit run's direct lookup (hipkit.cc.manifest): an unchanged program found from
its manifest and run without a compiler, and every change that must rebuild
rebuilding (a header anywhere in the include graph, a header created where it
would be found first, a -D, another or a changed compiler, a time macro), a
manifest cut, corrupt or written by several runs at once, a program or source
gone.

The CPU's compiler is a wrapper script (HIPKIT_CXX) that logs each call before
running g++: an empty log is a run that started the program without a compiler.
A manifest is only written when the files a build read are older than
manifest.MARGIN_NS, so each test lets its files age (:func:`settle`) first.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_cli import environment

from hipkit import config, platforms
from hipkit.cc import manifest
from hipkit.platforms.base.toolchain import read_dependencies

CXX = shutil.which(config.get("HIPKIT_CXX"))
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="no C++ compiler (HIPKIT_CXX) for the CPU platform"),
    pytest.mark.slow,  # files must age two seconds before a manifest is written
]

PROGRAM = r"""
#include <cstdio>
#include <cstdlib>
#include "value.h"
__global__ void twice(int* v) { v[threadIdx.x] *= 2; }
int main(int argc, char** argv) {
  int* d;
  hipMallocManaged(&d, sizeof(int));
  d[0] = VALUE;
  twice<<<1, 1>>>(d);
  hipDeviceSynchronize();
  printf("%d\n", d[0]);
  hipFree(d);
  return argc > 1 ? atoi(argv[1]) : 0;
}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def compiler(directory: Path, name: str = "cxx") -> Path:
    """A C++ compiler that logs its calls to ``<name>.log`` beside it, then runs the real one."""
    log = directory / f"{name}.log"
    script = write(directory / name, f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{CXX}" "$@"\n')
    script.chmod(0o755)
    return script


def calls(cxx: Path) -> list[str]:
    log = cxx.with_name(cxx.name + ".log")
    return log.read_text().splitlines() if log.exists() else []


def settle() -> None:
    """Let the files just written age past manifest.MARGIN_NS, so that the next
    build may write its manifest."""
    time.sleep(manifest.MARGIN_NS / 1e9 + 0.2)


def hipkit_run(cwd: Path, cxx: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "run", *args],
        cwd=cwd,
        env=environment(HIPKIT_PLATFORM="cpu", HIPKIT_CXX=str(cxx)),
        capture_output=True,
        text=True,
        timeout=300,
    )


def run_value(cwd: Path, cxx: Path, *args: str) -> tuple[int, bool]:
    """The program's output (2 * VALUE), and whether a compiler ran to get it."""
    before = len(calls(cxx))
    done = hipkit_run(cwd, cxx, *args)
    assert done.returncode == 0, done.stderr
    return int(done.stdout), len(calls(cxx)) > before


def direct_value(cwd: Path, cxx: Path, *args: str) -> int:
    """The output of a run that needed no compiler.  A build leaves no manifest
    when a file it read changed less than MARGIN_NS before: hipkit's own files
    too, which another process may be editing, so up to three tries."""
    for _ in range(3):
        value, compiled = run_value(cwd, cxx, *args)
        if not compiled:
            return value
        settle()
    raise AssertionError("every run ran the compiler")


def established(cwd: Path, cxx: Path, *args: str) -> int:
    """The output once the files have aged and the manifest is written (the
    next change is then the one a run must notice)."""
    settle()
    return direct_value(cwd, cxx, *args)


@pytest.fixture
def program(tmp_path: Path) -> Path:
    write(tmp_path / "main.hip", PROGRAM)
    write(tmp_path / "inc" / "value.h", "#include <sub/part.h>\n#define VALUE (PART + 1)\n")
    write(tmp_path / "inc" / "sub" / "part.h", "#define PART 20\n")
    return tmp_path


def test_an_unchanged_program_runs_without_a_compiler(program):
    """The first run builds (the compiler runs) and leaves the manifest; the next
    starts the program with no compiler, passing its arguments and exit status."""
    cxx = compiler(program)
    settle()
    assert run_value(program, cxx, "main.hip", "-Iinc") == (42, True)
    assert direct_value(program, cxx, "main.hip", "-Iinc") == 42
    assert [line.split()[0] for line in calls(cxx)].count("-E") >= 1  # the full path did preprocess
    before = len(calls(cxx))
    done = hipkit_run(program, cxx, "main.hip", "-Iinc", "--", "7")
    assert (done.returncode, done.stdout) == (7, "42\n"), done.stderr
    assert len(calls(cxx)) == before


def test_a_changed_header_anywhere_rebuilds(program):
    """A header two includes deep, changed (same size) or touched only."""
    cxx = compiler(program)
    assert established(program, cxx, "main.hip", "-Iinc") == 42
    write(program / "inc" / "sub" / "part.h", "#define PART 30\n")
    assert run_value(program, cxx, "main.hip", "-Iinc") == (62, True)
    assert established(program, cxx, "main.hip", "-Iinc") == 62
    os.utime(program / "inc" / "value.h")  # new times, same text: the same program, found again
    assert established(program, cxx, "main.hip", "-Iinc") == 62


def test_a_header_that_would_now_be_found_first_rebuilds(program):
    """A header created where the preprocessor looks before where it found one:
    beside the including source, in an earlier -I directory, in a subdirectory
    of one that did not exist."""
    cxx = compiler(program)
    write(program / "first" / "keep.txt", "")
    args = ("main.hip", "-Ifirst", "-Iinc")
    assert established(program, cxx, *args) == 42
    write(program / "first" / "sub" / "part.h", "#define PART 10\n")
    assert run_value(program, cxx, *args) == (22, True)
    assert established(program, cxx, *args) == 22
    write(program / "first" / "value.h", "#define VALUE 5\n")
    assert run_value(program, cxx, *args) == (10, True)
    assert established(program, cxx, *args) == 10
    write(program / "value.h", "#define VALUE 8\n")  # "value.h" is looked for beside main.hip first
    assert run_value(program, cxx, *args) == (16, True)


def test_another_define_option_or_compiler_rebuilds(program):
    """-D changes the key; so does another compiler; a compiler changed in place
    (same path) is a changed file of the manifest."""
    cxx = compiler(program)
    other = compiler(program, "other-cxx")
    write(program / "inc" / "sub" / "part.h", "#ifndef PART\n#define PART 20\n#endif\n")
    assert established(program, cxx, "main.hip", "-Iinc", "-DPART=1") == 4
    assert established(program, cxx, "main.hip", "-Iinc", "-DPART=2") == 6
    assert direct_value(program, cxx, "main.hip", "-Iinc", "-DPART=1") == 4
    assert run_value(program, other, "main.hip", "-Iinc", "-DPART=1") == (4, True)
    write(cxx, cxx.read_text().replace("exec ", "exec  "))  # the same compiler, updated
    assert run_value(program, cxx, "main.hip", "-Iinc", "-DPART=1") == (4, True)


def test_time_macros_always_rebuild(tmp_path):
    """A source using __TIME__ is preprocessed each time (its program differs)."""
    write(tmp_path / "main.hip", PROGRAM)
    write(tmp_path / "value.h", 'static const char* built = __TIME__;\n#define VALUE (built[0] - "0"[0])\n')
    cxx = compiler(tmp_path)
    settle()
    for _ in range(2):
        assert run_value(tmp_path, cxx, "main.hip")[1]


def test_paths_with_spaces_and_dollars(tmp_path):
    """The compiler's dependency list escapes them (make's syntax); they are
    read back as they are."""
    write(tmp_path / "main.hip", PROGRAM)
    write(tmp_path / "my headers" / "value.h", '#include "cost$.h"\n#define VALUE (COST * 2)\n')
    write(tmp_path / "my headers" / "cost$.h", "#define COST 3\n")
    cxx = compiler(tmp_path)
    assert established(tmp_path, cxx, "main.hip", "-Imy headers") == 12
    write(tmp_path / "my headers" / "cost$.h", "#define COST 4\n")
    assert run_value(tmp_path, cxx, "main.hip", "-Imy headers") == (16, True)


def test_dependency_lists_as_compilers_write_them(tmp_path):
    depfile = write(
        tmp_path / "unit.d",
        "unit.ii: main.hip /usr/include/stdio.h \\\n my\\ headers/value.h \\\n  cost$$.h a\\#b.h\n",
    )
    assert read_dependencies(depfile, "/src") == (
        "/src/main.hip",
        "/usr/include/stdio.h",
        "/src/my headers/value.h",
        "/src/cost$.h",
        "/src/a#b.h",
    )
    write(depfile, "no rule here\n")
    with pytest.raises(ValueError, match="not a dependency rule"):
        read_dependencies(depfile, "/src")


def manifest_of(source: Path) -> Path:
    """The one manifest that lists ``source`` (each test's sources are its own)."""
    folder = Path(manifest.manifest_path("-")).parent
    (found,) = [
        path
        for path in folder.iterdir()
        if not path.name.startswith(".") and f"\t{source}\n" in path.read_text(errors="replace")
    ]
    return found


@pytest.mark.parametrize("damage", ["cut", "garbage", "other format", "empty"])
def test_a_damaged_manifest_is_the_full_path(program, damage):
    """A manifest cut short, overwritten, of another format or empty is not
    trusted: the full path builds, writes a whole one again, and the run after
    needs no compiler."""
    cxx = compiler(program)
    assert established(program, cxx, "main.hip", "-Iinc") == 42
    manifest = manifest_of(program / "main.hip")
    text = manifest.read_bytes()
    damaged = {
        "cut": text[: len(text) // 2],
        "garbage": os.urandom(len(text)),
        "other format": text.replace(b"hipkit-run-manifest 1", b"hipkit-run-manifest 0", 1),
        "empty": b"",
    }[damage]
    manifest.write_bytes(damaged)
    assert run_value(program, cxx, "main.hip", "-Iinc") == (42, True)
    assert direct_value(program, cxx, "main.hip", "-Iinc") == 42  # written whole again


def test_runs_at_once_each_leave_a_whole_manifest(program):
    """Four runs at once build and write the same manifest: each runs right, and
    the manifest left is whole (the next run needs no compiler)."""
    cxx = compiler(program)
    settle()
    with ThreadPoolExecutor(4) as pool:
        runs = list(pool.map(lambda _: hipkit_run(program, cxx, "main.hip", "-Iinc"), range(4)))
    assert [(r.returncode, r.stdout) for r in runs] == [(0, "42\n")] * 4, [r.stderr for r in runs]
    assert direct_value(program, cxx, "main.hip", "-Iinc") == 42
    manifest = manifest_of(program / "main.hip")
    assert not list(manifest.parent.glob(f".{manifest.name}.*"))  # no file left half written


def test_a_source_or_program_gone_is_not_run(program):
    """A program removed from the cache is built again; a source removed is the
    full path's error (exit status 1), never the old program."""
    cxx = compiler(program)
    assert established(program, cxx, "main.hip", "-Iinc") == 42
    lines = manifest_of(program / "main.hip").read_text().splitlines()
    (built,) = [line.split("\t", 1)[1] for line in lines if line.startswith("program\t")]
    shutil.rmtree(Path(built).parent)
    assert run_value(program, cxx, "main.hip", "-Iinc") == (42, True)
    (program / "main.hip").unlink()
    done = hipkit_run(program, cxx, "main.hip", "-Iinc")
    assert done.returncode == 1 and "main.hip: no such file" in done.stderr
    assert done.stdout == ""


def test_the_cached_path_imports_little(program):
    """A run found by its manifest imports neither the compiler driver nor NumPy, a
    platform (only the registry and what the platforms' folders declare), the
    profiler, subprocess, argparse, typing, dataclasses, pathlib or enum."""
    cxx = compiler(program)
    assert established(program, cxx, "main.hip", "-Iinc") == 42
    code = "import sys; from hipkit.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, "run", "main.hip", "-Iinc"],
        cwd=program,
        env=environment(HIPKIT_PLATFORM="cpu", HIPKIT_CXX=str(cxx)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (0, "42\n"), done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "hipkit.cc.manifest" in imported
    # what this interpreter imports before any of hipkit (site's .pth files may import typing...)
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True)
    imported -= {line.split("|")[-1].strip() for line in bare.stderr.splitlines() if "|" in line}
    unwanted = {
        "numpy",
        "hipkit.cc.driver",
        "hipkit.cc.toolchains",
        "hipkit.profiler",
        "subprocess",
        "argparse",
        "typing",
        "dataclasses",
        "pathlib",
        "enum",
    }
    assert not imported & unwanted
    declarations = {"hipkit.platforms", "hipkit.platforms.base", "hipkit.platforms.base.faces"}
    declarations |= {"hipkit.platforms.base.options", *(f"hipkit.platforms.{n}" for n in platforms.known())}
    assert {m for m in imported if m.startswith("hipkit.platforms")} <= declarations


@pytest.mark.parametrize("name, value", [("HIPKIT_PLATFORM", "tpu"), ("HIPKIT_CPU_WARP_SIZE", "48")])
def test_a_malformed_variable_is_a_usage_error(program, name, value):
    """No manifest is looked up under a malformed variable, and the build says
    which variable, in one line (exit status 2), as hipkit cc does."""
    cxx = compiler(program)
    for command in ("run", "cc"):
        done = subprocess.run(
            [sys.executable, "-m", "hipkit.cli", command, "main.hip", "-Iinc"],
            cwd=program,
            env=environment(HIPKIT_CXX=str(cxx), **{"HIPKIT_PLATFORM": "cpu", name: value}),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"hipkit {command}: error: {name}={value!r}: " + (
            f"expected one of {', '.join(platforms.known())}\n"
            if name == "HIPKIT_PLATFORM"
            else "expected one of 32, 64\n"
        )
    assert calls(cxx) == []
