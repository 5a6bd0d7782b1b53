// hipkit NVIDIA platform: HIP's graph calls whose CUDA counterparts changed
// form (part of host.h).  CUDA 12 gave cudaGraphInstantiate flags and
// cudaGraphExecUpdate a result struct; CUDA 13 added edge data to the edge
// calls and folded cudaStreamGetCaptureInfo_v2 into cudaStreamGetCaptureInfo.
// HIP keeps the earlier forms; the others map through names.h.
#ifndef HIPKIT_NVIDIA_PROGRAM_GRAPH_H
#define HIPKIT_NVIDIA_PROGRAM_GRAPH_H

#if CUDART_VERSION >= 13000
#define __HK_EDGE_DATA nullptr,
#else
#define __HK_EDGE_DATA
#endif

inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph,
                                      hipGraphNode_t* error_node = nullptr, char* log = nullptr,
                                      size_t log_size = 0) {
  if (error_node != nullptr) *error_node = nullptr;
  if (log != nullptr && log_size > 0) log[0] = '\0';
  return __hk_hip_result(cudaGraphInstantiate(exec, graph, 0));
}

inline hipError_t hipGraphExecUpdate(hipGraphExec_t exec, hipGraph_t graph,
                                     hipGraphNode_t* error_node,
                                     hipGraphExecUpdateResult* result) {
  cudaGraphExecUpdateResultInfo info = {};
  cudaError_t error = cudaGraphExecUpdate(exec, graph, &info);
  if (error_node != nullptr) *error_node = info.errorNode;
  if (result != nullptr) *result = info.result;
  return __hk_hip_result(error);
}

inline hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t* from, hipGraphNode_t* to,
                                   size_t* count) {
  return __hk_hip_result(cudaGraphGetEdges(graph, from, to, __HK_EDGE_DATA count));
}
inline hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t* deps,
                                              size_t* count) {
  return __hk_hip_result(cudaGraphNodeGetDependencies(node, deps, __HK_EDGE_DATA count));
}
inline hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node, hipGraphNode_t* nodes,
                                                size_t* count) {
  return __hk_hip_result(cudaGraphNodeGetDependentNodes(node, nodes, __HK_EDGE_DATA count));
}
inline hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t* from,
                                          const hipGraphNode_t* to, size_t count) {
  return __hk_hip_result(cudaGraphAddDependencies(graph, from, to, __HK_EDGE_DATA count));
}
inline hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t* from,
                                             const hipGraphNode_t* to, size_t count) {
  return __hk_hip_result(cudaGraphRemoveDependencies(graph, from, to, __HK_EDGE_DATA count));
}

inline hipError_t hipGraphAddNode(hipGraphNode_t* node, hipGraph_t graph,
                                  const hipGraphNode_t* deps, size_t count,
                                  hipGraphNodeParams* params) {
  return __hk_hip_result(cudaGraphAddNode(node, graph, deps, __HK_EDGE_DATA count, params));
}
inline hipError_t hipStreamUpdateCaptureDependencies(hipStream_t stream, hipGraphNode_t* deps,
                                                     size_t count, unsigned int flags = 0) {
  return __hk_hip_result(
      cudaStreamUpdateCaptureDependencies(stream, deps, __HK_EDGE_DATA count, flags));
}

inline hipError_t hipStreamGetCaptureInfo_v2(
    hipStream_t stream, hipStreamCaptureStatus* status, unsigned long long* id = nullptr,
    hipGraph_t* graph = nullptr, const hipGraphNode_t** dependencies = nullptr,
    size_t* count = nullptr) {
#if CUDART_VERSION >= 13000
  return __hk_hip_result(
      cudaStreamGetCaptureInfo(stream, status, id, graph, dependencies, nullptr, count));
#else
  return __hk_hip_result(cudaStreamGetCaptureInfo_v2(stream, status, id, graph, dependencies, count));
#endif
}
inline hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* status,
                                          unsigned long long* id = nullptr) {
  return hipStreamGetCaptureInfo_v2(stream, status, id);
}

#undef __HK_EDGE_DATA

// The kernel-node attribute calls: CUDA takes the node's kind and the value on
// trust (a memcpy node or a null value crashed a program on the H200); HIP
// answers hipErrorInvalidValue.
inline bool __hk_is_kernel_node(hipGraphNode_t node) {
  cudaGraphNodeType type;
  return node != nullptr && cudaGraphNodeGetType(node, &type) == cudaSuccess &&
         type == cudaGraphNodeTypeKernel;
}
#undef hipGraphKernelNodeSetAttribute
#undef hipGraphKernelNodeGetAttribute
#undef hipGraphKernelNodeCopyAttributes
inline hipError_t hipGraphKernelNodeSetAttribute(hipGraphNode_t node, hipKernelNodeAttrID attr,
                                                 const hipKernelNodeAttrValue* value) {
  if (value == nullptr || !__hk_is_kernel_node(node)) return hipErrorInvalidValue;
  return __hk_hip_result(cudaGraphKernelNodeSetAttribute(node, attr, value));
}
inline hipError_t hipGraphKernelNodeGetAttribute(hipGraphNode_t node, hipKernelNodeAttrID attr,
                                                 hipKernelNodeAttrValue* value) {
  if (value == nullptr || !__hk_is_kernel_node(node)) return hipErrorInvalidValue;
  return __hk_hip_result(cudaGraphKernelNodeGetAttribute(node, attr, value));
}
inline hipError_t hipGraphKernelNodeCopyAttributes(hipGraphNode_t dst, hipGraphNode_t src) {
  if (!__hk_is_kernel_node(dst) || !__hk_is_kernel_node(src)) return hipErrorInvalidValue;
  return __hk_hip_result(cudaGraphKernelNodeCopyAttributes(dst, src));
}

#endif  // HIPKIT_NVIDIA_PROGRAM_GRAPH_H
