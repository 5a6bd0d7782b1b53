"""Compiling for the GPU platforms where NVIDIA (NVRTC) and AMD (hiprtc) do
the same: no GPU needed, so each test runs for each compiler installed here
(``pip install 'hipkit[nvidia]'``; ``make amd-toolchain``) and skips with the
reason for one that is not.

The kernel table (names, symbols, parameter kinds, checked against the CPU
platform's for the same source), the self-describing module container,
HIP's device dialect and hipkit's C library, compile options and errors,
the build cache.  What differs (the image, the targets, the compilers'
option spellings and diagnostics) is in test_nvidia_compile.py and
test_amd_compile.py."""

from __future__ import annotations

import ctypes
import re
import struct

import pytest
from gpu_helpers import (
    AMD,
    BROKEN,
    DIALECT,
    EXPECTED,
    MADE_BY_A_MACRO,
    NVIDIA,
    PARAMS,
    SCALE,
    TEMPLATES,
    GpuCompiler,
    cpu_compile,
    cpu_only,
    kernel,
)

from hipkit import CompileError, CompileOptionError, HipError
from hipkit.platforms._gpu import compiler as gpu_compiler
from hipkit.platforms._gpu.platform import LaunchArguments, LaunchMarkers
from hipkit.platforms.base.platform import PARAM_FLOAT, PARAM_OTHER, PARAM_POINTER, PARAM_SIGNED, Param


@pytest.fixture(params=[NVIDIA, AMD], ids=lambda compiler: compiler.platform)
def gpu(request) -> GpuCompiler:
    compiler = request.param
    reason = compiler.module.unavailable_reason()
    if reason:
        pytest.skip(f"{compiler.tool} is not usable here: {reason}")
    return compiler


def test_parameter_kinds(gpu):
    entry = kernel(gpu(PARAMS), "params")
    assert entry.symbol.startswith("_Z6params")
    assert entry.params == EXPECTED


@cpu_only
def test_parameter_kinds_match_the_cpu_platform(gpu):
    assert cpu_compile(PARAMS).get_function("params").info.params == kernel(gpu(PARAMS), "params").params


def test_kernel_table(gpu):
    binary = gpu(TEMPLATES, names=["axpy<float>", "&axpy<double>"])
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
    assert all(k.symbol.encode() + b"\0" in binary.image for k in binary.kernels)


@cpu_only
def test_kernel_names_match_the_cpu_platform(gpu):
    names = ["axpy<float>", "axpy<double>"]
    cpu = cpu_compile(TEMPLATES, names)
    binary = gpu(TEMPLATES, names=names)
    assert sorted(binary.registered) == sorted((lookup, "gpu") for lookup in cpu.kernels)
    for entry in binary.kernels:
        assert cpu.get_function(entry.lookup).info.params == entry.params


def test_a_name_expression_that_names_no_kernel(gpu):
    binary = gpu(SCALE + "__device__ int counter;\n", names=["&counter"])
    assert [k.lookup for k in binary.kernels] == ["scale"]
    with pytest.raises(CompileError, match="nothing"):
        gpu(SCALE, names=["nothing<int>"])


def test_kernels_discovery_cannot_read_still_compile(gpu):
    """Discovery misses a kernel a macro makes and reads both branches of an
    #if: what hipkit adds does not compile, so the module comes without a
    kernel table (the runtime falls back to the driver's parameter
    information), but with its kernels."""
    binary = gpu(MADE_BY_A_MACRO)
    assert b"made_by_a_macro\0" in binary.image
    assert binary.kernels == ()


def test_container_round_trip(gpu):
    binary = gpu(TEMPLATES, names=["axpy<float>"])
    from_bytes = gpu.module.Binary.from_bytes
    assert from_bytes(binary.code) == binary
    assert from_bytes(b"garbage") is None
    assert from_bytes(binary.image) is None  # an image from elsewhere
    with pytest.raises(HipError, match=f"damaged hipkit {gpu.module.Binary.vendor} module"):
        from_bytes(binary.code[:20])
    other = AMD if gpu is NVIDIA else NVIDIA
    assert other.module.Binary.from_bytes(binary.code) is None  # not the other platform's


def test_compile_error_names_the_file_and_line(gpu):
    with pytest.raises(CompileError) as info:
        gpu(BROKEN, name="my_kernel.hip")
    # file:line[:column]: error, as g++, hipcc and the CPU platform write it.
    assert re.search(r"^my_kernel\.hip:4:(\d+:)? error: .*undeclared_name", info.value.log, re.M)
    assert "__hk" not in info.value.log  # nothing of what hipkit adds


@pytest.mark.parametrize("options", [["-G"], ["-g", "-O0"], ["-lineinfo", "--use_fast_math", "-DFACTOR=2"]])
def test_options_keep_the_kernel_table(gpu, options):
    binary = gpu(SCALE, options=options)
    assert kernel(binary, "scale").params == (
        Param(8, 8, PARAM_POINTER),
        Param(4, 4, PARAM_FLOAT),
        Param(4, 4, PARAM_SIGNED),
    )


def test_the_same_options_everywhere(gpu):
    """Both GPU platforms take hipkit's options in all their spellings, and
    ignore what names an architecture (the target decides)."""
    ignored = ["--offload-arch=gfx90a", "-fgpu-rdc", "-arch", "sm_80", "--gpu-architecture", "sm_80"]
    assert gpu.module.normalize_options(ignored) == []
    for spellings in (["-G", "--device-debug"], ["-lineinfo", "--generate-line-info"]):
        assert len({tuple(gpu.module.normalize_options([s])) for s in spellings}) == 1
    fast = ["--use_fast_math", "-use_fast_math", "-ffast-math"]
    assert len({tuple(gpu.module.normalize_options([s])) for s in fast}) == 1
    levels = ["-O", "-O0", "-O1", "-O2", "-O3", "-Os", "-Og", "-Oz", "-Ofast", "-g", "-w"]
    gpu.module.normalize_options(levels)  # all taken


@pytest.mark.parametrize("option", ["-march=native", "-fno-exceptions", "-std=c++14", "--maxrregcount=32"])
def test_rejected_option(gpu, option):
    with pytest.raises(CompileOptionError, match=re.escape(option)):
        gpu(SCALE, options=[option])


def test_option_without_its_value(gpu):
    with pytest.raises(CompileOptionError, match="-D needs a value"):
        gpu(SCALE, options=["-D"])


def test_defines_and_include_directories(gpu, tmp_path):
    (tmp_path / "factor.h").write_text("#define FACTOR_FROM_FILE 3\n")
    source = '#include "factor.h"\nextern "C" __global__ void k(int* x) { *x = FACTOR * FACTOR_FROM_FILE; }\n'
    assert kernel(gpu(source, options=["-DFACTOR=2", f"-I{tmp_path}"]), "k").symbol == "k"
    with pytest.raises(CompileError, match="FACTOR"):
        gpu(source, options=[f"-I{tmp_path}"])


def test_in_memory_headers(gpu):
    headers = {"scale.h": "#pragma once\n__device__ inline float twice(float v) { return 2 * v; }\n"}
    source = '#include "scale.h"\nextern "C" __global__ void k(float* x) { *x = twice(*x); }\n'
    assert kernel(gpu(source, headers=headers), "k").symbol == "k"


def test_hip_dialect_compiles(gpu):
    binary = gpu(DIALECT, names=["fill<__half>", "fill<float4>"])
    assert {k.lookup for k in binary.kernels} == {"dialect", "fill<__half>", "fill<float4>", "all_and_any"}
    assert kernel(binary, "fill<float4>").params[1] == Param(16, 16, PARAM_OTHER)
    assert kernel(binary, "fill<__half>").params[1] == Param(2, 2, PARAM_FLOAT)


C_LIBRARY = r"""
#include <cstdint>
#include <climits>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstddef>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <assert.h>

static_assert(sizeof(int8_t) == 1 && sizeof(uint16_t) == 2 && sizeof(int64_t) == 8, "");
static_assert(sizeof(intptr_t) == 8 && sizeof(uintmax_t) == 8 && sizeof(ptrdiff_t) == 8, "");
static_assert(INT_MAX == 2147483647 && UINT8_MAX == 255 && INT64_MIN < 0 && SIZE_MAX > UINT_MAX, "");
static_assert(FLT_MAX > 3.4e38f && DBL_EPSILON < 1e-15 && FLT_MANT_DIG == 24, "");
static_assert(__builtin_bit_cast(unsigned, INFINITY) == 0x7f800000u, "");
#if SIZE_MAX != UINT64_MAX || PTRDIFF_MAX != INT64_MAX || LONG_MAX != LLONG_MAX
#error the limits are the LP64 ones, and #if can read them
#endif

extern "C" __global__ void libc(float* f, int* i) {
  f[0] = INFINITY + NAN + HUGE_VALF + sqrtf(f[1]) + fminf(f[2], FLT_MIN);
  int8_t small = static_cast<int8_t>(i[0]);
  memcpy(i + 1, &small, 1);
  memset(i + 2, 0, sizeof(int));
  assert(i[3] != INT_MIN);
  if (i[4] == LLONG_MIN) abort();
  printf("%d %f\n", i[0], f[0]);
}
"""


def test_c_library_headers(gpu):
    """The C library a kernel includes is hipkit's, not the host's (NVRTC and hiprtc have none)."""
    assert kernel(gpu(C_LIBRARY), "libc").params == (Param(8, 8, PARAM_POINTER),) * 2


def test_assert_follows_ndebug(gpu):
    source = "#define NDEBUG\n#include <cassert>\n__global__ void k(int* x) { assert(no_such_name); }\n"
    gpu(source)  # the condition is not compiled
    with pytest.raises(CompileError, match="no_such_name"):
        gpu(source.replace("#define NDEBUG\n", ""))


CUDA_COORDINATES = r"""
__device__ unsigned sum(dim3 d) { return d.x + d.y + d.z; }

extern "C" __global__ void coordinates(unsigned* out) {
  uint3 t = threadIdx;                  // CUDA's threadIdx is a uint3
  dim3 from_uint3 = t;                  // and dim3 converts from uint3
  dim3 grid = gridDim, one(4);          // HIP's conversion to dim3 and dim3's defaults stay
  out[0] = sum(t) + sum(blockIdx) + from_uint3.x + grid.y + one.z + blockDim.x * gridDim.x;
}
"""


def test_coordinates_are_cuda_types(gpu):
    assert kernel(gpu(CUDA_COORDINATES), "coordinates").symbol == "coordinates"


WARP_SIZE_CONSTANT = r"""
static_assert(warpSize == WAVE, "warpSize is the target's warp size");
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


def test_warp_size_is_a_constant_expression(gpu):
    """warpSize folds like a literal (masks and shifts, unrolled loops), as on
    hipkit's other platforms (and in HIP before ROCm 7), and code that
    declares its own warpSize still compiles."""
    for target in gpu.targets:
        binary = gpu(WARP_SIZE_CONSTANT, target, options=[f"-DWAVE={target.warp_size}"])
        assert {k.lookup for k in binary.kernels} == {"per_warp", "shadowed"}


def test_a_warm_cache_compiles_nothing(gpu, tmp_path, monkeypatch):
    """An unchanged source comes from the build cache, whatever the machine's load:
    the compiler runs for the first compile only (how fast a hit is, benchmarks say)."""
    monkeypatch.setenv("HIPKIT_CACHE_DIR", str(tmp_path))
    builds: list[str] = []
    cached = gpu_compiler.cached

    def counted(binary_class, job, depends, build):
        return cached(binary_class, job, depends, lambda: (builds.append(job.target.arch), build())[1])

    monkeypatch.setattr(gpu_compiler, "cached", counted)
    source = SCALE + "// a source of its own\n"
    first = gpu(source)
    again = gpu(source)
    assert again == first and len(builds) == 1


# ---------------------------------------------------------------- the runtime side, without a GPU


@pytest.mark.parametrize("end", [0, 3], ids=["cuda", "hip"])
def test_launch_arguments_are_passed_where_they_are(end):
    """The ``extra`` array a launch gives the driver: the packed arguments'
    own bytes, and their size as C lays out the parameters."""
    params = (Param(1, 1, PARAM_SIGNED), Param(8, 8, PARAM_POINTER), Param(4, 4, PARAM_FLOAT))
    arguments = LaunchArguments(params, LaunchMarkers(1, 2, end))
    args = struct.pack("<b7xQf", -1, 0x1234, 2.5)
    extra, address = arguments.extra(args)
    assert ctypes.string_at(address, len(extra)) == extra
    pointer, data, size, size_address, marker = struct.unpack("=5Q", extra)
    assert (pointer, size, marker) == (1, 2, end)
    assert ctypes.string_at(data, len(args)) == args
    # A char, 7 bytes of padding, a pointer, a float: C's layout, as the packer's.
    assert ctypes.c_size_t.from_address(size_address).value == 20
