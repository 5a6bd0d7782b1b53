"""Host functions in programs built by ``hipkit cc``: ``hipLaunchHostFunc`` and
``hipStreamAddCallback`` ordered with kernels, events and the null stream, the
call returning before its function runs, a fault in one sticky (a callback told
the error of its stream's device), and the same program compiled for NVIDIA
(nvcc) and AMD (hipcc) where they are installed.
The runtime's side, from Python, is tested in test_cpu_host_funcs.py.

Nothing here waits on time: each function that must not have run yet sits
behind a *gate*, a host function that returns once the main thread opens it,
after the calls under test returned (it gives up after a minute, and says so,
only if something is wrong)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_cc import build, write
from test_cc_amd import MISSING as AMD_MISSING
from test_cc_nvidia import NVCC_MISSING
from test_cli import environment

from hipkit import platforms
from hipkit.profiler import Domains
from hipkit.profiler.programs import read_traces

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

HOST_FUNCS = r"""
#include <hip/hip_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

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

constexpr int N = 4096;

__global__ void fill(int* p, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i] = base + i;
}
__global__ void add(int* p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] += v; }

std::thread::id main_thread;
// What the host functions did, in the order they did it (they may run on several threads).
std::mutex mutex;
std::string order;
void note(const char* what) {
  std::lock_guard<std::mutex> lock(mutex);
  order += order.empty() ? "" : " ";
  order += what;
}
std::string take_order() {
  std::lock_guard<std::mutex> lock(mutex);
  std::string taken = order;
  order.clear();
  return taken;
}

// Returns once the main thread opens it, or after a minute (only if the call
// that enqueued it waited for it: then the program says so).
struct Gate {
  std::atomic<int> open{0}, passed{0}, timed_out{0}, on_main{0};
};
void wait_at_gate(void* data) {
  auto* gate = static_cast<Gate*>(data);
  gate->on_main = std::this_thread::get_id() == main_thread;
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!gate->open.load()) {
    if (std::chrono::steady_clock::now() > give_up) {
      gate->timed_out = 1;
      break;
    }
    std::this_thread::yield();
  }
  gate->passed = 1;
  note("gate");
}

// Checks p[i] == scale * i + offset for every i (and notes `label`).
struct Check {
  const int* p;
  int scale, offset;
  const char* label;
  std::atomic<int> ran{0}, ok{0};
};
void check(void* data) {
  auto* c = static_cast<Check*>(data);
  int ok = 1;
  for (int i = 0; i < N; ++i) ok &= c->p[i] == c->scale * i + c->offset;
  c->ok = ok;
  c->ran = 1;
  note(c->label);
}
void double_all(void* data) {
  int* p = static_cast<int*>(data);
  for (int i = 0; i < N; ++i) p[i] *= 2;
  note("double");
}

struct Callback {
  hipStream_t stream = nullptr;
  hipError_t status = hipErrorUnknown;
  std::atomic<int> calls{0};
};
void on_callback(hipStream_t stream, hipError_t status, void* data) {
  auto* c = static_cast<Callback*>(data);
  c->stream = stream;
  c->status = status;
  ++c->calls;
  note("callback");
}

void set_flag(void* data) {
  static_cast<std::atomic<int>*>(data)->store(1);
  note("flag");
}
void fault(void*) {
  static int* volatile nowhere = nullptr;
  *nowhere = 1;
}

// Kernels and host functions on one stream, each seeing the work before it;
// the call that enqueued the gate returned before it passed.
int in_order() {
  int* p = nullptr;
  CHECK(hipHostMalloc(&p, N * sizeof(int), hipHostMallocDefault));
  hipStream_t s;
  CHECK(hipStreamCreate(&s));
  Gate gate;
  Check first{p, 1, 10, "first"}, second{p, 2, 21, "second"};
  Callback callback;
  CHECK(hipLaunchHostFunc(s, wait_at_gate, &gate));
  fill<<<N / 256, 256, 0, s>>>(p, 10);
  CHECK(hipLaunchHostFunc(s, check, &first));
  CHECK(hipLaunchHostFunc(s, double_all, p));
  add<<<N / 256, 256, 0, s>>>(p, 1);
  CHECK(hipLaunchHostFunc(s, check, &second));
  CHECK(hipStreamAddCallback(s, on_callback, &callback, 0));
  const int returned_first = gate.passed.load() == 0;
  gate.open = 1;
  CHECK(hipStreamSynchronize(s));
  int ok = 1;
  for (int i = 0; i < N; ++i) ok &= p[i] == 2 * i + 21;
  printf("returned_first=%d\ntimed_out=%d\ngate_on_main=%d\n", returned_first, gate.timed_out.load(),
         gate.on_main.load());
  printf("first=%d\nsecond=%d\nfinal=%d\n", first.ok.load(), second.ok.load(), ok);
  printf("callback=%d,%d,%d\n", callback.calls.load(), int(callback.stream == s),
         int(callback.status));
  printf("order=%s\n", take_order().c_str());
  EXPECT(hipStreamAddCallback(s, on_callback, &callback, 1), hipErrorInvalidValue);
  EXPECT(hipStreamAddCallback(s, nullptr, &callback, 0), hipErrorInvalidValue);
  CHECK(hipStreamSynchronize(s));
  printf("refused_callbacks=%d\n", callback.calls.load() - 1);
  CHECK(hipStreamDestroy(s));
  CHECK(hipHostFree(p));
  return 0;
}

// A host function on s2 after hipStreamWaitEvent of an event recorded on s1
// after a kernel: it waits for the kernel.
int across_streams() {
  int* q = nullptr;
  CHECK(hipHostMalloc(&q, N * sizeof(int), hipHostMallocDefault));
  memset(q, 0, N * sizeof(int));
  hipStream_t s1, s2;
  hipEvent_t e;
  CHECK(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
  CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
  Gate gate;
  Check waited{q, 1, 100, "waited"};
  CHECK(hipLaunchHostFunc(s1, wait_at_gate, &gate));
  fill<<<N / 256, 256, 0, s1>>>(q, 100);
  CHECK(hipEventRecord(e, s1));
  CHECK(hipStreamWaitEvent(s2, e, 0));
  CHECK(hipLaunchHostFunc(s2, check, &waited));
  const int early = waited.ran.load();
  EXPECT(hipStreamQuery(s2), hipErrorNotReady);
  gate.open = 1;
  CHECK(hipStreamSynchronize(s2));
  printf("waited_early=%d\nwaited=%d\n", early, waited.ok.load());
  printf("order_across=%s\n", take_order().c_str());
  CHECK(hipEventDestroy(e));
  CHECK(hipStreamDestroy(s1));
  CHECK(hipStreamDestroy(s2));
  CHECK(hipHostFree(q));
  return 0;
}

// The null stream's host function waits for a blocking stream's work, and the
// blocking stream's next one for it.
int null_stream() {
  hipStream_t blocking;
  CHECK(hipStreamCreate(&blocking));
  Gate gate;
  std::atomic<int> null_ran{0};
  CHECK(hipLaunchHostFunc(blocking, wait_at_gate, &gate));
  CHECK(hipLaunchHostFunc(nullptr, set_flag, &null_ran));
  Callback after;
  CHECK(hipStreamAddCallback(blocking, on_callback, &after, 0));
  const int early = null_ran.load();
  gate.open = 1;
  CHECK(hipDeviceSynchronize());
  printf("null_early=%d\nnull_ran=%d\n", early, null_ran.load());
  printf("order_null=%s\n", take_order().c_str());
  CHECK(hipStreamDestroy(blocking));
  return 0;
}

// A fault in a host function is sticky: the host function behind it is
// dropped, the callback behind it runs and is told the error.
int faulting() {
  hipStream_t s;
  CHECK(hipStreamCreate(&s));
  Gate gate;
  std::atomic<int> dropped{0};
  Callback callback;
  CHECK(hipLaunchHostFunc(s, wait_at_gate, &gate));
  CHECK(hipLaunchHostFunc(s, fault, nullptr));
  CHECK(hipLaunchHostFunc(s, set_flag, &dropped));
  CHECK(hipStreamAddCallback(s, on_callback, &callback, 0));
  gate.open = 1;
  EXPECT(hipStreamSynchronize(s), hipErrorIllegalAddress);
  printf("dropped_ran=%d\n", dropped.load());
  printf("fault_callback=%d,%d,%d\n", callback.calls.load(), int(callback.stream == s),
         int(callback.status));
  EXPECT(hipLaunchHostFunc(s, set_flag, &dropped), hipErrorIllegalAddress);
  CHECK(hipDeviceReset());
  std::atomic<int> after_reset{0};
  CHECK(hipLaunchHostFunc(nullptr, set_flag, &after_reset));
  CHECK(hipDeviceSynchronize());
  printf("after_reset=%d\n", after_reset.load());
  return 0;
}

// With two devices: a callback on device 1's stream, enqueued while device 0
// is current, is told device 1's sticky error; device 0 is unharmed.
int two_devices() {
  hipStream_t s1;
  CHECK(hipSetDevice(1));
  CHECK(hipStreamCreate(&s1));
  CHECK(hipSetDevice(0));
  Gate gate;
  Callback callback;
  std::atomic<int> unharmed{0};
  CHECK(hipLaunchHostFunc(s1, wait_at_gate, &gate));
  CHECK(hipLaunchHostFunc(s1, fault, nullptr));
  CHECK(hipStreamAddCallback(s1, on_callback, &callback, 0));
  gate.open = 1;
  EXPECT(hipStreamSynchronize(s1), hipErrorIllegalAddress);
  CHECK(hipLaunchHostFunc(nullptr, set_flag, &unharmed));
  CHECK(hipDeviceSynchronize());
  printf("other_device_callback=%d,%d,%d\n", callback.calls.load(), int(callback.stream == s1),
         int(callback.status));
  printf("unharmed=%d\n", unharmed.load());
  return 0;
}

int main(int argc, char** argv) {
  main_thread = std::this_thread::get_id();
  if (argc > 1 && strcmp(argv[1], "fault") == 0) return faulting();
  if (argc > 1 && strcmp(argv[1], "devices") == 0) return two_devices();
  if (int code = in_order()) return code;
  if (int code = across_streams()) return code;
  return null_stream();
}
"""


# A library's work on a stream, as a library built on the runtime enqueues it:
# named, inside the library's own HIP-style call.
LIBRARY = r"""
#include <hip/hip_runtime.h>

void task(void*) {}

hipError_t hipkitLibraryCall(hipStream_t stream) {
  __HK_API_CALL_NAMED("hipkitLibraryCall");
  return hipError_t(hkrt_launch_host_func(0, stream, task, nullptr, "hk_library_task", 0));
}

int main() {
  hipStream_t s;
  if (hipStreamCreate(&s) != hipSuccess || hipkitLibraryCall(s) != hipSuccess) return 1;
  if (hipLaunchHostFunc(s, task, nullptr) != hipSuccess) return 1;  // unnamed: no kernel
  return hipStreamSynchronize(s) == hipSuccess ? 0 : 1;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("host_funcs")
    write(directory, "host_funcs.hip", HOST_FUNCS)
    build(directory, "-O2", "-o", "host_funcs", "host_funcs.hip")
    return directory / "host_funcs"


def run(program: Path, *args: str, **env: str) -> dict[str, str]:
    done = subprocess.run(
        [str(program), *args], env=environment(**env), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(line.split("=", 1) for line in done.stdout.splitlines())


@pytest.mark.parametrize("threads", ["1", "4"])
def test_host_functions_run_in_stream_order(program, monkeypatch, threads):
    """On a stream: a gate, a kernel, a host function that checks its result, one that
    doubles it, a kernel adding 1, a check of that, a callback: each sees the work
    before it, none runs on the main thread, and the calls return at once (the gate,
    opened after them, was still closed).  One worker thread or several."""
    monkeypatch.setenv("HIPKIT_CPU_THREADS", threads)
    out = run(program)
    assert (out["returned_first"], out["timed_out"], out["gate_on_main"]) == ("1", "0", "0")
    assert (out["first"], out["second"], out["final"]) == ("1", "1", "1")
    assert out["callback"] == "1,1,0"  # called once, with its stream and hipSuccess
    assert out["order"] == "gate first double second callback"
    assert out["refused_callbacks"] == "0"  # flags != 0 and a NULL callback: hipErrorInvalidValue


def test_a_host_function_waits_for_an_event_of_another_stream(program):
    out = run(program)
    assert (out["waited_early"], out["waited"]) == ("0", "1")
    assert out["order_across"] == "gate waited"


def test_the_null_streams_host_function_orders_with_a_blocking_stream(program):
    out = run(program)
    assert (out["null_early"], out["null_ran"]) == ("0", "1")
    assert out["order_null"] == "gate flag callback"


def test_a_fault_in_a_host_function_is_sticky_and_callbacks_are_told(program):
    """hipLaunchHostFunc's function behind the fault is dropped (as CUDA's), the
    callback runs once with hipErrorIllegalAddress; calls fail until hipDeviceReset."""
    out = run(program, "fault")
    assert out["dropped_ran"] == "0"
    assert out["fault_callback"] == "1,1,700"
    assert out["after_reset"] == "1"


def test_a_callback_is_told_the_sticky_error_of_its_streams_device(program):
    out = run(program, "devices", HIPKIT_CPU_DEVICES="2")
    assert (out["other_device_callback"], out["unharmed"]) == ("1,1,700", "1")


@needs_cpu
def test_a_programs_trace_shows_a_named_host_function_as_its_calls_kernel(tmp_path):
    write(tmp_path, "library.hip", LIBRARY)
    build(tmp_path, "-o", "library", "library.hip")
    run(tmp_path / "library", HIPKIT_PROF_DIR=str(tmp_path))
    ((_, trace),) = read_traces(tmp_path, Domains(), "demangled", pytest.fail)
    (call,) = [c for c in trace.api_calls if c.function == "hipkitLibraryCall"]
    (kernel,) = trace.kernels
    assert kernel.name == "hk_library_task" and kernel.correlation_id == call.correlation_id
    assert (kernel.grid, kernel.block, kernel.stream) == ((1, 1, 1), (1, 1, 1), 1)
    assert call.start_ns <= kernel.start_ns <= kernel.end_ns


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_program_compiles_for_nvidia(tmp_path):
    """HIP's callback type is told a hipError_t: the NVIDIA headers wrap CUDA's."""
    write(tmp_path, "host_funcs.hip", HOST_FUNCS)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "host_funcs", "host_funcs.hip")
    assert (tmp_path / "host_funcs").exists()


@pytest.mark.skipif(bool(AMD_MISSING), reason=f"hipkit cc cannot build for AMD here: {AMD_MISSING}")
def test_the_program_compiles_for_amd(tmp_path):
    """ROCm's own headers; compiled, not linked: HIP 5.2 (Debian's) declares
    hipLaunchHostFunc but its library does not export it."""
    write(tmp_path, "host_funcs.hip", HOST_FUNCS)
    build(tmp_path, "--platform", "amd", "--offload-arch=gfx90a", "-c", "host_funcs.hip")
    assert (tmp_path / "host_funcs.o").exists()
