// hipkit CPU platform: graphs in libhipkit_cpu.so (hipGraph*, stream capture).
//
// A graph is nodes (kernels, 1-D copies, memsets, host functions, event
// records and waits, child graphs, empty nodes) and the dependencies between
// them.  It is built node by node or captured from streams: while a stream
// captures, the work enqueued on it (by a program or by the Python API, both
// through this runtime) becomes nodes instead of running, and an event
// recorded on it and waited for by another stream joins that stream to the
// capture.  An instantiated graph (an "exec") is launched on a stream as one
// batch of operations made from nodes in a precomputed order: its nodes run
// once their dependencies have, independent ones concurrently, and the
// launch is ordered with the stream's other work.
//
// Every function returns a hipError_t value; node kinds are hipGraphNodeType's
// numbers, capture modes and statuses hipStreamCaptureMode's and
// hipStreamCaptureStatus's, update results hipGraphExecUpdateResult's.
#ifndef HIPKIT_CPU_RUNTIME_GRAPH_H
#define HIPKIT_CPU_RUNTIME_GRAPH_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hkrt_graph hkrt_graph;
typedef struct hkrt_graph_node hkrt_graph_node;
typedef struct hkrt_graph_exec hkrt_graph_exec;
typedef struct hkrt_user_object hkrt_user_object;

// hipGraphNodeType
enum {
  HKRT_GRAPH_NODE_KERNEL = 0,
  HKRT_GRAPH_NODE_MEMCPY = 1,
  HKRT_GRAPH_NODE_MEMSET = 2,
  HKRT_GRAPH_NODE_HOST = 3,
  HKRT_GRAPH_NODE_GRAPH = 4,
  HKRT_GRAPH_NODE_EMPTY = 5,
  HKRT_GRAPH_NODE_WAIT_EVENT = 6,
  HKRT_GRAPH_NODE_EVENT_RECORD = 7,
  HKRT_GRAPH_NODE_MEM_ALLOC = 10,
  HKRT_GRAPH_NODE_MEM_FREE = 11
};

// A 3-D copy (hipMemcpy3DParms over linear memory): extent[0] bytes a row,
// extent[1] rows a slice, extent[2] slices; each side's rows `pitch` bytes
// apart, its slices `rows` rows apart, starting at pos (x in bytes, y, z).
typedef struct hkrt_graph_copy_3d {
  int is_3d;  // 0: the node is the 1-D copy of dst, src and bytes
  void* dst;
  size_t dst_pitch, dst_rows, dst_pos[3];
  const void* src;
  size_t src_pitch, src_rows, src_pos[3];
  size_t extent[3];
} hkrt_graph_copy_3d;

// A kernel node's attributes (hipLaunchAttributeValue's fields): stored and
// reported; the CPU runs every kernel alike.
typedef struct hkrt_kernel_node_attrs {
  void* window_base;
  size_t window_bytes;
  float hit_ratio;
  int hit_prop, miss_prop;
  int cooperative, priority;
} hkrt_kernel_node_attrs;

// What a node does; the fields its type uses.  Given to add/set, a kernel's
// arguments are copied (args[i] points to argument i); returned by get,
// `args` and `graph` are the node's own.
typedef struct hkrt_graph_node_params {
  int type;
  int device;  // kernel: whose launch rules check it (the runtime's index)
  const hk_kernel_desc* function;
  uint32_t grid[3], block[3];
  uint32_t shared_bytes;
  void** args;
  void* dst;  // memcpy and memset
  const void* src;
  size_t bytes;
  int kind;  // hipMemcpyKind
  uint32_t value, elem_size;  // memset: width elements a row, height rows `pitch` bytes apart
  size_t width, height, pitch;
  void (*fn)(void* data);  // host
  void* data;
  hkrt_event* event;  // event record and wait
  hkrt_graph* graph;  // child graph: cloned when added or set
  hkrt_graph_copy_3d copy3d;  // memcpy: a 3-D copy, when copy3d.is_3d
  // Memory allocation: `bytes` of `device`'s memory (its address returned in
  // dst by add and get); `access` holds access_count hipMemAccessDesc values
  // (each: location type, location id, flags).  Memory free: dst.
  const void* access;
  size_t access_count;
} hkrt_graph_node_params;

int hkrt_graph_create(hkrt_graph** out, unsigned int flags);
int hkrt_graph_destroy(hkrt_graph* graph);
int hkrt_graph_clone(hkrt_graph** out, hkrt_graph* graph);
// The node of `clone` (made by hkrt_graph_clone of the graph of `original`).
int hkrt_graph_node_find_in_clone(hkrt_graph_node** out, hkrt_graph_node* original,
                                  hkrt_graph* clone);
int hkrt_graph_add_node(hkrt_graph_node** out, hkrt_graph* graph,
                        hkrt_graph_node* const* dependencies, size_t count,
                        const hkrt_graph_node_params* params);
int hkrt_graph_node_get_params(hkrt_graph_node* node, hkrt_graph_node_params* out);
int hkrt_graph_node_set_params(hkrt_graph_node* node, const hkrt_graph_node_params* params);
int hkrt_graph_destroy_node(hkrt_graph_node* node);

// Lists, as HIP's: with `out` NULL, *count is set to the number there are;
// else up to *count entries are written, the rest of them NULL, and *count
// is set to the number written.
int hkrt_graph_get_nodes(hkrt_graph* graph, hkrt_graph_node** out, size_t* count);
int hkrt_graph_get_root_nodes(hkrt_graph* graph, hkrt_graph_node** out, size_t* count);
int hkrt_graph_get_edges(hkrt_graph* graph, hkrt_graph_node** from, hkrt_graph_node** to,
                         size_t* count);
// `dependents` 0: the node's dependencies; 1: the nodes that depend on it.
int hkrt_graph_node_get_edges(hkrt_graph_node* node, int dependents, hkrt_graph_node** out,
                              size_t* count);
// Adds (remove 0) or removes the edges from[i] -> to[i].
int hkrt_graph_edit_dependencies(hkrt_graph* graph, hkrt_graph_node* const* from,
                                 hkrt_graph_node* const* to, size_t count, int remove);
// Writes the graph in Graphviz's dot language to `path`.
int hkrt_graph_dot_print(hkrt_graph* graph, const char* path, unsigned int flags);

int hkrt_graph_instantiate(hkrt_graph_exec** out, hkrt_graph* graph, unsigned long long flags);
int hkrt_graph_exec_destroy(hkrt_graph_exec* exec);
// Launches `exec` on `stream` (NULL: `device`'s null stream); while the
// stream captures, the launch is captured as a child graph node.
int hkrt_graph_launch(int device, hkrt_graph_exec* exec, hkrt_stream* stream);
// Checks that exec can be launched on `stream` (everything is ready on a CPU).
int hkrt_graph_upload(int device, hkrt_graph_exec* exec, hkrt_stream* stream);
// hipGraphExecUpdate: *result is a hipGraphExecUpdateResult, *error_node the
// node that did not match (or NULL).
int hkrt_graph_exec_update(hkrt_graph_exec* exec, hkrt_graph* graph,
                           hkrt_graph_node** error_node, int* result);
// Sets the parameters, in `exec`, of the node that `node` (of the graph it
// was instantiated from) became; the type must stay.
int hkrt_graph_exec_set_params(hkrt_graph_exec* exec, hkrt_graph_node* node,
                               const hkrt_graph_node_params* params);

// Whether a node of an exec runs (`set` 0: *enabled is set); kernel, memcpy
// and memset nodes may be disabled; a disabled node's dependencies are kept.
int hkrt_graph_exec_node_enabled(hkrt_graph_exec* exec, hkrt_graph_node* node,
                                 unsigned int* enabled, int set);
int hkrt_graph_exec_get_flags(hkrt_graph_exec* exec, unsigned long long* flags);
int hkrt_graph_kernel_node_attrs(hkrt_graph_node* node, hkrt_kernel_node_attrs* attrs, int set);

// ---- Graph memory and user objects ---------------------------------------------
// A graph's allocation keeps its address while a node or an exec holds it;
// then its memory is kept for graphs until trimmed.  attr: hipGraphMemAttributeType.
int hkrt_graph_mem_attribute(int device, int attr, unsigned long long* value, int set);
int hkrt_graph_mem_trim(int device);
// User objects: destroy(data) runs when the last reference goes.
int hkrt_user_object_create(hkrt_user_object** out, void* data, void (*destroy)(void*),
                            unsigned int count, unsigned int flags);
int hkrt_user_object_retain(hkrt_user_object* object, unsigned int count, int release);
// A graph's references: `flags` 1 (hipGraphUserObjectMove) takes the caller's.
int hkrt_graph_user_object(hkrt_graph* graph, hkrt_user_object* object, unsigned int count,
                           unsigned int flags, int release);

// ---- Stream capture ----------------------------------------------------------
// While a capture in mode global (0) or thread-local (1) is on, calls that
// could wait for captured work are refused with
// hipErrorStreamCaptureUnsupported and invalidate the capture (mode 2,
// relaxed, allows them; the calling thread's own mode, changed with
// hkrt_thread_exchange_capture_mode, decides which captures count).

int hkrt_stream_begin_capture(int device, hkrt_stream* stream, int mode);
int hkrt_stream_end_capture(int device, hkrt_stream* stream, hkrt_graph** out);
// status (required), and where not NULL: the capture's id, its graph, and the
// nodes the next captured work will depend on (valid until the stream's
// next captured call).
int hkrt_stream_get_capture_info(int device, hkrt_stream* stream, int* status,
                                 unsigned long long* id, hkrt_graph** graph,
                                 hkrt_graph_node* const** dependencies, size_t* count);
int hkrt_thread_exchange_capture_mode(int* mode);
// Captures into `graph` (which the caller keeps), after `dependencies`.
int hkrt_stream_begin_capture_to_graph(int device, hkrt_stream* stream, hkrt_graph* graph,
                                       hkrt_graph_node* const* dependencies, size_t count,
                                       int mode);
// flags 0: adds `dependencies` to those of the stream's next captured work; 1: replaces them.
int hkrt_stream_update_capture_dependencies(int device, hkrt_stream* stream,
                                            hkrt_graph_node* const* dependencies, size_t count,
                                            unsigned int flags);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HIPKIT_CPU_RUNTIME_GRAPH_H
