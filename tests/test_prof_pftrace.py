"""Perfetto's own format (``.pftrace``): files hipkit encodes itself, decoded here
with Perfetto's published protos (the ``perfetto`` package's generated code and
the ``protobuf`` library, nothing of hipkit's), then read as Perfetto's trace
processor reads them: interned strings per sequence, events sorted by time, a
stack of open slices per track, flows joined by id.  A known program's trace
must give back its records exactly."""

from __future__ import annotations

import gc
import json
import os
import threading
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import hipkit
from hipkit.profiler import _pftrace
from hipkit.profiler.trace import Trace, from_file

# These tests count the runtime's calls: every array's memory is one malloc and one free.
pytestmark = pytest.mark.usefixtures("memory_uncached")

pb = pytest.importorskip(
    "perfetto.protos.perfetto.trace.perfetto_trace_pb2",
    reason="the perfetto package (Perfetto's trace protos; pip install -e '.[test]') is not installed",
)

SOURCE = r"""
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) C[idx] = A[idx] + B[idx];
}
extern "C" __global__ void empty() {}
"""

MONOTONIC = 3  # BuiltinClock.BUILTIN_CLOCK_MONOTONIC, Perfetto's number
BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4  # TrackEvent.Type


# ------------------------------------------------------------------ reading a .pftrace as Perfetto does


@dataclass
class Slice:
    track: int
    name: str
    category: str
    start: int
    end: int
    depth: int
    parent: Slice | None
    args: dict
    flows_out: list[int]
    flows_in: list[int]


@dataclass
class Decoded:
    packets: list
    tracks: dict = field(default_factory=dict)  # uuid -> TrackDescriptor
    slices: list[Slice] = field(default_factory=list)  # instants included, end == start
    counters: dict = field(default_factory=dict)  # uuid -> [(ts, value)]

    def track_named(self, name: str) -> int:
        (uuid,) = [u for u, t in self.tracks.items() if t.name == name or t.process.process_name == name]
        return uuid


def _arg(annotation, names: dict[int, str]) -> tuple[str, object]:
    name = names[annotation.name_iid] if annotation.name_iid else annotation.name
    kind = annotation.WhichOneof("value")
    if annotation.array_values:
        return name, tuple(_arg(v, names)[1] for v in annotation.array_values)
    return name, getattr(annotation, kind)


def read_pftrace(path: Path) -> Decoded:
    trace = pb.Trace()
    trace.ParseFromString(Path(path).read_bytes())
    decoded = Decoded(list(trace.packet))
    interned: dict[int, dict[str, dict[int, str]]] = {}  # sequence -> table -> iid -> string
    events = []
    for index, packet in enumerate(trace.packet):
        sequence = packet.trusted_packet_sequence_id
        if packet.sequence_flags or packet.HasField("track_event"):
            assert sequence, "interned state and events need a sequence (Perfetto rejects sequence 0)"
        if packet.sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
            interned[sequence] = {"names": {}, "categories": {}, "args": {}}
        if packet.HasField("interned_data"):
            assert packet.sequence_flags & pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE or (
                packet.sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
            )
            tables = interned[sequence]  # a KeyError: interned data before the state was cleared
            data = packet.interned_data
            for table, entries in (
                ("names", data.event_names),
                ("categories", data.event_categories),
                ("args", data.debug_annotation_names),
            ):
                for entry in entries:
                    assert entry.iid not in tables[table], f"{table} {entry.iid} interned twice"
                    tables[table][entry.iid] = entry.name
        if packet.HasField("track_descriptor"):
            descriptor = packet.track_descriptor
            assert descriptor.uuid not in decoded.tracks, "two tracks with one uuid"
            decoded.tracks[descriptor.uuid] = descriptor
        if packet.HasField("track_event"):
            # The trace's clock, so that Perfetto keeps the timestamps as they are.
            assert packet.timestamp_clock_id == MONOTONIC, packet
            assert sequence in interned, "an event before its sequence's state was cleared"
            events.append((packet.timestamp, index, packet.track_event, interned[sequence]))
    # The trace processor sorts by time, a tie kept in file order.
    events.sort(key=lambda e: (e[0], e[1]))
    stacks: dict[int, list[Slice]] = {}
    for ts, _, event, tables in events:
        track = event.track_uuid
        assert track in decoded.tracks, f"event on an undeclared track {track}"
        stack = stacks.setdefault(track, [])
        if event.type == END:
            assert stack, f"a slice ends on track {track} with none open"
            stack.pop().end = ts
            continue
        if event.type == COUNTER:
            assert decoded.tracks[track].HasField("counter")
            decoded.counters.setdefault(track, []).append((ts, event.counter_value))
            continue
        assert event.type in (BEGIN, INSTANT), event
        name = tables["names"][event.name_iid] if event.name_iid else event.name
        (category,) = [tables["categories"][iid] for iid in event.category_iids] or list(event.categories)
        args = dict(_arg(a, tables["args"]) for a in event.debug_annotations)
        parent = stack[-1] if stack else None
        s = Slice(
            track, name, category, ts, ts, len(stack), parent, args, list(event.flow_ids),
            list(event.terminating_flow_ids),
        )  # fmt: skip
        decoded.slices.append(s)
        if event.type == BEGIN:
            stack.append(s)
    assert not any(stacks.values()), "slices never ended"
    return decoded


# ------------------------------------------------------------------ a known program


@pytest.fixture
def module(device) -> hipkit.Module:
    gc.collect()  # earlier tests' modules unloaded now, not inside the profile
    return hipkit.compile(SOURCE)


def run_known_program(module) -> tuple[hipkit.Profile, int, int]:
    n = 1024
    vector_add, empty = module.get_function("vectorAdd"), module.get_function("empty")
    stream = hipkit.Stream()
    before = time.perf_counter_ns()
    with hipkit.profile() as p:
        with hipkit.range("setup"):
            a = hipkit.to_device(np.ones(n, np.float32))
            c = hipkit.zeros(n, np.float32)
        with hipkit.range("compute"):
            vector_add[4, 256](a, a, c, n)
            with hipkit.range("inner"):
                vector_add[(2, 2), (128, 2), 0, stream](a, a, c, n)
                hipkit.mark("launched")
            empty[1, 1]()
        result = c.get(stream=stream)
        stream.synchronize()
        del a
    after = time.perf_counter_ns()
    np.testing.assert_array_equal(result[:10], 2)
    return p, before, after


def expected_device_times(records) -> list[tuple[int, int]]:
    """The writer's rule for a stream's track: a start before the previous end
    (rounding of elapsed times) moves to that end."""
    last: dict[tuple, int] = {}
    times = []
    for r in records:
        where = (r.device, r.stream)
        start = max(r.start_ns, last.get(where, r.start_ns))
        end = last[where] = max(r.end_ns, start)
        times.append((start, end))
    return times


def test_a_known_program_reads_back_exactly(device, module, tmp_path):
    p, before, after = run_known_program(module)
    path = p.save(tmp_path / "trace.pftrace")
    assert path == tmp_path / "trace.pftrace"
    decoded = read_pftrace(path)

    # The clock: the first packet names CLOCK_MONOTONIC the trace's clock.
    snapshot = decoded.packets[0].clock_snapshot
    assert snapshot.primary_trace_clock == MONOTONIC
    assert MONOTONIC in [c.clock_id for c in snapshot.clocks]

    # Tracks: the host process with this thread; a device process with a track per stream and kind.
    tracks = decoded.tracks
    host = decoded.track_named("Host")
    assert tracks[host].process.pid == os.getpid()
    tid = threading.get_native_id()
    (main,) = [u for u, t in tracks.items() if t.HasField("thread") and t.thread.tid == tid]
    assert tracks[main].thread.pid == os.getpid() and tracks[main].thread.thread_name == "MainThread"
    name = f"{device.platform.name}:{device.index}"
    (gpu,) = [u for u, t in tracks.items() if t.process.process_name.startswith(f"Device {name}")]
    streams = {t.name: u for u, t in tracks.items() if t.parent_uuid == gpu}
    assert set(streams) == {
        "Stream 0 (null stream) kernels",
        "Stream 1 kernels",
        "Stream 0 (null stream) copies",
        "Stream 1 copies",
    }
    assert tracks[gpu].process.pid != os.getpid()

    # Kernels: on their stream's track, with the profile's times, grid and block.
    kernels = p.kernels
    kernel_slices = [s for s in decoded.slices if s.category == "kernel"]
    assert [s.name for s in kernel_slices] == [k.name for k in kernels] == ["vectorAdd"] * 2 + ["empty"]
    for s, k, (start, end) in zip(kernel_slices, kernels, expected_device_times(kernels), strict=True):
        label = "Stream 0 (null stream)" if k.stream == 0 else f"Stream {k.stream}"
        assert s.track == streams[f"{label} kernels"] and s.depth == 0
        assert (s.start, s.end) == (start, end)
        assert abs(start - k.start_ns) <= 1000 and abs(end - k.end_ns) <= 1000
        assert before <= s.start <= s.end <= after  # not shifted by a clock conversion
        assert s.args["grid"] == k.grid and s.args["block"] == k.block
        assert s.args["correlation_id"] == k.correlation_id and s.args["dispatch_id"] == k.dispatch_id
    assert kernel_slices[1].args["grid"] == (2, 2, 1) and kernel_slices[1].args["block"] == (128, 2, 1)

    # Copies and memsets: their own tracks, named by direction, with their bytes.
    copies = p.copies
    copy_slices = [s for s in decoded.slices if s.category == "memory_copy"]
    assert [(s.name, s.args["bytes"]) for s in copy_slices] == [
        ("MEMORY_COPY_HOST_TO_DEVICE", 4096),
        ("MEMORY_SET", 4096),
        ("MEMORY_COPY_DEVICE_TO_HOST", 4096),
    ]
    for s, x, (start, end) in zip(copy_slices, copies, expected_device_times(copies), strict=True):
        assert (s.start, s.end) == (start, end) and s.args["src"] == x.src_device
        assert s.track == streams[("Stream 1" if x.stream else "Stream 0 (null stream)") + " copies"]

    # API calls: on the main thread's track, exactly the profile's.
    calls = p.api_calls
    api_slices = [s for s in decoded.slices if s.category == "hip_api"]
    assert [(s.name, s.start, s.end, s.args["correlation_id"]) for s in api_slices] == [
        (x.function, x.start_ns, x.end_ns, x.correlation_id) for x in calls
    ]
    assert {s.track for s in api_slices} == {main}

    # Ranges nest, API calls sit in them, the mark in the innermost.
    ranges = {s.name: s for s in decoded.slices if s.category == "marker" and s.end > s.start}
    assert ranges["setup"].depth == ranges["compute"].depth == 0 and ranges["inner"].depth == 1
    assert ranges["inner"].parent is ranges["compute"]
    for m in p.markers:
        if m.kind == "range":
            assert (ranges[m.message].start, ranges[m.message].end) == (m.start_ns, m.end_ns)
    (mark,) = [s for s in decoded.slices if s.name == "launched"]
    assert mark.start == mark.end and mark.parent is ranges["inner"] and mark.category == "marker"
    launches = [s for s in api_slices if s.name == "hipModuleLaunchKernel"]
    assert [s.parent.name for s in launches] == ["compute", "inner", "compute"]
    assert {s.parent.name for s in api_slices if s.name == "hipMalloc"} == {"setup"}

    # Flows: from each launch or copy call to its work, the correlation id as the flow's id.
    by_flow = {s.flows_out[0]: s for s in api_slices if s.flows_out}
    assert len(by_flow) == len(kernels) + len(copies)
    for s in kernel_slices + copy_slices:
        (flow,) = s.flows_in
        assert flow == s.args["correlation_id"] and by_flow[flow].args["correlation_id"] == flow
    assert {by_flow[s.flows_in[0]].name for s in kernel_slices} == {"hipModuleLaunchKernel"}
    assert [by_flow[s.flows_in[0]].name for s in copy_slices] == ["hipMemcpy", "hipMemset", "hipMemcpyAsync"]
    assert not [s for s in api_slices if s.name in ("hipMalloc", "hipFree") and s.flows_out]

    # Allocations: instants, and a counter of the bytes held.
    allocations = [s for s in decoded.slices if s.category == "memory_allocation"]
    assert [(s.name, s.args["size"]) for s in allocations] == [
        ("allocate (device)", 4096),
        ("allocate (device)", 4096),
        ("free (device)", 4096),
    ]
    (counter,) = decoded.counters
    assert tracks[counter].name == f"allocated bytes ({name})" and tracks[counter].parent_uuid == host
    assert tracks[counter].counter.unit == pb.CounterDescriptor.UNIT_SIZE_BYTES
    assert [value for _, value in decoded.counters[counter]] == [4096, 8192, 4096]


def test_without_api_calls_there_are_no_flows(device, module, tmp_path):
    with hipkit.profile(hip_trace=False) as p:
        module.get_function("empty")[1, 1]()
    decoded = read_pftrace(p.save(tmp_path / "trace.pftrace"))
    (kernel,) = decoded.slices
    assert kernel.name == "empty" and kernel.flows_in == []


def test_an_empty_profile(tmp_path):
    with hipkit.profile() as p:
        pass
    decoded = read_pftrace(p.save(tmp_path / "empty.pftrace"))
    processes = [t.process.process_name for t in decoded.tracks.values() if t.HasField("process")]
    assert decoded.slices == [] and processes == ["Host"]


# ------------------------------------------------------------------ known rows, no device


def kernel_row(i: int, start: int, end: int, stream: int = 0, name: str = "k") -> tuple:
    # (dispatch, correlation, thread, device, stream, name, grid, block, shared, static, host, start, end)
    return (i, i, 7, "cpu:0", stream, name, (1, 1, 1), (64, 1, 1), 0, 0, start, start, end)


def rows_of(**domains) -> Trace:
    meta = [("pid", 4242), ("started_ns", 0), ("domains", {"api": True})]
    return Trace(lambda domain: domains.get(domain, meta if domain == "meta" else []))


def test_a_stream_never_overlaps_itself(tmp_path):
    """Device times rounded apart: the later slice starts where the earlier ended,
    and the nesting stays one level (else Perfetto would nest the second in the first)."""
    kernels = [kernel_row(1, 100, 200), kernel_row(2, 195, 300), kernel_row(3, 150, 160, stream=1)]
    path = tmp_path / "t.pftrace"
    rows_of(kernel=kernels).save(path)
    slices = read_pftrace(path).slices
    assert [(s.start, s.end, s.depth) for s in slices] == [(100, 200, 0), (150, 160, 0), (200, 300, 0)]


def test_names_past_the_interning_limit_are_written_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(_pftrace, "INTERN_LIMIT", 4)
    markers = [(i, 7, f"step {i}", "mark", 0, 10 * i, 10 * i) for i in range(1, 11)]
    path = tmp_path / "t.pftrace"
    rows_of(marker=markers).save(path)
    decoded = read_pftrace(path)
    assert [s.name for s in decoded.slices] == [f"step {i}" for i in range(1, 11)]
    inline = [p.track_event.name for p in decoded.packets if p.HasField("track_event") and p.track_event.name]
    assert inline == [f"step {i}" for i in range(5, 11)]  # the table held 4 names: "step 1".."step 4"


def test_memory_stays_bounded(tmp_path):
    """Packets go to the file as they are made: writing 10,000 kernels (and their
    API calls) holds far less than the file's size in memory."""
    count = 10_000

    def rows(domain: str):
        if domain == "kernel":
            return (kernel_row(i, 1000 * i, 1000 * i + 500, name=f"k{i % 7}") for i in range(1, count + 1))
        if domain == "api":
            return (
                (i, 7, "hipModuleLaunchKernel", 1000 * i - 100, 1000 * i + 1) for i in range(1, count + 1)
            )
        return [("pid", 1)] if domain == "meta" else []

    path = tmp_path / "big.pftrace"
    tracemalloc.start()
    try:
        Trace(rows).save(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = path.stat().st_size
    assert size > 1_500_000 and peak < 100_000, (size, peak)  # a few tables, not the records
    decoded = read_pftrace(path)
    assert len(decoded.slices) == 2 * count
    assert sum(1 for s in decoded.slices if s.flows_in) == count


def test_json_flows_are_joined_by_id_alone(tmp_path):
    """The JSON beside it: Chromium's trace viewer (chrome://tracing) fails to
    import flow events carrying ``bind_id``, which belongs on slices."""
    path = tmp_path / "t.json"
    launched_at_150 = kernel_row(1, 500, 900)[:10] + (150, 500, 900)
    rows_of(kernel=[launched_at_150], api=[(1, 7, "hipModuleLaunchKernel", 100, 300)]).save(path)
    events = json.loads(path.read_text())["traceEvents"]
    start, end = [e for e in events if e["ph"] in "sf"]
    assert "bind_id" not in start and "bind_id" not in end and start["id"] == end["id"]
    (launch,) = [e for e in events if e.get("cat") == "hip_api"]
    assert launch["ts"] <= start["ts"] <= launch["ts"] + launch["dur"]  # inside the call: it binds there


# ------------------------------------------------------------------ failures


@pytest.mark.parametrize("name", ["trace.pftrace", "trace.json"])
def test_a_failed_write_leaves_nothing(tmp_path, name):
    """A spool that cannot be read: the error is raised, a file of the same
    name from before stays as it was, and no temporary file remains."""
    path = tmp_path / name
    path.write_text("an earlier trace")
    broken = from_file(tmp_path / "missing.spool")
    with pytest.raises(FileNotFoundError, match="missing.spool"):
        broken.save(path)
    assert path.read_text() == "an earlier trace"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_a_write_that_fails_midway_leaves_nothing(tmp_path):
    def rows(domain: str):
        if domain == "kernel":
            yield kernel_row(1, 0, 10)
            raise OSError("the spool broke")
        yield from [("pid", 1)] if domain == "meta" else []

    with pytest.raises(OSError, match="the spool broke"):
        Trace(rows).save(tmp_path / "t.pftrace")
    assert list(tmp_path.iterdir()) == []


def test_the_file_has_the_usual_permissions(tmp_path):
    rows_of().save(tmp_path / "t.pftrace")
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "t.pftrace").stat().st_mode & 0o777 == 0o666 & ~umask


# ------------------------------------------------------------------ hipkit prof -f pftrace


def test_prof_writes_pftrace_beside_the_other_formats(tmp_path):
    from test_prof_cli import PROGRAM, kernel_names, prof

    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    done = prof("-d", "out", "-o", "run", "-f", "csv", "json", "pftrace", "--", str(program), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    assert kernel_names(out / "run_kernel_trace.csv") == ["vectorAdd"] * 3 + ["empty"]
    assert (out / "run_trace.json").is_file()
    decoded = read_pftrace(out / "run_results.pftrace")  # rocprofv3's name for it
    assert [s.name for s in decoded.slices if s.category == "kernel"] == ["vectorAdd"] * 3 + ["empty"]
    (loop,) = [s for s in decoded.slices if s.name == "loop"]
    assert {s.parent.name for s in decoded.slices if s.name == "hipModuleLaunchKernel"} == {"loop"}
    assert "run_results.pftrace" in done.stderr

    done = prof("-d", "only", "-o", "run", "-f", "pftrace", "--", str(program), "raise", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert [p.name for p in (tmp_path / "only").iterdir()] == ["run_results.pftrace"]
    decoded = read_pftrace(tmp_path / "only" / "run_results.pftrace")
    assert len([s for s in decoded.slices if s.category == "kernel"]) == 4  # traced before it raised
