"""Several CPU devices in programs built by ``hipkit cc`` (HIPKIT_CPU_DEVICES):
a two-device program (each device fills its half, a peer copy, the reduction on
device 0) checked against NumPy, every error of several devices as HIP returns
it, a reset of one device, and HIP_VISIBLE_DEVICES read as Python reads it.
The Python side is tested in test_cpu_devices.py."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from test_cc import build, write
from test_cli import environment

import hipkit
from hipkit import platforms
from hipkit.platforms.base.platform import visible_indices
from hipkit.profiler import Domains
from hipkit.profiler.programs import read_traces

cpu_absent = platforms.status()["cpu"]
pytestmark = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

TWO_DEVICES = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

#define CHECK(call) EXPECT(call, hipSuccess)
#define EXPECT(call, code)                                                                    \
  do {                                                                                        \
    hipError_t e_ = (call);                                                                   \
    if (e_ != (code)) {                                                                       \
      fprintf(stderr, "line %d: %s gave %s, not %s\n", __LINE__, #call, hipGetErrorName(e_), \
              #code);                                                                         \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

__global__ void scale(float* out, const float* in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i];
}

__global__ void sum(const float* in, double* out, int n) {
  __shared__ double partial[256];
  double s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += in[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = partial[0];
}

__global__ void store_one(int* p) { *p = 1; }

int main(int argc, char** argv) {
  FILE* file = fopen(argv[1], "rb");
  std::vector<float> host(1 << 20);
  const int n = int(host.size()), half = n / 2;
  if (fread(host.data(), sizeof(float), host.size(), file) != host.size()) return 2;
  fclose(file);
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  printf("count=%d\n", count);
  float* halves[2];
  for (int d = 0; d < 2; ++d) {  // each device scales its half, queued
    CHECK(hipSetDevice(d));
    hipDeviceProp_t prop;
    CHECK(hipGetDeviceProperties(&prop, d));
    printf("name%d=%s\nworkers%d=%d\n", d, prop.name, d, prop.multiProcessorCount);
    float* in;
    CHECK(hipMalloc(&in, half * sizeof(float)));
    CHECK(hipMalloc(&halves[d], half * sizeof(float)));
    CHECK(hipMemcpy(in, host.data() + d * half, half * sizeof(float), hipMemcpyHostToDevice));
    for (int k = 0; k < 8; ++k) scale<<<half / 256, 256>>>(halves[d], in, 0.5f * (d + 1), half);
  }

  CHECK(hipSetDevice(0));
  int can = -1, self = -1;
  CHECK(hipDeviceCanAccessPeer(&can, 0, 1));
  CHECK(hipDeviceCanAccessPeer(&self, 0, 0));
  printf("peer=%d\nself=%d\n", can, self);
  CHECK(hipDeviceEnablePeerAccess(1, 0));
  EXPECT(hipDeviceEnablePeerAccess(1, 0), hipErrorPeerAccessAlreadyEnabled);
  EXPECT(hipGetLastError(), hipErrorPeerAccessAlreadyEnabled);
  EXPECT(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice);
  EXPECT(hipDeviceDisablePeerAccess(0), hipErrorInvalidDevice);
  EXPECT(hipDeviceCanAccessPeer(&can, 0, 2), hipErrorInvalidDevice);
  CHECK(hipDeviceDisablePeerAccess(1));
  EXPECT(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
  CHECK(hipDeviceEnablePeerAccess(1, 0));

  // Device 1's half comes over (after device 1's queued work), device 0 reduces.
  float* whole;
  double* total;
  CHECK(hipMalloc(&whole, n * sizeof(float)));
  CHECK(hipMalloc(&total, sizeof(double)));
  CHECK(hipMemcpyPeer(whole + half, 0, halves[1], 1, half * sizeof(float)));
  CHECK(hipMemcpy(whole, halves[0], half * sizeof(float), hipMemcpyDefault));
  sum<<<1, 256>>>(whole, total, n);
  double result = 0;
  CHECK(hipMemcpy(&result, total, sizeof(double), hipMemcpyDeviceToHost));
  printf("sum=%.17g\n", result);

  hipPointerAttribute_t attributes;
  CHECK(hipPointerGetAttributes(&attributes, halves[1] + 5));
  printf("owner=%d\ntype=%d\n", attributes.device, int(attributes.type == hipMemoryTypeDevice));
  size_t free0, total0, free1, total1;
  CHECK(hipMemGetInfo(&free0, &total0));
  CHECK(hipSetDevice(1));
  CHECK(hipMemGetInfo(&free1, &total1));
  printf("memory=%d\n", int(total0 == total1 && free1 <= total1 - 2 * half * sizeof(float)));

  // Streams and events are their device's; copies and waits cross devices.
  hipStream_t s1;
  hipEvent_t e0, e1;
  CHECK(hipStreamCreate(&s1));
  CHECK(hipEventCreate(&e1));
  CHECK(hipSetDevice(0));
  CHECK(hipEventCreate(&e0));
  scale<<<1, 256, 0, s1>>>(whole, whole, 1.0f, 256);
  EXPECT(hipGetLastError(), hipErrorInvalidHandle);
  EXPECT(hipEventRecord(e0, s1), hipErrorInvalidHandle);
  CHECK(hipEventRecord(e1, s1));
  CHECK(hipEventRecord(e0, 0));
  CHECK(hipEventSynchronize(e1));
  CHECK(hipEventSynchronize(e0));
  float ms = 0;
  EXPECT(hipEventElapsedTime(&ms, e0, e1), hipErrorInvalidHandle);
  CHECK(hipStreamWaitEvent(0, e1, 0));
  CHECK(hipMemcpyPeerAsync(whole, 0, halves[1], 1, sizeof(float), s1));
  CHECK(hipStreamSynchronize(s1));

  // A module is its device's.
  hipModule_t module;
  hipFunction_t function;
  CHECK(hipModuleLoad(&module, argv[2]));
  CHECK(hipModuleGetFunction(&function, module, "store_one"));
  CHECK(hipSetDevice(1));
  void* args[] = {&total};
  EXPECT(hipModuleLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, args, nullptr),
         hipErrorInvalidHandle);

  // A fault is device 1's; its reset leaves device 0 as it was.
  store_one<<<1, 1>>>(reinterpret_cast<int*>(8));
  EXPECT(hipDeviceSynchronize(), hipErrorIllegalAddress);
  float* more = nullptr;
  EXPECT(hipMalloc(&more, 4), hipErrorIllegalAddress);
  CHECK(hipSetDevice(0));
  CHECK(hipDeviceSynchronize());
  CHECK(hipSetDevice(1));
  CHECK(hipDeviceReset());
  CHECK(hipPointerGetAttributes(&attributes, halves[1]));
  EXPECT(hipStreamSynchronize(s1), hipErrorInvalidHandle);
  CHECK(hipSetDevice(0));
  EXPECT(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
  std::vector<float> back(n);
  CHECK(hipMemcpy(back.data(), whole, n * sizeof(float), hipMemcpyDeviceToHost));
  double again = 0;
  for (int i = 1; i < n; ++i) again += back[i];
  printf("freed=%d\nkept=%.17g\n", int(attributes.type == hipMemoryTypeUnregistered), again);
  return 0;
}
"""

VISIBLE = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
int main() {
  int count = -1;
  hipError_t e = hipGetDeviceCount(&count);
  printf("%d %d\n", int(e), count);
  for (int d = 0; d < count; ++d) {
    hipDeviceProp_t prop;
    if (hipGetDeviceProperties(&prop, d) != hipSuccess) return 1;
    printf("%s\n", prop.name);
  }
  return 0;
}
"""

MODULE = 'extern "C" __global__ void store_one(double* p) { *p = 1; }'


def run(program: Path, *args: str, **env: str | None) -> subprocess.CompletedProcess:
    variables = {"HIP_VISIBLE_DEVICES": None, "HIPKIT_CPU_THREADS": None, **env}
    return subprocess.run(
        [str(program), *args], env=environment(**variables), capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("devices")
    write(directory, "two.hip", TWO_DEVICES)
    write(directory, "visible.hip", VISIBLE)
    build(directory, "-o", "two", "two.hip")
    build(directory, "-o", "visible", "visible.hip")
    return directory


def test_two_devices_fill_copy_and_reduce(programs, tmp_path, rng):
    """Each device scales its half (device d by (d + 1) / 2), device 1's half is
    peer-copied to device 0, which sums the whole: NumPy's sum; and every error
    of several devices is HIP's, a reset of device 1 leaving device 0's memory."""
    x = rng.standard_normal(1 << 20).astype(np.float32)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    module = hipkit.compile(MODULE, device=hipkit.Device(0, "cpu")).binary.path
    done = run(
        programs / "two", str(tmp_path / "x.bin"), str(module), HIPKIT_CPU_DEVICES="2", HIPKIT_CPU_THREADS="3"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = dict(line.split("=", 1) for line in done.stdout.splitlines())
    half = x.size // 2
    scaled = np.concatenate([np.float32(0.5) * x[:half], np.float32(1.0) * x[half:]])
    assert float(out["sum"]) == pytest.approx(scaled.astype(np.float64).sum(), rel=1e-9, abs=1e-6)
    assert float(out["kept"]) == pytest.approx(scaled[1:].astype(np.float64).sum(), rel=1e-9, abs=1e-6)
    assert (out["count"], out["workers0"], out["workers1"]) == ("2", "2", "1")
    assert out["name0"].endswith("(CPU device 0 of 2)") and out["name1"].endswith("(CPU device 1 of 2)")
    assert (out["peer"], out["self"], out["owner"], out["type"]) == ("1", "0", "1", "1")
    assert (out["memory"], out["freed"]) == ("1", "1")


def test_a_programs_trace_names_each_device(programs, tmp_path, rng):
    """Under hipkit prof, each device is a device of the trace, by the program's
    numbering (HIP_VISIBLE_DEVICES=1,0 swaps them); a peer copy has both ends."""
    (tmp_path / "x.bin").write_bytes(rng.standard_normal(1 << 20).astype(np.float32).tobytes())
    module = hipkit.compile(MODULE, device=hipkit.Device(0, "cpu")).binary.path
    done = run(
        programs / "two",
        str(tmp_path / "x.bin"),
        str(module),
        HIPKIT_CPU_DEVICES="2",
        HIP_VISIBLE_DEVICES="1,0",
        HIPKIT_PROF_DIR=str(tmp_path),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "name0=" in done.stdout and done.stdout.count("(CPU device 1 of 2)") == 1
    ((_, trace),) = read_traces(tmp_path, Domains(), "demangled", pytest.fail)
    assert trace.devices.keys() == {"cpu:0", "cpu:1"}
    assert "(CPU device 1 of 2)" in trace.devices["cpu:0"]
    scaled = Counter(k.device for k in trace.kernels if k.name == "scale")
    assert scaled == {"cpu:0": 8, "cpu:1": 8}
    between = {(c.src_device, c.dst_device, c.bytes) for c in trace.copies if "host" not in c.src_device}
    assert {("cpu:1", "cpu:0", 2 << 20), ("cpu:0", "cpu:0", 2 << 20), ("cpu:1", "cpu:0", 4)} <= between


@pytest.mark.parametrize(
    "value", [None, "2,0", "1", " 2 , 1 ", "0,5,1", "1,1,0", "0 1", "", "-1", "GPU-8a6f1f4c"], ids=repr
)
def test_programs_pick_the_devices_as_python_does(programs, value):
    """HIP_VISIBLE_DEVICES among three CPU devices: a program sees the devices
    hipkit.platforms.base.platform.visible_indices gives, in its order (no device left:
    hipErrorNoDevice)."""
    done = run(programs / "visible", HIPKIT_CPU_DEVICES="3", HIP_VISIBLE_DEVICES=value)
    assert done.returncode == 0, done.stderr
    shown = visible_indices(value, 3)
    first, *names = done.stdout.splitlines()
    assert first == (f"0 {len(shown)}" if shown else "100 0")
    assert [name.rsplit("(CPU device ", 1)[1] for name in names] == [f"{i} of 3)" for i in shown]


@pytest.mark.parametrize("value", ["0", "x", "65"])
def test_a_malformed_device_count_stops_the_program(programs, value):
    """The program stops before main, saying which variable is wrong."""
    done = run(programs / "visible", HIPKIT_CPU_DEVICES=value)
    assert done.returncode != 0 and done.stdout == ""
    assert f"HIPKIT_CPU_DEVICES={value}" in done.stderr and "hipErrorInvalidValue" in done.stderr
