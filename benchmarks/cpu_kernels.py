"""hipkit's CPU platform beside plain C++/OpenMP, in one run.

Five kernels (the foundation issue's set): the seed's vector add (2^24
floats), a 256-thread shared-memory tree reduction with __syncthreads, a
4096x4096 transpose through a 32x33 shared tile, a warp-shuffle reduction and a
shared-memory histogram with atomics.  Each runs through hipkit (HIP C++,
unmodified) and as the same computation written for the CPU in C++ with OpenMP
(compiled here with the same compiler, -O3 -march=native -fopenmp), on the same
NumPy buffers.  Results are checked against NumPy first; times are the median
of --repeat runs after a warm-up, wall clock around launch + synchronize (and
around the OpenMP call).  Also reports empty-kernel launch latency.

    python benchmarks/cpu_kernels.py [--repeat 15] [--size-log2 24]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# NumPy's BLAS threads would spin beside both runtimes; this script needs none.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

import hipkit

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


def build_openmp(workdir: Path) -> ctypes.CDLL:
    src = workdir / "baseline.cpp"
    lib = workdir / "baseline.so"
    src.write_text(OPENMP_SOURCE)
    cxx = os.environ.get("HIPKIT_CXX", "g++")
    subprocess.run(
        [cxx, "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", str(src), "-o", str(lib)], check=True
    )
    return ctypes.CDLL(str(lib))


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def compare(hipkit_fn, openmp_fn, repeat: int) -> tuple[float, float]:
    """Median seconds of each.  Runs come in alternating batches with a pause
    between, so that neither runtime's idle threads (libgomp spins for a
    while after a parallel region) take cores from the other."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(3):
        for fn, out in ((hipkit_fn, times[0]), (openmp_fn, times[1])):
            fn()  # warm-up
            out.extend(timed(fn) for _ in range(max(1, repeat // 3)))
            time.sleep(0.05)
    return statistics.median(times[0]), statistics.median(times[1])


def median_time(fn, repeat: int) -> float:
    fn()  # warm-up
    return statistics.median(timed(fn) for _ in range(repeat))


def ptr(array: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(array.ctypes.data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--size-log2", type=int, default=24)
    args = parser.parse_args()
    n = 1 << args.size_log2
    side = 4096
    rng = np.random.default_rng(0)

    device = hipkit.get_device()
    t0 = time.perf_counter()
    mod = hipkit.compile(HIP_SOURCE, name="bench.hip")
    compile_s = time.perf_counter() - t0
    k = {
        name: mod.get_function(name)
        for name in ("vector_add", "tree_reduce", "transpose", "warp_reduce", "histogram", "empty")
    }
    with tempfile.TemporaryDirectory() as tmp:
        omp = build_openmp(Path(tmp))
        rows = []

        # 1. vector add
        a = rng.random(n, dtype=np.float32)
        b = rng.random(n, dtype=np.float32)
        c = np.empty_like(a)
        da, db, dc = hipkit.to_device(a), hipkit.to_device(b), hipkit.empty(n)
        grid = (n + 255) // 256

        def hk_vadd():
            k["vector_add"][grid, 256](da, db, dc, n)
            hipkit.synchronize()

        hk_vadd()
        assert np.array_equal(dc.get(), a + b)
        omp.vector_add(ptr(a), ptr(b), ptr(c), n)
        assert np.array_equal(c, a + b)
        rows.append(
            (
                f"vector add (2^{args.size_log2} floats)",
                "vector_add",
                *compare(hk_vadd, lambda: omp.vector_add(ptr(a), ptr(b), ptr(c), n), args.repeat),
            )
        )

        # 2. tree reduction and 4. warp-shuffle reduction: partial sums per 256 elements
        x = rng.random(n, dtype=np.float32)
        dx = hipkit.to_device(x)
        blocks = n // 256
        dpart = hipkit.empty(blocks)
        part = np.empty(blocks, np.float32)
        expect = x.reshape(blocks, 256).sum(axis=1, dtype=np.float64)
        for name in ("tree_reduce", "warp_reduce"):
            kernel = k[name]

            def hk_reduce(kernel=kernel):
                kernel[blocks, 256](dx, dpart, n)
                hipkit.synchronize()

            hk_reduce()
            np.testing.assert_allclose(dpart.get(), expect, rtol=1e-5)
            label = (
                "256-thread shared-memory tree reduction"
                if name == "tree_reduce"
                else "warp-shuffle reduction"
            )
            rows.append(
                (
                    label,
                    name,
                    *compare(hk_reduce, lambda: omp.block_sums(ptr(x), ptr(part), n, 256), args.repeat),
                )
            )
        omp.block_sums(ptr(x), ptr(part), n, 256)
        np.testing.assert_allclose(part, expect, rtol=1e-5)

        # 3. transpose
        m = rng.random((side, side), dtype=np.float32)
        out = np.empty_like(m)
        dm, dout = hipkit.to_device(m), hipkit.empty((side, side))

        def hk_transpose():
            k["transpose"][(side // 32, side // 32), (32, 8)](dout, dm, side, side)
            hipkit.synchronize()

        hk_transpose()
        assert np.array_equal(dout.get(), m.T)
        omp.transpose(ptr(out), ptr(m), side, side)
        assert np.array_equal(out, m.T)
        rows.append(
            (
                "4096^2 transpose, 32x33 shared tile",
                "transpose",
                *compare(hk_transpose, lambda: omp.transpose(ptr(out), ptr(m), side, side), args.repeat),
            )
        )

        # 5. histogram
        data = rng.integers(0, 256, n, dtype=np.uint8)
        ddata, dbins = hipkit.to_device(data), hipkit.zeros(256, np.uint32)
        bins = np.empty(256, np.uint32)
        hist_grid = device.properties.multiProcessorCount * 32

        def hk_hist():
            dbins.fill(0)
            k["histogram"][hist_grid, 256](ddata, dbins, n)
            hipkit.synchronize()

        hk_hist()
        expect_bins = np.bincount(data, minlength=256).astype(np.uint32)
        assert np.array_equal(dbins.get(), expect_bins)
        omp.histogram(ptr(data), ptr(bins), n)
        assert np.array_equal(bins, expect_bins)
        rows.append(
            (
                "shared-memory histogram with atomics",
                "histogram",
                *compare(hk_hist, lambda: omp.histogram(ptr(data), ptr(bins), n), args.repeat),
            )
        )

    # Launch latency of an empty kernel.
    empty = k["empty"]
    round_trip = median_time(lambda: (empty[1, 1](), hipkit.synchronize()), 2000)
    batch = 2000
    t0 = time.perf_counter()
    for _ in range(batch):
        empty[1, 1]()
    hipkit.synchronize()
    async_launch = (time.perf_counter() - t0) / batch

    print(
        f"hipkit CPU platform vs C++/OpenMP -- {device.name}, {os.cpu_count()} cores, "
        f"{platform.machine()}, warp size {device.warp_size}, python {sys.version.split()[0]}"
    )
    print(f"module compile (cached after the first run): {compile_s * 1e3:.0f} ms")
    print(f"{'kernel':<42} {'hipkit ms':>10} {'OpenMP ms':>10} {'ratio':>7}  execution")
    for label, name, hk, ref in rows:
        print(f"{label:<42} {hk * 1e3:>10.2f} {ref * 1e3:>10.2f} {hk / ref:>6.2f}x  {k[name].info.detail}")
    print(
        f"empty kernel: launch + synchronize {round_trip * 1e6:.1f} us; "
        f"back-to-back async launches {async_launch * 1e6:.1f} us each"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
