"""HIP graphs in programs built by ``hipkit cc``: stream capture (modes, forks and
joins through events, the calls a capture refuses), the explicit node API, and
instantiated graphs replayed, updated and compared with the same work issued op
by op on fresh random data; the same program compiled for NVIDIA where nvcc is.
The Python side is tested in test_graphs.py."""

from __future__ import annotations

import random
import subprocess

import pytest
from test_cc import build, write
from test_cc_nvidia import NVCC_MISSING

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

GRAPHS = r"""
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call) EXPECT(call, hipSuccess)
#define EXPECT(call, code)                                                                    \
  do {                                                                                        \
    hipError_t e_ = (call);                                                                   \
    if (e_ != (code)) {                                                                       \
      fprintf(stderr, "line %d: %s gave %s, not %s\n", __LINE__, #call, hipGetErrorName(e_), \
              #code);                                                                         \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

constexpr int N = 1024;

__global__ void axpb(float* y, const float* x, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = a * x[i] + b;
}
__global__ void mul(float* y, const float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] *= x[i];
}
__global__ void add(float* y, const float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] += x[i];
}
__device__ float table[4];

// Within rounding (the compiler may contract a*x + b differently on each side).
bool near(float got, float want) { return fabsf(got - want) <= 1e-5f * (1.f + fabsf(want)); }

void host_note(void* p) { ++*static_cast<int*>(p); }

// The work: y = (a*x + b) * x, z = 2 (memset pattern then z += y), out = z from device.
void work(hipStream_t s, float* x, float* y, float* z, float* out, const float* host_x, float a,
          float b) {
  CHECK(hipMemcpyAsync(x, host_x, N * sizeof(float), hipMemcpyHostToDevice, s));
  hipLaunchKernelGGL(axpb, dim3(N / 128), dim3(128), 0, s, y, x, a, b);
  hipLaunchKernelGGL(mul, dim3(N / 128), dim3(128), 0, s, y, x);
  CHECK(hipMemsetAsync(z, 0, N * sizeof(float), s));
  hipLaunchKernelGGL(add, dim3(N / 128), dim3(128), 0, s, z, y);
  hipLaunchKernelGGL(add, dim3(N / 128), dim3(128), 0, s, z, y);
  CHECK(hipMemcpyAsync(out, z, N * sizeof(float), hipMemcpyDeviceToHost, s));
}

int main(int argc, char** argv) {
  srand(unsigned(atoi(argv[1])));
  std::vector<float> hx(N), expected(N), got(N);
  float *x, *y, *z, *out;
  CHECK(hipMalloc(&x, N * sizeof(float)));
  CHECK(hipMalloc(&y, N * sizeof(float)));
  CHECK(hipMalloc(&z, N * sizeof(float)));
  CHECK(hipHostMalloc(&out, N * sizeof(float), 0));
  hipStream_t s, s2;
  CHECK(hipStreamCreate(&s));
  CHECK(hipStreamCreate(&s2));
  auto fresh = [&] { for (auto& v : hx) v = float(rand()) / RAND_MAX - 0.5f; };

  // Captured, then replayed on fresh data, against op by op.
  hipStreamCaptureStatus status;
  CHECK(hipStreamIsCapturing(s, &status));
  printf("before=%d\n", int(status));
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  CHECK(hipStreamIsCapturing(s, &status));
  unsigned long long id = 0;
  CHECK(hipStreamGetCaptureInfo(s, &status, &id));
  printf("during=%d id_set=%d\n", int(status), int(id != 0));
  work(s, x, y, z, out, hx.data(), 1.5f, 0.25f);
  hipGraph_t graph;
  CHECK(hipStreamEndCapture(s, &graph));
  size_t count = 0;
  CHECK(hipGraphGetNodes(graph, nullptr, &count));
  printf("captured_nodes=%zu\n", count);
  hipGraphExec_t exec;
  CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  int replays_equal = 1;
  for (int r = 0; r < 5; ++r) {
    fresh();
    work(s, x, y, z, out, hx.data(), 1.5f, 0.25f);
    CHECK(hipStreamSynchronize(s));
    memcpy(expected.data(), out, N * sizeof(float));
    memset(out, 0, N * sizeof(float));
    CHECK(hipGraphLaunch(exec, s));
    CHECK(hipStreamSynchronize(s));
    replays_equal &= memcmp(expected.data(), out, N * sizeof(float)) == 0;
  }
  printf("replays_equal=%d\n", replays_equal);

  // Exec update: the same work captured with other scalars.
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  work(s, x, y, z, out, hx.data(), -2.0f, 3.0f);
  hipGraph_t graph2;
  CHECK(hipStreamEndCapture(s, &graph2));
  hipGraphNode_t error_node;
  hipGraphExecUpdateResult update;
  CHECK(hipGraphExecUpdate(exec, graph2, &error_node, &update));
  fresh();
  work(s, x, y, z, out, hx.data(), -2.0f, 3.0f);
  CHECK(hipStreamSynchronize(s));
  memcpy(expected.data(), out, N * sizeof(float));
  CHECK(hipGraphLaunch(exec, s));
  CHECK(hipStreamSynchronize(s));
  printf("update=%d updated_equal=%d\n", int(update),
         int(memcmp(expected.data(), out, N * sizeof(float)) == 0));
  hipGraph_t empty;
  CHECK(hipGraphCreate(&empty, 0));
  EXPECT(hipGraphExecUpdate(exec, empty, &error_node, &update), hipErrorGraphExecUpdateFailure);
  printf("update_topology=%d\n", int(update));

  // Errors a capture gives.
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  EXPECT(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal), hipErrorIllegalState);
  void* p = nullptr;
  EXPECT(hipMalloc(&p, 16), hipErrorStreamCaptureUnsupported);
  CHECK(hipStreamIsCapturing(s, &status));
  printf("after_malloc=%d\n", int(status));
  hipLaunchKernelGGL(axpb, dim3(1), dim3(1), 0, s, y, x, 1.f, 1.f);
  EXPECT(hipGetLastError(), hipErrorStreamCaptureInvalidated);
  hipGraph_t bad = nullptr;
  EXPECT(hipStreamEndCapture(s, &bad), hipErrorStreamCaptureInvalidated);
  printf("invalidated_graph_null=%d\n", int(bad == nullptr));
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  EXPECT(hipStreamSynchronize(s), hipErrorStreamCaptureUnsupported);
  EXPECT(hipStreamEndCapture(s, &bad), hipErrorStreamCaptureInvalidated);
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeRelaxed));
  CHECK(hipMalloc(&p, 16));  // relaxed: allowed
  CHECK(hipFree(p));
  EXPECT(hipMemcpy(out, z, 16, hipMemcpyDeviceToHost), hipErrorStreamCaptureImplicit);
  EXPECT(hipStreamEndCapture(s, &bad), hipErrorStreamCaptureInvalidated);
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
  hipStreamCaptureMode mode = hipStreamCaptureModeRelaxed;
  CHECK(hipThreadExchangeStreamCaptureMode(&mode));
  printf("old_mode=%d\n", int(mode));
  CHECK(hipMalloc(&p, 16));  // this thread relaxed
  CHECK(hipFree(p));
  CHECK(hipThreadExchangeStreamCaptureMode(&mode));
  CHECK(hipStreamEndCapture(s, &bad));
  CHECK(hipGraphDestroy(bad));
  EXPECT(hipStreamEndCapture(s, &bad), hipErrorIllegalState);
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeRelaxed));
  EXPECT(hipFreeAsync(x, s), hipErrorStreamCaptureUnsupported);  // memory no graph allocated
  EXPECT(hipStreamEndCapture(s, &bad), hipErrorStreamCaptureInvalidated);
  EXPECT(hipStreamBeginCapture(nullptr, hipStreamCaptureModeGlobal), hipErrorStreamCaptureUnsupported);
  EXPECT(hipStreamBeginCapture(hipStreamLegacy, hipStreamCaptureModeGlobal),
         hipErrorStreamCaptureUnsupported);
  EXPECT(hipStreamIsCapturing(s, nullptr), hipErrorInvalidValue);
  // Asking the null stream while a blocking stream captures is an error; the capture goes on.
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  EXPECT(hipStreamIsCapturing(nullptr, &status), hipErrorStreamCaptureImplicit);
  EXPECT(hipStreamGetCaptureInfo(hipStreamLegacy, &status, &id), hipErrorStreamCaptureImplicit);
  CHECK(hipStreamIsCapturing(s, &status));
  if (status != hipStreamCaptureStatusActive) {
    fprintf(stderr, "the capture did not go on\n");
    return 1;
  }
  CHECK(hipStreamEndCapture(s, &bad));
  CHECK(hipGraphDestroy(bad));
  CHECK(hipStreamIsCapturing(nullptr, &status));

  // Fork and join through events; an unjoined fork.
  hipEvent_t fork, join;
  CHECK(hipEventCreate(&fork));
  CHECK(hipEventCreate(&join));
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  CHECK(hipMemcpyAsync(x, hx.data(), N * sizeof(float), hipMemcpyHostToDevice, s));
  CHECK(hipEventRecord(fork, s));
  CHECK(hipStreamWaitEvent(s2, fork, 0));
  CHECK(hipStreamIsCapturing(s2, &status));
  printf("forked=%d\n", int(status));
  EXPECT(hipEventQuery(fork), hipErrorStreamCaptureUnsupported);
  hipLaunchKernelGGL(axpb, dim3(N / 128), dim3(128), 0, s2, y, x, 2.f, 1.f);
  hipLaunchKernelGGL(axpb, dim3(N / 128), dim3(128), 0, s, z, x, 3.f, 0.f);
  CHECK(hipEventRecord(join, s2));
  CHECK(hipStreamWaitEvent(s, join, 0));
  hipLaunchKernelGGL(add, dim3(N / 128), dim3(128), 0, s, z, y);
  CHECK(hipMemcpyAsync(out, z, N * sizeof(float), hipMemcpyDeviceToHost, s));
  hipGraph_t forked;
  CHECK(hipStreamEndCapture(s, &forked));
  CHECK(hipStreamIsCapturing(s2, &status));
  printf("s2_after=%d\n", int(status));
  size_t roots = 0, edges = 0;
  CHECK(hipGraphGetRootNodes(forked, nullptr, &roots));
  CHECK(hipGraphGetEdges(forked, nullptr, nullptr, &edges));
  printf("fork_roots=%zu fork_edges=%zu\n", roots, edges);
  hipGraphExec_t fexec;
  CHECK(hipGraphInstantiateWithFlags(&fexec, forked, 0));
  fresh();
  CHECK(hipGraphLaunch(fexec, s));
  CHECK(hipStreamSynchronize(s));
  int fork_ok = 1;
  for (int i = 0; i < N; ++i) fork_ok &= near(out[i], 3.f * hx[i] + (2.f * hx[i] + 1.f));
  printf("fork_ok=%d\n", fork_ok);
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  CHECK(hipEventRecord(fork, s));
  CHECK(hipStreamWaitEvent(s2, fork, 0));
  hipLaunchKernelGGL(axpb, dim3(N / 128), dim3(128), 0, s2, y, x, 2.f, 1.f);
  EXPECT(hipStreamEndCapture(s2, &bad), hipErrorStreamCaptureUnmatched);
  EXPECT(hipStreamEndCapture(s, &bad), hipErrorStreamCaptureInvalidated);
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  CHECK(hipEventRecord(fork, s));
  CHECK(hipStreamWaitEvent(s2, fork, 0));
  hipLaunchKernelGGL(axpb, dim3(N / 128), dim3(128), 0, s2, y, x, 2.f, 1.f);
  EXPECT(hipStreamEndCapture(s, &bad), hipErrorStreamCaptureUnjoined);
  CHECK(hipStreamIsCapturing(s2, &status));
  printf("unjoined_s2=%d\n", int(status));

  // The node API: a diamond x -> (y, z) -> out with a host node, a child graph.
  hipGraph_t g;
  CHECK(hipGraphCreate(&g, 0));
  hipGraphNode_t cp, k1, k2, k3, host, back, ms;
  CHECK(hipGraphAddMemcpyNode1D(&cp, g, nullptr, 0, x, hx.data(), N * sizeof(float), hipMemcpyHostToDevice));
  float a = 4.f, b = -1.f, c = 0.5f, d = 2.f;
  void* args1[] = {&y, &x, &a, &b};
  void* args2[] = {&z, &x, &c, &d};
  hipKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void*>(axpb);
  kp.gridDim = dim3(N / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = args1;
  CHECK(hipGraphAddKernelNode(&k1, g, &cp, 1, &kp));
  kp.kernelParams = args2;
  CHECK(hipGraphAddKernelNode(&k2, g, &cp, 1, &kp));
  void* args3[] = {&z, &y};
  kp.func = reinterpret_cast<void*>(add);
  kp.kernelParams = args3;
  hipGraphNode_t both[] = {k1, k2};
  CHECK(hipGraphAddKernelNode(&k3, g, both, 2, &kp));
  int host_runs = 0;
  hipHostNodeParams hp = {host_note, &host_runs};
  CHECK(hipGraphAddHostNode(&host, g, &k3, 1, &hp));
  CHECK(hipGraphAddMemcpyNode1D(&back, g, &host, 1, out, z, N * sizeof(float), hipMemcpyDeviceToHost));
  hipMemsetParams mp = {};
  mp.dst = y; mp.elementSize = 4; mp.width = N; mp.height = 1; mp.value = 0;
  CHECK(hipGraphAddMemsetNode(&ms, g, &back, 1, &mp));
  hipGraphNodeType type;
  CHECK(hipGraphNodeGetType(k3, &type));
  size_t deps = 0, dependents = 0;
  CHECK(hipGraphNodeGetDependencies(k3, nullptr, &deps));
  CHECK(hipGraphNodeGetDependentNodes(cp, nullptr, &dependents));
  printf("type=%d deps=%zu dependents=%zu\n", int(type), deps, dependents);
  hipGraph_t clone;
  CHECK(hipGraphClone(&clone, g));
  hipGraphNode_t k1c;
  CHECK(hipGraphNodeFindInClone(&k1c, k1, clone));
  hipKernelNodeParams got_kp;
  CHECK(hipGraphKernelNodeGetParams(k1c, &got_kp));
  printf("clone_func=%d clone_a=%g\n", int(got_kp.func == reinterpret_cast<void*>(axpb)),
         double(*static_cast<float*>(got_kp.kernelParams[2])));
  hipGraph_t parent;
  CHECK(hipGraphCreate(&parent, 0));
  hipGraphNode_t child, tail;
  CHECK(hipGraphAddChildGraphNode(&child, parent, nullptr, 0, g));
  CHECK(hipGraphAddEmptyNode(&tail, parent, &child, 1));
  hipGraphExec_t gexec, pexec;
  CHECK(hipGraphInstantiate(&gexec, g, nullptr, nullptr, 0));
  CHECK(hipGraphInstantiate(&pexec, parent, nullptr, nullptr, 0));
  int node_ok = 1;
  for (int r = 0; r < 3; ++r) {
    fresh();
    CHECK(hipGraphLaunch(r == 1 ? pexec : gexec, s));
    CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < N; ++i) node_ok &= near(out[i], (0.5f * hx[i] + 2.f) + (4.f * hx[i] - 1.f));
  }
  float a2 = -3.f;
  void* args1b[] = {&y, &x, &a2, &b};
  kp.func = reinterpret_cast<void*>(axpb);
  kp.kernelParams = args1b;
  CHECK(hipGraphExecKernelNodeSetParams(gexec, k1, &kp));
  fresh();
  CHECK(hipGraphLaunch(gexec, s));
  CHECK(hipStreamSynchronize(s));
  int set_ok = 1;
  for (int i = 0; i < N; ++i) set_ok &= near(out[i], (0.5f * hx[i] + 2.f) + (-3.f * hx[i] - 1.f));
  printf("node_ok=%d set_ok=%d host_runs=%d\n", node_ok, set_ok, host_runs);
  kp.func = reinterpret_cast<void*>(mul);
  void* args_mul[] = {&y, &x};
  kp.kernelParams = args_mul;
  EXPECT(hipGraphExecKernelNodeSetParams(gexec, k1, &kp), hipErrorInvalidValue);
  // Launched after stream work, ordered with it; many times in a row.
  fresh();
  for (int i = 0; i < N; ++i) got[i] = hx[i];
  CHECK(hipMemsetAsync(y, 0, N * sizeof(float), s));
  for (int r = 0; r < 20; ++r) CHECK(hipGraphLaunch(gexec, s));
  // After the launches on the stream: a copy sees the last one's result.
  CHECK(hipMemcpyAsync(expected.data(), z, N * sizeof(float), hipMemcpyDeviceToHost, s));
  CHECK(hipStreamSynchronize(s));
  int order_ok = 1;
  for (int i = 0; i < N; ++i) order_ok &= near(expected[i], (0.5f * got[i] + 2.f) + (-3.f * got[i] - 1.f));
  printf("host_runs_after=%d order_ok=%d\n", host_runs, order_ok);

  // Node API errors.
  hipGraphNode_t n;
  EXPECT(hipGraphCreate(nullptr, 0), hipErrorInvalidValue);
  EXPECT(hipGraphAddKernelNode(&n, g, nullptr, 0, nullptr), hipErrorInvalidValue);
  kp.gridDim = dim3(0);
  EXPECT(hipGraphAddKernelNode(&n, g, nullptr, 0, &kp), hipErrorInvalidConfiguration);
  mp.elementSize = 3;
  EXPECT(hipGraphAddMemsetNode(&n, g, nullptr, 0, &mp), hipErrorInvalidValue);
  hp.fn = nullptr;
  EXPECT(hipGraphAddHostNode(&n, g, nullptr, 0, &hp), hipErrorInvalidValue);
  EXPECT(hipGraphAddDependencies(g, &cp, &k1, 1), hipErrorInvalidValue);  // exists
  EXPECT(hipGraphRemoveDependencies(g, &k1, &cp, 1), hipErrorInvalidValue);  // does not
  CHECK(hipGraphAddDependencies(g, &ms, &cp, 1));  // a cycle
  hipGraphExec_t cyc;
  EXPECT(hipGraphInstantiate(&cyc, g, nullptr, nullptr, 0), hipErrorInvalidValue);
  CHECK(hipGraphRemoveDependencies(g, &ms, &cp, 1));
  EXPECT(hipGraphLaunch(nullptr, s), hipErrorInvalidValue);
  CHECK(hipGraphExecDestroy(pexec));
  EXPECT(hipGraphLaunch(pexec, s), hipErrorInvalidValue);
  EXPECT(hipGraphInstantiate(nullptr, g, nullptr, nullptr, 0), hipErrorInvalidValue);
  CHECK(hipGraphDestroyNode(ms));
  CHECK(hipGraphGetNodes(g, nullptr, &count));
  printf("after_destroy=%zu\n", count);
  CHECK(hipGraphExecDestroy(gexec));
  CHECK(hipGraphExecDestroy(exec));
  CHECK(hipGraphExecDestroy(fexec));
  for (hipGraph_t h : {graph, graph2, empty, forked, g, clone, parent}) CHECK(hipGraphDestroy(h));
  CHECK(hipStreamDestroy(s));
  CHECK(hipStreamDestroy(s2));
  printf("done=1\n");
  return 0;
}
"""


def run(exe, *args: str) -> dict[str, str]:
    done = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    out = {}
    for line in done.stdout.splitlines():
        for item in line.split():
            key, _, value = item.partition("=")
            out[key] = value
    return out


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("graphs")
    write(directory, "graphs.hip", GRAPHS)
    build(directory, "-o", "graphs", "graphs.hip")
    return directory / "graphs"


@pytest.fixture(scope="module")
def out(program):
    return run(program, str(random.randrange(1 << 30)))


def test_a_captured_graph_replays_the_work_issued_op_by_op(out):
    """Status none, then active with an id; seven nodes (two copies, a memset, four
    kernels); five replays on fresh data equal the same calls issued one by one."""
    assert (out["before"], out["during"], out["id_set"]) == ("0", "1", "1")
    assert out["captured_nodes"] == "7"
    assert out["replays_equal"] == "1"


def test_exec_update_takes_new_parameters_and_refuses_another_topology(out):
    assert (out["update"], out["updated_equal"]) == ("0", "1")
    assert out["update_topology"] == "2"  # hipGraphExecUpdateErrorTopologyChanged


def test_calls_a_capture_refuses_invalidate_it(out):
    """hipMalloc in global mode, hipStreamSynchronize of the capturing stream, the
    null stream's hipMemcpy in relaxed mode (implicit): refused, capture invalidated;
    a thread in relaxed mode may allocate during a thread-local capture."""
    assert out["after_malloc"] == "2"  # hipStreamCaptureStatusInvalidated
    assert out["invalidated_graph_null"] == "1"
    assert out["old_mode"] == "0"


def test_fork_and_join_through_events(out):
    """A stream waiting for an event recorded in a capture joins it; the graph has one
    root (the copy) and the branches run concurrently, joined before the add; ending on
    the joined stream is unmatched, a fork not joined back is unjoined."""
    assert (out["forked"], out["s2_after"]) == ("1", "0")
    assert (out["fork_roots"], out["fork_edges"]) == ("1", "5")
    assert out["fork_ok"] == "1"
    assert out["unjoined_s2"] == "0"


def test_the_node_api_builds_clones_and_runs_graphs(out):
    assert (out["type"], out["deps"], out["dependents"]) == ("0", "2", "2")
    assert (out["clone_func"], out["clone_a"]) == ("1", "4")
    assert (out["node_ok"], out["set_ok"], out["host_runs"]) == ("1", "1", "4")
    assert (out["host_runs_after"], out["order_ok"]) == ("24", "1")
    assert out["after_destroy"] == "6"
    assert out["done"] == "1"


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_program_compiles_for_nvidia(tmp_path):
    write(tmp_path, "graphs.hip", GRAPHS)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "graphs", "graphs.hip")
    assert (tmp_path / "graphs").exists()
