"""The profiler's timestamps on NVIDIA: CUPTI's records of launches joined
with their calls, and copies paired with the operations hipkit enqueued.  The
joining and pairing run everywhere; what needs CUPTI on a GPU skips with the
reason where there is none."""

from __future__ import annotations

import builtins
import json
import logging
import statistics
import threading
import time
from collections import deque

import numpy as np
import pytest
from gpu_helpers import python

import hipkit
from hipkit import platforms
from hipkit.platforms.base.platform import LAUNCH_RAN, LAUNCH_REFUSED
from hipkit.platforms.nvidia.activity import MATCH_WINDOW, Activity, _pair, unavailable_reason
from hipkit.platforms.nvidia.cupti_buffers import CALLS, COPY, EXTERNALS, KERNELS, SET, Buffers
from hipkit.platforms.nvidia.launch_records import STALE_NS, Launches

REASON = platforms.status()["nvidia"] or unavailable_reason()
gpu = pytest.mark.skipif(bool(REASON), reason=f"NVIDIA platform with CUPTI absent: {REASON}")


def _notes(*entries):
    return deque((kind, shape, 7, at) for at, (kind, shape) in enumerate(entries))


def test_a_record_answers_the_oldest_note_of_its_kind_and_size():
    notes = _notes((SET, 256), (COPY, 4096), (SET, 64))
    assert _pair(notes, SET, 256)[3] == 0
    assert _pair(notes, COPY, 4096)[3] == 1
    assert _pair(notes, SET, 64)[3] == 2


def test_work_hipkit_did_not_enqueue_matches_no_note_and_leaves_the_notes():
    notes = _notes((SET, 1024), (COPY, 16))
    assert _pair(notes, SET, 2048) is None  # a PyTorch memset on the stream
    assert _pair(notes, COPY, 32) is None
    assert len(notes) == 2
    assert _pair(notes, SET, 1024)[3] == 0


def test_notes_whose_records_never_came_are_passed_over_within_the_window():
    dropped = [(COPY, 8)] * MATCH_WINDOW
    notes = _notes(*dropped, (SET, 4))
    assert _pair(notes, SET, 4)[3] == MATCH_WINDOW
    assert not notes
    too_far = _notes(*([(COPY, 8)] * (MATCH_WINDOW + 1)), (SET, 4))
    assert _pair(too_far, SET, 4) is None


# The kernel names CUPTI's records gave, which KERNELS' "name" indexes: two of hipkit's,
# a cuBLAS-like kernel (a symbol hipkit never looked up) and one of PyTorch's.
SYMBOLS = ["_Z5scaleIfEvPT_i", "empty", "_Z22sgemm_128x64_nn_kernelPKfS0_Pfiii", "_ZN2at6native6kernelEv"]
SCALE, EMPTY, SGEMM, TORCH = range(len(SYMBOLS))
GRID, BLOCK = (2, 1, 1), (64, 1, 1)


def _kernels(*rows):
    """KERNELS of (correlation, stream id, start, end, name, dynamic and static shared bytes)."""
    return np.array([(c, 0, sid, t0, t1, n, GRID, BLOCK, d, s) for c, sid, t0, t1, n, d, s in rows], KERNELS)


def _calls(*rows):
    """CALLS of (correlation, thread, start, end, result), as read: no external id yet."""
    return np.array([(*row, 0) for row in rows], CALLS)


@pytest.fixture
def launches(monkeypatch) -> Launches:
    """The joining of launch records, without CUPTI: streams are their own handles."""
    monkeypatch.setattr(Buffers, "symbols", list(SYMBOLS))
    return Launches(
        {SYMBOLS[SCALE]: "scale<float>", "empty": "empty"}, lambda devices, stream_ids: stream_ids
    )


def _join(launches, kernels=(), calls=(), externals=(), api=None, now=0):
    """One read's records joined; ``api``: the correlation ids of its API calls
    (default: those of its launch calls); CUPTI's clock 1000 ahead of the host's."""
    calls = [_calls(*calls)] if calls else []
    if api is None:
        api = [c["correlation_id"] for c in calls]
    else:
        api = [np.array(api, np.int64)]
    externals = [np.array(list(externals), EXTERNALS)] if externals else []
    return launches.join([_kernels(*kernels)], calls, externals, api, offset=1000, now=now)


def _waiting(launches) -> tuple[list[int], list[int], list[int]]:
    """The correlation ids of the kernels, calls and external records that wait."""
    return tuple(
        part["correlation_id"].tolist() for part in (launches._kernels, launches._calls, launches._externals)
    )


def test_a_launch_is_its_call_joined_with_its_kernel_whichever_comes_first(launches):
    """Records of one launch may come in different reads; a kernel that is not
    hipkit's goes with its call when that is launched outside any hipkit call; a
    refused call has no kernel; a HIP-named call's id comes with the launches it
    made (CUPTI's external correlation)."""
    first = _join(
        launches,
        kernels=[(11, 7, 1500, 1600, SCALE, 16, 4), (13, 7, 1800, 1900, TORCH, 0, 0)],
        calls=[(12, 99, 1000, 1010, 0), (13, 99, 1050, 1060, 0)],
    )
    assert len(first) == 0  # neither launch is whole yet; PyTorch's kernel went with its call
    assert _waiting(launches) == ([11], [12], [])
    out = _join(
        launches,
        kernels=[(12, 7, 1700, 1710, EMPTY, 0, 0)],
        calls=[(11, 98, 900, 950, 0), (14, 98, 1100, 1105, 1)],
        externals=[(11, 5)],  # scale was launched inside the HIP-named call 5
    )
    assert out["status"].tolist() == [LAUNCH_RAN, LAUNCH_RAN, LAUNCH_REFUSED]
    assert [launches.names[i] for i in out["name"][:2].tolist()] == ["scale<float>", "empty"]
    assert out["thread_id"].tolist() == [98, 99, 98] and out["correlation_id"].tolist() == [5, 0, 0]
    assert out["call_ns"].tolist() == [-100, 0, 100] and out["return_ns"].tolist() == [-50, 10, 105]
    assert out["start_ns"].tolist() == [500, 700, 0] and out["end_ns"].tolist() == [600, 710, 0]
    assert out["grid"][:2].tolist() == [list(GRID)] * 2 and out["block"][:2].tolist() == [list(BLOCK)] * 2
    assert out["dynamic_shared"].tolist() == [16, 0, 0] and out["static_shared"].tolist() == [4, 0, 0]
    assert out["stream"].tolist() == [7, 7, 0] and out["error"].tolist() == [0, 0, 9]
    assert _waiting(launches) == ([], [], [])


def test_a_librarys_kernel_inside_a_hipkit_call_is_that_calls(launches):
    """cuBLAS launching inside a HIP-named call (hipblasSgemm, id 7): its
    cudaLaunchKernel is correlated with the call, as is every other API call it
    makes (a copy); the kernel keeps its symbol and its stream, a stream hipkit
    did not make, and has the thread and host times of the library's launch."""
    out = _join(
        launches,
        kernels=[(21, 9, 3000, 4000, SGEMM, 0, 8192)],
        calls=[(21, 98, 2000, 2100, 0)],
        externals=[(20, 7), (21, 7)],
        api=[20, 21],  # 20: the library's cuMemcpyAsync before its launch
    )
    assert out["status"].tolist() == [LAUNCH_RAN] and out["correlation_id"].tolist() == [7]
    assert launches.names[out["name"][0]] == SYMBOLS[SGEMM]  # the profile shows it demangled
    assert out["thread_id"].tolist() == [98] and out["stream"].tolist() == [9]
    assert (out["call_ns"][0], out["return_ns"][0]) == (1000, 1100)
    assert (out["start_ns"][0], out["end_ns"][0]) == (2000, 3000) and out["static_shared"][0] == 8192
    assert _waiting(launches) == ([], [], [])  # the copy's external record went with its call


def test_a_librarys_kernel_outside_any_hipkit_call_is_left_out(launches):
    """The same cuBLAS kernel launched by PyTorch outside any hipkit call, its
    kernel first or its call first: nothing is the profile's, and nothing waits."""
    assert len(_join(launches, kernels=[(31, 0, 3000, 4000, SGEMM, 0, 0)])) == 0
    assert _waiting(launches) == ([31], [], [])  # its call is yet to come
    assert len(_join(launches, calls=[(31, 98, 2000, 2100, 0), (32, 98, 2200, 2300, 0)])) == 0
    assert len(_join(launches, kernels=[(32, 0, 4000, 5000, SGEMM, 0, 0)])) == 0
    assert _waiting(launches) == ([], [], [])
    assert launches.names == [""]  # a kernel left out adds no name


def test_hipkits_kernels_and_a_librarys_mixed(launches):
    """hipkit's own launches (outside and inside HIP-named calls), a library's
    inside a call, and libraries' outside any, across two reads: each kept launch
    has its own call and its own name, the library's named once."""
    out = _join(
        launches,
        kernels=[
            (41, 0, 3000, 3100, EMPTY, 0, 0),
            (43, 0, 3200, 3300, SGEMM, 0, 0),
            (44, 0, 3400, 3500, SGEMM, 0, 0),
            (45, 0, 3600, 3700, TORCH, 0, 0),
        ],
        calls=[
            (41, 1, 2000, 2010, 0),
            (42, 1, 2020, 2030, 0),
            (43, 2, 2040, 2050, 0),
            (44, 3, 2060, 2070, 0),
        ],
        externals=[(42, 8), (43, 8)],
        api=[41, 42, 43, 44],  # PyTorch's call of 45 is yet to come
    )
    assert out["correlation_id"].tolist() == [0, 8] and out["thread_id"].tolist() == [1, 2]
    assert [launches.names[i] for i in out["name"].tolist()] == ["empty", SYMBOLS[SGEMM]]
    assert _waiting(launches) == ([45], [42], [])
    out = _join(
        launches,
        kernels=[(42, 0, 3800, 3900, SCALE, 0, 0), (46, 0, 4000, 4100, SGEMM, 0, 0)],
        calls=[(45, 3, 2080, 2090, 0), (46, 2, 2100, 2110, 0)],
        externals=[(46, 10)],
    )
    assert out["correlation_id"].tolist() == [8, 10]
    assert [launches.names[i] for i in out["name"].tolist()] == ["scale<float>", SYMBOLS[SGEMM]]
    assert launches.names == ["", "empty", SYMBOLS[SGEMM], "scale<float>"]
    assert _waiting(launches) == ([], [], [])


def test_an_external_record_waits_for_its_call_and_no_longer(launches):
    """CUPTI writes a call's external correlation record before the call's own:
    a read may bring the first without the second (the call still running), and
    the call's read resolves it, a launch or not."""
    assert len(_join(launches, externals=[(51, 9), (52, 9)], api=[])) == 0
    assert _waiting(launches) == ([], [], [51, 52])
    out = _join(
        launches, kernels=[(51, 0, 3000, 3100, SGEMM, 0, 0)], calls=[(51, 4, 2000, 2010, 0)], api=[51]
    )
    assert out["correlation_id"].tolist() == [9]
    assert _waiting(launches) == ([], [], [52])
    assert len(_join(launches, api=[52])) == 0  # hipStreamSynchronize's cuStreamSynchronize
    assert _waiting(launches) == ([], [], [])


def test_a_kernel_whose_call_never_comes_is_dropped_once_stale(launches):
    """A kernel whose launch call is none read here (a graph's) waits STALE_NS after
    it ended, then goes: the calls it could wait for have all come by then."""
    _join(launches, kernels=[(61, 0, 4000, 5000, SGEMM, 0, 0), (62, 0, 4000, 6000, EMPTY, 0, 0)], now=5100)
    assert _waiting(launches)[0] == [61, 62]
    _join(launches, now=5000 + STALE_NS)
    assert _waiting(launches)[0] == [61, 62]
    _join(launches, now=5001 + STALE_NS)
    assert _waiting(launches)[0] == [62]
    out = _join(launches, calls=[(62, 1, 3000, 3010, 0)], now=5001 + STALE_NS)
    assert [launches.names[i] for i in out["name"].tolist()] == ["empty"]


SPIN = r"""
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
}
extern "C" __global__ void empty() {}
"""


@gpu
def test_kernel_times_are_cuptis_on_the_hosts_clock():
    """Durations agree with CUDA events around each kernel alone; every kernel
    lies between its launch and the synchronize after it."""
    device = hipkit.Device(0, "nvidia")
    with device:
        module = hipkit.compile(SPIN)
        spin = module.get_function("spin")
        spin[1, 1](np.int64(1000))
        hipkit.synchronize()
        event_ms = []
        for _ in range(5):
            start, stop = hipkit.Event(), hipkit.Event()
            start.record()
            spin[1, 1](np.int64(2_000_000))
            stop.record()
            stop.synchronize()
            event_ms.append(start.elapsed_time(stop))
        with hipkit.profile() as p:
            launched = time.perf_counter_ns()
            for _ in range(5):
                spin[1, 1](np.int64(2_000_000))
            hipkit.synchronize()
            synchronized = time.perf_counter_ns()
    kernels = p.kernels
    assert len(kernels) == 5
    cupti_ms = statistics.median((k.end_ns - k.start_ns) / 1e6 for k in kernels)
    assert cupti_ms == pytest.approx(statistics.median(event_ms), rel=0.05)
    for k in kernels:
        assert launched <= k.start_ns < k.end_ns <= synchronized


@gpu
def test_short_kernels_back_to_back_are_not_stretched_by_the_host():
    """Events time the gaps between launches too; CUPTI's records do not: a
    loop of empty kernels reads a few microseconds each at most."""
    with hipkit.Device(0, "nvidia"):
        empty = hipkit.compile(SPIN).get_function("empty")
        with hipkit.profile() as p:
            for _ in range(200):
                empty[1, 1]()
            hipkit.synchronize()
    durations = [k.end_ns - k.start_ns for k in p.kernels]
    assert len(durations) == 200
    assert statistics.median(durations) < 5_000


@gpu
def test_only_hipkits_kernels_are_traced_each_with_its_call():
    """CuPy's kernels in the same process and stream have records too: they are
    not hipkit's launches.  Each of hipkit's kernels has its launch call, made on
    this thread and begun before the kernel."""
    cupy = pytest.importorskip("cupy")
    with hipkit.Device(0, "nvidia"):
        empty = hipkit.compile(SPIN).get_function("empty")
        foreign = cupy.RawKernel('extern "C" __global__ void foreign() {}', "foreign")
        foreign((1,), (1,), ())  # compiled and loaded before the profile
        with hipkit.profile() as p:
            for _ in range(3):
                empty[1, 1]()
                foreign((1,), (1,), ())
            hipkit.synchronize()
    kernels = p.kernels
    assert [k.name for k in kernels] == ["empty"] * 3
    calls = {c.correlation_id: c for c in p.api_calls if c.function == "hipModuleLaunchKernel"}
    assert len(calls) == 3 and calls.keys() == {k.correlation_id for k in kernels}
    for kernel in kernels:
        call = calls[kernel.correlation_id]
        assert call.thread_id == kernel.thread_id == threading.get_native_id()
        assert call.start_ns <= kernel.start_ns < kernel.end_ns  # it may start before the call returns


# cuBLAS inside a HIP-named call under hipkit.profile(), in a Python of its own: the
# libraries' state (cuBLAS's handle, their memory pools) must not outlive the device
# reset of a later test in this process.  Prints the trace's facts as JSON, or why no
# library here reaches cuBLAS.
CUBLAS_CHILD = r"""
import json, threading, time
import hipkit
from hipkit.hip._state import hip_api

SPIN = 'extern "C" __global__ void empty() {}'


@hip_api
def hipblasSgemm(matmul, stream):  # HIP's name, as hipkit.hipblas's calls will have
    matmul(stream)


def cublas():
    # matmul(stream): 256 x 256 float32 by cuBLAS on that CUDA stream (0: the null
    # stream), through CuPy or else PyTorch; and a stream of the library's own
    reasons = []
    try:
        import cupy
        a = cupy.ones((256, 256), cupy.float32)
        own = cupy.cuda.Stream()
        def by_cupy(stream):
            with cupy.cuda.ExternalStream(stream) if stream else cupy.cuda.Stream.null:
                cupy.matmul(a, a)
        return "CuPy", by_cupy, own.ptr, own
    except Exception as exc:  # ImportError, or CuPy without a GPU of its own
        reasons.append(f"CuPy: {type(exc).__name__}: {exc}")
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        b = torch.ones((256, 256), dtype=torch.float32, device="cuda:0")
        theirs = torch.cuda.Stream(device="cuda:0")
        def by_torch(stream):
            chosen = torch.cuda.ExternalStream(stream) if stream else torch.cuda.default_stream(0)
            with torch.cuda.stream(chosen):
                torch.matmul(b, b)
        return "PyTorch", by_torch, theirs.cuda_stream, theirs
    except Exception as exc:
        reasons.append(f"PyTorch: {type(exc).__name__}: {exc}")
    raise LookupError("; ".join(reasons))


try:
    library, matmul, library_stream, keep = cublas()
except LookupError as exc:
    print(json.dumps({"skip": f"no library here reaches cuBLAS on the GPU ({exc})"}))
    raise SystemExit(0)
device = hipkit.Device(0, "nvidia")
with device:
    empty = hipkit.compile(SPIN).get_function("empty")
    mine = hipkit.Stream()
    streams = (0, mine.handle, library_stream)
    for stream in streams:
        matmul(stream)  # cuBLAS's handle and workspace, made before the profile
    hipkit.synchronize()
    with hipkit.profile() as p:
        empty[1, 1, 0, mine]()
        for stream in streams:
            hipblasSgemm(matmul, stream)
        matmul(0)  # outside any hipkit call
        hipkit.synchronize()
        synchronized = time.perf_counter_ns()
        p.kernels  # resolved: every record read
        launches = device.platform._activity.launches
        parts = (launches._kernels, launches._calls, launches._externals)
        waiting = [part["correlation_id"].tolist() for part in parts]
facts = {
    "library": library,
    "thread": threading.get_native_id(),
    "synchronized": synchronized,
    "waiting": waiting,
    "calls": [c.as_dict() for c in p.api_calls],
    "kernels": [k.as_dict() for k in p.kernels],
}
print(json.dumps(facts))
"""


@gpu
def test_a_vendor_librarys_kernels_inside_a_hipkit_call_are_that_calls():
    """cuBLAS launching inside a HIP-named call: its kernels are in the trace
    under their own names (demangled), on their streams (the null stream,
    hipkit's, the library's own), correlated with the call and on its thread,
    with no launch call of their own; the same product outside any hipkit call
    is not in the trace; every launch call CUPTI recorded found its kernel and
    every external correlation record its call."""
    done = python(CUBLAS_CHILD, HIPKIT_PLATFORM="nvidia")
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in facts:
        pytest.skip(facts["skip"])
    assert facts["waiting"] == [[], [], []]
    calls = [c for c in facts["calls"] if c["function"] == "hipblasSgemm"]
    assert len(calls) == 3, facts["calls"]
    (ours,) = [k for k in facts["kernels"] if k["name"] == "empty"]
    launch_calls = [c["correlation_id"] for c in facts["calls"] if c["function"] == "hipModuleLaunchKernel"]
    assert launch_calls == [ours["correlation_id"]]
    library = [k for k in facts["kernels"] if k["name"] != "empty"]
    # each call has kernels, and none came from the product outside any hipkit call
    assert {k["correlation_id"] for k in library} == {c["correlation_id"] for c in calls}, facts
    shown_on = []
    for call in calls:
        kernels = [k for k in library if k["correlation_id"] == call["correlation_id"]]
        for kernel in kernels:
            assert kernel["thread_id"] == call["thread_id"] == facts["thread"]
            assert call["start_ns"] <= kernel["start_ns"] < kernel["end_ns"] <= facts["synchronized"]
            assert kernel["device"] == ours["device"] and not kernel["name"].startswith("_Z")
        shown_on.append({k["stream"] for k in kernels})
    assert shown_on[0] == {0} and shown_on[1] == {ours["stream"]}, facts["library"]
    assert len(shown_on[2]) == 1 and shown_on[2].isdisjoint({0, ours["stream"]}), facts["library"]


@gpu
def test_streams_made_after_a_device_reset_are_told_apart():
    """A reset destroys the context's streams: the platform forgets their handles
    and CUPTI's ids of them, so the next profile names the new streams right."""
    device = hipkit.Device(0, "nvidia")
    with device:
        empty = hipkit.compile(SPIN).get_function("empty")
        before = hipkit.Stream()
        with hipkit.profile():
            empty[1, 1, 0, before]()
            hipkit.synchronize()
        device.reset()
        empty = hipkit.compile(SPIN).get_function("empty")
        streams = [hipkit.Stream(), hipkit.Stream()]
        with hipkit.profile() as p:
            for stream in streams:
                empty[1, 1, 0, stream]()
            empty[1, 1]()
            hipkit.synchronize()
    kernels = p.kernels
    assert len(kernels) == 3 and len({k.stream for k in kernels}) == 3
    assert kernels[2].stream == 0  # the null stream: number 0 on every device


def test_cupti_refusing_a_kind_turns_off_those_turned_on(monkeypatch, caplog):
    """A kind CUPTI will not record: the kinds already turned on are turned off
    again and the error reaches the platform (which profiles with events then);
    only CUDA's launches outside API calls may be missing, which leaves the rest."""
    try:
        from cupti import cupti
    except (ImportError, OSError) as exc:
        pytest.skip(f"cupti-python is needed for its activity kinds (pip install 'hipkit[nvidia]'): {exc}")
    kinds, on = cupti.ActivityKind, []
    refused = {kinds.RUNTIME}

    def enable(kind):
        if kind in refused:
            raise RuntimeError(f"CUPTI_ERROR_NOT_COMPATIBLE: {kind!r}")
        on.append(kind)

    monkeypatch.setattr(Buffers, "registered", True)  # no libcupti, no buffers lent
    monkeypatch.setattr(Buffers, "sink", None)
    for name, fake in {
        "activity_enable": enable,
        "activity_disable": on.remove,
        "activity_flush_all": lambda forced: None,
        "set_thread_id_type": lambda kind: None,
    }.items():
        monkeypatch.setattr(cupti, name, fake)
    with pytest.raises(RuntimeError, match="NOT_COMPATIBLE"):
        Activity(lambda device: 0, {}, {})
    assert on == [] and Buffers.sink is None
    internal = getattr(kinds, "INTERNAL_LAUNCH_API", None)  # cupti-python 13.0 may lack it
    refused = {internal}
    with caplog.at_level(logging.DEBUG, logger="hipkit"):
        activity = Activity(lambda device: 0, {}, {})
    assert kinds.RUNTIME in on and kinds.CONCURRENT_KERNEL in on and not refused & set(on)
    assert internal is None or "launches outside API calls are not recorded" in caplog.text
    activity.stop()
    assert on == [] and Buffers.sink is None


@pytest.mark.parametrize(
    ("missing", "reason"),
    [
        ("cupti", "cupti-python is not installed"),
        ("elftools", "cupti-python could not be imported (elftools"),
    ],
)
def test_why_cupti_is_unavailable_names_what_is_missing(monkeypatch, missing, reason):
    """cupti-python absent, or present without a package it needs (pyelftools):
    the profiler's fallback to events, and the skips here, say which."""
    real = builtins.__import__

    def importing(name, *args, **kwargs):
        if name == "cupti":
            raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", importing)
    assert unavailable_reason().startswith(reason)
