// The device: start-up and configuration, error reporting (per-thread detail
// and the sticky error), device properties, device-wide synchronize and reset.
#include <sched.h>
#include <sys/utsname.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "internal.h"

namespace hk {

Config config;
std::atomic<bool> halt{false};

namespace {

std::mutex init_mutex;
std::atomic<bool> initialized{false};

std::atomic<int> sticky_code{0};
std::mutex sticky_mutex;  // guards sticky_detail
std::string sticky_detail;

std::atomic<uint64_t> generation{0};

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

int sticky_check() {
  int code = sticky_code.load(std::memory_order_acquire);
  if (code == HKRT_SUCCESS) return HKRT_SUCCESS;
  std::lock_guard<std::mutex> lock(sticky_mutex);
  return fail(code, "%s", sticky_detail.c_str());
}

void sticky_set(int code, const char* detail) {
  std::lock_guard<std::mutex> lock(sticky_mutex);
  if (sticky_code.load(std::memory_order_relaxed) != HKRT_SUCCESS) return;
  sticky_detail = detail;
  sticky_code.store(code, std::memory_order_release);
  halt.store(true);
}

int ensure_init() {
  if (initialized.load(std::memory_order_acquire)) return HKRT_SUCCESS;
  return hkrt_init(0, 0);
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_init(uint32_t warp_size, uint32_t num_threads) {
  if (warp_size != 0 && warp_size != 32 && warp_size != 64)
    return fail(HKRT_ERROR_INVALID_VALUE, "warp size must be 32 or 64, not %u", warp_size);
  std::lock_guard<std::mutex> lock(init_mutex);
  if (initialized.load(std::memory_order_relaxed)) {
    if ((warp_size != 0 && warp_size != config.warp_size) ||
        (num_threads != 0 && num_threads != config.num_workers))
      return fail(HKRT_ERROR_INVALID_VALUE,
                  "the CPU runtime already runs with warp size %u and %u threads",
                  config.warp_size, config.num_workers);
    return HKRT_SUCCESS;
  }
  constexpr uint32_t kMaxThreads = 4096;
  if (num_threads > kMaxThreads)
    return fail(HKRT_ERROR_INVALID_VALUE, "at most %u worker threads", kMaxThreads);
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
  const char* blocking = getenv("HIP_LAUNCH_BLOCKING");
  config.warp_size = warp_size;
  config.num_workers = num_threads;
  config.launch_blocking = blocking != nullptr && (strcmp(blocking, "1") == 0 ||
                                                   strcasecmp(blocking, "true") == 0 ||
                                                   strcasecmp(blocking, "yes") == 0 ||
                                                   strcasecmp(blocking, "on") == 0);
  install_signal_handlers();
  if (int error = start_workers()) return error;
  initialized.store(true, std::memory_order_release);
  return HKRT_SUCCESS;
}

int hkrt_get_device_info(hkrt_device_info* out) {
  if (int error = ensure_init()) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "device info: NULL output");
  memset(out, 0, sizeof(*out));
  std::string name = proc_field("/proc/cpuinfo", "model name");
  snprintf(out->name, sizeof(out->name), "%s", name.empty() ? "CPU" : name.c_str());
  utsname uts;
  snprintf(out->arch, sizeof(out->arch), "%.63s", uname(&uts) == 0 ? uts.machine : "unknown");
  out->total_global_mem = mem_total_bytes();
  out->warp_size = config.warp_size;
  out->max_threads_per_block = 1024;
  out->max_threads_dim[0] = out->max_threads_dim[1] = out->max_threads_dim[2] = 1024;
  out->max_grid_size[0] = 2147483647u;
  out->max_grid_size[1] = out->max_grid_size[2] = 65535;
  out->shared_mem_per_block = 65536;
  out->multiprocessor_count = config.num_workers;
  std::string mhz = proc_field("/proc/cpuinfo", "cpu MHz");
  out->clock_rate_khz = mhz.empty() ? 0 : uint32_t(strtod(mhz.c_str(), nullptr) * 1000.0);
  out->l2_cache_size = l2_cache_bytes();
  out->total_const_mem = 65536;
  out->regs_per_block = 65536;
  return HKRT_SUCCESS;
}

const char* hkrt_last_error_detail(void) { return last_detail.c_str(); }

int hkrt_sticky_error(void) { return sticky_code.load(std::memory_order_acquire); }

int hkrt_device_synchronize(void) {
  if (int error = ensure_init()) return error;
  drain_all();
  return sticky_check();
}

int hkrt_device_reset(void) {
  if (int error = ensure_init()) return error;
  static std::mutex reset_mutex;
  std::lock_guard<std::mutex> lock(reset_mutex);
  // Queued work is dropped, running kernels stop after their current block.
  halt.store(true);
  drain_all();
  unload_all_modules();
  destroy_streams_and_events();
  free_all_allocations();
  {
    std::lock_guard<std::mutex> sticky_lock(sticky_mutex);
    sticky_code.store(HKRT_SUCCESS);
    sticky_detail.clear();
  }
  generation.fetch_add(1);
  halt.store(false);
  return HKRT_SUCCESS;
}

uint64_t hkrt_reset_generation(void) { return generation.load(); }

}  // extern "C"
