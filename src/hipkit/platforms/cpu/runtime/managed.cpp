// The advice and prefetches given for managed memory (hipMemAdvise,
// hipMemPrefetchAsync), kept per page and answered by hipMemRangeGetAttribute
// as CUDA answers it.  Host and devices share one address space: nothing
// moves, but what was said of a range is what the program reads back.
#include <map>

#include "internal.h"

namespace hk {

namespace {

constexpr size_t kPage = 4096;
constexpr int kInvalidLocation = -2;  // hipInvalidDeviceId
constexpr int kHost = -1;             // hipCpuDeviceId

// hipMemoryAdvise, hipMemRangeAttribute
enum {
  kSetReadMostly = 1, kUnsetReadMostly, kSetPreferredLocation, kUnsetPreferredLocation,
  kSetAccessedBy, kUnsetAccessedBy, kSetCoarseGrain = 100, kUnsetCoarseGrain
};
enum { kReadMostly = 1, kPreferredLocation, kAccessedBy, kLastPrefetchLocation, kCoherency = 100 };

struct PageAdvice {
  bool read_mostly = false;
  bool coarse_grain = false;
  int preferred = kInvalidLocation;
  int last_prefetch = kInvalidLocation;
  uint64_t accessed_by = 0;   // bit d: device d
  bool host_accesses = false;  // accessed by hipCpuDeviceId
};

std::mutex advice_mutex;
std::map<uintptr_t, std::vector<PageAdvice>> advice;  // by allocation base

// The managed allocation [ptr, ptr + count) lies in (before taking
// advice_mutex: memory.cpp calls managed_forget under its own lock).
int managed_range(const void* ptr, size_t count, AllocationInfo* info) {
  if (count == 0 || !allocation_find(ptr, info) || info->kind != HKRT_MEMORY_MANAGED ||
      count > info->size - (uintptr_t(ptr) - info->base))
    return fail(HKRT_ERROR_INVALID_VALUE, "[%p, +%zu) is not a range of managed memory", ptr,
                count);
  return HKRT_SUCCESS;
}

// Its pages that the range covers, made on first use (under advice_mutex).
void pages_of(const AllocationInfo& info, const void* ptr, size_t count, PageAdvice** first,
              size_t* n) {
  std::vector<PageAdvice>& pages = advice[info.base];
  if (pages.empty()) pages.resize((info.size + kPage - 1) / kPage);
  const size_t begin = (uintptr_t(ptr) - info.base) / kPage;
  const size_t end = (uintptr_t(ptr) - info.base + count + kPage - 1) / kPage;
  *first = pages.data() + begin;
  *n = end - begin;
}

int check_location(int location, bool host_allowed) {
  if (location == kHost && host_allowed) return HKRT_SUCCESS;
  if (location < 0 || uint32_t(location) >= config.num_devices)
    return fail(HKRT_ERROR_INVALID_DEVICE, "%d is no device", location);
  return HKRT_SUCCESS;
}

// What every page says, or `mixed` where they differ.
template <class F> int common(const PageAdvice* pages, size_t n, F get, int mixed) {
  const int first = get(pages[0]);
  for (size_t i = 1; i < n; ++i)
    if (get(pages[i]) != first) return mixed;
  return first;
}

}  // namespace

void managed_forget(uintptr_t base) {
  std::lock_guard<std::mutex> lock(advice_mutex);
  advice.erase(base);
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_mem_advise(const void* ptr, size_t count, int what, int location) {
  if (int error = ensure_init()) return error;
  const bool located = what >= kSetPreferredLocation && what <= kUnsetAccessedBy;
  if (located)
    if (int error = check_location(location, true)) return error;
  AllocationInfo info{};
  if (int error = managed_range(ptr, count, &info)) return error;
  std::lock_guard<std::mutex> lock(advice_mutex);
  PageAdvice* pages = nullptr;
  size_t n = 0;
  pages_of(info, ptr, count, &pages, &n);
  const uint64_t bit = location >= 0 ? uint64_t(1) << location : 0;
  for (size_t i = 0; i < n; ++i) {
    PageAdvice& page = pages[i];
    switch (what) {
      case kSetReadMostly: page.read_mostly = true; break;
      case kUnsetReadMostly: page.read_mostly = false; break;
      case kSetPreferredLocation: page.preferred = location; break;
      case kUnsetPreferredLocation: page.preferred = kInvalidLocation; break;
      case kSetAccessedBy:
      case kUnsetAccessedBy:
        if (location == kHost)
          page.host_accesses = what == kSetAccessedBy;
        else
          page.accessed_by = what == kSetAccessedBy ? page.accessed_by | bit
                                                    : page.accessed_by & ~bit;
        break;
      case kSetCoarseGrain: page.coarse_grain = true; break;
      case kUnsetCoarseGrain: page.coarse_grain = false; break;
      default: return fail(HKRT_ERROR_INVALID_VALUE, "unknown memory advice %d", what);
    }
  }
  return HKRT_SUCCESS;
}

int hkrt_mem_prefetch(int index, const void* ptr, size_t count, int location,
                      hkrt_stream* handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = check_location(location, true)) return error;
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  if (int error = sticky_check(stream_device(stream))) return error;
  AllocationInfo info{};
  if (int error = managed_range(ptr, count, &info)) return error;
  std::lock_guard<std::mutex> lock(advice_mutex);
  PageAdvice* pages = nullptr;
  size_t n = 0;
  pages_of(info, ptr, count, &pages, &n);
  for (size_t i = 0; i < n; ++i) pages[i].last_prefetch = location;
  return HKRT_SUCCESS;
}

int hkrt_mem_range_attribute(void* data, size_t data_size, int attribute, const void* ptr,
                             size_t count) {
  if (int error = ensure_init()) return error;
  if (data == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "range attribute: NULL data");
  const bool list = attribute == kAccessedBy;
  if (list ? data_size == 0 || data_size % 4 != 0 : data_size != 4)
    return fail(HKRT_ERROR_INVALID_VALUE, "range attribute %d: %zu bytes of data", attribute,
                data_size);
  AllocationInfo info{};
  if (int error = managed_range(ptr, count, &info)) return error;
  std::lock_guard<std::mutex> lock(advice_mutex);
  PageAdvice* pages = nullptr;
  size_t n = 0;
  pages_of(info, ptr, count, &pages, &n);
  int* out = static_cast<int*>(data);
  switch (attribute) {
    case kReadMostly:
      *out = common(pages, n, [](const PageAdvice& p) { return int(p.read_mostly); }, 0);
      return HKRT_SUCCESS;
    case kPreferredLocation:
      *out = common(pages, n, [](const PageAdvice& p) { return p.preferred; }, kInvalidLocation);
      return HKRT_SUCCESS;
    case kLastPrefetchLocation:
      *out = common(pages, n, [](const PageAdvice& p) { return p.last_prefetch; },
                    kInvalidLocation);
      return HKRT_SUCCESS;
    case kCoherency:
      *out = common(pages, n, [](const PageAdvice& p) { return int(p.coarse_grain); }, 2);
      return HKRT_SUCCESS;
    case kAccessedBy: {
      // The locations with the advice on the whole range, then hipInvalidDeviceId.
      uint64_t devices = ~uint64_t(0);
      bool host = true;
      for (size_t i = 0; i < n; ++i) devices &= pages[i].accessed_by, host &= pages[i].host_accesses;
      const size_t slots = data_size / 4;
      size_t filled = 0;
      if (host && filled < slots) out[filled++] = kHost;
      for (uint32_t d = 0; d < config.num_devices && filled < slots; ++d)
        if (devices & (uint64_t(1) << d)) out[filled++] = int(d);
      while (filled < slots) out[filled++] = kInvalidLocation;
      return HKRT_SUCCESS;
    }
    default: return fail(HKRT_ERROR_INVALID_VALUE, "unknown range attribute %d", attribute);
  }
}

}  // extern "C"
