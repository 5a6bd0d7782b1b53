"""The on-disk build cache: content-addressed, atomic, safe across processes.

An entry is a directory named by the hash of everything that determines its
contents (source, options, compiler version, target).  It is built in a
private temporary directory beside it and renamed into place, so a reader
never sees a partial entry; when several processes build the same entry at
once, the first rename wins and the others discard their copy.

Files that are replaced rather than built once (``hipkit run``'s manifests,
:mod:`hipkit.cc.manifest`) are written beside their destination and renamed
over it (:func:`write_file`): a reader sees the old file or the new one.
"""

from __future__ import annotations

import hashlib
import os

from . import config

# hipkit run's cached path reads manifests with this module: no pathlib,
# typing or tempfile until an entry is built (a good part of its time).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path


def digest(parts: Iterable[str | bytes]) -> str:
    """A stable hash of ``parts`` (each length-prefixed, so boundaries count)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:32]


def host_cpu() -> str:
    """The host CPU as cache keys know it, its model and feature flags (the first
    processor's lines of /proc/cpuinfo): code built with ``-march=native`` runs
    only on a CPU like it, and a cache may be shared between machines.  Read up
    to the flags only: on a machine of many cores the whole file is long."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "Features")):
                    cpu += line.rstrip("\n")
                    if line.startswith(("flags", "Features")):
                        break
    except OSError:
        pass
    return cpu


_compiler_versions: dict[tuple[str, ...], str] = {}


def compiler_version(compiler: tuple[str, ...]) -> str:
    """``--version`` of the compiler command ``compiler``, once per process: a
    build's key holds it, so that a new compiler builds anew.  Raises
    RuntimeError when the compiler does not run."""
    if compiler not in _compiler_versions:
        import shlex
        import subprocess

        try:
            done = subprocess.run([*compiler, "--version"], capture_output=True, text=True)
        except OSError as exc:
            raise RuntimeError(f"cannot run the C++ compiler {shlex.join(compiler)}: {exc}") from None
        if done.returncode != 0:
            raise RuntimeError(f"{shlex.join(compiler)} --version failed:\n{done.stdout}{done.stderr}")
        _compiler_versions[compiler] = done.stdout
    return _compiler_versions[compiler]


def entry(kind: str, key: str, build: Callable[[Path], None]) -> Path:
    """Return the cache directory ``<cache>/<kind>/<key>``, building it if missing.

    ``build(tmpdir)`` writes the entry's files into ``tmpdir``; if it raises,
    nothing is left behind and the exception propagates.
    """
    final = config.cache_dir() / kind / key
    if final.is_dir():
        return final
    import shutil
    import tempfile
    from pathlib import Path

    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=final.parent))
    try:
        build(tmp)
        try:
            os.rename(tmp, final)
        except OSError:
            if not final.is_dir():  # not a lost race: a real failure
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def write_file(path: str, data: bytes) -> None:
    """Write ``path`` whole or not at all: into a new file beside it, renamed over it.
    Of several processes writing it at once, the last rename wins; each leaves a
    whole file.  Raises OSError (nothing is left behind then)."""
    import tempfile

    folder, name = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
