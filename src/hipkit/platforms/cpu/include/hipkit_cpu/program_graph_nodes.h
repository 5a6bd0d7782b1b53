// hipkit CPU platform: graphs, their nodes and instantiated graphs in whole
// programs (part of program_graph.h).
#ifndef HIPKIT_CPU_PROGRAM_GRAPH_NODES_H
#define HIPKIT_CPU_PROGRAM_GRAPH_NODES_H

// ---- Graphs -------------------------------------------------------------------

inline hipError_t hipGraphCreate(hipGraph_t* graph, unsigned int flags) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_create(graph, flags));
}
inline hipError_t hipGraphDestroy(hipGraph_t graph) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_destroy(graph));
}
inline hipError_t hipGraphClone(hipGraph_t* clone, hipGraph_t graph) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_clone(clone, graph));
}
inline hipError_t hipGraphNodeFindInClone(hipGraphNode_t* node, hipGraphNode_t original,
                                          hipGraph_t clone) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_node_find_in_clone(node, original, clone));
}
inline hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t* nodes, size_t* count) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_get_nodes(graph, nodes, count));
}
inline hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t* nodes, size_t* count) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_get_root_nodes(graph, nodes, count));
}
inline hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t* from, hipGraphNode_t* to,
                                   size_t* count) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_get_edges(graph, from, to, count));
}
inline hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t* from,
                                          const hipGraphNode_t* to, size_t count) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_edit_dependencies(graph, from, to, count, 0));
}
inline hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t* from,
                                             const hipGraphNode_t* to, size_t count) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_edit_dependencies(graph, from, to, count, 1));
}
inline hipError_t hipGraphDebugDotPrint(hipGraph_t graph, const char* path, unsigned int flags) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_dot_print(graph, path, flags));
}

// ---- Nodes --------------------------------------------------------------------

inline hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType* type) {
  __HK_API_CALL();
  if (type == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (int code = hkrt_graph_node_get_params(node, &p)) return __hk::result(code);
  *type = static_cast<hipGraphNodeType>(p.type);
  return hipSuccess;
}
inline hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t* deps,
                                              size_t* count) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_node_get_edges(node, 0, deps, count));
}
inline hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node, hipGraphNode_t* nodes,
                                                size_t* count) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_node_get_edges(node, 1, nodes, count));
}
inline hipError_t hipGraphDestroyNode(hipGraphNode_t node) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_destroy_node(node));
}

inline hipError_t hipGraphAddKernelNode(hipGraphNode_t* node, hipGraph_t graph,
                                        const hipGraphNode_t* deps, size_t count,
                                        const hipKernelNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::kernel_params(params, &p)) return code;
  return __hk::add(node, graph, deps, count, p);
}
inline hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node, hipKernelNodeParams* params) {
  __HK_API_CALL();
  if (params == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::get(node, hipGraphNodeTypeKernel, &p)) return code;
  params->func = const_cast<void*>(p.function->symbol);
  params->gridDim = dim3(p.grid[0], p.grid[1], p.grid[2]);
  params->blockDim = dim3(p.block[0], p.block[1], p.block[2]);
  params->sharedMemBytes = p.shared_bytes;
  params->kernelParams = p.args;
  params->extra = nullptr;
  return hipSuccess;
}
inline hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node,
                                              const hipKernelNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::kernel_params(params, &p)) return code;
  return __hk::result(hkrt_graph_node_set_params(node, &p));
}

inline hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t* node, hipGraph_t graph,
                                          const hipGraphNode_t* deps, size_t count, void* dst,
                                          const void* src, size_t bytes, hipMemcpyKind kind) {
  __HK_API_CALL();
  return __hk::add(node, graph, deps, count, __hk::copy_params(dst, src, bytes, kind));
}
inline hipError_t hipGraphMemcpyNodeSetParams1D(hipGraphNode_t node, void* dst, const void* src,
                                                size_t bytes, hipMemcpyKind kind) {
  __HK_API_CALL();
  const hkrt_graph_node_params p = __hk::copy_params(dst, src, bytes, kind);
  return __hk::result(hkrt_graph_node_set_params(node, &p));
}
inline hipError_t hipGraphAddMemcpyNodeToSymbol(hipGraphNode_t* node, hipGraph_t graph,
                                                const hipGraphNode_t* deps, size_t count,
                                                const void* symbol, const void* src, size_t bytes,
                                                size_t offset, hipMemcpyKind kind) {
  __HK_API_CALL();
  char* dst = nullptr;
  if (hipError_t code = __hk::registered_symbol(symbol, 0, offset, bytes, &dst)) return code;
  return __hk::add(node, graph, deps, count, __hk::copy_params(dst, src, bytes, kind));
}
inline hipError_t hipGraphAddMemcpyNodeFromSymbol(hipGraphNode_t* node, hipGraph_t graph,
                                                  const hipGraphNode_t* deps, size_t count,
                                                  void* dst, const void* symbol, size_t bytes,
                                                  size_t offset, hipMemcpyKind kind) {
  __HK_API_CALL();
  char* src = nullptr;
  if (hipError_t code = __hk::registered_symbol(symbol, 0, offset, bytes, &src)) return code;
  return __hk::add(node, graph, deps, count, __hk::copy_params(dst, src, bytes, kind));
}

inline hipError_t hipGraphAddMemsetNode(hipGraphNode_t* node, hipGraph_t graph,
                                        const hipGraphNode_t* deps, size_t count,
                                        const hipMemsetParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::set_params(params, &p)) return code;
  return __hk::add(node, graph, deps, count, p);
}
inline hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t node, hipMemsetParams* params) {
  __HK_API_CALL();
  if (params == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::get(node, hipGraphNodeTypeMemset, &p)) return code;
  *params = hipMemsetParams{p.dst, p.elem_size, p.height, p.pitch, p.value, p.width};
  return hipSuccess;
}
inline hipError_t hipGraphMemsetNodeSetParams(hipGraphNode_t node, const hipMemsetParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::set_params(params, &p)) return code;
  return __hk::result(hkrt_graph_node_set_params(node, &p));
}

inline hipError_t hipGraphAddHostNode(hipGraphNode_t* node, hipGraph_t graph,
                                      const hipGraphNode_t* deps, size_t count,
                                      const hipHostNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::host_params(params, &p)) return code;
  return __hk::add(node, graph, deps, count, p);
}
inline hipError_t hipGraphHostNodeGetParams(hipGraphNode_t node, hipHostNodeParams* params) {
  __HK_API_CALL();
  if (params == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::get(node, hipGraphNodeTypeHost, &p)) return code;
  *params = hipHostNodeParams{p.fn, p.data};
  return hipSuccess;
}
inline hipError_t hipGraphHostNodeSetParams(hipGraphNode_t node, const hipHostNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::host_params(params, &p)) return code;
  return __hk::result(hkrt_graph_node_set_params(node, &p));
}

inline hipError_t hipGraphAddChildGraphNode(hipGraphNode_t* node, hipGraph_t graph,
                                            const hipGraphNode_t* deps, size_t count,
                                            hipGraph_t child) {
  __HK_API_CALL();
  hkrt_graph_node_params p = __hk::node_params(hipGraphNodeTypeGraph);
  p.graph = child;
  return __hk::add(node, graph, deps, count, p);
}
inline hipError_t hipGraphChildGraphNodeGetGraph(hipGraphNode_t node, hipGraph_t* graph) {
  __HK_API_CALL();
  if (graph == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::get(node, hipGraphNodeTypeGraph, &p)) return code;
  *graph = p.graph;
  return hipSuccess;
}
inline hipError_t hipGraphAddEmptyNode(hipGraphNode_t* node, hipGraph_t graph,
                                       const hipGraphNode_t* deps, size_t count) {
  __HK_API_CALL();
  return __hk::add(node, graph, deps, count, __hk::node_params(hipGraphNodeTypeEmpty));
}

inline hipError_t hipGraphAddEventRecordNode(hipGraphNode_t* node, hipGraph_t graph,
                                             const hipGraphNode_t* deps, size_t count,
                                             hipEvent_t event) {
  __HK_API_CALL();
  return __hk::add(node, graph, deps, count,
                   __hk::event_params(hipGraphNodeTypeEventRecord, event));
}
inline hipError_t hipGraphAddEventWaitNode(hipGraphNode_t* node, hipGraph_t graph,
                                           const hipGraphNode_t* deps, size_t count,
                                           hipEvent_t event) {
  __HK_API_CALL();
  return __hk::add(node, graph, deps, count, __hk::event_params(hipGraphNodeTypeWaitEvent, event));
}

namespace __hk {

inline hipError_t node_event(hipGraphNode_t node, int type, hipEvent_t* event) {
  if (event == nullptr) return result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (hipError_t code = get(node, type, &p)) return code;
  *event = p.event;
  return hipSuccess;
}
inline hipError_t set_node_event(hipGraphNode_t node, int type, hipEvent_t event) {
  const hkrt_graph_node_params p = event_params(type, event);
  return result(hkrt_graph_node_set_params(node, &p));
}

}  // namespace __hk

inline hipError_t hipGraphEventRecordNodeGetEvent(hipGraphNode_t node, hipEvent_t* event) {
  __HK_API_CALL();
  return __hk::node_event(node, hipGraphNodeTypeEventRecord, event);
}
inline hipError_t hipGraphEventRecordNodeSetEvent(hipGraphNode_t node, hipEvent_t event) {
  __HK_API_CALL();
  return __hk::set_node_event(node, hipGraphNodeTypeEventRecord, event);
}
inline hipError_t hipGraphEventWaitNodeGetEvent(hipGraphNode_t node, hipEvent_t* event) {
  __HK_API_CALL();
  return __hk::node_event(node, hipGraphNodeTypeWaitEvent, event);
}
inline hipError_t hipGraphEventWaitNodeSetEvent(hipGraphNode_t node, hipEvent_t event) {
  __HK_API_CALL();
  return __hk::set_node_event(node, hipGraphNodeTypeWaitEvent, event);
}

// ---- Instantiated graphs ----------------------------------------------------------

inline hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* exec, hipGraph_t graph,
                                               unsigned long long flags) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_instantiate(exec, graph, flags));
}
inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph,
                                      hipGraphNode_t* error_node = nullptr,
                                      char* log = nullptr, size_t log_size = 0) {
  __HK_API_CALL();
  if (error_node != nullptr) *error_node = nullptr;
  if (log != nullptr && log_size > 0) log[0] = '\0';
  return __hk::result(hkrt_graph_instantiate(exec, graph, 0));
}
inline hipError_t hipGraphExecDestroy(hipGraphExec_t exec) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_exec_destroy(exec));
}
inline hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t stream) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_launch(__hk::current(), exec, stream));
}
inline hipError_t hipGraphUpload(hipGraphExec_t exec, hipStream_t stream) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_upload(__hk::current(), exec, stream));
}
inline hipError_t hipGraphExecUpdate(hipGraphExec_t exec, hipGraph_t graph,
                                     hipGraphNode_t* error_node,
                                     hipGraphExecUpdateResult* update_result) {
  __HK_API_CALL();
  int code = hkrt_graph_exec_update(exec, graph, error_node, reinterpret_cast<int*>(update_result));
  return __hk::result(code);
}

inline hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node,
                                                  const hipKernelNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::kernel_params(params, &p)) return code;
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}
inline hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t exec, hipGraphNode_t node,
                                                    void* dst, const void* src, size_t bytes,
                                                    hipMemcpyKind kind) {
  __HK_API_CALL();
  const hkrt_graph_node_params p = __hk::copy_params(dst, src, bytes, kind);
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}
inline hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node,
                                                  const hipMemsetParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::set_params(params, &p)) return code;
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}
inline hipError_t hipGraphExecHostNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node,
                                                const hipHostNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::host_params(params, &p)) return code;
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}
inline hipError_t hipGraphExecChildGraphNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node,
                                                      hipGraph_t child) {
  __HK_API_CALL();
  hkrt_graph_node_params p = __hk::node_params(hipGraphNodeTypeGraph);
  p.graph = child;
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}
inline hipError_t hipGraphExecEventRecordNodeSetEvent(hipGraphExec_t exec, hipGraphNode_t node,
                                                      hipEvent_t event) {
  __HK_API_CALL();
  const hkrt_graph_node_params p = __hk::event_params(hipGraphNodeTypeEventRecord, event);
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}
inline hipError_t hipGraphExecEventWaitNodeSetEvent(hipGraphExec_t exec, hipGraphNode_t node,
                                                    hipEvent_t event) {
  __HK_API_CALL();
  const hkrt_graph_node_params p = __hk::event_params(hipGraphNodeTypeWaitEvent, event);
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}

#include "program_graph_more.h"

#endif  // HIPKIT_CPU_PROGRAM_GRAPH_NODES_H
