// hipkit CPU runtime: what its memory parts share (part of internal.h, inside its
// hidden visibility): the allocations (memory.cpp), pools and managed memory
// (pool.cpp, managed.cpp), limits (limits.cpp) and stream order (stream_order.cpp).
#ifndef HIPKIT_CPU_RUNTIME_INTERNAL_MEMORY_H
#define HIPKIT_CPU_RUNTIME_INTERNAL_MEMORY_H

namespace hk {

// ---- memory.cpp --------------------------------------------------------------

uint64_t mem_total_bytes();  // the host's
// hkrt_device_reset's part: frees every allocation the device owns (its
// pools' blocks are left to pools_forget).
void free_all_allocations(Device* device);

struct MemPool;  // pool.cpp
// What memory.cpp knows of the allocation a pointer lies in.
struct AllocationInfo {
  uintptr_t base;
  size_t size;
  int kind;  // HKRT_MEMORY_*
  Device* owner;
  uint64_t id;
  unsigned flags;
  MemPool* pool;
};
bool allocation_find(const void* ptr, AllocationInfo* out);
// A block of `pool`: device memory of `owner`, counted as hkrt_malloc's;
// hkrt_free of it calls pool_free_sync.
int allocate_pool_block(Device* owner, MemPool* pool, size_t size, void** out);
void release_pool_block(void* base);
// Interprocess memory (ipc.cpp): the allocation of hkrt_malloc that `ptr` lies in,
// moved in place to a memfd if it was not yet (hipErrorInvalidHandle if none).
struct SharedAllocation {
  uintptr_t base;
  size_t size;
  int fd;  // open as long as the allocation lives
  Device* owner;
};
int share_allocation(const void* ptr, SharedAllocation* out);
// Maps `size` bytes of the memfd `fd` (another process's allocation) as memory
// of `owner` that hkrt_free refuses and close_import unmaps (a device's reset too).
int import_mapping(Device* owner, int fd, size_t size, void** out);
int close_import(void* ptr);

// ---- pool.cpp / managed.cpp --------------------------------------------------

// hkrt_free of a pool's block: after the work queued on every device, it goes
// back to the pool.
int pool_free_sync(MemPool* pool, void* ptr);
// Called by every synchronizing call: pools release what they hold beyond their
// release thresholds of blocks no pending work may use.
void pools_trim_on_sync();
// hkrt_device_reset's part: frees the device's pools and their blocks.
void pools_forget(Device* device);
// Drops the advice given for the managed allocation at `base` (it is freed).
void managed_forget(uintptr_t base);
// hkrt_device_reset's part: the device's limits go back to their defaults.
void limits_reset(Device* device);

// Where a stream is in its order, and whether another stream's next op is
// ordered after that point (by the stream itself, the legacy null stream, or
// events waited on, directly or through other streams).
struct StreamPoint {
  uint64_t stream_id = 0;
  uint64_t count = 0;  // ops enqueued on it up to that point
};
StreamPoint stream_point(Stream* stream);
bool stream_ordered_after(Stream* stream, const StreamPoint& point);

}  // namespace hk

#endif  // HIPKIT_CPU_RUNTIME_INTERNAL_MEMORY_H
