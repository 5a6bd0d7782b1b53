"""The profiler's timestamps on NVIDIA: CUPTI's records of launches joined
with their calls, and copies paired with the operations hipkit enqueued.  The
joining and pairing run everywhere; what needs CUPTI on a GPU skips with the
reason where there is none."""

from __future__ import annotations

import statistics
import threading
import time
from collections import deque

import numpy as np
import pytest

import hipkit
from hipkit import platforms
from hipkit.platforms.base import LAUNCH_RAN, LAUNCH_REFUSED
from hipkit.platforms.nvidia._activity import (
    CALL,
    COPY,
    KERNEL,
    MATCH_WINDOW,
    SET,
    Activity,
    _pair,
    unavailable_reason,
)

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


def _joining(symbols: dict[str, str]) -> Activity:
    """An Activity's joining of records, without CUPTI: streams are their own handles."""
    activity = Activity.__new__(Activity)
    activity._stream_handle = lambda device, sid: sid
    activity._symbols, activity._launch_error = symbols, lambda code: 9 if code == 1 else code
    activity._calls, activity._kernels, activity._external = {}, {}, {}
    activity.names, activity._name_index = [""], {}
    return activity


def test_a_launch_is_its_call_joined_with_its_kernel_whichever_comes_first():
    """Records of one launch may come in different reads; a kernel that is not
    hipkit's takes its call away; a refused call has no kernel; a HIP-named
    call's id comes with the launches it made (CUPTI's external correlation)."""
    activity = _joining({"_Z5scaleIfEvPT_i": "scale<float>", "empty": "empty"})
    shape = ((2, 1, 1), (64, 1, 1))
    # kernels: (correlation, device, stream id, shape, start, end, symbol, dynamic, static shared)
    scale = (11, 0, 7, shape, 1500, 1600, "_Z5scaleIfEvPT_i", 16, 4)
    empty = (12, 0, 7, shape, 1700, 1710, "empty", 0, 0)
    foreign = (13, 0, 7, shape, 1800, 1900, "_ZN2at6native6kernelEv", 0, 0)  # PyTorch's
    # calls of cuLaunchKernel: (correlation, thread, start, end, CUresult); CUPTI's clock is 1000 ahead
    calls = [(12, 99, 1000, 1010, 0), (13, 99, 1050, 1060, 0)]
    assert activity._launches({KERNEL: [scale, foreign], CALL: calls}, offset=1000) == []
    assert activity._calls.keys() == {12} and activity._kernels.keys() == {11}
    activity._external[11] = 5  # scale was launched inside the HIP-named call 5
    calls = [(11, 98, 900, 950, 0), (14, 98, 1100, 1105, 1)]
    assert activity._launches({KERNEL: [empty], CALL: calls}, offset=1000) == [
        (98, -100, -50, 500, 600, 0, 7, 1, *shape, 16, 4, LAUNCH_RAN, 0, 5),
        (98, 100, 105, 0, 0, 0, 0, 0, (0, 0, 0), (0, 0, 0), 0, 0, LAUNCH_REFUSED, 9, 0),
        (99, 0, 10, 700, 710, 0, 7, 2, *shape, 0, 0, LAUNCH_RAN, 0, 0),
    ]
    assert activity.names == ["", "scale<float>", "empty"]  # what each launch's name indexes
    assert activity._calls == {} and activity._kernels == {} and activity._external == {}


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
