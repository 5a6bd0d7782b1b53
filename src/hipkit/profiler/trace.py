"""A recorded trace: its records by domain, statistics, and the files it saves.

:class:`Trace` reads a spool (``_spool.py``), in memory or on disk, so the same
object serves ``hipkit.profile()`` in a notebook and ``hipkit prof`` reading
what a profiled program left, even one that crashed.
"""

from __future__ import annotations

import functools
import heapq
import itertools
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from pathlib import Path
from typing import Any

from . import _export, _names
from ._spool import Block, read_file
from .records import (
    ApiCall,
    KernelDispatch,
    Marker,
    MemoryAllocation,
    MemoryCopy,
    Stat,
    busy_ns,
    stats,
)

_START = itemgetter(3)  # of an API row
_DISPATCH = itemgetter(0)  # of a kernel row

# The names stats() groups by, per domain (rocprofv3's *_stats.csv).
STATS_DOMAINS = ("kernel", "api", "copy", "marker", "alloc")


class StatsTable(list):
    """:meth:`Trace.stats`' rows (:class:`~.records.Stat`), largest total first,
    with ``busy_ns``: per device, the time its kernels kept it busy (the union of
    their intervals, so overlapping kernels count once)."""

    def __init__(self, rows: Iterable[Stat], trace: Trace):
        super().__init__(rows)
        self._trace = trace

    @functools.cached_property
    def busy_ns(self) -> dict[str, int]:
        return self._trace.busy_ns()

    def __str__(self) -> str:
        return _export.stats_text(self, self.busy_ns)


class Trace:
    """The records of a profile.  ``rows(domain)`` gives the rows, kernel names
    shown as ``kernel_names`` says: "demangled" (the default), "mangled" (as
    compiled) or "truncated" (the bare function name), as rocprofv3 shows them."""

    def __init__(self, rows: Callable[[str], Iterable[tuple]], kernel_names: str = "demangled"):
        self._rows = rows
        self._kernel_name = _names.namer(kernel_names)

    def _resolved(self) -> None:
        """Hook for a live profile: make every record final before reading."""

    # ------------------------------------------------------------------ records

    def rows(self, domain: str) -> Iterator[tuple]:
        self._resolved()
        rows = iter(self._rows(domain))
        if domain == "api":  # each stream in the order of the calls' starts
            rows = heapq.merge(rows, _launch_api_rows(self._rows("launch_api")), key=_START)
        elif domain == "kernel":  # each stream in dispatch order
            rows = heapq.merge(rows, _launch_kernel_rows(self._rows("launch_kernel")), key=_DISPATCH)
        if domain != "kernel" or self._kernel_name is str:
            return rows
        name = self._kernel_name
        return ((*r[:5], name(r[5]), *r[6:]) for r in rows)

    def iter_kernels(self) -> Iterator[KernelDispatch]:
        for r in self.rows("kernel"):
            yield KernelDispatch(r[5], r[3], r[4], r[6], r[7], r[8], r[11], r[12], r[1], r[2], r[0])

    def iter_copies(self) -> Iterator[MemoryCopy]:
        for r in self.rows("copy"):
            yield MemoryCopy(r[4], r[5], r[2], r[6], r[7], r[3], r[9], r[10], r[0], r[1])

    def iter_api_calls(self) -> Iterator[ApiCall]:
        for r in self.rows("api"):
            yield ApiCall(r[2], r[1], r[3], r[4], r[0])

    def iter_markers(self) -> Iterator[Marker]:
        for r in self.rows("marker"):
            yield Marker(r[2], r[3], r[1], r[5], r[6], r[4], r[0])

    def iter_allocations(self) -> Iterator[MemoryAllocation]:
        for r in self.rows("alloc"):
            yield MemoryAllocation(r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[0], r[1])

    @property
    def kernels(self) -> list[KernelDispatch]:
        """Kernel dispatches, per device in launch order."""
        return list(self.iter_kernels())

    @property
    def copies(self) -> list[MemoryCopy]:
        """Memory copies and memsets."""
        return list(self.iter_copies())

    @property
    def api_calls(self) -> list[ApiCall]:
        """HIP API calls (the outermost of each thread: hipStreamCreate, not the
        hipStreamCreateWithFlags it calls)."""
        return list(self.iter_api_calls())

    @property
    def markers(self) -> list[Marker]:
        """``hipkit.mark`` and ``hipkit.range`` records (a range when it ends)."""
        return list(self.iter_markers())

    @property
    def allocations(self) -> list[MemoryAllocation]:
        """Allocations and frees of device and pinned host memory."""
        return list(self.iter_allocations())

    @property
    def devices(self) -> dict[str, str]:
        """The devices that did traced work: name ("cpu:0") -> description."""
        return dict(self.rows("device"))

    @property
    def threads(self) -> dict[int, str]:
        """Host threads seen: native id -> Python thread name."""
        return dict(self.rows("thread"))

    @property
    def meta(self) -> dict[str, Any]:
        """The process id, start and end times and domains of the profile; where device times
        came from per platform (``device_timestamps``) and modules the garbage collector
        unloaded during it (``module_unloads_by_finalizer``)."""
        return dict(self.rows("meta"))

    # ------------------------------------------------------------------ statistics

    def named_durations(self, domain: str) -> Iterator[tuple[str, int]]:
        """(name, duration) of each record of ``domain``, named as its stats row."""
        if domain == "kernel":
            return ((r[5], r[12] - r[11]) for r in self.rows("kernel"))
        if domain == "api":
            return ((r[2], r[4] - r[3]) for r in self.rows("api"))
        if domain == "copy":
            return ((_export.copy_direction(r[4]), r[10] - r[9]) for r in self.rows("copy"))
        if domain == "marker":
            return ((r[2], r[6] - r[5]) for r in self.rows("marker"))
        if domain == "alloc":
            return ((f"MEMORY_ALLOCATION_{r[2]}", r[8] - r[7]) for r in self.rows("alloc"))
        raise ValueError(f"unknown domain {domain!r}; one of {', '.join(STATS_DOMAINS)}")

    def stats(self, domain: str = "kernel") -> StatsTable:
        """rocprofv3's statistics of a domain ("kernel", "api", "copy", "marker",
        "alloc"): per name Calls, TotalDurationNs, AverageNs, Percentage, MinNs,
        MaxNs, StdDev, largest total first; ``.busy_ns`` per device."""
        return StatsTable(stats(self.named_durations(domain)), self)

    def busy_ns(self) -> dict[str, int]:
        """Per device: nanoseconds in which at least one traced kernel ran."""
        intervals: dict[str, list[tuple[int, int]]] = {}
        for r in self.rows("kernel"):
            intervals.setdefault(r[3], []).append((r[11], r[12]))
        return {device: busy_ns(spans) for device, spans in intervals.items()}

    def summary(self, top: int = 10) -> str:
        """The top kernels, API calls and copies as tables, and each device's busy time."""
        return _export.summary_text(self, top)

    # ------------------------------------------------------------------ files

    def save(self, path: str | Path) -> Path:
        """Write the timeline: Perfetto's own format for a ``.pftrace`` file,
        else Chrome trace-event JSON (both open in https://ui.perfetto.dev, the
        JSON in chrome://tracing too): a process for the host and one per
        device, a track per host thread and per stream, arrows from each API
        call to the device work it caused."""
        path = Path(path)
        _export.write_trace(self, path)
        return path

    def save_csv(
        self,
        directory: str | Path,
        prefix: str = "",
        *,
        stats: bool = True,
        domains: Iterable[str] | None = None,
    ) -> list[Path]:
        """Write rocprofv3's CSV files into ``directory``: kernel_trace.csv,
        hip_api_trace.csv, memory_copy_trace.csv, marker_api_trace.csv,
        memory_allocation_trace.csv, and with ``stats`` each domain's *_stats.csv
        (each file named ``{prefix}_{name}`` when a prefix is given).  Domains
        without records write no file.  Returns the files written."""
        return _export.write_csv(self, Path(directory), prefix, stats, set(domains or STATS_DOMAINS))


def _launch_kernel_rows(blocks: Iterable[Any]) -> Iterator[tuple]:
    """The kernel rows (_spool.py's layout) of blocks of launches (_activity.py)."""
    block: Block
    for block in blocks:
        rows = block.rows
        names, devices = block.names, block.devices
        yield from zip(
            rows["dispatch_id"].tolist(),
            rows["correlation_id"].tolist(),
            rows["thread_id"].tolist(),
            [devices[i] for i in rows["device"].tolist()],
            rows["stream"].tolist(),
            [names[i] for i in rows["name"].tolist()],
            map(tuple, rows["grid"].tolist()),
            map(tuple, rows["block"].tolist()),
            *(
                rows[field].tolist()
                for field in ("dynamic_shared", "static_shared", "host_start", "start", "end")
            ),
            strict=True,
        )


def _launch_api_rows(blocks: Iterable[Any]) -> Iterator[tuple]:
    """The API rows of blocks of launch calls (hipModuleLaunchKernel, as the Python API's launches are)."""
    for block in blocks:
        rows = block.rows
        count = len(rows)
        yield from zip(
            rows["correlation_id"].tolist(),
            rows["thread_id"].tolist(),
            itertools.repeat("hipModuleLaunchKernel", count),
            rows["start"].tolist(),
            rows["end"].tolist(),
            strict=True,
        )


def from_file(path: str | Path, kernel_names: str = "demangled") -> Trace:
    """The trace a profiled process spooled to ``path`` (``hipkit prof`` reads it)."""
    return Trace(lambda domain: read_file(Path(path), domain), kernel_names)


__all__ = ["Stat", "StatsTable", "Trace", "from_file"]
