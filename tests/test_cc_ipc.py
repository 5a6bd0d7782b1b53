"""Device memory shared between processes in programs built by ``hipkit cc``:
``hipIpcGetMemHandle``, ``hipIpcOpenMemHandle``, ``hipIpcCloseMemHandle``.

Two real processes: the parent fills an allocation with fresh random numbers
and exports it, the child (the same program, given the handle in hex) opens
it, checks the bytes, doubles them with a kernel and closes it; the parent
checks the doubled values.  Errors that users can provoke are checked with
HIP's codes, and the program compiles for NVIDIA (CUDA IPC) where nvcc is."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from test_cc import build, write
from test_cc_nvidia import NVCC_MISSING
from test_cli import environment

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

IPC = r"""
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

__global__ void twice(double* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2;
}

std::string hex(const hipIpcMemHandle_t& h) {
  std::string out;
  char byte[3];
  for (int i = 0; i < HIP_IPC_HANDLE_SIZE; ++i) {
    snprintf(byte, sizeof(byte), "%02x", (unsigned char)h.reserved[i]);
    out += byte;
  }
  return out;
}
hipIpcMemHandle_t unhex(const char* text) {
  hipIpcMemHandle_t h;
  for (int i = 0; i < HIP_IPC_HANDLE_SIZE; ++i) {
    unsigned v = 0;
    sscanf(text + 2 * i, "%2x", &v);
    h.reserved[i] = char(v);
  }
  return h;
}

// ipc parent N OFFSET < values : exports, runs the child, prints the values after it.
// ipc child N OFFSET HANDLE < values : opens, checks, doubles, closes.
int main(int argc, char** argv) {
  const bool parent = strcmp(argv[1], "parent") == 0;
  const int n = atoi(argv[2]), offset = atoi(argv[3]);
  double* expected = new double[n];
  for (int i = 0; i < n; ++i)
    if (scanf("%lf", &expected[i]) != 1) return 2;
  if (parent) {
    double* d = nullptr;
    CHECK(hipMalloc(&d, (n + offset) * sizeof(double)));
    CHECK(hipMemcpy(d + offset, expected, n * sizeof(double), hipMemcpyHostToDevice));
    hipIpcMemHandle_t h;
    CHECK(hipIpcGetMemHandle(&h, d + offset));
    hipIpcMemHandle_t again;
    CHECK(hipIpcGetMemHandle(&again, d + offset));  // as often as wanted
    void* mine = nullptr;
    EXPECT(hipIpcOpenMemHandle(&mine, h, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidContext);
    int host_value = 0;
    EXPECT(hipIpcGetMemHandle(&h, &host_value), hipErrorInvalidHandle);
    CHECK(hipIpcGetMemHandle(&h, d + offset));
    std::string command = std::string(argv[0]) + " child " + argv[2] + " " + argv[3] + " " + hex(h);
    FILE* child = popen(command.c_str(), "w");
    for (int i = 0; i < n; ++i) fprintf(child, "%.17g\n", expected[i]);
    if (pclose(child) != 0) return 3;
    double* back = new double[n];
    CHECK(hipMemcpy(back, d + offset, n * sizeof(double), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) printf("%.17g\n", back[i]);
    CHECK(hipFree(d));
    return 0;
  }
  hipIpcMemHandle_t h = unhex(argv[4]);
  void* opened = nullptr;
  EXPECT(hipIpcOpenMemHandle(&opened, h, 0x2), hipErrorInvalidValue);
  hipIpcMemHandle_t garbage;
  memset(&garbage, 0x5a, sizeof(garbage));
  EXPECT(hipIpcOpenMemHandle(&opened, garbage, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidValue);
  CHECK(hipIpcOpenMemHandle(&opened, h, hipIpcMemLazyEnablePeerAccess));
  double* p = static_cast<double*>(opened);
  double* seen = new double[n];
  CHECK(hipMemcpy(seen, p, n * sizeof(double), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (seen[i] != expected[i]) {
      fprintf(stderr, "child: element %d is %.17g, not %.17g\n", i, seen[i], expected[i]);
      return 4;
    }
  hipLaunchKernelGGL(twice, dim3((n + 127) / 128), dim3(128), 0, 0, p, n);
  CHECK(hipDeviceSynchronize());
  EXPECT(hipFree(p), hipErrorInvalidValue);  // not this process's allocation
  CHECK(hipIpcCloseMemHandle(opened));
  EXPECT(hipIpcCloseMemHandle(opened), hipErrorInvalidHandle);
  EXPECT(hipIpcCloseMemHandle(seen), hipErrorInvalidHandle);
  return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("ipc")
    write(directory, "ipc.hip", IPC)
    build(directory, "-o", "ipc", "ipc.hip")
    return directory / "ipc"


@needs_cpu
@pytest.mark.parametrize(("n", "offset"), [(1000, 0), (37, 5), (200000, 3)])
def test_two_processes_share_device_memory(program, rng, n, offset):
    values = rng.standard_normal(n)
    done = subprocess.run(
        [str(program), "parent", str(n), str(offset)],
        input="\n".join(repr(float(v)) for v in values),
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(HIPKIT_PLATFORM="cpu"),
    )
    assert done.returncode == 0, done.stderr
    back = np.array([float(line) for line in done.stdout.split()])
    np.testing.assert_array_equal(back, 2 * values)


@needs_cpu
def test_a_handle_of_a_process_that_exited_is_refused(program, tmp_path):
    """The handle names the exporter's descriptor: once it exits, nothing is left to open."""
    source = r"""
    #include <hip/hip_runtime.h>
    #include <cstdio>
    #include <cstring>
    int main(int argc, char** argv) {
      hipIpcMemHandle_t h;
      if (argc == 1) {  // export and exit, printing the handle
        void* d = nullptr;
        if (hipMalloc(&d, 4096) != hipSuccess || hipIpcGetMemHandle(&h, d) != hipSuccess) return 1;
        fwrite(&h, sizeof(h), 1, stdout);
        return 0;
      }
      if (fread(&h, sizeof(h), 1, stdin) != 1) return 2;
      void* p = nullptr;
      hipError_t e = hipIpcOpenMemHandle(&p, h, hipIpcMemLazyEnablePeerAccess);
      printf("%s\n", hipGetErrorName(e));
      return 0;
    }
    """
    write(tmp_path, "gone.hip", source)
    build(tmp_path, "-o", "gone", "gone.hip")
    env = environment(HIPKIT_PLATFORM="cpu")
    handle = subprocess.run([str(tmp_path / "gone")], capture_output=True, timeout=60, env=env)
    assert handle.returncode == 0 and len(handle.stdout) == 64
    opened = subprocess.run(
        [str(tmp_path / "gone"), "open"], input=handle.stdout, capture_output=True, timeout=60, env=env
    )
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.decode().strip() == "hipErrorInvalidValue"


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_program_compiles_for_nvidia(tmp_path):
    write(tmp_path, "ipc.hip", IPC)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "ipc", "ipc.hip")
    assert (tmp_path / "ipc").exists()
