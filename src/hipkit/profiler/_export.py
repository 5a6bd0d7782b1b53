"""A trace's files: rocprofv3's CSV files, Chrome trace-event JSON, Perfetto's
own format (``_pftrace.py``), text tables.

The CSV columns and their formatting are rocprofv3's (rocprofiler-sdk,
source/lib/output/generateCSV.cpp, csv.hpp and statistics.cpp): strings quoted,
numbers bare, floats with rocprofv3's precision.  Grid_Size is in work items
(threads), as HSA's dispatch packet and rocprofv3 count it.  hipkit adds one
kind of row: memsets are in memory_copy_trace.csv with Kind and Direction
``MEMORY_SET``.

Each file is written beside its final name and renamed to it once whole, so an
error (a full disk, a spool that cannot be read) leaves no partial file, and a
file of that name from an earlier run as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from . import _pftrace

if TYPE_CHECKING:
    from .records import Stat
    from .trace import Trace

KERNEL_COLUMNS = (
    "Kind",
    "Agent_Id",
    "Queue_Id",
    "Stream_Id",
    "Thread_Id",
    "Dispatch_Id",
    "Kernel_Id",
    "Kernel_Name",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
    "LDS_Block_Size",
    "Scratch_Size",
    "VGPR_Count",
    "Accum_VGPR_Count",
    "SGPR_Count",
    "Workgroup_Size_X",
    "Workgroup_Size_Y",
    "Workgroup_Size_Z",
    "Grid_Size_X",
    "Grid_Size_Y",
    "Grid_Size_Z",
)
API_COLUMNS = (
    "Domain",
    "Function",
    "Process_Id",
    "Thread_Id",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
)
COPY_COLUMNS = (
    "Kind",
    "Direction",
    "Stream_Id",
    "Source_Agent_Id",
    "Destination_Agent_Id",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
)
ALLOCATION_COLUMNS = (
    "Kind",
    "Operation",
    "Agent_Id",
    "Allocation_Size",
    "Address",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
)
STATS_COLUMNS = ("Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDev")

# domain -> (trace file, stats file)
FILES = {
    "kernel": ("kernel_trace.csv", "kernel_stats.csv"),
    "api": ("hip_api_trace.csv", "hip_api_stats.csv"),
    "copy": ("memory_copy_trace.csv", "memory_copy_stats.csv"),
    "marker": ("marker_api_trace.csv", "marker_api_stats.csv"),
    "alloc": ("memory_allocation_trace.csv", "memory_allocation_stats.csv"),
}


class _Str(str):
    """A value written quoted, as rocprofv3 writes strings."""


@contextlib.contextmanager
def atomic_open(path: Path, mode: str = "w") -> Iterator[IO[Any]]:
    """A file that appears at ``path`` only once written whole: written to a
    temporary name in the same directory, renamed over ``path`` when the block
    ends, removed if it raises."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    # os.open, not tempfile: the file gets the umask's permissions, as open() would give it.
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with open(fd, mode, newline="" if "b" not in mode else None) as f:
            yield f
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_trace(trace: Trace, path: Path) -> None:
    """Trace.save: Perfetto's protobuf format for a ``.pftrace`` file, else Chrome's trace-event JSON."""
    if path.suffix.lower() == ".pftrace":
        with atomic_open(path, "wb") as f:
            _pftrace.write(trace, f)
    else:
        write_chrome_trace(trace, path)


def copy_direction(kind: str) -> str:
    """rocprofv3's Direction of a copy kind ("MEMORY_COPY_HOST_TO_DEVICE"); MEMORY_SET for memsets."""
    return "MEMORY_SET" if kind == "MEMSET" else f"MEMORY_COPY_{kind}"


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    return str(value)


def _stats_float(value: float) -> str:
    return f"{value:.6f}" if value > 1e-2 else f"{value:.8e}"


def _percentage(value: float) -> str:
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.4f}" if value > 1e-2 else f"{value:.3e}"


class _Agents:
    """rocprofv3's agent names: "Agent 0" is the host, devices follow in order of use."""

    def __init__(self, trace: Trace):
        self.names = {"host": "Agent 0"}
        for index, device in enumerate(trace.devices, start=1):
            self.names[device] = f"Agent {index}"

    def __getitem__(self, device: str) -> str:
        return self.names.setdefault(device, f"Agent {len(self.names)}")


def write_csv(trace: Trace, directory: Path, prefix: str, with_stats: bool, domains: set[str]) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    agents = _Agents(trace)
    pid = trace.meta.get("pid", os.getpid())
    written = []

    @contextlib.contextmanager
    def open_csv(name: str, columns: Iterable[str]) -> Iterator[IO[str]]:
        path = directory / (f"{prefix}_{name}" if prefix else name)
        with atomic_open(path) as f:
            f.write(",".join(_cell(c) for c in columns) + "\n")
            yield f
        written.append(path)

    def rows_of(domain: str) -> Iterable[tuple]:
        if domain == "kernel":
            kernel_ids: dict[str, int] = {}
            for r in trace.rows("kernel"):
                kernel_id = kernel_ids.setdefault(r[5], len(kernel_ids) + 1)
                grid, block, stream = r[6], r[7], r[4]
                # Queue and stream are one; no scratch or register counts; the grid in threads.
                head = (_Str("KERNEL_DISPATCH"), _Str(agents[r[3]]), stream, stream, r[2], r[0], kernel_id)
                times = (_Str(r[5]), r[1], r[11], r[12], r[8] + r[9], 0, 0, 0, 0)
                yield head + times + block + tuple(g * b for g, b in zip(grid, block, strict=True))
        elif domain == "api":
            for r in trace.rows("api"):
                yield _Str("HIP_RUNTIME_API"), _Str(r[2]), pid, r[1], r[0], r[3], r[4]
        elif domain == "copy":
            for r in trace.rows("copy"):
                kind = "MEMORY_SET" if r[4] == "MEMSET" else "MEMORY_COPY"
                src, dst = _Str(agents[r[6]]), _Str(agents[r[7]])
                yield _Str(kind), _Str(copy_direction(r[4])), r[3], src, dst, r[0], r[9], r[10]
        elif domain == "marker":
            for r in trace.rows("marker"):
                yield _Str("MARKER_CORE_API"), _Str(r[2]), pid, r[1], r[0], r[5], r[6]
        elif domain == "alloc":
            for r in trace.rows("alloc"):
                agent = _Str(agents[r[4]] if r[2] == "ALLOCATE" else "")
                operation = _Str(f"MEMORY_ALLOCATION_{r[2]}")
                yield (
                    _Str("MEMORY_ALLOCATION"),
                    operation,
                    agent,
                    r[5],
                    _Str(f"0x{r[6]:016x}"),
                    r[0],
                    r[7],
                    r[8],
                )

    columns = {"kernel": KERNEL_COLUMNS, "api": API_COLUMNS, "copy": COPY_COLUMNS, "marker": API_COLUMNS}
    columns["alloc"] = ALLOCATION_COLUMNS
    for domain, (trace_file, stats_file) in FILES.items():
        if domain not in domains or next(iter(trace.rows(domain)), None) is None:
            continue
        with open_csv(trace_file, columns[domain]) as f:
            for row in rows_of(domain):
                f.write(",".join(_cell(v) for v in row) + "\n")
        if with_stats:
            with open_csv(stats_file, STATS_COLUMNS) as f:
                for s in trace.stats(domain):
                    cells = (_cell(s.Name), str(s.Calls), str(s.TotalDurationNs), _stats_float(s.AverageNs))
                    rest = (_percentage(s.Percentage), str(s.MinNs), str(s.MaxNs), _stats_float(s.StdDev))
                    f.write(",".join(cells + rest) + "\n")
    return written


# ---------------------------------------------------------------------- Chrome trace events


class _ChromeTrace:
    """Writes trace events one at a time (a trace can be larger than memory)."""

    def __init__(self, f, origin_ns: int):
        self.f, self.origin, self.first, self.flows = f, origin_ns, True, 0
        self.devices = 0  # device processes so far (their pids follow 1,000,000)

    def us(self, ns: int) -> float:
        return round((ns - self.origin) / 1e3, 3)

    def emit(self, event: dict) -> None:
        self.f.write(("" if self.first else ",\n") + json.dumps(event, separators=(",", ":")))
        self.first = False

    def name(self, what: str, pid: int, tid: int, name: str) -> None:
        self.emit({"ph": "M", "name": what, "pid": pid, "tid": tid, "args": {"name": name}})

    def process(self, pid: int, name: str, order: int) -> None:
        self.name("process_name", pid, 0, name)
        self.emit(
            {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": order}}
        )

    def slice(self, cat: str, name: str, pid: int, tid: int, start: int, end: int, args: dict) -> None:
        ts = self.us(start)
        dur = round(self.us(end) - ts, 3)
        self.emit(
            {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}
        )

    def instant(self, cat: str, name: str, pid: int, tid: int, at: int, args: dict) -> None:
        self.emit(
            {
                "ph": "i",
                "s": "t",
                "cat": cat,
                "name": name,
                "pid": pid,
                "tid": tid,
                "ts": self.us(at),
                "args": args,
            }
        )

    def flow(self, name: str, source: tuple[int, int, int], target: tuple[int, int, int]) -> None:
        """An arrow from the slice around ``source`` (pid, tid, time) to the one starting at ``target``.
        The pair is joined by ``id`` alone: ``bind_id`` belongs on slices (the format's
        other kind of flow), and on these events the Chrome trace viewer fails to import."""
        self.flows += 1
        common = {"cat": "flow", "name": name, "id": self.flows}
        pid, tid, at = source
        self.emit({"ph": "s", "pid": pid, "tid": tid, "ts": self.us(at), **common})
        pid, tid, at = target
        self.emit({"ph": "f", "bp": "e", "pid": pid, "tid": tid, "ts": self.us(at), **common})


def write_chrome_trace(trace: Trace | Sequence[Trace], path: Path) -> None:
    """Chrome's trace-event JSON (the object form): a process for the host (a
    track per thread) and one per device (a track per stream).  Several traces
    (the processes of one ``hipkit prof`` run) share the file and its time
    line, each with its own host and device processes."""
    traces = list(trace) if isinstance(trace, Sequence) else [trace]
    with atomic_open(path) as f:
        origin = min(t.meta.get("started_ns", 0) for t in traces)
        other = {"hipkit_origin_ns": origin, "clock": "CLOCK_MONOTONIC (time.perf_counter_ns)"}
        f.write('{"displayTimeUnit":"ns","otherData":' + json.dumps(other) + ',"traceEvents":[\n')
        out = _ChromeTrace(f, origin)
        for order, one in enumerate(traces):
            _chrome_process(out, one, order * 1000, len(traces) > 1)
        f.write("\n]}\n")


def _chrome_process(out: _ChromeTrace, trace: Trace, order: int, several: bool) -> None:
    """One process's events: its host process (named by its pid) and its devices'
    (their pids after 1,000,000, numbered on from those of earlier processes)."""
    meta, devices = trace.meta, trace.devices
    host = meta.get("pid", os.getpid())
    device_pids: dict[str, int] = {}
    streams: set[tuple[str, int]] = set()
    flows = meta.get("domains", {}).get("api", True)  # an arrow needs the API call's slice
    out.process(host, f"Host (pid {host})", order)
    for tid, name in trace.threads.items():
        out.name("thread_name", host, tid, f"{name} ({tid})")

    def track(device: str, stream: int) -> tuple[int, int]:
        """(pid, tid) of a stream's track: tid 1 is the null stream."""
        if device not in device_pids:
            out.devices += 1
            device_pids[device] = pid = 1_000_000 + out.devices
            label = f"Device {devices.get(device, device)}" + (f" (pid {host})" if several else "")
            out.process(pid, label, order + len(device_pids))
        if (device, stream) not in streams:
            streams.add((device, stream))
            label = "Stream 0 (null stream)" if stream == 0 else f"Stream {stream}"
            out.name("thread_name", device_pids[device], stream + 1, label)
        return device_pids[device], stream + 1

    for r in trace.rows("api"):
        out.slice("hip_api", r[2], host, r[1], r[3], r[4], {"correlation_id": r[0]})
    for r in trace.rows("kernel"):
        pid, tid = track(r[3], r[4])
        args = {"grid": r[6], "block": r[7], "dynamic_shared": r[8], "static_shared": r[9]}
        args.update(correlation_id=r[1], dispatch_id=r[0])
        out.slice("kernel", r[5], pid, tid, r[11], r[12], args)
        if flows:
            out.flow("launch", (host, r[2], r[10]), (pid, tid, r[11]))
    for r in trace.rows("copy"):
        pid, tid = track(r[2], r[3])
        seconds = (r[10] - r[9]) / 1e9
        args = {"bytes": r[5], "src": r[6], "dst": r[7], "correlation_id": r[0]}
        args["bandwidth_GBps"] = round(r[5] / seconds / 1e9, 3) if seconds > 0 else 0
        out.slice("memory_copy", copy_direction(r[4]), pid, tid, r[9], r[10], args)
        if flows:
            out.flow("copy", (host, r[1], r[8]), (pid, tid, r[9]))
    for r in trace.rows("marker"):
        if r[3] == "mark":
            out.instant("marker", r[2], host, r[1], r[5], {})
        else:
            out.slice("marker", r[2], host, r[1], r[5], r[6], {"depth": r[4]})
    allocated: dict[str, int] = {}
    for r in trace.rows("alloc"):
        args = {"size": r[5], "address": hex(r[6]), "correlation_id": r[0]}
        out.instant("memory_allocation", f"{r[2].lower()} ({r[3]})", host, r[1], r[7], args)
        total = allocated[r[4]] = allocated.get(r[4], 0) + (r[5] if r[2] == "ALLOCATE" else -r[5])
        counter = {"ph": "C", "name": f"allocated bytes ({r[4]})", "pid": host, "tid": 0}
        out.emit({**counter, "ts": out.us(r[8]), "args": {"bytes": total}})


# ---------------------------------------------------------------------- text


def _table(rows: list[Stat], top: int, title: str) -> list[str]:
    if not rows:
        return []
    width = min(max(len(r.Name) for r in rows[:top]), 60)
    header = f"  {'Name':<{width}}  {'Calls':>7}  {'Total (us)':>12}  {'Avg (us)':>10}  {'%':>6}  "
    lines = [title, header + f"{'Min (us)':>10}  {'Max (us)':>10}"]
    for r in rows[:top]:
        name = r.Name if len(r.Name) <= width else r.Name[: width - 3] + "..."
        lines.append(
            f"  {name:<{width}}  {r.Calls:>7}  {r.TotalDurationNs / 1e3:>12.3f}  {r.AverageNs / 1e3:>10.3f}  "
            f"{r.Percentage:>6.2f}  {r.MinNs / 1e3:>10.3f}  {r.MaxNs / 1e3:>10.3f}"
        )
    if len(rows) > top:
        lines.append(f"  ... and {len(rows) - top} more")
    return lines


def _busy_lines(busy: dict[str, int]) -> list[str]:
    return [
        f"  {device}: busy {ns / 1e3:.3f} us (the union of its kernels' intervals)"
        for device, ns in busy.items()
    ]


def stats_text(rows: list[Stat], busy: dict[str, int]) -> str:
    return "\n".join(_table(rows, len(rows), "")[1:] + _busy_lines(busy))


def summary_text(trace: Trace, top: int) -> str:
    meta = trace.meta
    lines = [f"hipkit prof summary (pid {meta.get('pid', '?')})"]
    span = meta.get("ended_ns", 0) - meta.get("started_ns", 0)
    if span > 0:
        lines.append(f"  profiled: {span / 1e6:.3f} ms")
    lines += _busy_lines(trace.busy_ns())
    for domain, title in (
        ("kernel", "Kernels"),
        ("api", "HIP API calls"),
        ("copy", "Memory copies and sets"),
    ):
        lines += _table(trace.stats(domain), top, title)
    return "\n".join(lines)
