// hipkit CPU platform: node enabling, kernel node attributes, the generic
// node calls (hipGraphNodeParams), instantiation with parameters and capture
// into a graph (part of program_graph_more.h).
#ifndef HIPKIT_CPU_PROGRAM_GRAPH_GENERIC_H
#define HIPKIT_CPU_PROGRAM_GRAPH_GENERIC_H

// ---- Enabling, attributes --------------------------------------------------------

inline hipError_t hipGraphNodeSetEnabled(hipGraphExec_t exec, hipGraphNode_t node,
                                         unsigned int enabled) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_exec_node_enabled(exec, node, &enabled, 1));
}
inline hipError_t hipGraphNodeGetEnabled(hipGraphExec_t exec, hipGraphNode_t node,
                                         unsigned int* enabled) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_exec_node_enabled(exec, node, enabled, 0));
}
inline hipError_t hipGraphExecGetFlags(hipGraphExec_t exec, unsigned long long* flags) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_exec_get_flags(exec, flags));
}

inline hipError_t hipGraphKernelNodeSetAttribute(hipGraphNode_t node, hipKernelNodeAttrID attr,
                                                 const hipKernelNodeAttrValue* value) {
  __HK_API_CALL();
  if (value == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_kernel_node_attrs a;
  if (hipError_t code = __hk::node_attrs(node, &a)) return code;
  switch (attr) {
    case hipLaunchAttributeAccessPolicyWindow: {
      const hipAccessPolicyWindow& w = value->accessPolicyWindow;
      if (w.hitRatio < 0 || w.hitRatio > 1) return __hk::result(hipErrorInvalidValue);
      a.window_base = w.base_ptr, a.window_bytes = w.num_bytes, a.hit_ratio = w.hitRatio;
      a.hit_prop = w.hitProp, a.miss_prop = w.missProp;
      break;
    }
    case hipLaunchAttributeCooperative: a.cooperative = value->cooperative; break;
    case hipLaunchAttributePriority: a.priority = value->priority; break;
    default: return __hk::result(hipErrorInvalidValue);
  }
  return __hk::result(hkrt_graph_kernel_node_attrs(node, &a, 1));
}
inline hipError_t hipGraphKernelNodeGetAttribute(hipGraphNode_t node, hipKernelNodeAttrID attr,
                                                 hipKernelNodeAttrValue* value) {
  __HK_API_CALL();
  if (value == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_kernel_node_attrs a;
  if (hipError_t code = __hk::node_attrs(node, &a)) return code;
  switch (attr) {
    case hipLaunchAttributeAccessPolicyWindow:
      value->accessPolicyWindow = hipAccessPolicyWindow{
          a.window_base, static_cast<hipAccessProperty>(a.hit_prop), a.hit_ratio,
          static_cast<hipAccessProperty>(a.miss_prop), a.window_bytes};
      return hipSuccess;
    case hipLaunchAttributeCooperative: value->cooperative = a.cooperative; return hipSuccess;
    case hipLaunchAttributePriority: value->priority = a.priority; return hipSuccess;
    default: return __hk::result(hipErrorInvalidValue);
  }
}
inline hipError_t hipGraphKernelNodeCopyAttributes(hipGraphNode_t src, hipGraphNode_t dst) {
  __HK_API_CALL();
  hkrt_kernel_node_attrs a;
  if (hipError_t code = __hk::node_attrs(src, &a)) return code;
  hkrt_kernel_node_attrs check;
  if (hipError_t code = __hk::node_attrs(dst, &check)) return code;
  return __hk::result(hkrt_graph_kernel_node_attrs(dst, &a, 1));
}

// ---- The generic node calls --------------------------------------------------------

inline hipError_t hipGraphAddNode(hipGraphNode_t* node, hipGraph_t graph,
                                  const hipGraphNode_t* deps, size_t count,
                                  hipGraphNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::generic_params(params, &p)) return code;
  if (hipError_t code = __hk::add(node, graph, deps, count, p)) return code;
  if (params->type == hipGraphNodeTypeMemAlloc) {
    hkrt_graph_node_params made;
    hkrt_graph_node_get_params(*node, &made);
    params->alloc.dptr = made.dst;
  }
  return hipSuccess;
}
inline hipError_t hipGraphNodeSetParams(hipGraphNode_t node, hipGraphNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::generic_params(params, &p)) return code;
  return __hk::result(hkrt_graph_node_set_params(node, &p));
}
inline hipError_t hipGraphExecNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node,
                                            hipGraphNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::generic_params(params, &p)) return code;
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}

inline hipError_t hipGraphInstantiateWithParams(hipGraphExec_t* exec, hipGraph_t graph,
                                                hipGraphInstantiateParams* params) {
  __HK_API_CALL();
  if (params == nullptr) return __hk::result(hipErrorInvalidValue);
  params->errNode_out = nullptr;
  params->result_out = hipGraphInstantiateError;
  if (int code = hkrt_graph_instantiate(exec, graph, params->flags)) return __hk::result(code);
  if (params->flags & hipGraphInstantiateFlagUpload) {
    if (int code = hkrt_graph_upload(__hk::current(), *exec, params->uploadStream)) {
      hkrt_graph_exec_destroy(*exec);
      return __hk::result(code);
    }
  }
  params->result_out = hipGraphInstantiateSuccess;
  return hipSuccess;
}

// ---- Capture into a graph ------------------------------------------------------------

// Edges are the default ones (dependencyData NULL or zeroed); programmatic
// edges are refused with hipErrorNotSupported.
inline hipError_t hipStreamBeginCaptureToGraph(hipStream_t stream, hipGraph_t graph,
                                               const hipGraphNode_t* deps,
                                               const hipGraphEdgeData* data, size_t count,
                                               hipStreamCaptureMode mode) {
  __HK_API_CALL();
  if (graph == nullptr) return __hk::result(hipErrorInvalidValue);
  for (size_t i = 0; data != nullptr && i < count; ++i)
    if (data[i].from_port != 0 || data[i].to_port != 0 || data[i].type != 0)
      return __hk::result(hipErrorNotSupported);
  return __hk::result(
      hkrt_stream_begin_capture_to_graph(__hk::current(), stream, graph, deps, count, mode));
}
inline hipError_t hipStreamUpdateCaptureDependencies(hipStream_t stream, hipGraphNode_t* deps,
                                                     size_t count, unsigned int flags = 0) {
  __HK_API_CALL();
  return __hk::result(
      hkrt_stream_update_capture_dependencies(__hk::current(), stream, deps, count, flags));
}

#endif  // HIPKIT_CPU_PROGRAM_GRAPH_GENERIC_H
