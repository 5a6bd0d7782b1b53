// hipkit CPU platform: HIP graphs and stream capture in whole programs (part
// of program.h), over libhipkit_cpu's hkrt_graph_* (runtime_graph.h).
//
// Work enqueued on a capturing stream (launches, async copies and memsets,
// host functions, event records and waits) becomes a graph's nodes; graphs
// are also built node by node.  A kernel node's function is a kernel some
// unit registered (or one launched before), as hipLaunchKernel's handle.
// Memcpy nodes are 1-D (hipGraphAddMemcpyNode1D and the symbol forms).
#ifndef HIPKIT_CPU_PROGRAM_GRAPH_H
#define HIPKIT_CPU_PROGRAM_GRAPH_H

#include "runtime_graph.h"

typedef hkrt_graph* hipGraph_t;
typedef hkrt_graph_node* hipGraphNode_t;
typedef hkrt_graph_exec* hipGraphExec_t;

typedef enum hipGraphNodeType {
  hipGraphNodeTypeKernel = 0,
  hipGraphNodeTypeMemcpy = 1,
  hipGraphNodeTypeMemset = 2,
  hipGraphNodeTypeHost = 3,
  hipGraphNodeTypeGraph = 4,
  hipGraphNodeTypeEmpty = 5,
  hipGraphNodeTypeWaitEvent = 6,
  hipGraphNodeTypeEventRecord = 7,
  hipGraphNodeTypeExtSemaphoreSignal = 8,
  hipGraphNodeTypeExtSemaphoreWait = 9,
  hipGraphNodeTypeMemAlloc = 10,
  hipGraphNodeTypeMemFree = 11,
  hipGraphNodeTypeMemcpyFromSymbol = 12,
  hipGraphNodeTypeMemcpyToSymbol = 13,
  hipGraphNodeTypeCount
} hipGraphNodeType;

typedef struct hipHostNodeParams {
  hipHostFn_t fn;
  void* userData;
} hipHostNodeParams;

typedef struct hipKernelNodeParams {
  dim3 blockDim;
  void** extra;
  void* func;
  dim3 gridDim;
  void** kernelParams;
  unsigned int sharedMemBytes;
} hipKernelNodeParams;

typedef struct hipMemsetParams {
  void* dst;
  unsigned int elementSize;
  size_t height;
  size_t pitch;
  unsigned int value;
  size_t width;
} hipMemsetParams;

typedef enum hipGraphExecUpdateResult {
  hipGraphExecUpdateSuccess = 0x0,
  hipGraphExecUpdateError = 0x1,
  hipGraphExecUpdateErrorTopologyChanged = 0x2,
  hipGraphExecUpdateErrorNodeTypeChanged = 0x3,
  hipGraphExecUpdateErrorFunctionChanged = 0x4,
  hipGraphExecUpdateErrorParametersChanged = 0x5,
  hipGraphExecUpdateErrorNotSupported = 0x6,
  hipGraphExecUpdateErrorUnsupportedFunctionChange = 0x7
} hipGraphExecUpdateResult;

typedef enum hipStreamCaptureMode {
  hipStreamCaptureModeGlobal = 0,
  hipStreamCaptureModeThreadLocal,
  hipStreamCaptureModeRelaxed
} hipStreamCaptureMode;

typedef enum hipStreamCaptureStatus {
  hipStreamCaptureStatusNone = 0,
  hipStreamCaptureStatusActive,
  hipStreamCaptureStatusInvalidated
} hipStreamCaptureStatus;

typedef enum hipGraphInstantiateFlags {
  hipGraphInstantiateFlagAutoFreeOnLaunch = 1,
  hipGraphInstantiateFlagUpload = 2,
  hipGraphInstantiateFlagDeviceLaunch = 4,
  hipGraphInstantiateFlagUseNodePriority = 8
} hipGraphInstantiateFlags;

#define hipGraphDebugDotFlagsVerbose 1

namespace __hk {

inline hkrt_graph_node_params node_params(int type) {
  hkrt_graph_node_params p = {};
  p.type = type;
  p.device = current();
  p.height = 1;
  return p;
}

inline hipError_t kernel_params(const hipKernelNodeParams* in, hkrt_graph_node_params* p) {
  if (in == nullptr || in->func == nullptr) return result(hipErrorInvalidValue);
  if (in->extra != nullptr) return result(hipErrorNotSupported);  // kernelParams only
  *p = node_params(hipGraphNodeTypeKernel);
  if (hipError_t code = function_of(static_cast<const void*>(in->func), &p->function)) return code;
  p->grid[0] = in->gridDim.x, p->grid[1] = in->gridDim.y, p->grid[2] = in->gridDim.z;
  p->block[0] = in->blockDim.x, p->block[1] = in->blockDim.y, p->block[2] = in->blockDim.z;
  p->shared_bytes = in->sharedMemBytes;
  p->args = in->kernelParams;
  return hipSuccess;
}

inline hkrt_graph_node_params copy_params(void* dst, const void* src, size_t bytes, int kind) {
  hkrt_graph_node_params p = node_params(hipGraphNodeTypeMemcpy);
  p.dst = dst, p.src = src, p.bytes = bytes, p.kind = kind;
  return p;
}

inline hipError_t set_params(const hipMemsetParams* in, hkrt_graph_node_params* p) {
  if (in == nullptr) return result(hipErrorInvalidValue);
  *p = node_params(hipGraphNodeTypeMemset);
  p->dst = in->dst, p->value = in->value, p->elem_size = in->elementSize;
  p->width = in->width, p->height = in->height, p->pitch = in->pitch;
  return hipSuccess;
}

inline hipError_t host_params(const hipHostNodeParams* in, hkrt_graph_node_params* p) {
  if (in == nullptr) return result(hipErrorInvalidValue);
  *p = node_params(hipGraphNodeTypeHost);
  p->fn = in->fn, p->data = in->userData;
  return hipSuccess;
}

inline hkrt_graph_node_params event_params(int type, hipEvent_t event) {
  hkrt_graph_node_params p = node_params(type);
  p.event = event;
  return p;
}

inline hipError_t add(hipGraphNode_t* node, hipGraph_t graph, const hipGraphNode_t* deps,
                      size_t count, const hkrt_graph_node_params& p) {
  return result(hkrt_graph_add_node(node, graph, deps, count, &p));
}

// The node's parameters, checking its type.
inline hipError_t get(hipGraphNode_t node, int type, hkrt_graph_node_params* p) {
  if (int code = hkrt_graph_node_get_params(node, p)) return result(code);
  return p->type == type ? hipSuccess : result(hipErrorInvalidValue);
}

}  // namespace __hk

// ---- Stream capture ------------------------------------------------------------

inline hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_begin_capture(__hk::current(), stream, mode));
}
inline hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* graph) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_end_capture(__hk::current(), stream, graph));
}
inline hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus* status) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_get_capture_info(__hk::current(), stream,
                                                   reinterpret_cast<int*>(status), nullptr,
                                                   nullptr, nullptr, nullptr));
}
inline hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* status,
                                          unsigned long long* id = nullptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_get_capture_info(__hk::current(), stream,
                                                   reinterpret_cast<int*>(status), id, nullptr,
                                                   nullptr, nullptr));
}
inline hipError_t hipStreamGetCaptureInfo_v2(hipStream_t stream, hipStreamCaptureStatus* status,
                                             unsigned long long* id = nullptr,
                                             hipGraph_t* graph = nullptr,
                                             const hipGraphNode_t** dependencies = nullptr,
                                             size_t* count = nullptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_get_capture_info(__hk::current(), stream,
                                                   reinterpret_cast<int*>(status), id, graph,
                                                   dependencies, count));
}
inline hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode* mode) {
  __HK_API_CALL();
  return __hk::result(hkrt_thread_exchange_capture_mode(reinterpret_cast<int*>(mode)));
}

#include "program_graph_nodes.h"

#endif  // HIPKIT_CPU_PROGRAM_GRAPH_H
