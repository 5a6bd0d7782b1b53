"""Stream priorities on the CPU in programs built by ``hipkit cc``: with one
worker thread, the blocks of a greater-priority stream's kernel run before
those of a kernel that became ready earlier on a stream of least priority.

Nothing waits on time: a kernel holds the only worker until the host has
seen (by events recorded just before them) that both kernels are ready, and
then lets it go; the worker then chooses between them."""

from __future__ import annotations

import subprocess

import pytest
from test_cc import build, write
from test_cli import environment

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

PRIORITY = r"""
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hipError_t e_ = (call);                                                           \
    if (e_ != hipSuccess) {                                                           \
      fprintf(stderr, "line %d: %s gave %s\n", __LINE__, #call, hipGetErrorName(e_)); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

// Holds the worker until the host lets it go.
__global__ void hold(volatile int* released) {
  while (*released == 0) {
  }
}
// Notes which kernel each block belongs to, in the order the blocks ran.
__global__ void note(int* log, int* next, int who) {
  if (threadIdx.x == 0) log[atomicAdd(next, 1)] = who;
}

bool done(hipEvent_t e) { return hipEventQuery(e) == hipSuccess; }

int main(int argc, char** argv) {
  const int blocks = atoi(argv[1]);
  int least = 0, greatest = 0;
  CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
  int *released, *log, *next;
  CHECK(hipHostMalloc(&released, sizeof(int)));
  CHECK(hipHostMalloc(&log, 2 * blocks * sizeof(int)));
  CHECK(hipHostMalloc(&next, sizeof(int)));
  *released = 0;
  *next = 0;
  hipStream_t busy, low, high;
  CHECK(hipStreamCreateWithFlags(&busy, hipStreamNonBlocking));
  CHECK(hipStreamCreateWithPriority(&low, hipStreamNonBlocking, least));
  CHECK(hipStreamCreateWithPriority(&high, hipStreamNonBlocking, greatest));
  hipEvent_t low_ready, high_ready;
  CHECK(hipEventCreateWithFlags(&low_ready, hipEventDisableTiming));
  CHECK(hipEventCreateWithFlags(&high_ready, hipEventDisableTiming));
  hipLaunchKernelGGL(hold, dim3(1), dim3(1), 0, busy, released);
  // The least-priority kernel becomes ready first, then the greatest.
  CHECK(hipEventRecord(low_ready, low));
  hipLaunchKernelGGL(note, dim3(blocks), dim3(64), 0, low, log, next, 1);
  CHECK(hipStreamWaitEvent(high, low_ready, 0));
  CHECK(hipEventRecord(high_ready, high));
  hipLaunchKernelGGL(note, dim3(blocks), dim3(64), 0, high, log, next, 2);
  while (!done(low_ready) || !done(high_ready)) {
  }
  __atomic_store_n(released, 1, __ATOMIC_RELEASE);
  CHECK(hipDeviceSynchronize());
  for (int i = 0; i < 2 * blocks; ++i) printf("%d", log[i]);
  printf("\n");
  return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("priority")
    write(directory, "priority.hip", PRIORITY)
    build(directory, "-o", "priority", "priority.hip")
    return directory / "priority"


@needs_cpu
@pytest.mark.parametrize("blocks", [1, 7, 40])
def test_the_greater_priority_kernel_runs_first(program, blocks):
    done = subprocess.run(
        [str(program), str(blocks)],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(HIPKIT_PLATFORM="cpu", HIPKIT_CPU_THREADS="1"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2" * blocks + "1" * blocks
