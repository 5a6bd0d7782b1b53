"""The build: sources to objects (in parallel, cached), objects to a program.

``hipkit cc`` writes objects (``-c``) or an executable where the command line
says; ``hipkit run`` keeps the executable in the cache, under the hash of
everything it is made from (:func:`cached_program`), and finds it next time
without a compiler from the manifest written then (:mod:`hipkit.cc.manifest`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePath

from .. import _cache
from .._errors import CompileError
from ..platforms.base.options import Options
from ..platforms.base.toolchain import Toolchain, Unit
from . import manifest
from .toolchains import select

__all__ = ["build", "cached_program"]

Warn = Callable[[str], None]


def _compile_all(toolchain: Toolchain, options: Options, warn: Warn) -> list[Unit]:
    """Every source of ``options``, compiled at once (one compiler process each);
    all their diagnostics when any fails."""
    sources = options.sources
    workers = max(1, min(len(sources), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(toolchain.compile, s, options) for s in sources]
    units, errors = [], []
    for future in futures:
        try:
            units.append(future.result())
        except CompileError as exc:
            errors.append(exc)
    for unit in units:
        if unit.log:
            warn(unit.log)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise CompileError(
            "compiling " + ", ".join(str(e).splitlines()[0].removeprefix("compiling ") for e in errors),
            "".join(e.log for e in errors),
        )
    return units


def _copy_atomically(src: Path, dst: Path) -> None:
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{dst.name}.", dir=dst.parent)
    except OSError as exc:
        raise CompileError(f"cannot write {dst}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as data:
            shutil.copyfileobj(data, out)
        shutil.copymode(src, tmp)  # the compiler's (umask) mode, not mkstemp's 0600
        os.replace(tmp, dst)
    except OSError as exc:
        os.unlink(tmp)
        raise CompileError(f"cannot write {dst}: {exc.strerror}") from None
    except BaseException:
        os.unlink(tmp)
        raise


def build(options: Options, warn: Warn) -> list[Path]:
    """Compile (and, without ``-c``, link) as ``options`` say; returns the files written.

    Raises
    ------
    CompileError
        With the compiler's or linker's diagnostics; nothing is written then.
    OptionError
        For a platform hipkit cc cannot build for.
    """
    toolchain = select(options)
    units = _compile_all(toolchain, options, warn)
    if options.compile_only:
        written = []
        for unit in units:
            out = Path(options.output or PurePath(unit.source).with_suffix(".o").name)
            _copy_atomically(unit.object, out)
            written.append(out)
        return written
    output = Path(options.output or "a.out")
    toolchain.link(units, options, output)
    return [output]


def cached_program(options: Options, warn: Warn) -> Path:
    """The executable ``options`` describe, built once and kept in the cache: every
    source preprocessed, compiled unless its object is cached, linked unless the
    program is.  The manifest written then lets :func:`hipkit.cc.manifest.lookup`
    find the program without a compiler.

    Raises
    ------
    CompileError
        Where the build fails, or the program cannot run on this machine.
    """
    started = time.time_ns()
    toolchain = select(options)
    units = _compile_all(toolchain, options, warn)
    key = toolchain.program_key(units, options)
    entry = _cache.entry("programs", key, lambda tmp: toolchain.link(units, options, tmp / "program"))
    toolchain.check_runnable(entry / "program")  # and so never found by the manifest if not
    manifest.record(options, toolchain, units, entry / "program", started)
    return entry / "program"
