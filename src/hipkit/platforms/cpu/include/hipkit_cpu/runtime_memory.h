// hipkit CPU platform: what libhipkit_cpu.so adds for the rest of HIP's
// memory API in whole programs: stream-ordered allocation and memory pools
// (runtime/pool.cpp), managed memory and its advice (runtime/managed.cpp),
// registered host memory and what is known of a pointer (runtime/memory.cpp),
// and the device limits (runtime/limits.cpp).  Device indices are the
// runtime's own, as in runtime.h.
#ifndef HIPKIT_CPU_RUNTIME_MEMORY_H
#define HIPKIT_CPU_RUNTIME_MEMORY_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

// The kinds of memory hkrt_pointer_info and hkrt_pointer_query tell apart.
enum {
  HKRT_MEMORY_UNKNOWN = 0,     // not from the runtime (pageable host memory)
  HKRT_MEMORY_DEVICE = 1,      // hkrt_malloc, or a pool's block
  HKRT_MEMORY_HOST = 2,        // hkrt_host_malloc / hkrt_host_alloc
  HKRT_MEMORY_MANAGED = 3,     // hkrt_managed_malloc
  HKRT_MEMORY_REGISTERED = 4,  // hkrt_host_register
};

enum {
  HKRT_ERROR_INVALID_PITCH_VALUE = 12,
  HKRT_ERROR_UNSUPPORTED_LIMIT = 215,
  HKRT_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  HKRT_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
};

typedef struct hkrt_mem_pool hkrt_mem_pool;

typedef struct hkrt_pointer_attributes {
  int kind;                // HKRT_MEMORY_*
  int device;              // the device owning it (registered memory: the one it was registered on), or -1
  void* base;              // the allocation (or registered range) it lies in
  size_t size;
  uint64_t buffer_id;      // unique to the allocation, never reused; 0 for unknown memory
  unsigned flags;          // as given to hkrt_host_alloc, hkrt_managed_malloc, hkrt_host_register
  hkrt_mem_pool* pool;     // the pool whose block it is, or NULL
} hkrt_pointer_attributes;

// Pinned host memory allocated with hipHostMalloc's flags (kept for
// hipHostGetFlags); device -1: freed by no reset.
int hkrt_host_alloc(int device, void** ptr, size_t size, unsigned flags);
// Managed memory of `device` (counted as its memory; hkrt_free frees it).
int hkrt_managed_malloc(int device, void** ptr, size_t size, unsigned flags);
// Host memory the caller owns, registered as pinned: hipErrorInvalidValue for
// NULL or size 0, hipErrorHostMemoryAlreadyRegistered if the range overlaps
// registered or allocated memory; unregistering waits for the queued work.
int hkrt_host_register(int device, void* ptr, size_t size, unsigned flags);
int hkrt_host_unregister(void* ptr);  // hipErrorHostMemoryNotRegistered if it was not
// What is known of `ptr`; unknown memory gives kind 0, device -1, success.
int hkrt_pointer_query(const void* ptr, hkrt_pointer_attributes* out);

// ---- Memory pools (runtime/pool.cpp) -----------------------------------------
// hipMemPoolAttr's numbers.
enum {
  HKRT_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,
  HKRT_POOL_REUSE_ALLOW_OPPORTUNISTIC = 2,
  HKRT_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
  HKRT_POOL_RELEASE_THRESHOLD = 4,
  HKRT_POOL_RESERVED_MEM_CURRENT = 5,
  HKRT_POOL_RESERVED_MEM_HIGH = 6,
  HKRT_POOL_USED_MEM_CURRENT = 7,
  HKRT_POOL_USED_MEM_HIGH = 8,
};

// A pool of `device`'s memory; max_size 0: no limit but the device's memory.
int hkrt_mem_pool_create(int device, size_t max_size, hkrt_mem_pool** out);
// Blocks still allocated from it are freed with it, once no work may use them.
// A device's default pool cannot be destroyed (hipErrorInvalidValue).
int hkrt_mem_pool_destroy(hkrt_mem_pool* pool);
int hkrt_mem_pool_default(int device, hkrt_mem_pool** out);
// The pool hkrt_malloc_async uses for `device` (NULL: its default pool again).
int hkrt_mem_pool_set_current(int device, hkrt_mem_pool* pool);
int hkrt_mem_pool_get_current(int device, hkrt_mem_pool** out);
int hkrt_mem_pool_get_device(hkrt_mem_pool* pool, int* device);
// Reads (set 0) or writes (set 1) an attribute.  Of the memory counters only
// the highs can be written, and only to 0: a reset to the current value.
int hkrt_mem_pool_attribute(hkrt_mem_pool* pool, int attribute, uint64_t* value, int set);
// Releases free blocks that no pending work may use until the pool reserves
// at most `keep` bytes.
int hkrt_mem_pool_trim(hkrt_mem_pool* pool, size_t keep);
// The access `device` has to the pool's memory: 0 none, 1 read, 3 read-write.
int hkrt_mem_pool_access(hkrt_mem_pool* pool, int device, int* flags, int set);
// Memory from `pool` (NULL: `device`'s current pool), usable by the work
// enqueued on `stream` after this call.  A freed block is reused when the
// allocation is ordered after its free (same stream, events), or by the
// pool's reuse attributes.
int hkrt_malloc_async(int device, hkrt_mem_pool* pool, void** ptr, size_t size,
                      hkrt_stream* stream);
// Frees a block of a pool after the work enqueued on `stream` so far;
// hipErrorInvalidValue for other memory and for a block freed twice.
int hkrt_free_async(int device, void* ptr, hkrt_stream* stream);

// ---- Managed memory (runtime/managed.cpp) ------------------------------------
// hipMemoryAdvise and hipMemRangeAttribute's numbers; `location` is a device
// index, -1 the host (hipCpuDeviceId).
int hkrt_mem_advise(const void* ptr, size_t count, int advice, int location);
// Records `location` as where [ptr, ptr + count) was last prefetched to, in
// the order of `stream` (one address space: nothing moves).
int hkrt_mem_prefetch(int device, const void* ptr, size_t count, int location,
                      hkrt_stream* stream);
// One attribute of [ptr, ptr + count) into data (data_size bytes), as
// hipMemRangeGetAttribute writes it.
int hkrt_mem_range_attribute(void* data, size_t data_size, int attribute, const void* ptr,
                             size_t count);

// ---- Limits (runtime/limits.cpp) ----------------------------------------------
// hipLimit_t's numbers: 0 stack size, 1 printf FIFO size, 2 malloc heap size.
int hkrt_device_limit(int device, int limit, size_t* value, int set);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HIPKIT_CPU_RUNTIME_MEMORY_H
