"""What a profile holds: one record type per domain, and their statistics.

Times are nanoseconds on the host's monotonic clock (``time.perf_counter_ns``);
device work is timed by the platform (its own records: the CPU runtime's,
CUPTI's; else events recorded around it) on that clock, so kernels, copies,
API calls and markers share one time line.
Each record's ``as_dict()`` gives a row for ``pandas.DataFrame``.

Example
-------
>>> with hipkit.profile() as p:
...     kernel[grid, block](a, b, c, n)
>>> p.kernels[0].name, p.kernels[0].duration_ns
('vectorAdd', 8512)
>>> pandas.DataFrame(k.as_dict() for k in p.kernels)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

# The rows of stats(): rocprofv3's *_stats.csv columns.
STATS_COLUMNS = ("Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDev")


class _Record:
    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        """The record as a dict (one row of a DataFrame), with its duration."""
        row = asdict(self)  # type: ignore[call-overload]
        row["duration_ns"] = self.duration_ns
        return row

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class KernelDispatch(_Record):
    """One kernel launch: where it ran, its configuration and its device time."""

    name: str
    device: str  # "cpu:0", "nvidia:1": platform and hipkit device index
    stream: int  # 0: the null stream; others numbered by first use, per device
    grid: tuple[int, int, int]  # blocks
    block: tuple[int, int, int]  # threads per block
    dynamic_shared: int  # bytes
    start_ns: int
    end_ns: int
    correlation_id: int  # the API call that launched it
    thread_id: int  # the host thread that launched it
    dispatch_id: int


@dataclass(frozen=True, slots=True)
class MemoryCopy(_Record):
    """A copy (``kind`` HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE,
    HOST_TO_HOST, DEFAULT) or a memset (``kind`` MEMSET), timed on the device."""

    kind: str
    bytes: int
    device: str  # the device whose stream ran it
    src_device: str  # "host" or a device
    dst_device: str
    stream: int
    start_ns: int
    end_ns: int
    correlation_id: int
    thread_id: int

    @property
    def bandwidth(self) -> float:
        """Bytes per second (0 for an instantaneous record)."""
        duration = self.end_ns - self.start_ns
        return self.bytes * 1e9 / duration if duration > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        row = _Record.as_dict(self)
        row["bandwidth"] = self.bandwidth
        return row


@dataclass(frozen=True, slots=True)
class ApiCall(_Record):
    """One HIP runtime call, by HIP's name: a ``hipkit.hip`` function, or the HIP
    call a Python API call amounts to (``kernel[g, b](...)`` is hipModuleLaunchKernel)."""

    function: str
    thread_id: int
    start_ns: int
    end_ns: int
    correlation_id: int


@dataclass(frozen=True, slots=True)
class Marker(_Record):
    """``hipkit.mark(message)`` (``kind`` "mark", no duration) or a
    ``hipkit.range(message)`` (``kind`` "range"); ``depth`` counts the ranges
    around it on its thread."""

    message: str
    kind: str
    thread_id: int
    start_ns: int
    end_ns: int
    depth: int
    correlation_id: int


@dataclass(frozen=True, slots=True)
class MemoryAllocation(_Record):
    """hipMalloc/hipFree (``memory`` "device") and hipHostMalloc/hipHostFree
    (``memory`` "host"): ``operation`` ALLOCATE or FREE."""

    operation: str
    memory: str
    device: str
    size: int  # bytes; for a free, the size allocated when known, else 0
    address: int
    start_ns: int
    end_ns: int
    correlation_id: int
    thread_id: int


@dataclass(frozen=True)
class Stat:
    """One row of :func:`stats` (rocprofv3's kernel_stats.csv columns)."""

    Name: str  # rocprofv3's column names
    Calls: int
    TotalDurationNs: int
    AverageNs: float
    Percentage: float
    MinNs: int
    MaxNs: int
    StdDev: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def stats(named_durations: Iterable[tuple[str, int]]) -> list[Stat]:
    """Per name: calls, total, average, share of the total, min, max and sample
    standard deviation of the durations; sorted by total time, largest first."""
    groups: dict[str, list[int]] = {}
    for name, duration in named_durations:
        groups.setdefault(name, []).append(duration)
    grand_total = sum(sum(d) for d in groups.values())
    rows = []
    for name, durations in groups.items():
        total, count = sum(durations), len(durations)
        mean = total / count
        variance = sum((d - mean) ** 2 for d in durations) / (count - 1) if count > 1 else 0.0
        rows.append(
            Stat(
                Name=name,
                Calls=count,
                TotalDurationNs=total,
                AverageNs=mean,
                Percentage=100.0 * total / grand_total if grand_total else 0.0,
                MinNs=min(durations),
                MaxNs=max(durations),
                StdDev=math.sqrt(variance),
            )
        )
    rows.sort(key=lambda row: (-row.TotalDurationNs, row.Name))
    return rows


def busy_ns(intervals: Iterable[tuple[int, int]]) -> int:
    """The length of the union of ``(start, end)`` intervals: the time a device was
    busy, where overlapping kernels (several streams) count once."""
    total = 0
    current_start = current_end = None
    for start, end in sorted(intervals):
        if current_end is None or start > current_end:
            if current_end is not None:
                total += current_end - current_start  # type: ignore[operator]
            current_start, current_end = start, end
        elif end > current_end:
            current_end = end
    if current_end is not None:
        total += current_end - current_start  # type: ignore[operator]
    return total
