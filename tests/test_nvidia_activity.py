"""The profiler's timestamps on NVIDIA: CUPTI's records paired with the
operations hipkit enqueued.  The pairing runs everywhere; what needs CUPTI on
a GPU skips with the reason where there is none."""

from __future__ import annotations

import statistics
import time
from collections import deque

import numpy as np
import pytest

import hipkit
from hipkit import platforms
from hipkit.platforms.nvidia._activity import COPY, KERNEL, MATCH_WINDOW, SET, _pair, unavailable_reason

REASON = platforms.status()["nvidia"] or unavailable_reason()
gpu = pytest.mark.skipif(bool(REASON), reason=f"NVIDIA platform with CUPTI absent: {REASON}")


def _notes(*entries):
    return deque((kind, shape, 7, at) for at, (kind, shape) in enumerate(entries))


def test_a_record_answers_the_oldest_note_of_its_kind_and_shape():
    notes = _notes((KERNEL, ((1, 1, 1), (32, 1, 1))), (COPY, 4096), (SET, 64))
    assert _pair(notes, KERNEL, ((1, 1, 1), (32, 1, 1)))[3] == 0
    assert _pair(notes, COPY, 4096)[3] == 1
    assert _pair(notes, SET, 64)[3] == 2
    assert not notes


def test_work_hipkit_did_not_enqueue_matches_no_note_and_leaves_the_notes():
    notes = _notes((KERNEL, ((4, 1, 1), (256, 1, 1))), (COPY, 16))
    assert _pair(notes, KERNEL, ((8, 1, 1), (128, 1, 1))) is None  # a PyTorch kernel on the stream
    assert _pair(notes, COPY, 32) is None
    assert len(notes) == 2
    assert _pair(notes, KERNEL, ((4, 1, 1), (256, 1, 1)))[3] == 0


def test_notes_whose_records_never_came_are_passed_over_within_the_window():
    dropped = [(COPY, 8)] * MATCH_WINDOW
    notes = _notes(*dropped, (SET, 4))
    assert _pair(notes, SET, 4)[3] == MATCH_WINDOW
    assert not notes
    too_far = _notes(*([(COPY, 8)] * (MATCH_WINDOW + 1)), (SET, 4))
    assert _pair(too_far, SET, 4) is None


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
