"""Streams and events: per-stream order, cross-stream waits, the null stream's
synchronization with blocking streams, queries and timing.

Slow kernels spin on ``wall_clock64()`` for a known time; its rate is measured
against the host clock first, so the tests need no platform's tick rate.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import hipkit
from hipkit import config

SOURCE = r"""
extern "C" __global__ void affine_step(unsigned* x, unsigned k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 3u + k;
}
extern "C" __global__ void spin(long long ticks) {
    long long start = wall_clock64();
    while (wall_clock64() - start < ticks) {}
}
extern "C" __global__ void spin_then_write(long long ticks, int* flag, int value) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        long long start = wall_clock64();
        while (wall_clock64() - start < ticks) {}
        __threadfence();
        *flag = value;
    }
}
extern "C" __global__ void copy_int(const int* src, int* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
extern "C" __global__ void stamp(long long* out, int i) { out[i] = wall_clock64(); }
"""

N = 1000


def launch_1d(kernel, n: int, *args, stream=None) -> None:
    kernel[(n + 127) // 128, 128, 0, stream](*args)


def step_reference(x: np.ndarray, ks) -> np.ndarray:
    x = x.astype(np.uint32)
    for k in ks:
        x = x * np.uint32(3) + np.uint32(k)
    return x


class Spinner:
    """Launches kernels that busy-wait for a given number of milliseconds."""

    def __init__(self, mod: hipkit.Module, device: hipkit.Device):
        self.mod = mod
        out = hipkit.zeros(2, np.int64)
        stamp = mod.get_function("stamp")
        stamp[1, 1](out, 0)
        device.synchronize()
        t0 = time.perf_counter()
        time.sleep(0.05)
        t1 = time.perf_counter()
        stamp[1, 1](out, 1)
        device.synchronize()
        ticks = out.get()
        self.ticks_per_ms = (ticks[1] - ticks[0]) / ((t1 - t0) * 1e3)
        assert self.ticks_per_ms > 0

    def ticks(self, ms: float) -> int:
        return int(ms * self.ticks_per_ms)

    def spin(self, ms: float, stream=None) -> None:
        self.mod.get_function("spin")[1, 1, 0, stream](self.ticks(ms))

    def spin_then_write(self, ms: float, flag, value: int, stream=None) -> None:
        self.mod.get_function("spin_then_write")[1, 1, 0, stream](self.ticks(ms), flag, value)


def launches_are_asynchronous() -> bool:
    return not config.get("HIP_LAUNCH_BLOCKING")


# ------------------------------------------------------------------ order on a stream


def test_kernel_chains_on_several_streams_run_in_order(device, rng):
    mod = hipkit.compile(SOURCE)
    step = mod.get_function("affine_step")
    streams = [hipkit.Stream() for _ in range(3)]
    hosts = [rng.integers(0, 2**32, N, dtype=np.uint32) for _ in streams]
    keys = [rng.integers(0, 2**32, 30, dtype=np.uint32) for _ in streams]
    arrays = [hipkit.empty(N, np.uint32) for _ in streams]
    for s, d, h in zip(streams, arrays, hosts, strict=True):
        d.set(h, stream=s)
    # Interleaved: each launch depends on the one before it on its own stream.
    for j in range(30):
        for s, d, k in zip(streams, arrays, keys, strict=True):
            launch_1d(step, N, d, int(k[j]), N, stream=s)
    outs = [np.empty(N, np.uint32) for _ in streams]
    for s, d, out in zip(streams, arrays, outs, strict=True):
        d.get(stream=s, out=out)
    for s, h, k, out in zip(streams, hosts, keys, outs, strict=True):
        s.synchronize()
        np.testing.assert_array_equal(out, step_reference(h, k))


def test_async_copies_order_with_kernels(device, rng):
    mod = hipkit.compile(SOURCE)
    step = mod.get_function("affine_step")
    s = hipkit.Stream()
    host = rng.integers(0, 2**32, N, dtype=np.uint32)
    k1, k2 = (int(k) for k in rng.integers(0, 2**32, 2, dtype=np.uint32))
    a = hipkit.empty(N, np.uint32)
    a.set(host, stream=s)
    launch_1d(step, N, a, k1, N, stream=s)
    b = a.copy(stream=s)  # device-to-device, after the first step
    launch_1d(step, N, a, k2, N, stream=s)
    out_a, out_b = np.empty(N, np.uint32), np.empty(N, np.uint32)
    a.get(stream=s, out=out_a)
    b.get(stream=s, out=out_b)
    s.synchronize()
    np.testing.assert_array_equal(out_b, step_reference(host, [k1]))
    np.testing.assert_array_equal(out_a, step_reference(host, [k1, k2]))


def test_async_upload_does_not_read_the_host_buffer_later(device, rng):
    """As hipMemcpyAsync from pageable memory: the host buffer may be reused as
    soon as the call returns, even while earlier work on the stream is pending."""
    mod = hipkit.compile(SOURCE)
    spinner = Spinner(mod, device)
    s = hipkit.Stream()
    host = rng.integers(-(2**31), 2**31, N, dtype=np.int32)
    expected = host.copy()
    d = hipkit.zeros(N, np.int32)
    spinner.spin(100, stream=s)
    d.set(host, stream=s)
    host[:] = -1
    s.synchronize()
    np.testing.assert_array_equal(d.get(), expected)


# ------------------------------------------------------------------ queries and waits


def test_stream_and_event_query(device):
    mod = hipkit.compile(SOURCE)
    spinner = Spinner(mod, device)
    s = hipkit.Stream()
    assert s.query()  # nothing queued
    start = hipkit.Event().record(s)
    spinner.spin(300, stream=s)
    end = hipkit.Event().record(s)
    if launches_are_asynchronous():
        assert not s.query()
        assert not end.query()
    s.synchronize()
    assert s.query() and start.query() and end.query()


def test_event_synchronize_waits_for_the_work_before_it(device, rng):
    mod = hipkit.compile(SOURCE)
    spinner = Spinner(mod, device)
    s = hipkit.Stream()
    flag = hipkit.zeros(1, np.int32)
    value = int(rng.integers(1, 1000))
    spinner.spin_then_write(150, flag, value, stream=s)
    done = s.record()
    done.synchronize()
    assert done.query()
    assert flag.get()[0] == value


def test_stream_wait_makes_one_stream_wait_for_another(device, rng):
    mod = hipkit.compile(SOURCE)
    spinner = Spinner(mod, device)
    a, b = hipkit.Stream(), hipkit.Stream()
    flag, seen = hipkit.zeros(1, np.int32), hipkit.zeros(1, np.int32)
    value = int(rng.integers(1, 1000))
    spinner.spin_then_write(200, flag, value, stream=a)
    b.wait(a.record())
    mod.get_function("copy_int")[1, 1, 0, b](flag, seen, 1)
    b.synchronize()
    assert seen.get()[0] == value


def test_elapsed_time_matches_wall_time(device):
    mod = hipkit.compile(SOURCE)
    spinner = Spinner(mod, device)
    s = hipkit.Stream()
    start, stop = hipkit.Event(), hipkit.Event()
    device.synchronize()
    t0 = time.perf_counter()
    start.record(s)
    spinner.spin(50, stream=s)
    stop.record(s)
    stop.synchronize()
    wall_ms = (time.perf_counter() - t0) * 1e3
    elapsed = start.elapsed_time(stop)
    assert 40 <= elapsed <= wall_ms + 5, (elapsed, wall_ms)
    assert start.elapsed_time(start) == 0


def test_elapsed_time_of_back_to_back_events_is_not_negative(device):
    s = hipkit.Stream()
    start, stop = s.record(), s.record()
    stop.synchronize()
    assert start.elapsed_time(stop) >= 0


def test_elapsed_time_needs_timing_events(device):
    s = hipkit.Stream()
    plain, untimed = hipkit.Event(), hipkit.Event(timing=False)
    plain.record(s)
    untimed.record(s)
    s.synchronize()
    for first, second in ((plain, untimed), (untimed, plain)):
        with pytest.raises(hipkit.HipError) as info:
            first.elapsed_time(second)
        assert info.value.code == hipkit.hipError_t.hipErrorInvalidHandle
        assert info.value.name == "hipErrorInvalidHandle"


# ------------------------------------------------------------------ the null stream


def test_null_stream_waits_for_blocking_streams(device, rng):
    mod = hipkit.compile(SOURCE)
    spinner = Spinner(mod, device)
    blocking = hipkit.Stream()
    flag, seen = hipkit.zeros(1, np.int32), hipkit.zeros(1, np.int32)
    value = int(rng.integers(1, 1000))
    spinner.spin_then_write(150, flag, value, stream=blocking)
    mod.get_function("copy_int")[1, 1](flag, seen, 1)  # null stream
    assert seen.get()[0] == value  # get() is ordered on the null stream too


def test_blocking_streams_wait_for_the_null_stream(device, rng):
    mod = hipkit.compile(SOURCE)
    spinner = Spinner(mod, device)
    blocking = hipkit.Stream()
    flag, seen = hipkit.zeros(1, np.int32), hipkit.zeros(1, np.int32)
    value = int(rng.integers(1, 1000))
    spinner.spin_then_write(150, flag, value)  # null stream
    mod.get_function("copy_int")[1, 1, 0, blocking](flag, seen, 1)
    blocking.synchronize()
    assert seen.get()[0] == value


def test_non_blocking_stream_orders_only_through_events(device, rng):
    """A non-blocking stream has no implicit order with the null stream (it may
    overlap it), so only explicit waits and device synchronization are tested."""
    mod = hipkit.compile(SOURCE)
    spinner = Spinner(mod, device)
    free = hipkit.Stream(non_blocking=True)
    assert free.non_blocking and not hipkit.Stream().non_blocking
    flag, seen = hipkit.zeros(1, np.int32), hipkit.zeros(1, np.int32)
    value = int(rng.integers(1, 1000))
    spinner.spin_then_write(150, flag, value, stream=free)
    ready = free.record()
    # The null stream waits for every blocking stream, and this one waits for the event.
    hipkit.Stream().wait(ready)
    mod.get_function("copy_int")[1, 1](flag, seen, 1)
    assert seen.get()[0] == value
    # Device synchronization covers non-blocking streams.
    spinner.spin_then_write(150, flag, value + 1, stream=free)
    device.synchronize()
    assert free.query()
    assert flag.get()[0] == value + 1
