"""Kernels in a program built by hipkit cc for the CPU, beside the same kernels from Python.

Issue 4, item 7: the CPU-built programs' kernels run as fast as the same
kernels through the Python API.  Three kernels of benchmarks/cpu_kernels.py
(the same source text): vectorAdd on 2^22 floats, the 256-thread
shared-memory tree reduction on 2^22 floats, the 4096^2 transpose through a
32x33 tile.  The program (``hipkit cc --platform cpu -O3``) and the Python API
(``hipkit.compile``, whose default is -O3) launch each with the same grid and
block and time it with events (hipEventRecord around each launch,
hipEventElapsedTime; hipkit.Event in Python): the median of --repeat launches
after --warmup.  Results are checked each time: the program against its own
host-side reference, Python against NumPy.  The two sides take turns,
--rounds times (never at once: their worker threads would share the cores);
the table gives the median over the rounds of each side's time and of the
ratio of each round, with the ratios' range (the machine is shared).

    python benchmarks/cc_kernel_speed.py [--rounds 5] [--repeat 50] [--warmup 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import hipkit

sys.path.insert(0, str(Path(__file__).parent))
from cpu_kernels import HIP_SOURCE

N = 1 << 22
SIDE = 4096

PROGRAM = r"""
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                  \
  do {                                                                               \
    hipError_t e_ = (call);                                                          \
    if (e_ != hipSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hipGetErrorString(e_));     \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

// The median of `repeat` launches after `warmup`, each between two events.
template <class Launch>
static float median_ms(int warmup, int repeat, Launch launch) {
  hipEvent_t start, stop;
  CHECK(hipEventCreate(&start));
  CHECK(hipEventCreate(&stop));
  for (int i = 0; i < warmup; ++i) launch();
  CHECK(hipDeviceSynchronize());
  std::vector<float> times;
  for (int i = 0; i < repeat; ++i) {
    CHECK(hipEventRecord(start, 0));
    launch();
    CHECK(hipEventRecord(stop, 0));
    CHECK(hipEventSynchronize(stop));
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(hipEventDestroy(start));
  CHECK(hipEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return repeat % 2 ? times[repeat / 2] : (times[repeat / 2 - 1] + times[repeat / 2]) / 2;
}

int main(int argc, char** argv) {
  const int n = atoi(argv[1]), side = atoi(argv[2]), warmup = atoi(argv[3]), repeat = atoi(argv[4]);
  srand(atoi(argv[5]));
  std::vector<float> a(n), b(n), m(size_t(side) * side);
  for (float& v : a) v = rand() / float(RAND_MAX);
  for (float& v : b) v = rand() / float(RAND_MAX);
  for (float& v : m) v = rand() / float(RAND_MAX);
  float *da, *db, *dc, *dpart, *dm, *dout;
  const int blocks = n / 256;
  CHECK(hipMalloc(&da, n * sizeof(float)));
  CHECK(hipMalloc(&db, n * sizeof(float)));
  CHECK(hipMalloc(&dc, n * sizeof(float)));
  CHECK(hipMalloc(&dpart, blocks * sizeof(float)));
  CHECK(hipMalloc(&dm, m.size() * sizeof(float)));
  CHECK(hipMalloc(&dout, m.size() * sizeof(float)));
  CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dm, m.data(), m.size() * sizeof(float), hipMemcpyHostToDevice));

  float add = median_ms(warmup, repeat, [&] { vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n); });
  float reduce = median_ms(warmup, repeat, [&] { tree_reduce<<<blocks, 256>>>(da, dpart, n); });
  float transposed = median_ms(warmup, repeat, [&] {
    transpose<<<dim3(side / 32, side / 32), dim3(32, 8)>>>(dout, dm, side, side);
  });

  std::vector<float> c(n), part(blocks), out(m.size());
  CHECK(hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(part.data(), dpart, blocks * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(out.data(), dout, out.size() * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) return fprintf(stderr, "vector_add wrong at %d\n", i), 1;
  for (int k = 0; k < blocks; ++k) {
    double sum = 0;
    for (int i = 0; i < 256; ++i) sum += a[k * 256 + i];
    if (std::fabs(part[k] - sum) > 1e-4 * std::fabs(sum))
      return fprintf(stderr, "tree_reduce wrong at %d\n", k), 1;
  }
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x)
      if (out[size_t(x) * side + y] != m[size_t(y) * side + x])
        return fprintf(stderr, "transpose wrong\n"), 1;
  printf("vector_add %f\ntree_reduce %f\ntranspose %f\n", add, reduce, transposed);
  return 0;
}
"""

LABELS = {
    "vector_add": "vectorAdd, 2^22 floats",
    "tree_reduce": "shared-memory tree reduction, 2^22 floats",
    "transpose": "4096^2 transpose, 32x33 tile",
}


def build_program(workdir: Path) -> Path:
    source = workdir / "kernels_program.hip"
    source.write_text(HIP_SOURCE + PROGRAM)
    exe = workdir / "kernels_program"
    hipkit_cc = [sys.executable, "-m", "hipkit.cli", "cc", "--platform", "cpu", "-O3"]
    subprocess.run([*hipkit_cc, "-o", str(exe), str(source)], check=True)
    return exe


def program_times(exe: Path, warmup: int, repeat: int, seed: int) -> dict[str, float]:
    done = subprocess.run(
        [str(exe), str(N), str(SIDE), str(warmup), str(repeat), str(seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    return {name: float(ms) for name, ms in (line.split() for line in done.stdout.splitlines())}


def median_ms(launch, warmup: int, repeat: int) -> float:
    start, stop = hipkit.Event(), hipkit.Event()
    for _ in range(warmup):
        launch()
    hipkit.synchronize()
    times = []
    for _ in range(repeat):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def python_times(
    k: dict[str, hipkit.Kernel], warmup: int, repeat: int, rng: np.random.Generator
) -> dict[str, float]:
    a = rng.random(N, dtype=np.float32)
    b = rng.random(N, dtype=np.float32)
    m = rng.random((SIDE, SIDE), dtype=np.float32)
    da, db, dc = hipkit.to_device(a), hipkit.to_device(b), hipkit.empty(N)
    blocks = N // 256
    dpart = hipkit.empty(blocks)
    dm, dout = hipkit.to_device(m), hipkit.empty((SIDE, SIDE))
    times = {
        "vector_add": median_ms(
            lambda: k["vector_add"][(N + 255) // 256, 256](da, db, dc, N), warmup, repeat
        ),
        "tree_reduce": median_ms(lambda: k["tree_reduce"][blocks, 256](da, dpart, N), warmup, repeat),
        "transpose": median_ms(
            lambda: k["transpose"][(SIDE // 32, SIDE // 32), (32, 8)](dout, dm, SIDE, SIDE), warmup, repeat
        ),
    }
    assert np.array_equal(dc.get(), a + b)
    expect = a.reshape(blocks, 256).sum(axis=1, dtype=np.float64)
    np.testing.assert_allclose(dpart.get(), expect, rtol=1e-4)
    assert np.array_equal(dout.get(), m.T)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50, help="timed launches per kernel (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="launches before timing (default 5)")
    parser.add_argument("--rounds", type=int, default=5, help="turns of each side (default 5)")
    args = parser.parse_args()
    mod = hipkit.compile(HIP_SOURCE, name="bench.hip")
    kernels = {name: mod.get_function(name) for name in LABELS}
    program: dict[str, list[float]] = {name: [] for name in LABELS}
    python: dict[str, list[float]] = {name: [] for name in LABELS}
    with tempfile.TemporaryDirectory(prefix="hipkit-bench-") as tmp:
        exe = build_program(Path(tmp))
        for _ in range(args.rounds):
            seed = int.from_bytes(os.urandom(4), "little")  # fresh data each round
            for name, ms in program_times(exe, args.warmup, args.repeat, seed).items():
                program[name].append(ms)
            for name, ms in python_times(
                kernels, args.warmup, args.repeat, np.random.default_rng(seed)
            ).items():
                python[name].append(ms)
    device = hipkit.get_device()
    print(
        f"kernels in a hipkit cc program vs the Python API -- {device.name}, {os.cpu_count()} cores, "
        f"warp size {device.warp_size}; {args.rounds} rounds of {args.repeat} launches after {args.warmup}"
    )
    print(f"{'kernel':<44} {'program ms':>10} {'Python ms':>10} {'program/Python':>15}  range")
    for name, label in LABELS.items():
        ratios = [p / q for p, q in zip(program[name], python[name], strict=True)]
        times = f"{statistics.median(program[name]):>10.2f} {statistics.median(python[name]):>10.2f}"
        ratio = f"{statistics.median(ratios):>14.2f}x  {min(ratios):.2f}-{max(ratios):.2f}"
        print(f"{label:<44} {times} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
