"""The profiler's kernel durations beside torch.profiler's, on the same kernels.

Runs the same launches twice, each in a process of its own (CUPTI serves one
profiler per process): once under ``hipkit.profile()``, once under
``torch.profiler`` with hipkit's profiling off.  Prints each kernel's median
duration from both and their ratio; the target is within 5 %.

    python benchmarks/prof_accuracy.py [--launches N]      (an NVIDIA GPU and PyTorch)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile

import numpy as np

import hipkit

SOURCE = r"""
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) C[i] = A[i] + B[i];
}
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
}
"""
CASES = [
    ("vectorAdd 2^20 floats, back to back", "vectorAdd", 1 << 20),
    ("vectorAdd 2^24 floats", "vectorAdd", 1 << 24),
    ("vectorAdd 2^26 floats", "vectorAdd", 1 << 26),
    ("spin 10^4 cycles", "spin", 10_000),
    ("spin 10^5 cycles", "spin", 100_000),
]


def launches(count: int):
    """One callable per case, each launching its kernel ``count`` times."""
    module = hipkit.compile(SOURCE)
    vector_add, spin = module.get_function("vectorAdd"), module.get_function("spin")
    largest = max(n for _, kernel, n in CASES if kernel == "vectorAdd")
    a = hipkit.to_device(np.ones(largest, np.float32))
    c = hipkit.empty(largest, np.float32)

    def case(kernel: str, n: int):
        def run() -> None:
            for _ in range(count):
                if kernel == "vectorAdd":
                    vector_add[(n + 255) // 256, 256](a, a, c, n)
                else:
                    spin[1, 1](np.int64(n))
            hipkit.synchronize()

        return run

    return [case(kernel, n) for _, kernel, n in CASES]


def measure(tool: str, count: int) -> list[float]:
    """Median duration (us) of each case's kernels as ``tool`` reports them."""
    runs = launches(count)
    for run in runs:
        run()  # warm-up: modules loaded, clocks up
    medians = []
    for run in runs:
        if tool == "hipkit":
            with hipkit.profile() as p:
                run()
            durations = [k.end_ns - k.start_ns for k in p.kernels]
        else:
            import torch.profiler

            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                run()
            with tempfile.TemporaryDirectory() as tmp:  # the trace keeps CUPTI's ns; events() rounds to us
                prof.export_chrome_trace(f"{tmp}/trace.json")
                with open(f"{tmp}/trace.json") as f:
                    events = json.load(f)["traceEvents"]
            durations = [e["dur"] * 1000 for e in events if e.get("cat") == "kernel"]
        if len(durations) != count:
            raise SystemExit(f"{tool}: {len(durations)} kernels recorded, {count} launched")
        medians.append(statistics.median(durations) / 1000)
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=30, help="launches per kernel")
    parser.add_argument("--tool", choices=("hipkit", "torch"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tool:  # one side, in its own process
        print(json.dumps(measure(args.tool, args.launches)))
        return 0
    results = {}
    for tool in ("hipkit", "torch"):
        command = [sys.executable, __file__, "--tool", tool, "--launches", str(args.launches)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            raise SystemExit(f"{tool} run failed:\n{done.stderr}")
        results[tool] = json.loads(done.stdout.splitlines()[-1])
    print(f"Device: {hipkit.get_device().name}; medians of {args.launches} launches")
    print(f"{'kernel':<38} {'hipkit':>10} {'torch':>10} {'ratio':>7}")
    for (label, _, _), mine, theirs in zip(CASES, results["hipkit"], results["torch"], strict=True):
        print(f"{label:<38} {mine:8.2f}us {theirs:8.2f}us {mine / theirs:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
