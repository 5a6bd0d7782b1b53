// Graphs and their nodes: hipGraphCreate, hipGraphAdd*Node, the nodes'
// parameters, dependencies, clones.  As in HIP, a graph is not thread-safe
// (a program does not edit one graph from two threads at once); the lock
// guards what is shared: which graphs live, and captures.
#include <cstdio>

#include "graph.h"

namespace hk {

namespace {

Mutex graph_mutex;
std::unordered_set<const hkrt_graph*> graphs;  // the live ones, captures' included

Graph* as_graph(hkrt_graph* g) { return static_cast<Graph*>(g); }
Node* as_node(hkrt_graph_node* n) { return static_cast<Node*>(n); }

int check_graph(hkrt_graph* graph) {
  auto lock = graph_lock();
  if (graph == nullptr || !graph_valid_locked(graph))
    return fail(HKRT_ERROR_INVALID_VALUE, "%p is no graph", static_cast<void*>(graph));
  return HKRT_SUCCESS;
}

int check_node(hkrt_graph_node* node) {
  if (node == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "NULL graph node");
  return check_graph(as_node(node)->graph);
}

// Writes `items` as HIP's list calls do (runtime_graph.h).
template <class T>
int write_list(const std::vector<T*>& items, hkrt_graph_node** out, size_t* count) {
  if (count == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "NULL count");
  if (out == nullptr) {
    *count = items.size();
    return HKRT_SUCCESS;
  }
  size_t n = std::min(*count, items.size());
  for (size_t i = 0; i < *count; ++i) out[i] = i < n ? items[i] : nullptr;
  *count = n;
  return HKRT_SUCCESS;
}

void unlink(std::vector<Node*>& list, const Node* node) {
  list.erase(std::remove(list.begin(), list.end(), node), list.end());
}

bool has_free(const Graph& graph) {
  for (const auto& n : graph.nodes)
    if (n->type == HKRT_GRAPH_NODE_MEM_FREE || (n->child != nullptr && has_free(*n->child)))
      return true;
  return false;
}

int check_kind(int kind) {
  if (kind < HKRT_MEMCPY_HOST_TO_HOST || kind > HKRT_MEMCPY_DEFAULT)
    return fail(HKRT_ERROR_INVALID_MEMCPY_DIRECTION, "invalid memcpy kind %d", kind);
  return HKRT_SUCCESS;
}

}  // namespace

Lock graph_lock() { return Lock(graph_mutex); }
bool graph_valid_locked(const hkrt_graph* graph) { return graphs.count(graph) != 0; }
void graph_register_locked(Graph* graph) { graphs.insert(graph); }

Node* node_add(Graph* graph, const std::vector<Node*>& deps) {
  graph->nodes.emplace_back(new Node);
  Node* n = graph->nodes.back().get();
  n->graph = graph;
  n->deps = deps;
  for (Node* d : deps) d->dependents.push_back(n);
  return n;
}

void node_copy_params(Node& to, const Node& from) {
  to.type = from.type;
  to.device = from.device;
  copy_launch(to.kernel, from.kernel);
  to.dst = from.dst;
  to.src = from.src;
  to.bytes = from.bytes;
  to.copy_kind = from.copy_kind;
  to.value = from.value;
  to.elem_size = from.elem_size;
  to.width = from.width;
  to.height = from.height;
  to.pitch = from.pitch;
  to.copy3d = from.copy3d;
  to.attrs = from.attrs;
  to.alloc = from.alloc;
  to.access = from.access;
  to.host_fn = from.host_fn;
  to.host_data = from.host_data;
  to.event = from.event;
  to.child = from.child != nullptr ? graph_clone(*from.child, nullptr) : nullptr;
}

std::unique_ptr<Graph> graph_clone(const Graph& graph,
                                   std::unordered_map<const Node*, Node*>* map) {
  std::unique_ptr<Graph> copy(new Graph);
  std::unordered_map<const Node*, Node*> local;
  for (const auto& n : graph.nodes) {
    Node* c = node_add(copy.get(), {});
    node_copy_params(*c, *n);
    if (n->child != nullptr && map != nullptr) c->child = graph_clone(*n->child, map);
    local[n.get()] = c;
  }
  objects_copy(copy->objects, graph);
  // The edges in their order (a dependency may have been added after its node).
  for (const auto& n : graph.nodes) {
    Node* c = local.at(n.get());
    for (const Node* d : n->deps) c->deps.push_back(local.at(d));
    for (const Node* d : n->dependents) c->dependents.push_back(local.at(d));
  }
  if (map != nullptr) map->insert(local.begin(), local.end());
  return copy;
}


// Whether `child` may be a child of `parent`: not if it has memory nodes (as CUDA,
// hipErrorNotSupported), nor if it is the parent itself.
int child_check(const hkrt_graph* parent, hkrt_graph* child) {
  std::vector<GraphAlloc*> allocs;
  graph_allocs(*as_graph(child), &allocs);
  if (!allocs.empty() || has_free(*as_graph(child)))
    return fail(HKRT_ERROR_NOT_SUPPORTED, "a graph with memory nodes cannot be a child graph");
  if (child == parent) return fail(HKRT_ERROR_INVALID_VALUE, "a graph cannot be its own child");
  return HKRT_SUCCESS;
}

int node_set_params(Node* node, const hkrt_graph_node_params* p) {
  if (p == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "NULL node parameters");
  Node n;  // checked here, then moved into `node`
  n.type = p->type;
  switch (p->type) {
    case HKRT_GRAPH_NODE_KERNEL: {
      if (p->function == nullptr) return fail(HKRT_ERROR_INVALID_DEVICE_FUNCTION, "kernel node: NULL function");
      Device* device = nullptr;
      if (int error = device_get(p->device, &device)) return error;
      n.device = p->device;
      n.kernel.desc = p->function;
      n.kernel.grid = {p->grid[0], p->grid[1], p->grid[2]};
      n.kernel.block = {p->block[0], p->block[1], p->block[2]};
      n.kernel.dynamic_shared_bytes = p->shared_bytes;
      if (p->function->num_params > 0 && p->args == nullptr)
        return fail(HKRT_ERROR_INVALID_VALUE, "kernel node of %s: NULL arguments", p->function->name);
      if (int error = prepare_launch(n.kernel, device, nullptr, 0, p->args)) return error;
      break;
    }
    case HKRT_GRAPH_NODE_MEMCPY:
      if (int error = check_kind(p->kind)) return error;
      if (p->copy3d.is_3d) {
        n.copy_kind = p->kind;
        if (int error = copy3d_set(n, p->copy3d)) return error;
        break;
      }
      if (p->bytes > 0 && (p->dst == nullptr || p->src == nullptr))
        return fail(HKRT_ERROR_INVALID_VALUE, "memcpy node of %zu bytes with a NULL pointer", p->bytes);
      n.dst = p->dst, n.src = p->src, n.bytes = p->bytes, n.copy_kind = p->kind;
      break;
    case HKRT_GRAPH_NODE_MEMSET:
      if (p->elem_size != 1 && p->elem_size != 2 && p->elem_size != 4)
        return fail(HKRT_ERROR_INVALID_VALUE, "memset node: element size %u", p->elem_size);
      if (p->dst == nullptr || p->width == 0 || p->height == 0)
        return fail(HKRT_ERROR_INVALID_VALUE, "memset node: NULL destination or empty extent");
      if (p->height > 1 && p->pitch < p->width * p->elem_size)
        return fail(HKRT_ERROR_INVALID_VALUE, "memset node: pitch %zu below its row", p->pitch);
      n.dst = p->dst, n.value = p->value, n.elem_size = p->elem_size;
      n.width = p->width, n.height = p->height;
      n.pitch = p->height > 1 ? p->pitch : p->width * p->elem_size;
      if (p->elem_size < 4) n.value &= (1u << (8 * p->elem_size)) - 1;
      break;
    case HKRT_GRAPH_NODE_HOST:
      if (p->fn == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "host node: NULL function");
      n.host_fn = p->fn, n.host_data = p->data;
      break;
    case HKRT_GRAPH_NODE_EVENT_RECORD:
    case HKRT_GRAPH_NODE_WAIT_EVENT:
      if (p->event == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "event node: NULL event");
      if (int error = event_check(p->event)) return error;
      n.event = p->event;
      break;
    case HKRT_GRAPH_NODE_GRAPH:
      if (int error = check_graph(p->graph)) return error;
      if (int error = child_check(node->graph, p->graph)) return error;
      n.child = graph_clone(*as_graph(p->graph), nullptr);
      break;
    case HKRT_GRAPH_NODE_MEM_ALLOC:
      if (node->type == HKRT_GRAPH_NODE_MEM_ALLOC)  // made once, by add
        return fail(HKRT_ERROR_INVALID_VALUE, "an allocation node's parameters cannot change");
      if (int error = alloc_node_set(n, *p)) return error;
      break;
    case HKRT_GRAPH_NODE_MEM_FREE:
      if (node->type == HKRT_GRAPH_NODE_MEM_FREE)
        return fail(HKRT_ERROR_INVALID_VALUE, "a free node's parameters cannot change");
      if (int error = free_node_set(n, p->dst)) return error;
      break;
    case HKRT_GRAPH_NODE_EMPTY:
      break;
    default:
      return fail(HKRT_ERROR_INVALID_VALUE, "unsupported graph node type %d", p->type);
  }
  n.attrs = node->attrs;
  node_copy_params(*node, n);
  return HKRT_SUCCESS;
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_graph_create(hkrt_graph** out, unsigned int flags) {
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "graph create: NULL output");
  if (flags != 0) return fail(HKRT_ERROR_INVALID_VALUE, "graph create: flags must be 0");
  auto* graph = new Graph;
  auto lock = graph_lock();
  graphs.insert(graph);
  *out = graph;
  return HKRT_SUCCESS;
}

int hkrt_graph_destroy(hkrt_graph* graph) {
  if (int error = check_graph(graph)) return error;
  {
    auto lock = graph_lock();
    graphs.erase(graph);
  }
  delete as_graph(graph);
  return HKRT_SUCCESS;
}

int hkrt_graph_clone(hkrt_graph** out, hkrt_graph* graph) {
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "graph clone: NULL output");
  if (int error = check_graph(graph)) return error;
  // As CUDA's cudaGraphClone: an allocation belongs to one graph.
  for (const auto& n : as_graph(graph)->nodes)
    if (n->type == HKRT_GRAPH_NODE_MEM_ALLOC || n->type == HKRT_GRAPH_NODE_MEM_FREE)
      return fail(HKRT_ERROR_NOT_SUPPORTED, "graph clone: a graph with memory nodes cannot be cloned");
  Graph* copy = graph_clone(*as_graph(graph), nullptr).release();
  auto lock = graph_lock();
  graphs.insert(copy);
  *out = copy;
  return HKRT_SUCCESS;
}

int hkrt_graph_node_find_in_clone(hkrt_graph_node** out, hkrt_graph_node* original,
                                  hkrt_graph* clone) {
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "find in clone: NULL output");
  if (int error = check_node(original)) return error;
  if (int error = check_graph(clone)) return error;
  // A clone has its original's nodes in the same order.
  const Graph* from = as_node(original)->graph;
  const Graph* to = as_graph(clone);
  for (size_t i = 0; i < from->nodes.size() && i < to->nodes.size(); ++i) {
    if (from->nodes[i].get() != original) continue;
    if (from->nodes.size() != to->nodes.size() || to->nodes[i]->type != from->nodes[i]->type) break;
    *out = to->nodes[i].get();
    return HKRT_SUCCESS;
  }
  return fail(HKRT_ERROR_INVALID_VALUE, "the node's graph was not cloned into that graph");
}

int hkrt_graph_add_node(hkrt_graph_node** out, hkrt_graph* graph,
                        hkrt_graph_node* const* dependencies, size_t count,
                        const hkrt_graph_node_params* params) {
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "add node: NULL output");
  if (int error = check_graph(graph)) return error;
  if (count > 0 && dependencies == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "add node: NULL dependencies");
  std::vector<Node*> deps;
  for (size_t i = 0; i < count; ++i) {
    Node* d = as_node(dependencies[i]);
    if (d == nullptr || d->graph != graph)
      return fail(HKRT_ERROR_INVALID_VALUE, "add node: dependency %zu is not in the graph", i);
    if (std::find(deps.begin(), deps.end(), d) != deps.end())
      return fail(HKRT_ERROR_INVALID_VALUE, "add node: dependency %zu is repeated", i);
    deps.push_back(d);
  }
  if (params != nullptr && params->type == HKRT_GRAPH_NODE_GRAPH && check_graph(params->graph) == 0)
    if (int error = child_check(graph, params->graph)) return error;
  Node scratch;
  scratch.type = -1;  // a new node
  if (int error = node_set_params(&scratch, params)) return error;
  Node* n = node_add(as_graph(graph), deps);
  node_copy_params(*n, scratch);
  *out = n;
  return HKRT_SUCCESS;
}

int hkrt_graph_node_get_params(hkrt_graph_node* node, hkrt_graph_node_params* out) {
  if (int error = check_node(node)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "node parameters: NULL output");
  const Node* n = as_node(node);
  *out = hkrt_graph_node_params{};
  out->type = n->type;
  out->device = n->device;
  out->function = n->kernel.desc;
  out->grid[0] = n->kernel.grid.x, out->grid[1] = n->kernel.grid.y, out->grid[2] = n->kernel.grid.z;
  out->block[0] = n->kernel.block.x, out->block[1] = n->kernel.block.y;
  out->block[2] = n->kernel.block.z;
  out->shared_bytes = n->kernel.dynamic_shared_bytes;
  out->args = n->kernel.args;
  out->dst = n->dst, out->src = n->src, out->bytes = n->bytes, out->kind = n->copy_kind;
  out->value = n->value, out->elem_size = n->elem_size;
  out->width = n->width, out->height = n->height, out->pitch = n->pitch;
  out->fn = n->host_fn, out->data = n->host_data;
  out->event = n->event;
  out->graph = n->child.get();
  out->copy3d = n->copy3d;
  out->access = n->access.data();
  out->access_count = n->access.size() / 3;
  return HKRT_SUCCESS;
}

int hkrt_graph_node_set_params(hkrt_graph_node* node, const hkrt_graph_node_params* params) {
  if (int error = check_node(node)) return error;
  if (params != nullptr && params->type != as_node(node)->type)
    return fail(HKRT_ERROR_INVALID_VALUE, "set params: the node is of type %d, not %d",
                as_node(node)->type, params->type);
  return node_set_params(as_node(node), params);
}

int hkrt_graph_kernel_node_attrs(hkrt_graph_node* node, hkrt_kernel_node_attrs* attrs, int set) {
  if (int error = check_node(node)) return error;
  if (attrs == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "kernel node attributes: NULL value");
  Node* n = as_node(node);
  if (n->type != HKRT_GRAPH_NODE_KERNEL)
    return fail(HKRT_ERROR_INVALID_VALUE, "kernel node attributes of a node of type %d", n->type);
  if (set)
    n->attrs = *attrs;
  else
    *attrs = n->attrs;
  return HKRT_SUCCESS;
}

int hkrt_graph_destroy_node(hkrt_graph_node* node) {
  if (int error = check_node(node)) return error;
  Node* n = as_node(node);
  for (Node* d : n->deps) unlink(d->dependents, n);
  for (Node* d : n->dependents) unlink(d->deps, n);
  auto& nodes = n->graph->nodes;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].get() == n) nodes.erase(nodes.begin() + long(i));
  return HKRT_SUCCESS;
}

int hkrt_graph_get_nodes(hkrt_graph* graph, hkrt_graph_node** out, size_t* count) {
  if (int error = check_graph(graph)) return error;
  std::vector<Node*> nodes;
  for (const auto& n : as_graph(graph)->nodes) nodes.push_back(n.get());
  return write_list(nodes, out, count);
}

int hkrt_graph_get_root_nodes(hkrt_graph* graph, hkrt_graph_node** out, size_t* count) {
  if (int error = check_graph(graph)) return error;
  std::vector<Node*> roots;
  for (const auto& n : as_graph(graph)->nodes)
    if (n->deps.empty()) roots.push_back(n.get());
  return write_list(roots, out, count);
}

int hkrt_graph_get_edges(hkrt_graph* graph, hkrt_graph_node** from, hkrt_graph_node** to,
                         size_t* count) {
  if (int error = check_graph(graph)) return error;
  if (count == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "graph edges: NULL count");
  if ((from == nullptr) != (to == nullptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "graph edges: one of from and to is NULL");
  std::vector<Node*> sources, targets;
  for (const auto& n : as_graph(graph)->nodes)
    for (Node* d : n->dependents) sources.push_back(n.get()), targets.push_back(d);
  size_t asked = *count;
  if (int error = write_list(sources, from, count)) return error;
  return write_list(targets, to, &asked);
}

int hkrt_graph_node_get_edges(hkrt_graph_node* node, int dependents, hkrt_graph_node** out,
                              size_t* count) {
  if (int error = check_node(node)) return error;
  return write_list(dependents ? as_node(node)->dependents : as_node(node)->deps, out, count);
}

int hkrt_graph_edit_dependencies(hkrt_graph* graph, hkrt_graph_node* const* from,
                                 hkrt_graph_node* const* to, size_t count, int remove) {
  if (int error = check_graph(graph)) return error;
  if (count > 0 && (from == nullptr || to == nullptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "dependencies: NULL node arrays");
  for (size_t i = 0; i < count; ++i) {
    Node *a = as_node(from[i]), *b = as_node(to[i]);
    if (a == nullptr || b == nullptr || a->graph != graph || b->graph != graph || a == b)
      return fail(HKRT_ERROR_INVALID_VALUE, "dependency %zu: nodes not in the graph, or the same", i);
    bool present = std::find(b->deps.begin(), b->deps.end(), a) != b->deps.end();
    if (present != bool(remove))
      return fail(HKRT_ERROR_INVALID_VALUE, remove ? "dependency %zu does not exist"
                                                   : "dependency %zu exists already", i);
    if (remove) {
      unlink(b->deps, a);
      unlink(a->dependents, b);
    } else {
      b->deps.push_back(a);
      a->dependents.push_back(b);
    }
  }
  return HKRT_SUCCESS;
}

int hkrt_graph_dot_print(hkrt_graph* graph, const char* path, unsigned int) {
  if (int error = check_graph(graph)) return error;
  if (path == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "dot print: NULL path");
  FILE* file = fopen(path, "w");
  if (file == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "dot print: cannot write %s", path);
  static const char* const kTypes[] = {"kernel", "memcpy", "memset", "host",
                                       "graph",  "empty",  "wait event", "event record",
                                       "", "", "mem alloc", "mem free"};
  fprintf(file, "digraph hipGraph {\n");
  const Graph* g = as_graph(graph);
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node* n = g->nodes[i].get();
    const char* name = n->type == HKRT_GRAPH_NODE_KERNEL ? n->kernel.desc->name : "";
    fprintf(file, "  n%p [label=\"%zu: %s %s\"];\n", static_cast<const void*>(n), i,
            kTypes[n->type], name);
    for (const Node* d : n->deps)
      fprintf(file, "  n%p -> n%p;\n", static_cast<const void*>(d), static_cast<const void*>(n));
  }
  fprintf(file, "}\n");
  fclose(file);
  return HKRT_SUCCESS;
}

}  // extern "C"
