// The devices: start-up and configuration (the host's cores and memory
// divided among HIPKIT_CPU_DEVICES devices), error reporting (per-thread
// detail and each device's sticky error), device properties, device-wide
// synchronize and reset.
#include <sched.h>
#include <sys/utsname.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>

#include "graph.h"

namespace hk {

Config config;
Device* devices = nullptr;

namespace {

std::mutex init_mutex;
std::atomic<bool> initialized{false};

thread_local std::string last_detail;

// Reads a positive integer from the environment; 0 if unset or empty.
int env_uint(const char* name, uint32_t max, uint32_t* out) {
  *out = 0;
  const char* raw = getenv(name);
  if (raw == nullptr || raw[0] == '\0') return HKRT_SUCCESS;
  char* end = nullptr;
  unsigned long value = strtoul(raw, &end, 10);
  if (end == raw || *end != '\0' || value == 0 || value > max)
    return fail(HKRT_ERROR_INVALID_VALUE, "%s=%s: expected an integer in 1..%u", name, raw, max);
  *out = uint32_t(value);
  return HKRT_SUCCESS;
}

uint32_t core_count() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return uint32_t(CPU_COUNT(&set));
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? uint32_t(online) : 1;
}

// The value of the first "key : value" line of a /proc file, or "".
std::string proc_field(const char* path, const char* key) {
  FILE* file = fopen(path, "r");
  if (file == nullptr) return "";
  char line[512];
  std::string value;
  size_t key_len = strlen(key);
  while (fgets(line, sizeof(line), file) != nullptr) {
    if (strncmp(line, key, key_len) != 0) continue;
    const char* colon = strchr(line + key_len, ':');
    if (colon == nullptr) continue;
    // The key must be followed only by blanks before the colon.
    if (strspn(line + key_len, " \t") != size_t(colon - line - key_len)) continue;
    value = colon + 1;
    size_t begin = value.find_first_not_of(" \t");
    size_t end = value.find_last_not_of(" \t\n");
    value = begin == std::string::npos ? "" : value.substr(begin, end - begin + 1);
    break;
  }
  fclose(file);
  return value;
}

uint32_t l2_cache_bytes() {
#ifdef _SC_LEVEL2_CACHE_SIZE
  long size = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (size > 0) return uint32_t(size);
#endif
  // sysfs lists the levels as index0..N; take the one whose level is 2.
  for (int index = 0; index < 8; ++index) {
    char path[128];
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
    FILE* file = fopen(path, "r");
    if (file == nullptr) break;
    int level = 0;
    bool ok = fscanf(file, "%d", &level) == 1;
    fclose(file);
    if (!ok || level != 2) continue;
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    file = fopen(path, "r");
    if (file == nullptr) break;
    unsigned long kib = 0;
    ok = fscanf(file, "%luK", &kib) == 1;
    fclose(file);
    if (ok) return uint32_t(kib * 1024);
  }
  return 0;
}

}  // namespace

int fail(int code, const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  last_detail = buffer;
  return code;
}

int sticky_check(Device* device) {
  int code = device->sticky_code.load(std::memory_order_acquire);
  if (code == HKRT_SUCCESS) return HKRT_SUCCESS;
  std::lock_guard<std::mutex> lock(device->sticky_mutex);
  return fail(code, "%s", device->sticky_detail.c_str());
}

void sticky_set(Device* device, int code, const char* detail) {
  std::lock_guard<std::mutex> lock(device->sticky_mutex);
  if (device->sticky_code.load(std::memory_order_relaxed) != HKRT_SUCCESS) return;
  device->sticky_detail = detail;
  device->sticky_code.store(code, std::memory_order_release);
  device->halt.store(true);
}

int ensure_init() {
  if (initialized.load(std::memory_order_acquire)) return HKRT_SUCCESS;
  return hkrt_init(0, 0, 0);
}

int device_get(int index, Device** out) {
  if (int error = ensure_init()) return error;
  if (index == -1)  // a program's current device when none is visible
    return fail(HKRT_ERROR_NO_DEVICE, "no CPU device is visible (HIP_VISIBLE_DEVICES)");
  if (index < 0 || uint32_t(index) >= config.num_devices)
    return fail(HKRT_ERROR_INVALID_DEVICE, "no CPU device %d: there %s %u (HIPKIT_CPU_DEVICES)",
                index, config.num_devices == 1 ? "is" : "are", config.num_devices);
  *out = &devices[index];
  return HKRT_SUCCESS;
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_init(uint32_t warp_size, uint32_t num_threads, uint32_t num_devices) {
  if (warp_size != 0 && warp_size != 32 && warp_size != 64)
    return fail(HKRT_ERROR_INVALID_VALUE, "warp size must be 32 or 64, not %u", warp_size);
  std::lock_guard<std::mutex> lock(init_mutex);
  if (initialized.load(std::memory_order_relaxed)) {
    if ((warp_size != 0 && warp_size != config.warp_size) ||
        (num_threads != 0 && num_threads != config.num_threads) ||
        (num_devices != 0 && num_devices != config.num_devices))
      return fail(HKRT_ERROR_INVALID_VALUE,
                  "the CPU runtime already runs with warp size %u, %u threads and %u device(s)",
                  config.warp_size, config.num_threads, config.num_devices);
    return HKRT_SUCCESS;
  }
  constexpr uint32_t kMaxThreads = 4096;
  if (num_threads > kMaxThreads)
    return fail(HKRT_ERROR_INVALID_VALUE, "at most %u worker threads", kMaxThreads);
  if (num_devices > kMaxDevices)
    return fail(HKRT_ERROR_INVALID_VALUE, "at most %u CPU devices", kMaxDevices);
  if (warp_size == 0) {
    if (int error = env_uint("HIPKIT_CPU_WARP_SIZE", 64, &warp_size)) return error;
    if (warp_size == 0) warp_size = 64;
    if (warp_size != 32 && warp_size != 64)
      return fail(HKRT_ERROR_INVALID_VALUE, "HIPKIT_CPU_WARP_SIZE=%u: expected 32 or 64",
                  warp_size);
  }
  if (num_threads == 0) {
    if (int error = env_uint("HIPKIT_CPU_THREADS", kMaxThreads, &num_threads)) return error;
    if (num_threads == 0) num_threads = core_count();
  }
  if (num_devices == 0) {
    if (int error = env_uint("HIPKIT_CPU_DEVICES", kMaxDevices, &num_devices)) return error;
    if (num_devices == 0) num_devices = 1;
  }
  if (int error = sanitize_init()) return error;
  const char* blocking = getenv("HIP_LAUNCH_BLOCKING");
  config.warp_size = warp_size;
  config.num_threads = num_threads;
  config.num_devices = num_devices;
  config.num_workers = 0;
  config.launch_blocking = blocking != nullptr && (strcmp(blocking, "1") == 0 ||
                                                   strcasecmp(blocking, "true") == 0 ||
                                                   strcasecmp(blocking, "yes") == 0 ||
                                                   strcasecmp(blocking, "on") == 0);
  // The threads are dealt out as evenly as they go, the first devices taking
  // the remainder; a device never has none, so more devices than threads
  // oversubscribe the cores rather than fail.
  devices = new Device[num_devices];
  for (uint32_t d = 0; d < num_devices; ++d) {
    Device& device = devices[d];
    device.index = int(d);
    device.num_workers = std::max(1u, num_threads / num_devices + (d < num_threads % num_devices));
    device.first_worker = config.num_workers;
    device.total_bytes = mem_total_bytes() / num_devices;
    config.num_workers += device.num_workers;
    streams_init(&device);
  }
  install_signal_handlers();
  for (uint32_t d = 0; d < num_devices; ++d)
    if (int error = start_workers(&devices[d])) return error;
  initialized.store(true, std::memory_order_release);
  return HKRT_SUCCESS;
}

int hkrt_device_count(int* count) {
  if (int error = ensure_init()) return error;
  if (count == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "device count: NULL output");
  *count = int(config.num_devices);
  return HKRT_SUCCESS;
}

int hkrt_get_device_info(int index, hkrt_device_info* out) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "device info: NULL output");
  memset(out, 0, sizeof(*out));
  std::string name = proc_field("/proc/cpuinfo", "model name");
  if (name.empty()) name = "CPU";
  if (config.num_devices > 1)
    name += " (CPU device " + std::to_string(index) + " of " + std::to_string(config.num_devices) +
            ")";
  snprintf(out->name, sizeof(out->name), "%s", name.c_str());
  utsname uts;
  snprintf(out->arch, sizeof(out->arch), "%.63s", uname(&uts) == 0 ? uts.machine : "unknown");
  out->total_global_mem = device->total_bytes;
  out->warp_size = config.warp_size;
  out->max_threads_per_block = 1024;
  out->max_threads_dim[0] = out->max_threads_dim[1] = out->max_threads_dim[2] = 1024;
  out->max_grid_size[0] = 2147483647u;
  out->max_grid_size[1] = out->max_grid_size[2] = 65535;
  out->shared_mem_per_block = 65536;
  out->multiprocessor_count = device->num_workers;
  std::string mhz = proc_field("/proc/cpuinfo", "cpu MHz");
  out->clock_rate_khz = mhz.empty() ? 0 : uint32_t(strtod(mhz.c_str(), nullptr) * 1000.0);
  out->l2_cache_size = l2_cache_bytes();
  out->total_const_mem = 65536;
  out->regs_per_block = 65536;
  return HKRT_SUCCESS;
}

const char* hkrt_last_error_detail(void) { return last_detail.c_str(); }

int hkrt_sticky_error(int index) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  return device->sticky_code.load(std::memory_order_acquire);
}

int hkrt_device_synchronize(int index) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = capture_admit(nullptr, kCaptureUnsafe)) return error;
  drain_all(device);
  pools_trim_on_sync();
  return sticky_check(device);
}

int hkrt_device_reset(int index) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  std::lock_guard<std::mutex> lock(device->reset_mutex);
  // Queued work is dropped, running kernels stop after their current block.
  device->halt.store(true);
  drain_all(device);
  // Kernels of the other devices may use this one's memory (peer access, or
  // a pointer passed without it): they finish before it is freed.
  drain_every_device();
  unload_all_modules(device);
  destroy_streams_and_events(device);
  pools_forget(device);
  limits_reset(device);
  free_all_allocations(device);
  peers_forget(device);
  {
    std::lock_guard<std::mutex> sticky_lock(device->sticky_mutex);
    device->sticky_code.store(HKRT_SUCCESS);
    device->sticky_detail.clear();
  }
  device->generation.fetch_add(1);
  device->halt.store(false);
  return HKRT_SUCCESS;
}

uint64_t hkrt_reset_generation(int index) {
  Device* device = nullptr;
  if (device_get(index, &device) != HKRT_SUCCESS) return 0;
  return device->generation.load();
}

}  // extern "C"
