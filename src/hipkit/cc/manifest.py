"""hipkit run's direct lookup: a cached program found without running a compiler.

The full path of ``hipkit run`` (:func:`hipkit.cc.driver.cached_program`)
preprocesses every source to know its key: a compiler process per source, a
few hundred milliseconds, before the program starts.  After a build, a
*manifest* records what the program was made from, under a key computed from
what is known without the preprocessor (the idea of ccache's direct mode):

- the key (:func:`key`): the manifest format, hipkit's version and location,
  the Python running it (a CPU program's hiprtc runs that Python and that
  hipkit, recorded in the program when it is built), the platform, the
  working directory, the command line as parsed (sources as given, every
  option), the environment variables that change a build (:data:`ENVIRONMENT`)
  and the host CPU (CPU programs are built with ``-march=native``);
- the manifest: every file the build read, with its size, times, inode and
  content hash: each source and every header it included, as the compiler
  listed them (``-MD``), the objects and libraries given as inputs, the
  compiler's executables and hipkit's own files the build runs or reads (the
  toolchain's ``hipkit_parts``); the directories whose listing
  decides which header an ``#include`` finds, with their times (a header
  created in one of them could be found instead of one the build read); the
  files whose creation would shadow a header from the directory of the source
  that includes it; the files of the cache the program needs (CPU programs:
  libhipkit_cpu.so); and the program.

:func:`lookup` stats those files, hashes again only those whose size, times or
inode changed, and gives the program when everything is as recorded.  Any
doubt is the full path: no manifest, an unreadable, cut or foreign one, a file
changed or gone, a directory changed, a shadowing file, a missing program; a
GPU driver here and no ``--platform`` or ``HIPKIT_PLATFORM`` (the default
platform would depend on the compilers installed); a platform whose toolchain
cannot list what its builds read (the GPU platforms: nvcc's ``-E`` sees the
device side only, hipcc's the host side only).

:func:`record` writes a manifest only when it is certain: not when a file the
build read, or a directory it searched, changed less than :data:`MARGIN_NS`
before the build began or since (what is hashed afterwards might not be what
was compiled; file systems may keep times in whole seconds, or two), nor when
a source or header uses ``__DATE__``, ``__TIME__`` or ``__TIMESTAMP__`` (no
two builds are the same).  A manifest is replaced whole (written beside it,
renamed over it): concurrent runs each write a whole one, a reader sees one,
and its last line, a hash of the others, shows it is complete.
"""

from __future__ import annotations

import os
import stat
import sys

from .. import __version__, _cache, config, platforms
from ..platforms.base.options import Options, is_source

# Neither typing nor pathlib is imported: each would be a good part of the
# time a cached hipkit run takes.  Paths are strings here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..platforms.base.toolchain import Toolchain, Unit

__all__ = ["ENVIRONMENT", "MARGIN_NS", "key", "lookup", "manifest_path", "record"]

FORMAT = "hipkit-run-manifest 1"
# The lines after FORMAT, each "kind<TAB>fields", the path last:
#   program PATH                  the program in the cache
#   needs PATH                    a file of the cache it needs to start
#   file SIGNATURE DIGEST PATH    a file read (_signature, _cache.digest of it)
#   dir TIMES PATH                a directory searched (_times, or "-": none)
#   absent PATH                   a file that would shadow a header
# and last "end DIGEST", the digest of the lines before.
# Files and directories changed this long before a build began, or later, are
# "too new": the manifest is not written (see the module's docstring).
MARGIN_NS = 2_000_000_000
# Environment variables that change what a build makes, part of the key with
# the platform's own (Faces.build_variables).
ENVIRONMENT = (
    "HIPKIT_PLATFORM",
    "HIPKIT_SANITIZE",  # a CPU program's kernels built with the sanitizer's probes
    # The compiler's: where it finds its programs (PATH, COMPILER_PATH,
    # GCC_EXEC_PREFIX), headers and libraries; the source's character set
    # (the locale's); __DATE__ for reproducible builds.
    "PATH",
    "COMPILER_PATH",
    "GCC_EXEC_PREFIX",
    "CPATH",
    "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH",
    "LIBRARY_PATH",
    "LC_ALL",
    "LC_CTYPE",
    "LANG",
    "SOURCE_DATE_EPOCH",
)
_TIME_MACROS = (b"__DATE__", b"__TIME__", b"__TIMESTAMP__")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # hipkit's folder
_GONE = (FileNotFoundError, NotADirectoryError)


def _platform(options: Options) -> str | None:
    """The platform the build is for, when it is certain without asking the
    toolchains (which imports them): ``--platform``, HIPKIT_PLATFORM, else the
    last platform that builds programs (the CPU) where no earlier one's probe
    (its driver's device files) says it may have a device here.  Raises
    ValueError for a bad HIPKIT_PLATFORM."""
    if options.platform:
        return options.platform
    forced = platforms.forced()
    if forced:
        return forced
    builders = platforms.having("toolchain")
    if any(platforms.faces(name).probe() for name in builders[:-1]):
        return None
    return builders[-1]


def key(options: Options) -> str | None:
    """The key of ``options``' manifest; None when the platform is not certain.
    Raises ValueError for a bad HIPKIT_PLATFORM."""
    platform = _platform(options)
    if platform is None:
        return None
    parts = [FORMAT, __version__, _PACKAGE, sys.executable, platform, os.getcwd()]
    parts += ["\0".join(options.inputs), "\0".join(options.compile_flags), "\0".join(options.link_flags)]
    parts += ["\0".join(options.offload_archs), "\0".join(options.ignored)]
    variables = (*ENVIRONMENT, *platforms.faces(platform).build_variables)
    parts += [name if name not in os.environ else f"{name}={os.environ[name]}" for name in variables]
    parts.append(_cache.host_cpu())
    return _cache.digest(parts)


def manifest_path(key: str) -> str:
    """Where the manifest of ``key`` is kept."""
    return os.path.join(config.cache_path(), "run-manifests", key)


def _signature(st: os.stat_result) -> str:
    """What changes when a file is written, replaced or touched: size,
    modification and change times, inode (the change time cannot be set back:
    utime sets it to now).  Compared as text, the manifest's."""
    return f"{st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino}"


def _times(st: os.stat_result) -> str:
    """A directory's modification and change times (an entry added or removed)."""
    return f"{st.st_mtime_ns} {st.st_ctime_ns}"


def _file_line(path: str, st: os.stat_result, data: bytes) -> str:
    return f"file\t{_signature(st)}\t{_cache.digest([data])}\t{path}"


def _sealed(lines: list[str]) -> bytes:
    """The manifest's bytes: its lines, then one with their hash (a cut file lacks
    it).  Paths are the file system's bytes (os.fsencode's)."""
    body = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
    return body + f"end\t{_cache.digest([body])}\n".encode()


def _unsealed(data: bytes) -> list[str] | None:
    """The lines of a whole manifest of this format; None for anything else."""
    body, _, last = data[:-1].rpartition(b"\n")
    body += b"\n"
    if not data.endswith(b"\n") or last != f"end\t{_cache.digest([body])}".encode():
        return None
    lines = body.decode("utf-8", "surrogateescape").splitlines()
    return lines if lines and lines[0] == FORMAT else None


def lookup(options: Options) -> str | None:
    """The program ``options`` describe, from its manifest, when every file it was
    made from is as recorded; None otherwise (then the full path decides)."""
    try:
        manifest_key = key(options)
        if manifest_key is None:
            return None
        path = manifest_path(manifest_key)
        with open(path, "rb") as f:
            lines = _unsealed(f.read())
        if lines is None:
            return None
        return _check(lines, path)
    except (OSError, ValueError):
        return None


def _check(lines: list[str], path: str) -> str | None:
    """The program of a manifest's ``lines`` if everything is as they record.
    Files found with new times but the same content are recorded anew (once)."""
    program: str | None = None
    renewed: list[str] = []
    changed = False
    for line in lines[1:]:
        kind, _, rest = line.partition("\t")
        if kind == "file":
            signature, digest, name = rest.split("\t", 2)
            st = os.stat(name)
            if _signature(st) != signature:
                if str(st.st_size) != signature.partition(" ")[0]:
                    return None
                with open(name, "rb") as f:
                    data = f.read()
                if _cache.digest([data]) != digest:
                    return None
                line = _file_line(name, st, data)
                changed = True
        elif kind == "dir":
            times, _, name = rest.partition("\t")
            try:
                if _times(os.stat(name)) != times:
                    return None
            except _GONE:
                if times != "-":
                    return None
        elif kind == "absent":
            if os.path.lexists(rest):
                return None
        elif kind == "needs":
            if not os.path.isfile(rest):
                return None
        elif kind == "program":
            program = rest
        else:
            return None
        renewed.append(line)
    if program is None or not os.access(program, os.X_OK):
        return None
    if changed:
        _renew(lines[0], renewed, path)
    return program


def _renew(first: str, lines: list[str], path: str) -> None:
    """Write a manifest again with the files' new times, unless some are too new
    to be trusted next time (then each run hashes those files again)."""
    import time

    limit = time.time_ns() - MARGIN_NS
    for line in lines:
        if line.startswith("file\t"):
            _, mtime, ctime, _ = line.split("\t", 2)[1].split(" ")
            if max(int(mtime), int(ctime)) >= limit:
                return
    try:
        _cache.write_file(path, _sealed([first, *lines]))
    except OSError:
        pass


def record(
    options: Options, toolchain: Toolchain, units: Sequence[Unit], program: Path, started_ns: int
) -> bool:
    """After a full build that began at ``started_ns`` (time.time_ns()), write the
    manifest that lets :func:`lookup` find ``program``; whether it was written."""
    try:
        manifest_key = key(options)
    except ValueError:
        return False
    if manifest_key is None or _platform(options) != toolchain.name or not toolchain.direct_mode(options):
        return False
    if not units or not all(unit.dependencies for unit in units):
        return False
    try:
        lines = _describe(options, toolchain, units, program, started_ns - MARGIN_NS)
        if lines is None:
            return False
        _cache.write_file(manifest_path(manifest_key), _sealed(lines))
    except (OSError, ValueError):  # a file gone meanwhile, a cache not writable: no manifest
        return False
    return True


def _describe(
    options: Options, toolchain: Toolchain, units: Sequence[Unit], program: Path, limit: int
) -> list[str] | None:
    """The manifest's lines; None when some file or directory is too new (changed
    after ``limit``), a source uses a time macro, or a path cannot be written."""
    dependencies = dict.fromkeys(dep for unit in units for dep in unit.dependencies)
    search = toolchain.search_dirs(options)
    if not search:
        return None
    cwd = os.getcwd()
    inputs = [os.path.join(cwd, i) for i in options.inputs if not is_source(i)]
    identity = toolchain.identity_files()
    if not identity:  # the compiler could not be found as a file: it could change unseen
        return None
    package_files, package_dirs = _package(toolchain.hipkit_parts)
    files = dict.fromkeys([*dependencies, *inputs, *identity, *package_files])
    dirs, absent = _shadowing(list(dependencies), search)
    dirs.update(package_dirs)
    needs = [os.path.abspath(p) for p in [program, *toolchain.run_time_files()]]
    if any(c in name for name in [*needs, *files, *dirs, *absent] for c in "\t\n\r"):
        return None  # a path with a tab or a line break: not worth a format
    lines = [FORMAT, f"program\t{needs[0]}", *(f"needs\t{name}" for name in needs[1:])]
    for name in files:
        st = os.stat(name)
        if max(st.st_mtime_ns, st.st_ctime_ns) >= limit:
            return None
        with open(name, "rb") as f:
            data = f.read()
        if name in dependencies and any(macro in data for macro in _TIME_MACROS):
            return None
        lines.append(_file_line(name, st, data))
    for name in sorted(dirs):
        try:
            st = os.stat(name)
        except _GONE:
            lines.append(f"dir\t-\t{name}")
            continue
        if not stat.S_ISDIR(st.st_mode):
            return None
        if max(st.st_mtime_ns, st.st_ctime_ns) >= limit:
            return None
        lines.append(f"dir\t{_times(st)}\t{name}")
    lines += [f"absent\t{name}" for name in sorted(absent) if not os.path.lexists(name)]
    return lines


def _package(parts: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """hipkit's own files that a build runs or reads (``parts``: files and
    folders of the package, the toolchain's hipkit_parts) and the folders
    among them (a file added to one could be read), byte code left out."""
    files, dirs = [], []
    for part in parts:
        path = os.path.join(_PACKAGE, part)
        if not os.path.isdir(path):
            files.append(path)
            continue
        for folder, subfolders, names in os.walk(path):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            dirs.append(folder)
            files += [os.path.join(folder, n) for n in sorted(names) if not n.endswith((".pyc", ".pyo"))]
    return files, dirs


def _shadowing(dependencies: list[str], search: list[str]) -> tuple[set[str], set[str]]:
    """Where a header created after the build could be found instead of one it
    read: (directories, files).

    A header found in a directory of the search path as ``sub/name.h`` would be
    shadowed by one created in ``sub/`` of an earlier directory of the path:
    those directories' listings (times) are recorded, for every directory of the
    path.  ``#include "..."`` first searches the including file's directory;
    for the directories of the sources and headers outside the search path, the
    files that would shadow a header of the path are recorded as absent."""
    bases = list(dict.fromkeys(os.path.normpath(s) for s in search))
    dirs = set(bases)
    relatives: set[str] = set()
    includers: set[str] = set()
    for dep in dependencies:
        path = os.path.normpath(dep)
        found = [path[len(base) :].lstrip("/") for base in bases if path.startswith(base.rstrip("/") + "/")]
        if found:
            relatives.update(found)
        else:
            includers.add(os.path.dirname(path))
    for relative in relatives:
        sub = os.path.dirname(relative)
        dirs.update(os.path.normpath(os.path.join(base, sub)) for base in bases)
    absent = {os.path.join(folder, relative) for folder in includers for relative in relatives}
    return dirs, absent
