"""The profiler from Python: what a trace of a known program holds, its
statistics, its Chrome trace-event JSON (checked by a validator written here)
and rocprofv3's CSV files; the hook point it uses."""

from __future__ import annotations

import csv
import gc
import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from test_runtime_streams import SOURCE as SPIN_SOURCE
from test_runtime_streams import Spinner

import hipkit
from hipkit import HipError, hip, platforms
from hipkit.profiler import _activity, _clock, _spool
from hipkit.profiler.records import busy_ns
from hipkit.profiler.trace import Trace
from hipkit.runtime import hooks

# These tests count the runtime's calls: every array's memory is one malloc and one free.
pytestmark = pytest.mark.usefixtures("memory_uncached")

SOURCE = r"""
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) C[idx] = A[idx] + B[idx];
}
extern "C" __global__ void empty() {}
extern "C" __global__ void store_one(int* p) { *p = 1; }
"""

# rocprofv3's columns (rocprofiler-sdk, source/lib/output/generateCSV.cpp), written out
# here rather than taken from hipkit, so that the test checks them.
ROCPROF_COLUMNS = {
    "kernel_trace.csv": "Kind,Agent_Id,Queue_Id,Stream_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,"
    "Correlation_Id,Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,VGPR_Count,"
    "Accum_VGPR_Count,SGPR_Count,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
    "Grid_Size_X,Grid_Size_Y,Grid_Size_Z",
    "hip_api_trace.csv": "Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp",
    "memory_copy_trace.csv": "Kind,Direction,Stream_Id,Source_Agent_Id,Destination_Agent_Id,Correlation_Id,"
    "Start_Timestamp,End_Timestamp",
    "marker_api_trace.csv": "Domain,Function,Process_Id,Thread_Id,Correlation_Id,"
    "Start_Timestamp,End_Timestamp",
    "memory_allocation_trace.csv": "Kind,Operation,Agent_Id,Allocation_Size,Address,Correlation_Id,"
    "Start_Timestamp,End_Timestamp",
}
STATS_HEADER = "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests on a device run with each source of device times: the platform's own
    timestamps (where it has them), and the timing events the tracer falls back to."""
    if "device" in metafunc.fixturenames:
        metafunc.parametrize("timestamps", ["platform", "events"], indirect=True)


@pytest.fixture(autouse=True)
def _collect_earlier_garbage():
    """Earlier tests' garbage (arrays and modules in reference cycles) is freed now, not
    by the collector in the middle of a profile, where each free is a call of its own."""
    gc.collect()


@pytest.fixture(autouse=True)
def timestamps(request, monkeypatch) -> str:
    """The source of device times: "events" makes every platform's
    activity_start() answer False, as a platform without timestamps does."""
    source = getattr(request, "param", "platform")
    if source == "events":
        for name in platforms.known():
            monkeypatch.setattr(platforms.platform_class(name), "activity_start", lambda self: False)
    return source


@pytest.fixture
def module(device) -> hipkit.Module:
    return hipkit.compile(SOURCE)


# ------------------------------------------------------------------ a Chrome trace-event validator


def validate_chrome_trace(path: Path) -> dict:
    """Check a trace against the trace-event format; returns the parsed JSON.
    Required keys per phase, B/E balance per track, X slices nested or apart per
    track, flow ids each one "s" and one "f", and every track named."""
    data = json.loads(Path(path).read_text())
    assert isinstance(data, dict) and isinstance(data["traceEvents"], list)
    required = {
        "X": {"name", "ts", "dur", "pid", "tid"},
        "B": {"name", "ts", "pid", "tid"},
        "E": {"ts", "pid", "tid"},
        "i": {"name", "ts", "pid", "tid", "s"},
        "M": {"name", "pid", "args"},
        "s": {"id", "ts", "pid", "tid", "name", "cat"},
        "f": {"id", "ts", "pid", "tid", "name", "cat", "bp"},
        "C": {"name", "ts", "pid", "args"},
    }
    opened: dict[tuple, list] = {}
    slices: dict[tuple, list[tuple[float, float]]] = {}
    flows: dict[int, list[str]] = {}
    named_processes, named_threads = set(), set()
    for event in data["traceEvents"]:
        ph = event["ph"]
        assert ph in required, event
        missing = required[ph] - event.keys()
        assert not missing, f"{ph} event without {missing}: {event}"
        track = (event["pid"], event.get("tid"))
        if ph == "M":
            assert event["name"] in ("process_name", "thread_name", "process_sort_index"), event
            (named_processes if event["name"] == "process_name" else named_threads).add(track)
        elif ph == "X":
            assert event["dur"] >= 0, event
            slices.setdefault(track, []).append((event["ts"], event["ts"] + event["dur"]))
        elif ph == "B":
            opened.setdefault(track, []).append(event)
        elif ph == "E":
            assert opened.get(track), f"E without B on {track}"
            opened[track].pop()
        elif ph in "sf":
            flows.setdefault(event["id"], []).append(ph)
            if ph == "f":
                assert event["bp"] == "e"
        elif ph == "i":
            assert event["s"] in "tpg"
    assert not any(opened.values()), "B events never ended"
    for flow_id, phases in flows.items():
        assert sorted(phases) == ["f", "s"], f"flow {flow_id}: {phases}"
    for track, spans in slices.items():
        assert (track[0], 0) in named_processes, f"process {track[0]} has no name"
        assert track in named_threads, f"track {track} has no name"
        stack: list[float] = []  # ends of the open slices
        for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= start + 1e-3:
                stack.pop()
            assert not stack or end <= stack[-1] + 1e-3, f"slices overlap on {track}: {start}..{end}"
            stack.append(end)
    return data


# ------------------------------------------------------------------ a known program


def test_a_known_program_traces_exactly(device, module, timestamps):
    n, block = 5000, 256
    grid = (n + block - 1) // block
    vector_add, empty = module.get_function("vectorAdd"), module.get_function("empty")
    host = np.arange(n, dtype=np.float32)
    before = time.perf_counter_ns()
    with hipkit.profile() as p:
        a = hipkit.to_device(host)
        b = hipkit.to_device(host)
        c = hipkit.zeros(n, np.float32)
        for _ in range(3):
            vector_add[grid, block](a, b, c, n)
        empty[1, 1]()
        empty.launch((2, 3), (4, 5, 2))
        result = c.get()
        after = time.perf_counter_ns()
    np.testing.assert_array_equal(result, 2 * host)

    kernels = p.kernels
    assert [k.name for k in kernels] == ["vectorAdd"] * 3 + ["empty"] * 2
    assert [k.dispatch_id for k in kernels] == [1, 2, 3, 4, 5]
    assert kernels[0].grid == (grid, 1, 1) and kernels[0].block == (block, 1, 1)
    assert kernels[4].grid == (2, 3, 1) and kernels[4].block == (4, 5, 2)
    assert {k.device for k in kernels} == {f"{device.platform.name}:{device.index}"}
    assert {k.stream for k in kernels} == {0}
    for k in kernels:
        assert before <= k.start_ns <= k.end_ns <= after, k
    for earlier, later in zip(kernels, kernels[1:], strict=False):  # one stream: in order, apart
        assert later.start_ns >= earlier.end_ns - 1000

    copies = p.copies
    nbytes = n * 4
    assert [(x.kind, x.bytes) for x in copies] == [
        ("HOST_TO_DEVICE", nbytes),
        ("HOST_TO_DEVICE", nbytes),
        ("MEMSET", nbytes),
        ("DEVICE_TO_HOST", nbytes),
    ]
    assert copies[0].src_device == "host" and copies[0].dst_device == kernels[0].device
    assert copies[3].src_device == kernels[0].device and copies[3].dst_device == "host"
    assert all(x.bandwidth > 0 for x in copies)

    calls = p.api_calls
    names = [x.function for x in calls]
    assert names.count("hipModuleLaunchKernel") == 5
    assert names.count("hipMemcpy") == 3 and names.count("hipMemset") == 1
    assert names.count("hipMalloc") == 3
    by_id = {x.correlation_id: x for x in calls}
    assert len(by_id) == len(calls)
    for work in kernels + copies:  # each kernel and copy comes from its own API call
        call = by_id[work.correlation_id]
        expected = (
            "hipModuleLaunchKernel"
            if work in kernels
            else {"MEMSET": "hipMemset"}.get(work.kind, "hipMemcpy")
        )
        assert call.function == expected and call.thread_id == work.thread_id
        assert call.start_ns <= work.end_ns
    allocations = p.allocations
    assert [(x.operation, x.size) for x in allocations] == [("ALLOCATE", nbytes)] * 3

    stats = p.stats()
    assert [(s.Name, s.Calls) for s in stats] == sorted(
        [("vectorAdd", 3), ("empty", 2)], key=lambda r: -sum(k.duration_ns for k in kernels if k.name == r[0])
    )
    assert sum(s.TotalDurationNs for s in stats) == sum(k.duration_ns for k in kernels)
    assert stats.busy_ns == {kernels[0].device: busy_ns((k.start_ns, k.end_ns) for k in kernels)}
    assert "vectorAdd" in str(stats) and "busy" in p.summary()
    source = p.meta["device_timestamps"][device.platform.name]
    if timestamps == "events":
        assert source == {"source": "events", "host_times": 0}
    elif device.platform.name == "cpu":  # the CPU runtime stamps its own work
        assert source == {"source": "platform", "host_times": 0, "unmatched_records": 0}


def test_kernel_time_agrees_with_the_programs_own_events(device):
    """The kernel's time lies inside the program's own events around it: at most
    theirs, and close (on a GPU this compares with CUDA's own timing).  A kernel
    ahead keeps the device busy while the host queues the events and the timed
    kernel, so that neither timing includes the host's queuing.  The lower bound
    holds for the profiler's events; the platform's own record is the kernel
    alone, which a GPU shared with other processes may start late within them.
    The timed kernels spin for at least 20 and 40 ms of the device's wall clock
    (its rate measured against the host's, from above), however busy the machine
    is, and their times say so."""
    spinner = Spinner(hipkit.compile(SPIN_SOURCE), device)
    start, stop = hipkit.Event(), hipkit.Event()
    timed = []
    with hipkit.profile() as p:
        for ms in (20, 40):
            spinner.spin(30)
            start.record()
            spinner.spin(ms)
            stop.record()
            stop.synchronize()
            timed.append((p.kernels[-1], start.elapsed_time(stop) * 1e6, ms))
    own_record = p.meta["device_timestamps"][device.platform.name]["source"] == "platform"
    for kernel, elapsed_ns, ms in timed:
        assert ms * 1_000_000 <= kernel.duration_ns <= elapsed_ns + 2_000, (kernel, elapsed_ns)
        assert own_record or 0.9 * elapsed_ns - 20_000 <= kernel.duration_ns, (kernel, elapsed_ns)


def test_hip_named_calls_carry_their_names_and_ids(device, module):
    n = 256
    host = np.arange(n, dtype=np.float32)
    with hipkit.profile() as p:
        ptr = hip.hipMalloc(host.nbytes)
        hip.hipMemcpy(ptr, host, host.nbytes, hip.hipMemcpyHostToDevice)
        stream = hip.hipStreamCreate()  # calls hipStreamCreateWithFlags: one record
        f = hip.hipModuleGetFunction(hip.hipModuleLoadData(module), "vectorAdd")
        hip.hipModuleLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, stream, [ptr, ptr, ptr, n])
        hip.hipStreamSynchronize(stream)
        hip.hipDeviceSynchronize()
        hip.hipStreamDestroy(stream)
        hip.hipFree(ptr)
    names = [x.function for x in p.api_calls]
    assert names == [
        "hipMalloc",
        "hipMemcpy",
        "hipStreamCreate",
        "hipModuleLoadData",
        "hipModuleGetFunction",
        "hipModuleLaunchKernel",
        "hipStreamSynchronize",
        "hipDeviceSynchronize",
        "hipStreamDestroy",
        "hipFree",
    ]
    ids = {x.function: x.correlation_id for x in p.api_calls}
    (kernel,) = p.kernels
    assert kernel.correlation_id == ids["hipModuleLaunchKernel"] and kernel.stream == 1
    (copy,) = p.copies
    assert copy.correlation_id == ids["hipMemcpy"] and copy.bytes == host.nbytes
    assert [(x.operation, x.correlation_id) for x in p.allocations] == [
        ("ALLOCATE", ids["hipMalloc"]),
        ("FREE", ids["hipFree"]),
    ]
    assert p.allocations[1].size == host.nbytes


def test_ranges_nest_and_marks_sit_inside(device):
    @hipkit.range("step")
    def step(i: int) -> None:
        hipkit.mark(f"step {i}")

    with hipkit.range("before the profile"):  # neither recorded nor confusing the nesting
        with hipkit.profile() as p:
            with hipkit.range("outer"):
                step(0)
                step(1)
    markers = p.markers
    assert [(m.message, m.kind, m.depth) for m in markers] == [
        ("step 0", "mark", 2),
        ("step", "range", 1),
        ("step 1", "mark", 2),
        ("step", "range", 1),
        ("outer", "range", 0),
    ]
    outer = markers[-1]
    for inner in markers[:-1]:
        assert outer.start_ns <= inner.start_ns <= inner.end_ns <= outer.end_ns
    assert markers[0].start_ns == markers[0].end_ns
    assert markers[1].start_ns <= markers[0].start_ns <= markers[1].end_ns


def test_markers_cost_nothing_when_not_profiling():
    hipkit.mark("nobody listens")
    with hipkit.range("nobody listens"):
        pass
    assert hooks.installed() == ()


def test_stats_are_rocprofv3s_and_busy_time_is_a_union():
    """Statistics from known rows (no device): sample standard deviation, share of
    the total, largest total first; busy time counts overlapping kernels once."""
    # (dispatch, correlation, thread, device, stream, name, grid, block, shared, static, host, start, end)
    kernels = [
        (1, 1, 7, "cpu:0", 0, "a", (1, 1, 1), (1, 1, 1), 0, 0, 0, 0, 10),
        (2, 2, 7, "cpu:0", 1, "b", (1, 1, 1), (1, 1, 1), 0, 0, 0, 5, 45),
        (3, 3, 7, "cpu:0", 0, "a", (1, 1, 1), (1, 1, 1), 0, 0, 0, 50, 80),
        (4, 4, 7, "cpu:1", 0, "a", (1, 1, 1), (1, 1, 1), 0, 0, 0, 0, 20),
    ]
    trace = Trace(lambda domain: kernels if domain == "kernel" else [])
    a, b = trace.stats()
    assert (a.Name, a.Calls, a.TotalDurationNs, a.MinNs, a.MaxNs) == ("a", 3, 60, 10, 30)
    assert a.AverageNs == 20.0 and a.StdDev == pytest.approx(10.0)  # sample: sqrt(200 / 2)
    assert (b.Name, b.Calls, b.TotalDurationNs, b.StdDev) == ("b", 1, 40, 0.0)
    assert a.Percentage == pytest.approx(60.0) and b.Percentage == pytest.approx(40.0)
    assert trace.busy_ns() == {"cpu:0": 75, "cpu:1": 20}  # 0..45 and 50..80; the sum would be 80
    assert busy_ns([(0, 10), (10, 20), (30, 40), (35, 36)]) == 30


def test_a_kernel_on_two_threads_and_two_streams(device, module):
    empty = module.get_function("empty")
    streams = [hipkit.Stream(), hipkit.Stream()]

    def work(stream: hipkit.Stream) -> None:
        with device:
            for _ in range(5):
                empty[1, 1, 0, stream]()

    with hipkit.profile() as p:
        threads = [
            threading.Thread(target=work, args=(s,), name=f"worker {i}") for i, s in enumerate(streams)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    kernels = p.kernels
    assert len(kernels) == 10
    assert len({k.thread_id for k in kernels}) == 2 and len({k.stream for k in kernels}) == 2
    assert {"worker 0", "worker 1"} <= set(p.threads.values())
    for stream in {k.stream for k in kernels}:
        on_it = [k for k in kernels if k.stream == stream]
        assert len(on_it) == 5 and len({k.thread_id for k in on_it}) == 1


# ------------------------------------------------------------------ files


def test_chrome_trace_validates(device, module, tmp_path):
    n = 1024
    vector_add = module.get_function("vectorAdd")
    stream = hipkit.Stream()
    with hipkit.profile() as p:
        with hipkit.range("setup"):
            a = hipkit.to_device(np.ones(n, np.float32))
            c = hipkit.empty(n, np.float32)
        with hipkit.range("compute"):
            vector_add[4, 256](a, a, c, n)
            vector_add[4, 256, 0, stream](a, a, c, n)
            hipkit.mark("launched")
        c.get()
    data = validate_chrome_trace(p.save(tmp_path / "trace.json"))
    events = data["traceEvents"]
    kernels = [e for e in events if e["ph"] == "X" and e.get("cat") == "kernel"]
    assert [e["name"] for e in kernels] == ["vectorAdd", "vectorAdd"]
    assert len({(e["pid"], e["tid"]) for e in kernels}) == 2  # a track per stream
    host = {e["pid"] for e in events if e["ph"] == "X" and e.get("cat") == "hip_api"}
    assert len(host) == 1 and host.isdisjoint({e["pid"] for e in kernels})
    flows = [e for e in events if e["ph"] == "s"]
    assert len(flows) == len(p.kernels) + len(p.copies)
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] != "process_sort_index"}
    assert {"Stream 0 (null stream)", "Stream 1"} <= names
    assert [e["name"] for e in events if e.get("cat") == "marker"] == ["setup", "launched", "compute"]


def _read_csv(path: Path) -> tuple[str, list[dict]]:
    text = path.read_text()
    header = text.splitlines()[0]
    return header, list(csv.DictReader(text.splitlines()))


def test_csv_files_are_rocprofv3s(device, module, tmp_path):
    n = 1000
    vector_add, empty = module.get_function("vectorAdd"), module.get_function("empty")
    with hipkit.profile() as p:
        a = hipkit.to_device(np.ones(n, np.float32))
        with hipkit.range("launches"):
            vector_add[4, 256](a, a, a, n)
            empty[(2, 3), (8, 4)]()
            vector_add[4, 256](a, a, a, n)
        a.get()
        del a
    written = p.save_csv(tmp_path, "run")
    assert {path.name for path in written} == {f"run_{name}" for name in ROCPROF_COLUMNS} | {
        f"run_{name}_stats.csv"
        for name in ("kernel", "hip_api", "memory_copy", "marker_api", "memory_allocation")
    }
    for name, columns in ROCPROF_COLUMNS.items():
        header, rows = _read_csv(tmp_path / f"run_{name}")
        assert header == ",".join(f'"{c}"' for c in columns.split(","))  # rocprofv3 quotes the header
    _, kernels = _read_csv(tmp_path / "run_kernel_trace.csv")
    assert [(r["Kernel_Name"], r["Dispatch_Id"], r["Kernel_Id"]) for r in kernels] == [
        ("vectorAdd", "1", "1"),
        ("empty", "2", "2"),
        ("vectorAdd", "3", "1"),
    ]
    assert kernels[1]["Grid_Size_X"] == "16" and kernels[1]["Grid_Size_Y"] == "12"  # work items
    assert kernels[1]["Workgroup_Size_X"] == "8" and kernels[1]["Agent_Id"] == "Agent 1"
    assert kernels[0]["Kind"] == "KERNEL_DISPATCH"
    for r, k in zip(kernels, p.kernels, strict=True):
        assert (int(r["Start_Timestamp"]), int(r["End_Timestamp"])) == (k.start_ns, k.end_ns)
    _, copies = _read_csv(tmp_path / "run_memory_copy_trace.csv")
    assert [(r["Kind"], r["Direction"], r["Source_Agent_Id"]) for r in copies] == [
        ("MEMORY_COPY", "MEMORY_COPY_HOST_TO_DEVICE", "Agent 0"),
        ("MEMORY_COPY", "MEMORY_COPY_DEVICE_TO_HOST", "Agent 1"),
    ]
    _, allocations = _read_csv(tmp_path / "run_memory_allocation_trace.csv")
    assert [(r["Operation"], r["Allocation_Size"]) for r in allocations] == [
        ("MEMORY_ALLOCATION_ALLOCATE", str(n * 4)),
        ("MEMORY_ALLOCATION_FREE", str(n * 4)),
    ]
    assert allocations[0]["Address"].startswith("0x") and len(allocations[0]["Address"]) == 18
    _, markers = _read_csv(tmp_path / "run_marker_api_trace.csv")
    assert [(r["Domain"], r["Function"]) for r in markers] == [("MARKER_CORE_API", "launches")]
    header, stats = _read_csv(tmp_path / "run_kernel_stats.csv")
    assert header == ",".join(f'"{c}"' for c in STATS_HEADER.split(","))
    assert [r["Name"] for r in stats] == [s.Name for s in p.stats()]
    totals = [int(r["TotalDurationNs"]) for r in stats]
    assert totals == sorted(totals, reverse=True)
    assert sum(float(r["Percentage"]) for r in stats) == pytest.approx(100, abs=0.02)
    line = (tmp_path / "run_kernel_stats.csv").read_text().splitlines()[1]
    assert line.startswith('"vectorAdd",2,') or line.startswith('"empty",1,')


def test_saving_nothing_writes_no_csv(tmp_path):
    with hipkit.profile() as p:
        pass
    assert p.save_csv(tmp_path) == []
    validate_chrome_trace(p.save(tmp_path / "empty.json"))


# ------------------------------------------------------------------ failures, limits, options


def test_a_failing_program_still_leaves_a_readable_trace(device, module, tmp_path):
    profile = hipkit.profile()
    with pytest.raises(RuntimeError, match="after launching"):
        with profile:
            module.get_function("empty")[1, 1]()
            raise RuntimeError("failed after launching")
    assert [k.name for k in profile.kernels] == ["empty"]
    validate_chrome_trace(profile.save(tmp_path / "trace.json"))


def test_a_failed_launch_is_an_api_call_and_no_kernel(device, module):
    empty = module.get_function("empty")
    with hipkit.profile() as p:
        with pytest.raises(HipError):
            empty[1, 2048]()
    assert p.kernels == []
    assert [x.function for x in p.api_calls] == ["hipModuleLaunchKernel"]


def test_a_sticky_error_gives_host_times_and_a_clean_exit(device, module):
    if not device.platform.recovers_from_sticky_errors:
        pytest.skip(f"{device.platform.name}: a sticky error ends the process's use of the device")
    try:
        with hipkit.profile() as p:
            module.get_function("store_one")[1, 1](8)  # an illegal address
            with pytest.raises(HipError):
                device.synchronize()
    finally:
        device.reset()
    (kernel,) = p.kernels
    assert kernel.name == "store_one" and kernel.start_ns <= kernel.end_ns


def test_a_device_reset_during_a_profile(device, module):
    empty = module.get_function("empty")
    with hipkit.profile() as p:
        empty[1, 1]()
        device.reset()
        hipkit.compile(SOURCE).get_function("empty")[1, 1]()
    first, second = p.kernels
    assert first.end_ns <= second.start_ns
    assert "hipDeviceReset" in [x.function for x in p.api_calls]


def test_domains_and_kernel_filters(device, module):
    vector_add, empty = module.get_function("vectorAdd"), module.get_function("empty")
    a = hipkit.zeros(256, np.float32)

    def program():
        vector_add[1, 256](a, a, a, 256)
        empty[1, 1]()
        a.get()

    with hipkit.profile(kernel_include_regex="^vector") as p:
        program()
    assert [k.name for k in p.kernels] == ["vectorAdd"]
    assert [x.function for x in p.api_calls].count("hipModuleLaunchKernel") == 2
    with hipkit.profile(kernel_exclude_regex="Add") as p:
        program()
    assert [k.name for k in p.kernels] == ["empty"]
    with hipkit.profile(hip_trace=False, memory_copy_trace=False) as p:
        program()
    assert len(p.kernels) == 2 and p.api_calls == [] and p.copies == []
    with hipkit.profile(kernel_trace=False, marker_trace=False) as p:
        with hipkit.range("r"):
            program()
    assert p.kernels == [] and p.markers == [] and len(p.copies) == 1


def test_memory_stays_bounded(device, module, monkeypatch, tmp_path):
    """Records go to the spool file in chunks, and device times (the platform's
    records or timing events) are resolved once many wait: none grows with the program."""
    monkeypatch.setattr(_spool, "CHUNK_ROWS", 100)
    for timing in (_clock, _activity):
        monkeypatch.setattr(timing, "PENDING_HIGH", 50)
        monkeypatch.setattr(timing, "PENDING_MAX", 80)
    empty = module.get_function("empty")
    launches = 600
    runtime = getattr(device.platform, "_lib", None)  # the CPU runtime, whose records wait in C++
    with hipkit.profile(hip_trace=False) as p:
        for _ in range(launches):
            empty[1, 1]()
            assert p._spool.pending() <= 100 + 81
            # the device's own (other platforms this process used earlier are traced too)
            (timing,) = [t for t in p._tracer._timings() if t.platform is device.platform]
            assert len(timing.pending) <= 81
            if isinstance(timing, _clock.DeviceClock):
                assert len(timing.pool) <= 2 * 81 + _clock.POOL_START
            else:
                assert len(timing._early) <= 81
            if runtime is not None and not isinstance(timing, _clock.DeviceClock):
                # No entries for launches: the runtime's records wait, and a launch asks for a
                # read once 50 wait.  With nothing in flight, however busy the machine is, what
                # waits is what no launch has asked to hand over yet.
                device.synchronize()
                assert runtime.hk_activity_waiting() <= 50
    assert p._spool.path.stat().st_size > 0
    assert [k.dispatch_id for k in p.kernels] == list(range(1, launches + 1))


def test_one_session_at_a_time(device):
    with hipkit.profile() as p:
        with pytest.raises(RuntimeError, match="already installed"):
            hipkit.profile().start()
    with pytest.raises(RuntimeError, match="already run"):
        p.start()
    with pytest.raises(RuntimeError, match="not running"):
        p.stop()


def test_the_hook_point_is_left_as_found(device, module):
    platform = device.platform
    assert hooks.installed() == () and "launch" not in platform.__dict__
    with hipkit.profile() as p:
        assert "malloc" in platform.__dict__ and hooks.api is not None
        # a platform with timestamps of its own describes each launch: its launch path stays
        described = p._tracer.activities.get(id(platform)) is not None
        assert ("launch" in platform.__dict__) != described
    assert hooks.installed() == () and hooks.api is None
    assert not set(hooks.INTERCEPTED) & platform.__dict__.keys()


def test_every_runtime_call_passes_the_hook_point(device, module):
    """A tool at the hook point sees each kind of runtime call, the Python API's and HIP's."""
    seen: list[str] = []

    class Recorder:
        def wrap(self, platform, name, original):
            def call(*args):
                seen.append(name)
                return original(*args)

            return call

        def api_call(self, name, fn, args, kwargs):
            seen.append(name)
            return fn(*args, **kwargs)

    tool = Recorder()
    hooks.install(tool)
    try:
        a = hipkit.zeros(64, np.float32)
        module.get_function("vectorAdd")[1, 64](a, a, a, 64)
        s = hipkit.Stream()
        e = s.record()
        e.synchronize()
        a.get(stream=s)
        s.synchronize()
        hip.hipDeviceSynchronize()
        del a
    finally:
        hooks.uninstall(tool)
    for name in (
        "malloc",
        "memset",
        "launch",
        "stream_create",
        "event_create",
        "event_record",
        "event_synchronize",
        "memcpy",
        "stream_synchronize",
        "hipDeviceSynchronize",
        "synchronize",
        "free",
    ):
        assert name in seen, name


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this system")
def test_a_forked_child_leaves_the_parents_trace_alone(device, module, tmp_path):
    empty = module.get_function("empty")
    with hipkit.profile() as p:
        empty[1, 1]()
        child = os.fork()
        if child == 0:  # the child's records would be the parent's: it traces nothing
            ok = hooks.installed() == () and p._spool.path is None and p._spool.pending() == 0
            hipkit.mark("in the child")
            p.stop()
            os._exit(0 if ok else 1)
        _, status = os.waitpid(child, 0)
        empty[1, 1]()
    assert os.waitstatus_to_exitcode(status) == 0
    assert len(p.kernels) == 2 and p.markers == []
    validate_chrome_trace(p.save(tmp_path / "trace.json"))


NVIDIA = platforms.status()["nvidia"] if "nvidia" in platforms.known() else "not in this hipkit"


@pytest.mark.skipif(bool(NVIDIA), reason=f"nvidia platform absent: {NVIDIA}")
def test_two_gpus_and_a_cpu_in_one_trace(tmp_path):
    """Each device is a process of the trace; a peer copy goes from one GPU to the other."""
    gpus = hipkit.devices("nvidia")
    if len(gpus) < 2:
        pytest.skip("one NVIDIA GPU here; this needs two")
    cpu = hipkit.Device(0, platform="cpu")
    modules = {dev: hipkit.compile(SOURCE, device=dev) for dev in (*gpus[:2], cpu)}
    x = np.arange(1 << 16, dtype=np.float32)
    with hipkit.profile() as p:
        arrays = {dev: hipkit.to_device(x, device=dev) for dev in modules}
        for dev, module in modules.items():
            with dev:
                module.get_function("vectorAdd")[256, 256](arrays[dev], arrays[dev], arrays[dev], x.size)
        arrays[gpus[0]].copy(device=gpus[1])
        for dev in modules:
            dev.synchronize()
    names = {f"nvidia:{gpus[0].index}", f"nvidia:{gpus[1].index}", "cpu:0"}
    assert {k.device for k in p.kernels} == names and len(p.kernels) == 3
    (peer,) = [c for c in p.copies if c.src_device != "host" and c.dst_device != "host"]
    assert (peer.src_device, peer.dst_device, peer.bytes) == (
        f"nvidia:{gpus[0].index}",
        f"nvidia:{gpus[1].index}",
        x.nbytes,
    )
    data = validate_chrome_trace(p.save(tmp_path / "trace.json"))
    kernel_pids = {e["pid"] for e in data["traceEvents"] if e.get("cat") == "kernel"}
    assert len(kernel_pids) == 3
