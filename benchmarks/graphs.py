"""Replaying a graph against issuing its work op by op, on the default platform.

Twenty small kernels (one block each) in a chain on one stream: issued one by one
from Python, against the same twenty captured once (``hipkit.graph``) and replayed
with one launch.  Prints microseconds per round (issue + synchronize), best of
several repeats, and the ratio.

    PYTHONPATH=src python benchmarks/graphs.py [--kernels 20] [--rounds 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import hipkit

SOURCE = r"""
extern "C" __global__ void bump(float* x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 0.5f + v;
}
"""


def best(run, rounds: int, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(rounds):
            run()
        times.append((time.perf_counter() - start) / rounds)
    return min(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    device = hipkit.get_device()
    kernel = hipkit.compile(SOURCE).get_function("bump")
    x = hipkit.empty(256, np.float32)
    s = hipkit.Stream()

    def issue():
        for k in range(args.kernels):
            kernel[1, 256, 0, s](x, np.float32(k), np.int32(256))

    def op_by_op():
        issue()
        s.synchronize()

    with hipkit.graph(s) as g:
        issue()

    def replay():
        g.launch()
        s.synchronize()

    op_by_op(), replay()  # warm up
    ops = best(op_by_op, args.rounds)
    graph = best(replay, args.rounds)
    print(f"{device.platform.name}: {args.kernels} kernels per round, best of 5 x {args.rounds} rounds")
    print(f"op by op  {ops:9.1f} us/round")
    print(f"graph     {graph:9.1f} us/round")
    print(f"ratio     {ops / graph:9.2f}x (op by op / graph)")
    g.destroy()


if __name__ == "__main__":
    main()
