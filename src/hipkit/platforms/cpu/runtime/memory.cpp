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
#include <map>
#include <new>

#include "internal.h"

namespace hk {

namespace {

constexpr size_t kAlignment = 256;
constexpr size_t kMapMin = 1 << 20;

struct Allocation {
  size_t size;      // as requested
  size_t reserved;  // as allocated (rounded up)
  int kind;         // 1 device, 2 pinned host (hkrt_pointer_info)
  Device* owner;    // freed by its reset; null: pinned memory of no device
  bool mapped;
  int shared_fd = -1;     // its memfd once shared with other processes (share_allocation)
  bool imported = false;  // another process's memory (import_mapping): not counted, not freed
};

std::mutex memory_mutex;
std::map<uintptr_t, Allocation> allocations;

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
  if (allocation.shared_fd >= 0) close(allocation.shared_fd);
  if (allocation.imported) {
    munmap(reinterpret_cast<void*>(address), allocation.reserved);
    return;
  }
  if (allocation.mapped)
    munmap(reinterpret_cast<void*>(address), allocation.reserved);
  else
    free(reinterpret_cast<void*>(address));
  if (allocation.kind == 1) allocation.owner->allocated_bytes.fetch_sub(allocation.size);
}

// The allocation `ptr` lies in, or null (under memory_mutex).
const Allocation* find_locked(const void* ptr) {
  auto it = allocations.upper_bound(uintptr_t(ptr));
  if (it == allocations.begin()) return nullptr;
  --it;
  return uintptr_t(ptr) - it->first < it->second.size ? &it->second : nullptr;
}

// `owner` may be null for pinned memory only.
int allocate(Device* owner, void** ptr, size_t size, int kind) {
  if (ptr == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "malloc: NULL output pointer");
  if (owner != nullptr)
    if (int error = sticky_check(owner)) return error;
  *ptr = nullptr;
  if (size == 0) return HKRT_SUCCESS;
  if (kind == 1) {
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
  bool mapped = kind == 1 || reserved >= kMapMin;
  void* p = nullptr;
  if (mapped) {
    p = mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = nullptr;
  } else {
    p = aligned_alloc(kAlignment, reserved);
  }
  if (p == nullptr) {
    if (kind == 1) owner->allocated_bytes.fetch_sub(size);
    return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes", size);
  }
  std::lock_guard<std::mutex> lock(memory_mutex);
  allocations[uintptr_t(p)] = Allocation{size, reserved, kind, owner, mapped};
  *ptr = p;
  return HKRT_SUCCESS;
}

int deallocate(void* ptr, int kind) {
  if (int error = ensure_init()) return error;
  if (ptr == nullptr) return HKRT_SUCCESS;
  {
    std::lock_guard<std::mutex> lock(memory_mutex);
    auto it = allocations.find(uintptr_t(ptr));
    if (it != allocations.end() && it->second.imported)
      return fail(HKRT_ERROR_INVALID_VALUE, "%p is another process's memory: close it instead", ptr);
    if (it == allocations.end() || it->second.kind != kind)
      return fail(HKRT_ERROR_INVALID_VALUE, "%p was not returned by %s", ptr,
                  kind == 1 ? "hkrt_malloc" : "hkrt_host_malloc");
  }
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
  op->is_job = op->bytes > kCopyParallelMin && stream_device(stream)->num_workers > 1;
  if (op->is_job) op->total = (op->bytes + kCopyPiece - 1) / kCopyPiece;
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
  return {found->kind, found->kind == 1 ? found->owner : nullptr};
}

// The common part of hkrt_memcpy and hkrt_memcpy_peer.
int copy(Stream* stream, void* dst, Side to, const void* src, Side from, size_t bytes, int kind,
         int async) {
  if (int error = sticky_check(stream_device(stream))) return error;
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
  // returning, and one into it completes before returning.
  if (async && to.kind == 0) {
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
    if (found == nullptr || found->kind != 1 || found->imported)
      return fail(HKRT_ERROR_INVALID_HANDLE, "%p is not in memory from hipMalloc", ptr);
  }
  // The copy into shared memory below must see the kernels' last writes.
  drain_every_device();
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = allocations.upper_bound(uintptr_t(ptr));
  if (it == allocations.begin()) return fail(HKRT_ERROR_INVALID_HANDLE, "%p was freed", ptr);
  --it;
  Allocation& a = it->second;
  if (uintptr_t(ptr) - it->first >= a.size || a.kind != 1 || a.imported)
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
  Allocation a{size, bytes, 1, owner, true};
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
    if (it->second.owner != device) {
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
  return allocate(device, ptr, size, 1);
}
int hkrt_free(void* ptr) { return deallocate(ptr, 1); }
int hkrt_host_malloc(int index, void** ptr, size_t size) {
  Device* device = nullptr;
  if (index == -1) {
    if (int error = ensure_init()) return error;
  } else if (int error = device_get(index, &device)) {
    return error;
  }
  return allocate(device, ptr, size, 2);
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
