// The device limits of hipDeviceGetLimit / hipDeviceSetLimit.
//
// Kernel code runs on the host: its stack is a fiber's (fiber.cpp), fixed in
// size, so a larger stack limit cannot be given; device printf writes
// straight to stdout, so its FIFO never fills; the heap limit is kept as set.
#include <array>

#include "internal.h"

namespace hk {

namespace {

// hipLimit_t
enum { kStackSize = 0, kPrintfFifoSize = 1, kMallocHeapSize = 2, kCount };

constexpr size_t kFiberStack = 256 << 10;  // fiber.cpp's kStackBytes
// CUDA's defaults where the CPU has no reason to differ.
constexpr size_t kDefaults[kCount] = {1024, 1 << 20, 8 << 20};

std::mutex limits_mutex;
std::vector<std::array<size_t, kCount>> limits;  // per device, made on first use

}  // namespace

void limits_reset(Device* device) {
  std::lock_guard<std::mutex> lock(limits_mutex);
  if (!limits.empty())
    for (int i = 0; i < kCount; ++i) limits[device->index][i] = kDefaults[i];
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_device_limit(int index, int limit, size_t* value, int set) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (value == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "device limit: NULL value");
  if (limit < 0 || limit >= kCount)
    return fail(HKRT_ERROR_UNSUPPORTED_LIMIT, "limit %d is not supported on the CPU", limit);
  if (set && limit == kStackSize && *value > kFiberStack)
    return fail(HKRT_ERROR_INVALID_VALUE,
                "a stack of %zu bytes per thread exceeds the CPU's fiber stacks of %zu", *value,
                kFiberStack);
  std::lock_guard<std::mutex> lock(limits_mutex);
  if (limits.empty()) {
    limits.resize(config.num_devices);
    for (auto& device_limits : limits)
      for (int i = 0; i < kCount; ++i) device_limits[i] = kDefaults[i];
  }
  if (set)
    limits[index][limit] = *value;
  else
    *value = limits[index][limit];
  return HKRT_SUCCESS;
}

}  // extern "C"
