"""Device times from the platforms themselves: the CPU runtime's activity
records (runtime/activity.h, read here through its C functions as a C++
consumer would), their agreement with the host's clock and with a kernel's own
measurement of itself, and the tracer's matching of records to the calls that
enqueued them (``profiler/_activity.py``)."""

from __future__ import annotations

import ctypes
import gc
import logging
import threading
import time

import numpy as np
import pytest

import hipkit
from hipkit import HipError, platforms
from hipkit.hip._state import hip_api
from hipkit.platforms.base.platform import DEVICE_TO_HOST, HOST_TO_DEVICE, LAUNCH_RECORD, ActivityBatch
from hipkit.profiler import _activity
from hipkit.profiler._activity import match

CPU = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(CPU), reason=f"cpu platform absent: {CPU}")

SOURCE = r"""
extern "C" __global__ void empty() {}
extern "C" __global__ void store_one(int* p) { *p = 1; }
// Spins for `ns` nanoseconds of the host's monotonic clock; writes when it began and ended.
extern "C" __global__ void spin_for(long long ns, long long* when) {
    long long begin = wall_clock64(), now = begin;
    while (now - begin < ns) now = wall_clock64();
    when[0] = begin;
    when[1] = now;
}
template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] *= a; }
"""


@pytest.fixture(scope="module")
def cpu() -> hipkit.Device:
    if CPU:
        pytest.skip(f"cpu platform absent: {CPU}")
    return hipkit.Device(0, platform="cpu")


@pytest.fixture(autouse=True)
def _on_the_cpu():
    """Every test here is the CPU runtime's: its arrays too, whatever the default platform."""
    if CPU:
        yield
        return
    with hipkit.Device(0, platform="cpu"):
        yield


@pytest.fixture
def module(cpu) -> hipkit.Module:
    return hipkit.compile(SOURCE, name_expressions=["scale<float>"], device=cpu)


@pytest.fixture
def runtime(cpu):
    """The CPU runtime library with activity on (a large buffer), off after the test."""
    lib = cpu.platform._lib
    with cpu:
        lib.hk_activity_enable(1 << 16)
        try:
            yield lib
        finally:
            lib.hk_activity_enable(0)


def read(lib, max_records: int = 1024) -> np.ndarray:
    from hipkit.platforms.cpu.activity import ACTIVITY_RECORD

    out = np.zeros(max_records, ACTIVITY_RECORD)
    return out[: lib.hk_activity_read(out.ctypes.data, max_records)]


def name_of(record) -> str | None:
    return ctypes.string_at(int(record["name"])).decode() if record["name"] else None


# ------------------------------------------------------------------ the runtime's records


def test_each_kernel_copy_and_memset_is_one_record(cpu, module, runtime):
    n = 64
    host = np.arange(n, dtype=np.float32)
    stream = hipkit.Stream()
    before = time.perf_counter_ns()
    x = hipkit.to_device(host)  # a malloc (no record) and a host-to-device copy
    x.fill(0)  # a memset
    module.get_function("empty")[(2, 3), (4, 5, 2)]()
    module.get_function("scale<float>")[1, n, 16, stream](x, np.float32(2))
    result = x.get()
    cpu.synchronize()
    after = time.perf_counter_ns()
    records = read(runtime)
    assert list(records["kind"]) == [2, 3, 1, 1, 2]  # copy, memset, kernel, kernel, copy
    copy_in, fill, empty, scale, copy_out = records
    assert (copy_in["copy_kind"], copy_in["bytes"]) == (HOST_TO_DEVICE, host.nbytes)
    assert (copy_out["copy_kind"], copy_out["bytes"]) == (DEVICE_TO_HOST, host.nbytes)
    assert (fill["copy_kind"], fill["bytes"]) == (0, host.nbytes)
    assert name_of(empty) == "empty" and name_of(copy_in) is None
    assert name_of(scale) == "_Z5scaleIfEvPT_S0_"  # the template instance's symbol
    assert list(empty["grid"]) == [2, 3, 1] and list(empty["block"]) == [4, 5, 2]
    assert list(scale["grid"]) == [1, 1, 1] and scale["dynamic_shared"] == 16
    assert scale["stream"] == stream.handle and empty["stream"] == 0
    assert set(records["thread_id"]) == {threading.get_native_id()}
    assert set(records["device"]) == {0} and set(records["correlation_id"]) == {0}
    for r in records:
        assert before <= r["enqueue_ns"] <= r["start_ns"] <= r["end_ns"] <= after
    np.testing.assert_array_equal(result, 0)
    assert len(read(runtime)) == 0  # read once


def test_records_outlive_their_module_and_read_in_batches(cpu, runtime):
    temporary = hipkit.compile('extern "C" __global__ void short_lived() {}', device=cpu)
    for _ in range(5):
        temporary.get_function("short_lived")[1, 1]()
    cpu.synchronize()
    temporary.unload()
    first, second, third = read(runtime, 2), read(runtime, 2), read(runtime, 2)
    assert (len(first), len(second), len(third)) == (2, 2, 1)
    assert {name_of(r) for r in np.concatenate([first, second, third])} == {"short_lived"}
    ends = np.concatenate([first, second, third])["end_ns"]
    assert (np.diff(ends) >= 0).all()  # one stream: oldest first


def test_a_correlation_id_set_by_the_thread_is_carried(cpu, module, runtime):
    empty = module.get_function("empty")
    seen: dict[str, int] = {}

    def other_thread() -> None:
        with cpu:
            runtime.hk_activity_set_correlation(7)
            empty[1, 1]()
            seen["tid"] = threading.get_native_id()

    assert runtime.hk_activity_set_correlation(42) == 0
    empty[1, 1]()
    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
    assert runtime.hk_activity_set_correlation(0) == 42
    empty[1, 1]()
    cpu.synchronize()
    ids = {(int(r["thread_id"]), int(r["correlation_id"])) for r in read(runtime)}
    me = threading.get_native_id()
    assert ids == {(me, 42), (seen["tid"], 7), (me, 0)}


def test_a_full_buffer_drops_and_counts_and_the_platform_says_so(cpu, caplog):
    lib, platform = cpu.platform._lib, cpu.platform
    x = hipkit.zeros(16, np.float32)
    with cpu:
        platform.activity_start()
        lib.hk_activity_enable(8)  # a small buffer for this test
        try:
            for _ in range(20):
                x.fill(1)
            cpu.synchronize()
            with caplog.at_level(logging.WARNING, logger="hipkit"):
                records = platform.activity_read().work
            dropped = lib.hk_activity_dropped()
        finally:
            platform.activity_stop()
    assert len(records) == 8 and dropped == 12
    assert "12 activity record(s) dropped" in caplog.text


def test_turning_activity_off_or_on_again_drops_what_was_not_read(cpu, module, runtime):
    spin_for = module.get_function("spin_for")
    when = hipkit.zeros(2, np.int64)
    spin_for[1, 1](20_000_000, when)  # still running when activity restarts
    module.get_function("empty")[1, 1]()
    runtime.hk_activity_enable(0)
    runtime.hk_activity_enable(1 << 16)
    cpu.synchronize()
    assert len(read(runtime)) == 0  # an op of an earlier session pushes nothing
    runtime.hk_activity_enable(0)
    module.get_function("empty")[1, 1]()
    cpu.synchronize()
    assert len(read(runtime)) == 0


def test_work_a_fault_dropped_has_a_record_that_it_never_ran(cpu, module, runtime):
    spin_for, store_one, empty = (module.get_function(n) for n in ("spin_for", "store_one", "empty"))
    when = hipkit.zeros(2, np.int64)
    read(runtime)  # the memset's
    try:
        before = time.perf_counter_ns()
        spin_for[1, 1](100_000_000, when)  # keeps the launches behind it queued
        store_one[1, 1](8)  # an illegal address
        for _ in range(3):
            empty[1, 1]()
        with pytest.raises(HipError):
            cpu.synchronize()
        records = read(runtime)
    finally:
        cpu.reset()
    assert [name_of(r) for r in records] == ["spin_for", "store_one", "empty", "empty", "empty"]
    assert list(records["status"]) == [0, 0, 1, 1, 1]  # HK_ACTIVITY_RAN, then _NEVER_RAN
    never_ran = records[2:]
    assert (never_ran["start_ns"] == 0).all() and (never_ran["end_ns"] == 0).all()
    assert (before <= records["call_ns"]).all() and (records["call_ns"] <= records["enqueue_ns"]).all()


def test_a_refused_launch_has_a_record_with_its_error(cpu, module, runtime):
    empty = module.get_function("empty")
    before = time.perf_counter_ns()
    with pytest.raises(HipError) as refused:
        empty[1, 2048]()
    (record,) = read(runtime)
    assert (name_of(record), record["status"], record["error"]) == ("empty", 2, refused.value.code)
    assert list(record["block"]) == [2048, 1, 1] and record["thread_id"] == threading.get_native_id()
    assert before <= record["call_ns"] <= record["enqueue_ns"] and record["start_ns"] == 0


def test_a_launch_asks_for_a_read_once_enough_records_wait(cpu, module, runtime):
    """hk_activity_notify: the launch that finds that many records waiting answers
    HK_ACTIVITY_READ_SOON (having launched), and no other until a read."""
    empty = module.get_function("empty")
    answers = []
    runtime.hk_activity_notify(4)
    try:
        for _ in range(8):
            answers.append(
                runtime.hkrt_launch_packed(
                    0,
                    empty.info.handle,
                    (ctypes.c_uint32 * 3)(1, 1, 1),
                    (ctypes.c_uint32 * 3)(1, 1, 1),
                    0,
                    None,
                    b"",
                    0,
                )
            )
            cpu.synchronize()
        waiting = runtime.hk_activity_waiting()
        records = read(runtime)
        one = (ctypes.c_uint32 * 3)(1, 1, 1)
        after_read = runtime.hkrt_launch_packed(0, empty.info.handle, one, one, 0, None, b"", 0)
    finally:
        runtime.hk_activity_notify(0)
    # 4 records wait at the fifth launch, or at the fourth if its own kernel ran before it returned
    assert answers in ([0, 0, 0, 0, 0x48500001, 0, 0, 0], [0, 0, 0, 0x48500001, 0, 0, 0, 0])
    assert waiting == len(records) == 8 and after_read == 0


# ------------------------------------------------------------------ accuracy


def test_kernel_times_agree_with_the_host_clock_and_the_kernel_itself(cpu, module, runtime):
    """A kernel that spins for a known time and notes, on the same clock, when it
    began and ended: the record's start and end enclose that, after the enqueue
    and before the synchronize returned, and the duration is close to the
    kernel's own (the closest of five runs: this machine may be busy)."""
    spin_for = module.get_function("spin_for")
    when = hipkit.zeros(2, np.int64)
    read(runtime)  # the memset's
    for ns in (2_000_000, 6_000_000):
        slack = []
        for _ in range(5):
            called = time.perf_counter_ns()
            spin_for[1, 1](ns, when)
            cpu.synchronize()
            returned = time.perf_counter_ns()
            (record,) = [r for r in read(runtime) if r["kind"] == 1]  # when.get() is a copy
            began, ended = when.get().tolist()
            assert called <= record["enqueue_ns"] <= record["start_ns"] <= began
            assert ns <= ended - began and ended <= record["end_ns"] <= returned
            slack.append((record["end_ns"] - record["start_ns"]) - (ended - began))
        assert min(slack) < 100_000, slack


def test_the_profiles_kernel_times_are_the_runtimes(cpu, module):
    spin_for = module.get_function("spin_for")
    when = hipkit.zeros(2, np.int64)
    slack = []
    with cpu, hipkit.profile() as p:
        for _ in range(5):
            before = time.perf_counter_ns()
            spin_for[1, 1](1_000_000, when)
            cpu.synchronize()
            after = time.perf_counter_ns()
            kernel = p.kernels[-1]
            began, ended = when.get().tolist()
            assert before <= kernel.start_ns <= began and ended <= kernel.end_ns <= after
            slack.append(kernel.duration_ns - (ended - began))
    assert min(slack) < 100_000, slack
    assert p.meta["device_timestamps"]["cpu"] == dict(source="platform", host_times=0, unmatched_records=0)


# ------------------------------------------------------------------ the tracer's matching


def test_match_claims_each_record_for_the_call_that_enqueued_it():
    # entries: (domain, device, stream, thread, host start, host end, correlation)
    entries = [
        ("kernel", 0, 0, 1, 100, 200, 1),
        ("copy", 0, 0, 1, 300, 400, 2),
        ("kernel", 0, 0, 2, 150, 250, 3),
        ("kernel", 0, 0, 2, 260, 270, 4),  # no record: its work never ran
    ]
    records = [
        (2, 160, 500, 600),  # thread 2's first call
        (1, 350, 700, 800),  # thread 1's copy, in two pieces
        (1, 390, 810, 900),
        (1, 120, 300, 320),
        (1, 250, 330, 340),  # between two calls of thread 1: no call of the trace made it
        (1, 450, 910, 920),  # after every call of thread 1: its entry may not be pending yet
        (3, 100, 110, 120),  # a thread with no entry
    ]
    spans, later, stray = match(entries, records)
    assert spans == [(300, 320), (700, 900), (500, 600), None]
    assert later == [5, 6] and stray == [4]
    assert match(entries, []) == ([None] * 4, [], [])
    assert match([], records[:1]) == ([], [0], [])


def test_records_the_trace_did_not_ask_for_are_not_strays(cpu, module):
    """A kernel the filters leave out and copies with the copy domain off still
    have records: each is claimed by its call, none counted as unmatched; a copy
    enqueued behind the tracer's back (the platform's own method) is.  A launch
    is described by its record: the tracer sees it even there."""
    empty, scale = module.get_function("empty"), module.get_function("scale<float>")
    x = hipkit.zeros(64, np.float32)
    platform = cpu.platform
    with cpu, hipkit.profile(kernel_include_regex="scale", memory_copy_trace=False) as p:
        empty[1, 1]()
        scale[1, 64](x, np.float32(2))
        x.get()
        type(platform).memset(platform, 0, x.ptr, 0, 4, 1, 0, False)
        type(platform).launch(
            platform, 0, scale.info, (1, 1, 1), (1, 1, 1), 0, 0, x.ptr.to_bytes(8, "little") + b"\0\0\0\x40"
        )
    assert [k.name for k in p.kernels] == ["scale<float>"] * 2 and p.copies == []
    assert p.meta["device_timestamps"]["cpu"]["unmatched_records"] == 1


def test_work_dropped_by_a_fault_keeps_its_host_times(cpu, module):
    spin_for, store_one, empty = (module.get_function(n) for n in ("spin_for", "store_one", "empty"))
    when = hipkit.zeros(2, np.int64)
    try:
        with cpu, hipkit.profile() as p:
            spin_for[1, 1](100_000_000, when)
            store_one[1, 1](8)
            for _ in range(3):
                empty[1, 1]()
            with pytest.raises(HipError):
                cpu.synchronize()
    finally:
        cpu.reset()
    kernels = p.kernels
    assert [k.name for k in kernels] == ["spin_for", "store_one", "empty", "empty", "empty"]
    launches = {c.correlation_id: c for c in p.api_calls if c.function == "hipModuleLaunchKernel"}
    for k in kernels[2:]:  # never ran: the times of the launch call
        call = launches[k.correlation_id]
        assert (k.start_ns, k.end_ns) == (call.start_ns, call.end_ns)
    assert kernels[0].duration_ns >= 100_000_000
    assert p.meta["device_timestamps"]["cpu"]["host_times"] == 3


def test_entries_wait_for_work_still_running_without_rereading_each_call(cpu, module, monkeypatch):
    """Memsets queued behind a long kernel: their entries stay pending through
    reads that find no record, the next read comes a batch later (not at every
    call), and past the most allowed the tracer waits for the device."""
    monkeypatch.setattr(_activity, "PENDING_HIGH", 20)
    monkeypatch.setattr(_activity, "PENDING_MAX", 60)
    drains = []
    drain = _activity.Activity.drain

    def counted(self, **options):
        drains.append(options)
        drain(self, **options)

    monkeypatch.setattr(_activity.Activity, "drain", counted)
    spin_for = module.get_function("spin_for")
    when = hipkit.zeros(2, np.int64)
    stream = hipkit.Stream()
    with cpu, hipkit.profile(hip_trace=False) as p:
        spin_for[1, 1, 0, stream](200_000_000, when)
        for _ in range(100):
            hipkit.hip.hipMemsetAsync(when, 0, 8, stream)
            (activity,) = [t for t in p._tracer._timings() if t.platform is cpu.platform]
            assert len(activity.pending) <= 61
    hipkit.hip.hipStreamSynchronize(stream)  # HIP's hold on `when` for its async memsets ends
    assert drains[:4] == [{}, {}, {}, {"wait": True}]  # at 21, 42 and 61 entries; waiting at 61
    assert len(p.kernels) == 1 and len(p.copies) == 100
    assert p.meta["device_timestamps"]["cpu"]["host_times"] == 0


def test_an_unload_by_the_garbage_collector_is_no_api_call(cpu):
    gc.collect()  # earlier tests' modules: only this test's garbage is collected below
    with cpu, hipkit.profile() as p:
        garbage = hipkit.compile(SOURCE, device=cpu)
        garbage.get_function("empty")  # a kernel refers to its module: a reference cycle
        del garbage
        gc.collect()
        kept = hipkit.compile(SOURCE, device=cpu)
        kept.unload()
    functions = [c.function for c in p.api_calls]
    assert functions.count("hipModuleLoadData") == 2 and functions.count("hipModuleUnload") == 1
    assert p.meta["module_unloads_by_finalizer"] == 1


def test_a_platform_whose_timestamps_fail_falls_back(cpu, module, monkeypatch, caplog):
    """activity_start failing: timing events instead; activity_read failing: the
    work keeps the host times of its calls.  Both say so."""
    empty = module.get_function("empty")
    platform = cpu.platform

    def fails(*args):
        raise HipError(999, "no timestamps today")

    with monkeypatch.context() as patch, caplog.at_level(logging.WARNING, logger="hipkit"):
        patch.setattr(platform, "activity_start", fails)
        with cpu, hipkit.profile() as p:
            empty[1, 1]()
    assert "events will" in caplog.text and p.meta["device_timestamps"]["cpu"]["source"] == "events"
    assert len(p.kernels) == 1
    caplog.clear()
    x = hipkit.zeros(4, np.float32)
    with monkeypatch.context() as patch, caplog.at_level(logging.WARNING, logger="hipkit"):
        patch.setattr(platform, "activity_read", fails)
        with cpu, hipkit.profile(hip_trace=False) as p:
            x.fill(1)
            x.fill(2)
            empty[1, 1]()
    assert "records could not be read" in caplog.text and "2 record(s) of cpu have host times" in caplog.text
    assert len(p.copies) == 2 and p.meta["device_timestamps"]["cpu"]["host_times"] == 2
    # a launch has no entry of the tracer's own: its record is all there is
    assert "launches since the last read are missing" in caplog.text and p.kernels == []


def test_a_librarys_work_inside_a_hip_named_call_is_that_calls_kernel(cpu, monkeypatch):
    """A platform describes a vendor library's work inside a HIP-named call (a
    cuBLAS kernel on NVIDIA; on the CPU, a host task on the stream) as a launch
    record with that call's id and the work's own symbol: the profile shows it as
    the call's kernel, its name demangled, with no launch call of its own."""
    platform, made = cpu.platform, []
    correlate, read = platform.activity_correlate, platform.activity_read
    correlated = [0]

    def noting(correlation_id: int) -> None:
        correlated[0] = correlation_id
        correlate(correlation_id)

    def with_the_librarys() -> ActivityBatch:
        batch = read()
        if not made:
            return batch
        extra = np.zeros(len(made), LAUNCH_RECORD)
        for row, (correlation_id, thread, start) in zip(extra, made, strict=True):
            row["correlation_id"], row["thread_id"], row["device"] = correlation_id, thread, cpu._native
            row["call_ns"], row["return_ns"] = start, start + 1
            row["start_ns"], row["end_ns"] = start, start + 2
            row["grid"], row["block"], row["name"] = (1, 1, 1), (1, 1, 1), len(batch.names)
        made.clear()
        launches = np.concatenate([batch.launches, extra])
        return ActivityBatch(batch.work, launches, [*batch.names, "_Z22sgemm_128x64_nn_kernelPKfS0_Pfiii"])

    @hip_api
    def hipblasSgemm() -> None:  # HIP's name, as hipkit.hipblas's will be
        made.append((correlated[0], threading.get_native_id(), time.perf_counter_ns()))

    monkeypatch.setattr(platform, "activity_correlate", noting)
    monkeypatch.setattr(platform, "activity_read", with_the_librarys)
    with cpu, hipkit.profile() as p:
        hipblasSgemm()
    (call,) = p.api_calls
    (kernel,) = p.kernels
    assert call.function == "hipblasSgemm" and kernel.correlation_id == call.correlation_id
    assert kernel.name == "sgemm_128x64_nn_kernel(float const*, float const*, float*, int, int, int)"
    assert kernel.thread_id == call.thread_id and call.start_ns <= kernel.start_ns <= call.end_ns
