"""The special stream handles and event scopes of programs built by ``hipkit cc`` on the
CPU: ``hipStreamPerThread`` is each thread's own blocking stream (ordered after the
legacy NULL stream's work, distinct between threads, made anew after a reset),
``hipStreamLegacy`` is the NULL stream, neither can be destroyed, and the events' fence
scopes (``hipEventReleaseToDevice``/``ToSystem``, ``hipEventDisableSystemFence``) are
accepted one at a time.  Found by ROCm's hip-tests (``resource_guards.hh``,
``streamCommon.hh``, ``Unit_hipEventRecord``: tools/hip_tests.py).

Nothing waits on time: a kernel that holds a stream spins on a host flag, and the
host lets it go only after it has seen what it checks."""

from __future__ import annotations

import numpy as np
import pytest
from test_cc import EXPECT_MACROS, build, program_lines, write
from test_cc_nvidia import NVCC_MISSING

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

HANDLES = (
    r"""
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

"""
    + EXPECT_MACROS
    + r"""
__global__ void hold(volatile int* released) {
  while (*released == 0) {
#ifndef __HIP_PLATFORM_NVIDIA__
    __builtin_amdgcn_s_sleep(1);  // AMD code's wait-loop hint, a pause on the CPU
#endif
  }
}
__global__ void affine(float* y, const float* x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

// y = a x + b on `stream` through the device buffers x and y (made beforehand:
// hipMalloc and hipFree may wait for the device), copied back on it, and the stream
// synchronized.
int affine_on(hipStream_t stream, float* x, float* y, const float* host, float* out, int n,
              float a, float b) {
  CHECK(hipMemcpyAsync(x, host, n * sizeof(float), hipMemcpyHostToDevice, stream));
  hipLaunchKernelGGL(affine, dim3((n + 127) / 128), dim3(128), 0, stream, y, x, a, b, n);
  CHECK(hipGetLastError());
  CHECK(hipMemcpyAsync(out, y, n * sizeof(float), hipMemcpyDeviceToHost, stream));
  CHECK(hipStreamSynchronize(stream));
  return 0;
}

// The per-thread stream waits for the legacy stream's work: it is blocking.
int ordering(int* released) {
  *released = 0;
  hipLaunchKernelGGL(hold, dim3(1), dim3(1), 0, hipStreamLegacy, released);
  hipEvent_t after;
  CHECK(hipEventCreateWithFlags(&after, hipEventDisableTiming));
  CHECK(hipEventRecord(after, hipStreamPerThread));
  EXPECT(hipEventQuery(after), hipErrorNotReady);
  EXPECT(hipStreamQuery(hipStreamPerThread), hipErrorNotReady);
  EXPECT(hipEventQuery(after), hipErrorNotReady);
  __atomic_store_n(released, 1, __ATOMIC_RELEASE);
  CHECK(hipEventSynchronize(after));
  CHECK(hipStreamSynchronize(hipStreamLegacy));
  CHECK(hipEventDestroy(after));
  return 0;
}

// A held per-thread stream of one thread does not hold another thread's.
int distinct(int* released, float* x, float* y) {
  *released = 0;
  hipLaunchKernelGGL(hold, dim3(1), dim3(1), 0, hipStreamPerThread, released);
  int others = -1;
  std::thread([&] {
    float in[4] = {1, 2, 3, 4}, out[4] = {};
    others = affine_on(hipStreamPerThread, x, y, in, out, 4, 2.0f, 1.0f) == 0 && out[3] == 9.0f;
  }).join();
  EXPECT(hipStreamQuery(hipStreamPerThread), hipErrorNotReady);
  __atomic_store_n(released, 1, __ATOMIC_RELEASE);
  CHECK(hipStreamSynchronize(hipStreamPerThread));
  printf("distinct %d\n", others);
  return 0;
}

int errors() {
  EXPECT(hipStreamDestroy(hipStreamPerThread), hipErrorInvalidHandle);
  EXPECT(hipStreamDestroy(hipStreamLegacy), hipErrorInvalidHandle);
  EXPECT(hipGetLastError(), hipErrorInvalidHandle);  // the last error, read once
  CHECK(hipGetLastError());
  unsigned flags = 99;
  int priority = 99;
  CHECK(hipStreamGetFlags(hipStreamPerThread, &flags));
  CHECK(hipStreamGetPriority(hipStreamPerThread, &priority));
  printf("flags %u priority %d\n", flags, priority);
#ifdef hipEventReleaseToDevice  // AMD's scopes: HIP on NVIDIA has none
  hipEvent_t e;
  const unsigned scopes[3] = {hipEventReleaseToDevice, hipEventReleaseToSystem,
                              hipEventDisableSystemFence | hipEventDisableTiming};
  for (unsigned scope : scopes) {
    CHECK(hipEventCreateWithFlags(&e, scope));
    CHECK(hipEventRecord(e, hipStreamPerThread));
    CHECK(hipEventSynchronize(e));
    CHECK(hipEventDestroy(e));
  }
  EXPECT(hipEventCreateWithFlags(&e, hipEventReleaseToDevice | hipEventReleaseToSystem),
         hipErrorInvalidValue);
  EXPECT(hipGetLastError(), hipErrorInvalidValue);
#endif
  return 0;
}

int main(int argc, char** argv) {
  const int n = argc - 3;
  const float a = strtof(argv[1], nullptr), b = strtof(argv[2], nullptr);
  float* in = new float[n];
  float* out = new float[n];
  for (int i = 0; i < n; ++i) in[i] = strtof(argv[3 + i], nullptr);
  int* released;
  float *x, *y;
  CHECK(hipHostMalloc(&released, sizeof(int)));
  CHECK(hipMalloc(&x, n * sizeof(float)));
  CHECK(hipMalloc(&y, n * sizeof(float)));
  if (affine_on(hipStreamPerThread, x, y, in, out, n, a, b)) return 1;
  if (ordering(released) || distinct(released, x, y) || errors()) return 1;
  // A reset destroys the device's streams; the thread's next use makes another.
  CHECK(hipDeviceReset());
  CHECK(hipMalloc(&x, n * sizeof(float)));
  CHECK(hipMalloc(&y, n * sizeof(float)));
  float* again = new float[n];
  if (affine_on(hipStreamPerThread, x, y, in, again, n, a, b)) return 1;
  for (int i = 0; i < n; ++i) printf("%.9g %.9g\n", out[i], again[i]);
  return 0;
}
"""
)


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("handles")
    write(directory, "handles.hip", HANDLES)
    build(directory, "-o", "handles", "handles.hip")
    return directory / "handles"


@needs_cpu
def test_per_thread_and_legacy_streams(program, rng):
    x = rng.standard_normal(300).astype(np.float32)
    a, b = np.float32(rng.uniform(-3, 3)), np.float32(rng.uniform(-3, 3))
    lines = program_lines(program, repr(float(a)), repr(float(b)), *(repr(float(v)) for v in x))
    assert lines[:2] == ["distinct 1", "flags 0 priority 0"]
    values = np.array([line.split() for line in lines[2:]], dtype=np.float32)
    expected = a * x + b
    np.testing.assert_allclose(values[:, 0], expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(values[:, 1], values[:, 0])


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_program_compiles_for_nvidia(tmp_path):
    write(tmp_path, "handles.hip", HANDLES)
    build(tmp_path, "--platform", "nvidia", "-c", "handles.hip")
    assert (tmp_path / "handles.o").is_file()
