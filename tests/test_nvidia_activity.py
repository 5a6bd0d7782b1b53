"""The profiler's timestamps on NVIDIA: CUPTI's records of launches joined
with their calls, and copies paired with the operations hipkit enqueued.  The
joining and pairing run everywhere; what needs CUPTI on a GPU skips with the
reason where there is none."""

from __future__ import annotations

import ctypes
import logging
import statistics
import threading
import time
from collections import deque

import numpy as np
import pytest

import hipkit
from hipkit import platforms
from hipkit.platforms.base.platform import LAUNCH_RAN, LAUNCH_REFUSED
from hipkit.platforms.nvidia import cupti_buffers
from hipkit.platforms.nvidia.activity import MATCH_WINDOW, _pair, unavailable_reason
from hipkit.platforms.nvidia.cupti_buffers import CALLS, COPY, EXTERNALS, KERNELS, SET, Buffers
from hipkit.platforms.nvidia.launch_records import Launches

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


def _joining(symbols: dict[str, str]) -> Launches:
    """The joining of launch records, without CUPTI: streams are their own handles."""
    return Launches(symbols, lambda devices, stream_ids: stream_ids)


def test_a_launch_is_its_call_joined_with_its_kernel_whichever_comes_first(monkeypatch):
    """Records of one launch may come in different reads; a kernel that is not
    hipkit's takes its call away; a refused call has no kernel; a HIP-named
    call's id comes with the launches it made (CUPTI's external correlation)."""
    # the kernel names CUPTI's records gave, which KERNELS' "name" indexes
    monkeypatch.setattr(Buffers, "symbols", ["_Z5scaleIfEvPT_i", "empty", "_ZN2at6native6kernelEv"])
    activity = _joining({"_Z5scaleIfEvPT_i": "scale<float>", "empty": "empty"})
    grid, block = (2, 1, 1), (64, 1, 1)

    def kernels(*rows):  # (correlation, stream id, start, end, name, dynamic and static shared bytes)
        return np.array(
            [(c, 0, sid, t0, t1, n, grid, block, d, s) for c, sid, t0, t1, n, d, s in rows], KERNELS
        )

    def calls(*rows):  # (correlation, thread, start, end, CUresult)
        return np.array(list(rows), CALLS)

    # CUPTI's clock is 1000 ahead of the host's
    first = activity.join(
        [kernels((11, 7, 1500, 1600, 0, 16, 4), (13, 7, 1800, 1900, 2, 0, 0))],  # scale, then PyTorch's
        [calls((12, 99, 1000, 1010, 0), (13, 99, 1050, 1060, 0))],
        offset=1000,
    )
    assert len(first) == 0  # neither launch is whole yet; the foreign kernel took its call away
    assert activity._calls["correlation_id"].tolist() == [12]
    assert activity._kernels["correlation_id"].tolist() == [11]
    activity.external([np.array([(11, 5)], EXTERNALS)])  # scale was launched inside the HIP-named call 5
    out = activity.join(
        [kernels((12, 7, 1700, 1710, 1, 0, 0))],
        [calls((11, 98, 900, 950, 0), (14, 98, 1100, 1105, 1))],
        offset=1000,
    )
    assert out["status"].tolist() == [LAUNCH_RAN, LAUNCH_RAN, LAUNCH_REFUSED]
    assert [activity.names[i] for i in out["name"][:2].tolist()] == ["scale<float>", "empty"]
    assert out["thread_id"].tolist() == [98, 99, 98] and out["correlation_id"].tolist() == [5, 0, 0]
    assert out["call_ns"].tolist() == [-100, 0, 100] and out["return_ns"].tolist() == [-50, 10, 105]
    assert out["start_ns"].tolist() == [500, 700, 0] and out["end_ns"].tolist() == [600, 710, 0]
    assert out["grid"][:2].tolist() == [list(grid)] * 2 and out["block"][:2].tolist() == [list(block)] * 2
    assert out["dynamic_shared"].tolist() == [16, 0, 0] and out["static_shared"].tolist() == [4, 0, 0]
    assert out["stream"].tolist() == [7, 7, 0] and out["error"].tolist() == [0, 0, 9]
    assert len(activity._calls) == len(activity._kernels) == 0 and activity._external == {}


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


def _buffer(*records: tuple[int, int]) -> tuple[ctypes.Array, dict[int, int]]:
    """A buffer of (kind, size) records, and each record's size by its offset."""
    buffer = ctypes.create_string_buffer(sum(size for _, size in records))
    sizes, at = {}, 0
    for kind, size in records:
        ctypes.c_uint32.from_address(ctypes.addressof(buffer) + at).value = kind
        sizes[at] = size
        at += size
    return buffer, sizes


def _cupti_walk(monkeypatch, sizes: dict[int, int]) -> list[int]:
    """cuptiActivityGetNextRecord over ``sizes``; returns the offsets it was asked from."""
    asked: list[int] = []

    def next_record(buffer, valid, record):
        at = None if record._obj.value is None else record._obj.value - buffer
        asked.append(at)
        if at is not None and at not in sizes:
            return 1  # no record begins there
        following = 0 if at is None else at + sizes[at]
        if following >= valid:
            return 1  # CUPTI_ERROR_MAX_LIMIT_REACHED
        record._obj.value = buffer + following
        return 0

    monkeypatch.setattr(Buffers, "_next", staticmethod(next_record))
    monkeypatch.setattr(Buffers, "_sizes", {})
    return asked


def test_records_are_walked_by_sizes_learned_from_cupti_once(monkeypatch):
    buffer, sizes = _buffer((10, 16), (11, 24), (10, 16), (10, 16), (11, 24), (12, 8), (10, 16))
    asked = _cupti_walk(monkeypatch, sizes)
    offsets = Buffers._offsets(ctypes.addressof(buffer), len(buffer))
    assert offsets == {10: [0, 40, 56, 104], 11: [16, 72], 12: [96]}
    assert asked == [0, 16, 96]  # CUPTI was asked once per kind
    assert Buffers._sizes == {10: 16, 11: 24, 12: 8}


def test_a_walk_that_goes_wrong_is_redone_by_cupti(monkeypatch):
    buffer, sizes = _buffer((10, 16), (11, 24), (10, 32), (11, 24))  # kind 10 of two sizes
    _cupti_walk(monkeypatch, sizes)
    assert Buffers._offsets(ctypes.addressof(buffer), len(buffer)) == {10: [0, 40], 11: [16, 72]}
    last_unknown, sizes = _buffer((10, 16), (12, 8))  # the last record's size is not CUPTI's to say
    _cupti_walk(monkeypatch, sizes)
    assert Buffers._offsets(ctypes.addressof(last_unknown), len(last_unknown)) == {10: [0], 12: [16]}


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


def test_a_buffer_hipkit_did_not_lend_is_not_read(monkeypatch, caplog):
    """CUPTI takes one registration of buffer callbacks: a buffer that comes back
    without having been lent here is another tool's, and reading it could read
    freed memory; a lent one is read and given back."""
    taken: list[dict] = []
    monkeypatch.setattr(Buffers, "sink", taken.append)
    monkeypatch.setattr(Buffers, "lent", {})
    monkeypatch.setattr(Buffers, "_records", classmethod(lambda cls, buffer, valid: {"read": buffer}))
    stranger = ctypes.create_string_buffer(64)
    with caplog.at_level(logging.WARNING, logger="hipkit"):
        Buffers._completed(None, 0, ctypes.addressof(stranger), 64, 64)
    assert taken == [] and "did not lend" in caplog.text
    address, size, count = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_size_t()
    Buffers._request(ctypes.pointer(address), ctypes.pointer(size), ctypes.pointer(count))
    assert address.value in Buffers.lent and size.value == cupti_buffers.BUFFER_BYTES
    Buffers._completed(None, 0, address.value, size.value, 64)
    assert taken == [{"read": address.value}] and Buffers.lent == {}
