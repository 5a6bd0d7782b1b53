// Device and pinned host memory (both plain host memory on the CPU), and the
// copy and set operations on it.
//
// Allocations are tracked, with the device that owns them, so that a pointer
// can be classified, a bad free rejected, a device's memory counted against
// its share of the host's, and everything a device owns freed by its reset.
// Large allocations are mapped directly: pages are only touched when used,
// and freeing returns them.
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>

#include "graph.h"

namespace hk {

namespace {

constexpr size_t kAlignment = 256;
constexpr size_t kMapMin = 1 << 20;

struct Allocation {
  size_t size;      // as requested
  size_t reserved;  // as allocated (rounded up)
  int kind;         // HKRT_MEMORY_*
  Device* owner;    // freed by its reset; null: pinned memory of no device
  bool mapped;
  uint64_t id;      // never reused (HIP_POINTER_ATTRIBUTE_BUFFER_ID)
  unsigned flags;   // as allocated or registered (hipHostGetFlags)
  MemPool* pool;    // the memory pool whose block it is, or null
};

std::mutex memory_mutex;
std::map<uintptr_t, Allocation> allocations;
uint64_t next_id = 1;  // under memory_mutex

// A "Key:   N kB" line of /proc/meminfo, in bytes (0 if missing).
uint64_t meminfo_bytes(const char* key) {
  FILE* file = fopen("/proc/meminfo", "r");
  if (file == nullptr) return 0;
  char line[256];
  const size_t key_len = strlen(key);
  unsigned long long found = 0;
  while (fgets(line, sizeof(line), file) != nullptr) {
    if (strncmp(line, key, key_len) == 0 && line[key_len] == ':' &&
        sscanf(line + key_len + 1, "%llu", &found) == 1)
      break;
  }
  fclose(file);
  return found * 1024;
}

void release(uintptr_t address, const Allocation& allocation) {
  if (allocation.kind == HKRT_MEMORY_MANAGED) managed_forget(address);
  if (allocation.kind == HKRT_MEMORY_REGISTERED) return;  // the caller's memory
  if (allocation.mapped)
    munmap(reinterpret_cast<void*>(address), allocation.reserved);
  else
    free(reinterpret_cast<void*>(address));
  if (allocation.kind != HKRT_MEMORY_HOST)
    allocation.owner->allocated_bytes.fetch_sub(allocation.size);
}

// The allocation `ptr` lies in, or end() (under memory_mutex).
std::map<uintptr_t, Allocation>::iterator entry_locked(const void* ptr) {
  auto it = allocations.upper_bound(uintptr_t(ptr));
  if (it == allocations.begin()) return allocations.end();
  --it;
  return uintptr_t(ptr) - it->first < it->second.size ? it : allocations.end();
}
const Allocation* find_locked(const void* ptr) {
  auto it = entry_locked(ptr);
  return it != allocations.end() ? &it->second : nullptr;
}

// `owner` may be null for pinned memory only.
int allocate(Device* owner, void** ptr, size_t size, int kind, unsigned flags = 0,
             MemPool* pool = nullptr) {
  if (ptr == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "malloc: NULL output pointer");
  if (owner != nullptr)
    if (int error = sticky_check(owner)) return error;
  *ptr = nullptr;
  if (size == 0) return HKRT_SUCCESS;
  if (kind != HKRT_MEMORY_HOST) {
    // The device's share, as a GPU's memory: counted when allocated, not when touched.
    const uint64_t total = owner->total_bytes;
    const uint64_t used = owner->allocated_bytes.fetch_add(size);
    if (size > total || used > total - size) {
      owner->allocated_bytes.fetch_sub(size);
      return fail(HKRT_ERROR_OUT_OF_MEMORY,
                  "cannot allocate %zu bytes on CPU device %d: it has %llu of its %llu bytes free",
                  size, owner->index, static_cast<unsigned long long>(used > total ? 0 : total - used),
                  static_cast<unsigned long long>(total));
    }
  } else if (size > mem_total_bytes()) {
    return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes: the machine has %llu", size,
                static_cast<unsigned long long>(mem_total_bytes()));
  }
  size_t reserved = (size + kAlignment - 1) / kAlignment * kAlignment;
  bool mapped = reserved >= kMapMin;
  void* p = nullptr;
  if (mapped) {
    p = mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = nullptr;
  } else {
    p = aligned_alloc(kAlignment, reserved);
  }
  if (p == nullptr) {
    if (kind != HKRT_MEMORY_HOST) owner->allocated_bytes.fetch_sub(size);
    return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes", size);
  }
  std::lock_guard<std::mutex> lock(memory_mutex);
  allocations[uintptr_t(p)] =
      Allocation{size, reserved, kind, owner, mapped, next_id++, flags, pool};
  *ptr = p;
  return HKRT_SUCCESS;
}

int deallocate(void* ptr, int kind) {
  if (int error = ensure_init()) return error;
  if (ptr == nullptr) return HKRT_SUCCESS;
  MemPool* pool = nullptr;
  {
    std::lock_guard<std::mutex> lock(memory_mutex);
    auto it = allocations.find(uintptr_t(ptr));
    const int found = it == allocations.end() ? 0 : it->second.kind;
    // hipFree frees managed memory too.
    if (found != kind && !(kind == HKRT_MEMORY_DEVICE && found == HKRT_MEMORY_MANAGED))
      return fail(HKRT_ERROR_INVALID_VALUE, "%p was not returned by %s", ptr,
                  kind == 1 ? "hkrt_malloc" : "hkrt_host_malloc");
    pool = it->second.pool;
  }
  // A pool's block goes back to its pool, once the device's work is done.
  if (pool != nullptr) return pool_free_sync(pool, ptr);
  // As hipFree: queued work that may still use the memory finishes first,
  // on every device, since any device's kernels can reach it.
  drain_every_device();
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = allocations.find(uintptr_t(ptr));
  if (it == allocations.end())  // freed by another thread meanwhile
    return fail(HKRT_ERROR_INVALID_VALUE, "%p was freed twice", ptr);
  release(it->first, it->second);
  allocations.erase(it);
  return HKRT_SUCCESS;
}

// Enqueues a Copy or Set op and, if synchronous, waits for it.
int submit(Op* op, Stream* stream, int async) {
  split_copy(op, stream_device(stream));
  Op* waited = enqueue(stream, op, nullptr, async == 0);
  if (waited == nullptr) return HKRT_SUCCESS;
  wait_and_unref(waited);
  return sticky_check(stream_device(stream));
}

// One side of a copy: the kind of memory (hkrt_pointer_info) and the device
// it counts as (null: the host).
struct Side {
  int kind = 0;
  Device* device = nullptr;
};

Side side_of(const void* ptr) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  const Allocation* found = find_locked(ptr);
  if (found == nullptr) return {};
  const bool on_device = found->kind == HKRT_MEMORY_DEVICE || found->kind == HKRT_MEMORY_MANAGED;
  return {found->kind, on_device ? found->owner : nullptr};
}

// The common part of hkrt_memcpy and hkrt_memcpy_peer.
int copy(Stream* stream, void* dst, Side to, const void* src, Side from, size_t bytes, int kind,
         int async) {
  if (int error = sticky_check(stream_device(stream))) return error;
  if (int error = capture_admit(stream, async ? kCaptureEnqueue : kCaptureUnsafe)) return error;
  if (bytes == 0) return HKRT_SUCCESS;
  // A synchronous copy between devices, as in HIP, follows the work queued
  // before it on the null streams of the devices whose memory it touches.
  if (async == 0) {
    for (Device* other : {to.device, from.device})
      if (other != nullptr && other != stream_device(stream)) wait_legacy(other);
  }
  Op* op = new Op;
  op->kind = OpKind::Copy;
  op->copy_kind = uint32_t(kind);
  op->dst = dst;
  op->src = src;
  op->bytes = bytes;
  op->dst_device = int16_t(to.device != nullptr ? to.device->index : -1);
  op->src_device = int16_t(from.device != nullptr ? from.device->index : -1);
  // As HIP and CUDA do with pageable host memory (not from hkrt_malloc or
  // hkrt_host_malloc): an asynchronous copy from it reads it before
  // returning, and one into it completes before returning.  A captured copy
  // reads and writes the memory when its graph runs.
  if (async && capture_any() && stream_capture_point(stream).capture != nullptr) {
  } else if (async && to.kind == 0) {
    async = 0;
  } else if (async && from.kind == 0) {
    op->staging.reset(new (std::nothrow) unsigned char[bytes]);
    if (op->staging == nullptr) {
      op_unref(op);
      return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot stage %zu bytes of pageable memory", bytes);
    }
    ExecContext ctx;
    ctx.what = "memcpy";
    unsigned char* staging = op->staging.get();
    if (int code = run_guarded(ctx, [=] { memcpy(staging, src, bytes); })) {
      op_unref(op);
      return fail(code, "%s", ctx.detail);
    }
    op->src = staging;
  }
  return submit(op, stream, async);
}

}  // namespace

bool allocation_find(const void* ptr, AllocationInfo* out) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = entry_locked(ptr);
  if (it == allocations.end()) return false;
  const Allocation& a = it->second;
  *out = AllocationInfo{it->first, a.size, a.kind, a.owner, a.id, a.flags, a.pool};
  return true;
}

int allocate_pool_block(Device* owner, MemPool* pool, size_t size, void** out) {
  return allocate(owner, out, size, HKRT_MEMORY_DEVICE, 0, pool);
}

void release_pool_block(void* base) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = allocations.find(uintptr_t(base));
  if (it == allocations.end()) return;
  release(it->first, it->second);
  allocations.erase(it);
}

void split_copy(Op* op, const Device* device) {
  op->is_job = op->bytes > kCopyParallelMin && device->num_workers > 1;
  if (op->is_job) op->total = (op->bytes + kCopyPiece - 1) / kCopyPiece;
}

uint64_t mem_total_bytes() {
  static const uint64_t total = meminfo_bytes("MemTotal");
  return total;
}

void free_all_allocations(Device* device) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  for (auto it = allocations.begin(); it != allocations.end();) {
    if (it->second.owner != device || it->second.pool != nullptr) {
      ++it;
      continue;
    }
    release(it->first, it->second);
    it = allocations.erase(it);
  }
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_malloc(int index, void** ptr, size_t size) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = capture_admit(nullptr, kCaptureUnsafe)) return error;
  return allocate(device, ptr, size, 1);
}
int hkrt_free(void* ptr) {
  if (int error = capture_admit(nullptr, kCaptureUnsafe)) return error;
  int freed = HKRT_SUCCESS;
  if (ptr != nullptr && graph_alloc_free(ptr, &freed)) return freed;  // a graph's allocation
  return deallocate(ptr, 1);
}
int hkrt_host_malloc(int index, void** ptr, size_t size) {
  return hkrt_host_alloc(index, ptr, size, 0);
}
int hkrt_host_alloc(int index, void** ptr, size_t size, unsigned flags) {
  Device* device = nullptr;
  if (index == -1) {
    if (int error = ensure_init()) return error;
  } else if (int error = device_get(index, &device)) {
    return error;
  }
  return allocate(device, ptr, size, HKRT_MEMORY_HOST, flags);
}
int hkrt_managed_malloc(int index, void** ptr, size_t size, unsigned flags) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  return allocate(device, ptr, size, HKRT_MEMORY_MANAGED, flags);
}

int hkrt_host_register(int index, void* ptr, size_t size, unsigned flags) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (ptr == nullptr || size == 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "host register: NULL pointer or size 0");
  std::lock_guard<std::mutex> lock(memory_mutex);
  // Registered or allocated memory overlapping the range.
  auto next = allocations.lower_bound(uintptr_t(ptr));
  if (entry_locked(ptr) != allocations.end() ||
      (next != allocations.end() && next->first - uintptr_t(ptr) < size))
    return fail(HKRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                "host register: [%p, +%zu) overlaps memory already registered or allocated", ptr,
                size);
  allocations[uintptr_t(ptr)] =
      Allocation{size, size, HKRT_MEMORY_REGISTERED, device, false, next_id++, flags, nullptr};
  return HKRT_SUCCESS;
}

int hkrt_host_unregister(void* ptr) {
  if (int error = ensure_init()) return error;
  {
    std::lock_guard<std::mutex> lock(memory_mutex);
    auto it = allocations.find(uintptr_t(ptr));
    if (ptr == nullptr || it == allocations.end() || it->second.kind != HKRT_MEMORY_REGISTERED)
      return fail(HKRT_ERROR_HOST_MEMORY_NOT_REGISTERED, "%p was not registered", ptr);
  }
  // Queued copies from or to it finish first.
  drain_every_device();
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = allocations.find(uintptr_t(ptr));
  if (it == allocations.end() || it->second.kind != HKRT_MEMORY_REGISTERED)
    return fail(HKRT_ERROR_HOST_MEMORY_NOT_REGISTERED, "%p was unregistered twice", ptr);
  allocations.erase(it);
  return HKRT_SUCCESS;
}

int hkrt_pointer_query(const void* ptr, hkrt_pointer_attributes* out) {
  if (int error = ensure_init()) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "pointer query: NULL output");
  AllocationInfo info{};
  *out = hkrt_pointer_attributes{};
  out->device = -1;
  if (!allocation_find(ptr, &info)) return HKRT_SUCCESS;
  out->kind = info.kind;
  out->device = info.owner != nullptr ? info.owner->index : -1;
  out->base = reinterpret_cast<void*>(info.base);
  out->size = info.size;
  out->buffer_id = info.id;
  out->flags = info.flags;
  out->pool = reinterpret_cast<hkrt_mem_pool*>(info.pool);
  return HKRT_SUCCESS;
}
int hkrt_host_free(void* ptr) { return deallocate(ptr, 2); }

int hkrt_pointer_info(const void* ptr, int* kind, int* device) {
  if (int error = ensure_init()) return error;
  std::lock_guard<std::mutex> lock(memory_mutex);
  const Allocation* found = find_locked(ptr);
  if (kind != nullptr) *kind = found != nullptr ? found->kind : 0;
  if (device != nullptr) *device = found != nullptr && found->owner ? found->owner->index : -1;
  return HKRT_SUCCESS;
}

int hkrt_mem_get_info(int index, size_t* free_bytes, size_t* total_bytes) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (free_bytes == nullptr || total_bytes == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "mem get info: NULL output");
  const uint64_t total = device->total_bytes;
  const uint64_t used = device->allocated_bytes.load();
  const uint64_t left = used > total ? 0 : total - used;
  *free_bytes = size_t(std::min(left, meminfo_bytes("MemAvailable")));
  *total_bytes = size_t(total);
  return HKRT_SUCCESS;
}

int hkrt_memcpy(int index, void* dst, const void* src, size_t bytes, int kind,
                hkrt_stream* handle, int async) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (kind < HKRT_MEMCPY_HOST_TO_HOST || kind > HKRT_MEMCPY_DEFAULT)
    return fail(HKRT_ERROR_INVALID_MEMCPY_DIRECTION, "invalid memcpy kind %d", kind);
  if (bytes > 0 && (dst == nullptr || src == nullptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "memcpy of %zu bytes with a NULL pointer", bytes);
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  return copy(stream, dst, side_of(dst), src, side_of(src), bytes, kind, async);
}

int hkrt_memcpy_peer(void* dst, int dst_index, const void* src, int src_index, size_t bytes,
                     int index, hkrt_stream* handle, int async) {
  Device *device = nullptr, *dst_device = nullptr, *src_device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = device_get(dst_index, &dst_device)) return error;
  if (int error = device_get(src_index, &src_device)) return error;
  if (bytes > 0 && (dst == nullptr || src == nullptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "peer copy of %zu bytes with a NULL pointer", bytes);
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  // The devices named, whatever memory the pointers are in (as HIP, which
  // does not check them).
  Side to{side_of(dst).kind, dst_device}, from{side_of(src).kind, src_device};
  return copy(stream, dst, to, src, from, bytes, HKRT_MEMCPY_DEVICE_TO_DEVICE, async);
}

int hkrt_memset(int index, void* dst, uint32_t value, size_t count, uint32_t elem_size,
                hkrt_stream* handle, int async) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4)
    return fail(HKRT_ERROR_INVALID_VALUE, "memset element size must be 1, 2 or 4, not %u",
                elem_size);
  if (count > 0 && dst == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "memset of %zu elements at NULL", count);
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  if (int error = sticky_check(stream_device(stream))) return error;
  if (int error = capture_admit(stream, async ? kCaptureEnqueue : kCaptureUnsafe)) return error;
  if (count == 0) return HKRT_SUCCESS;
  Op* op = new Op;
  op->kind = OpKind::Set;
  op->dst = dst;
  const Device* owner = side_of(dst).device;
  op->dst_device = int16_t(owner != nullptr ? owner->index : -1);
  op->bytes = count * elem_size;
  op->value = elem_size == 4 ? value : value & ((1u << (8 * elem_size)) - 1);
  op->elem_size = elem_size;
  return submit(op, stream, async);
}

}  // extern "C"
