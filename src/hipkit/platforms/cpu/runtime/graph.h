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
  void (*host_fn)(void*) = nullptr;
  void* host_data = nullptr;
  hkrt_event* event = nullptr;
  std::unique_ptr<Graph> child;
};

struct Graph : hkrt_graph {
  std::vector<std::unique_ptr<Node>> nodes;  // in the order they were added
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
