"""What the GPU platforms' toolchains share: a vendor's compiler driver (nvcc,
hipcc) run once per source and once to link, with cached objects.

A source is first preprocessed (one side of it: nvcc's ``-E`` gives the device
side, hipcc's ``--cuda-host-only`` the host side), and its object is cached
under the hash of that text, the source file's own bytes (the other side's code
in it), the flags and the compiler's identity: an unchanged file is not compiled
again.  A header that only the other side includes is not in the key: editing
it alone needs the cache cleared (HIPKIT_CACHE_DIR).  The
platform modules say how hipcc's options become their compiler's
(:meth:`GpuToolchain.compile_flags`, :meth:`GpuToolchain.link_flags`).

``hipkit run`` finds these programs by the full path only (no
:mod:`hipkit.cc.manifest` manifest): the preprocessing sees one side of the
source (nvcc's ``-E`` the device side, hipcc's ``--cuda-host-only`` the host
side), so the list of files it read would miss those only the other side reads.
"""

from __future__ import annotations

import functools
import os
import subprocess
from abc import abstractmethod
from pathlib import Path

from ... import _cache
from ..._errors import CompileError
from ..base.options import Options
from ..base.toolchain import Toolchain, Unit, link_atomically

__all__ = ["GpuToolchain", "run_compiler"]


def run_compiler(
    command: list[str], what: str, env: dict[str, str] | None = None, output: bool = False
) -> tuple[bytes, str]:
    """Run a compiler; its stdout and its diagnostics (stderr, and stdout
    unless ``output``: stdout is then the result, the preprocessed text).

    Raises
    ------
    CompileError
        ``what`` failed, with the diagnostics.
    """
    try:
        done = subprocess.run(command, capture_output=True, env=env)
    except OSError as exc:
        raise CompileError(f"{what} failed: cannot run {command[0]}: {exc.strerror}") from None
    log = done.stderr.decode(errors="replace")
    if not output:
        log += done.stdout.decode(errors="replace")
    if done.returncode != 0:
        raise CompileError(f"{what} failed", log)
    return done.stdout, log


class GpuToolchain(Toolchain):
    """A toolchain driving a GPU vendor's compiler (``compiler``)."""

    compiler: str  # the driver's path
    # Before each source: the language (nvcc takes .cpp as plain C++).
    source_language: tuple[str, ...] = ()
    # Preprocessing: the host side only, to stdout.
    preprocess_only: tuple[str, ...] = ("-E",)

    def __init__(self, compiler: str) -> None:
        self.compiler = compiler

    def environment(self) -> dict[str, str] | None:
        """The compiler's environment (None: this process's)."""
        return None

    @abstractmethod
    def compile_flags(self, options: Options) -> list[str]:
        """The compiler's flags for ``options``' compile step (targets included);
        raises OptionError for what this platform cannot do."""

    @abstractmethod
    def link_flags(self, options: Options) -> list[str]:
        """The compiler's flags for ``options``' link step, after the inputs."""

    def target_note(self, options: Options) -> str:
        """What decides the targets besides the flags (for the cache key)."""
        return ""

    def identity(self) -> str:
        """The compiler, as the cache knows it: its path and full --version text."""
        return _identity(self.compiler, tuple(sorted((self.environment() or {}).items())))

    def compile(self, source: str, options: Options) -> Unit:
        if not os.path.isfile(source):
            raise CompileError(f"{source}: no such file")
        flags = self.compile_flags(options)
        env = self.environment()
        what = f"compiling {source}"
        text, _ = run_compiler(
            [self.compiler, *flags, *self.preprocess_only, *self.source_language, source],
            what,
            env,
            output=True,
        )
        # The preprocessed text is one side's; the source's own bytes cover the other side's
        # code in the file itself (headers that only the other side includes are not covered).
        own = Path(source).read_bytes()
        parts: list[str | bytes] = [self.name, self.identity(), self.target_note(options), "\0".join(flags)]
        parts += [text, own]
        key = _cache.digest(parts)

        def build(tmp: Path) -> None:
            _, log = run_compiler(
                [self.compiler, *flags, "-c", *self.source_language, source, "-o", str(tmp / "unit.o")],
                what,
                env,
            )
            (tmp / "log.txt").write_text(log)

        entry = _cache.entry("program-units", key, build)
        return Unit(source, entry / "unit.o", (entry / "log.txt").read_text())

    def link(self, units: list[Unit], options: Options, output: Path) -> None:
        command = [self.compiler, *self.objects(units, options), *self.link_flags(options)]
        link_atomically(command, units, output, f"{self.compiler} not found", self.environment())

    def program_key(self, units: list[Unit], options: Options) -> str:
        parts: list[str | bytes] = [self.name, self.identity(), self.target_note(options)]
        parts += self.link_inputs(units, options)
        parts += self.link_flags(options)
        return _cache.digest(parts)


@functools.cache
def _identity(compiler: str, env: tuple[tuple[str, str], ...]) -> str:
    try:
        done = subprocess.run(
            [compiler, "--version"], capture_output=True, text=True, timeout=60, env=dict(env) or None
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CompileError(f"cannot run {compiler}: {exc}") from None
    return compiler + "\n" + done.stdout
