"""Building the CPU platform's C++ libraries (the runtime, the library providers, the
FFT engine) into hipkit's cache: every source compiled at once, one compiler process
each, then linked; a failure is a RuntimeError carrying the command and its output."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = ["build_shared", "run_compiler"]


def run_compiler(command: list[str], library: str) -> None:
    """Run one compile or link step of ``library``."""
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as exc:
        raise RuntimeError(f"cannot run the C++ compiler: {exc}") from None
    if done.returncode != 0:
        raise RuntimeError(f"building {library} failed:\n$ {shlex.join(command)}\n{done.stdout}{done.stderr}")


def build_shared(
    out: Path,
    library: str,
    compiler: Sequence[str],
    sources: Sequence[Path],
    compile_flags: Sequence[str],
    link_flags: Sequence[str],
    libraries: Sequence[str] = (),
) -> None:
    """Compile ``sources`` (in parallel: a first build is on a user's critical path)
    and link them into ``out / library``."""

    def compile_one(source: Path) -> str:
        obj = str(out / f"{source.parent.name}_{source.name}.o")  # two folders may share a name
        run_compiler([*compiler, *compile_flags, "-c", str(source), "-o", obj], library)
        return obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        objects = list(pool.map(compile_one, sources))
    run_compiler([*compiler, *link_flags, *objects, "-o", str(out / library), *libraries], library)
    for obj in objects:
        os.unlink(obj)
