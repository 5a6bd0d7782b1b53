// hipkit sanitize on the CPU: the probes of instrumented kernels and memcheck.
//
// The probe mechanism: kernels built for a tool (platforms/cpu/compiler.py, when
// HIPKIT_SANITIZE names one) are compiled with GCC's address-sanitizer instrumentation
// in its callback form (-fsanitize=kernel-address with every check a call), so that
// each load and store of kernel code calls __asan_{load,store}{1,2,4,8,16,N}_noabort
// with its address, here, before it happens; the uninstrumented build has no calls.
// Each tool chooses what it does with a probe; memcheck (the only tool yet) checks the
// address against the device allocations:
//
// - in an allocation's mapping but past its requested size: out of bounds, "N bytes
//   after" it (device memory is mapped whole pages, so such an access stays in memory
//   of its own and is harmless until reported);
// - in an allocation that hipFree freed: memory.cpp keeps freed memory mapped while a
//   tool runs (a quarantine of up to kQuarantineBytes), so a stale pointer reads freed
//   memory, not another allocation's;
// - anywhere else (the stack, the runtime's structures, tables in the module): not
//   device memory, not checked.
//
// A report names the kernel, the thread and block (the TLS threadIdx that instrumented
// builds keep up to date), the source line (addr2line on the probe's return address),
// the address, the allocation and the access size, in compute-sanitizer's shape.  The
// block finishes; then the launch fails with hipErrorLaunchFailure, as a kernel that
// compute-sanitizer stops does.  At exit the runtime reports the allocations never freed
// (HIPKIT_SANITIZE_LEAK_CHECK=full), prints the summary, writes the error count to
// HIPKIT_SANITIZE_REPORT (hipkit sanitize reads it) and, with errors and
// HIPKIT_SANITIZE_ERROR_EXITCODE, exits with that code.
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "internal.h"

namespace hk {

namespace {

struct Region {
  size_t size;  // as requested
  size_t span;  // the bytes from its base that no other allocation can own
  int kind;
  bool freed;
};

std::atomic<int> active_tool{0};  // SanitizeTool
unsigned print_limit = 100;  // 0: every error
bool leak_check = false;     // HIPKIT_SANITIZE_LEAK_CHECK=full
int error_exitcode = 0;
std::string report_path;

std::shared_mutex regions_mutex;
std::map<uintptr_t, Region> regions;

std::mutex report_mutex;
std::atomic<uint64_t> errors{0};
uint64_t printed = 0;  // under report_mutex

// The errors of the block this thread runs: the block that made one fails.
__thread uint64_t thread_errors = 0;

// An unsigned number of the environment, `fallback` if unset.
int env_number(const char* name, unsigned long max, unsigned long fallback, unsigned long* out) {
  *out = fallback;
  const char* raw = getenv(name);
  if (raw == nullptr || raw[0] == '\0') return HKRT_SUCCESS;
  char* end = nullptr;
  const unsigned long value = strtoul(raw, &end, 10);
  if (end == raw || *end != '\0' || value > max)
    return fail(HKRT_ERROR_INVALID_VALUE, "%s=%s: expected an integer in 0..%lu", name, raw, max);
  *out = value;
  return HKRT_SUCCESS;
}

const char* kind_name(int kind) {
  switch (kind) {
    case HKRT_MEMORY_HOST:
      return "pinned host";
    case HKRT_MEMORY_MANAGED:
      return "managed";
    default:
      return "device";
  }
}

// "file:line" of a code address, or "" (addr2line, from the compiler's binutils).
std::string source_line(const void* pc) {
  Dl_info info{};
  if (dladdr(pc, &info) == 0 || info.dli_fname == nullptr) return "";
  // The program's own code is named as it was started (argv[0]), or not at all;
  // libraries by their paths.
  char program[4096];
  const char* file = info.dli_fname;
  if (strchr(file, '/') == nullptr) {
    const ssize_t length = readlink("/proc/self/exe", program, sizeof(program) - 1);
    if (length <= 0) return "";
    program[length] = '\0';
    file = program;
  }
  const uintptr_t offset = uintptr_t(pc) - uintptr_t(info.dli_fbase) - 1;  // the call, not after it
  char address[32];
  snprintf(address, sizeof(address), "0x%" PRIxPTR, offset);
  // addr2line run directly (no shell: the path is passed as it is), its output piped back.
  int out[2];
  if (pipe(out) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  char* argv[] = {const_cast<char*>("addr2line"), const_cast<char*>("-e"), const_cast<char*>(file), address,
                  nullptr};
  pid_t child = 0;
  const bool spawned = posix_spawnp(&child, "addr2line", &actions, nullptr, argv, environ) == 0;
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  char line[4096] = "";
  size_t got = 0;
  for (ssize_t n; spawned && got + 1 < sizeof(line) && (n = read(out[0], line + got, sizeof(line) - 1 - got)) > 0;)
    got += size_t(n);
  close(out[0]);
  if (spawned) waitpid(child, nullptr, 0);
  line[got] = '\0';
  if (got == 0 || line[0] == '?') return "";
  line[strcspn(line, "\n")] = '\0';
  if (char* discriminator = strstr(line, " (discriminator")) *discriminator = '\0';
  const char* name = line;
  while (strncmp(name, "./", 2) == 0) name += 2;  // a module's build directory, mapped to "."
  return name;
}

void report(uintptr_t address, size_t size, bool write, const void* pc, uintptr_t base, const Region& r) {
  ++thread_errors;
  errors.fetch_add(1);
  std::lock_guard<std::mutex> lock(report_mutex);
  if (print_limit != 0 && printed >= print_limit) return;  // 0: no limit, as compute-sanitizer's
  ++printed;
  ExecContext* exec = tls_exec;
  const hk_kernel_desc* kernel = exec != nullptr ? exec->kernel : nullptr;
  const std::string where = source_line(pc);
  fprintf(stderr, "========= Invalid __global__ %s of size %zu bytes\n", write ? "write" : "read", size);
  // The offset from the kernel's block function, where the access is (its code inlined).
  const uintptr_t entry = kernel != nullptr ? uintptr_t(kernel->symbol) : 0;
  if (entry != 0 && uintptr_t(pc) > entry)
    fprintf(stderr, "=========     at %s+0x%" PRIxPTR " in %s\n", kernel->name, uintptr_t(pc) - entry,
            where.empty() ? "(no line information)" : where.c_str());
  else
    fprintf(stderr, "=========     at 0x%" PRIxPTR " in %s (kernel %s)\n", uintptr_t(pc),
            where.empty() ? "(no line information)" : where.c_str(), kernel != nullptr ? kernel->name : "?");
  fprintf(stderr, "=========     by thread (%u,%u,%u) in block (%u,%u,%u)\n", threadIdx.x, threadIdx.y,
          threadIdx.z, blockIdx.x, blockIdx.y, blockIdx.z);
  if (r.freed) {
    fprintf(stderr, "=========     Address 0x%" PRIxPTR " is in freed memory\n", address);
    fprintf(stderr,
            "=========     and is %" PRIuPTR " bytes inside the %s allocation at 0x%" PRIxPTR
            " of size %zu bytes, which was freed\n",
            address - base, kind_name(r.kind), base, r.size);
  } else {
    fprintf(stderr, "=========     Address 0x%" PRIxPTR " is out of bounds\n", address);
    const uintptr_t end = base + r.size;
    if (address >= end)
      fprintf(stderr,
              "=========     and is %" PRIuPTR " bytes after the nearest allocation at 0x%" PRIxPTR
              " of size %zu bytes\n",
              address - end, base, r.size);
    else
      fprintf(stderr,
              "=========     and runs %" PRIuPTR " bytes past the end of the allocation at 0x%" PRIxPTR
              " of size %zu bytes\n",
              address + size - end, base, r.size);
  }
  fprintf(stderr, "=========\n");
}

// What this thread looked up last, valid while `generation` (bumped by every change of
// the regions) is the same: the allocations its addresses fell in, and the stretches
// between allocations (the stack, the runtime's memory) that others fell in, a few of
// each (a kernel reads and writes several arrays).  Most probes are answered here,
// without the lock.
constexpr int kSeen = 4;
struct Seen {
  uint64_t generation = ~uint64_t(0);
  uintptr_t base[kSeen] = {};
  Region region[kSeen] = {};  // span 0: none
  uintptr_t gap_lo[kSeen] = {}, gap_hi[kSeen] = {};
  unsigned next_region = 0, next_gap = 0;  // the entries replaced next
};
std::atomic<uint64_t> generation{0};
__thread Seen seen __attribute__((tls_model("initial-exec")));

void changed() { generation.fetch_add(1, std::memory_order_release); }

inline void check_in(uintptr_t address, size_t size, bool write, const void* pc, uintptr_t base, const Region& r) {
  if (r.freed || address + size > base + r.size) report(address, size, write, pc, base, r);
}

inline void check(uintptr_t address, size_t size, bool write, const void* pc) {
  if (active_tool.load(std::memory_order_relaxed) != SANITIZE_MEMCHECK) return;
  const uint64_t now = generation.load(std::memory_order_acquire);
  Seen& s = seen;
  if (s.generation == now) {
    for (int k = 0; k < kSeen; ++k)
      if (address - s.base[k] < s.region[k].span) return check_in(address, size, write, pc, s.base[k], s.region[k]);
    for (int k = 0; k < kSeen; ++k)
      if (address >= s.gap_lo[k] && address < s.gap_hi[k]) return;
  } else {
    s = Seen{};
    s.generation = now;
  }
  std::shared_lock<std::shared_mutex> lock(regions_mutex);
  auto it = regions.upper_bound(address);
  const uintptr_t next = it == regions.end() ? ~uintptr_t(0) : it->first;
  const bool after_one = it != regions.begin();
  if (after_one) --it;
  if (!after_one || address - it->first >= it->second.span) {  // no allocation's memory
    const unsigned k = s.next_gap++ % kSeen;
    s.gap_lo[k] = after_one ? it->first + it->second.span : 0;
    s.gap_hi[k] = next;
    return;
  }
  const unsigned k = s.next_region++ % kSeen;
  s.base[k] = it->first;
  s.region[k] = it->second;
  lock.unlock();
  check_in(address, size, write, pc, s.base[k], s.region[k]);
}

// --leak-check full: every allocation still live at exit is an error.
void report_leaks() {
  std::shared_lock<std::shared_mutex> lock(regions_mutex);
  uint64_t bytes = 0, count = 0;
  for (const auto& [base, r] : regions) {
    if (r.freed) continue;
    ++count;
    bytes += r.size;
    fprintf(stderr, "========= Leaked %zu bytes at 0x%" PRIxPTR " (%s memory)\n", r.size, base, kind_name(r.kind));
  }
  if (count == 0) return;
  fprintf(stderr, "=========\n========= LEAK SUMMARY: %" PRIu64 " bytes leaked in %" PRIu64 " allocation%s\n", bytes,
          count, count == 1 ? "" : "s");
  errors.fetch_add(count);
}

void at_exit() {
  if (leak_check) report_leaks();
  const uint64_t count = errors.load();
  fprintf(stderr, "========= ERROR SUMMARY: %" PRIu64 " error%s\n", count, count == 1 ? "" : "s");
  if (!report_path.empty()) {
    if (FILE* file = fopen(report_path.c_str(), "w")) {
      fprintf(file, "%" PRIu64 "\n", count);
      fclose(file);
    }
  }
  fflush(nullptr);  // every stream: _exit does not
  if (count != 0 && error_exitcode != 0) _exit(error_exitcode);
}

}  // namespace

bool from_environment = false;  // HIPKIT_SANITIZE's tool: it lasts as long as the process

int sanitize_init() {
  const char* tool = getenv("HIPKIT_SANITIZE");
  if (tool == nullptr || tool[0] == '\0' || strcasecmp(tool, "off") == 0) return HKRT_SUCCESS;
  if (strcasecmp(tool, "memcheck") != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "HIPKIT_SANITIZE=%s: expected off or memcheck", tool);
  unsigned long limit = 0, code = 0;
  if (int error = env_number("HIPKIT_SANITIZE_PRINT_LIMIT", 1ul << 30, 100, &limit)) return error;
  if (int error = env_number("HIPKIT_SANITIZE_ERROR_EXITCODE", 255, 0, &code)) return error;
  print_limit = unsigned(limit);
  error_exitcode = int(code);
  if (const char* path = getenv("HIPKIT_SANITIZE_REPORT")) report_path = path;
  if (const char* leaks = getenv("HIPKIT_SANITIZE_LEAK_CHECK")) {
    if (strcasecmp(leaks, "full") == 0)
      leak_check = true;
    else if (leaks[0] != '\0' && strcasecmp(leaks, "no") != 0)
      return fail(HKRT_ERROR_INVALID_VALUE, "HIPKIT_SANITIZE_LEAK_CHECK=%s: expected full or no", leaks);
  }
  from_environment = true;
  active_tool.store(SANITIZE_MEMCHECK);
  atexit(at_exit);
  return HKRT_SUCCESS;
}

bool sanitize_active() { return active_tool.load(std::memory_order_relaxed) != 0; }

void sanitize_allocated(uintptr_t base, size_t size, size_t span, int kind) {
  std::unique_lock<std::shared_mutex> lock(regions_mutex);
  regions[base] = Region{size, span, kind, false};
  changed();
}

void sanitize_freed(uintptr_t base) {
  std::unique_lock<std::shared_mutex> lock(regions_mutex);
  auto it = regions.find(base);
  if (it != regions.end()) it->second.freed = true;
  changed();
}

void sanitize_released(uintptr_t base) {
  std::unique_lock<std::shared_mutex> lock(regions_mutex);
  regions.erase(base);
  changed();
}

// After a block: its errors fail the launch.
void sanitize_block_end() {
  if (thread_errors == 0) return;
  const uint64_t count = thread_errors;
  thread_errors = 0;
  char message[160];
  snprintf(message, sizeof(message), "memcheck found %" PRIu64 " error%s", count, count == 1 ? "" : "s");
  __hk_trap(HKRT_ERROR_LAUNCH_FAILURE, message);
}

}  // namespace hk

using namespace hk;

// The probes (GCC's kernel-address callbacks).  noinline: their return address is the
// access's place in the kernel.
#define HK_PROBE(SIZE)                                                                               \
  extern "C" __attribute__((visibility("default"), noinline)) void __asan_load##SIZE##_noabort(     \
      uintptr_t address) {                                                                           \
    check(address, SIZE, false, __builtin_return_address(0));                                        \
  }                                                                                                  \
  extern "C" __attribute__((visibility("default"), noinline)) void __asan_store##SIZE##_noabort(    \
      uintptr_t address) {                                                                           \
    check(address, SIZE, true, __builtin_return_address(0));                                         \
  }
HK_PROBE(1)
HK_PROBE(2)
HK_PROBE(4)
HK_PROBE(8)
HK_PROBE(16)
#undef HK_PROBE

extern "C" __attribute__((visibility("default"), noinline)) void __asan_loadN_noabort(uintptr_t address,
                                                                                      size_t size) {
  check(address, size, false, __builtin_return_address(0));
}
extern "C" __attribute__((visibility("default"), noinline)) void __asan_storeN_noabort(uintptr_t address,
                                                                                       size_t size) {
  check(address, size, true, __builtin_return_address(0));
}

// What the instrumentation calls besides the probes: the order of dynamic initializers
// (not checked), calls that do not return (nothing to undo), and the compiler's own
// copies and fills, checked as the accesses they are.
extern "C" __attribute__((visibility("default"))) void __asan_before_dynamic_init(const char*) {}
extern "C" __attribute__((visibility("default"))) void __asan_after_dynamic_init() {}
extern "C" __attribute__((visibility("default"))) void __asan_handle_no_return() {}
extern "C" __attribute__((visibility("default"), noinline)) void* __asan_memcpy(void* to, const void* from,
                                                                               size_t size) {
  check(uintptr_t(from), size, false, __builtin_return_address(0));
  check(uintptr_t(to), size, true, __builtin_return_address(0));
  return memcpy(to, from, size);
}
extern "C" __attribute__((visibility("default"), noinline)) void* __asan_memmove(void* to, const void* from,
                                                                                size_t size) {
  check(uintptr_t(from), size, false, __builtin_return_address(0));
  check(uintptr_t(to), size, true, __builtin_return_address(0));
  return memmove(to, from, size);
}
extern "C" __attribute__((visibility("default"), noinline)) void* __asan_memset(void* to, int value,
                                                                               size_t size) {
  check(uintptr_t(to), size, true, __builtin_return_address(0));
  return memset(to, value, size);
}

// The thread an instrumented kernel runs (abi.h's __HK_SET_THREAD): out of line, so that
// the optimizer keeps it where the thread starts.
extern "C" __attribute__((visibility("default"), noinline)) void __hk_probe_thread(hk_index3 thread) {
  threadIdx = thread;
}

extern "C" {

int hkrt_sanitize_start(const char* tool, uint32_t limit) {
  if (int error = ensure_init()) return error;
  if (tool == nullptr || strcmp(tool, "memcheck") != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "unknown sanitizer tool %s: expected memcheck", tool ? tool : "NULL");
  static std::mutex start_mutex;
  std::lock_guard<std::mutex> hold(start_mutex);
  if (sanitize_active())
    return fail(HKRT_ERROR_INVALID_VALUE,
                from_environment ? "HIPKIT_SANITIZE's checks already run in this process"
                                 : "a sanitizer already runs (hipkit.sanitize)");
  {
    std::lock_guard<std::mutex> lock(report_mutex);
    print_limit = limit;
    printed = 0;
  }
  errors.store(0);
  active_tool.store(SANITIZE_MEMCHECK);  // first: an allocation made from here on is told
  sanitize_known_allocations();
  return HKRT_SUCCESS;
}

int hkrt_sanitize_stop(uint64_t* count) {
  if (count == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "hkrt_sanitize_stop: NULL count");
  if (!sanitize_active()) return fail(HKRT_ERROR_INVALID_VALUE, "no sanitizer runs");
  if (from_environment)
    return fail(HKRT_ERROR_INVALID_VALUE, "HIPKIT_SANITIZE's checks last as long as the process");
  active_tool.store(SANITIZE_OFF);
  *count = errors.load();
  sanitize_release_quarantine();
  std::unique_lock<std::shared_mutex> lock(regions_mutex);
  regions.clear();
  changed();
  return HKRT_SUCCESS;
}

}  // extern "C"
