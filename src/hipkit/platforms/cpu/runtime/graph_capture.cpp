// Stream capture: hipStreamBeginCapture ... hipStreamEndCapture.
//
// The stream layer hands a capturing stream's work here instead of running
// it (enqueue() calls capture_take), so kernels, copies, memsets and host
// functions from programs and from Python are captured alike.  Each stream
// in a capture has a point: the nodes its next work depends on.  An event
// recorded on a capturing stream keeps that point; a stream that waits for
// it joins the capture there (a fork), and the origin stream waiting for an
// event of the forked stream joins it back.  The capture modes decide which
// calls that could wait for captured work are refused meanwhile (CUDA's
// "potentially unsafe" calls); a refused call invalidates the capture, as
// does waiting for a capturing stream.
#include "graph.h"

namespace hk {

namespace {

enum { kGlobal = 0, kThreadLocal = 1, kRelaxed = 2 };

}  // namespace

struct Capture {
  std::unique_ptr<Graph> graph;
  int mode = kGlobal;
  uint64_t id = 0;
  Stream* origin = nullptr;
  pthread_t thread;  // which began it
  std::vector<Stream*> streams;  // the origin and the streams that joined
  bool invalidated = false;
  bool owned = true;  // false: hipStreamBeginCaptureToGraph's graph, the caller's
};

namespace {

std::vector<Capture*> active;  // under the graph lock
std::atomic<int> active_count{0};
uint64_t next_id = 1;
// The calling thread's mode (hipThreadExchangeStreamCaptureMode).
thread_local int thread_mode = kGlobal;

// Whether `c` forbids the calling thread calls that could wait for its work.
bool forbids(const Capture* c) {
  if (thread_mode == kRelaxed) return false;
  if (c->mode != kRelaxed && pthread_equal(c->thread, pthread_self())) return true;
  return thread_mode == kGlobal && c->mode == kGlobal;
}

// The capture a point is in, if it is still on (under the graph lock).
Capture* live(const CapturePoint& point) {
  for (Capture* c : active)
    if (c == point.capture && c->id == point.id) return c;
  return nullptr;
}

// Whether every stream that joined the capture was joined back: its last
// nodes are among those the origin's next work depends on, or theirs.
bool joined(const Capture* c) {
  std::unordered_set<const Node*> reached;
  std::vector<const Node*> todo;
  for (const Node* n : stream_capture_point(c->origin).nodes) todo.push_back(n);
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (!reached.insert(n).second) continue;
    for (const Node* d : n->deps) todo.push_back(d);
  }
  for (Stream* s : c->streams)
    for (const Node* n : stream_capture_point(s).nodes)
      if (reached.count(n) == 0) return false;
  return true;
}

// Ends `c` (under the graph lock): its streams leave it; returns its graph.
std::unique_ptr<Graph> finish(Capture* c) {
  for (Stream* s : c->streams) stream_capture_point(s) = CapturePoint{};
  for (size_t i = 0; i < active.size(); ++i)
    if (active[i] == c) active.erase(active.begin() + long(i));
  active_count.fetch_sub(1, std::memory_order_relaxed);
  std::unique_ptr<Graph> graph = std::move(c->graph);
  delete c;
  return graph;
}

// A capture's graph that is not its own is given back, not destroyed.
struct CaptureGraph {
  std::unique_ptr<Graph> graph;
  bool owned;
  ~CaptureGraph() {
    if (!owned) (void)graph.release();
  }
};

// Checks `count` nodes of `graph` for a capture's dependencies.
int check_deps(const Graph* graph, hkrt_graph_node* const* deps, size_t count,
               std::vector<Node*>* out) {
  if (count > 0 && deps == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "NULL dependencies");
  for (size_t i = 0; i < count; ++i) {
    Node* n = static_cast<Node*>(deps[i]);
    if (n == nullptr || n->graph != graph)
      return fail(HKRT_ERROR_INVALID_VALUE, "dependency %zu is not a node of the capture's graph", i);
    if (std::find(out->begin(), out->end(), n) == out->end()) out->push_back(n);
  }
  return HKRT_SUCCESS;
}

}  // namespace

bool capture_any() { return active_count.load(std::memory_order_relaxed) != 0; }

namespace {

// The capture that work on the null stream `s` would wait for (a blocking stream of
// its device captures), under the lock; null if none, or if `s` is no null stream.
Capture* implicit_capture_locked(Stream* s) {
  if (!stream_is_null(s)) return nullptr;
  for (Capture* c : active)
    for (Stream* t : c->streams)
      if (stream_device(t) == stream_device(s) && stream_is_blocking(t)) return c;
  return nullptr;
}

}  // namespace

int capture_admit(Stream* s, unsigned what) {
  if (!capture_any()) return HKRT_SUCCESS;
  auto lock = graph_lock();
  if (what & kCaptureUnsafe) {
    bool refused = false;
    for (Capture* c : active) {
      if (!forbids(c)) continue;
      c->invalidated = true;
      refused = true;
    }
    if (refused)
      return fail(HKRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  "a call that may wait for work, while a stream captures (capture invalidated)");
  }
  if (s == nullptr) return HKRT_SUCCESS;
  if (Capture* c = stream_capture_point(s).capture) {
    if (what != kCaptureEnqueue) {
      c->invalidated = true;
      return fail(HKRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  what & kCaptureRefuse ? "this call cannot be captured (capture invalidated)"
                                        : "waiting for a capturing stream (capture invalidated)");
    }
    if (c->invalidated)
      return fail(HKRT_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream's capture was invalidated");
    return HKRT_SUCCESS;
  }
  // The null stream would wait for a capturing blocking stream of its device.
  if (Capture* c = implicit_capture_locked(s)) {
    c->invalidated = true;
    return fail(HKRT_ERROR_STREAM_CAPTURE_IMPLICIT,
                "the null stream, while a blocking stream of its device captures "
                "(capture invalidated)");
  }
  return HKRT_SUCCESS;
}

bool capture_take(Stream* s, Op* op) {
  auto lock = graph_lock();
  CapturePoint& point = stream_capture_point(s);
  Capture* c = point.capture;
  if (c == nullptr) return false;
  Module* module = nullptr;
  if (!c->invalidated) {
    Node* n = node_add(c->graph.get(), point.nodes);
    switch (op->kind) {
      case OpKind::Kernel:
        n->type = HKRT_GRAPH_NODE_KERNEL;
        n->device = op->device->index;
        n->kernel = std::move(op->kernel);
        module = n->kernel.module;
        break;
      case OpKind::Copy:
        n->type = HKRT_GRAPH_NODE_MEMCPY;
        n->dst = op->dst;
        n->src = op->src;
        n->bytes = op->bytes;
        n->copy_kind = int(op->copy_kind);
        break;
      case OpKind::Set:
        n->type = HKRT_GRAPH_NODE_MEMSET;
        n->dst = op->dst;
        n->value = op->value;
        n->elem_size = op->elem_size;
        n->width = n->pitch = op->bytes / op->elem_size;
        n->pitch *= op->elem_size;
        break;
      case OpKind::HostFunc:
        n->type = HKRT_GRAPH_NODE_HOST;
        n->host_fn = op->host_fn;
        n->host_data = op->host_data;
        break;
      default:
        break;
    }
    point.nodes.assign(1, n);
  } else if (op->kind == OpKind::Kernel) {
    module = op->kernel.module;
  }
  lock.unlock();
  if (module != nullptr) module_launch_done(module);  // it was counted as launched
  op_unref(op);
  return true;
}

int capture_record(Stream* s, CapturePoint& event, bool* handled) {
  if (!capture_any() && event.capture == nullptr) return HKRT_SUCCESS;
  auto lock = graph_lock();
  const CapturePoint& point = stream_capture_point(s);
  if (point.capture == nullptr) {
    event = CapturePoint{};  // recorded outside any capture now
    return HKRT_SUCCESS;
  }
  if (point.capture->invalidated)
    return fail(HKRT_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream's capture was invalidated");
  event = point;
  *handled = true;
  return HKRT_SUCCESS;
}

int capture_wait(Stream* s, hkrt_event* event, bool* handled) {
  if (int error = event_check(event)) return error;  // the scheduler lock, before ours
  auto lock = graph_lock();
  const CapturePoint& recorded = event_capture_point(event);
  CapturePoint& point = stream_capture_point(s);
  Capture* from = live(recorded);
  if (from == nullptr) {
    if (point.capture == nullptr) return HKRT_SUCCESS;
    point.capture->invalidated = true;
    return fail(HKRT_ERROR_STREAM_CAPTURE_ISOLATION,
                "a capturing stream waits for an event recorded outside its capture "
                "(capture invalidated)");
  }
  if (from->invalidated)
    return fail(HKRT_ERROR_STREAM_CAPTURE_INVALIDATED, "the event's capture was invalidated");
  if (point.capture == nullptr) {  // a fork: the stream joins the capture
    point = recorded;
    from->streams.push_back(s);
  } else if (point.capture != from) {
    return fail(HKRT_ERROR_STREAM_CAPTURE_MERGE, "the event was recorded in another capture");
  } else {
    for (Node* n : recorded.nodes)
      if (std::find(point.nodes.begin(), point.nodes.end(), n) == point.nodes.end())
        point.nodes.push_back(n);
  }
  *handled = true;
  return HKRT_SUCCESS;
}

int capture_event_check(const CapturePoint& event) {
  if (event.capture == nullptr) return HKRT_SUCCESS;
  auto lock = graph_lock();
  if (live(event) == nullptr) return HKRT_SUCCESS;
  return fail(HKRT_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              "the event was recorded into a capture that is still on");
}

bool capture_child(Stream* s, const Graph& graph) {
  auto lock = graph_lock();
  CapturePoint& point = stream_capture_point(s);
  if (point.capture == nullptr) return false;
  Node* n = node_add(point.capture->graph.get(), point.nodes);
  n->type = HKRT_GRAPH_NODE_GRAPH;
  n->child = graph_clone(graph, nullptr);
  point.nodes.assign(1, n);
  return true;
}

bool capture_alloc(Stream* s, int device, size_t bytes, void** ptr, int* error) {
  auto lock = graph_lock();
  CapturePoint& point = stream_capture_point(s);
  Capture* c = point.capture;
  if (c == nullptr) return false;
  if (c->invalidated) {
    *error = fail(HKRT_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream's capture was invalidated");
    return true;
  }
  hkrt_graph_node_params p = {};
  p.type = HKRT_GRAPH_NODE_MEM_ALLOC;
  p.device = device;
  p.bytes = bytes;
  Node scratch;
  if ((*error = alloc_node_set(scratch, p)) != HKRT_SUCCESS) return true;
  Node* n = node_add(c->graph.get(), point.nodes);
  node_copy_params(*n, scratch);
  n->type = HKRT_GRAPH_NODE_MEM_ALLOC;
  point.nodes.assign(1, n);
  *ptr = n->dst;
  return true;
}

bool capture_free(Stream* s, void* ptr, int* error) {
  auto lock = graph_lock();
  CapturePoint& point = stream_capture_point(s);
  Capture* c = point.capture;
  if (c == nullptr || !graph_alloc_known(ptr)) return false;
  if (c->invalidated) {
    *error = fail(HKRT_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream's capture was invalidated");
    return true;
  }
  Node* n = node_add(c->graph.get(), point.nodes);
  n->type = HKRT_GRAPH_NODE_MEM_FREE;
  n->dst = ptr;
  point.nodes.assign(1, n);
  *error = HKRT_SUCCESS;
  return true;
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_stream_begin_capture_to_graph(int index, hkrt_stream* handle, hkrt_graph* graph,
                                       hkrt_graph_node* const* deps, size_t count, int mode) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (mode < kGlobal || mode > kRelaxed)
    return fail(HKRT_ERROR_INVALID_VALUE, "begin capture: unknown mode %d", mode);
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  if (stream_is_null(s))  // NULL or hipStreamLegacy
    return fail(HKRT_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the null stream cannot capture");
  auto lock = graph_lock();
  CapturePoint& point = stream_capture_point(s);
  if (point.capture != nullptr)
    return fail(HKRT_ERROR_ILLEGAL_STATE, "the stream is capturing already");
  std::vector<Node*> start;
  if (graph != nullptr) {
    if (!graph_valid_locked(graph))
      return fail(HKRT_ERROR_INVALID_VALUE, "%p is no graph", static_cast<void*>(graph));
    for (Capture* other : active)
      if (other->graph.get() == graph)
        return fail(HKRT_ERROR_ILLEGAL_STATE, "begin capture: another capture is into that graph");
    if (int error = check_deps(static_cast<Graph*>(graph), deps, count, &start)) return error;
  } else if (count > 0) {
    return fail(HKRT_ERROR_INVALID_VALUE, "begin capture: dependencies without a graph");
  }
  auto* c = new Capture;
  if (graph != nullptr) {
    c->graph.reset(static_cast<Graph*>(graph));
    c->owned = false;
  } else {
    c->graph.reset(new Graph);
    graph_register_locked(c->graph.get());
  }
  c->mode = mode;
  c->id = next_id++;
  c->origin = s;
  c->thread = pthread_self();
  c->streams.push_back(s);
  point = CapturePoint{c, c->id, std::move(start)};
  active.push_back(c);
  active_count.fetch_add(1, std::memory_order_relaxed);
  return HKRT_SUCCESS;
}

int hkrt_stream_begin_capture(int index, hkrt_stream* handle, int mode) {
  return hkrt_stream_begin_capture_to_graph(index, handle, nullptr, nullptr, 0, mode);
}

int hkrt_stream_update_capture_dependencies(int index, hkrt_stream* handle,
                                            hkrt_graph_node* const* deps, size_t count,
                                            unsigned int flags) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (flags > 1)
    return fail(HKRT_ERROR_INVALID_VALUE, "update capture dependencies: unknown flags %u", flags);
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  auto lock = graph_lock();
  CapturePoint& point = stream_capture_point(s);
  if (point.capture == nullptr)
    return fail(HKRT_ERROR_ILLEGAL_STATE, "update capture dependencies: the stream is not capturing");
  if (point.capture->invalidated)
    return fail(HKRT_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream's capture was invalidated");
  std::vector<Node*> nodes = flags == 1 ? std::vector<Node*>{} : point.nodes;
  if (int error = check_deps(point.capture->graph.get(), deps, count, &nodes)) return error;
  point.nodes = std::move(nodes);
  return HKRT_SUCCESS;
}

int hkrt_stream_end_capture(int index, hkrt_stream* handle, hkrt_graph** out) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "end capture: NULL output");
  *out = nullptr;
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  auto lock = graph_lock();
  Capture* c = stream_capture_point(s).capture;
  if (c == nullptr) return fail(HKRT_ERROR_ILLEGAL_STATE, "end capture: the stream is not capturing");
  if (c->origin != s) {
    c->invalidated = true;
    return fail(HKRT_ERROR_STREAM_CAPTURE_UNMATCHED,
                "end capture on a stream that joined the capture, not the one that began it");
  }
  if (c->mode != kRelaxed && !pthread_equal(c->thread, pthread_self()))
    return fail(HKRT_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                "end capture in another thread than the one that began it");
  const bool invalidated = c->invalidated, complete = joined(c), owned = c->owned;
  CaptureGraph captured{finish(c), owned};
  if (invalidated || !complete) {
    Graph* g = captured.graph.release();
    if (!owned) g = nullptr;
    lock.unlock();
    if (g != nullptr) hkrt_graph_destroy(g);
    if (invalidated)
      return fail(HKRT_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated");
    return fail(HKRT_ERROR_STREAM_CAPTURE_UNJOINED,
                "a stream that joined the capture was not joined back into the stream that "
                "began it");
  }
  *out = captured.graph.release();
  return HKRT_SUCCESS;
}

int hkrt_stream_get_capture_info(int index, hkrt_stream* handle, int* status,
                                 unsigned long long* id, hkrt_graph** graph,
                                 hkrt_graph_node* const** dependencies, size_t* count) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (status == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "capture info: NULL status");
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  auto lock = graph_lock();
  // Asking the null stream while it may not be used: an error, as HIP's (the capture
  // goes on).
  if (implicit_capture_locked(s) != nullptr)
    return fail(HKRT_ERROR_STREAM_CAPTURE_IMPLICIT,
                "capture info of the null stream while a blocking stream of its device captures");
  const CapturePoint& point = stream_capture_point(s);
  *status = point.capture == nullptr ? 0 : point.capture->invalidated ? 2 : 1;
  if (point.capture == nullptr) return HKRT_SUCCESS;
  if (id != nullptr) *id = point.capture->id;
  if (graph != nullptr) *graph = point.capture->graph.get();
  // A Node* is its hkrt_graph_node* (the only, empty base).
  if (dependencies != nullptr)
    *dependencies = reinterpret_cast<hkrt_graph_node* const*>(point.nodes.data());
  if (count != nullptr) *count = point.nodes.size();
  return HKRT_SUCCESS;
}

int hkrt_thread_exchange_capture_mode(int* mode) {
  if (mode == nullptr || *mode < kGlobal || *mode > kRelaxed)
    return fail(HKRT_ERROR_INVALID_VALUE, "exchange capture mode: NULL or unknown mode");
  std::swap(thread_mode, *mode);
  return HKRT_SUCCESS;
}

}  // extern "C"
