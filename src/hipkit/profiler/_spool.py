"""Where a profile's records wait: lists in memory, moved to a file in chunks.

Memory stays bounded however long the program runs: once the lists hold
:data:`CHUNK_ROWS` rows they are pickled to the spool file and emptied.  The
file is a sequence of pickled ``{domain: [row, ...]}`` chunks, readable while it
grows and after the writing process died (all but the chunk in memory then).
Rows are plain tuples (cheap to make on the hot path); ``records.py`` gives
them their types when read.  Launches described by a platform's records come
in batches and are kept as columns (:class:`Block`), which ``trace.py`` turns
into rows when read: no Python object per launch while the program runs.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

CHUNK_ROWS = 50_000

# The domains, in the order their rows are kept.  "launch_kernel" and
# "launch_api": blocks of the kernels and API calls of the launches a platform
# described in its records (_activity.py), which Trace merges into "kernel" (by
# dispatch id) and "api" (by start) when read.
DOMAINS = (
    "kernel",
    "copy",
    "api",
    "launch_kernel",
    "launch_api",
    "marker",
    "alloc",
    "device",
    "thread",
    "meta",
)

# Each domain's rows (tuples: cheap to make on the hot path); host_start: when the host asked for the work.
#   kernel: (dispatch_id, correlation_id, thread_id, device, stream, name, grid, block,
#            dynamic_shared, static_shared, host_start, start, end)
#   copy:   (correlation_id, thread_id, device, stream, kind, bytes, src, dst, host_start, start, end)
#   api:    (correlation_id, thread_id, function, start, end)
#   marker: (correlation_id, thread_id, message, kind, depth, start, end)
#   alloc:  (correlation_id, thread_id, operation, memory, device, size, address, start, end)
#   device: (device, description);  thread: (thread_id, name);  meta: (key, value)
# meta keys: pid, started_ns, ended_ns, domains; device_timestamps (per platform: their
# source, "platform" or "events", entries given host times, records matching no call);
# module_unloads_by_finalizer (modules the garbage collector unloaded: no API call).


class Block(NamedTuple):
    """Rows of a domain as the columns of a NumPy structured array, and the
    strings its ``name`` and ``device`` columns index."""

    rows: np.ndarray
    names: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()


class Spool:
    """Rows of each domain: ``spool.rows[domain].append(row)`` from any thread;
    :meth:`flush` moves them to ``path`` (None: never, they stay in memory)."""

    def __init__(self, path: Path | None):
        self.path = path
        self.rows: dict[str, list[Any]] = {domain: [] for domain in DOMAINS}
        self._block_rows = 0  # rows in the blocks in memory
        self._lock = threading.RLock()
        self._writing = False
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"")

    def disown(self) -> None:
        """Leave the file and the rows to their owner (a forked child's copy)."""
        self.path = None
        for rows in self.rows.values():
            rows.clear()
        self._block_rows = 0

    def add_block(self, domain: str, block: Block) -> None:
        self.rows[domain].append(block)
        self._block_rows += len(block.rows)

    def pending(self) -> int:
        """Rows in memory (a block counts its rows)."""
        return sum(len(rows) for rows in self.rows.values()) + self._block_rows

    def maybe_flush(self) -> None:
        if self.path is not None and self.pending() >= CHUNK_ROWS:
            self.flush()

    def flush(self) -> None:
        """Append the rows in memory to the file as one chunk."""
        if self.path is None:
            return
        with self._lock:
            if self._writing:
                return  # a signal handler interrupted this thread's flush: never two chunks in one
            self._writing = True
            try:
                chunk: dict[str, list[Any]] = {}
                self._block_rows = 0  # blocks added meanwhile are counted with the next chunk's
                for domain, rows in self.rows.items():
                    count = len(rows)  # rows appended meanwhile stay for the next chunk
                    if count:
                        chunk[domain] = rows[:count]
                        del rows[:count]
                if chunk:
                    with open(self.path, "ab") as f:
                        pickle.dump(chunk, f, protocol=pickle.HIGHEST_PROTOCOL)
                        f.flush()
                        os.fsync(f.fileno())
            finally:
                self._writing = False

    def read(self, domain: str) -> Iterator[tuple]:
        """Every row of ``domain``: those in the file, then those in memory."""
        if self.path is not None:
            yield from read_file(self.path, domain)
        yield from list(self.rows[domain])


def read_file(path: Path, domain: str) -> Iterator[tuple]:
    """The rows of ``domain`` in a spool file (a truncated last chunk, from a
    process that died while writing it, is ignored)."""
    with open(path, "rb") as f:
        while True:
            try:
                chunk: dict[str, Any] = pickle.load(f)
            except EOFError:
                return
            except (pickle.UnpicklingError, ValueError, AttributeError):
                return  # cut short by a crash
            yield from chunk.get(domain, ())
