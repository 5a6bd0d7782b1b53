"""The profiler's cost: a loop of small launches with profiling off, then on.

Times a loop of N launches followed by a device synchronize, outside and inside
``hipkit.profile()`` (the session's end, which resolves every kernel's device
times, is timed apart), interleaved over several rounds; the best round of each
counts.  Profiling runs twice: with the device times the platform takes itself
(Platform.activity_start; the CPU runtime stamps its work in C++) and with the
timing events the profiler falls back to without them.  Prints the ratio on/off
for an empty kernel (the launch path alone) and for the seed's vector add on a
small array.  With --second-tool, a second tool at the hook point (one that
counts launches and passes every call on) is timed too, alone and installed
after the profiler: what stacking tools adds.

    python benchmarks/prof_overhead.py [--launches N] [--rounds R] [--n ELEMENTS] [--second-tool]
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
from hipkit.runtime import hooks

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


class LaunchCounter:
    """A second tool at the hook point: it counts launches and passes every call on."""

    def __init__(self) -> None:
        self.launches = 0

    def wrap(self, platform: Platform, name: str, original):
        if name != "launch":
            return None

        def launch(*args):
            self.launches += 1
            return original(*args)

        return launch

    def api_call(self, name: str, fn, args: tuple, kwargs: dict):
        return fn(*args, **kwargs)


@contextlib.contextmanager
def second_tool(wanted: bool, count: int) -> Iterator[None]:
    """The launch counter installed for the block (if wanted), which must see every launch."""
    if not wanted:
        yield
        return
    tool = LaunchCounter()
    hooks.install(tool)
    try:
        yield
    finally:
        hooks.uninstall(tool)
    if tool.launches != count:
        raise SystemExit(f"the second tool saw {tool.launches} launches of {count}")


def measure(name: str, launch, count: int, rounds: int, platform: Platform, second: bool) -> None:
    configurations = [False, True] if second else [False]  # without, with the second tool
    off = dict.fromkeys(configurations, float("inf"))
    on = {(source, c): float("inf") for source in SOURCES for c in configurations}
    end = dict.fromkeys(on, float("inf"))
    used = {}
    for _ in range(rounds):
        for with_second in configurations:
            with second_tool(with_second, count):
                off[with_second] = min(off[with_second], loop(launch, count))
            for source in SOURCES:
                key = (source, with_second)
                # every domain, as --sys-trace; the second tool after the profiler
                with device_times(platform, source), hipkit.profile() as p:
                    with second_tool(with_second, count):
                        on[key] = min(on[key], loop(launch, count))
                    stop_start = time.perf_counter()
                end[key] = min(end[key], time.perf_counter() - stop_start)
                traced = len(p.kernels)
                if traced != count:
                    raise SystemExit(f"{name}: {traced} kernels traced, {count} launched")
                used[source] = p.meta["device_timestamps"][platform.name]["source"]
    base = off[False]
    print(f"{name:<32} off {base / count * 1e6:7.2f} us/launch")
    if second:
        label = "second tool alone"
        print(f"  {label:<42} {off[True] / count * 1e6:7.2f} us/launch   on/off {off[True] / base:5.3f}")
    for (source, with_second), seconds in on.items():
        label = {"platform": "platform's timestamps", "events": "timing events"}[used[source]]
        label = f"on, {label}" + (" + second tool" if with_second else "")
        print(
            f"  {label:<42} {seconds / count * 1e6:7.2f} us/launch   on/off {seconds / base:5.3f}   "
            f"end of session {end[source, with_second] / count * 1e6:6.2f} us/launch"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10_000, help="launches per loop")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (the best counts)")
    parser.add_argument("--n", type=int, default=4096, help="elements of the vector add")
    parser.add_argument("--second-tool", action="store_true", help="time a second tool, alone and stacked")
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
    second = args.second_tool
    measure("empty kernel [1, 1]", lambda: empty[1, 1](), args.launches, args.rounds, device.platform, second)
    measure(
        f"vectorAdd n={n} [{grid}, 256]",
        lambda: vector_add[grid, 256](a, a, c, n),
        args.launches,
        args.rounds,
        device.platform,
        second,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
