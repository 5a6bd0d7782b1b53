// Graphs' memory: 3-D memcpy nodes, memory allocation and free nodes, and the
// memory kept for graphs (hipDeviceGetGraphMemAttribute, hipDeviceGraphMemTrim).
//
// As in CUDA, an allocation node's address is fixed when the node is made
// (by hipGraphAddMemAllocNode, or by hipMallocAsync while a stream captures)
// and stays the same in every launch of the graph's exec: the memory behind
// it is the graph's own while a node or an exec holds the allocation.  A
// launch allocates it; it is valid from the allocation node's work until a
// free node of it (in that graph or another), hipFreeAsync or hipFree frees
// it.  An exec whose allocation was not freed cannot be launched again
// (unless instantiated with hipGraphInstantiateFlagAutoFreeOnLaunch, whose
// launches free it first).  The memory of allocations no graph holds any more
// is kept for later ones until hkrt_graph_mem_trim.
#include <cstring>
#include <map>
#include <new>

#include "graph.h"
#include "internal_memory.h"

namespace hk {

struct GraphAlloc {
  void* ptr = nullptr;
  size_t bytes = 0, reserved = 0;
  Device* device = nullptr;
  int refs = 0;                 // AllocRefs
  const void* exec = nullptr;   // the exec that holds it, if one does
  bool outstanding = false;     // allocated by a launch, not freed since
};

namespace {

constexpr size_t kAllocAlignment = 256;

struct DeviceMemory {
  uint64_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
  std::multimap<size_t, void*> cached;  // memory no graph holds: size -> base
};

Mutex alloc_mutex;
std::unordered_map<uintptr_t, GraphAlloc*> allocs;  // live allocations by address
std::unordered_map<const Device*, DeviceMemory> memory;

// Frees `a` if nothing holds it (under alloc_mutex): its memory is cached.
void retire_locked(GraphAlloc* a) {
  if (a->refs > 0 || a->outstanding) return;
  allocs.erase(uintptr_t(a->ptr));
  memory[a->device].cached.emplace(a->reserved, a->ptr);
  delete a;
}

void free_locked(GraphAlloc* a) {
  if (!a->outstanding) return;
  a->outstanding = false;
  memory[a->device].used -= a->bytes;
  retire_locked(a);
}

// A 3-D copy's job: its rows, one by one (all memory is the host's).
void copy_rows(void* data) {
  const hkrt_graph_copy_3d& c = *static_cast<const hkrt_graph_copy_3d*>(data);
  auto* dst = static_cast<unsigned char*>(c.dst) +
              (c.dst_pos[2] * c.dst_rows + c.dst_pos[1]) * c.dst_pitch + c.dst_pos[0];
  auto* src = static_cast<const unsigned char*>(c.src) +
              (c.src_pos[2] * c.src_rows + c.src_pos[1]) * c.src_pitch + c.src_pos[0];
  for (size_t z = 0; z < c.extent[2]; ++z)
    for (size_t y = 0; y < c.extent[1]; ++y)
      memcpy(dst + (z * c.dst_rows + y) * c.dst_pitch, src + (z * c.src_rows + y) * c.src_pitch,
             c.extent[0]);
}

}  // namespace

AllocRef::AllocRef(GraphAlloc* alloc) : alloc_(alloc) {
  if (alloc_ == nullptr) return;
  Lock lock(alloc_mutex);
  ++alloc_->refs;
}

AllocRef& AllocRef::operator=(const AllocRef& other) {
  if (this != &other) {
    AllocRef copy(other);
    std::swap(alloc_, copy.alloc_);
  }
  return *this;
}

AllocRef::~AllocRef() {
  if (alloc_ == nullptr) return;
  Lock lock(alloc_mutex);
  --alloc_->refs;
  retire_locked(alloc_);
}

int copy3d_set(Node& to, const hkrt_graph_copy_3d& c) {
  if (c.dst == nullptr || c.src == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "memcpy node: a NULL pointer");
  if (c.extent[0] == 0 || c.extent[1] == 0 || c.extent[2] == 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "memcpy node: an empty extent");
  if (c.dst_pos[0] + c.extent[0] > c.dst_pitch || c.src_pos[0] + c.extent[0] > c.src_pitch)
    return fail(HKRT_ERROR_INVALID_VALUE, "memcpy node: rows wider than a side's pitch");
  const bool slices = c.extent[2] > 1 || c.dst_pos[2] > 0 || c.src_pos[2] > 0;
  if (slices && (c.dst_pos[1] + c.extent[1] > c.dst_rows || c.src_pos[1] + c.extent[1] > c.src_rows))
    return fail(HKRT_ERROR_INVALID_VALUE, "memcpy node: more rows than a side's slice holds");
  to.copy3d = c;
  to.copy3d.is_3d = 1;
  // Where the copy is one run of bytes, it is the 1-D copy of them.
  to.dst = static_cast<unsigned char*>(c.dst) +
           (c.dst_pos[2] * c.dst_rows + c.dst_pos[1]) * c.dst_pitch + c.dst_pos[0];
  to.src = static_cast<const unsigned char*>(c.src) +
           (c.src_pos[2] * c.src_rows + c.src_pos[1]) * c.src_pitch + c.src_pos[0];
  to.bytes = 0;
  const bool rows_packed = c.extent[1] == 1 ||
                           (c.dst_pitch == c.extent[0] && c.src_pitch == c.extent[0]);
  const bool slices_packed = c.extent[2] == 1 || (c.dst_rows == c.extent[1] && c.src_rows == c.extent[1]);
  if (rows_packed && slices_packed) to.bytes = c.extent[0] * c.extent[1] * c.extent[2];
  return HKRT_SUCCESS;
}

Op* copy3d_op(const Node& n) {
  if (!n.copy3d.is_3d || n.bytes != 0) return nullptr;
  auto* op = new Op;
  op->kind = OpKind::HostFunc;
  op->is_job = true;
  op->total = 1;
  op->staging.reset(new unsigned char[sizeof(hkrt_graph_copy_3d)]);
  new (op->staging.get()) hkrt_graph_copy_3d(n.copy3d);
  op->host_fn = copy_rows;
  op->host_data = op->staging.get();
  return op;
}

int alloc_node_set(Node& to, const hkrt_graph_node_params& p) {
  Device* device = nullptr;
  if (int error = device_get(p.device, &device)) return error;
  if (p.bytes == 0) return fail(HKRT_ERROR_INVALID_VALUE, "allocation node of 0 bytes");
  int devices = 0;
  hkrt_device_count(&devices);
  if (p.access_count > size_t(devices) || (p.access_count > 0 && p.access == nullptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "allocation node: %zu access descriptors",
                p.access_count);
  const int* access = static_cast<const int*>(p.access);
  for (size_t i = 0; i < p.access_count; ++i) {
    const int type = access[3 * i], id = access[3 * i + 1], flags = access[3 * i + 2];
    if (type != 1 || id < 0 || id >= devices || (flags != 0 && flags != 1 && flags != 3))
      return fail(HKRT_ERROR_INVALID_VALUE, "allocation node: access descriptor %zu is invalid", i);
  }
  if (p.bytes > SIZE_MAX - kAllocAlignment)  // rounding it up would wrap past zero
    return fail(HKRT_ERROR_OUT_OF_MEMORY, "allocation node of %zu bytes: more than any memory", p.bytes);
  const size_t reserved = (p.bytes + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
  void* ptr = nullptr;
  {
    Lock lock(alloc_mutex);
    auto& cached = memory[device].cached;
    auto it = cached.lower_bound(reserved);
    if (it != cached.end() && it->first <= 2 * reserved) {
      ptr = it->second;
      cached.erase(it);
    }
  }
  size_t backing = reserved;
  if (ptr == nullptr) {
    if (int error = allocate_pool_block(device, nullptr, reserved, &ptr)) return error;
    Lock lock(alloc_mutex);
    DeviceMemory& m = memory[device];
    m.reserved += reserved;
    m.reserved_high = std::max(m.reserved_high, m.reserved);
  } else {
    AllocationInfo info;
    if (allocation_find(ptr, &info)) backing = info.size;
  }
  auto* a = new GraphAlloc;
  a->ptr = ptr, a->bytes = p.bytes, a->reserved = backing, a->device = device;
  {
    Lock lock(alloc_mutex);
    allocs[uintptr_t(ptr)] = a;
  }
  to.alloc = AllocRef(a);
  to.device = p.device;
  to.dst = ptr;
  to.bytes = p.bytes;
  to.access.assign(access, access + 3 * p.access_count);
  return HKRT_SUCCESS;
}

int free_node_set(Node& to, void* ptr) {
  Lock lock(alloc_mutex);
  if (ptr == nullptr || allocs.count(uintptr_t(ptr)) == 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "free node: %p is no graph's allocation", ptr);
  to.dst = ptr;
  return HKRT_SUCCESS;
}

void graph_allocs(const Graph& graph, std::vector<GraphAlloc*>* out) {
  for (const auto& n : graph.nodes) {
    if (n->alloc.get() != nullptr) out->push_back(n->alloc.get());
    if (n->child != nullptr) graph_allocs(*n->child, out);
  }
}

int allocs_claim(const std::vector<GraphAlloc*>& list, const void* exec) {
  Lock lock(alloc_mutex);
  for (GraphAlloc* a : list)
    if (a->exec != nullptr)
      return fail(HKRT_ERROR_NOT_SUPPORTED,
                  "instantiate: the graph's allocation %p belongs to another exec (a graph "
                  "with memory nodes is instantiated once at a time)", a->ptr);
  for (GraphAlloc* a : list) a->exec = exec;
  return HKRT_SUCCESS;
}

void allocs_release(const std::vector<GraphAlloc*>& list, const void* exec) {
  Lock lock(alloc_mutex);
  for (GraphAlloc* a : list)
    if (a->exec == exec) a->exec = nullptr;
}

int allocs_launch(const std::vector<GraphAlloc*>& list, const std::vector<void*>& freed,
                  bool auto_free) {
  if (list.empty() && freed.empty()) return HKRT_SUCCESS;
  Lock lock(alloc_mutex);
  for (GraphAlloc* a : list)
    if (a->outstanding && !auto_free)
      return fail(HKRT_ERROR_INVALID_VALUE,
                  "graph launch: its allocation %p was not freed since the last launch", a->ptr);
  for (GraphAlloc* a : list) free_locked(a);
  for (GraphAlloc* a : list) {
    a->outstanding = true;
    DeviceMemory& m = memory[a->device];
    m.used += a->bytes;
    m.used_high = std::max(m.used_high, m.used);
  }
  for (void* p : freed) {
    auto it = allocs.find(uintptr_t(p));
    if (it != allocs.end()) free_locked(it->second);
  }
  return HKRT_SUCCESS;
}

bool graph_alloc_known(const void* ptr) {
  Lock lock(alloc_mutex);
  return allocs.count(uintptr_t(ptr)) != 0;
}

bool graph_alloc_free(void* ptr, int* error) {
  Lock lock(alloc_mutex);
  auto it = allocs.find(uintptr_t(ptr));
  if (it == allocs.end()) return false;
  *error = HKRT_SUCCESS;
  if (!it->second->outstanding)
    *error = fail(HKRT_ERROR_INVALID_VALUE, "%p: a graph's allocation that is not allocated", ptr);
  else
    free_locked(it->second);
  return true;
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_graph_mem_attribute(int index, int attr, unsigned long long* value, int set) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (value == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "graph memory attribute: NULL value");
  if (attr < 0 || attr > 3)
    return fail(HKRT_ERROR_INVALID_VALUE, "graph memory attribute: unknown attribute %d", attr);
  Lock lock(alloc_mutex);
  DeviceMemory& m = memory[device];
  uint64_t* fields[] = {&m.used, &m.used_high, &m.reserved, &m.reserved_high};
  if (set) {
    if (attr != 1 && attr != 3)
      return fail(HKRT_ERROR_INVALID_VALUE, "graph memory attribute %d cannot be set", attr);
    if (*value != 0)
      return fail(HKRT_ERROR_INVALID_VALUE, "a graph memory high-water mark can only be reset (to 0)");
    *fields[attr] = *fields[attr - 1];
  }
  *value = *fields[attr];
  return HKRT_SUCCESS;
}

int hkrt_graph_mem_trim(int index) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  std::multimap<size_t, void*> cached;
  {
    Lock lock(alloc_mutex);
    DeviceMemory& m = memory[device];
    cached.swap(m.cached);
    for (const auto& block : cached) m.reserved -= block.first;
  }
  for (const auto& block : cached) release_pool_block(block.second);
  return HKRT_SUCCESS;
}

}  // extern "C"
