// hipkit CPU platform: 3-D memcpy nodes, memory nodes, user objects, node
// enabling, kernel node attributes, the generic node calls and capture into a
// graph (part of program_graph.h), over runtime_graph.h.
//
// A 3-D memcpy node copies linear memory (a hipMemcpy3DParms naming an array
// is refused with hipErrorNotSupported).  An allocation node's address is
// fixed when it is made; the memory is valid in a launch from the node until
// it is freed (a free node, hipFreeAsync or hipFree).
#ifndef HIPKIT_CPU_PROGRAM_GRAPH_MORE_H
#define HIPKIT_CPU_PROGRAM_GRAPH_MORE_H

#include "program_graph_types.h"

namespace __hk {

inline hipError_t copy3d_params(const hipMemcpy3DParms* in, hkrt_graph_node_params* p) {
  if (in == nullptr) return result(hipErrorInvalidValue);
  if (in->srcArray != nullptr || in->dstArray != nullptr) return result(hipErrorNotSupported);
  if (in->srcPos.x + in->extent.width > in->srcPtr.pitch ||
      in->dstPos.x + in->extent.width > in->dstPtr.pitch)
    return result(hipErrorInvalidPitchValue);
  *p = node_params(hipGraphNodeTypeMemcpy);
  p->kind = in->kind;
  hkrt_graph_copy_3d& c = p->copy3d;
  c.is_3d = 1;
  c.dst = in->dstPtr.ptr, c.dst_pitch = in->dstPtr.pitch, c.dst_rows = in->dstPtr.ysize;
  c.dst_pos[0] = in->dstPos.x, c.dst_pos[1] = in->dstPos.y, c.dst_pos[2] = in->dstPos.z;
  c.src = in->srcPtr.ptr, c.src_pitch = in->srcPtr.pitch, c.src_rows = in->srcPtr.ysize;
  c.src_pos[0] = in->srcPos.x, c.src_pos[1] = in->srcPos.y, c.src_pos[2] = in->srcPos.z;
  c.extent[0] = in->extent.width, c.extent[1] = in->extent.height;
  c.extent[2] = in->extent.depth;
  return hipSuccess;
}

// A memcpy node's copy as a hipMemcpy3DParms (a 1-D copy: one row).
inline void copy3d_of(const hkrt_graph_node_params& p, hipMemcpy3DParms* out) {
  *out = hipMemcpy3DParms{};
  out->kind = static_cast<hipMemcpyKind>(p.kind);
  const hkrt_graph_copy_3d& c = p.copy3d;
  if (!c.is_3d) {
    out->dstPtr = make_hipPitchedPtr(p.dst, p.bytes, p.bytes, 1);
    out->srcPtr = make_hipPitchedPtr(const_cast<void*>(p.src), p.bytes, p.bytes, 1);
    out->extent = make_hipExtent(p.bytes, 1, 1);
    return;
  }
  out->dstPtr = make_hipPitchedPtr(c.dst, c.dst_pitch, c.dst_pitch, c.dst_rows);
  out->srcPtr = make_hipPitchedPtr(const_cast<void*>(c.src), c.src_pitch, c.src_pitch, c.src_rows);
  out->dstPos = make_hipPos(c.dst_pos[0], c.dst_pos[1], c.dst_pos[2]);
  out->srcPos = make_hipPos(c.src_pos[0], c.src_pos[1], c.src_pos[2]);
  out->extent = make_hipExtent(c.extent[0], c.extent[1], c.extent[2]);
}

inline hipError_t symbol_copy(const void* symbol, size_t bytes, size_t offset, int kind, void* other,
                              bool to_symbol, hkrt_graph_node_params* p) {
  char* at = nullptr;
  if (hipError_t code = registered_symbol(symbol, 0, offset, bytes, &at)) return code;
  *p = to_symbol ? copy_params(at, other, bytes, kind) : copy_params(other, at, bytes, kind);
  return hipSuccess;
}

inline hipError_t alloc_params(const hipMemAllocNodeParams* in, hkrt_graph_node_params* p) {
  if (in == nullptr) return result(hipErrorInvalidValue);
  const hipMemPoolProps& props = in->poolProps;
  // The place is a parameter: a device that is none is an invalid value, as HIP and CUDA have it.
  if (props.allocType != hipMemAllocationTypePinned || props.location.type != hipMemLocationTypeDevice ||
      props.location.id < 0 || props.location.id >= visible().count)
    return result(hipErrorInvalidValue);
  *p = node_params(hipGraphNodeTypeMemAlloc);
  p->device = props.location.id;
  p->bytes = in->bytesize;
  static_assert(sizeof(hipMemAccessDesc) == 3 * sizeof(int), "hipMemAccessDesc: 3 ints");
  p->access = in->accessDescs, p->access_count = in->accessDescCount;
  return hipSuccess;
}

// The runtime's parameters of a generic node description (its type's part).
inline hipError_t generic_params(const hipGraphNodeParams* in, hkrt_graph_node_params* p) {
  if (in == nullptr) return result(hipErrorInvalidValue);
  switch (in->type) {
    case hipGraphNodeTypeKernel: return kernel_params(&in->kernel, p);
    case hipGraphNodeTypeMemcpy:
      if (in->memcpy.flags != 0) return result(hipErrorInvalidValue);
      return copy3d_params(&in->memcpy.copyParams, p);
    case hipGraphNodeTypeMemset: return set_params(&in->memset, p);
    case hipGraphNodeTypeHost: return host_params(&in->host, p);
    case hipGraphNodeTypeGraph:
      *p = node_params(hipGraphNodeTypeGraph);
      p->graph = in->graph.graph;
      return hipSuccess;
    case hipGraphNodeTypeEmpty: *p = node_params(hipGraphNodeTypeEmpty); return hipSuccess;
    case hipGraphNodeTypeWaitEvent:
      *p = event_params(hipGraphNodeTypeWaitEvent, in->eventWait.event);
      return hipSuccess;
    case hipGraphNodeTypeEventRecord:
      *p = event_params(hipGraphNodeTypeEventRecord, in->eventRecord.event);
      return hipSuccess;
    case hipGraphNodeTypeMemAlloc: return alloc_params(&in->alloc, p);
    case hipGraphNodeTypeMemFree:
      *p = node_params(hipGraphNodeTypeMemFree);
      p->dst = in->free.dptr;
      return hipSuccess;
    default: return result(hipErrorInvalidValue);
  }
}

inline hipError_t node_attrs(hipGraphNode_t node, hkrt_kernel_node_attrs* a) {
  return result(hkrt_graph_kernel_node_attrs(node, a, 0));
}

}  // namespace __hk

// ---- 3-D memcpy nodes and the symbol forms ----------------------------------------

inline hipError_t hipGraphAddMemcpyNode(hipGraphNode_t* node, hipGraph_t graph,
                                        const hipGraphNode_t* deps, size_t count,
                                        const hipMemcpy3DParms* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::copy3d_params(params, &p)) return code;
  return __hk::add(node, graph, deps, count, p);
}
inline hipError_t hipGraphMemcpyNodeGetParams(hipGraphNode_t node, hipMemcpy3DParms* params) {
  __HK_API_CALL();
  if (params == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::get(node, hipGraphNodeTypeMemcpy, &p)) return code;
  __hk::copy3d_of(p, params);
  return hipSuccess;
}
inline hipError_t hipGraphMemcpyNodeSetParams(hipGraphNode_t node, const hipMemcpy3DParms* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::copy3d_params(params, &p)) return code;
  return __hk::result(hkrt_graph_node_set_params(node, &p));
}
inline hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node,
                                                  hipMemcpy3DParms* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p, was;
  if (hipError_t code = __hk::copy3d_params(params, &p)) return code;
  if (hipError_t code = __hk::get(node, hipGraphNodeTypeMemcpy, &was)) return code;
  // As CUDA: an instantiated copy changes only where both its operands are 1-D.
  hipMemcpy3DParms old;
  __hk::copy3d_of(was, &old);
  const auto flat = [](const hipExtent& e) { return e.height <= 1 && e.depth <= 1; };
  if (!flat(old.extent) || !flat(params->extent)) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}
inline hipError_t hipGraphMemcpyNodeSetParamsToSymbol(hipGraphNode_t node, const void* symbol,
                                                      const void* src, size_t bytes, size_t offset,
                                                      hipMemcpyKind kind) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::symbol_copy(symbol, bytes, offset, kind, const_cast<void*>(src),
                                          true, &p))
    return code;
  return __hk::result(hkrt_graph_node_set_params(node, &p));
}
inline hipError_t hipGraphMemcpyNodeSetParamsFromSymbol(hipGraphNode_t node, void* dst,
                                                        const void* symbol, size_t bytes,
                                                        size_t offset, hipMemcpyKind kind) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::symbol_copy(symbol, bytes, offset, kind, dst, false, &p)) return code;
  return __hk::result(hkrt_graph_node_set_params(node, &p));
}
inline hipError_t hipGraphExecMemcpyNodeSetParamsToSymbol(hipGraphExec_t exec, hipGraphNode_t node,
                                                          const void* symbol, const void* src,
                                                          size_t bytes, size_t offset,
                                                          hipMemcpyKind kind) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::symbol_copy(symbol, bytes, offset, kind, const_cast<void*>(src),
                                          true, &p))
    return code;
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}
inline hipError_t hipGraphExecMemcpyNodeSetParamsFromSymbol(hipGraphExec_t exec, hipGraphNode_t node,
                                                            void* dst, const void* symbol,
                                                            size_t bytes, size_t offset,
                                                            hipMemcpyKind kind) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::symbol_copy(symbol, bytes, offset, kind, dst, false, &p)) return code;
  return __hk::result(hkrt_graph_exec_set_params(exec, node, &p));
}

// ---- Memory nodes and graph memory ---------------------------------------------------

inline hipError_t hipGraphAddMemAllocNode(hipGraphNode_t* node, hipGraph_t graph,
                                          const hipGraphNode_t* deps, size_t count,
                                          hipMemAllocNodeParams* params) {
  __HK_API_CALL();
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::alloc_params(params, &p)) return code;
  if (hipError_t code = __hk::add(node, graph, deps, count, p)) return code;
  hkrt_graph_node_params made;
  hkrt_graph_node_get_params(*node, &made);
  params->dptr = made.dst;
  return hipSuccess;
}
inline hipError_t hipGraphMemAllocNodeGetParams(hipGraphNode_t node, hipMemAllocNodeParams* params) {
  __HK_API_CALL();
  if (params == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::get(node, hipGraphNodeTypeMemAlloc, &p)) return code;
  *params = hipMemAllocNodeParams{};
  params->poolProps.allocType = hipMemAllocationTypePinned;
  params->poolProps.location = hipMemLocation{hipMemLocationTypeDevice, p.device};
  params->accessDescs = static_cast<const hipMemAccessDesc*>(p.access);
  params->accessDescCount = p.access_count;
  params->bytesize = p.bytes;
  params->dptr = p.dst;
  return hipSuccess;
}
inline hipError_t hipGraphAddMemFreeNode(hipGraphNode_t* node, hipGraph_t graph,
                                         const hipGraphNode_t* deps, size_t count, void* ptr) {
  __HK_API_CALL();
  hkrt_graph_node_params p = __hk::node_params(hipGraphNodeTypeMemFree);
  p.dst = ptr;
  return __hk::add(node, graph, deps, count, p);
}
// `ptr` points to the void* that gets the node's pointer.
inline hipError_t hipGraphMemFreeNodeGetParams(hipGraphNode_t node, void* ptr) {
  __HK_API_CALL();
  if (ptr == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_graph_node_params p;
  if (hipError_t code = __hk::get(node, hipGraphNodeTypeMemFree, &p)) return code;
  *static_cast<void**>(ptr) = p.dst;
  return hipSuccess;
}
inline hipError_t hipDeviceGetGraphMemAttribute(int device, hipGraphMemAttributeType attr,
                                                void* value) {
  __HK_API_CALL();
  return __hk::result(
      hkrt_graph_mem_attribute(device, attr, static_cast<unsigned long long*>(value), 0));
}
inline hipError_t hipDeviceSetGraphMemAttribute(int device, hipGraphMemAttributeType attr,
                                                void* value) {
  __HK_API_CALL();
  return __hk::result(
      hkrt_graph_mem_attribute(device, attr, static_cast<unsigned long long*>(value), 1));
}
inline hipError_t hipDeviceGraphMemTrim(int device) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_mem_trim(device));
}

// ---- User objects ------------------------------------------------------------------

inline hipError_t hipUserObjectCreate(hipUserObject_t* object, void* ptr, hipHostFn_t destroy,
                                      unsigned int count, unsigned int flags) {
  __HK_API_CALL();
  return __hk::result(hkrt_user_object_create(object, ptr, destroy, count, flags));
}
inline hipError_t hipUserObjectRelease(hipUserObject_t object, unsigned int count = 1) {
  __HK_API_CALL();
  return __hk::result(hkrt_user_object_retain(object, count, 1));
}
inline hipError_t hipUserObjectRetain(hipUserObject_t object, unsigned int count = 1) {
  __HK_API_CALL();
  return __hk::result(hkrt_user_object_retain(object, count, 0));
}
inline hipError_t hipGraphRetainUserObject(hipGraph_t graph, hipUserObject_t object,
                                           unsigned int count = 1, unsigned int flags = 0) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_user_object(graph, object, count, flags, 0));
}
inline hipError_t hipGraphReleaseUserObject(hipGraph_t graph, hipUserObject_t object,
                                            unsigned int count = 1) {
  __HK_API_CALL();
  return __hk::result(hkrt_graph_user_object(graph, object, count, 0, 1));
}

#include "program_graph_generic.h"

#endif  // HIPKIT_CPU_PROGRAM_GRAPH_MORE_H
