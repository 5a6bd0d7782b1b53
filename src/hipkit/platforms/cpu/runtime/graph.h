// Graphs inside the runtime (hipkit_cpu/runtime_graph.h is their API):
// graph.cpp (graphs and nodes), graph_exec.cpp (instantiated graphs and their
// launches), graph_capture.cpp (stream capture, and the hooks by which the
// stream layer hands it the work of capturing streams).
#ifndef HIPKIT_CPU_RUNTIME_GRAPH_INTERNAL_H
#define HIPKIT_CPU_RUNTIME_GRAPH_INTERNAL_H

#include <hipkit_cpu/runtime_graph.h>

#include <algorithm>
#include <unordered_map>

#include "internal.h"

struct hkrt_graph {};
struct hkrt_graph_node {};
struct hkrt_graph_exec {};

#pragma GCC visibility push(hidden)

namespace hk {

struct Graph;
struct GraphAlloc;  // graph_memory.cpp
struct UserObject;  // graph_user.cpp

// A reference to a graph allocation (graph_memory.cpp): nodes and execs that
// hold one keep its address reserved.
class AllocRef {
 public:
  AllocRef() = default;
  explicit AllocRef(GraphAlloc* alloc);  // takes a reference
  AllocRef(const AllocRef& other) : AllocRef(other.alloc_) {}
  AllocRef& operator=(const AllocRef& other);
  ~AllocRef();
  GraphAlloc* get() const { return alloc_; }

 private:
  GraphAlloc* alloc_ = nullptr;
};


// A node: its type, its edges and what it does (the fields of its type).
struct Node : hkrt_graph_node {
  Graph* graph = nullptr;
  int type = HKRT_GRAPH_NODE_EMPTY;
  std::vector<Node*> deps, dependents;
  int device = 0;  // kernel
  KernelLaunch kernel;
  void* dst = nullptr;  // memcpy, memset
  const void* src = nullptr;
  size_t bytes = 0;
  int copy_kind = HKRT_MEMCPY_DEFAULT;
  uint32_t value = 0, elem_size = 1;
  size_t width = 0, height = 1, pitch = 0;
  hkrt_graph_copy_3d copy3d = {};  // a 3-D memcpy node (copy3d.is_3d)
  std::vector<int> access;         // an allocation node's hipMemAccessDesc values
  hkrt_kernel_node_attrs attrs = {};  // kept by set params
  AllocRef alloc;                  // a memory allocation node's
  bool enabled = true;             // in an exec
  void (*host_fn)(void*) = nullptr;
  void* host_data = nullptr;
  hkrt_event* event = nullptr;
  std::unique_ptr<Graph> child;
};

struct Graph : hkrt_graph {
  std::vector<std::unique_ptr<Node>> nodes;  // in the order they were added
  std::unordered_map<UserObject*, unsigned> objects;  // user objects' references held
  ~Graph();
};

// The lock of graphs, nodes, execs and captures.
Lock graph_lock();
// Whether `graph` is a live graph (under the graph lock).
bool graph_valid_locked(const hkrt_graph* graph);
// Registers a graph made by the runtime (a capture's) as a live one.
void graph_register_locked(Graph* graph);
// A new node of `graph` after `deps` (no checks).
Node* node_add(Graph* graph, const std::vector<Node*>& deps);
// A deep copy of `from`'s parameters into `to` (the type included).
void node_copy_params(Node& to, const Node& from);
// A copy of `graph`; `map` (if not null) gets each node's copy, nested ones too.
std::unique_ptr<Graph> graph_clone(const Graph& graph,
                                   std::unordered_map<const Node*, Node*>* map);
// Checks `p` and sets `node`'s parameters from it (graph.cpp).
int node_set_params(Node* node, const hkrt_graph_node_params* p);

// ---- graph_memory.cpp, graph_user.cpp ------------------------------------------

// Checks a 3-D copy and sets `to` (a memcpy node) from it.
int copy3d_set(Node& to, const hkrt_graph_copy_3d& copy);
// The op that runs a 3-D memcpy node (nullptr: `n` copies one run of bytes).
Op* copy3d_op(const Node& n);
// Checks an allocation node's parameters and makes its allocation.
int alloc_node_set(Node& to, const hkrt_graph_node_params& p);
// Checks a free node's pointer (an allocation of a graph) and sets `to`.
int free_node_set(Node& to, void* ptr);
// The allocations a graph's nodes make (nested ones too).
void graph_allocs(const Graph& graph, std::vector<GraphAlloc*>* out);
// Instantiation's and exec destruction's accounting: which exec owns the
// allocations (hipErrorNotSupported if another exec does).
int allocs_claim(const std::vector<GraphAlloc*>& allocs, const void* exec);
void allocs_release(const std::vector<GraphAlloc*>& allocs, const void* exec);
// At launch: the allocations that the exec's graph does not free must have
// been freed since its last launch (auto_free: they are freed now); then the
// launch allocates them all.  `freed` are the graph's free nodes' pointers.
int allocs_launch(const std::vector<GraphAlloc*>& allocs, const std::vector<void*>& freed,
                  bool auto_free);
// Adds `graph`'s user-object references to `to` (clones, execs).
void objects_copy(std::unordered_map<UserObject*, unsigned>& to, const Graph& graph);
// Drops references (a graph's or an exec's); destructors whose last reference goes run.
void objects_release(std::unordered_map<UserObject*, unsigned>& refs);

// ---- graph_capture.cpp ------------------------------------------------------

struct Capture;

// Where a stream, or an event recorded on a capturing stream, stands in a
// capture: the capture (`id` tells a live one from one that ended) and the
// nodes that work after it depends on.
struct CapturePoint {
  Capture* capture = nullptr;
  uint64_t id = 0;
  std::vector<Node*> nodes;
};

// What a call about to enqueue on, or wait for, `stream` is (flags below);
// its capture error, or hipSuccess.  `stream` may be null for calls that
// are not about one stream.
constexpr unsigned kCaptureEnqueue = 0;
constexpr unsigned kCaptureUnsafe = 1;  // may wait for work (hipMalloc, hipMemcpy...)
constexpr unsigned kCaptureWait = 2;    // waits for `stream` (hipStreamSynchronize)
constexpr unsigned kCaptureRefuse = 4;  // cannot be captured (hipStreamAddCallback)
int capture_admit(Stream* stream, unsigned what);
// True while any capture is on (a cheap test for the hooks below).
bool capture_any();
// enqueue()'s hook: if `stream` captures, `op` becomes a node and true is
// returned (the op is released).
bool capture_take(Stream* stream, Op* op);
// hkrt_event_record's and hkrt_stream_wait_event's hooks: *handled is set if
// the call was a capture's; the error is returned.
int capture_record(Stream* stream, CapturePoint& event, bool* handled);
int capture_wait(Stream* stream, hkrt_event* event, bool* handled);
// hipErrorStreamCaptureUnsupported if the event was last recorded into a
// capture that is still on (it cannot be waited for), else hipSuccess.
int capture_event_check(const CapturePoint& event);
// If `stream` captures, adds a child graph node (a copy of `graph`) to its
// capture and returns true.
bool capture_child(Stream* stream, const Graph& graph);
// If `stream` captures: an allocation node (*ptr its address) or a free node
// is added to its capture, and true returned with *error set.
bool capture_alloc(Stream* stream, int device, size_t bytes, void** ptr, int* error);
bool capture_free(Stream* stream, void* ptr, int* error);
// Outside capture: hipFreeAsync or hipFree of a graph's allocation (true if
// `ptr` is one, with *error set).
bool graph_alloc_free(void* ptr, int* error);
bool graph_alloc_known(const void* ptr);

// ---- stream.cpp: what graphs need of streams and events --------------------

CapturePoint& stream_capture_point(Stream* stream);
bool stream_is_null(const Stream* stream);
bool stream_is_blocking(const Stream* stream);
// hipErrorInvalidHandle through fail() unless `event` is a live event.
int event_check(hkrt_event* event);
CapturePoint& event_capture_point(hkrt_event* event);
// Makes `op` (if not null; a reference taken) the event's latest record, and
// returns the previous one, or with `op` null the latest one, with a
// reference for the caller; null if there is none or the event is gone.
Op* event_exchange(hkrt_event* event, Op* op);
// Under the scheduler lock: `op` runs after `dependency` (if not null).
void add_dependency(Op* op, Op* dependency);

// ---- launch.cpp, memory.cpp -----------------------------------------------------

// Checks a launch on `device` and copies its arguments into `k` (its desc,
// grid, block and shared bytes set).
int prepare_launch(KernelLaunch& k, Device* device, const void* packed, size_t packed_bytes,
                   void** args);
// A copy of `from`, with its own copy of the arguments.
void copy_launch(KernelLaunch& to, const KernelLaunch& from);
// Sets whether a copy or memset op is a job, and its pieces.
void split_copy(Op* op, const Device* device);

}  // namespace hk

#pragma GCC visibility pop

#endif  // HIPKIT_CPU_RUNTIME_GRAPH_INTERNAL_H
