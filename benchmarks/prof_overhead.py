"""The profiler's cost: a loop of small launches with profiling off, then on.

Times a loop of N launches followed by a device synchronize, outside and inside
``hipkit.profile()`` (the session's end, which resolves every kernel's device
times, is timed apart), interleaved over several rounds; the best round of each
counts.  Profiling runs twice: with the device times the platform takes itself
(Platform.activity_start; the CPU runtime stamps its work in C++) and with the
timing events the profiler falls back to without them.  Prints the ratio on/off
for an empty kernel (the launch path alone) and for the seed's vector add on a
small array.

    python benchmarks/prof_overhead.py [--launches N] [--rounds R] [--n ELEMENTS]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator

import numpy as np

import hipkit
from hipkit.platforms.base.platform import Platform

SOURCE = r"""
extern "C" __global__ void empty() {}
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) C[idx] = A[idx] + B[idx];
}
"""
# How device work is timed: the platform's own timestamps, or timing events.
SOURCES = ("platform", "events")


def loop(launch, count: int) -> float:
    """Seconds for ``count`` launches and the synchronize after them."""
    start = time.perf_counter()
    for _ in range(count):
        launch()
    hipkit.synchronize()
    return time.perf_counter() - start


@contextlib.contextmanager
def device_times(platform: Platform, source: str) -> Iterator[None]:
    """Profile with the platform's own timestamps, or as if it had none (events)."""
    if source == "events":
        platform.activity_start = lambda: False  # type: ignore[method-assign]
    try:
        yield
    finally:
        platform.__dict__.pop("activity_start", None)


def measure(name: str, launch, count: int, rounds: int, platform: Platform) -> None:
    off = float("inf")
    on = dict.fromkeys(SOURCES, float("inf"))
    end = dict.fromkeys(SOURCES, float("inf"))
    used = {}
    for _ in range(rounds):
        off = min(off, loop(launch, count))
        for source in SOURCES:
            with device_times(platform, source), hipkit.profile() as p:  # every domain, as --sys-trace
                on[source] = min(on[source], loop(launch, count))
                stop_start = time.perf_counter()
            end[source] = min(end[source], time.perf_counter() - stop_start)
            traced = len(p.kernels)
            if traced != count:
                raise SystemExit(f"{name}: {traced} kernels traced, {count} launched")
            used[source] = p.meta["device_timestamps"][platform.name]["source"]
    print(f"{name:<32} off {off / count * 1e6:7.2f} us/launch")
    for source in SOURCES:
        label = {"platform": "platform's timestamps", "events": "timing events"}[used[source]]
        print(
            f"  {label:<30} on  {on[source] / count * 1e6:7.2f} us/launch   on/off {on[source] / off:5.3f}   "
            f"end of session {end[source] / count * 1e6:6.2f} us/launch"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10_000, help="launches per loop")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (the best counts)")
    parser.add_argument("--n", type=int, default=4096, help="elements of the vector add")
    args = parser.parse_args()
    device = hipkit.get_device()
    print(f"Device: {device.name} ({device.platform.name}); {args.launches} launches per loop")
    module = hipkit.compile(SOURCE)
    empty, vector_add = module.get_function("empty"), module.get_function("vectorAdd")
    n = args.n
    a = hipkit.to_device(np.ones(n, np.float32))
    c = hipkit.empty(n, np.float32)
    grid = (n + 255) // 256
    loop(lambda: empty[1, 1](), 1000)  # warm-up
    measure("empty kernel [1, 1]", lambda: empty[1, 1](), args.launches, args.rounds, device.platform)
    measure(
        f"vectorAdd n={n} [{grid}, 256]",
        lambda: vector_add[grid, 256](a, a, c, n),
        args.launches,
        args.rounds,
        device.platform,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
