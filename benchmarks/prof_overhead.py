"""The profiler's cost: a loop of small launches with profiling off, then on.

Times a loop of N launches followed by a device synchronize, outside and inside
``hipkit.profile()`` (the session's start and its end, which reads every
kernel's timing events, are timed apart), interleaved over several rounds; the
best round of each counts.  Prints the ratio on/off for an empty kernel (the
launch path alone) and for the seed's vector add on a small array.

    python benchmarks/prof_overhead.py [--launches N] [--rounds R] [--n ELEMENTS]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import hipkit

SOURCE = r"""
extern "C" __global__ void empty() {}
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) C[idx] = A[idx] + B[idx];
}
"""


def loop(launch, count: int) -> float:
    """Seconds for ``count`` launches and the synchronize after them."""
    start = time.perf_counter()
    for _ in range(count):
        launch()
    hipkit.synchronize()
    return time.perf_counter() - start


def measure(name: str, launch, count: int, rounds: int) -> float:
    off = on = end = float("inf")
    for _ in range(rounds):
        off = min(off, loop(launch, count))
        with hipkit.profile() as p:  # every domain, as hipkit prof --sys-trace
            on = min(on, loop(launch, count))
            stop_start = time.perf_counter()
        end = min(end, time.perf_counter() - stop_start)
        traced = len(p.kernels)
        if traced != count:
            raise SystemExit(f"{name}: {traced} kernels traced, {count} launched")
    ratio = on / off
    print(
        f"{name:<32} off {off / count * 1e6:7.2f} us/launch   on {on / count * 1e6:7.2f} us/launch   "
        f"on/off {ratio:5.3f}   end of session {end / count * 1e6:6.2f} us/launch"
    )
    return ratio


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
    measure("empty kernel [1, 1]", lambda: empty[1, 1](), args.launches, args.rounds)
    measure(
        f"vectorAdd n={n} [{grid}, 256]",
        lambda: vector_add[grid, 256](a, a, c, n),
        args.launches,
        args.rounds,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
