"""Building the CPU platform's library providers (hipBLAS on OpenBLAS, :mod:`.blas`;
hipRAND, :mod:`.rand`): C++ libraries compiled with the system C++ compiler into
hipkit's cache (written atomically, as libhipkit_cpu is by :mod:`._lib`), each linking
libhipkit_cpu, whose streams its calls' work runs on (``providers/work.h``)."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from ... import __version__, config
from . import _lib
from .library_build import build_shared

__all__ = ["COMPILE_FLAGS", "SHARED_DIR", "build", "key_parts", "link_flags"]

# What the providers share: their work on the runtime's streams, their API rows.
SHARED_DIR = Path(__file__).parent / "providers"
# Only the libraries' API is exported (their declarations say so).
COMPILE_FLAGS = ("-O2", "-g", "-std=c++17", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden")


def link_flags(library: str) -> tuple[str, ...]:
    """A shared library named ``library``, every symbol resolved when it is built (a
    vendor library without a routine it calls fails here, saying which, rather than
    when a program starts)."""
    return ("-shared", f"-Wl,-soname,{library}", "-Wl,--no-undefined")


def _sources(source_dir: Path) -> list[Path]:
    return sorted(p for d in (source_dir, SHARED_DIR) for p in d.rglob("*") if p.suffix in (".cpp", ".h"))


def key_parts(source_dir: Path, headers: Iterable[Path], library: str) -> list[str | bytes]:
    """What a provider built from ``source_dir`` (and the shared sources, and the
    ``headers`` of other folders it includes) depends on: hipkit's version, the
    runtime, the compiler, the flags and every source."""
    parts: list[str | bytes] = [__version__, _lib.build_key(), _lib.compiler_version()]
    for path in [*_sources(source_dir), *headers]:
        parts += [str(path.relative_to(path.parents[1])), path.read_bytes()]
    return parts + [*COMPILE_FLAGS, *link_flags(library)]


def build(out: Path, library: str, source_dir: Path, flags: list[str], libraries: list[str]) -> None:
    """Compile the ``.cpp`` files of ``source_dir`` and the shared ones with ``flags``
    (besides :data:`COMPILE_FLAGS` and the shared folder's include path) and link them
    into ``out/library`` with libhipkit_cpu (an rpath to it) and ``libraries``."""
    runtime = _lib.lib_dir()
    build_shared(
        out,
        library,
        shlex.split(config.get("HIPKIT_CXX")),
        sorted([*source_dir.glob("*.cpp"), *SHARED_DIR.glob("*.cpp")]),
        [*COMPILE_FLAGS, *flags, f"-I{SHARED_DIR}"],
        link_flags(library),
        [f"-L{runtime}", "-lhipkit_cpu", f"-Wl,-rpath,{runtime}", *libraries],
    )
