// Instantiated graphs: hipGraphInstantiate, hipGraphLaunch, hipGraphExecUpdate
// and the hipGraphExec*NodeSetParams calls.
//
// Instantiating copies the graph and flattens it, child graphs included, into
// steps in a topological order, each with the steps it depends on.  A launch
// makes one op per step from its node (copying a kernel's arguments, with no
// lookup or validation: both were done when the node was made) and enqueues
// them all under one hold of the scheduler lock, between a head op that
// follows the stream's earlier work and a tail op that becomes the stream's
// last; so a replay costs less than issuing the same work call by call, and
// independent branches run concurrently on the device's workers.
#include <cstring>
#include <new>

#include "graph.h"

namespace hk {

namespace {

struct Step {
  Node* node;  // in the exec's own copy of the graph
  std::vector<uint32_t> deps;
};

struct Exec : hkrt_graph_exec {
  std::unique_ptr<Graph> graph;
  std::unordered_map<const Node*, Node*> from_original;  // the instantiated graph's nodes
  std::vector<Step> steps;
  std::vector<uint32_t> leaves;
  Op* previous = nullptr;  // the tail of the latest launch (a reference)
  unsigned long long flags = 0;
  std::vector<GraphAlloc*> allocs;  // made by its allocation nodes
  std::vector<void*> frees;         // freed by its free nodes
};

bool holds_objects(const Graph& graph) {
  if (!graph.objects.empty()) return true;
  for (const auto& n : graph.nodes)
    if (n->child != nullptr && holds_objects(*n->child)) return true;
  return false;
}

std::unordered_set<const hkrt_graph_exec*> execs;  // under the graph lock

Exec* as_exec(hkrt_graph_exec* e) { return static_cast<Exec*>(e); }

int check_exec(hkrt_graph_exec* exec) {
  auto lock = graph_lock();
  if (exec == nullptr || execs.count(exec) == 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "%p is no instantiated graph", static_cast<void*>(exec));
  return HKRT_SUCCESS;
}

// The nodes of `graph` in an order where each follows its dependencies;
// false if there is a cycle.
bool topological(const Graph& graph, std::vector<Node*>* order) {
  std::unordered_map<const Node*, size_t> pending;
  for (const auto& n : graph.nodes) {
    pending[n.get()] = n->deps.size();
    if (n->deps.empty()) order->push_back(n.get());
  }
  for (size_t i = 0; i < order->size(); ++i)
    for (Node* d : (*order)[i]->dependents)
      if (--pending[d] == 0) order->push_back(d);
  return order->size() == graph.nodes.size();
}

// Appends the steps of `graph`; its roots depend on `entry`, and its leaves'
// steps are appended to `leaves`.  A child graph's node becomes a step after
// its graph's leaves.
int flatten(Exec* e, const Graph& graph, const std::vector<uint32_t>& entry,
            std::vector<uint32_t>* leaves) {
  std::vector<Node*> order;
  if (!topological(graph, &order))
    return fail(HKRT_ERROR_INVALID_VALUE, "instantiate: the graph has a cycle");
  std::unordered_map<const Node*, uint32_t> step_of;
  for (Node* n : order) {
    std::vector<uint32_t> deps = entry;
    if (!n->deps.empty()) deps.clear();
    for (const Node* d : n->deps) deps.push_back(step_of.at(d));
    if (n->type == HKRT_GRAPH_NODE_GRAPH) {
      std::vector<uint32_t> inner;
      if (int error = flatten(e, *n->child, deps, &inner)) return error;
      if (!inner.empty()) deps = inner;
    }
    step_of[n] = uint32_t(e->steps.size());
    if (n->dependents.empty()) leaves->push_back(uint32_t(e->steps.size()));
    e->steps.push_back({n, std::move(deps)});
  }
  return HKRT_SUCCESS;
}

// A memset of rows `pitch` bytes apart (a host function's data).
struct Rows {
  unsigned char* dst;
  size_t pitch, width, height;
  uint32_t value, elem_size;
};

void set_rows(void* data) {
  const Rows* r = static_cast<const Rows*>(data);
  for (size_t row = 0; row < r->height; ++row) {
    unsigned char* p = r->dst + row * r->pitch;
    for (size_t i = 0; i < r->width; ++i) memcpy(p + i * r->elem_size, &r->value, r->elem_size);
  }
}

// The op that runs node `n` once, on `device`.
Op* make_op(const Node* n, const Device* device) {
  if (!n->enabled) {
    auto* op = new Op;
    op->kind = OpKind::Marker;
    return op;
  }
  if (Op* op = copy3d_op(*n)) return op;
  auto* op = new Op;
  op->kind = OpKind::Marker;
  switch (n->type) {
    case HKRT_GRAPH_NODE_KERNEL:
      op->kind = OpKind::Kernel;
      op->is_job = true;
      copy_launch(op->kernel, n->kernel);
      op->total = uint64_t(n->kernel.grid.x) * n->kernel.grid.y * n->kernel.grid.z;
      break;
    case HKRT_GRAPH_NODE_MEMCPY:
      if (n->bytes == 0) break;
      op->kind = OpKind::Copy;
      op->dst = n->dst, op->src = n->src, op->bytes = n->bytes;
      op->copy_kind = uint32_t(n->copy_kind);
      split_copy(op, device);
      break;
    case HKRT_GRAPH_NODE_MEMSET:
      if (n->height == 1 || n->pitch == n->width * n->elem_size) {
        op->kind = OpKind::Set;
        op->dst = n->dst, op->bytes = n->width * n->elem_size * n->height;
        op->value = n->value, op->elem_size = n->elem_size;
        split_copy(op, device);
        break;
      }
      op->kind = OpKind::HostFunc;
      op->is_job = true;
      op->total = 1;
      op->staging.reset(new unsigned char[sizeof(Rows)]);
      new (op->staging.get()) Rows{static_cast<unsigned char*>(n->dst), n->pitch, n->width,
                                   n->height, n->value, n->elem_size};
      op->host_fn = set_rows;
      op->host_data = op->staging.get();
      break;
    case HKRT_GRAPH_NODE_HOST:
      op->kind = OpKind::HostFunc;
      op->is_job = true;
      op->total = 1;
      op->host_fn = n->host_fn, op->host_data = n->host_data;
      break;
    case HKRT_GRAPH_NODE_EVENT_RECORD:
      op->kind = OpKind::Record;
      break;
    default:  // empty, event wait, memory nodes, the end of a child graph
      break;
  }
  return op;
}

// The result of comparing an exec's graph `a` with `b` for an update
// (hipGraphExecUpdateResult); *node is b's node that differs.
int compare(const Graph& a, const Graph& b, const Node** node) {
  if (a.nodes.size() != b.nodes.size()) return 2;  // topology changed
  std::unordered_map<const Node*, size_t> index_a, index_b;
  for (size_t i = 0; i < a.nodes.size(); ++i) index_a[a.nodes[i].get()] = i;
  for (size_t i = 0; i < b.nodes.size(); ++i) index_b[b.nodes[i].get()] = i;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node &x = *a.nodes[i], &y = *b.nodes[i];
    *node = &y;
    if (x.type != y.type) return 3;
    std::vector<size_t> dx, dy;
    for (const Node* d : x.deps) dx.push_back(index_a.at(d));
    for (const Node* d : y.deps) dy.push_back(index_b.at(d));
    std::sort(dx.begin(), dx.end());
    std::sort(dy.begin(), dy.end());
    if (dx != dy) return 2;
    if (x.type == HKRT_GRAPH_NODE_KERNEL && x.kernel.desc != y.kernel.desc) return 4;
    // Memory nodes keep their allocations.
    if ((x.type == HKRT_GRAPH_NODE_MEM_ALLOC || x.type == HKRT_GRAPH_NODE_MEM_FREE) &&
        x.dst != y.dst)
      return 6;
    if (x.type == HKRT_GRAPH_NODE_GRAPH)
      if (int result = compare(*x.child, *y.child, node)) return result;
  }
  *node = nullptr;
  return 0;
}

// Gives `a` (an exec's) the parameters of `b`, which compares equal.
void update(Graph& a, const Graph& b, std::unordered_map<const Node*, Node*>* map) {
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    Node &x = *a.nodes[i], &y = *b.nodes[i];
    if (x.type == HKRT_GRAPH_NODE_GRAPH)
      update(*x.child, *y.child, map);
    else if (x.type != HKRT_GRAPH_NODE_MEM_ALLOC && x.type != HKRT_GRAPH_NODE_MEM_FREE)
      node_copy_params(x, y);
    if (map != nullptr) (*map)[&y] = &x;
  }
}

}  // namespace

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_graph_instantiate(hkrt_graph_exec** out, hkrt_graph* graph, unsigned long long flags) {
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "instantiate: NULL output");
  // hipGraphInstantiateFlagAutoFreeOnLaunch, Upload, UseNodePriority: nothing
  // to do on a CPU; DeviceLaunch: graphs are launched from the host only.
  if ((flags & ~0xbull) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "instantiate: unsupported flags 0x%llx", flags);
  {
    auto lock = graph_lock();
    if (graph == nullptr || !graph_valid_locked(graph))
      return fail(HKRT_ERROR_INVALID_VALUE, "%p is no graph", static_cast<void*>(graph));
  }
  std::unique_ptr<Exec> e(new Exec);
  e->graph = graph_clone(*static_cast<Graph*>(graph), &e->from_original);
  if (int error = flatten(e.get(), *e->graph, {}, &e->leaves)) return error;
  e->flags = flags;
  graph_allocs(*e->graph, &e->allocs);
  for (const Step& step : e->steps)
    if (step.node->type == HKRT_GRAPH_NODE_MEM_FREE) e->frees.push_back(step.node->dst);
  if (int error = allocs_claim(e->allocs, e.get())) return error;
  auto lock = graph_lock();
  execs.insert(e.get());
  *out = e.release();
  return HKRT_SUCCESS;
}

int hkrt_graph_exec_destroy(hkrt_graph_exec* exec) {
  if (int error = check_exec(exec)) return error;
  {
    auto lock = graph_lock();
    execs.erase(exec);
  }
  // Launches in flight run ops of their own; user objects' destructors run
  // after them.
  Exec* e = as_exec(exec);
  allocs_release(e->allocs, e);
  if (e->previous != nullptr && holds_objects(*e->graph))
    wait_and_unref(e->previous);
  else if (e->previous != nullptr)
    op_unref(e->previous);
  delete e;
  return HKRT_SUCCESS;
}

int hkrt_graph_upload(int index, hkrt_graph_exec* exec, hkrt_stream* handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = check_exec(exec)) return error;
  Stream* s = nullptr;
  return stream_get(device, handle, &s);
}

int hkrt_graph_launch(int index, hkrt_graph_exec* exec, hkrt_stream* handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = check_exec(exec)) return error;
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  device = stream_device(s);
  if (int error = sticky_check(device)) return error;
  if (int error = capture_admit(s, kCaptureEnqueue)) return error;
  Exec* e = as_exec(exec);
  if (capture_any() && capture_child(s, *e->graph)) return HKRT_SUCCESS;
  if (int error = allocs_launch(e->allocs, e->frees, e->flags & 1)) return error;

  const size_t n = e->steps.size();
  std::vector<Op*> ops(n), waits(n, nullptr);
  bool modules = false;
  for (size_t i = 0; i < n; ++i) {
    const Node* node = e->steps[i].node;
    ops[i] = make_op(node, device);
    modules |= ops[i]->kind == OpKind::Kernel && ops[i]->kernel.module != nullptr;
    if (node->type == HKRT_GRAPH_NODE_EVENT_RECORD) {
      if (Op* replaced = event_exchange(node->event, ops[i])) op_unref(replaced);
    } else if (node->type == HKRT_GRAPH_NODE_WAIT_EVENT) {
      waits[i] = event_exchange(node->event, nullptr);
    }
  }
  if (modules) {
    auto lock = registry_lock();
    for (Op* op : ops)
      if (op->kind == OpKind::Kernel && op->kernel.module != nullptr)
        module_launch_started(op->kernel.module);
  }
  if (uint32_t session = activity_session.load(std::memory_order_relaxed))
    for (Op* op : ops)
      if (op->kind != OpKind::Marker && op->kind != OpKind::Record)
        activity_enqueued(op, uint64_t(reinterpret_cast<uintptr_t>(handle)), session);

  // head: after the stream's earlier work and the exec's previous launch.
  auto* head = new Op;
  head->kind = OpKind::Marker;
  op_ref(head);
  Op* previous = nullptr;
  {
    auto lock = graph_lock();
    previous = e->previous;
    e->previous = nullptr;
  }
  enqueue(s, head, previous, false);
  if (previous != nullptr) op_unref(previous);
  auto* join = new Op;
  join->kind = OpKind::Marker;
  join->device = device;
  op_ref(join);
  ReadyList ready;
  uint64_t published = 0;
  {
    Lock lock = scheduler_lock();
    for (size_t i = 0; i < n; ++i) {
      ops[i]->device = device;
      if (e->steps[i].deps.empty()) add_dependency(ops[i], head);
      for (uint32_t d : e->steps[i].deps) add_dependency(ops[i], ops[d]);
      add_dependency(ops[i], waits[i]);
    }
    for (uint32_t leaf : e->leaves) add_dependency(join, ops[leaf]);
    add_dependency(join, head);
    // Only now, with every dependency counted, may any of them start.
    for (Op* op : ops) {
      if (op->pending != 0) continue;
      if (op->is_job)
        published |= publish_job_locked(op);
      else
        ready.push_back(op);
    }
    if (join->pending == 0) ready.push_back(join);
  }
  if (published != 0) wake_workers(published);
  run_ready(ready);
  op_unref(head);
  for (Op* w : waits)
    if (w != nullptr) op_unref(w);
  auto* tail = new Op;
  tail->kind = OpKind::Marker;
  op_ref(tail);
  Op* waited = enqueue(s, tail, join, config.launch_blocking);
  op_unref(join);
  {
    auto lock = graph_lock();
    std::swap(e->previous, tail);
  }
  if (tail != nullptr) op_unref(tail);
  if (waited == nullptr) return HKRT_SUCCESS;
  wait_and_unref(waited);
  return sticky_check(device);
}

int hkrt_graph_exec_update(hkrt_graph_exec* exec, hkrt_graph* graph,
                           hkrt_graph_node** error_node, int* result) {
  if (result == nullptr || error_node == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "exec update: NULL result or error node");
  *error_node = nullptr;
  *result = 1;  // hipGraphExecUpdateError
  if (int error = check_exec(exec)) return error;
  {
    auto lock = graph_lock();
    if (graph == nullptr || !graph_valid_locked(graph))
      return fail(HKRT_ERROR_INVALID_VALUE, "%p is no graph", static_cast<void*>(graph));
  }
  Exec* e = as_exec(exec);
  const Node* differs = nullptr;
  *result = compare(*e->graph, *static_cast<Graph*>(graph), &differs);
  if (*result != 0) {
    *error_node = const_cast<Node*>(differs);
    return fail(HKRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "exec update: the graph differs (result %d)",
                *result);
  }
  e->from_original.clear();
  update(*e->graph, *static_cast<Graph*>(graph), &e->from_original);
  return HKRT_SUCCESS;
}

int hkrt_graph_exec_set_params(hkrt_graph_exec* exec, hkrt_graph_node* node,
                               const hkrt_graph_node_params* params) {
  if (int error = check_exec(exec)) return error;
  if (node == nullptr || params == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "exec set params: NULL node or parameters");
  Exec* e = as_exec(exec);
  auto it = e->from_original.find(static_cast<Node*>(node));
  if (it == e->from_original.end())
    return fail(HKRT_ERROR_INVALID_VALUE, "exec set params: the node is not in the exec's graph");
  Node* target = it->second;
  if (params->type != target->type)
    return fail(HKRT_ERROR_INVALID_VALUE, "exec set params: the node is of type %d, not %d",
                target->type, params->type);
  if (target->type == HKRT_GRAPH_NODE_KERNEL && params->function != target->kernel.desc)
    return fail(HKRT_ERROR_INVALID_VALUE, "exec set params: a kernel node's function cannot change");
  if (target->type != HKRT_GRAPH_NODE_GRAPH) return node_set_params(target, params);
  {
    auto lock = graph_lock();
    if (params->graph == nullptr || !graph_valid_locked(params->graph))
      return fail(HKRT_ERROR_INVALID_VALUE, "%p is no graph", static_cast<void*>(params->graph));
  }
  const Graph& child = *static_cast<const Graph*>(params->graph);
  const Node* differs = nullptr;
  if (compare(*target->child, child, &differs) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "exec set params: the child graph's topology differs");
  update(*target->child, child, nullptr);
  return HKRT_SUCCESS;
}

int hkrt_graph_exec_node_enabled(hkrt_graph_exec* exec, hkrt_graph_node* node,
                                 unsigned int* enabled, int set) {
  if (int error = check_exec(exec)) return error;
  if (node == nullptr || enabled == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "node enabled: NULL node or value");
  Exec* e = as_exec(exec);
  auto it = e->from_original.find(static_cast<Node*>(node));
  if (it == e->from_original.end())
    return fail(HKRT_ERROR_INVALID_VALUE, "node enabled: the node is not in the exec's graph");
  Node* target = it->second;
  if (target->type != HKRT_GRAPH_NODE_KERNEL && target->type != HKRT_GRAPH_NODE_MEMCPY &&
      target->type != HKRT_GRAPH_NODE_MEMSET)
    return fail(HKRT_ERROR_INVALID_VALUE, "node enabled: only kernel, memcpy and memset nodes");
  if (set)
    target->enabled = *enabled != 0;
  else
    *enabled = target->enabled;
  return HKRT_SUCCESS;
}

int hkrt_graph_exec_get_flags(hkrt_graph_exec* exec, unsigned long long* flags) {
  if (int error = check_exec(exec)) return error;
  if (flags == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "exec flags: NULL output");
  *flags = as_exec(exec)->flags;
  return HKRT_SUCCESS;
}

}  // extern "C"
