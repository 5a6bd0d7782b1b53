"""More of HIP's graph API in programs built by ``hipkit cc``: 3-D memcpy nodes and
the symbol forms of memcpy nodes' parameters, disabled nodes, kernel node
attributes, the generic node calls (hipGraphNodeParams), instantiation with
parameters, capture into an existing graph and capture dependency updates; results
against the same work issued op by op on fresh random data, and the misuses with
HIP's errors.  Memory nodes and user objects: test_cc_graph_memory.py."""

from __future__ import annotations

import random

import pytest
from test_cc import build, write
from test_cc_graphs import run
from test_cc_nvidia import NVCC_MISSING

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
nvidia_absent = platforms.status().get("nvidia", "not known")

PROGRAM = r"""
#include <hip/hip_runtime.h>
// A position past the pitch: HIP's hipErrorInvalidPitchValue; CUDA answers hipErrorInvalidValue.
#ifdef __HIP_PLATFORM_NVIDIA__
#define OVER_PITCH hipErrorInvalidValue
#else
#define OVER_PITCH hipErrorInvalidPitchValue
#endif

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

constexpr int W = 7, H = 5, D = 3, N = W * H * D;  // a box of floats
constexpr int P = 12, R = 8;                       // the host side: pitch (floats), rows a slice

__global__ void affine(float* y, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * y[i] + b;
}
__device__ float table[16];

float frand() { return float(rand() % 1000) / 100.f; }
int same(const std::vector<float>& a, const std::vector<float>& b) { return a == b; }

// The 3-D copies: host box at (1, 1, 1) of a P x R x (D+1) array -> dev (packed),
// and dev -> the host array `back` at x = 2 floats.
hipMemcpy3DParms to_dev(float* host, float* dev) {
  hipMemcpy3DParms p = {};
  p.srcPtr = make_hipPitchedPtr(host, P * sizeof(float), P, R);
  p.srcPos = make_hipPos(sizeof(float), 1, 1);
  p.dstPtr = make_hipPitchedPtr(dev, W * sizeof(float), W, H);
  p.extent = make_hipExtent(W * sizeof(float), H, D);
  p.kind = hipMemcpyHostToDevice;
  return p;
}
hipMemcpy3DParms to_host(float* dev, float* back) {
  hipMemcpy3DParms p = {};
  p.srcPtr = make_hipPitchedPtr(dev, W * sizeof(float), W, H);
  p.dstPtr = make_hipPitchedPtr(back, P * sizeof(float), P, R);
  p.dstPos = make_hipPos(2 * sizeof(float), 0, 0);
  p.extent = make_hipExtent(W * sizeof(float), H, D);
  p.kind = hipMemcpyDeviceToHost;
  return p;
}

hipGraphNode_t kernel_node(hipGraph_t g, const hipGraphNode_t* deps, size_t n, float** y, float* a,
                           float* b, int* count) {
  void* args[] = {y, a, b, count};
  hipKernelNodeParams k = {};
  k.func = reinterpret_cast<void*>(affine);
  k.gridDim = dim3((*count + 63) / 64), k.blockDim = dim3(64), k.kernelParams = args;
  hipGraphNode_t node;
  CHECK(hipGraphAddKernelNode(&node, g, deps, n, &k));
  return node;
}

int main(int argc, char** argv) {
  srand(unsigned(atoi(argv[1])));
  const size_t host_n = size_t(P) * R * (D + 1);
  std::vector<float> host(host_n), back(host_n, -1.f), back_ops(host_n, -1.f);
  float* dev;
  CHECK(hipMalloc(&dev, N * sizeof(float)));
  hipStream_t s;
  CHECK(hipStreamCreate(&s));
  int count = N;
  float a = 2.f, b = 1.f;

  // ---- 3-D memcpy nodes: copy in, a kernel, copy out; against the same calls.
  hipGraph_t g;
  CHECK(hipGraphCreate(&g, 0));
  hipMemcpy3DParms in = to_dev(host.data(), dev), out = to_host(dev, back.data());
  hipGraphNode_t cin, kern, cout;
  CHECK(hipGraphAddMemcpyNode(&cin, g, nullptr, 0, &in));
  kern = kernel_node(g, &cin, 1, &dev, &a, &b, &count);
  CHECK(hipGraphAddMemcpyNode(&cout, g, &kern, 1, &out));
  hipGraphExec_t exec;
  CHECK(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  int equal = 1, reference = 1;
  for (int round = 0; round < 3; ++round) {
    for (float& v : host) v = frand();
    CHECK(hipGraphLaunch(exec, s));
    CHECK(hipStreamSynchronize(s));
    hipMemcpy3DParms o = to_host(dev, back_ops.data()), i = to_dev(host.data(), dev);
    CHECK(hipMemcpy3DAsync(&i, s));
    hipLaunchKernelGGL(affine, dim3((N + 63) / 64), dim3(64), 0, s, dev, a, b, count);
    CHECK(hipMemcpy3DAsync(&o, s));
    CHECK(hipStreamSynchronize(s));
    equal &= same(back, back_ops);
    for (int z = 0; z < D; ++z)
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
          reference &= back[(z * R + y) * P + x + 2] == a * host[((z + 1) * R + y + 1) * P + x + 1] + b;
  }
  printf("copy3d_equal=%d copy3d_reference=%d\n", equal, reference);
  hipMemcpy3DParms got;
  CHECK(hipGraphMemcpyNodeGetParams(cin, &got));
  printf("get_params=%d\n", got.srcPtr.ptr == host.data() && got.srcPos.y == 1 &&
                                got.srcPtr.pitch == P * sizeof(float) && got.extent.depth == D &&
                                got.dstPtr.ptr == dev && got.kind == hipMemcpyHostToDevice);
  // Exec set params of a 3-D copy: refused, as CUDA refuses to change an instantiated
  // copy whose operands are not 1-D; the exec keeps its copy.
  hipMemcpy3DParms lower = out;
  lower.dstPos.y = 1;
  EXPECT(hipGraphExecMemcpyNodeSetParams(exec, cout, &lower), hipErrorInvalidValue);
  std::fill(back.begin(), back.end(), -1.f);
  CHECK(hipGraphLaunch(exec, s));
  CHECK(hipStreamSynchronize(s));
  printf("exec_set=%d\n", back[2] == a * host[(1 * R + 1) * P + 1] + b &&
                              back[(0 * R + 1) * P + 2] == a * host[(1 * R + 2) * P + 1] + b);
  CHECK(hipGraphMemcpyNodeGetParams(cout, &got));
  printf("graph_kept=%d\n", int(got.dstPos.y));
  // Misuse.
  hipMemcpy3DParms bad = in;
  bad.srcPos.x = P * sizeof(float);
  hipGraphNode_t n;
  EXPECT(hipGraphAddMemcpyNode(&n, g, nullptr, 0, &bad), OVER_PITCH);
  bad = in;
  bad.dstPtr.ptr = nullptr;
  EXPECT(hipGraphAddMemcpyNode(&n, g, nullptr, 0, &bad), hipErrorInvalidValue);
  bad = in;
#ifndef __HIP_PLATFORM_NVIDIA__  // CUDA does not check array handles
  bad.dstArray = reinterpret_cast<hipArray_t>(&bad);
  EXPECT(hipGraphAddMemcpyNode(&n, g, nullptr, 0, &bad), hipErrorNotSupported);
#endif
  EXPECT(hipGraphAddMemcpyNode(&n, g, nullptr, 0, nullptr), hipErrorInvalidValue);
  EXPECT(hipGraphMemcpyNodeGetParams(kern, &got), hipErrorInvalidValue);
  EXPECT(hipGraphMemcpyNodeSetParams(kern, &in), hipErrorInvalidValue);

  // ---- Symbol forms: a 1-D node set to copy into `table`, another out of it.
  std::vector<float> src(16), dst(16, 0.f);
  for (float& v : src) v = frand();
  hipGraph_t sg;
  CHECK(hipGraphCreate(&sg, 0));
  hipGraphNode_t to_sym, from_sym;
  CHECK(hipGraphAddMemcpyNode1D(&to_sym, sg, nullptr, 0, dev, src.data(), 4, hipMemcpyHostToDevice));
  CHECK(hipGraphMemcpyNodeSetParamsToSymbol(to_sym, HIP_SYMBOL(table), src.data(),
                                            16 * sizeof(float), 0, hipMemcpyHostToDevice));
  CHECK(hipGraphAddMemcpyNode1D(&from_sym, sg, &to_sym, 1, dst.data(), dev, 4, hipMemcpyDeviceToHost));
  CHECK(hipGraphMemcpyNodeSetParamsFromSymbol(from_sym, dst.data(), HIP_SYMBOL(table),
                                              8 * sizeof(float), 8 * sizeof(float),
                                              hipMemcpyDeviceToHost));
  hipGraphExec_t sexec;
  CHECK(hipGraphInstantiate(&sexec, sg, nullptr, nullptr, 0));
  CHECK(hipGraphLaunch(sexec, s));
  CHECK(hipStreamSynchronize(s));
  int sym = 1;
  for (int i = 0; i < 8; ++i) sym &= dst[i] == src[8 + i];
  CHECK(hipGraphExecMemcpyNodeSetParamsFromSymbol(sexec, from_sym, dst.data() + 8, HIP_SYMBOL(table),
                                                  8 * sizeof(float), 0, hipMemcpyDeviceToHost));
  CHECK(hipGraphExecMemcpyNodeSetParamsToSymbol(sexec, to_sym, HIP_SYMBOL(table), src.data() + 8,
                                                8 * sizeof(float), 0, hipMemcpyHostToDevice));
  CHECK(hipGraphLaunch(sexec, s));
  CHECK(hipStreamSynchronize(s));
  for (int i = 0; i < 8; ++i) sym &= dst[8 + i] == src[8 + i];
  printf("symbols=%d\n", sym);
  EXPECT(hipGraphMemcpyNodeSetParamsToSymbol(to_sym, HIP_SYMBOL(table), src.data(),
                                             17 * sizeof(float), 0, hipMemcpyHostToDevice),
         hipErrorInvalidValue);
  EXPECT(hipGraphMemcpyNodeSetParamsToSymbol(kern, HIP_SYMBOL(table), src.data(), 4, 0,
                                             hipMemcpyHostToDevice),
         hipErrorInvalidValue);

  // ---- Disabled nodes: y = ((x + 1) * 3) - 2, the middle kernel disabled.
  std::vector<float> x(N), yv(N);
  for (float& v : x) v = frand();
  hipGraph_t eg;
  CHECK(hipGraphCreate(&eg, 0));
  float one = 1.f, zero = 0.f, three = 3.f, two = -2.f;
  hipGraphNode_t up, k1, k2, k3, down;
  CHECK(hipGraphAddMemcpyNode1D(&up, eg, nullptr, 0, dev, x.data(), N * sizeof(float),
                                hipMemcpyHostToDevice));
  k1 = kernel_node(eg, &up, 1, &dev, &one, &one, &count);
  k2 = kernel_node(eg, &k1, 1, &dev, &three, &zero, &count);
  k3 = kernel_node(eg, &k2, 1, &dev, &one, &two, &count);
  CHECK(hipGraphAddMemcpyNode1D(&down, eg, &k3, 1, yv.data(), dev, N * sizeof(float),
                                hipMemcpyDeviceToHost));
  hipGraphExec_t eexec;
  CHECK(hipGraphInstantiate(&eexec, eg, nullptr, nullptr, 0));
  unsigned enabled = 7;
  CHECK(hipGraphNodeGetEnabled(eexec, k2, &enabled));
  CHECK(hipGraphNodeSetEnabled(eexec, k2, 0));
  unsigned disabled = 7;
  CHECK(hipGraphNodeGetEnabled(eexec, k2, &disabled));
  CHECK(hipGraphLaunch(eexec, s));
  CHECK(hipStreamSynchronize(s));
  int skipped = 1;
  for (int i = 0; i < N; ++i) skipped &= yv[i] == (x[i] + 1.f) - 2.f;
  CHECK(hipGraphNodeSetEnabled(eexec, k2, 1));
  CHECK(hipGraphLaunch(eexec, s));
  CHECK(hipStreamSynchronize(s));
  int again = 1;
  for (int i = 0; i < N; ++i)  // within rounding: a compiler may contract either side
    again &= fabsf(yv[i] - ((x[i] + 1.f) * 3.f - 2.f)) <= 1e-5f * (1.f + fabsf(yv[i]));
  printf("enabled=%u disabled=%u skipped=%d reenabled=%d\n", enabled, disabled, skipped, again);
  hipGraphNode_t host_node, empty;
  hipHostNodeParams hp = {[](void*) {}, nullptr};
  CHECK(hipGraphAddHostNode(&host_node, eg, nullptr, 0, &hp));
  CHECK(hipGraphAddEmptyNode(&empty, eg, nullptr, 0));
  hipGraphExec_t eexec2;
  CHECK(hipGraphInstantiate(&eexec2, eg, nullptr, nullptr, 0));
  EXPECT(hipGraphNodeSetEnabled(eexec2, host_node, 0), hipErrorInvalidValue);
  EXPECT(hipGraphNodeSetEnabled(eexec, empty, 0), hipErrorInvalidValue);  // not in that exec
  EXPECT(hipGraphNodeGetEnabled(eexec, k2, nullptr), hipErrorInvalidValue);

  // ---- Kernel node attributes: stored, kept by set params and clones, copied.
  hipKernelNodeAttrValue v = {};
  v.priority = 5;
  CHECK(hipGraphKernelNodeSetAttribute(k1, hipKernelNodeAttributePriority, &v));
  v.cooperative = 1;
  CHECK(hipGraphKernelNodeSetAttribute(k1, hipKernelNodeAttributeCooperative, &v));
  // By name: CUDA's hipAccessPolicyWindow orders its fields otherwise.
  v.accessPolicyWindow.base_ptr = dev;
  v.accessPolicyWindow.num_bytes = 256;
  v.accessPolicyWindow.hitRatio = 0.5f;
  v.accessPolicyWindow.hitProp = hipAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = hipAccessPropertyStreaming;
  CHECK(hipGraphKernelNodeSetAttribute(k1, hipKernelNodeAttributeAccessPolicyWindow, &v));
  hipKernelNodeParams kp;
  CHECK(hipGraphKernelNodeGetParams(k1, &kp));
  CHECK(hipGraphKernelNodeSetParams(k1, &kp));
  CHECK(hipGraphKernelNodeCopyAttributes(k1, k3));
  hipGraph_t eclone;
  CHECK(hipGraphClone(&eclone, eg));
  hipGraphNode_t k3c;
  CHECK(hipGraphNodeFindInClone(&k3c, k3, eclone));
  hipKernelNodeAttrValue pr, co, win;
  CHECK(hipGraphKernelNodeGetAttribute(k3c, hipKernelNodeAttributePriority, &pr));
  CHECK(hipGraphKernelNodeGetAttribute(k3, hipKernelNodeAttributeCooperative, &co));
  CHECK(hipGraphKernelNodeGetAttribute(k3, hipKernelNodeAttributeAccessPolicyWindow, &win));
  printf("priority=%d cooperative=%d window=%d\n", pr.priority, co.cooperative,
         win.accessPolicyWindow.base_ptr == dev && win.accessPolicyWindow.num_bytes == 256 &&
             win.accessPolicyWindow.hitRatio == 0.5f &&
             win.accessPolicyWindow.hitProp == hipAccessPropertyPersisting);
  EXPECT(hipGraphKernelNodeGetAttribute(k2, hipKernelNodeAttributePriority, &pr), hipSuccess);
  printf("other_priority=%d\n", pr.priority);
  EXPECT(hipGraphKernelNodeSetAttribute(up, hipKernelNodeAttributePriority, &v), hipErrorInvalidValue);
  EXPECT(hipGraphKernelNodeGetAttribute(k1, hipKernelNodeAttrID(3), &v), hipErrorInvalidValue);
  EXPECT(hipGraphKernelNodeCopyAttributes(k1, up), hipErrorInvalidValue);
  EXPECT(hipGraphKernelNodeSetAttribute(k1, hipKernelNodeAttributePriority, nullptr),
         hipErrorInvalidValue);

  // ---- The generic calls: the same graph made with hipGraphAddNode.
  hipGraph_t gg;
  CHECK(hipGraphCreate(&gg, 0));
  hipGraphNodeParams np = {};
  np.type = hipGraphNodeTypeMemcpy;
  np.memcpy.copyParams = to_dev(host.data(), dev);
  hipGraphNode_t g_in, g_k, g_out;
  CHECK(hipGraphAddNode(&g_in, gg, nullptr, 0, &np));
  void* args[] = {&dev, &a, &b, &count};
  np = {};
  np.type = hipGraphNodeTypeKernel;
  np.kernel.func = reinterpret_cast<void*>(affine);
  np.kernel.gridDim = dim3((N + 63) / 64), np.kernel.blockDim = dim3(64);
  np.kernel.kernelParams = args;
  CHECK(hipGraphAddNode(&g_k, gg, &g_in, 1, &np));
  hipGraphNodeParams outp = {};
  outp.type = hipGraphNodeTypeMemcpy;
  outp.memcpy.copyParams = to_host(dev, back.data());
  CHECK(hipGraphAddNode(&g_out, gg, &g_k, 1, &outp));
  float a2 = -1.5f;
  void* args2[] = {&dev, &a2, &b, &count};
  np.kernel.kernelParams = args2;
  CHECK(hipGraphNodeSetParams(g_k, &np));  // the graph's node: a = -1.5
  hipGraphInstantiateParams ip = {};
  ip.flags = hipGraphInstantiateFlagUpload | hipGraphInstantiateFlagAutoFreeOnLaunch;
  ip.uploadStream = s;
  hipGraphExec_t gexec;
  CHECK(hipGraphInstantiateWithParams(&gexec, gg, &ip));
  unsigned long long flags = 0;
  CHECK(hipGraphExecGetFlags(gexec, &flags));
  printf("instantiate_result=%d exec_flags=%llu\n", int(ip.result_out), flags);
  float a3 = 4.f;
  void* args3[] = {&dev, &a3, &b, &count};
  np.kernel.kernelParams = args3;
  CHECK(hipGraphExecNodeSetParams(gexec, g_k, &np));  // the exec's: a = 4
  for (float& v2 : host) v2 = frand();
  std::fill(back.begin(), back.end(), -1.f);
  std::fill(back_ops.begin(), back_ops.end(), -1.f);
  CHECK(hipGraphLaunch(gexec, s));
  CHECK(hipStreamSynchronize(s));
  std::vector<float> generic = back;
  hipMemcpy3DParms i2 = to_dev(host.data(), dev), o2 = to_host(dev, back_ops.data());
  CHECK(hipMemcpy3DAsync(&i2, s));
  hipLaunchKernelGGL(affine, dim3((N + 63) / 64), dim3(64), 0, s, dev, a3, b, count);
  CHECK(hipMemcpy3DAsync(&o2, s));
  CHECK(hipStreamSynchronize(s));
  CHECK(hipGraphKernelNodeGetParams(g_k, &kp));
  printf("generic_equal=%d graph_a=%g\n", same(generic, back_ops),
         double(*static_cast<float*>(kp.kernelParams[1])));
  np.type = hipGraphNodeType(99);
  EXPECT(hipGraphAddNode(&n, gg, nullptr, 0, &np), hipErrorInvalidValue);
  EXPECT(hipGraphAddNode(&n, gg, nullptr, 0, nullptr), hipErrorInvalidValue);
  np = outp;
  np.memcpy.flags = 1;
  EXPECT(hipGraphNodeSetParams(g_out, &np), hipErrorInvalidValue);
  np.type = hipGraphNodeTypeEmpty;
  EXPECT(hipGraphExecNodeSetParams(gexec, g_out, &np), hipErrorInvalidValue);  // another type
  ip.flags = 0x100;
  hipGraphExec_t none;
  EXPECT(hipGraphInstantiateWithParams(&none, gg, &ip), hipErrorInvalidValue);
  printf("bad_instantiate_result=%d\n", int(ip.result_out));
  EXPECT(hipGraphExecGetFlags(nullptr, &flags), hipErrorInvalidValue);

  // ---- Capture into a graph after one of its nodes; capture dependency updates.
  hipGraph_t cg;
  CHECK(hipGraphCreate(&cg, 0));
  hipMemsetParams ms = {};  // by name: CUDA's cudaMemsetParams orders its fields otherwise
  ms.dst = dev, ms.elementSize = sizeof(float), ms.height = 1, ms.value = 0, ms.width = N;
  hipGraphNode_t set_node;
  CHECK(hipGraphAddMemsetNode(&set_node, cg, nullptr, 0, &ms));
  CHECK(hipStreamBeginCaptureToGraph(s, cg, &set_node, nullptr, 1, hipStreamCaptureModeGlobal));
  EXPECT(hipStreamBeginCaptureToGraph(s, cg, nullptr, nullptr, 0, hipStreamCaptureModeGlobal),
         hipErrorIllegalState);
  hipLaunchKernelGGL(affine, dim3((N + 63) / 64), dim3(64), 0, s, dev, one, three, count);
  hipGraph_t capturing;
  hipStreamCaptureStatus status;
  CHECK(hipStreamGetCaptureInfo_v2(s, &status, nullptr, &capturing));
  hipGraphNode_t marker;
  CHECK(hipGraphAddEmptyNode(&marker, capturing, nullptr, 0));
  CHECK(hipStreamUpdateCaptureDependencies(s, &marker, 1, hipStreamSetCaptureDependencies));
  EXPECT(hipStreamUpdateCaptureDependencies(s, &marker, 1, 2), hipErrorInvalidValue);
  EXPECT(hipStreamUpdateCaptureDependencies(s, &k1, 1, 0), hipErrorInvalidValue);  // another graph
  CHECK(hipMemcpyAsync(yv.data(), dev, N * sizeof(float), hipMemcpyDeviceToHost, s));
  hipGraph_t ended = nullptr;
  CHECK(hipStreamEndCapture(s, &ended));
  size_t nodes = 0, copy_deps = 0;
  CHECK(hipGraphGetNodes(cg, nullptr, &nodes));
  std::vector<hipGraphNode_t> all(nodes);
  CHECK(hipGraphGetNodes(cg, all.data(), &nodes));
  hipGraphNode_t dep = nullptr;
  CHECK(hipGraphNodeGetDependencies(all[3], nullptr, &copy_deps));
  CHECK(hipGraphNodeGetDependencies(all[3], &dep, &copy_deps));
  size_t kernel_deps = 1;
  hipGraphNode_t kdep = nullptr;
  CHECK(hipGraphNodeGetDependencies(all[1], &kdep, &kernel_deps));
  printf("same_graph=%d nodes=%zu copy_after_marker=%d kernel_after_set=%d\n", ended == cg, nodes,
         copy_deps == 1 && dep == marker, kernel_deps == 1 && kdep == set_node);
  EXPECT(hipStreamUpdateCaptureDependencies(s, &marker, 1, 0), hipErrorIllegalState);
  hipGraphEdgeData edge = {};
  edge.type = hipGraphDependencyTypeProgrammatic;
#ifdef __HIP_PLATFORM_NVIDIA__
  const hipError_t programmatic = hipErrorInvalidValue;  // CUDA's answer on the H200
#else
  const hipError_t programmatic = hipErrorNotSupported;  // the CPU has no programmatic edges
#endif
  EXPECT(hipStreamBeginCaptureToGraph(s, cg, &set_node, &edge, 1, hipStreamCaptureModeGlobal),
         programmatic);
  EXPECT(hipStreamBeginCaptureToGraph(s, cg, &k1, nullptr, 1, hipStreamCaptureModeGlobal),
         hipErrorInvalidValue);

  for (hipGraphExec_t e : {exec, sexec, eexec, eexec2, gexec}) CHECK(hipGraphExecDestroy(e));
  for (hipGraph_t h : {g, sg, eg, eclone, gg, cg}) CHECK(hipGraphDestroy(h));
  CHECK(hipStreamDestroy(s));
  CHECK(hipFree(dev));
  printf("done=1\n");
  return 0;
}
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("graphs_more")
    write(directory, "graphs_more.hip", PROGRAM)
    build(directory, "-o", "graphs_more", "graphs_more.hip")
    return run(directory / "graphs_more", str(random.randrange(1 << 30)))


def test_3d_memcpy_nodes_copy_as_hipMemcpy3D(out):
    """A pitched host box in, a kernel, out again: the replays equal the same calls
    issued op by op, and a reference; get params return what was set; an exec's set
    params move the copy without touching the graph's node."""
    assert (out["copy3d_equal"], out["copy3d_reference"]) == ("1", "1")
    assert out["get_params"] == "1"
    assert (out["exec_set"], out["graph_kept"]) == ("1", "0")


def test_memcpy_nodes_take_symbols(out):
    assert out["symbols"] == "1"


def test_disabled_nodes_are_skipped_and_keep_their_edges(out):
    assert (out["enabled"], out["disabled"]) == ("1", "0")
    assert (out["skipped"], out["reenabled"]) == ("1", "1")


def test_kernel_node_attributes_are_kept_and_copied(out):
    assert (out["priority"], out["cooperative"], out["window"]) == ("5", "1", "1")
    assert out["other_priority"] == "0"


def test_the_generic_node_calls_and_instantiate_with_params(out):
    assert (out["instantiate_result"], out["exec_flags"]) == ("0", "3")
    assert (out["generic_equal"], out["graph_a"]) == ("1", "-1.5")
    assert out["bad_instantiate_result"] == "1"  # hipGraphInstantiateError


def test_capture_into_a_graph_and_dependency_updates(out):
    assert (out["same_graph"], out["nodes"]) == ("1", "4")
    assert (out["copy_after_marker"], out["kernel_after_set"]) == ("1", "1")
    assert out["done"] == "1"


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_program_builds_for_nvidia_and_runs_where_a_gpu_is(tmp_path):
    write(tmp_path, "graphs_more.hip", PROGRAM)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "graphs_more", "graphs_more.hip")
    if nvidia_absent:
        pytest.skip(f"built; no NVIDIA GPU to run it: {nvidia_absent}")
    got = run(tmp_path / "graphs_more", str(random.randrange(1 << 30)))
    assert got["done"] == "1" and got["copy3d_equal"] == "1" and got["skipped"] == "1"
