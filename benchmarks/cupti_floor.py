"""What CUPTI's activity records cost by themselves, on hipkit's NVIDIA launch path.

The profiler's device timestamps on NVIDIA are CUPTI's records; this measures
the floor they set.  The same loop of N empty launches and a synchronize is
timed with profiling off, with CUPTI's activity kinds enabled directly through
cupti-python (no hipkit code added: kernel records, driver-call records, both,
and the same with CUPTI's hardware tracing where the GPU has it), and under
``hipkit.profile()``; interleaved over several rounds, the best of each counts.

    python benchmarks/cupti_floor.py [--launches N] [--rounds R]     (an NVIDIA GPU, cupti-python)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import hipkit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10_000, help="launches per loop")
    parser.add_argument("--rounds", type=int, default=9, help="rounds (the best counts)")
    args = parser.parse_args()
    from cupti import cupti

    from hipkit.platforms.nvidia.cupti_buffers import Buffers

    device = hipkit.Device(0, "nvidia")
    hipkit.set_device(device)
    empty = hipkit.compile('extern "C" __global__ void empty() {}').get_function("empty")

    def loop() -> float:
        start = time.perf_counter()
        for _ in range(args.launches):
            empty[1, 1]()
        hipkit.synchronize()
        return (time.perf_counter() - start) / args.launches * 1e6

    def with_cupti(kinds: list, hardware: bool = False) -> Callable[[], float]:
        def run() -> float:
            if hardware:
                cupti.activity_enable_hw_trace(1)
            for kind in kinds:
                cupti.activity_enable(kind)
            try:
                return loop()
            finally:
                for kind in kinds:
                    cupti.activity_disable(kind)
                cupti.activity_flush_all(1)
                if hardware:
                    cupti.activity_enable_hw_trace(0)

        return run

    def profiled() -> float:
        with hipkit.profile():
            return loop()

    Buffers.register(cupti)  # buffers for CUPTI; their records are dropped here
    kernel, driver = cupti.ActivityKind.CONCURRENT_KERNEL, cupti.ActivityKind.DRIVER
    variants: dict[str, Callable[[], float]] = {
        "profiling off": loop,
        "CUPTI: kernel records": with_cupti([kernel]),
        "CUPTI: driver-call records": with_cupti([driver]),
        "CUPTI: both": with_cupti([kernel, driver]),
        "CUPTI: kernel records, hardware tracing": with_cupti([kernel], hardware=True),
        "hipkit.profile()": profiled,
    }
    print(f"Device: {device.name}; {args.launches} empty launches per loop, best of {args.rounds}")
    loop()  # warm-up
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, run in list(variants.items()):
            try:
                best[name] = min(best.get(name, float("inf")), run())
            except Exception as exc:  # CUPTI refuses (hardware tracing before Blackwell)
                print(f"{name}: {exc}")
                del variants[name]
    off = best["profiling off"]
    for name, us in best.items():
        print(f"{name:<40} {us:6.2f} us/launch   {us / off:5.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
