// Device and pinned host memory (both plain host memory on the CPU), and the
// copy and set operations on it.
//
// Allocations are tracked, with the device that owns them, so that a pointer
// can be classified, a bad free rejected, a device's memory counted against
// its share of the host's, and everything a device owns freed by its reset.
// Large allocations are mapped directly: pages are only touched when used,
// and freeing returns them.
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <new>

#include "graph.h"

namespace hk {

size_t page_bytes(size_t bytes);  // below: bytes rounded up to whole pages

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
  int shared_fd = -1;     // its memfd once shared with other processes (share_allocation)
  bool imported = false;  // another process's memory (import_mapping): not counted, not freed
};

std::mutex memory_mutex;
std::map<uintptr_t, Allocation> allocations;
uint64_t next_id = 1;  // under memory_mutex

// While hipkit sanitize runs, what hipFree frees stays mapped for a while, so that a
// stale pointer reaches freed memory (which memcheck knows), not a new allocation:
// oldest first out beyond kQuarantineBytes.  Under memory_mutex.
constexpr size_t kQuarantineBytes = size_t(256) << 20;
std::deque<std::pair<uintptr_t, Allocation>> quarantine;
size_t quarantine_bytes = 0;

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
  if (sanitize_active()) sanitize_released(address);
  if (allocation.shared_fd >= 0) close(allocation.shared_fd);
  if (allocation.imported) {
    munmap(reinterpret_cast<void*>(address), allocation.reserved);
    return;
  }
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
  // Device memory is mapped whatever its size, so that it can be shared with
  // another process in place (share_allocation).
  bool mapped = kind == HKRT_MEMORY_DEVICE || reserved >= kMapMin;
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
  // A mapping's whole pages are its own; aligned_alloc's memory only what it reserved.
  if (sanitize_active())
    sanitize_allocated(uintptr_t(p), size, mapped ? page_bytes(reserved) : reserved, kind);
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
    if (it != allocations.end() && it->second.imported)
      return fail(HKRT_ERROR_INVALID_VALUE, "%p is another process's memory: close it instead", ptr);
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
  if (sanitize_active() && !it->second.imported && it->second.kind != HKRT_MEMORY_REGISTERED) {
    sanitize_freed(it->first);
    quarantine_bytes += it->second.reserved;
    quarantine.emplace_back(it->first, it->second);
    allocations.erase(it);
    while (quarantine_bytes > kQuarantineBytes) {
      quarantine_bytes -= quarantine.front().second.reserved;
      release(quarantine.front().first, quarantine.front().second);
      quarantine.pop_front();
    }
    return HKRT_SUCCESS;
  }
  release(it->first, it->second);
  allocations.erase(it);
  return HKRT_SUCCESS;
}

}  // namespace

void sanitize_known_allocations() {
  std::lock_guard<std::mutex> lock(memory_mutex);
  for (const auto& [base, a] : allocations)
    if (!a.imported && a.kind != HKRT_MEMORY_REGISTERED)
      sanitize_allocated(base, a.size, a.mapped ? page_bytes(a.reserved) : a.reserved, a.kind);
}

void sanitize_release_quarantine() {
  std::lock_guard<std::mutex> lock(memory_mutex);
  for (const auto& [base, a] : quarantine) release(base, a);
  quarantine.clear();
  quarantine_bytes = 0;
}

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

uint64_t mem_total_bytes() {
  static const uint64_t total = meminfo_bytes("MemTotal");
  return total;
}

size_t page_bytes(size_t bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

int share_allocation(const void* ptr, SharedAllocation* out) {
  {
    std::lock_guard<std::mutex> lock(memory_mutex);
    const Allocation* found = find_locked(ptr);
    if (found == nullptr || found->kind != HKRT_MEMORY_DEVICE || found->imported)
      return fail(HKRT_ERROR_INVALID_HANDLE, "%p is not in memory from hipMalloc", ptr);
  }
  // The copy into shared memory below must see the kernels' last writes.
  drain_every_device();
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = allocations.upper_bound(uintptr_t(ptr));
  if (it == allocations.begin()) return fail(HKRT_ERROR_INVALID_HANDLE, "%p was freed", ptr);
  --it;
  Allocation& a = it->second;
  if (uintptr_t(ptr) - it->first >= a.size || a.kind != HKRT_MEMORY_DEVICE || a.imported)
    return fail(HKRT_ERROR_INVALID_HANDLE, "%p was freed", ptr);
  if (a.shared_fd < 0) {
    // Its pages move, in place, to a memfd that other processes can map.
    const size_t bytes = page_bytes(a.reserved);
    int fd = int(syscall(SYS_memfd_create, "hipkit-ipc", 1u /* MFD_CLOEXEC */));
    if (fd < 0) return fail(HKRT_ERROR_MAP_FAILED, "memfd_create: %s", strerror(errno));
    void* address = reinterpret_cast<void*>(it->first);
    bool ok = ftruncate(fd, off_t(bytes)) == 0 && pwrite(fd, address, a.size, 0) == ssize_t(a.size) &&
              mmap(address, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == address;
    if (!ok) {
      close(fd);
      return fail(HKRT_ERROR_MAP_FAILED, "cannot share %zu bytes at %p: %s", a.size, address,
                  strerror(errno));
    }
    a.shared_fd = fd;
    a.reserved = bytes;
  }
  *out = SharedAllocation{it->first, a.size, a.shared_fd, a.owner};
  return HKRT_SUCCESS;
}

int import_mapping(Device* owner, int fd, size_t size, void** out) {
  const size_t bytes = page_bytes(size);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return fail(HKRT_ERROR_MAP_FAILED, "mmap: %s", strerror(errno));
  std::lock_guard<std::mutex> lock(memory_mutex);
  Allocation a{size, bytes, HKRT_MEMORY_DEVICE, owner, true};
  a.imported = true;
  allocations[uintptr_t(p)] = a;
  *out = p;
  return HKRT_SUCCESS;
}

int close_import(void* ptr) {
  // The mapping `ptr` lies in (open returns its base plus the handle's offset).
  auto imported = [ptr] {
    auto it = allocations.upper_bound(uintptr_t(ptr));
    if (it == allocations.begin()) return allocations.end();
    --it;
    return uintptr_t(ptr) - it->first < it->second.size && it->second.imported ? it
                                                                                : allocations.end();
  };
  {
    std::lock_guard<std::mutex> lock(memory_mutex);
    if (imported() == allocations.end())
      return fail(HKRT_ERROR_INVALID_HANDLE, "%p was not opened by hipIpcOpenMemHandle", ptr);
  }
  drain_every_device();  // as hipFree: the work that may use it finishes first
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = imported();
  if (it == allocations.end()) return fail(HKRT_ERROR_INVALID_HANDLE, "%p was closed twice", ptr);
  release(it->first, it->second);
  allocations.erase(it);
  return HKRT_SUCCESS;
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

}  // extern "C"
