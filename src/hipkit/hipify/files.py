"""hipify for files and trees: reading, atomic writing, output names, parallel runs.

Files are read and written as bytes decoded with UTF-8 and ``surrogateescape``, and
without newline translation, so any file (Latin-1 comments, CRLF lines) comes back
byte for byte where nothing is translated.  Outputs are written atomically: a temporary
file beside the target, then ``os.replace``; on any error the target is untouched.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..cxx.lexer import LexError
from .report import Diagnostic, Stats
from .translator import Options, translate

__all__ = ["SOURCE_SUFFIXES", "FileResult", "translate_file", "translate_files", "output_path", "sources"]

# The files a tree is searched for, as HIPIFY's findcode scripts do (any letter case).
SOURCE_SUFFIXES = frozenset(".cu .cuh .c .cc .cpp .cxx .h .hh .hpp .hxx .inc .inl .hdl".split())
# --rename-ext: CUDA sources become .hip (hipcc's HIP source suffix).  Headers keep their
# names, so that the #include lines naming them stay right.
RENAMED_SUFFIXES = {".cu": ".hip"}
_PARALLEL_FROM = 4  # files; below this a process pool costs more than it saves


@dataclass
class FileResult:
    """One file's translation: where it went, its statistics and diagnostics, or the
    error that stopped it (``error``, as ``path: message``)."""

    source: str
    output: str | None = None  # the file written; None when ``text`` holds the result
    text: str | None = None
    stats: Stats = field(default_factory=Stats)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str | None = None


def read_source(path: Path) -> str:
    """A source file's text, every byte kept (see the module docstring)."""
    return path.read_bytes().decode("utf-8", "surrogateescape")


def write_atomic(path: Path, text: str, mode_of: Path | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``.

    The new file gets the permission bits of ``mode_of`` (or of the file it replaces).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8", "surrogateescape"))
        reference = mode_of if mode_of is not None else path
        if reference.exists():
            os.chmod(tmp, reference.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def translate_file(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    options: Options | None = None,
) -> FileResult:
    """Translate the file ``source``; write the result to ``output`` (which may be
    ``source`` itself: in place), or return it in ``FileResult.text`` when ``output`` is
    None.  Input errors (missing, unreadable, unterminated comment) are returned in
    ``FileResult.error``, never raised.  An unchanged file rewritten in place is not
    touched."""
    src = Path(source)
    result = FileResult(str(src))
    try:
        text = read_source(src)
    except IsADirectoryError:
        result.error = f"{src}: is a directory"
        return result
    except OSError as e:
        result.error = f"{src}: {e.strerror or e}"
        return result
    try:
        translated = translate(text, filename=str(src), options=options)
    except LexError as e:
        result.error = f"{src}:{e}"
        return result
    result.stats, result.diagnostics = translated.stats, translated.diagnostics
    if output is None:
        result.text = translated.text
        return result
    out = Path(output)
    result.output = str(out)
    if translated.text == text and out.exists() and out.samefile(src):
        return result
    try:
        write_atomic(out, translated.text, mode_of=src)
    except OSError as e:
        result.error = f"{out}: cannot write: {e.strerror or e}"
    return result


def _translate_job(job: tuple[str, str | None, Options]) -> FileResult:
    return translate_file(job[0], job[1], options=job[2])


def translate_files(
    jobs: Sequence[tuple[str | os.PathLike[str], str | os.PathLike[str] | None]],
    *,
    options: Options | None = None,
    workers: int | None = None,
) -> list[FileResult]:
    """Translate many ``(source, output)`` pairs, in parallel processes when there are
    several; results come back in the order of ``jobs``."""
    work = [(str(src), None if out is None else str(out), options or Options()) for src, out in jobs]
    workers = min(workers or os.cpu_count() or 1, len(work))
    if workers < 2 or len(work) < _PARALLEL_FROM:
        return [_translate_job(job) for job in work]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_translate_job, work, chunksize=max(1, len(work) // (workers * 4))))


def sources(root: Path, exclude: Path | None = None) -> list[Path]:
    """The source files under ``root`` (by suffix, any case), sorted; hidden folders
    (``.git``) and ``exclude`` (an output folder inside the tree) are skipped."""
    found = []
    skip = exclude.resolve() if exclude is not None else None
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and Path(folder, d).resolve() != skip)
        found += [Path(folder, f) for f in sorted(files) if Path(f).suffix.lower() in SOURCE_SUFFIXES]
    return found


def output_path(source: Path, root: Path, output_dir: Path, rename_ext: bool = False) -> Path:
    """Where ``source`` (a file under ``root``) goes under ``output_dir``; with
    ``rename_ext`` a ``.cu`` file becomes ``.hip``.

    >>> output_path(Path("src/a/k.cu"), Path("src"), Path("out"), rename_ext=True).as_posix()
    'out/a/k.hip'
    """
    target = output_dir / source.relative_to(root)
    new_suffix = RENAMED_SUFFIXES.get(target.suffix.lower()) if rename_ext else None
    return target.with_suffix(new_suffix) if new_suffix else target
