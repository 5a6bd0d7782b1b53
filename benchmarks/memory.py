"""The memory pool: hipkit.empty with the pool caching and not, beside NumPy's np.empty.

Each round makes one array and drops it, so that with the pool the next round gets
the same block back; without it every round is the platform's malloc and free (on
the CPU an mmap and munmap).  A library call that makes a fresh output each time
(``hipkit.random``'s ``random``) is timed the same two ways.  Prints the median of
many rounds in microseconds and the ratios, measured in the same run.

    PYTHONPATH=src python benchmarks/memory.py [--elements 65536] [--rounds 5000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import hipkit


def median_us(run: Callable[[], object], rounds: int) -> float:
    run()  # warm up: the first block, the first kernel
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=65536)
    parser.add_argument("--rounds", type=int, default=5000)
    args = parser.parse_args()
    n, rounds = args.elements, args.rounds
    device = hipkit.get_device()
    pool = hipkit.get_default_memory_pool(device)
    generator = hipkit.random.default_rng(1)

    def random() -> None:
        generator.random(n, np.float32)
        device.synchronize()

    def timed() -> tuple[float, float]:
        return median_us(lambda: hipkit.empty((n,), np.float32), rounds), median_us(random, rounds // 5)

    pooled, pooled_random = timed()
    pool.set_caching(False)
    unpooled, unpooled_random = timed()
    pool.set_caching(True)
    numpy = median_us(lambda: np.empty((n,), np.float32), rounds)

    print(f"{device.platform.name} ({device.name}): {n} float32 ({4 * n // 1024} KiB), median of {rounds}")
    print(f"hipkit.empty, pool on    {pooled:8.2f} us")
    print(f"hipkit.empty, pool off   {unpooled:8.2f} us   ratio off/on {unpooled / pooled:6.1f}x")
    print(f"np.empty                 {numpy:8.2f} us   ratio pool on/NumPy {pooled / numpy:6.1f}x")
    print(f"random(n) + sync, on     {pooled_random:8.2f} us")
    ratio = unpooled_random / pooled_random
    print(f"random(n) + sync, off    {unpooled_random:8.2f} us   ratio off/on {ratio:6.2f}x")


if __name__ == "__main__":
    main()
