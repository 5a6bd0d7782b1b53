"""Compiling for NVIDIA GPUs with NVRTC: no GPU needed, so these run anywhere
NVRTC is installed (``pip install 'hipkit[nvidia]'``).

The cubin and its kernel table (names, symbols, parameter kinds), the
self-describing module container, HIP's device dialect on CUDA, compile
options and errors, the build cache.  Parameter kinds are checked against
the CPU platform's for the same source."""

from __future__ import annotations

import re
import struct
import time

import pytest

import hipkit
from hipkit import CompileError, CompileOptionError, HipError, platforms
from hipkit.platforms.base import (
    PARAM_FLOAT,
    PARAM_OTHER,
    PARAM_POINTER,
    PARAM_SIGNED,
    PARAM_UNSIGNED,
    Param,
    Target,
)
from hipkit.platforms.nvidia.compiler import (
    compile_source,
    from_bytes,
    normalize_options,
    parse_arch,
    unavailable_reason,
)

REASON = unavailable_reason()
pytestmark = pytest.mark.skipif(bool(REASON), reason=f"NVRTC is not usable here: {REASON}")
SM90 = Target("nvidia", "sm_90", 32)


def nvcompile(
    source: str, target: Target = SM90, *, name: str = "kernel.hip", options=(), names=(), headers=None
):
    return compile_source(
        source,
        target,
        name=name,
        options=tuple(options),
        name_expressions=tuple(names),
        headers=dict(headers or {}),
    )


def kernel(binary, lookup: str):
    (found,) = [k for k in binary.kernels if k.lookup == lookup]
    return found


SCALE = r"""
extern "C" __global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cubin_for_the_target(arch):
    binary = nvcompile(SCALE, Target("nvidia", arch, 32))
    assert binary.target == Target("nvidia", arch, 32)
    image = binary.image
    assert image[:4] == b"\x7fELF" and image[4] == 2  # ELF64
    assert struct.unpack_from("<H", image, 0x12)[0] == 190  # EM_CUDA
    assert (struct.unpack_from("<I", image, 0x30)[0] >> 8) & 0xFF == int(arch[3:])  # the SM in e_flags
    assert binary.registered == (("scale", "gpu"),)


def test_parse_arch():
    assert parse_arch("sm_90") == SM90
    assert parse_arch("sm_100a") == Target("nvidia", "sm_100a", 32)
    assert parse_arch("gfx90a") is None and parse_arch("cpu") is None


def test_unsupported_arch_says_which_nvrtc_has():
    with pytest.raises(CompileError, match=r"cannot compile for sm_35 .*sm_90"):
        nvcompile(SCALE, Target("nvidia", "sm_35", 32))


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


def test_parameter_kinds():
    entry = kernel(nvcompile(PARAMS), "params")
    assert entry.symbol.startswith("_Z6params")
    assert entry.params == EXPECTED


@pytest.mark.skipif(bool(platforms.status()["cpu"]), reason="the CPU platform is absent")
def test_parameter_kinds_match_the_cpu_platform():
    cpu = hipkit.compile(PARAMS, device=hipkit.Device(0, platform="cpu"))
    assert cpu.get_function("params").info.params == kernel(nvcompile(PARAMS), "params").params


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


def test_kernel_table():
    binary = nvcompile(TEMPLATES, names=["axpy<float>", "&axpy<double>"])
    by_lookup = {k.lookup: k for k in binary.kernels}
    assert set(by_lookup) == {
        "axpy<float>",
        "&axpy<double>",
        "over(float *, int)",
        "over(int *, int)",
        "ns::inner",
        "ns::deeper::c_inner",
        "cxx_linkage",
        "no_params",
    }
    assert by_lookup["axpy<float>"].symbol == "_Z4axpyIfEvT_PKS0_PS0_i"
    assert by_lookup["axpy<float>"].params[0] == Param(4, 4, PARAM_FLOAT)
    assert by_lookup["&axpy<double>"].params[0] == Param(8, 8, PARAM_FLOAT)
    assert by_lookup["over(float *, int)"].symbol == "_Z4overPfi"
    assert by_lookup["over(int *, int)"].symbol == "_Z4overPii"
    assert by_lookup["ns::inner"].symbol == "_ZN2ns5innerEPi"
    assert by_lookup["ns::deeper::c_inner"].symbol == "c_inner"  # extern "C": the plain name
    assert by_lookup["cxx_linkage"].symbol == "_Z11cxx_linkagePi"
    assert by_lookup["no_params"].params == ()
    symbols = {k.symbol.encode() for k in binary.kernels}
    assert all(s + b"\0" in binary.image for s in symbols)


@pytest.mark.skipif(bool(platforms.status()["cpu"]), reason="the CPU platform is absent")
def test_kernel_names_match_the_cpu_platform():
    names = ["axpy<float>", "axpy<double>"]
    cpu = hipkit.compile(TEMPLATES, name_expressions=names, device=hipkit.Device(0, platform="cpu"))
    binary = nvcompile(TEMPLATES, names=names)
    assert sorted(binary.registered) == sorted((lookup, "gpu") for lookup in cpu.kernels)
    for entry in binary.kernels:
        assert cpu.get_function(entry.lookup).info.params == entry.params


def test_a_name_expression_that_names_no_kernel():
    binary = nvcompile(SCALE + "__device__ int counter;\n", names=["&counter"])
    assert [k.lookup for k in binary.kernels] == ["scale"]
    with pytest.raises(CompileError, match="nothing"):
        nvcompile(SCALE, names=["nothing<int>"])


def test_kernels_discovery_cannot_read_still_compile():
    source = r"""
#define KERNEL(name) extern "C" __global__ void name(int* x) { *x = 1; }
KERNEL(made_by_a_macro)
#if 1
__global__ void twice(float* x) { *x = 1; }
#else
__global__ void twice(double* x) { *x = 2; }
#endif
"""
    binary = nvcompile(source)
    assert b"made_by_a_macro\0" in binary.image
    assert binary.kernels == ()  # the runtime falls back to the driver's parameter information


def test_container_round_trip():
    binary = nvcompile(TEMPLATES, names=["axpy<float>"])
    assert from_bytes(binary.code) == binary
    assert from_bytes(b"garbage") is None
    assert from_bytes(binary.image) is None  # a cubin from elsewhere
    with pytest.raises(HipError, match="damaged"):
        from_bytes(binary.code[:20])


def test_compile_error_names_the_file_and_line():
    source = "\n\n__global__ void broken(int* x) {\n  *x = undeclared_name;\n}\n"
    with pytest.raises(CompileError) as info:
        nvcompile(source, name="my_kernel.hip")
    assert 'my_kernel.hip:4: error: identifier "undeclared_name" is undefined' in info.value.log
    assert "__hk" not in info.value.log  # nothing of what hipkit adds


def test_option_mapping():
    given = ["-DX=1", "-D", "Y", "-UZ", "-I", "inc", "-std=c++20", "-O2", "-O", "-g", "-G", "-lineinfo"]
    given += ["--use_fast_math", "-ffast-math", "-w", "--offload-arch=gfx90a", "-fgpu-rdc", "-arch", "sm_80"]
    assert normalize_options(given) == [
        "-DX=1",
        "-DY",
        "-UZ",
        "-Iinc",
        "--std=c++20",
        "--ptxas-options=-O2",
        "--device-debug",
        "--dopt=on",
        "--device-debug",
        "--generate-line-info",
        "--use_fast_math",
        "--use_fast_math",
        "-w",
    ]


@pytest.mark.parametrize("options", [["-G"], ["-g", "-O0"], ["-lineinfo", "--use_fast_math", "-DFACTOR=2"]])
def test_options_keep_the_kernel_table(options):
    binary = nvcompile(SCALE, options=options)
    assert kernel(binary, "scale").params == (
        Param(8, 8, PARAM_POINTER),
        Param(4, 4, PARAM_FLOAT),
        Param(4, 4, PARAM_SIGNED),
    )


@pytest.mark.parametrize("option", ["-march=native", "-fno-exceptions", "-std=c++14", "--maxrregcount=32"])
def test_rejected_option(option):
    with pytest.raises(CompileOptionError, match=re.escape(option)):
        nvcompile(SCALE, options=[option])


def test_option_without_its_value():
    with pytest.raises(CompileOptionError, match="-D needs a value"):
        nvcompile(SCALE, options=["-D"])


def test_in_memory_headers():
    headers = {"scale.h": "#pragma once\n__device__ inline float twice(float v) { return 2 * v; }\n"}
    source = '#include "scale.h"\nextern "C" __global__ void k(float* x) { *x = twice(*x); }\n'
    assert kernel(nvcompile(source, headers=headers), "k").symbol == "k"


# HIP's device dialect: what the CPU platform's headers offer, on CUDA.
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


def test_hip_dialect_compiles():
    binary = nvcompile(DIALECT, names=["fill<__half>", "fill<float4>"])
    assert {k.lookup for k in binary.kernels} == {"dialect", "fill<__half>", "fill<float4>", "all_and_any"}
    assert kernel(binary, "fill<float4>").params[1] == Param(16, 16, PARAM_OTHER)
    assert kernel(binary, "fill<__half>").params[1] == Param(2, 2, PARAM_FLOAT)


WARP_SIZE_CONSTANT = r"""
static_assert(warpSize == 32, "warpSize is 32 on NVIDIA GPUs");
template <int W> __device__ int lanes() { return W; }

extern "C" __global__ void per_warp(int* out) {
  __shared__ int sums[1024 / warpSize];  // an array bound: a constant expression
  sums[threadIdx.x / warpSize] = lanes<warpSize>();
  out[threadIdx.x] = sums[threadIdx.x % warpSize];
}

struct Layout { int warpSize; };  // a member of that name still declares its own

extern "C" __global__ void shadowed(int* out) {
  int warpSize = 7;  // and so does a local variable
  Layout layout{warpSize + 1};
  out[0] = warpSize + layout.warpSize;
}
"""


def test_warp_size_is_a_constant_expression():
    """warpSize folds like a literal 32 (masks and shifts, unrolled loops), as
    HIP's did on AMD GPUs, and code that declares its own warpSize still compiles."""
    binary = nvcompile(WARP_SIZE_CONSTANT)
    assert {k.lookup for k in binary.kernels} == {"per_warp", "shadowed"}


def test_warm_cache_is_fast(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPKIT_CACHE_DIR", str(tmp_path))
    source = SCALE + "// a source of its own\n"
    first = nvcompile(source)
    start = time.perf_counter()
    again = nvcompile(source)
    assert time.perf_counter() - start < 0.005
    assert again == first
