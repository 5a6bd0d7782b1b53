"""HIP's extensions in programs built by ``hipkit cc`` (hipkit_program/hip_ext.h and
each platform's kernel-name queries): hipExtMallocWithFlags, hipExtHostAlloc,
hipMemcpyWithStream, hipExtLaunchKernel between events, hipExtGetLastError,
hipKernelNameRefByPtr, with their errors.  Run on the CPU here; built for NVIDIA here
and run where a GPU is."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from test_cc import build, write
from test_cc_nvidia import NVCC_MISSING, no_gpu_reason

PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  int n = 0;
  if (fread(&n, sizeof n, 1, stdin) != 1) return 2;
  std::vector<float> in(n), out(n);
  if (fread(in.data(), sizeof(float), n, stdin) != size_t(n)) return 2;
  const unsigned kinds[] = {hipDeviceMallocDefault, hipDeviceMallocFinegrained, hipMallocSignalMemory,
                            hipDeviceMallocUncached};
  for (unsigned kind : kinds) {
    void* p = nullptr;
    hipError_t e = hipExtMallocWithFlags(&p, 4096, kind);
    printf("malloc %u|%s|%d\n", kind, hipGetErrorName(e), int(p != nullptr && hipFree(p) == hipSuccess));
  }
  void* bad = nullptr;
  printf("malloc bad flags|%s\n", hipGetErrorName(hipExtMallocWithFlags(&bad, 4096, 7)));
  float* host = nullptr;
  hipError_t e = hipExtHostAlloc(reinterpret_cast<void**>(&host), n * sizeof(float), hipHostMallocDefault);
  printf("host alloc|%s\n", hipGetErrorName(e));
  memcpy(host, in.data(), n * sizeof(float));

  float* d = nullptr;
  void* dp = nullptr;
  hipExtMallocWithFlags(&dp, n * sizeof(float), hipDeviceMallocDefault);
  d = static_cast<float*>(dp);
  hipStream_t stream;
  hipStreamCreate(&stream);
  printf("copy in|%s\n", hipGetErrorName(hipMemcpyWithStream(d, host, n * sizeof(float),
                                                               hipMemcpyHostToDevice, stream)));
  hipEvent_t start, stop;
  hipEventCreate(&start);
  hipEventCreate(&stop);
  float a = 2.5f;
  void* args[] = {&d, &a, &n};
  const void* kernel = reinterpret_cast<const void*>(scale);
  e = hipExtLaunchKernel(kernel, dim3((n + 127) / 128), dim3(128), args, 0, stream, start, stop, 0);
  printf("launch|%s\n", hipGetErrorName(e));
  printf("launch bad flags|%s\n",
         hipGetErrorName(hipExtLaunchKernel(reinterpret_cast<const void*>(scale), dim3(1), dim3(1), args, 0,
                                            stream, nullptr, nullptr, 5)));
  printf("copy out|%s\n", hipGetErrorName(hipMemcpyWithStream(out.data(), d, n * sizeof(float),
                                                                hipMemcpyDeviceToHost, stream)));
  float ms = -1;
  e = hipEventElapsedTime(&ms, start, stop);
  printf("elapsed|%s|%d\n", hipGetErrorName(e), int(ms >= 0));
  const char* name = hipKernelNameRefByPtr(reinterpret_cast<const void*>(scale), stream);
  printf("name|%s\n", name != nullptr && strstr(name, "scale") != nullptr ? "scale" : "none");
  hipGetLastError();
  hipSetDevice(9999);
  hipError_t first = hipExtGetLastError();
  hipError_t second = hipExtGetLastError();
  printf("last error|%s|%s\n", hipGetErrorName(first), hipGetErrorName(second));
  fwrite(out.data(), sizeof(float), n, stderr);
  hipFree(d);
  hipHostFree(host);
  return 0;
}
"""

PLATFORMS = [
    pytest.param([], id="cpu"),
    pytest.param(
        ["--platform", "nvidia", "--offload-arch=sm_90"],
        id="nvidia",
        marks=pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING)),
    ),
]


@pytest.mark.parametrize("flags", PLATFORMS)
def test_extensions(tmp_path, rng, flags):
    write(tmp_path, "ext.hip", PROGRAM)
    build(tmp_path, *flags, "-o", "ext", "ext.hip")
    if flags and no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    n = int(rng.integers(100, 5000))
    data = rng.standard_normal(n).astype(np.float32)
    done = subprocess.run(
        [str(tmp_path / "ext")], input=np.int32(n).tobytes() + data.tobytes(), capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = dict(line.split("|", 1) for line in done.stdout.decode().splitlines())
    for kind in range(4):
        assert lines[f"malloc {kind}"] == "hipSuccess|1"
    assert lines["malloc bad flags"] == "hipErrorInvalidValue"
    assert lines["host alloc"] == lines["copy in"] == lines["launch"] == lines["copy out"] == "hipSuccess"
    assert lines["launch bad flags"] == "hipErrorInvalidValue"
    assert lines["elapsed"] == "hipSuccess|1" and lines["name"] == "scale"
    assert lines["last error"] == "hipErrorInvalidDevice|hipSuccess"  # read, then reset
    np.testing.assert_array_equal(np.frombuffer(done.stderr, np.float32), data * np.float32(2.5))
