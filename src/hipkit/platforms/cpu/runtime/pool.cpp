// Stream-ordered allocation and memory pools (hipMallocAsync, hipMemPool*).
//
// A pool keeps the blocks it allocated (memory.cpp's device memory, tagged
// with the pool).  hkrt_free_async enqueues a marker op on its stream and
// puts the block back in the pool, free from that point of the stream's
// order on.  An allocation on stream T may take a free block when:
//   - T's next op is ordered after the free: the same stream, the legacy null
//     stream's ordering, or events waited on (if the pool follows event
//     dependencies; stream.cpp's stream_ordered_after);
//   - the free's marker has run: no pending work may use the block (if the
//     pool allows opportunistic reuse);
//   - otherwise the runtime makes T wait for the marker (if the pool allows
//     internal dependencies).
// So a block is never handed out while work that may still use it is
// pending on a stream not ordered before its new owner, and blocks are
// released (trim, a synchronizing call above the release threshold, the
// pool's destruction) only once their markers have run.
#include <map>
#include <unordered_set>

#include "graph.h"
#include "internal.h"

struct hkrt_mem_pool {};

namespace hk {

namespace {

constexpr size_t kBlockAlignment = 256;  // memory.cpp's alignment

struct Block {
  size_t size = 0;  // its capacity (rounded up)
  bool in_use = false;
  // A free block: where its free lies in stream order, and the free's
  // marker op (null: freed synchronously, no work may use it).
  StreamPoint freed_at;
  Op* marker = nullptr;
};

}  // namespace

struct MemPool : hkrt_mem_pool {
  Device* device = nullptr;
  size_t max_size = 0;  // 0: no limit but the device's memory
  bool destroyed = false;
  bool follow_events = true, opportunistic = true, internal_dependencies = true;
  uint64_t release_threshold = 0;
  uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
  std::map<uintptr_t, Block> blocks;
  uint8_t access[kMaxDevices] = {};  // other devices' access flags
};

namespace {

std::mutex pools_mutex;  // taken before the scheduler lock, never after
// Every pool, destroyed ones too while they still have blocks.
std::unordered_set<MemPool*> pools;
std::vector<MemPool*> default_pools, current_pools;  // per device, made on first use

bool marker_done(const Block& block) {
  return block.marker == nullptr || block.marker->done.load(std::memory_order_acquire);
}

// Releases the free block at `it` (its marker has run); under pools_mutex.
std::map<uintptr_t, Block>::iterator release_locked(MemPool* pool,
                                                    std::map<uintptr_t, Block>::iterator it) {
  if (it->second.marker != nullptr) op_unref(it->second.marker);
  pool->reserved -= it->second.size;
  release_pool_block(reinterpret_cast<void*>(it->first));
  return pool->blocks.erase(it);
}

// Releases free blocks whose frees have run until at most `keep` bytes are
// reserved; a destroyed pool with no blocks left is deleted.  Under pools_mutex.
void trim_locked(MemPool* pool, uint64_t keep) {
  for (auto it = pool->blocks.begin(); it != pool->blocks.end() && pool->reserved > keep;) {
    if (!it->second.in_use && marker_done(it->second))
      it = release_locked(pool, it);
    else
      ++it;
  }
  if (pool->destroyed && pool->blocks.empty()) {
    pools.erase(pool);
    delete pool;
  }
}

int pool_get_locked(hkrt_mem_pool* handle, MemPool** out) {
  auto* pool = static_cast<MemPool*>(handle);
  if (handle == nullptr || pools.count(pool) == 0 || pool->destroyed)
    return fail(HKRT_ERROR_INVALID_VALUE, "%p is no live memory pool", static_cast<void*>(handle));
  *out = pool;
  return HKRT_SUCCESS;
}

// The device's default pool, made on first use (under pools_mutex).
MemPool* default_pool_locked(Device* device) {
  if (default_pools.empty()) {
    default_pools.assign(config.num_devices, nullptr);
    current_pools.assign(config.num_devices, nullptr);
  }
  MemPool*& pool = default_pools[device->index];
  if (pool == nullptr) {
    pool = new MemPool;
    pool->device = device;
    pools.insert(pool);
  }
  if (current_pools[device->index] == nullptr) current_pools[device->index] = pool;
  return pool;
}

// A free block of at least `size` bytes that `stream` may take: without an
// internal dependency first; then, if the pool allows it, one that needs it
// (*marker is then the op to wait for).  Under pools_mutex.
uintptr_t find_free_locked(MemPool* pool, Stream* stream, size_t size, Op** marker) {
  const StreamPoint here = stream_point(stream);
  uintptr_t waiting = 0;
  size_t best = SIZE_MAX, best_waiting = SIZE_MAX;
  uintptr_t found = 0;
  for (auto& [base, block] : pool->blocks) {
    // No more than twice the size asked for, so that a small allocation
    // does not hold a large block.
    if (block.in_use || block.size < size || block.size / 2 > size) continue;
    // Freed synchronously, or on this stream, or before an event it waited on.
    const bool ordered = block.marker == nullptr || block.freed_at.stream_id == here.stream_id ||
                         (pool->follow_events && stream_ordered_after(stream, block.freed_at));
    if (ordered || (pool->opportunistic && marker_done(block))) {
      if (block.size < best) best = block.size, found = base;
    } else if (pool->internal_dependencies && block.size < best_waiting) {
      best_waiting = block.size, waiting = base;
    }
  }
  if (found != 0) return found;
  if (waiting != 0) *marker = pool->blocks[waiting].marker;
  return waiting;
}

void count_use(MemPool* pool, Block& block) {
  block.in_use = true;
  pool->used += block.size;
  pool->used_high = std::max(pool->used_high, pool->used);
}

// Marks a block free from `point` on (marker: its free's op, referenced),
// under pools_mutex.
void put_back_locked(MemPool* pool, uintptr_t base, StreamPoint point, Op* marker) {
  Block& block = pool->blocks[base];
  block.in_use = false;
  block.freed_at = point;
  block.marker = marker;
  pool->used -= block.size;
  if (pool->destroyed) trim_locked(pool, 0);
}

// The pool block at `ptr`, in use (else hipErrorInvalidValue).
int find_block(void* ptr, MemPool** out) {
  AllocationInfo info{};
  if (!allocation_find(ptr, &info) || info.pool == nullptr || info.base != uintptr_t(ptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "%p was not allocated by hipMallocAsync", ptr);
  std::lock_guard<std::mutex> lock(pools_mutex);
  auto it = info.pool->blocks.find(uintptr_t(ptr));
  if (it == info.pool->blocks.end() || !it->second.in_use)
    return fail(HKRT_ERROR_INVALID_VALUE, "%p was freed twice", ptr);
  *out = info.pool;
  return HKRT_SUCCESS;
}

}  // namespace

int pool_free_sync(MemPool* pool, void* ptr) {
  MemPool* found = nullptr;
  if (int error = find_block(ptr, &found)) return error;
  drain_every_device();
  std::lock_guard<std::mutex> lock(pools_mutex);
  auto it = pool->blocks.find(uintptr_t(ptr));
  if (it == pool->blocks.end() || !it->second.in_use)
    return fail(HKRT_ERROR_INVALID_VALUE, "%p was freed twice", ptr);
  put_back_locked(pool, uintptr_t(ptr), StreamPoint{}, nullptr);
  return HKRT_SUCCESS;
}

void pools_trim_on_sync() {
  std::lock_guard<std::mutex> lock(pools_mutex);
  const std::vector<MemPool*> all(pools.begin(), pools.end());  // trimming may delete some
  for (MemPool* pool : all)
    if (pool->reserved > pool->release_threshold) trim_locked(pool, pool->release_threshold);
}

void pools_forget(Device* device) {
  std::lock_guard<std::mutex> lock(pools_mutex);
  for (auto it = pools.begin(); it != pools.end();) {
    MemPool* pool = *it;
    if (pool->device != device) {
      ++it;
      continue;
    }
    // The device's queues are empty: every marker has run.
    for (auto b = pool->blocks.begin(); b != pool->blocks.end();) b = release_locked(pool, b);
    it = pools.erase(it);
    delete pool;
  }
  if (!default_pools.empty()) default_pools[device->index] = current_pools[device->index] = nullptr;
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_mem_pool_create(int index, size_t max_size, hkrt_mem_pool** out) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "pool create: NULL output");
  auto* pool = new MemPool;
  pool->device = device;
  pool->max_size = max_size;
  std::lock_guard<std::mutex> lock(pools_mutex);
  pools.insert(pool);
  *out = pool;
  return HKRT_SUCCESS;
}

int hkrt_mem_pool_destroy(hkrt_mem_pool* handle) {
  if (int error = ensure_init()) return error;
  std::lock_guard<std::mutex> lock(pools_mutex);
  MemPool* pool = nullptr;
  if (int error = pool_get_locked(handle, &pool)) return error;
  const int owner = pool->device->index;
  if (default_pool_locked(pool->device) == pool)
    return fail(HKRT_ERROR_INVALID_VALUE, "a device's default memory pool cannot be destroyed");
  if (current_pools[owner] == pool) current_pools[owner] = default_pools[owner];
  // Blocks in use are released when freed, free ones once their frees ran.
  pool->destroyed = true;
  std::vector<Op*> pending;
  for (auto& [base, block] : pool->blocks)
    if (!block.in_use && !marker_done(block)) {
      op_ref(block.marker);
      pending.push_back(block.marker);
    }
  for (Op* op : pending) wait_and_unref(op);
  trim_locked(pool, 0);
  return HKRT_SUCCESS;
}

int hkrt_mem_pool_default(int index, hkrt_mem_pool** out) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "default pool: NULL output");
  std::lock_guard<std::mutex> lock(pools_mutex);
  *out = default_pool_locked(device);
  return HKRT_SUCCESS;
}

int hkrt_mem_pool_set_current(int index, hkrt_mem_pool* handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  std::lock_guard<std::mutex> lock(pools_mutex);
  MemPool* pool = nullptr;
  if (int error = pool_get_locked(handle, &pool)) return error;
  if (pool->device != device)
    return fail(HKRT_ERROR_INVALID_VALUE, "the pool is CPU device %d's, not device %d's",
                pool->device->index, device->index);
  default_pool_locked(device);
  current_pools[device->index] = pool;
  return HKRT_SUCCESS;
}

int hkrt_mem_pool_get_current(int index, hkrt_mem_pool** out) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "current pool: NULL output");
  std::lock_guard<std::mutex> lock(pools_mutex);
  default_pool_locked(device);
  *out = current_pools[device->index];
  return HKRT_SUCCESS;
}

int hkrt_mem_pool_get_device(hkrt_mem_pool* handle, int* out) {
  if (int error = ensure_init()) return error;
  std::lock_guard<std::mutex> lock(pools_mutex);
  MemPool* pool = nullptr;
  if (int error = pool_get_locked(handle, &pool)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "pool device: NULL output");
  *out = pool->device->index;
  return HKRT_SUCCESS;
}

int hkrt_mem_pool_attribute(hkrt_mem_pool* handle, int attribute, uint64_t* value, int set) {
  if (int error = ensure_init()) return error;
  std::lock_guard<std::mutex> lock(pools_mutex);
  MemPool* pool = nullptr;
  if (int error = pool_get_locked(handle, &pool)) return error;
  if (value == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "pool attribute: NULL value");
  auto flag = [&](bool& field) -> int {
    if (set) field = *value != 0;
    *value = field;
    return HKRT_SUCCESS;
  };
  auto high = [&](uint64_t& field, uint64_t current) -> int {
    if (set && *value != 0)
      return fail(HKRT_ERROR_INVALID_VALUE, "a pool's high-water mark can only be reset (to 0)");
    if (set) field = current;
    *value = field;
    return HKRT_SUCCESS;
  };
  switch (attribute) {
    case HKRT_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES: return flag(pool->follow_events);
    case HKRT_POOL_REUSE_ALLOW_OPPORTUNISTIC: return flag(pool->opportunistic);
    case HKRT_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES: return flag(pool->internal_dependencies);
    case HKRT_POOL_RELEASE_THRESHOLD:
      if (set) pool->release_threshold = *value;
      *value = pool->release_threshold;
      return HKRT_SUCCESS;
    case HKRT_POOL_RESERVED_MEM_HIGH: return high(pool->reserved_high, pool->reserved);
    case HKRT_POOL_USED_MEM_HIGH: return high(pool->used_high, pool->used);
    case HKRT_POOL_RESERVED_MEM_CURRENT:
    case HKRT_POOL_USED_MEM_CURRENT:
      if (set) return fail(HKRT_ERROR_INVALID_VALUE, "pool attribute %d is read-only", attribute);
      *value = attribute == HKRT_POOL_USED_MEM_CURRENT ? pool->used : pool->reserved;
      return HKRT_SUCCESS;
    default: return fail(HKRT_ERROR_INVALID_VALUE, "unknown memory pool attribute %d", attribute);
  }
}

int hkrt_mem_pool_trim(hkrt_mem_pool* handle, size_t keep) {
  if (int error = ensure_init()) return error;
  std::lock_guard<std::mutex> lock(pools_mutex);
  MemPool* pool = nullptr;
  if (int error = pool_get_locked(handle, &pool)) return error;
  trim_locked(pool, keep);
  return HKRT_SUCCESS;
}

int hkrt_mem_pool_access(hkrt_mem_pool* handle, int index, int* flags, int set) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  std::lock_guard<std::mutex> lock(pools_mutex);
  MemPool* pool = nullptr;
  if (int error = pool_get_locked(handle, &pool)) return error;
  if (flags == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "pool access: NULL flags");
  const bool own = device == pool->device;
  if (!set) {
    *flags = own ? 3 : pool->access[index];
    return HKRT_SUCCESS;
  }
  if (*flags != 0 && *flags != 1 && *flags != 3)
    return fail(HKRT_ERROR_INVALID_VALUE, "unknown access flags %d", *flags);
  if (own && *flags != 3)
    return fail(HKRT_ERROR_INVALID_VALUE, "a pool's own device keeps read-write access");
  if (!own) pool->access[index] = uint8_t(*flags);
  return HKRT_SUCCESS;
}

int hkrt_malloc_async(int index, hkrt_mem_pool* handle, void** ptr, size_t size,
                      hkrt_stream* stream_handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (ptr == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "malloc async: NULL output pointer");
  Stream* stream = nullptr;
  if (int error = stream_get(device, stream_handle, &stream)) return error;
  if (int error = capture_admit(stream, kCaptureEnqueue)) return error;
  if (int error = sticky_check(stream_device(stream))) return error;
  // While the stream captures, the allocation is a graph's allocation node.
  int captured = HKRT_SUCCESS;
  if (size != 0 && capture_any() && capture_alloc(stream, index, size, ptr, &captured))
    return captured;
  *ptr = nullptr;
  std::lock_guard<std::mutex> lock(pools_mutex);
  MemPool* pool = nullptr;
  if (handle == nullptr) {
    default_pool_locked(device);
    pool = current_pools[device->index];
  } else if (int error = pool_get_locked(handle, &pool)) {
    return error;
  }
  if (size == 0) return HKRT_SUCCESS;
  // A size that rounding up would wrap past zero is more than any memory.
  if (size > SIZE_MAX - kBlockAlignment)
    return fail(HKRT_ERROR_OUT_OF_MEMORY, "malloc async of %zu bytes: more than any memory", size);
  const size_t rounded = (size + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
  Op* marker = nullptr;
  uintptr_t base = find_free_locked(pool, stream, rounded, &marker);
  if (base != 0 && marker != nullptr) {
    // The internal dependency: the stream waits for the free's marker.
    Op* wait = new Op;
    wait->kind = OpKind::Marker;
    enqueue(stream, wait, marker, false);
  }
  if (base == 0) {
    if (pool->max_size != 0 && pool->reserved + rounded > pool->max_size) {
      trim_locked(pool, pool->max_size - std::min<size_t>(rounded, pool->max_size));
      if (pool->reserved + rounded > pool->max_size)
        return fail(HKRT_ERROR_OUT_OF_MEMORY, "the pool's %zu bytes hold %llu: %zu more do not fit",
                    pool->max_size, static_cast<unsigned long long>(pool->reserved), rounded);
    }
    void* p = nullptr;
    if (allocate_pool_block(pool->device, pool, rounded, &p) != HKRT_SUCCESS) {
      trim_locked(pool, 0);  // what the pool holds free, then once more
      if (int error = allocate_pool_block(pool->device, pool, rounded, &p)) return error;
    }
    base = uintptr_t(p);
    pool->blocks[base].size = rounded;
    pool->reserved += rounded;
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
  } else if (Op* old = pool->blocks[base].marker) {
    op_unref(old);
    pool->blocks[base].marker = nullptr;
  }
  count_use(pool, pool->blocks[base]);
  *ptr = reinterpret_cast<void*>(base);
  return HKRT_SUCCESS;
}

int hkrt_free_async(int index, void* ptr, hkrt_stream* stream_handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (ptr == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "free async of NULL");
  Stream* stream = nullptr;
  if (int error = stream_get(device, stream_handle, &stream)) return error;
  // A graph's allocation: a free node while the stream captures; else it is
  // freed (its memory stays the graph's).  Other memory's free cannot be captured.
  int freed = HKRT_SUCCESS;
  if (capture_any() && capture_free(stream, ptr, &freed)) return freed;
  if (int error = capture_admit(stream, kCaptureRefuse)) return error;
  if (graph_alloc_free(ptr, &freed)) return freed;
  MemPool* pool = nullptr;
  if (int error = find_block(ptr, &pool)) return error;
  Op* marker = new Op;
  marker->kind = OpKind::Marker;
  op_ref(marker);  // the block's reference
  enqueue(stream, marker, nullptr, false);
  const StreamPoint point = stream_point(stream);
  std::lock_guard<std::mutex> lock(pools_mutex);
  auto it = pool->blocks.find(uintptr_t(ptr));
  if (it == pool->blocks.end() || !it->second.in_use) {  // freed by another thread meanwhile
    op_unref(marker);
    return fail(HKRT_ERROR_INVALID_VALUE, "%p was freed twice", ptr);
  }
  if (pool->destroyed) {
    // Released now, so the free's work must have run.
    op_ref(marker);
    wait_and_unref(marker);
  }
  put_back_locked(pool, uintptr_t(ptr), point, marker);
  return HKRT_SUCCESS;
}

}  // extern "C"
