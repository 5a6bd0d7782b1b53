"""Porting fixes: real programs' build lines and idioms that stopped at the compiler.

- ROCm's device_query example, built by its Makefile's line (``-L$ROCM_PATH/lib
  -lamdhip64``): on the CPU those name hipkit's own runtime, never a ROCm install's;
- constexpr host functions called in device code, which HIP-Clang allows and nvcc
  refuses without --expt-relaxed-constexpr: hipkit cc --platform nvidia passes it, and
  NVRTC kernels (whose unannotated functions are device functions) need nothing;
- ``__align__(n)`` and ``hipMemcpyToSymbol(HIP_SYMBOL(mask<T>), ...)`` on a
  ``__constant__`` variable template, on the CPU and NVIDIA.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_cc import build, write
from test_cc_nvidia import NVCC_MISSING, no_gpu_reason
from test_cli import environment

import hipkit
from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")
needs_nvcc = pytest.mark.skipif(bool(NVCC_MISSING), reason=NVCC_MISSING or "")

# ROCm's HIP-Basic/device_query, in short: what it asks and how it prints it.
DEVICE_QUERY = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(condition)                                                        \
  do {                                                                              \
    hipError_t error = (condition);                                                 \
    if (error != hipSuccess) {                                                      \
      fprintf(stderr, "error %s at line %d\n", hipGetErrorString(error), __LINE__); \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

int main() {
  int count = 0, runtime = 0, driver = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  HIP_CHECK(hipRuntimeGetVersion(&runtime));
  HIP_CHECK(hipDriverGetVersion(&driver));
  printf("devices %d\n", count);
  for (int d = 0; d < count; ++d) {
    hipDeviceProp_t props;
    HIP_CHECK(hipGetDeviceProperties(&props, d));
    int warp = 0, sms = 0;
    HIP_CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, d));
    HIP_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, d));
    printf("device %d|%s|%d|%d|%d|%d\n", d, props.name, props.warpSize, warp, props.multiProcessorCount, sms);
  }
  return 0;
}
"""


def needed_libraries(exe: Path) -> list[str]:
    dynamic = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True, check=True)
    return [line.split("[")[1].rstrip("]") for line in dynamic.stdout.splitlines() if "(NEEDED)" in line]


@needs_cpu
def test_device_query_with_rocm_link_line(tmp_path):
    """The example's Makefile line, ROCM_PATH pointing at a ROCm install whose
    libamdhip64.so is not a library at all: the program links and runs on hipkit's
    runtime (libhipkit_cpu.so), needs no libamdhip64, and reports hipkit's devices."""
    rocm = tmp_path / "rocm"
    (rocm / "lib").mkdir(parents=True)
    (rocm / "lib" / "libamdhip64.so").write_text("not a library: linking this would fail\n")
    (rocm / "lib" / "libhiprtc.so").write_text("nor this\n")
    write(tmp_path, "main.hip", DEVICE_QUERY)
    line = ["-std=c++17", "-Wall", "-Wextra", "-O2", "-o", "device_query", "main.hip"]
    line += [f"-L{rocm}/lib", "-L/opt/rocm/lib", "-L", f"{rocm}/lib/", "-lamdhip64", "-lhiprtc"]
    done = subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "cc", *line],
        cwd=tmp_path,
        env=environment(HIPKIT_PLATFORM="cpu", ROCM_PATH=str(rocm)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    needed = needed_libraries(tmp_path / "device_query")
    assert "libhipkit_cpu.so" in needed and not [n for n in needed if "amdhip" in n or "hiprtc" in n], needed
    ran = subprocess.run([str(tmp_path / "device_query")], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0].startswith("devices ") and int(lines[0].split()[1]) >= 1
    device = hipkit.Device(0, platform="cpu")
    _, name, warp, warp_attr, sms, sms_attr = lines[1].split("|")
    assert int(warp) == int(warp_attr) == device.warp_size
    assert int(sms) == int(sms_attr) >= 1


# Constexpr host functions in device code: the program's own, and the standard
# library's (std::max, std::numeric_limits), as HIP-Clang takes them.
CONSTEXPR = r"""
#include <hip/hip_runtime.h>
#include <algorithm>
#include <cstdio>
#include <limits>

constexpr int round_up(int n, int to) { return (n + to - 1) / to * to; }
template <class T>
constexpr T square(T x) { return x * x; }

__global__ void apply(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = round_up(i, 8) + square(i % 5) + std::max(i, 3) - (std::numeric_limits<int>::max() - 2147483647);
}

int main() {
  constexpr int n = 100;
  int* d = nullptr;
  int h[n];
  if (hipMalloc(&d, n * sizeof(int)) != hipSuccess) return 2;
  hipLaunchKernelGGL(apply, dim3(2), dim3(64), 0, 0, d, n);
  if (hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost) != hipSuccess) return 3;
  for (int i = 0; i < n; ++i) printf("%d\n", h[i]);
  return hipFree(d) == hipSuccess ? 0 : 4;
}
"""


def constexpr_reference() -> list[int]:
    return [(i + 7) // 8 * 8 + (i % 5) ** 2 + max(i, 3) for i in range(100)]


@needs_cpu
def test_constexpr_host_functions_on_cpu(tmp_path):
    write(tmp_path, "constexpr.hip", CONSTEXPR)
    build(tmp_path, "-o", "constexpr", "constexpr.hip")
    done = subprocess.run([str(tmp_path / "constexpr")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [int(v) for v in done.stdout.split()] == constexpr_reference()


@needs_nvcc
def test_constexpr_host_functions_under_nvcc(tmp_path):
    """Built here (nvcc refused it before --expt-relaxed-constexpr); run where a GPU is."""
    write(tmp_path, "constexpr.hip", CONSTEXPR)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "constexpr", "constexpr.hip")
    if no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    done = subprocess.run([str(tmp_path / "constexpr")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [int(v) for v in done.stdout.split()] == constexpr_reference()


def test_constexpr_functions_in_nvrtc_kernels():
    """NVRTC kernels: hipkit compiles with -default-device, so a constexpr function
    without an execution space is a device function and needs no flag."""
    from hipkit.platforms.nvidia import compiler

    if compiler.unavailable_reason():
        pytest.skip(compiler.unavailable_reason())
    source = (
        "constexpr int round_up(int n, int to) { return (n + to - 1) / to * to; }\n"
        'extern "C" __global__ void k(int* p) { p[threadIdx.x] = round_up(threadIdx.x, 8); }\n'
    )
    assert hipkit.compile(source, target="sm_90").target.arch == "sm_90"


# __align__(n), and a __constant__ variable template filled through HIP_SYMBOL by
# each instance.  The inputs come from the command line's file, the results go out.
SYMBOLS = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
#include <fstream>
#include <vector>

struct __align__(16) Quad { float a, b, c, d; };
static_assert(alignof(Quad) == 16, "__align__(16)");
struct __align__(8) Pair { short x, y; };
static_assert(alignof(Pair) == 8 && sizeof(Pair) == 8, "__align__(8)");

template <typename T>
__constant__ T mask[8];

template <typename T>
__global__ void scale(const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * mask<T>[i % 8];
}

__global__ void quads(const Quad* q, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = q[i].a + 2 * q[i].b + 3 * q[i].c + 4 * q[i].d;
}

template <typename T>
int run(const std::vector<T>& in, const std::vector<T>& m, const char* path) {
  int n = int(in.size());
  if (hipMemcpyToSymbol(HIP_SYMBOL(mask<T>), m.data(), 8 * sizeof(T)) != hipSuccess) return 1;
  T *din, *dout;
  std::vector<T> out(n), back(8);
  if (hipMalloc(&din, n * sizeof(T)) || hipMalloc(&dout, n * sizeof(T))) return 2;
  hipMemcpy(din, in.data(), n * sizeof(T), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(scale<T>, dim3((n + 63) / 64), dim3(64), 0, 0, din, dout, n);
  hipMemcpy(out.data(), dout, n * sizeof(T), hipMemcpyDeviceToHost);
  if (hipMemcpyFromSymbol(back.data(), HIP_SYMBOL(mask<T>), 8 * sizeof(T)) != hipSuccess) return 3;
  size_t size = 0;
  if (hipGetSymbolSize(&size, HIP_SYMBOL(mask<T>)) != hipSuccess || size != 8 * sizeof(T)) return 4;
  std::ofstream(path, std::ios::binary).write((const char*)out.data(), n * sizeof(T));
  for (int i = 0; i < 8; ++i) if (back[i] != m[i]) return 5;
  return hipFree(din) || hipFree(dout);
}

int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary);
  const int n = 200;
  std::vector<float> fin(n), fm(8), qin(4 * n);
  std::vector<int> iin(n), im(8);
  f.read((char*)fin.data(), n * 4).read((char*)fm.data(), 32).read((char*)iin.data(), n * 4)
      .read((char*)im.data(), 32).read((char*)qin.data(), 16 * n);
  if (int r = run(fin, fm, "f.out")) return 10 + r;
  if (int r = run(iin, im, "i.out")) return 20 + r;
  Quad* dq;
  float* dout;
  std::vector<float> out(n);
  hipMalloc(&dq, n * sizeof(Quad));
  hipMalloc(&dout, n * sizeof(float));
  hipMemcpy(dq, qin.data(), n * sizeof(Quad), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(quads, dim3((n + 63) / 64), dim3(64), 0, 0, dq, dout, n);
  hipMemcpy(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost);
  std::ofstream("q.out", std::ios::binary).write((const char*)out.data(), n * 4);
  return 0;
}
"""


def check_symbols(exe: Path, directory: Path, rng: np.random.Generator) -> None:
    n = 200
    fin = rng.standard_normal(n).astype(np.float32)
    fm = rng.standard_normal(8).astype(np.float32)
    iin = rng.integers(-1000, 1000, n).astype(np.int32)
    im = rng.integers(-50, 50, 8).astype(np.int32)
    quads = rng.standard_normal((n, 4)).astype(np.float32)
    (directory / "in.bin").write_bytes(b"".join(a.tobytes() for a in (fin, fm, iin, im, quads)))
    done = subprocess.run([str(exe), "in.bin"], cwd=directory, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr)
    np.testing.assert_array_equal(np.fromfile(directory / "f.out", np.float32), fin * np.tile(fm, n // 8))
    np.testing.assert_array_equal(np.fromfile(directory / "i.out", np.int32), iin * np.tile(im, n // 8))
    weights = np.array([1, 2, 3, 4], np.float32)
    np.testing.assert_allclose(
        np.fromfile(directory / "q.out", np.float32), quads @ weights, rtol=1e-5, atol=1e-5
    )


@needs_cpu
def test_align_and_variable_template_symbols_on_cpu(tmp_path, rng):
    write(tmp_path, "symbols.hip", SYMBOLS)
    build(tmp_path, "-o", "symbols", "symbols.hip")
    check_symbols(tmp_path / "symbols", tmp_path, rng)


@needs_nvcc
def test_align_and_variable_template_symbols_under_nvcc(tmp_path, rng):
    write(tmp_path, "symbols.hip", SYMBOLS)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "symbols", "symbols.hip")
    if no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    check_symbols(tmp_path / "symbols", tmp_path, rng)


@pytest.mark.parametrize("target", ["cpu", "sm_90"])
def test_align_in_kernel_sources(target):
    """__align__ in kernels compiled from Python (CPU, and NVRTC where it is installed)."""
    if target == "sm_90":
        from hipkit.platforms.nvidia import compiler

        if compiler.unavailable_reason():
            pytest.skip(compiler.unavailable_reason())
    elif cpu_absent:
        pytest.skip(cpu_absent)
    source = (
        "struct __align__(16) Quad { float a, b, c, d; };\n"
        'static_assert(alignof(Quad) == 16, "__align__");\n'
        'extern "C" __global__ void k(Quad* q) { q[threadIdx.x].a = 1.0f; }\n'
    )
    assert hipkit.compile(source, target=target).target.platform in ("cpu", "nvidia")
