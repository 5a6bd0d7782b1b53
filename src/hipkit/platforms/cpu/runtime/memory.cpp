// Device and pinned host memory (both plain host memory on the CPU), and the
// copy and set operations on it.
//
// Allocations are tracked, so that a pointer can be classified, a bad free
// rejected, and everything freed by a device reset.  Large allocations are
// mapped directly: pages are only touched when used, and freeing returns them.
#include <sys/mman.h>

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
  int kind;         // 1 device, 2 pinned host (hkrt_pointer_kind)
  bool mapped;
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
  if (allocation.mapped)
    munmap(reinterpret_cast<void*>(address), allocation.reserved);
  else
    free(reinterpret_cast<void*>(address));
}

int allocate(void** ptr, size_t size, int kind) {
  if (int error = ensure_init()) return error;
  if (ptr == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "malloc: NULL output pointer");
  if (int error = sticky_check()) return error;
  *ptr = nullptr;
  if (size == 0) return HKRT_SUCCESS;
  const uint64_t total = mem_total_bytes();
  if (size > total)
    return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes: the machine has %llu",
                size, static_cast<unsigned long long>(total));
  size_t reserved = (size + kAlignment - 1) / kAlignment * kAlignment;
  bool mapped = reserved >= kMapMin;
  void* p = nullptr;
  if (mapped) {
    p = mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = nullptr;
  } else {
    p = aligned_alloc(kAlignment, reserved);
  }
  if (p == nullptr) return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes", size);
  std::lock_guard<std::mutex> lock(memory_mutex);
  allocations[uintptr_t(p)] = Allocation{size, reserved, kind, mapped};
  *ptr = p;
  return HKRT_SUCCESS;
}

int deallocate(void* ptr, int kind) {
  if (int error = ensure_init()) return error;
  if (ptr == nullptr) return HKRT_SUCCESS;
  {
    std::lock_guard<std::mutex> lock(memory_mutex);
    auto it = allocations.find(uintptr_t(ptr));
    if (it == allocations.end() || it->second.kind != kind)
      return fail(HKRT_ERROR_INVALID_VALUE, "%p was not returned by %s", ptr,
                  kind == 1 ? "hkrt_malloc" : "hkrt_host_malloc");
  }
  // As hipFree: queued work that may still use the memory finishes first.
  drain_all();
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = allocations.find(uintptr_t(ptr));
  if (it == allocations.end())  // freed by another thread meanwhile
    return fail(HKRT_ERROR_INVALID_VALUE, "%p was freed twice", ptr);
  release(it->first, it->second);
  allocations.erase(it);
  return HKRT_SUCCESS;
}

// Enqueues a Copy or Set op and, if synchronous, waits for it.
int submit(Op* op, hkrt_stream* stream, int async) {
  op->is_job = op->bytes > kCopyParallelMin && config.num_workers > 1;
  if (op->is_job) op->total = (op->bytes + kCopyPiece - 1) / kCopyPiece;
  Op* waited = enqueue(stream, op, nullptr, async == 0);
  if (waited == nullptr) return HKRT_SUCCESS;
  wait_and_unref(waited);
  return sticky_check();
}

}  // namespace

uint64_t mem_total_bytes() {
  static const uint64_t total = meminfo_bytes("MemTotal");
  return total;
}

void free_all_allocations() {
  std::lock_guard<std::mutex> lock(memory_mutex);
  for (const auto& [address, allocation] : allocations) release(address, allocation);
  allocations.clear();
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_malloc(void** ptr, size_t size) { return allocate(ptr, size, 1); }
int hkrt_free(void* ptr) { return deallocate(ptr, 1); }
int hkrt_host_malloc(void** ptr, size_t size) { return allocate(ptr, size, 2); }
int hkrt_host_free(void* ptr) { return deallocate(ptr, 2); }

int hkrt_pointer_kind(const void* ptr) {
  if (ensure_init() != HKRT_SUCCESS) return 0;
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = allocations.upper_bound(uintptr_t(ptr));
  if (it == allocations.begin()) return 0;
  --it;
  return uintptr_t(ptr) - it->first < it->second.size ? it->second.kind : 0;
}

int hkrt_mem_get_info(size_t* free_bytes, size_t* total_bytes) {
  if (int error = ensure_init()) return error;
  if (free_bytes == nullptr || total_bytes == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "mem get info: NULL output");
  *free_bytes = size_t(meminfo_bytes("MemAvailable"));
  *total_bytes = size_t(mem_total_bytes());
  return HKRT_SUCCESS;
}

int hkrt_memcpy(void* dst, const void* src, size_t bytes, int kind, hkrt_stream* stream,
                int async) {
  if (int error = ensure_init()) return error;
  if (kind < HKRT_MEMCPY_HOST_TO_HOST || kind > HKRT_MEMCPY_DEFAULT)
    return fail(HKRT_ERROR_INVALID_MEMCPY_DIRECTION, "invalid memcpy kind %d", kind);
  if (bytes > 0 && (dst == nullptr || src == nullptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "memcpy of %zu bytes with a NULL pointer", bytes);
  if (int error = stream_check(stream)) return error;
  if (int error = sticky_check()) return error;
  if (bytes == 0) return HKRT_SUCCESS;
  Op* op = new Op;
  op->kind = OpKind::Copy;
  op->copy_kind = uint32_t(kind);
  op->dst = dst;
  op->src = src;
  op->bytes = bytes;
  // As HIP and CUDA do with pageable host memory (not from hkrt_malloc or
  // hkrt_host_malloc): an asynchronous copy from it reads it before
  // returning, and one into it completes before returning.
  if (async && hkrt_pointer_kind(dst) == 0) {
    async = 0;
  } else if (async && hkrt_pointer_kind(src) == 0) {
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

int hkrt_memset(void* dst, uint32_t value, size_t count, uint32_t elem_size,
                hkrt_stream* stream, int async) {
  if (int error = ensure_init()) return error;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4)
    return fail(HKRT_ERROR_INVALID_VALUE, "memset element size must be 1, 2 or 4, not %u",
                elem_size);
  if (count > 0 && dst == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "memset of %zu elements at NULL", count);
  if (int error = stream_check(stream)) return error;
  if (int error = sticky_check()) return error;
  if (count == 0) return HKRT_SUCCESS;
  Op* op = new Op;
  op->kind = OpKind::Set;
  op->dst = dst;
  op->bytes = count * elem_size;
  op->value = elem_size == 4 ? value : value & ((1u << (8 * elem_size)) - 1);
  op->elem_size = elem_size;
  return submit(op, stream, async);
}

}  // extern "C"
