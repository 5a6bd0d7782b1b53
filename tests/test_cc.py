"""``hipkit cc`` and ``hipkit run``: whole HIP programs (host code and kernels) built
and run as a user does, with the command in a subprocess.  Results are compared with
NumPy on fresh random data passed through files and arguments.

Programs are written to a temporary directory and compiled from there by their
relative names, so that an unchanged program hits the compile cache on the next run.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from test_cli import environment

import hipkit
from hipkit import cli
from hipkit._errors import _MESSAGES, hipError_t

REPO = Path(__file__).resolve().parents[1]


def hipkit_command(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``hipkit ARGS`` for the CPU platform (on a GPU machine the default would be the GPU's)."""
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", *args],
        cwd=cwd,
        env=environment(HIPKIT_PLATFORM="cpu"),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


# A test program's checks of HIP calls: EXPECT(call, code) names the line and the code
# it got, and returns 1 from the function; CHECK(call) expects hipSuccess.
EXPECT_MACROS = r"""
#define EXPECT(call, code)                                                                    \
  do {                                                                                        \
    hipError_t e_ = (call);                                                                   \
    if (e_ != (code)) {                                                                       \
      fprintf(stderr, "line %d: %s gave %s, not %s\n", __LINE__, #call, hipGetErrorName(e_), \
              #code);                                                                         \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)
#define CHECK(call) EXPECT(call, hipSuccess)
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def program_lines(exe: Path, *args: str) -> list[str]:
    """The output lines of a program built for the CPU, run with ``args``; it must succeed."""
    done = subprocess.run(
        [str(exe), *args], capture_output=True, text=True, timeout=120, env=environment(HIPKIT_PLATFORM="cpu")
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def build(directory: Path, *args: str) -> None:
    done = hipkit_command("cc", *args, cwd=directory)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- the seed's program


def test_seed_program_builds_and_runs(tmp_path):
    """The guide's vector_add.cpp: hipkit cc makes an executable that runs without
    Python, and hipkit run does the same."""
    exe = tmp_path / "vector_add"
    build(REPO, "-o", str(exe), "examples/vector_add.cpp")
    done = subprocess.run(
        [str(exe)], capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Vector add test PASSED!\n"
    run = hipkit_command("run", "examples/vector_add.cpp", cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "Vector add test PASSED!\n"


# ---------------------------------------------------------------- what programs use

# A test program's arrays from and to raw files (numpy's tofile/fromfile).
FILES = r"""template <class T>
std::vector<T> load(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  std::vector<T> v(f.tellg() / sizeof(T));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(v.data()), v.size() * sizeof(T));
  return v;
}

template <class T>
void save(const std::string& path, const std::vector<T>& v) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
"""

FEATURES = r"""
#include <hip/hip_runtime.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    hipError_t e_ = (call);                                                    \
    if (e_ != hipSuccess) {                                                    \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hipGetErrorName(e_)); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

constexpr int BLOCK = 256;
__constant__ float coeffs[4];
__device__ unsigned int block_count;

// Block sums: a shared-memory tree reduction, combined with atomics.
__global__ void block_sum(const float* x, int n, float* total) {
  __shared__ float part[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(total, part[0]);
    atomicAdd(&block_count, 1u);
  }
}

// A byte histogram with atomics on shared memory, then on global memory.
__global__ void histogram(const unsigned char* data, int n, unsigned int* bins) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

// A cubic with its coefficients in constant memory.
template <class T>
__global__ void poly(const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T v = x[i];
    y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3]));
  }
}

// Each block's chunk reversed through dynamic shared memory.
__global__ void reverse_blocks(const int* in, int* out) {
  extern __shared__ int tile[];
  int base = blockIdx.x * blockDim.x;
  tile[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

// The sum of each warp, with shuffles.
__global__ void warp_sums(const int* in, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  for (int d = warpSize / 2; d > 0; d /= 2) v += __shfl_down(v, d);
  if (threadIdx.x % warpSize == 0) out[t / warpSize] = v;
}

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void __launch_bounds__(128) bounded(int* p) { p[threadIdx.x] = threadIdx.x; }

@FILES@
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  std::vector<float> x = load<float>(dir + "/x.f32");
  std::vector<unsigned char> bytes = load<unsigned char>(dir + "/bytes.u8");
  std::vector<int> ints = load<int>(dir + "/ints.i32");
  std::vector<float> c = load<float>(dir + "/coeffs.f32");
  const int n = int(x.size()), nb = int(bytes.size()), ni = int(ints.size());
  FILE* report = fopen((dir + "/report.txt").c_str(), "w");

  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  int count = 0, device = -1, warp = 0;
  CHECK(hipGetDeviceCount(&count));
  CHECK(hipSetDevice(0));
  CHECK(hipGetDevice(&device));
  CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0));
  fprintf(report, "count=%d\ndevice=%d\nname=%s\nwarpSize=%d\nattributeWarpSize=%d\n", count, device,
          prop.name, prop.warpSize, warp);
  fprintf(report, "maxThreadsPerBlock=%d\nmultiProcessorCount=%d\nsharedMemPerBlock=%zu\n",
          prop.maxThreadsPerBlock, prop.multiProcessorCount, prop.sharedMemPerBlock);
  fprintf(report, "totalGlobalMem=%zu\ngcnArchName=%s\nmaxGridSize=%d,%d,%d\n", prop.totalGlobalMem,
          prop.gcnArchName, prop.maxGridSize[0], prop.maxGridSize[1], prop.maxGridSize[2]);

  // Reduction and histogram, launched both ways.
  float *d_x, *d_total;
  unsigned char* d_bytes;
  unsigned int* d_bins;
  CHECK(hipMalloc(&d_x, n * sizeof(float)));
  CHECK(hipMalloc(&d_total, sizeof(float)));
  CHECK(hipMalloc(&d_bytes, nb));
  CHECK(hipMalloc(&d_bins, 256 * sizeof(unsigned int)));
  CHECK(hipMemcpy(d_x, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_bytes, bytes.data(), nb, hipMemcpyHostToDevice));
  CHECK(hipMemset(d_total, 0, sizeof(float)));
  CHECK(hipMemset(d_bins, 0, 256 * sizeof(unsigned int)));
  unsigned int zero = 0;
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(block_count), &zero, sizeof(zero)));
  block_sum<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_x, n, d_total);
  CHECK(hipGetLastError());
  hipLaunchKernelGGL(histogram, dim3(8), dim3(128), 0, hipStreamDefault, d_bytes, nb, d_bins);
  CHECK(hipGetLastError());
  float total = 0;
  std::vector<unsigned int> bins(256);
  unsigned int blocks_run = 0;
  CHECK(hipMemcpy(&total, d_total, sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned int), hipMemcpyDeviceToHost));
  CHECK(hipMemcpyFromSymbol(&blocks_run, HIP_SYMBOL(block_count), sizeof(blocks_run)));
  fprintf(report, "total=%.9g\nblocks=%u\n", total, blocks_run);
  save(dir + "/bins.u32", bins);

  // Constant memory; a template kernel with T deduced, and named in full.
  CHECK(hipMemcpyToSymbol(coeffs, c.data(), 4 * sizeof(float)));
  size_t coeffs_size = 0;
  void* coeffs_address = nullptr;
  CHECK(hipGetSymbolSize(&coeffs_size, HIP_SYMBOL(coeffs)));
  CHECK(hipGetSymbolAddress(&coeffs_address, HIP_SYMBOL(coeffs)));
  fprintf(report, "coeffs_size=%zu\ncoeffs_address_ok=%d\n", coeffs_size, coeffs_address == (void*)coeffs);
  float* d_y;
  CHECK(hipMalloc(&d_y, n * sizeof(float)));
  poly<<<dim3((n + 127) / 128), dim3(128), 0, 0>>>(d_x, d_y, n);
  std::vector<float> y(n);
  CHECK(hipMemcpy(y.data(), d_y, n * sizeof(float), hipMemcpyDeviceToHost));
  save(dir + "/poly.f32", y);
  double *d_xd, *d_yd;
  std::vector<double> xd(x.begin(), x.end()), yd(n);
  CHECK(hipMalloc(&d_xd, n * sizeof(double)));
  CHECK(hipMalloc(&d_yd, n * sizeof(double)));
  CHECK(hipMemcpy(d_xd, xd.data(), n * sizeof(double), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(HIP_KERNEL_NAME(poly<double>), dim3((n + 63) / 64), dim3(64), 0, 0, d_xd, d_yd, n);
  CHECK(hipMemcpy(yd.data(), d_yd, n * sizeof(double), hipMemcpyDeviceToHost));
  save(dir + "/poly.f64", yd);

  // Dynamic shared memory and warp shuffles.
  int *d_in, *d_out, *d_warps;
  const int warps = ni / prop.warpSize;
  CHECK(hipMalloc(&d_in, ni * sizeof(int)));
  CHECK(hipMalloc(&d_out, ni * sizeof(int)));
  CHECK(hipMalloc(&d_warps, warps * sizeof(int)));
  CHECK(hipMemcpy(d_in, ints.data(), ni * sizeof(int), hipMemcpyHostToDevice));
  reverse_blocks<<<ni / 128, 128, 128 * sizeof(int)>>>(d_in, d_out);
  warp_sums<<<ni / 256, 256>>>(d_in, d_warps);
  std::vector<int> reversed(ni), warp_totals(warps);
  CHECK(hipMemcpy(reversed.data(), d_out, ni * sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(warp_totals.data(), d_warps, warps * sizeof(int), hipMemcpyDeviceToHost));
  save(dir + "/reversed.i32", reversed);
  save(dir + "/warps.i32", warp_totals);

  // Two streams, pinned memory, events; launches through hipLaunchKernel.
  float* pinned;
  CHECK(hipHostMalloc(&pinned, n * sizeof(float)));
  hipStream_t streams[2];
  hipEvent_t start, stop;
  CHECK(hipStreamCreate(&streams[0]));
  CHECK(hipStreamCreateWithFlags(&streams[1], hipStreamNonBlocking));
  CHECK(hipEventCreate(&start));
  CHECK(hipEventCreate(&stop));
  CHECK(hipEventRecord(start, streams[0]));
  const int half = n / 2;
  for (int s = 0; s < 2; ++s) {
    const int offset = s * half, len = s == 0 ? half : n - half;
    float a = 2.0f + s;
    int len_arg = len;
    float* chunk = d_x + offset;
    void* args[] = {&chunk, &a, &len_arg};
    CHECK(hipMemcpyAsync(chunk, x.data() + offset, len * sizeof(float), hipMemcpyHostToDevice, streams[s]));
    CHECK(hipLaunchKernel(reinterpret_cast<const void*>(scale), dim3((len + 255) / 256), dim3(256), args, 0,
                          streams[s]));
    CHECK(hipMemcpyAsync(pinned + offset, chunk, len * sizeof(float), hipMemcpyDeviceToHost, streams[s]));
  }
  CHECK(hipStreamSynchronize(streams[1]));
  CHECK(hipEventRecord(stop, streams[0]));
  CHECK(hipEventSynchronize(stop));
  float ms = -1;
  CHECK(hipEventElapsedTime(&ms, start, stop));
  CHECK(hipStreamQuery(streams[0]));
  fprintf(report, "elapsed_ok=%d\n", ms >= 0.0f);
  save(dir + "/scaled.f32", std::vector<float>(pinned, pinned + n));

  // Occupancy and attributes.
  int grid = 0, block = 0, active = -1;
  CHECK(hipOccupancyMaxPotentialBlockSize(&grid, &block, scale, 0, 0));
  fprintf(report, "potential_grid=%d\npotential_block=%d\n", grid, block);
  CHECK(hipOccupancyMaxPotentialBlockSize(&grid, &block, bounded));
  fprintf(report, "bounded_block=%d\n", block);
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&active, bounded, 256, 0));
  fprintf(report, "bounded_active_256=%d\n", active);
  hipFuncAttributes attr;
  CHECK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(block_sum)));
  fprintf(report, "block_sum_shared=%zu\nblock_sum_max_threads=%d\n", attr.sharedSizeBytes,
          attr.maxThreadsPerBlock);

  for (hipStream_t s : streams) CHECK(hipStreamDestroy(s));
  CHECK(hipEventDestroy(start));
  CHECK(hipEventDestroy(stop));
  CHECK(hipHostFree(pinned));
  for (void* p : {(void*)d_x, (void*)d_total, (void*)d_bytes, (void*)d_bins, (void*)d_y, (void*)d_xd,
                  (void*)d_yd, (void*)d_in, (void*)d_out, (void*)d_warps})
    CHECK(hipFree(p));
  fclose(report);
  return 0;
}
""".replace("@FILES@", FILES)


def feature_inputs(tmp_path: Path, rng) -> tuple[Path, tuple[np.ndarray, ...]]:
    """FEATURES' input files, fresh: the directory and (x, bytes, ints, coefficients)."""
    data = tmp_path / "data"
    data.mkdir()
    x = rng.standard_normal(10_007).astype(np.float32)
    data_bytes = rng.integers(0, 256, 50_000, dtype=np.uint8)
    ints = rng.integers(-1000, 1000, 4096, dtype=np.int32)
    c = rng.standard_normal(4).astype(np.float32)
    for name, array in (("x.f32", x), ("bytes.u8", data_bytes), ("ints.i32", ints), ("coeffs.f32", c)):
        array.tofile(data / name)
    return data, (x, data_bytes, ints, c)


def test_program_features_match_numpy(tmp_path, rng):
    """<<<>>> and hipLaunchKernelGGL, shared memory and barriers, atomics, a device
    global and constant memory through the symbol API, template kernels, dynamic shared
    memory, warp shuffles, two streams with pinned memory and events, hipLaunchKernel,
    occupancy and attributes: every result against NumPy, the properties against the
    Python API's."""
    write(tmp_path, "features.hip", FEATURES)
    build(tmp_path, "-O2", "-o", "features", "features.hip")
    data, (x, data_bytes, ints, c) = feature_inputs(tmp_path, rng)
    done = subprocess.run(
        [str(tmp_path / "features"), str(data)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = dict(line.split("=", 1) for line in (data / "report.txt").read_text().splitlines())

    props = hipkit.Device(0, platform="cpu").properties
    assert report["count"] == "1" and report["device"] == "0"
    assert report["name"] == props.name and report["gcnArchName"] == props.gcnArchName
    for field in (
        "warpSize",
        "maxThreadsPerBlock",
        "multiProcessorCount",
        "sharedMemPerBlock",
        "totalGlobalMem",
    ):
        assert int(report[field]) == getattr(props, field), field
    assert report["attributeWarpSize"] == report["warpSize"]
    assert report["maxGridSize"] == ",".join(map(str, props.maxGridSize))

    assert float(report["total"]) == pytest.approx(float(x.sum(dtype=np.float64)), rel=1e-4, abs=1e-3)
    assert int(report["blocks"]) == (len(x) + 255) // 256
    np.testing.assert_array_equal(
        np.fromfile(data / "bins.u32", np.uint32), np.bincount(data_bytes, minlength=256)
    )
    assert report["coeffs_size"] == "16" and report["coeffs_address_ok"] == "1"
    xd = x.astype(np.float64)
    reference = c[0] + xd * (c[1] + xd * (c[2] + xd * c[3]))
    np.testing.assert_allclose(np.fromfile(data / "poly.f32", np.float32), reference, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.fromfile(data / "poly.f64", np.float64), reference, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(
        np.fromfile(data / "reversed.i32", np.int32), ints.reshape(-1, 128)[:, ::-1].ravel()
    )
    warp = props.warpSize
    np.testing.assert_array_equal(
        np.fromfile(data / "warps.i32", np.int32), ints.reshape(-1, warp).sum(axis=1)
    )
    half = len(x) // 2
    np.testing.assert_array_equal(
        np.fromfile(data / "scaled.f32", np.float32), np.r_[x[:half] * 2, x[half:] * 3]
    )
    assert report["elapsed_ok"] == "1"
    assert int(report["potential_block"]) == 1024
    assert int(report["potential_grid"]) == props.multiProcessorCount
    assert report["bounded_block"] == "128" and report["bounded_active_256"] == "0"
    assert report["block_sum_shared"] == str(256 * 4) and report["block_sum_max_threads"] == "1024"


# ---------------------------------------------------------------- errors

ERRORS = r"""
#include <hip/hip_runtime.h>

#include <cassert>
#include <cstdio>

__device__ int scale_factor;
int host_value;

__global__ void fill(int* p, int v) { p[threadIdx.x] = v; }
__global__ void check_positive(const int* p) { assert(p[threadIdx.x] > 0); }

int main() {
  for (int code = 0; code <= 1100; ++code) {
    hipError_t e = static_cast<hipError_t>(code);
    printf("code %d|%s|%s\n", code, hipGetErrorName(e), hipGetErrorString(e));
  }
  int* d = nullptr;
  printf("malloc %d\n", hipMalloc(&d, 1024 * sizeof(int)));
  fill<<<1, 2048>>>(d, 1);
  printf("too many threads %d\n", hipGetLastError());
  printf("then %d\n", hipGetLastError());
  fill<<<dim3(1, 70000), 1>>>(d, 1);
  printf("grid too large %d\n", hipPeekAtLastError());
  printf("peeked %d\n", hipGetLastError());
  int v = 2;
  printf("past the symbol %d\n", hipMemcpyToSymbol(scale_factor, &v, sizeof(v), 4));
  printf("not a symbol %d\n", hipMemcpyToSymbol(static_cast<const void*>(&host_value), &v, sizeof(v)));
  printf("symbol by address %d\n", hipMemcpyToSymbol(static_cast<const void*>(&scale_factor), &v, sizeof(v)));
  printf("device 1 %d\n", hipSetDevice(1));
  printf("last %d\n", hipGetLastError());
  fill<<<1, 64>>>(d, 0);
  check_positive<<<1, 64>>>(d);
  printf("launch %d\n", hipGetLastError());
  printf("synchronize %d\n", hipDeviceSynchronize());
  printf("sticky %d\n", hipMalloc(&d, 4));
  printf("last %d\n", hipGetLastError());
  printf("reset %d\n", hipDeviceReset());
  printf("after reset %d\n", hipMalloc(&d, 4));
  printf("free %d\n", hipFree(d));
  return 3;
}
"""


def test_errors_as_hip_reports_them(tmp_path):
    """hipGetLastError after bad launches (and its reset), hipPeekAtLastError, symbol
    errors, an invalid device; a failed device assert is sticky until hipDeviceReset;
    hipGetErrorName/String say what hipkit._errors says for every code."""
    write(tmp_path, "errors.hip", ERRORS)
    build(tmp_path, "-O1", "-o", "errors", "errors.hip")
    done = subprocess.run([str(tmp_path / "errors")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    names = {}
    for line in lines:
        if line.startswith("code "):
            code, name, text = line[5:].split("|")
            names[int(code)] = (name, text)
    for code in range(1101):
        if code in hipError_t._value2member_map_:
            assert names[code] == (hipError_t(code).name, _MESSAGES.get(code, "unknown error")), code
        else:
            assert names[code] == ("hipErrorUnknown", "unknown error"), code
    results = [line.rsplit(" ", 1) for line in lines if not line.startswith("code ")]
    assert results == [
        ["malloc", "0"],
        ["too many threads", "9"],
        ["then", "0"],
        ["grid too large", "9"],
        ["peeked", "9"],
        ["past the symbol", "1"],
        ["not a symbol", "13"],
        ["symbol by address", "0"],
        ["device 1", "101"],
        ["last", "101"],
        ["launch", "0"],
        ["synchronize", "710"],
        ["sticky", "710"],
        ["last", "710"],
        ["reset", "0"],
        ["after reset", "0"],
        ["free", "0"],
    ]
    message = "errors.hip:10: check_positive: block: [0,0,0], thread: [0,0,0] Assertion `p[threadIdx.x] > 0`"
    assert message + " failed." in done.stderr


# ---------------------------------------------------------------- several files, -c, -D, -I


def test_two_files_compiled_then_linked(tmp_path):
    """A kernel declared in a header found with -I, defined in one file and launched
    from another compiled with -D; objects made with -c, linked by a third command."""
    write(
        tmp_path,
        "inc/saxpy.h",
        """
        #pragma once
        #include <hip/hip_runtime.h>
        #define SAXPY_BLOCK 128
        __global__ void saxpy(float a, const float* x, float* y, int n);
        """,
    )
    write(
        tmp_path,
        "kernels.hip",
        """
        #include "saxpy.h"
        __global__ void saxpy(float a, const float* x, float* y, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          if (i < n) y[i] = a * x[i] + y[i];
        }
        """,
    )
    write(
        tmp_path,
        "main.cpp",
        """
        #include <cstdio>
        #include <cstdlib>
        #include <vector>
        #include "saxpy.h"
        #ifndef SCALE
        #error "compile with -DSCALE=..."
        #endif
        int main(int argc, char** argv) {
          int n = argc - 1;
          std::vector<float> x(n), y(n, 1.0f);
          for (int i = 0; i < n; ++i) x[i] = std::strtof(argv[i + 1], nullptr);
          float *dx, *dy;
          hipMalloc(&dx, n * sizeof(float));
          hipMalloc(&dy, n * sizeof(float));
          hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice);
          hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice);
          saxpy<<<(n + SAXPY_BLOCK - 1) / SAXPY_BLOCK, SAXPY_BLOCK>>>(SCALE, dx, dy, n);
          hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost);
          for (float v : y) printf("%.9g\\n", v);
          hipFree(dx);
          hipFree(dy);
          return hipGetLastError();
        }
        """,
    )
    build(tmp_path, "-c", "-Iinc", "kernels.hip")
    build(tmp_path, "-c", "-I", "inc", "-DSCALE=3.0f", "main.cpp", "-o", "main_object.o")
    assert (tmp_path / "kernels.o").is_file() and (tmp_path / "main_object.o").is_file()
    build(tmp_path, "kernels.o", "main_object.o", "-o", "saxpy")
    x = np.round(np.random.default_rng().standard_normal(300), 3).astype(np.float32)
    done = subprocess.run(
        [str(tmp_path / "saxpy"), *map(str, x)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(
        np.array(done.stdout.split(), dtype=np.float32), 3 * x + 1, rtol=1e-6, atol=1e-6
    )
    missing = hipkit_command("cc", "-c", "-Iinc", "main.cpp", cwd=tmp_path)
    assert missing.returncode == 1
    assert "main.cpp:6:2: error: #error" in missing.stderr


# ---------------------------------------------------------------- compile errors


@pytest.mark.parametrize(
    "source, line",
    [
        (
            """
            #include <hip/hip_runtime.h>
            __global__ void k(int* p, int a, int b) { p[threadIdx.x] = a + b; }
            int main() {
              int* d = nullptr;
              k<<<1,
                  1>>>(d,
                       2,
                       3);
              undefined_function(d);
              return 0;
            }
            """,
            9,
        ),
        (
            """
            #include <hip/hip_runtime.h>
            __global__ void k(int* p) {
              __syncthreads();
              p[threadIdx.x] = missing_value;
            }
            int main() { return 0; }
            """,
            4,
        ),
        ('#include "nowhere.h"\nint main() { return 0; }\n', 1),
        (
            """
            #include <hip/hip_runtime.h>
            __global__ void k(int* p) { p[0] = 1; }
            int main() { int* d = nullptr; k<<<1>>>(d); return 0; }
            """,
            3,
        ),
    ],
    ids=["host-code", "kernel", "missing-header", "launch-syntax"],
)
def test_compile_error_names_the_users_line(tmp_path, source, line):
    """The diagnostics name the user's file and line (after a launch written over
    several lines too); the exit status is 1 and no output file is written, and an
    existing one is left as it was."""
    write(tmp_path, "bad.hip", source)
    (tmp_path / "kept").write_text("old")
    for args in (["-c"], ["-o", "kept"]):
        done = hipkit_command("cc", *args, "bad.hip", cwd=tmp_path)
        assert done.returncode == 1
        assert f"bad.hip:{line}:" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.rstrip().splitlines()[-1].startswith("hipkit cc: error: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.hip", "kept"]
    assert (tmp_path / "kept").read_text() == "old"


def test_usage_errors(tmp_path, capsys, monkeypatch):
    """Exit status 2 and one line for what cannot be done (in this process: nothing
    is compiled)."""
    write(tmp_path, "a.hip", "int main() { return 0; }\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HIPKIT_PLATFORM", raising=False)
    cases = {
        (): "no input files",
        ("-Zfoo", "a.hip"): "unsupported option '-Zfoo'",
        ("notes.txt",): "unknown kind of input",
        ("-c", "-o", "x.o", "a.hip", "a.hip"): "-o with -c takes one source file",
        ("--platform", "tpu", "a.hip"): "unknown platform 'tpu'",
        ("-o",): "option -o needs a value",
    }
    for args, message in cases.items():
        assert cli.main(["cc", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("hipkit cc: error: ") and err.count("\n") == 1, err
        assert message in err, (args, err)
    assert cli.main(["cc", "absent.hip"]) == 1
    assert "absent.hip: no such file" in capsys.readouterr().err
    assert cli.main(["run", "a.hip", "-c"]) == 2
    assert "hipkit run: error: -c and -o are hipkit cc's" in capsys.readouterr().err


# ---------------------------------------------------------------- hipkit run

ARGS = r"""
#include <hip/hip_runtime.h>
#include <cstdlib>
#include <iostream>
#include <string>
#include "value.h"
__global__ void twice(int* v) { v[threadIdx.x] *= 2; }
int main(int argc, char** argv) {
  if (std::string(argv[1]) == "abort") std::abort();
  std::string line;
  std::getline(std::cin, line);
  int code = std::atoi(argv[1]);
  int* d;
  hipMallocManaged(&d, 4 * sizeof(int));
  for (int i = 0; i < 4; ++i) d[i] = code + i;
  twice<<<1, 4>>>(d);
  hipDeviceSynchronize();
  std::cout << argv[2] << " " << line << " " << d[3] << " " << VALUE << std::endl;
  hipFree(d);
  return code;
}
"""


def test_run_passes_arguments_stdin_and_exit_status(tmp_path):
    """hipkit run builds into the cache and runs: arguments after --, stdin and
    stdout pass through, the exit status is the program's (128 + N for signal N);
    changing an included header rebuilds."""
    write(tmp_path, "args.hip", ARGS)
    write(tmp_path, "value.h", "#define VALUE 11\n")
    done = hipkit_command("run", "args.hip", "-O1", "--", "7", "hello", cwd=tmp_path, stdin="from stdin\n")
    assert (done.returncode, done.stdout) == (7, "hello from stdin 20 11\n"), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["args.hip", "value.h"]
    aborted = hipkit_command("run", "args.hip", "-O1", "--", "abort", cwd=tmp_path)
    assert aborted.returncode == 128 + signal.SIGABRT
    write(tmp_path, "value.h", "#define VALUE 12\n")
    done = hipkit_command("run", "args.hip", "-O1", "--", "0", "hi", cwd=tmp_path, stdin="again\n")
    assert (done.returncode, done.stdout) == (0, "hi again 6 12\n"), done.stderr
    broken = hipkit_command("run", "args.hip", "-Dtwice=", "--", "0", "x", cwd=tmp_path)
    assert broken.returncode == 1 and "hipkit run: error: compiling args.hip failed" in broken.stderr


# ---------------------------------------------------------------- --version


def test_version_lists_every_toolchain():
    """hipkit cc --version: the CPU's compiler and runtime, and nvcc, hipcc and
    amdclang++, each with its version or 'not found'."""
    done = hipkit_command("cc", "--version", cwd=REPO)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("hipkit cc ") and lines[1] == "Default platform: cpu"
    assert "Platform cpu: ready" in lines
    compiler = next(line for line in lines if line.strip().startswith("C++ compiler"))
    assert hipkit.platforms.get("cpu").versions()["C++ compiler"] in compiler
    for tool in ("nvcc", "hipcc", "amdclang++"):
        (line,) = [line for line in lines if line.strip().startswith(tool + ":")]
        assert line.endswith("not found") or "[" in line
