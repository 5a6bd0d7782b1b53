"""``hipkit cc --platform nvidia``: whole HIP programs through nvcc and hipkit's
HIP-on-CUDA headers.

Compiling needs nvcc only (DESIGN seam 1: a target, not a device), so most tests
run wherever the CUDA toolkit is installed; programs that only use host code and
HIP's error functions run there too (the CUDA runtime is linked statically and
reports the missing driver or GPU as an error).  Tests that launch kernels run
where an NVIDIA GPU is present and skip elsewhere with the reason.  The header
generator's test needs neither.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from gpu_helpers import DIALECT
from test_cc import FEATURES, REPO, build, feature_inputs, hipkit_command, write

import hipkit
import hipkit.cc
from hipkit import cli, platforms
from hipkit._errors import error_name, error_string, hipError_t
from hipkit.cc import toolchains
from hipkit.hipify import table
from hipkit.platforms.nvidia.driver import hip_code
from hipkit.platforms.nvidia.toolchain import PROGRAM_INCLUDE_DIR, NvidiaToolchain
from hipkit.platforms.nvidia.toolkit import find_nvrtc
from hipkit.tables import INCLUDE_DIR as TABLES_INCLUDE_DIR

NVCC_MISSING = NvidiaToolchain.missing()
needs_nvcc = pytest.mark.skipif(bool(NVCC_MISSING), reason=NVCC_MISSING)
HEADERS = PROGRAM_INCLUDE_DIR / "hipkit_nvidia_program"
GENERATED = TABLES_INCLUDE_DIR / "hipkit_nvidia_program"


@cache
def no_gpu_reason() -> str:
    """Why NVIDIA programs cannot run here ("" when a GPU can run them): the
    hipkit nvidia platform's reason, unless nvidia-smi lists a GPU."""
    reason = platforms.status().get("nvidia", "this hipkit has no nvidia platform")
    if not reason:
        return ""
    smi = shutil.which("nvidia-smi")
    if smi:
        listed = subprocess.run([smi, "-L"], capture_output=True, text=True)
        if listed.returncode == 0 and listed.stdout.startswith("GPU "):
            return ""
    return f"no NVIDIA GPU to run on: {reason}"


def needs_gpu() -> None:
    if no_gpu_reason():
        pytest.skip(no_gpu_reason())


def run(exe: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120, **kwargs)


def elf_sections(path: Path) -> dict[str, bytes]:
    """The sections of an ELF64 little-endian file, by name."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF", path
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    sections = {}
    for name, _, _, _, offset, size, *_ in headers:
        start = names_at + name
        sections[data[start : data.index(b"\0", start)].decode()] = data[offset : offset + size]
    return sections


def fatbin_entries(fatbin: bytes) -> list[tuple[int, int]]:
    """(kind, sm) of each entry of an nvcc fatbin (kind 1: PTX, 2: cubin), as
    the bytes show them: a 16-byte header (magic 0xBA55ED50, header size at 6,
    size at 8), then entries with their kind at 0, header size at 4, payload
    size at 8 and SM number at 28."""
    magic, _, header_size, size = struct.unpack_from("<IHHQ", fatbin, 0)
    assert magic == 0xBA55ED50
    entries, offset, end = [], header_size, header_size + size
    while offset < end:
        kind, _, entry_header, payload = struct.unpack_from("<HHIQ", fatbin, offset)
        (sm,) = struct.unpack_from("<I", fatbin, offset + 28)
        entries.append((kind, sm))
        offset += entry_header + payload
    return entries


# ---------------------------------------------------------------- the generated headers


def test_generated_headers_are_current():
    """The generated headers are what hipkit.tables.make_nvidia_headers makes from
    names.tsv, hipkit._errors and the NVIDIA platform's error table."""
    from hipkit.tables import make_nvidia_headers

    outputs = make_nvidia_headers.outputs()
    names = {"names.h", "errors.h", "module_names.h", "rtc_names.h", "hip_errors.h"}
    assert {p.name for p in outputs} == names
    for path, text in outputs.items():
        stale = f"{path.name} is stale: run python -m hipkit.tables.make_nvidia_headers"
        assert path.read_text() == text, stale


def test_names_are_hipifys_table_backwards():
    """Every HIP name of names.h is hipify's name for its CUDA name; functions are
    calls whose cudaError_t becomes hipError_t; errors, hipDeviceProp_t and
    functions with other arguments are host.h's, and host.h defines nothing
    names.h does."""
    text = (GENERATED / "names.h").read_text()
    values = dict(re.findall(r"^#define (\w+) (\w+)$", text, re.M))
    functions = dict(
        re.findall(r"^#define (\w+)\(\.\.\.\) __hk_hip_result\((\w+)\(__VA_ARGS__\)\)$", text, re.M)
    )
    assert len(values) + len(functions) == text.count("#define ")
    identifiers = table().identifiers
    for hip, cuda in {**values, **functions}.items():
        assert identifiers[cuda].hip == hip and identifiers[cuda].library == "runtime", (hip, cuda)
    assert functions["hipMalloc"] == "cudaMalloc" and functions["hipMemcpyToSymbol"] == "cudaMemcpyToSymbol"
    assert (
        functions["hipDeviceSynchronize"] == "cudaDeviceSynchronize"
    )  # not the deprecated cudaThreadSynchronize
    assert (
        values["hipMemcpyHostToDevice"] == "cudaMemcpyHostToDevice"
        and values["hipStream_t"] == "cudaStream_t"
    )
    assert values["hipDeviceAttributeWarpSize"] == "cudaDevAttrWarpSize"
    assert not [n for n in {**values, **functions} if n.startswith("hipError") or n == "hipSuccess"]
    host = (HEADERS / "host.h").read_text()
    defined = set(re.findall(r"^inline hipError_t (\w+)\(", host, re.M))
    defined |= set(re.findall(r"^typedef .*?(\w+);$", host, re.M)) | {"hipDeviceProp_t"}
    assert {"hipHostMalloc", "hipGetDeviceProperties", "hipDeviceProp_t", "hipInit"} <= defined
    assert not defined & (values.keys() | functions.keys())


def test_error_enum_is_hips():
    """hipError_t (hipkit_tables/hip_errors.h, which errors.h includes) has HIP's
    enumerators and numbers."""
    text = (TABLES_INCLUDE_DIR / "hipkit_tables/hip_errors.h").read_text()
    found = dict(re.findall(r"^  X\((hip\w+), (\d+), ", text, re.M))
    assert {name: int(value) for name, value in found.items()} == {e.name: int(e) for e in hipError_t}


# ---------------------------------------------------------------- host code and errors (no GPU needed)

HOST = r"""
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <type_traits>

__global__ void touch(float4* v) { v[threadIdx.x] = make_float4(1, 2, 3, 4) * 2.0f + float4(v[0].x); }

int main() {
  float4 a = make_float4(1.5f, 2, 3, 4);  // HIP's vector types in host code
  float4 b(2.0f);
  int2 c = make_int2(7, 8);
  assert(a.x == 1.5f);  // the C library's assert
  printf("vectors|%g,%g,%g,%g|%g,%g|%d,%d\n", a.x, a.y, a.z, a.w, b.x, b.w, c.x, c.y);
  printf("fast types|%zu,%zu\n", sizeof(int_fast16_t), sizeof(int_fast32_t));  // glibc's, not NVRTC's
  printf("warpSize|%d\n", warpSize);
  printf("null stream|%d\n", int(hipStreamDefault == 0));
  for (int code = 0; code <= 1100; ++code) {
    hipError_t e = static_cast<hipError_t>(code);
    printf("code %d|%s|%s|%d|%d\n", code, hipGetErrorName(e), hipGetErrorString(e),
           int(hipCUDAErrorTohipError(static_cast<cudaError_t>(code))),
           int(hipCUResultTohipError(static_cast<CUresult>(code))));
  }
  int count = -1;
  hipError_t e = hipGetDeviceCount(&count);
  printf("count|%d|%s\n", int(e), hipGetErrorString(e));
  hipDeviceProp_t prop;
  printf("properties|%d\n", int(hipGetDeviceProperties(&prop, 0)));
  return 0;
}
"""


@needs_nvcc
def test_host_code_and_error_functions(tmp_path):
    """Host code gets HIP's vector types (make_float4 too), the C library's types
    and assert; hipGetErrorName/String say what hipkit._errors says for every
    code, and hipCUDAErrorTohipError (and hipCUResultTohipError, the driver's, for
    the module API) maps every CUDA code as the NVIDIA platform's
    table does (CUDA's cudaErrorMisalignedAddress 716 is hipErrorLaunchFailure
    719, cudaErrorNotPermitted 800 is hipErrorNotSupported 801 ...).  Runs without
    a GPU: the calls that need one fail with HIP's code for why."""
    write(tmp_path, "host.hip", HOST)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "host", "host.hip")
    done = run(tmp_path / "host")
    assert done.returncode == 0, done.stderr
    rows = [line.split("|") for line in done.stdout.splitlines()]
    named = {row[0]: row[1:] for row in rows if not row[0].startswith("code ")}
    assert named["vectors"] == ["1.5,2,3,4", "2,2", "7,8"]
    assert named["fast types"] == ["8,8"] and named["warpSize"] == ["32"] and named["null stream"] == ["1"]
    codes = {int(row[0][5:]): row[1:] for row in rows if row[0].startswith("code ")}
    assert sorted(codes) == list(range(1101))
    for code, (name, text, converted, driver) in codes.items():
        assert (name, text) == (error_name(code), error_string(code)), code
        assert int(converted) == int(driver) == hip_code(code), code
    assert int(codes[716][2]) == hipError_t.hipErrorLaunchFailure
    assert int(codes[800][2]) == hipError_t.hipErrorNotSupported
    status, text = named["count"]
    assert int(status) in (0, 35, 100) and text == error_string(int(status))  # 35: no driver, 100: no GPU
    assert named["properties"] == [status]


@needs_nvcc
def test_seed_program(tmp_path):
    """The seed's vector_add.cpp, unchanged: built here; run (PASSED) where an
    NVIDIA GPU is, and with hipkit run too; elsewhere its CHECK_HIP reports the
    missing driver or GPU in HIP's words."""
    exe = tmp_path / "vector_add"
    build(REPO, "--platform", "nvidia", "-o", str(exe), "examples/vector_add.cpp")
    done = run(exe)
    if no_gpu_reason():
        assert done.returncode == 1
        assert error_string(35) in done.stderr or error_string(100) in done.stderr, done.stderr
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    assert (done.returncode, done.stdout) == (0, "Vector add test PASSED!\n"), done.stderr
    cached = hipkit_command("run", "--platform", "nvidia", "examples/vector_add.cpp", cwd=REPO)
    assert (cached.returncode, cached.stdout) == (0, "Vector add test PASSED!\n"), cached.stderr


@needs_nvcc
def test_objects_hold_each_target(tmp_path):
    """-c: the object's fatbin has a cubin and PTX for each --offload-arch/-arch;
    a gfx target is refused with the reason (exit status 2)."""
    write(tmp_path, "k.hip", "__global__ void k(float* x) { x[threadIdx.x] *= 2; }\n")
    build(tmp_path, "--platform", "nvidia", "-c", "--offload-arch=sm_80", "-arch", "sm_90", "k.hip")
    entries = fatbin_entries(elf_sections(tmp_path / "k.o")[".nv_fatbin"])
    assert sorted(set(entries)) == [(1, 80), (1, 90), (2, 80), (2, 90)]
    wrong = hipkit_command("cc", "--platform", "nvidia", "-c", "--offload-arch=gfx90a", "k.hip", cwd=tmp_path)
    assert wrong.returncode == 2 and "not an NVIDIA target" in wrong.stderr


@needs_nvcc
def test_device_dialect_under_nvcc(tmp_path):
    """The device dialect NVRTC kernels get (test_nvidia_compile's DIALECT:
    mask-free shuffles, 64-bit ballot, __half, HIP's atomics, assert, printf,
    names all and any) compiles in a program, with the C library beside it."""
    write(tmp_path, "dialect.hip", DIALECT)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-c", "-Wall", "dialect.hip")
    assert ".nv_fatbin" in elf_sections(tmp_path / "dialect.o")


@needs_nvcc
def test_several_files_and_options(tmp_path):
    """Objects made with -c (a .cpp is HIP C++ too), linked by another command
    with -fgpu-rdc across units, host-compiler options through -Xcompiler."""
    write(tmp_path, "inc/twice.h", "#pragma once\n__device__ float twice(float v);\n")
    write(tmp_path, "twice.cpp", '#include "twice.h"\n__device__ float twice(float v) { return 2 * v; }\n')
    write(
        tmp_path,
        "main.cpp",
        """
        #include <cstdio>
        #include "twice.h"
        __global__ void k(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]) + SHIFT; }
        int main() {
          float h[4] = {1, 2, 3, 4}, *d;
          if (hipMalloc(&d, sizeof(h)) != hipSuccess) return 1;
          hipMemcpy(d, h, sizeof(h), hipMemcpyHostToDevice);
          hipLaunchKernelGGL(k, dim3(1), dim3(4), 0, 0, d);
          hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost);
          printf("%g %g %g %g\\n", h[0], h[1], h[2], h[3]);
          return hipFree(d);
        }
        """,
    )
    common = ["--platform", "nvidia", "--offload-arch=sm_90", "-fgpu-rdc"]
    build(tmp_path, *common, "-c", "-Iinc", "-Wall", "-fno-strict-aliasing", "twice.cpp")
    build(tmp_path, *common, "-c", "-Iinc", "-DSHIFT=0.5f", "-march=native", "main.cpp")
    build(tmp_path, *common, "twice.o", "main.o", "-pthread", "-Wl,--as-needed", "-lm", "-o", "app")
    if no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    done = run(tmp_path / "app")
    assert (done.returncode, done.stdout) == (0, "2.5 4.5 6.5 8.5\n"), done.stderr


@needs_nvcc
def test_compile_errors(tmp_path):
    """nvcc's diagnostics name the user's file and line; exit status 1, nothing written."""
    write(
        tmp_path,
        "bad.hip",
        """
        #include <hip/hip_runtime.h>
        __global__ void k(int* p) {
          __syncthreads();
          p[threadIdx.x] = missing_value;
        }
        int main() { return 0; }
        """,
    )
    done = hipkit_command("cc", "--platform", "nvidia", "-o", "bad", "bad.hip", cwd=tmp_path)
    assert done.returncode == 1
    assert "bad.hip(4): error" in done.stderr and "missing_value" in done.stderr
    assert done.stderr.rstrip().splitlines()[-1] == "hipkit cc: error: compiling bad.hip failed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.hip"]


@needs_nvcc
def test_version_lists_nvcc():
    done = hipkit_command("cc", "--version", cwd=REPO)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    (nvcc,) = [line for line in lines if line.strip().startswith("nvcc:")]
    assert "release" in nvcc and "[" in nvcc
    assert any(line.startswith("Platform nvidia: ready") for line in lines)
    (nvrtc,) = [line for line in lines if line.strip().startswith("NVRTC (hiprtc in programs):")]
    assert "[" in nvrtc if find_nvrtc() else nvrtc.endswith("or a CUDA toolkit with it)")


def test_missing_nvcc_is_reported(monkeypatch, tmp_path, capsys):
    """Without nvcc, --platform nvidia says why (exit status 1) and --version
    lists it as missing."""
    monkeypatch.setattr("hipkit.platforms.nvidia.toolchain.find_nvcc", lambda: None)
    reason = NvidiaToolchain.missing()
    assert reason.startswith("nvcc not found")
    text, _ = toolchains.report()
    assert f"Platform nvidia: cannot build here ({reason})" in text
    assert "  nvcc: not found" in text.splitlines()
    write(tmp_path, "a.hip", "int main() { return 0; }\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["cc", "--platform", "nvidia", "a.hip"]) == 1
    assert (
        capsys.readouterr().err
        == f"hipkit cc: error: cannot build programs for the nvidia platform here: {reason}\n"
    )


# ---------------------------------------------------------------- on a GPU


@needs_nvcc
def test_program_features_on_gpu(tmp_path, rng):
    """test_cc's feature program (shared memory, atomics, symbols, templates,
    dynamic shared memory, shuffles, streams, events, hipLaunchKernel,
    occupancy) on the GPU, against NumPy; the properties against the Python API's."""
    write(tmp_path, "features.hip", FEATURES)
    build(tmp_path, "--platform", "nvidia", "-O2", "-o", "features", "features.hip")
    needs_gpu()
    data, (x, data_bytes, ints, c) = feature_inputs(tmp_path, rng)
    done = run(tmp_path / "features", str(data))
    assert done.returncode == 0, done.stderr
    report = dict(line.split("=", 1) for line in (data / "report.txt").read_text().splitlines())
    assert report["warpSize"] == report["attributeWarpSize"] == "32"
    assert re.fullmatch(r"sm_\d+", report["gcnArchName"])
    if not platforms.status()["nvidia"]:
        props = hipkit.Device(0, platform="nvidia").properties
        assert int(report["count"]) == len(hipkit.devices("nvidia"))
        assert (report["name"], report["gcnArchName"]) == (props.name, props.gcnArchName)
        for field in ("maxThreadsPerBlock", "multiProcessorCount", "sharedMemPerBlock", "totalGlobalMem"):
            assert int(report[field]) == getattr(props, field), field
        assert report["maxGridSize"] == ",".join(map(str, props.maxGridSize))
    assert float(report["total"]) == pytest.approx(float(x.sum(dtype=np.float64)), rel=1e-4, abs=1e-3)
    assert int(report["blocks"]) == (len(x) + 255) // 256
    np.testing.assert_array_equal(
        np.fromfile(data / "bins.u32", np.uint32), np.bincount(data_bytes, minlength=256)
    )
    assert report["coeffs_size"] == "16"
    xd = x.astype(np.float64)
    reference = c[0] + xd * (c[1] + xd * (c[2] + xd * c[3]))
    np.testing.assert_allclose(np.fromfile(data / "poly.f32", np.float32), reference, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.fromfile(data / "poly.f64", np.float64), reference, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(
        np.fromfile(data / "reversed.i32", np.int32), ints.reshape(-1, 128)[:, ::-1].ravel()
    )
    np.testing.assert_array_equal(np.fromfile(data / "warps.i32", np.int32), ints.reshape(-1, 32).sum(axis=1))
    half = len(x) // 2
    np.testing.assert_array_equal(
        np.fromfile(data / "scaled.f32", np.float32), np.r_[x[:half] * 2, x[half:] * 3]
    )
    assert report["elapsed_ok"] == "1" and report["bounded_block"] == "128"
    assert report["block_sum_shared"] == str(256 * 4)


GPU_ERRORS = r"""
#include <hip/hip_runtime.h>

#include <cassert>
#include <cstdio>

__device__ int scale_factor;
int host_value;

__global__ void fill(int* p, int v) { p[threadIdx.x] = v; }
__global__ void check_positive(const int* p) { assert(p[threadIdx.x] > 0); }
__global__ void store_at(char* p, int offset) { *reinterpret_cast<int*>(p + offset) = 1; }

int main(int argc, char** argv) {
  int count = 0, *d = nullptr, v = 2;
  char* bytes = nullptr;
  if (argc > 1) {  // a second sticky error needs a process of its own, as in CUDA
    printf("malloc|%d\n", hipMalloc(&bytes, 64));
    store_at<<<1, 1>>>(bytes, 1);
    hipError_t e = hipDeviceSynchronize();
    printf("misaligned|%d|%s\n", e, hipGetErrorName(e));
    return 3;
  }
  printf("count|%d\n", hipGetDeviceCount(&count));
  printf("malloc|%d\n", hipMalloc(&d, 1024 * sizeof(int)));
  fill<<<1, 2048>>>(d, 1);
  hipError_t e = hipGetLastError();
  printf("too many threads|%d|%s|%s\n", e, hipGetErrorName(e), hipGetErrorString(e));
  printf("then|%d\n", hipGetLastError());
  fill<<<dim3(1, 70000), 1>>>(d, 1);
  printf("grid too large|%d\n", hipPeekAtLastError());
  printf("peeked|%d\n", hipGetLastError());
  printf("past the symbol|%d\n", hipMemcpyToSymbol(scale_factor, &v, sizeof(v), 4));
  printf("not a symbol|%d\n", hipMemcpyToSymbol(static_cast<const void*>(&host_value), &v, sizeof(v)));
  printf("symbol|%d\n", hipMemcpyToSymbol(HIP_SYMBOL(scale_factor), &v, sizeof(v)));
  printf("no such device|%d\n", hipSetDevice(count));
  fill<<<1, 64>>>(d, 0);
  check_positive<<<1, 64>>>(d);
  printf("assert|%d\n", hipDeviceSynchronize());
  printf("sticky|%d\n", hipMalloc(&d, 4));
  printf("reset|%d\n", hipDeviceReset());
  printf("malloc again|%d\n", hipMalloc(&bytes, 64));
  return 3;
}
"""


@needs_nvcc
def test_errors_on_gpu(tmp_path):
    """CUDA's errors with HIP's numbers and words: a launch of 2048 threads is
    what CUDA 13 reports, cudaErrorInvalidValue, as HIP on NVIDIA reports it
    (hipErrorInvalidValue, "invalid argument"; a grid too large is
    hipErrorInvalidConfiguration), until hipGetLastError reads it (hipkit's
    Python API, which launches through the driver, reports both as
    hipErrorInvalidConfiguration); symbol and device errors; a device assert is
    hipErrorAssert (710), sticky until hipDeviceReset; a misaligned store, in a
    process of its own (CUDA reports a later one as cudaErrorDevicesUnavailable),
    is CUDA's cudaErrorMisalignedAddress (716) and comes back as
    hipErrorLaunchFailure (719)."""
    write(tmp_path, "errors.hip", GPU_ERRORS)
    build(tmp_path, "--platform", "nvidia", "-O1", "-o", "errors", "errors.hip")
    needs_gpu()
    misaligned = run(tmp_path / "errors", "misaligned")
    assert misaligned.returncode == 3, misaligned.stderr
    assert misaligned.stdout.splitlines() == ["malloc|0", "misaligned|719|hipErrorLaunchFailure"]
    done = run(tmp_path / "errors")
    assert done.returncode == 3, done.stderr
    rows = {row[0]: row[1:] for row in (line.split("|") for line in done.stdout.splitlines())}
    assert rows.pop("too many threads") == ["1", "hipErrorInvalidValue", "invalid argument"]
    # The H200's driver answered a grid of 70000 rows with cudaErrorInvalidConfiguration
    # in one run and cudaErrorInvalidValue in another: either, and peeking keeps it.
    grid, peeked = rows.pop("grid too large"), rows.pop("peeked")
    assert grid == peeked and grid[0] in ("1", "9")
    # After a sticky error and a reset, CUDA sometimes refuses the device
    # (cudaErrorDevicesUnavailable -> hipErrorNoDevice): a process restart is the cure.
    assert rows.pop("malloc again")[0] in ("0", "100")
    assert {k: v[0] for k, v in rows.items()} == {
        "count": "0",
        "malloc": "0",
        "then": "0",
        "past the symbol": "1",
        "not a symbol": "13",
        "symbol": "0",
        "no such device": "101",
        "assert": "710",
        "sticky": "710",
        "reset": "0",
    }
    assert "Assertion `p[threadIdx.x] > 0` failed" in done.stderr


@needs_nvcc
def test_default_platform_is_where_programs_run(monkeypatch):
    """Without --platform: nvidia where an NVIDIA GPU is (nvcc installed), else
    cpu even with nvcc installed; HIPKIT_PLATFORM overrides."""
    monkeypatch.delenv("HIPKIT_PLATFORM", raising=False)
    monkeypatch.setattr("hipkit.platforms.amd.toolchain.gpu_archs", lambda: [])
    monkeypatch.setattr("hipkit.platforms.nvidia.toolchain.gpu_present", lambda: False)
    assert toolchains.default_platform() == "cpu"
    monkeypatch.setattr("hipkit.platforms.nvidia.toolchain.gpu_present", lambda: True)
    assert toolchains.default_platform() == "nvidia"
    assert toolchains.select(hipkit.cc.parse_args(["a.hip"])).name == "nvidia"
    monkeypatch.setenv("HIPKIT_PLATFORM", "cpu")
    assert toolchains.default_platform() == "cpu"


@needs_nvcc
def test_host_code_changes_are_not_served_from_the_cache(tmp_path):
    """nvcc -E shows the device side only: an edit to host code in the file must
    still give a new object (the source's own bytes are in the key)."""
    text = """
    #include <hip/hip_runtime.h>
    __global__ void k(int* p) { *p = 1; }
    #ifndef __CUDA_ARCH__
    int host_value() { return VALUE; }
    #endif
    """
    objects = []
    for value in (1, 2):
        write(tmp_path, "unit.hip", text.replace("VALUE", str(value)))
        build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-c", "unit.hip", "-o", "unit.o")
        objects.append((tmp_path / "unit.o").read_bytes())
    assert objects[0] != objects[1]
