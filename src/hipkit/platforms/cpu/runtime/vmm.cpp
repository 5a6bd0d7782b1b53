// hipkit CPU runtime: virtual memory management (hipMemAddressReserve, hipMemCreate,
// hipMemMap, hipMemSetAccess ...), as CUDA's driver has it.
//
// An address range is reserved inaccessible (mmap PROT_NONE); a physical allocation
// is a memfd of its size, named after its device, so that it can be exported as a
// file descriptor and imported in another process; mapping puts the file's pages at
// an address of a reservation (MAP_FIXED | MAP_SHARED), still inaccessible until
// access is set.  Every device of the CPU shares the host's address space, so the
// protection of a mapping is the widest access any device was given; each device's
// own grant is kept for hipMemGetAccess.  An allocation lives while the program holds
// a handle to it (hipMemCreate, hipMemRetainAllocationHandle, import) or a mapping
// of it: hipMemRelease drops a handle, hipMemUnmap a mapping.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "internal.h"

struct hkrt_vmm {
  int fd = -1;
  size_t size = 0;
  int device = 0;
  int exportable = 0;
  int handles = 1;   // the program's handles to it
  int mappings = 0;  // its mappings
};

namespace hk {
namespace {

constexpr size_t kRecommended = size_t(2) << 20;  // CUDA's granularity (a huge page)

struct Mapping {
  size_t size;
  hkrt_vmm* allocation;
  std::unordered_map<int, int> access;  // device -> HKRT_VMM_ACCESS_*
};

std::mutex vmm_mutex;  // everything below
std::map<uintptr_t, size_t> reservations;  // start -> size
std::map<uintptr_t, Mapping> mappings;     // start -> mapping
std::unordered_set<hkrt_vmm*> allocations;

size_t page() { return size_t(sysconf(_SC_PAGESIZE)); }

// The reservation holding [p, p + size), or reservations.end().
std::map<uintptr_t, size_t>::iterator reservation_of(uintptr_t p, size_t size) {
  auto it = reservations.upper_bound(p);
  if (it == reservations.begin()) return reservations.end();
  --it;
  return p + size <= it->first + it->second ? it : reservations.end();
}

// The mappings that exactly cover [p, p + size), in order; empty if they do not.
std::vector<std::map<uintptr_t, Mapping>::iterator> covering(uintptr_t p, size_t size) {
  std::vector<std::map<uintptr_t, Mapping>::iterator> found;
  auto it = mappings.find(p);
  for (uintptr_t at = p; at < p + size; at += it->second.size, ++it) {
    if (it == mappings.end() || it->first != at) return {};
    found.push_back(it);
  }
  if (found.empty() || p + size != found.back()->first + found.back()->second.size) return {};
  return found;
}

void drop(hkrt_vmm* allocation) {
  if (allocation->handles > 0 || allocation->mappings > 0) return;
  close(allocation->fd);
  allocations.erase(allocation);
  delete allocation;
}

int protection(const Mapping& m) {
  int widest = HKRT_VMM_ACCESS_NONE;
  for (const auto& grant : m.access) widest |= grant.second;
  return widest == HKRT_VMM_ACCESS_READ_WRITE ? PROT_READ | PROT_WRITE
         : widest == HKRT_VMM_ACCESS_READ     ? PROT_READ
                                              : PROT_NONE;
}

// Puts inaccessible anonymous pages back over a mapping (the range stays reserved).
void unmap_locked(std::map<uintptr_t, Mapping>::iterator it) {
  mmap(reinterpret_cast<void*>(it->first), it->second.size, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  hkrt_vmm* allocation = it->second.allocation;
  mappings.erase(it);
  --allocation->mappings;
  drop(allocation);
}

int live(hkrt_vmm* allocation) {
  return allocations.count(allocation) ? HKRT_SUCCESS
                                       : fail(HKRT_ERROR_INVALID_VALUE, "not a live allocation handle");
}

}  // namespace
}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_vmm_granularity(int recommended, size_t* out) {
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "granularity is NULL");
  *out = recommended ? kRecommended : page();
  return HKRT_SUCCESS;
}

int hkrt_vmm_reserve(void** ptr, size_t size, size_t alignment, void* addr) {
  if (ptr == nullptr || size == 0 || size % page() != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "a reservation's size must be a nonzero multiple of %zu", page());
  if (alignment == 0) alignment = page();
  if (alignment % page() != 0 || (alignment & (alignment - 1)) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "alignment %zu is not a power of two of pages", alignment);
  // Over-reserve by the alignment, then give back what lies outside the aligned range.
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void* base = mmap(addr, size + alignment, PROT_NONE, flags, -1, 0);
  if (base == MAP_FAILED) return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot reserve %zu bytes", size);
  const uintptr_t start = (uintptr_t(base) + alignment - 1) & ~(alignment - 1);
  if (start > uintptr_t(base)) munmap(base, start - uintptr_t(base));
  const uintptr_t end = uintptr_t(base) + size + alignment;
  if (end > start + size) munmap(reinterpret_cast<void*>(start + size), end - start - size);
  std::lock_guard<std::mutex> lock(vmm_mutex);
  reservations[start] = size;
  *ptr = reinterpret_cast<void*>(start);
  return HKRT_SUCCESS;
}

int hkrt_vmm_free(void* ptr, size_t size) {
  std::lock_guard<std::mutex> lock(vmm_mutex);
  auto it = reservations.find(uintptr_t(ptr));
  if (it == reservations.end() || it->second != size)
    return fail(HKRT_ERROR_INVALID_VALUE, "%p, %zu bytes, is not a reservation", ptr, size);
  // Mappings left in it go with it (as when a program exits).
  const uintptr_t end = it->first + it->second;
  for (auto m = mappings.lower_bound(it->first); m != mappings.end() && m->first < end;)
    unmap_locked(m++);
  munmap(ptr, size);
  reservations.erase(it);
  return HKRT_SUCCESS;
}

int hkrt_vmm_create(int index, size_t size, int exportable, hkrt_vmm** out) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr || size == 0 || size % page() != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "an allocation's size must be a nonzero multiple of %zu", page());
  char name[32];
  snprintf(name, sizeof(name), "hipkit-vmm:%d", index);
  const int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return fail(HKRT_ERROR_OUT_OF_MEMORY, "memfd_create: %s", strerror(errno));
  if (ftruncate(fd, off_t(size)) != 0) {
    close(fd);
    return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes", size);
  }
  auto* allocation = new hkrt_vmm{fd, size, index, exportable};
  std::lock_guard<std::mutex> lock(vmm_mutex);
  allocations.insert(allocation);
  *out = allocation;
  return HKRT_SUCCESS;
}

int hkrt_vmm_release(hkrt_vmm* allocation) {
  std::lock_guard<std::mutex> lock(vmm_mutex);
  if (int error = live(allocation)) return error;
  if (allocation->handles == 0) return fail(HKRT_ERROR_INVALID_VALUE, "the handle was released");
  --allocation->handles;
  drop(allocation);
  return HKRT_SUCCESS;
}

int hkrt_vmm_map(void* ptr, size_t size, size_t offset, hkrt_vmm* allocation) {
  std::lock_guard<std::mutex> lock(vmm_mutex);
  if (int error = live(allocation)) return error;
  const uintptr_t p = uintptr_t(ptr);
  if (size == 0 || p % page() != 0 || offset % page() != 0 || offset > allocation->size ||
      size > allocation->size - offset)
    return fail(HKRT_ERROR_INVALID_VALUE, "%zu bytes at offset %zu do not fit the allocation", size, offset);
  if (reservation_of(p, size) == reservations.end())
    return fail(HKRT_ERROR_INVALID_VALUE, "%p, %zu bytes, is not inside a reservation", ptr, size);
  auto next = mappings.lower_bound(p);
  const bool overlaps = (next != mappings.end() && next->first < p + size) ||
                        (next != mappings.begin() && std::prev(next)->first + std::prev(next)->second.size > p);
  if (overlaps) return fail(HKRT_ERROR_INVALID_VALUE, "%p is mapped already", ptr);
  void* at = mmap(ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, allocation->fd, off_t(offset));
  if (at == MAP_FAILED) return fail(HKRT_ERROR_OUT_OF_MEMORY, "mmap: %s", strerror(errno));
  mappings[p] = {size, allocation, {}};
  ++allocation->mappings;
  return HKRT_SUCCESS;
}

int hkrt_vmm_unmap(void* ptr, size_t size) {
  std::lock_guard<std::mutex> lock(vmm_mutex);
  auto whole = covering(uintptr_t(ptr), size);
  if (whole.empty()) return fail(HKRT_ERROR_INVALID_VALUE, "%p, %zu bytes, is not whole mappings", ptr, size);
  for (auto it : whole) unmap_locked(it);
  return HKRT_SUCCESS;
}

int hkrt_vmm_set_access(void* ptr, size_t size, int index, int access) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (access != HKRT_VMM_ACCESS_NONE && access != HKRT_VMM_ACCESS_READ && access != HKRT_VMM_ACCESS_READ_WRITE)
    return fail(HKRT_ERROR_INVALID_VALUE, "access flags %d", access);
  std::lock_guard<std::mutex> lock(vmm_mutex);
  auto whole = covering(uintptr_t(ptr), size);
  if (whole.empty()) return fail(HKRT_ERROR_INVALID_VALUE, "%p, %zu bytes, is not whole mappings", ptr, size);
  for (auto it : whole) {
    it->second.access[index] = access;
    mprotect(reinterpret_cast<void*>(it->first), it->second.size, protection(it->second));
  }
  return HKRT_SUCCESS;
}

int hkrt_vmm_get_access(const void* ptr, int index, int* access) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (access == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "flags is NULL");
  std::lock_guard<std::mutex> lock(vmm_mutex);
  auto it = mappings.upper_bound(uintptr_t(ptr));
  if (it == mappings.begin() || uintptr_t(ptr) >= std::prev(it)->first + std::prev(it)->second.size)
    return fail(HKRT_ERROR_INVALID_VALUE, "%p is not mapped", ptr);
  const auto& grants = std::prev(it)->second.access;
  auto grant = grants.find(index);
  *access = grant == grants.end() ? HKRT_VMM_ACCESS_NONE : grant->second;
  return HKRT_SUCCESS;
}

int hkrt_vmm_retain(const void* addr, hkrt_vmm** out) {
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "handle is NULL");
  std::lock_guard<std::mutex> lock(vmm_mutex);
  auto it = mappings.upper_bound(uintptr_t(addr));
  if (it == mappings.begin() || uintptr_t(addr) >= std::prev(it)->first + std::prev(it)->second.size)
    return fail(HKRT_ERROR_INVALID_VALUE, "%p is not mapped", addr);
  *out = std::prev(it)->second.allocation;
  ++(*out)->handles;
  return HKRT_SUCCESS;
}

int hkrt_vmm_info(hkrt_vmm* allocation, int* device, int* exportable, size_t* size) {
  std::lock_guard<std::mutex> lock(vmm_mutex);
  if (int error = live(allocation)) return error;
  *device = allocation->device;
  *exportable = allocation->exportable;
  *size = allocation->size;
  return HKRT_SUCCESS;
}

int hkrt_vmm_export(hkrt_vmm* allocation, int* fd) {
  std::lock_guard<std::mutex> lock(vmm_mutex);
  if (int error = live(allocation)) return error;
  if (!allocation->exportable)
    return fail(HKRT_ERROR_INVALID_VALUE, "the allocation was not made exportable as a file descriptor");
  *fd = fcntl(allocation->fd, F_DUPFD_CLOEXEC, 0);
  return *fd >= 0 ? HKRT_SUCCESS : fail(HKRT_ERROR_OUT_OF_MEMORY, "dup: %s", strerror(errno));
}

int hkrt_vmm_import(int fd, hkrt_vmm** out) {
  if (int error = ensure_init()) return error;
  // Only a hipkit allocation's file: its name says its device.
  char link[64], target[128] = "";
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, target, sizeof(target) - 1);
  int device = -1;
  struct stat info;
  if (out == nullptr || n <= 0 || sscanf(target, "/memfd:hipkit-vmm:%d", &device) != 1 || fstat(fd, &info) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "file descriptor %d is not an exported allocation", fd);
  const int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) return fail(HKRT_ERROR_OUT_OF_MEMORY, "dup: %s", strerror(errno));
  auto* allocation = new hkrt_vmm{own, size_t(info.st_size), device, 1};
  std::lock_guard<std::mutex> lock(vmm_mutex);
  allocations.insert(allocation);
  *out = allocation;
  return HKRT_SUCCESS;
}

}  // extern "C"
