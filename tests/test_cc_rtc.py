"""hiprtc and HIP's module API in programs built by ``hipkit cc``: a kernel compiled
at run time from a string (a header of its own, templates by name expression), loaded
with hipModuleLoadData/hipModuleLoad, launched with hipModuleLaunchKernel both ways,
its ``__device__`` variable through hipModuleGetGlobal; every error, with its log.

On the CPU, hiprtc runs hipkit's compiler (Python) in a child process, so the code is
the module the Python API compiles; on NVIDIA it is NVRTC with hipkit's device headers,
which runs without a GPU too.  The same program serves both; programs whose device
*_VISIBLE_DEVICES hide see no device.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_cc import FILES, build, write
from test_cc_nvidia import GENERATED, NVCC_MISSING, needs_nvcc, no_gpu_reason
from test_cli import environment

import hipkit
from hipkit import cli, hip
from hipkit.hipify import table
from hipkit.platforms.base.platform import PORTABLE_INCLUDE_DIR
from hipkit.platforms.nvidia.toolchain import PROGRAM_INCLUDE_DIR
from hipkit.platforms.nvidia.toolkit import find_cublas, find_nvcc, find_nvrtc
from hipkit.tables import INCLUDE_DIR as TABLES_INCLUDE_DIR

# Compiled by the program at run time: a header of its own (real.h), a template
# kernel instantiated by name expressions, a __device__ variable, HIP's warpSize,
# __shfl_down and static shared memory.
KERNELS = r"""#include "real.h"
__device__ real gain = 1;

template <class T>
__global__ void scale(T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

extern "C" __global__ void axpy(real a, const real* x, real* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = gain * (a * x[i] + y[i]);
}

extern "C" __global__ void warp_sums(const int* in, int* out) {
  __shared__ int staged[256];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = in[t];
  __syncthreads();
  int v = staged[threadIdx.x];
  for (int d = warpSize / 2; d > 0; d /= 2) v += __shfl_down(v, d);
  if (threadIdx.x % warpSize == 0) out[t / warpSize] = v;
}
"""

PROGRAM = r"""#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
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
#define RTC(call)                                                                     \
  do {                                                                                \
    hiprtcResult r_ = (call);                                                         \
    if (r_ != HIPRTC_SUCCESS) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hiprtcGetErrorString(r_)); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

// Compiled at run time: a header of its own, a template kernel instantiated by
// name expressions, a __device__ variable, HIP's warpSize and __shfl_down.
static const char* kSource = R"(@KERNELS@)";
static const char* kHeaders[] = {"typedef float real;\n"};
static const char* kIncludeNames[] = {"real.h"};
// Code written for AMD and NVIDIA alike may name an AMD target: it means nothing here.
static const char* kOptions[] = {"-DUNUSED=1", "--offload-arch=gfx90a"};

@FILES@
// The program compiled, and what hiprtc says of it.
static hiprtcResult compile(hiprtcProgram* prog, int num_options, const char** options) {
  hiprtcResult r = hiprtcCreateProgram(prog, kSource, "kernels.hip", 1, kHeaders, kIncludeNames);
  if (r != HIPRTC_SUCCESS) return r;
  if ((r = hiprtcAddNameExpression(*prog, "scale<float>")) != HIPRTC_SUCCESS) return r;
  if ((r = hiprtcAddNameExpression(*prog, "scale<double>")) != HIPRTC_SUCCESS) return r;
  return hiprtcCompileProgram(*prog, num_options, options);
}

static std::string log_of(hiprtcProgram prog) {
  size_t size = 0;
  if (hiprtcGetProgramLogSize(prog, &size) != HIPRTC_SUCCESS || size == 0) return "(no log)";
  std::string log(size, '\0');
  hiprtcGetProgramLog(prog, &log[0]);
  return log.substr(0, size - 1);
}

// "devices": what the device functions say (HIP_VISIBLE_DEVICES & co.).
static int devices() {
  int count = -1;
  hipError_t e = hipGetDeviceCount(&count);
  hipDeviceProp_t prop;
  printf("count|%d|%d\n", int(e), count);
  printf("init|%d\n", int(hipInit(0)));
  printf("set|%d\n", int(hipSetDevice(0)));
  printf("properties|%d\n", int(hipGetDeviceProperties(&prop, 0)));
  return 0;
}

// "compile": one compile of kSource; the result, the log, the code's size and
// the lowered names (needs no device: NVRTC runs without a GPU).
static int compile_only() {
  hiprtcProgram prog = nullptr;
  hiprtcResult r = compile(&prog, 2, kOptions);
  size_t code_size = 0;
  const char *lowered_float = "", *lowered_double = "";
  if (r == HIPRTC_SUCCESS) {
    RTC(hiprtcGetCodeSize(prog, &code_size));
    RTC(hiprtcGetLoweredName(prog, "scale<float>", &lowered_float));
    RTC(hiprtcGetLoweredName(prog, "scale<double>", &lowered_double));
  }
  printf("result|%d|%s\ncode|%zu\nlowered|%s|%s\n", int(r), hiprtcGetErrorString(r), code_size, lowered_float,
         lowered_double);
  printf("log|%s\n", log_of(prog).c_str());
  RTC(hiprtcDestroyProgram(&prog));
  return 0;
}

// "all DIR A": everything, with data from DIR, results to DIR.
static int all(const std::string& dir, float a) {
  std::vector<float> x = load<float>(dir + "/x.f32"), y = load<float>(dir + "/y.f32");
  std::vector<double> xd = load<double>(dir + "/x.f64");
  std::vector<int> ints = load<int>(dir + "/ints.i32");
  const int n = int(x.size()), ni = int(ints.size());
  FILE* report = fopen((dir + "/report.txt").c_str(), "w");

  // hiprtc, and each of its errors.
  int major = -1, minor = -1;
  RTC(hiprtcVersion(&major, &minor));
  fprintf(report, "version=%d.%d\n", major, minor);
  hiprtcProgram prog = nullptr;
  const char* lowered = nullptr;
  RTC(hiprtcCreateProgram(&prog, kSource, "kernels.hip", 1, kHeaders, kIncludeNames));
  fprintf(report, "lowered_before_compile=%d\n", int(hiprtcGetLoweredName(prog, "scale<float>", &lowered)));
  RTC(hiprtcDestroyProgram(&prog));
  RTC(compile(&prog, 2, kOptions));
  size_t log_size = 0;
  RTC(hiprtcGetProgramLogSize(prog, &log_size));
  std::string log(log_size, 'x');
  RTC(hiprtcGetProgramLog(prog, &log[0]));
  fprintf(report, "log_terminated=%d\n", int(log_size >= 1 && strlen(log.c_str()) == log_size - 1));
  fprintf(report, "late_name_expression=%d\n", int(hiprtcAddNameExpression(prog, "scale<int>")));
  fprintf(report, "unknown_name_expression=%d\n", int(hiprtcGetLoweredName(prog, "scale<int>", &lowered)));
  const char *lowered_float = nullptr, *lowered_double = nullptr;
  RTC(hiprtcGetLoweredName(prog, "scale<float>", &lowered_float));
  RTC(hiprtcGetLoweredName(prog, "scale<double>", &lowered_double));
  const std::string name_float = lowered_float, name_double = lowered_double;
  size_t code_size = 0;
  RTC(hiprtcGetCodeSize(prog, &code_size));
  std::vector<char> code(code_size);
  RTC(hiprtcGetCode(prog, code.data()));
  RTC(hiprtcDestroyProgram(&prog));
#ifndef __HIP_PLATFORM_NVIDIA__  // NVRTC's handle is then dangling
  fprintf(report, "after_destroy=%d\n", int(hiprtcGetProgramLogSize(prog, &log_size)));
#endif
  fprintf(report, "null_program=%d\n", int(hiprtcGetProgramLogSize(nullptr, &log_size)));
  fprintf(report, "error_string=%s\n", hiprtcGetErrorString(HIPRTC_ERROR_COMPILATION));

  hiprtcProgram bad = nullptr;
  RTC(hiprtcCreateProgram(&bad, "__global__ void k(int* p) {\n  p[0] = undefined_name;\n}\n", "bad.hip", 0,
                          nullptr, nullptr));
  fprintf(report, "bad_source=%d\n", int(hiprtcCompileProgram(bad, 0, nullptr)));
  fprintf(report, "code_of_failed=%d\n", int(hiprtcGetCodeSize(bad, &code_size)));
  std::ofstream(dir + "/bad_source.log") << log_of(bad);
  RTC(hiprtcDestroyProgram(&bad));
  const char* bad_options[] = {"--no-such-option"};
  fprintf(report, "bad_option=%d\n", int(compile(&bad, 1, bad_options)));
  std::ofstream(dir + "/bad_option.log") << log_of(bad);
  RTC(hiprtcDestroyProgram(&bad));

  // Modules: two loads of the code, each with its own __device__ variable.
  hipModule_t module, second;
  CHECK(hipModuleLoadData(&module, code.data()));
  CHECK(hipModuleLoadData(&second, code.data()));
  hipFunction_t axpy, scale_float, scale_double, warp_sums, missing;
  CHECK(hipModuleGetFunction(&axpy, module, "axpy"));
  CHECK(hipModuleGetFunction(&scale_float, module, name_float.c_str()));
  CHECK(hipModuleGetFunction(&scale_double, module, name_double.c_str()));
  CHECK(hipModuleGetFunction(&warp_sums, module, "warp_sums"));
  fprintf(report, "unknown_function=%d\n", int(hipModuleGetFunction(&missing, module, "no_such_kernel")));
  hipDeviceptr_t gain = nullptr, second_gain = nullptr, nowhere = nullptr;
  size_t gain_size = 0;
  CHECK(hipModuleGetGlobal(&gain, &gain_size, module, "gain"));
  CHECK(hipModuleGetGlobal(&second_gain, nullptr, second, "gain"));
  fprintf(report, "gain_size=%zu\n", gain_size);
  fprintf(report, "unknown_global=%d\n",
          int(hipModuleGetGlobal(&nowhere, &gain_size, module, "no_such_global")));
  float gain_value = 0.5f, read_back = 0, second_value = 0;
  CHECK(hipMemcpyHtoD(gain, &gain_value, sizeof(float)));
  CHECK(hipMemcpyDtoH(&read_back, gain, sizeof(float)));
  CHECK(hipMemcpyDtoH(&second_value, second_gain, sizeof(float)));
  fprintf(report, "gain=%g\nsecond_gain=%g\n", read_back, second_value);

  // Launches: kernelParams, and `extra` with the arguments packed.
  float *dx, *dy;
  double* dxd;
  int *din, *dout;
  int warp = 0;
  CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0));
  const int warps = ni / warp;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMalloc(&dxd, n * sizeof(double)));
  CHECK(hipMalloc(&din, ni * sizeof(int)));
  CHECK(hipMalloc(&dout, warps * sizeof(int)));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dxd, xd.data(), n * sizeof(double), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(din, ints.data(), ni * sizeof(int), hipMemcpyHostToDevice));
  const unsigned blocks = (n + 127) / 128;
  void* axpy_params[] = {&a, &dx, &dy, const_cast<int*>(&n)};
  CHECK(hipModuleLaunchKernel(axpy, blocks, 1, 1, 128, 1, 1, 0, nullptr, axpy_params, nullptr));
  struct {
    float* x;
    float a;
    int n;
  } packed = {dx, 2.0f, n};
  size_t packed_size = sizeof(packed);
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                   HIP_LAUNCH_PARAM_END};
  CHECK(hipModuleLaunchKernel(scale_float, blocks, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  size_t short_size = 4;
  void* short_extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &short_size,
                         HIP_LAUNCH_PARAM_END};
  fprintf(report, "short_buffer=%d\n",
          int(hipModuleLaunchKernel(scale_float, blocks, 1, 1, 128, 1, 1, 0, nullptr, nullptr, short_extra)));
  fprintf(report, "both_conventions=%d\n",
          int(hipModuleLaunchKernel(scale_float, blocks, 1, 1, 128, 1, 1, 0, nullptr, axpy_params, extra)));
  (void)hipGetLastError();
  double ad = a;
  void* scale_params[] = {&dxd, &ad, const_cast<int*>(&n)};
  hipStream_t stream;
  CHECK(hipStreamCreate(&stream));
  CHECK(hipModuleLaunchKernel(scale_double, blocks, 1, 1, 128, 1, 1, 0, stream, scale_params, nullptr));
  CHECK(hipStreamSynchronize(stream));
  CHECK(hipStreamDestroy(stream));
  void* warp_params[] = {&din, &dout};
  CHECK(hipModuleLaunchKernel(warp_sums, ni / 256, 1, 1, 256, 1, 1, 0, nullptr, warp_params, nullptr));
  CHECK(hipDeviceSynchronize());
  CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(x.data(), dx, n * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(xd.data(), dxd, n * sizeof(double), hipMemcpyDeviceToHost));
  std::vector<int> sums(warps);
  CHECK(hipMemcpy(sums.data(), dout, warps * sizeof(int), hipMemcpyDeviceToHost));
  save(dir + "/axpy.f32", y);
  save(dir + "/scaled.f32", x);
  save(dir + "/scaled.f64", xd);
  save(dir + "/warps.i32", sums);
  fprintf(report, "warp_size=%d\n", warp);

  int value = -1;
  CHECK(hipFuncGetAttribute(&value, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, warp_sums));
  fprintf(report, "warp_sums_shared=%d\n", value);
  CHECK(hipFuncGetAttribute(&value, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, axpy));
  fprintf(report, "axpy_max_threads=%d\n", value);

  // From a file; errors of loading.
  const std::string path = dir + "/kernels.co";
  std::ofstream(path, std::ios::binary).write(code.data(), std::streamsize(code.size()));
  hipModule_t from_file, broken;
  CHECK(hipModuleLoad(&from_file, path.c_str()));
  CHECK(hipModuleGetFunction(&missing, from_file, "axpy"));
  fprintf(report, "missing_file=%d\n", int(hipModuleLoad(&broken, (dir + "/absent.co").c_str())));
  static const char junk[] = "\x7f" "ELF but not a module";
  fprintf(report, "bad_image=%d\n", int(hipModuleLoadData(&broken, junk)));
  char error_log[512] = "";
  hipJitOption jit_options[] = {hipJitOptionErrorLogBuffer, hipJitOptionErrorLogBufferSizeBytes};
  void* jit_values[] = {error_log, reinterpret_cast<void*>(sizeof(error_log))};
  fprintf(report, "bad_image_ex=%d\n", int(hipModuleLoadDataEx(&broken, junk, 2, jit_options, jit_values)));
  fprintf(report, "error_log_written=%d\n", int(error_log[0] != '\0'));
  (void)hipGetLastError();
  CHECK(hipModuleUnload(from_file));
  CHECK(hipModuleUnload(second));
  CHECK(hipModuleUnload(module));
  for (void* p : {(void*)dx, (void*)dy, (void*)dxd, (void*)din, (void*)dout}) CHECK(hipFree(p));
  fclose(report);
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "devices") return devices();
  if (mode == "compile") return compile_only();
  if (mode == "all" && argc == 4) return all(argv[2], std::strtof(argv[3], nullptr));
  return 2;
}
""".replace("@KERNELS@", KERNELS).replace("@FILES@", FILES)

# What hiprtc and the module API answer on every platform (hiprtcResult and hipError_t values).
COMMON = {
    "lowered_before_compile": "9",  # HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION
    "log_terminated": "1",
    "late_name_expression": "8",  # HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION
    "unknown_name_expression": "10",  # HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID
    "null_program": "4",  # HIPRTC_ERROR_INVALID_PROGRAM
    "bad_source": "6",  # HIPRTC_ERROR_COMPILATION
    "bad_option": "5",  # HIPRTC_ERROR_INVALID_OPTION
    "unknown_function": "500",  # hipErrorNotFound
    "unknown_global": "500",
    "gain_size": "4",
    "gain": "0.5",
    "second_gain": "1",  # the second load's own variable
    "short_buffer": "1",  # hipErrorInvalidValue
    "both_conventions": "1",
    "warp_sums_shared": "1024",
    "axpy_max_threads": "1024",
    "missing_file": "301",  # hipErrorFileNotFound
}


@pytest.fixture(scope="module")
def cpu_program(tmp_path_factory) -> Path:
    """The program, built once for the CPU."""
    directory = tmp_path_factory.mktemp("rtc")
    write(directory, "rtc.hip", PROGRAM)
    build(directory, "-O1", "-o", "rtc", "rtc.hip")
    return directory / "rtc"


def run(exe: Path, *args: str, **env: str | None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, timeout=300, env=environment(**env)
    )


def write_inputs(directory: Path, rng: np.random.Generator) -> dict[str, np.ndarray]:
    inputs = {
        "x.f32": rng.standard_normal(3001).astype(np.float32),
        "y.f32": rng.standard_normal(3001).astype(np.float32),
        "x.f64": rng.standard_normal(3001),
        "ints.i32": rng.integers(-1000, 1000, 2048, dtype=np.int32),
    }
    for name, array in inputs.items():
        array.tofile(directory / name)
    return inputs


def check_results(directory: Path, inputs: dict[str, np.ndarray], a: float, warp: int) -> None:
    """The launches against NumPy: axpy with the module's gain (0.5), scale<float>
    by 2 after it, scale<double> by a, the sums of each warp."""
    x, y = inputs["x.f32"], inputs["y.f32"]
    np.testing.assert_allclose(
        np.fromfile(directory / "axpy.f32", np.float32), 0.5 * (np.float32(a) * x + y), rtol=1e-6, atol=1e-6
    )
    np.testing.assert_array_equal(np.fromfile(directory / "scaled.f32", np.float32), 2 * x)
    np.testing.assert_allclose(
        np.fromfile(directory / "scaled.f64", np.float64),
        inputs["x.f64"] * np.float64(np.float32(a)),
        rtol=1e-15,
    )
    np.testing.assert_array_equal(
        np.fromfile(directory / "warps.i32", np.int32), inputs["ints.i32"].reshape(-1, warp).sum(axis=1)
    )


def read_report(directory: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in (directory / "report.txt").read_text().splitlines())


def test_hiprtc_and_modules_on_the_cpu(cpu_program, tmp_path, rng):
    """Compiled at run time, loaded twice (each load its own __device__ variable) and
    from a file, launched with kernelParams and with a packed buffer in `extra`, on the
    null stream and another: results against NumPy.  The code is the Python API's for
    the same source; each hiprtc and module error comes back as HIP says it, with the
    compiler's message in the log."""
    inputs = write_inputs(tmp_path, rng)
    a = float(np.float32(rng.uniform(-3, 3)))
    done = run(cpu_program, "all", str(tmp_path), repr(a))
    assert done.returncode == 0, done.stderr
    report = read_report(tmp_path)
    assert {k: report[k] for k in COMMON} == COMMON
    assert report["version"] == "6.2" and report["error_string"] == "HIPRTC_ERROR_COMPILATION"
    assert report["code_of_failed"] == report["after_destroy"] == "4"  # HIPRTC_ERROR_INVALID_PROGRAM
    assert (report["bad_image"], report["bad_image_ex"], report["error_log_written"]) == ("200", "200", "1")
    warp = int(report["warp_size"])
    check_results(tmp_path, inputs, a, warp)
    log = (tmp_path / "bad_source.log").read_text()
    assert "bad.hip:2:" in log and "undefined_name" in log, log
    assert "--no-such-option" in (tmp_path / "bad_option.log").read_text()

    # The same source through the Python API: the same code object (hipkit's cache).
    with hipkit.Device(0, platform="cpu") as device:
        if device.warp_size == warp:
            prog = hip.hiprtcCreateProgram(KERNELS, "kernels.hip", ["typedef float real;\n"], ["real.h"])
            for expression in ("scale<float>", "scale<double>"):
                hip.hiprtcAddNameExpression(prog, expression)
            hip.hiprtcCompileProgram(prog, ["-DUNUSED=1", "--offload-arch=gfx90a"])
            assert hip.hiprtcGetCode(prog) == (tmp_path / "kernels.co").read_bytes()
            hip.hiprtcDestroyProgram(prog)


def test_compile_only_answers_lowered_names(cpu_program):
    """hiprtcGetLoweredName gives what hipModuleGetFunction finds the kernel by: on
    the CPU the name expression itself, as the Python API's."""
    done = run(cpu_program, "compile")
    assert done.returncode == 0, done.stderr
    lines = dict(line.split("|", 1) for line in done.stdout.splitlines())
    assert lines["result"] == "0|HIPRTC_SUCCESS"
    assert lines["lowered"] == "scale<float>|scale<double>" and int(lines["code"]) > 0


def test_missing_or_broken_compiler(cpu_program, tmp_path):
    """HIPKIT_RTC_PYTHON naming no program, or one that fails (no hipkit), is
    HIPRTC_ERROR_INTERNAL_ERROR with the reason in the log, never a crash; naming a
    Python with hipkit compiles."""
    missing = run(cpu_program, "compile", HIPKIT_RTC_PYTHON=str(tmp_path / "no-python"))
    assert missing.returncode == 0, missing.stderr
    assert "result|11|HIPRTC_ERROR_INTERNAL_ERROR" in missing.stdout
    absent = tmp_path / "no-python"
    assert f"cannot run hipkit's compiler: {absent}: No such file or directory" in missing.stdout
    assert "set HIPKIT_RTC_PYTHON" in missing.stdout
    false = shutil.which("false")
    assert false is not None
    failing = run(cpu_program, "compile", HIPKIT_RTC_PYTHON=false)
    assert "result|11|" in failing.stdout and "failed, exit status 1" in failing.stdout, failing.stdout
    chosen = run(cpu_program, "compile", HIPKIT_RTC_PYTHON=sys.executable)
    assert "result|0|HIPRTC_SUCCESS" in chosen.stdout, chosen.stdout


def test_compiler_answers_every_request():
    """hipkit.cc.rtc, the program's end of the protocol: a request it cannot read is
    HIPRTC_ERROR_INTERNAL_ERROR with the reason, in the answer's fields."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from hipkit.cc import rtc; sys.exit(rtc.main())"],
        input=b"not a request",
        capture_output=True,
        env=environment(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    head, _, rest = done.stdout.partition(b"\n")
    assert head == b"result 2" and rest.startswith(b"11log ")
    assert b"hipkit's compiler failed: JSONDecodeError" in rest


@pytest.mark.parametrize(
    "env, visible",
    [
        ({}, True),
        ({"HIP_VISIBLE_DEVICES": "0"}, True),
        ({"HIP_VISIBLE_DEVICES": "0,1"}, True),
        ({"HIP_VISIBLE_DEVICES": ""}, False),
        ({"HIP_VISIBLE_DEVICES": "-1"}, False),
        ({"HIP_VISIBLE_DEVICES": "1,0"}, False),
        ({"HIP_VISIBLE_DEVICES": "GPU-8a6f1f4c"}, False),
        ({"CUDA_VISIBLE_DEVICES": "1"}, True),  # the vendors' variables choose among their GPUs only
        ({"ROCR_VISIBLE_DEVICES": ""}, True),
        ({"ROCR_VISIBLE_DEVICES": "0", "HIP_VISIBLE_DEVICES": "-1"}, False),
    ],
    ids=lambda v: repr(v),
)
def test_visible_devices(cpu_program, env, visible):
    """HIP_VISIBLE_DEVICES, read as CUDA and ROCm read a list: the CPU (device 0) is
    there only if it is unset or lists it first; hidden, the device calls say
    hipErrorNoDevice (100).  CUDA's and ROCm's own variables leave the CPU alone."""
    done = run(cpu_program, "devices", **env)
    assert done.returncode == 0, done.stderr
    rows = dict(line.split("|", 1) for line in done.stdout.splitlines())
    if visible:
        assert rows == {"count": "0|1", "init": "0", "set": "0", "properties": "0"}
    else:
        assert rows == {"count": "100|0", "init": "100", "set": "100", "properties": "100"}


def test_hiprtc_header_is_for_programs():
    """A kernel source compiled from Python that includes hip/hiprtc.h is told why not."""
    source = "#include <hip/hiprtc.h>\n__global__ void k(int* p) { p[0] = 1; }\n"
    with pytest.raises(hipkit.CompileError, match="hip/hiprtc.h is a host API"):
        hipkit.compile(source, device=hipkit.Device(0, platform="cpu"))


# ---------------------------------------------------------------- NVIDIA: NVRTC and the driver


def test_module_and_rtc_names_are_hipifys_table_backwards():
    """module_names.h and rtc_names.h (generated; test_cc_nvidia checks they are
    current): each HIP name is hipify's name for its CUDA driver or NVRTC name; driver
    calls go through __hk_driver_call; hipModuleGetGlobal and hiprtcCompileProgram are
    written by hand, and names.h has none of these names."""
    identifiers = table().identifiers
    driver = (GENERATED / "module_names.h").read_text()
    rtc = (GENERATED / "rtc_names.h").read_text()
    values = dict(re.findall(r"^#define (\w+) (\w+)$", driver + rtc, re.M))
    driver_calls = dict(
        re.findall(r"^#define (\w+)\(\.\.\.\) __hk_driver_call\((\w+)\)\(__VA_ARGS__\)$", driver, re.M)
    )
    rtc_calls = dict(re.findall(r"^#define (\w+)\(\.\.\.\) (\w+)\(__VA_ARGS__\)$", rtc, re.M))
    assert len(values) + len(driver_calls) + len(rtc_calls) == (driver + rtc).count("#define ")
    for names, libraries in ((values, ("driver", "rtc")), (driver_calls, ("driver",)), (rtc_calls, ("rtc",))):
        for hip_name, cuda in names.items():
            entry = identifiers[cuda]
            assert entry.hip == hip_name and entry.library in libraries, (hip_name, cuda)
    assert driver_calls["hipModuleLaunchKernel"] == "cuLaunchKernel"
    assert driver_calls["hipModuleLoadData"] == "cuModuleLoadData"
    assert values["HIP_LAUNCH_PARAM_END"] == "CU_LAUNCH_PARAM_END" and values["hipModule_t"] == "CUmodule"
    assert rtc_calls["hiprtcGetCode"] == "nvrtcGetPTX" and values["hiprtcResult"] == "nvrtcResult"
    assert "hipModuleGetGlobal" not in driver_calls and "hiprtcCompileProgram" not in rtc_calls
    runtime = set(re.findall(r"^#define (\w+)", (GENERATED / "names.h").read_text(), re.M))
    assert not runtime & (values.keys() | driver_calls.keys() | rtc_calls.keys())


@needs_nvcc
def test_nvidia_program(tmp_path, rng):
    """The same program for NVIDIA: built (NVRTC linked only where it is called, the
    driver found at run time, no libcuda to link); hiprtc runs without a GPU and gives
    PTX and NVRTC's lowered names, with hipkit's device headers in the kernels (warpSize,
    __shfl_down); on a GPU, every launch against NumPy."""
    nvrtc = find_nvrtc()
    if nvrtc is None:
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc, or a CUDA toolkit with it)")
    write(tmp_path, "rtc.hip", PROGRAM)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-O1", "-o", "rtc", "rtc.hip")
    needed = subprocess.run(["readelf", "-d", str(tmp_path / "rtc")], capture_output=True, text=True).stdout
    assert f"[{nvrtc.library.name}]" in needed and "libcuda" not in needed
    done = run(tmp_path / "rtc", "compile")
    assert done.returncode == 0, done.stderr
    lines = dict(line.split("|", 1) for line in done.stdout.splitlines())
    assert lines["result"] == "0|NVRTC_SUCCESS", done.stdout
    assert lines["lowered"] == "_Z5scaleIfEvPT_S0_i|_Z5scaleIdEvPT_S0_i" and int(lines["code"]) > 0
    if no_gpu_reason():
        pytest.skip(f"built and compiled with NVRTC, not run: {no_gpu_reason()}")
    inputs = write_inputs(tmp_path, rng)
    a = float(np.float32(rng.uniform(-3, 3)))
    done = run(tmp_path / "rtc", "all", str(tmp_path), repr(a))
    assert done.returncode == 0, done.stderr
    report = read_report(tmp_path)
    # cuLaunchKernel does not check the size of an `extra` buffer (nor does HIP on NVIDIA, which
    # calls it): a short one launches, where HIP on AMD and the CPU answer hipErrorInvalidValue.
    expected = {**COMMON, "short_buffer": "0"}
    assert {k: report[k] for k in expected} == expected
    assert report["error_string"] == "NVRTC_ERROR_COMPILATION" and report["bad_image"] != "0"
    check_results(tmp_path, inputs, a, int(report["warp_size"]))
    log = (tmp_path / "bad_source.log").read_text()
    assert "bad.hip(2)" in log and "undefined_name" in log, log


@needs_nvcc
def test_nvidia_hiprtc_needs_nvrtc_and_hipkit_cc(tmp_path, monkeypatch, capsys):
    """Without NVRTC, a program that includes hip/hiprtc.h is told how to get it (unless
    nvcc's toolkit has nvrtc.h); compiled by nvcc without hipkit cc, it is told to use
    hipkit cc."""
    write(tmp_path, "uses_rtc.hip", "#include <hip/hiprtc.h>\nint main() { return 0; }\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("hipkit.platforms.nvidia.toolchain.find_nvrtc", lambda: None)
    nvcc = find_nvcc()
    assert nvcc is not None, NVCC_MISSING
    # nvrtc.h in nvcc's toolkit, or beside cuBLAS's headers (NVIDIA's CUDA 13 wheels share
    # one include folder), which programs get when nvcc's toolkit lacks cuBLAS.
    cublas = find_cublas()
    folders = [Path(nvcc).resolve().parents[1] / "include", *([cublas.include] if cublas else [])]
    toolkit_has_it = any((folder / "nvrtc.h").is_file() for folder in folders)
    status = cli.main(["cc", "--platform", "nvidia", "--offload-arch=sm_90", "-c", "uses_rtc.hip"])
    if toolkit_has_it:
        assert status == 0
    else:
        assert status == 1 and "hiprtc needs NVRTC" in capsys.readouterr().err
    includes = [f"-I{d}" for d in (PROGRAM_INCLUDE_DIR, TABLES_INCLUDE_DIR, PORTABLE_INCLUDE_DIR)]
    bare = subprocess.run(
        [nvcc, "-x", "cu", "-E", *includes, "uses_rtc.hip"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert bare.returncode != 0
    assert "hiprtc needs" in bare.stderr
