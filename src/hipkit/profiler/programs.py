"""What ``hipkit prof`` reads back from the processes it ran traced.

Every traced process leaves its records in the run's spool directory
(``HIPKIT_PROF_DIR``): a Python process as a spool (``<pid>.spool``), a C++
program as its native trace file (``<pid>.native.tsv``, :mod:`._native`), which
is turned into a spool first.  :func:`read_traces` gives each process's trace;
:func:`write_timeline` puts several in one Chrome/Perfetto timeline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from . import _export, _native
from ._domains import Domains
from ._spool import Spool
from .trace import Trace, from_file

__all__ = ["read_traces", "write_timeline"]


def read_traces(
    spool_dir: Path, domains: Domains, kernel_names: str, warn: Callable[[str], None]
) -> list[tuple[int, Trace]]:
    """Each traced process's pid and trace, in the order they were last written;
    ``kernel_names`` as :func:`~.trace.from_file` takes it.  A native trace that
    cannot be read is left out, and ``warn`` is told why."""
    files = [*spool_dir.glob("*.spool"), *spool_dir.glob(f"*{_native.SUFFIX}")]
    traces = []
    for path in sorted(files, key=lambda p: p.stat().st_mtime):
        if path.name.endswith(_native.SUFFIX):
            pid = int(path.name[: -len(_native.SUFFIX)])
            spool = Spool(spool_dir / "native" / f"{pid}.spool")
            try:
                _native.convert(path, spool, domains)
            except _native.NativeTraceError as exc:
                warn(f"pid {pid}: its trace cannot be read: {exc}")
                continue
            path = spool_dir / "native" / f"{pid}.spool"
        else:
            pid = int(path.stem)
        traces.append((pid, from_file(path, kernel_names)))
    return traces


def write_timeline(traces: Sequence[Trace], path: Path) -> None:
    """Several processes' traces in one Chrome trace-event JSON file, on one time
    line, each process with its own host and device tracks (written atomically)."""
    _export.write_chrome_trace(list(traces), path)
