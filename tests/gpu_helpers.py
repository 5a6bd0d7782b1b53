"""Helpers shared by the tests of the two GPU platforms (test_nvidia*.py,
test_amd*.py, test_gpu_compile.py): each platform's compiler with a target
to compile for, the kernel sources they compile, a device of the platform,
a child Python."""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import dataclass
from types import ModuleType

import pytest
from test_cli import environment

import hipkit
from hipkit import platforms
from hipkit.platforms.base.platform import (
    PARAM_FLOAT,
    PARAM_OTHER,
    PARAM_POINTER,
    PARAM_SIGNED,
    PARAM_UNSIGNED,
    Param,
    Target,
)


@dataclass(frozen=True)
class GpuCompiler:
    """A GPU platform's compiler (``hipkit.platforms.<platform>.compiler``),
    called as hipkit's runtime calls it, for ``target`` unless told another."""

    platform: str  # "nvidia", "amd"
    tool: str  # what compiles, for skip reasons
    target: Target
    targets: tuple[Target, ...]  # one of each warp size the platform has

    @property
    def module(self) -> ModuleType:
        return importlib.import_module(f"hipkit.platforms.{self.platform}.compiler")

    def __call__(
        self,
        source: str,
        target: Target | None = None,
        *,
        name: str = "kernel.hip",
        options=(),
        names=(),
        headers=None,
    ):
        return self.module.compile_source(
            source,
            target or self.target,
            name=name,
            options=tuple(options),
            name_expressions=tuple(names),
            headers=dict(headers or {}),
        )


NVIDIA = GpuCompiler("nvidia", "NVRTC", Target("nvidia", "sm_90", 32), (Target("nvidia", "sm_90", 32),))
AMD = GpuCompiler(
    "amd", "hiprtc", Target("amd", "gfx90a", 64), (Target("amd", "gfx90a", 64), Target("amd", "gfx1030", 32))
)
CPU = platforms.status()["cpu"]
cpu_only = pytest.mark.skipif(bool(CPU), reason=f"the CPU platform is absent: {CPU}")


def kernel(binary, lookup: str):
    """The entry of ``binary``'s kernel table that is looked up as ``lookup``."""
    (found,) = [k for k in binary.kernels if k.lookup == lookup]
    return found


def cpu_compile(source: str, names=()) -> hipkit.Module:
    """``source`` compiled for the CPU platform, the reference."""
    return hipkit.compile(source, name_expressions=names, device=hipkit.Device(0, platform="cpu"))


def python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a child Python with hipkit importable and ``env``."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment(**env), timeout=120
    )


def device_of(platform: str):
    """A fixture's body: device 0 of ``platform``, current for the test, or a
    skip with the reason the platform is absent."""
    reason = platforms.status()[platform]
    if reason:
        pytest.skip(f"{platform} platform absent: {reason}")
    dev = hipkit.Device(0, platform=platform)
    with dev:
        yield dev
    dev.synchronize()


SCALE = r"""
extern "C" __global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
"""

# An error on line 4, column 8.
BROKEN = "\n\n__global__ void broken(int* x) {\n  *x = undeclared_name;\n}\n"

# Enums with a fixed underlying type: without one, its signedness is the
# compiler's choice (GCC: unsigned int for non-negative values; NVRTC: int).
PARAMS = r"""
enum Color : int { red, green };
enum class Small : unsigned char { a, b };
struct Pair { int a; double b; };
__global__ void params(float* p, int i, unsigned u, float f, double d, size_t s, bool b, Color c,
                       Small sm, Pair pair, float4 v, __half h, const int* __restrict__ q, long long ll,
                       char ch, short sh, unsigned char uc, double2 d2, dim3 grid) {}
"""
EXPECTED = (
    Param(8, 8, PARAM_POINTER),
    Param(4, 4, PARAM_SIGNED),
    Param(4, 4, PARAM_UNSIGNED),
    Param(4, 4, PARAM_FLOAT),
    Param(8, 8, PARAM_FLOAT),
    Param(8, 8, PARAM_UNSIGNED),
    Param(1, 1, PARAM_UNSIGNED),
    Param(4, 4, PARAM_SIGNED),
    Param(1, 1, PARAM_UNSIGNED),
    Param(16, 8, PARAM_OTHER),
    Param(16, 16, PARAM_OTHER),
    Param(2, 2, PARAM_FLOAT),
    Param(8, 8, PARAM_POINTER),
    Param(8, 8, PARAM_SIGNED),
    Param(1, 1, PARAM_SIGNED),
    Param(2, 2, PARAM_SIGNED),
    Param(1, 1, PARAM_UNSIGNED),
    Param(16, 16, PARAM_OTHER),
    Param(12, 4, PARAM_OTHER),
)

TEMPLATES = r"""
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
__global__ void over(float* x, int n) { x[n] = 1; }
__global__ void over(int* x, int n) { x[n] = 2; }
namespace ns {
__global__ void inner(int* x) { *x = 3; }
namespace deeper { extern "C" __global__ void c_inner(int* x) { *x = 4; } }
}
__global__ void cxx_linkage(int* x) { *x = 5; }
__global__ void no_params() {}
"""

# A kernel discovery misses, and two it cannot tell apart.
MADE_BY_A_MACRO = r"""
#define KERNEL(name) extern "C" __global__ void name(int* x) { *x = 1; }
KERNEL(made_by_a_macro)
#if 1
__global__ void twice(float* x) { *x = 1; }
#else
__global__ void twice(double* x) { *x = 2; }
#endif
"""

# HIP's device dialect: what the CPU platform's headers offer, on each GPU.
DIALECT = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <cassert>
#include <cstdio>
#include <cstdint>

__device__ float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  return v;
}

extern "C" __global__ void __launch_bounds__(256) dialect(float* f, double* d, unsigned long long* m,
                                                          __half* h, int* counts, uint64_t* u) {
  HIP_DYNAMIC_SHARED(float, dyn)
  __shared__ int hits;
  const unsigned i = hipThreadIdx_x + hipBlockIdx_x * hipBlockDim_x;
  if (threadIdx.x == 0) hits = 0;
  __syncthreads();
  dyn[threadIdx.x] = warp_sum(f[i]) + __shfl(f[i], 0) + __shfl_up(f[i], 1u) + __shfl_down(f[i], 1u);
  unsigned long long ballot = __ballot(f[i] > 0);
  m[i] = ballot + __any(f[i] > 1) + __all(f[i] > 2) + __lane_id() + __lanemask_lt();
  atomicAdd(d, 1.0);
  atomicAdd(&hits, 1);
  atomicMax(d + 1, d[2]);
  atomicSub(u, (uint64_t)1);
  atomicAdd(h, __float2half(1.0f));
  __half x = h[i] * h[i] + __half(2.0f);
  h[i] = __hfma(x, x, x) / x;
  counts[blockIdx.x] = __syncthreads_count(f[i] > 0) + hits;
  assert(i < 1u << 30);
  if (i == 0) printf("block %d of %d, warp size %d\n", blockIdx.x, gridDim.x, warpSize);
  float4 v = make_float4(1, 2, 3, 4) * 2.0f + float4(f[i]);
  f[i] = dyn[(threadIdx.x + 1) % blockDim.x] + v.w + __popc(i) + __clz(i) + __ffs(i) + __brev(i);
}

template <typename T>
__global__ void fill(T* x, T v) { x[threadIdx.x] = v; }

// NVRTC declares functions all() and any() of its own: a kernel's names win.
extern "C" __global__ void all_and_any(unsigned* out) {
  extern __shared__ unsigned all[];
  const bool any = out[threadIdx.x] != 0;
  all[threadIdx.x] = any;
  out[threadIdx.x] = all[0];
}
"""
