"""hipkit's CPU platform beside plain C++/OpenMP, in one run.

Five kernels (the foundation issue's set): the seed's vector add (2^24
floats), a 256-thread shared-memory tree reduction with __syncthreads, a
4096x4096 transpose through a 32x33 shared tile, a warp-shuffle reduction and a
shared-memory histogram with atomics.  Each runs through hipkit (HIP C++,
unmodified) and as the same computation written for the CPU in C++ with OpenMP
(compiled here with the same compiler, -O3 -march=<the same ISA> -fopenmp, and
with -march=native), on the same NumPy buffers.  Results are checked against
NumPy first; times are the median of --repeat runs after a warm-up, wall clock
around launch + synchronize (and around the OpenMP call).  Also reports
empty-kernel launch latency.

--isa picks the instruction sets (HIPKIT_CPU_ISA's values) the kernels are
compiled for: native (the default), a comma-separated list such as
x86-64-v3,native, or all (native and every level this CPU executes); each gets
its table, and a summary prints a column of ratios per ISA.

    python benchmarks/cpu_kernels.py [--repeat 15] [--size-log2 24] [--isa native]
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# NumPy's BLAS threads would spin beside both runtimes; this script needs none.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

import hipkit
from hipkit.platforms.cpu import isa as cpu_isa

HIP_SOURCE = r"""
#include <hip/hip_runtime.h>

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void tree_reduce(const float* in, float* partial, int n) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose(float* out, const float* in, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void warp_reduce(const float* in, float* partial, int n) {
    __shared__ float warp_sums[32];  // one per warp: 1024 threads, warps of 32 or more
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = threadIdx.x < blockDim.x / warpSize ? warp_sums[lane] : 0.0f;
        for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
        if (lane == 0) partial[blockIdx.x] = v;
    }
}

extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

extern "C" __global__ void empty() {}
"""

OPENMP_SOURCE = r"""
#include <string.h>
extern "C" {
void vector_add(const float* a, const float* b, float* c, int n) {
    #pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
void block_sums(const float* in, float* partial, int n, int block) {
    int blocks = (n + block - 1) / block;
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; ++b) {
        float s = 0.0f;
        int end = (b + 1) * block < n ? (b + 1) * block : n;
        #pragma omp simd reduction(+ : s)
        for (int i = b * block; i < end; ++i) s += in[i];
        partial[b] = s;
    }
}
void transpose(float* out, const float* in, int width, int height) {
    #pragma omp parallel for collapse(2) schedule(static)
    for (int by = 0; by < height; by += 32)
        for (int bx = 0; bx < width; bx += 32)
            for (int y = by; y < by + 32 && y < height; ++y)
                for (int x = bx; x < bx + 32 && x < width; ++x)
                    out[x * height + y] = in[y * width + x];
}
void histogram(const unsigned char* data, unsigned int* bins, int n) {
    memset(bins, 0, 256 * sizeof(unsigned));
    #pragma omp parallel
    {
        unsigned local[256] = {0};
        #pragma omp for schedule(static) nowait
        for (int i = 0; i < n; ++i) local[data[i]]++;
        for (int b = 0; b < 256; ++b) {
            #pragma omp atomic
            bins[b] += local[b];
        }
    }
}
}
"""


def build_openmp(workdir: Path, march: str) -> ctypes.CDLL:
    src = workdir / "baseline.cpp"
    lib = workdir / f"baseline-{march}.so"
    src.write_text(OPENMP_SOURCE)
    cxx = os.environ.get("HIPKIT_CXX", "g++")
    command = [cxx, "-O3", f"-march={march}", "-fopenmp", "-fPIC", "-shared", str(src), "-o", str(lib)]
    subprocess.run(command, check=True)
    return ctypes.CDLL(str(lib))


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def compare(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """Median seconds of each.  Runs come in alternating batches with a pause
    between, so that neither runtime's idle threads (libgomp spins for a
    while after a parallel region) take cores from the other."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(3):
        for fn, out in zip(fns, times, strict=True):
            fn()  # warm-up
            out.extend(timed(fn) for _ in range(max(1, repeat // 3)))
            time.sleep(0.05)
    return [statistics.median(t) for t in times]


def median_time(fn, repeat: int) -> float:
    fn()  # warm-up
    return statistics.median(timed(fn) for _ in range(repeat))


def ptr(array: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(array.ctypes.data)


@dataclass
class Row:
    """One kernel's medians (seconds) under one ISA."""

    label: str
    name: str
    hipkit: float
    openmp: float  # OpenMP built for the same ISA
    openmp_native: float  # and for -march=native
    execution: str


# The kernels in the order of the tables, with their labels.
LABELS = {
    "vector_add": "vector add",
    "tree_reduce": "256-thread shared-memory tree reduction",
    "warp_reduce": "warp-shuffle reduction",
    "transpose": "4096^2 transpose, 32x33 shared tile",
    "histogram": "shared-memory histogram with atomics",
}


class Workload:
    """The five kernels' inputs, on the host and the device, made once for
    every ISA; :meth:`run` checks and times one ISA's build."""

    def __init__(self, size_log2: int, workdir: Path):
        self.workdir = workdir
        n = self.n = 1 << size_log2
        rng = np.random.default_rng(0)
        self.a, self.b, self.x = (rng.random(n, dtype=np.float32) for _ in range(3))
        self.m = rng.random((4096, 4096), dtype=np.float32)
        self.data = rng.integers(0, 256, n, dtype=np.uint8)
        self.c, self.part = np.empty(n, np.float32), np.empty(n // 256, np.float32)
        self.out, self.bins = np.empty_like(self.m), np.empty(256, np.uint32)
        self.da, self.db, self.dx = (hipkit.to_device(v) for v in (self.a, self.b, self.x))
        self.dm, self.ddata = hipkit.to_device(self.m), hipkit.to_device(self.data)
        self.dc, self.dpart, self.dout = hipkit.empty(n), hipkit.empty(n // 256), hipkit.empty(self.m.shape)
        self.dbins = hipkit.zeros(256, np.uint32)
        self.omp_native = build_openmp(workdir, "native")

    @staticmethod
    def compile(isa: str) -> hipkit.Module:
        """The kernels compiled for ``isa`` (HIPKIT_CPU_ISA is read when compiling)."""
        os.environ["HIPKIT_CPU_ISA"] = isa
        try:
            return hipkit.compile(HIP_SOURCE, name="bench.hip")
        finally:
            del os.environ["HIPKIT_CPU_ISA"]

    def run(self, mod: hipkit.Module, isa: str, repeat: int) -> list[Row]:
        """Each kernel of ``mod`` (compiled for ``isa``) and both OpenMP builds
        checked against NumPy, then timed."""
        k = {name: mod.get_function(name) for name in LABELS}
        omp = self.omp_native if isa == "native" else build_openmp(self.workdir, isa)
        n, side, blocks = self.n, self.m.shape[0], self.n // 256
        hist_grid = hipkit.get_device().properties.multiProcessorCount * 32
        sums = self.x.reshape(blocks, 256).sum(axis=1, dtype=np.float64)

        def on_device(name, grid, block, *args):
            def launch():
                if name == "histogram":
                    self.dbins.fill(0)
                k[name][grid, block](*args)
                hipkit.synchronize()

            return launch

        # name: hipkit's launch, the OpenMP call with a library, hipkit's and
        # OpenMP's result, the expected one
        cases = {
            "vector_add": (
                on_device("vector_add", (n + 255) // 256, 256, self.da, self.db, self.dc, n),
                lambda lib: lib.vector_add(ptr(self.a), ptr(self.b), ptr(self.c), n),
                self.dc.get,
                lambda: self.c,
                self.a + self.b,
            ),
            **{
                name: (
                    on_device(name, blocks, 256, self.dx, self.dpart, n),
                    lambda lib: lib.block_sums(ptr(self.x), ptr(self.part), n, 256),
                    self.dpart.get,
                    lambda: self.part,
                    sums,
                )
                for name in ("tree_reduce", "warp_reduce")
            },
            "transpose": (
                on_device("transpose", (side // 32, side // 32), (32, 8), self.dout, self.dm, side, side),
                lambda lib: lib.transpose(ptr(self.out), ptr(self.m), side, side),
                self.dout.get,
                lambda: self.out,
                self.m.T,
            ),
            "histogram": (
                on_device("histogram", hist_grid, 256, self.ddata, self.dbins, n),
                lambda lib: lib.histogram(ptr(self.data), ptr(self.bins), n),
                self.dbins.get,
                lambda: self.bins,
                np.bincount(self.data, minlength=256).astype(np.uint32),
            ),
        }
        rows = []
        for name, (hk, reference, hk_result, reference_result, expected) in cases.items():
            same, native = (functools.partial(reference, lib) for lib in (omp, self.omp_native))
            for fn, result in ((hk, hk_result), (same, reference_result), (native, reference_result)):
                fn()
                if expected.dtype == np.float64:  # the sums, in another order than NumPy's
                    np.testing.assert_allclose(result(), expected, rtol=1e-5)
                else:
                    assert np.array_equal(result(), expected), name
            hk_s, omp_s, *native_s = compare(
                [hk, same] + ([native] if omp is not self.omp_native else []), repeat
            )
            rows.append(
                Row(LABELS[name], name, hk_s, omp_s, native_s[0] if native_s else omp_s, k[name].info.detail)
            )
        return rows


def launch_latency(mod: hipkit.Module) -> tuple[float, float]:
    """Seconds of an empty kernel's launch + synchronize, and of each of
    back-to-back asynchronous launches."""
    empty = mod.get_function("empty")
    round_trip = median_time(lambda: (empty[1, 1](), hipkit.synchronize()), 2000)
    batch = 2000
    t0 = time.perf_counter()
    for _ in range(batch):
        empty[1, 1]()
    hipkit.synchronize()
    return round_trip, (time.perf_counter() - t0) / batch


def isa_list(text: str) -> list[str]:
    """--isa's values: "all" is native and every level this CPU executes,
    highest first.  Raises SystemExit for one it cannot execute."""
    if text == "all":
        return ["native", *reversed(cpu_isa.executable_levels())]
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    for value in chosen:
        try:
            lacking = cpu_isa.missing(cpu_isa.features(value))
        except ValueError as exc:
            raise SystemExit(f"--isa {value}: {exc}") from None
        if lacking:
            raise SystemExit(
                f"--isa {value}: this CPU cannot execute it (it lacks {' '.join(sorted(lacking))})"
            )
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--size-log2", type=int, default=24)
    parser.add_argument(
        "--isa", default="native", help="native (default), a list such as x86-64-v3,native, or all"
    )
    args = parser.parse_args()
    isas = isa_list(args.isa)
    device = hipkit.get_device()
    print(
        f"hipkit CPU platform vs C++/OpenMP -- {device.name}, {os.cpu_count()} cores, "
        f"{platform.machine()} (executes {', '.join(cpu_isa.executable_levels())}), "
        f"warp size {device.warp_size}, python {sys.version.split()[0]}"
    )
    results: dict[str, list[Row]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Workload(args.size_log2, Path(tmp))
        for isa in isas:
            t0 = time.perf_counter()
            mod = work.compile(isa)
            compile_s = time.perf_counter() - t0
            rows = work.run(mod, isa, args.repeat)
            results[isa] = rows
            print(f"\n-march={isa}: module compile (cached after the first run) {compile_s * 1e3:.0f} ms")
            print(
                f"{'kernel':<42} {'hipkit ms':>10} {'OpenMP ms':>10} {'ratio':>7} {'/native':>8}  execution"
            )
            for r in rows:
                print(
                    f"{r.label:<42} {r.hipkit * 1e3:>10.2f} {r.openmp * 1e3:>10.2f} "
                    f"{r.hipkit / r.openmp:>6.2f}x {r.hipkit / r.openmp_native:>7.2f}x  {r.execution}"
                )
            round_trip, async_launch = launch_latency(mod)
            print(
                f"empty kernel: launch + synchronize {round_trip * 1e6:.1f} us; "
                f"back-to-back async launches {async_launch * 1e6:.1f} us each"
            )
    if len(isas) > 1:
        print("\nhipkit / OpenMP of the same -march (hipkit / OpenMP -march=native)")
        print(f"{'kernel':<42}" + "".join(f" {isa:>20}" for isa in isas))
        for i, label in enumerate(LABELS.values()):
            cells = (
                f"{r.hipkit / r.openmp:.2f}x ({r.hipkit / r.openmp_native:.2f}x)"
                for r in (results[isa][i] for isa in isas)
            )
            print(f"{label:<42}" + "".join(f" {c:>20}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
