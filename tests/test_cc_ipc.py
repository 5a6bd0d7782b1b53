"""Device memory and events shared between processes in programs built by
``hipkit cc``: ``hipIpcGetMemHandle``, ``hipIpcOpenMemHandle``,
``hipIpcCloseMemHandle``, ``hipIpcGetEventHandle``, ``hipIpcOpenEventHandle``.

Two real processes: the parent fills an allocation with fresh random numbers
and exports it, the child (the same program, given the handle in hex) opens
it, checks the bytes, doubles them with a kernel and closes it; the parent
checks the doubled values.  An event recorded in one process orders a stream
of the other; nothing waits on time: the parent's record sits behind a word
of the shared memory that only the child sets.  Errors that users can provoke are checked with
HIP's codes, and the program compiles for NVIDIA (CUDA IPC) where nvcc is."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from test_cc import EXPECT_MACROS, build, write
from test_cc_nvidia import NVCC_MISSING
from test_cli import environment

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

IPC = (
    r"""
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

"""
    + EXPECT_MACROS
    + r"""
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
)


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


EVENTS = (
    r"""
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

"""
    + EXPECT_MACROS
    + r"""
// The shared allocation: a gate word, then n inputs, n made by the parent, n by the child.
__global__ void plus_one(const double* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}
__global__ void twice(const double* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

template <class H>
std::string hex(const H& h) {
  std::string out;
  char byte[3];
  for (int i = 0; i < HIP_IPC_HANDLE_SIZE; ++i) {
    snprintf(byte, sizeof(byte), "%02x", (unsigned char)h.reserved[i]);
    out += byte;
  }
  return out;
}
template <class H>
H unhex(const char* text) {
  H h;
  for (int i = 0; i < HIP_IPC_HANDLE_SIZE; ++i) {
    unsigned v = 0;
    sscanf(text + 2 * i, "%2x", &v);
    h.reserved[i] = char(v);
  }
  return h;
}

int main(int argc, char** argv) {
  const int n = atoi(argv[2]);
  const int blocks = (n + 127) / 128;
  if (strcmp(argv[1], "parent") == 0) {
    double* inputs = new double[n];
    for (int i = 0; i < n; ++i)
      if (scanf("%lf", &inputs[i]) != 1) return 2;
    char* shared = nullptr;
    CHECK(hipMalloc(&shared, 64 + 3 * n * sizeof(double)));
    CHECK(hipMemset(shared, 0, 64));
    double* in = reinterpret_cast<double*>(shared + 64);
    CHECK(hipMemcpy(in, inputs, n * sizeof(double), hipMemcpyHostToDevice));
    // Exported before the gated work: the first export waits for the work queued.
    hipIpcMemHandle_t mh;
    CHECK(hipIpcGetMemHandle(&mh, shared));
    hipEvent_t plain, event;
    CHECK(hipEventCreate(&plain));
    hipIpcEventHandle_t eh;
    EXPECT(hipIpcGetEventHandle(&eh, plain), hipErrorInvalidConfiguration);
    EXPECT(hipEventCreateWithFlags(&event, hipEventInterprocess), hipErrorInvalidValue);
    CHECK(hipEventCreateWithFlags(&event, hipEventInterprocess | hipEventDisableTiming));
    CHECK(hipIpcGetEventHandle(&eh, event));
    hipEvent_t mine;
    EXPECT(hipIpcOpenEventHandle(&mine, eh), hipErrorInvalidContext);
    hipStream_t s;
    CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    CHECK(hipStreamWaitValue32(s, shared, 1, hipStreamWaitValueEq));  // the child opens it
    hipLaunchKernelGGL(plus_one, dim3(blocks), dim3(128), 0, s, in, in + n, n);
    CHECK(hipEventRecord(event, s));
    float ms = 0;
    EXPECT(hipEventElapsedTime(&ms, event, event), hipErrorInvalidHandle);
    std::string command = std::string(argv[0]) + " child " + argv[2] + " " + hex(mh) + " " + hex(eh);
    if (system(command.c_str()) != 0) return 3;
    CHECK(hipEventSynchronize(event));
    double* back = new double[2 * n];
    CHECK(hipMemcpy(back, in + n, 2 * n * sizeof(double), hipMemcpyDeviceToHost));
    for (int i = 0; i < 2 * n; ++i) printf("%.17g\n", back[i]);
    CHECK(hipEventDestroy(event));
    CHECK(hipEventDestroy(plain));
    CHECK(hipStreamDestroy(s));
    CHECK(hipFree(shared));
    return 0;
  }
  void* opened = nullptr;
  CHECK(hipIpcOpenMemHandle(&opened, unhex<hipIpcMemHandle_t>(argv[3]), hipIpcMemLazyEnablePeerAccess));
  hipEvent_t event;
  hipIpcEventHandle_t garbage;
  memset(&garbage, 0x33, sizeof(garbage));
  EXPECT(hipIpcOpenEventHandle(&event, garbage), hipErrorInvalidValue);
  CHECK(hipIpcOpenEventHandle(&event, unhex<hipIpcEventHandle_t>(argv[4])));
  hipIpcEventHandle_t again;
  EXPECT(hipIpcGetEventHandle(&again, event), hipErrorInvalidConfiguration);
  char* shared = static_cast<char*>(opened);
  double* in = reinterpret_cast<double*>(shared + 64);
  // The parent's record waits for the gate that only this process opens.
  EXPECT(hipEventQuery(event), hipErrorNotReady);
  hipStream_t s;
  CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  CHECK(hipStreamWaitEvent(s, event, 0));
  hipLaunchKernelGGL(twice, dim3(blocks), dim3(128), 0, s, in + n, in + 2 * n, n);
  EXPECT(hipStreamQuery(s), hipErrorNotReady);
  const unsigned open_gate = 1;
  CHECK(hipMemcpy(shared, &open_gate, sizeof(open_gate), hipMemcpyHostToDevice));
  CHECK(hipStreamSynchronize(s));
  CHECK(hipEventSynchronize(event));
  CHECK(hipEventQuery(event));
  // A record here is seen by the parent too.
  CHECK(hipEventRecord(event, s));
  CHECK(hipEventSynchronize(event));
  CHECK(hipEventDestroy(event));
  CHECK(hipStreamDestroy(s));
  CHECK(hipIpcCloseMemHandle(opened));
  return 0;
}
"""
)


@pytest.fixture(scope="module")
def events_program(tmp_path_factory):
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("ipc_events")
    write(directory, "events.hip", EVENTS)
    build(directory, "-o", "events", "events.hip")
    return directory / "events"


@needs_cpu
@pytest.mark.parametrize("n", [1, 300, 50000])
def test_an_event_of_one_process_orders_a_stream_of_another(events_program, rng, n):
    values = rng.standard_normal(n)
    done = subprocess.run(
        [str(events_program), "parent", str(n)],
        input="\n".join(repr(float(v)) for v in values),
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(HIPKIT_PLATFORM="cpu"),
    )
    assert done.returncode == 0, done.stderr
    back = np.array([float(line) for line in done.stdout.split()])
    np.testing.assert_array_equal(back[:n], values + 1)
    np.testing.assert_array_equal(back[n:], 2 * (values + 1))


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
@pytest.mark.parametrize("name", ["IPC", "EVENTS"])
def test_the_programs_compile_for_nvidia(tmp_path, name):
    write(tmp_path, "ipc.hip", globals()[name])
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "ipc", "ipc.hip")
    assert (tmp_path / "ipc").exists()
