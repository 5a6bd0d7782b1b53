// Whole programs under `hipkit prof`: the program writes its own trace.
//
// When libhipkit_cpu starts in an executable built by `hipkit cc` (it defines
// hkrt_whole_program, include/hipkit_cpu/program_profile.h) with
// HIPKIT_PROF_DIR set, this file opens <HIPKIT_PROF_DIR>/<pid>.native.tsv
// (native_trace.h) and, until the program exits, writes into it:
//
// - the program's HIP calls: each hip* function of the program headers opens
//   a scope (hkrt_profile_enter/exit); the outermost of each thread is a
//   record, and its correlation id, set as the thread's activity correlation
//   (activity.h), is carried by the kernels, copies and memsets it enqueues;
// - those kernels, copies and memsets, from the runtime's activity records,
//   read at every synchronizing call (hipDeviceSynchronize, a synchronous
//   copy...), every kDrainCalls calls, and at exit after waiting for the device;
// - allocations and frees (hkrt_profile_alloc), and roctx's marks and ranges
//   (roctx.h on the CPU is this file's roctx* functions).
//
// A fatal signal (a fault outside kernel code, abort, SIGTERM...) writes what
// was recorded before the signal takes its course: the handlers are installed
// here, before the runtime's, which hands them the faults not raised by
// kernel code.
#include <hipkit_cpu/program_visible.h>
#include <hipkit_cpu/runtime.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "activity.h"
#include "hipkit_trace/native_trace.h"

extern "C" {
// The program headers' side (include/hipkit_cpu/program_profile.h).
__attribute__((visibility("default"))) int hkrt_profile_on = 0;
__attribute__((weak)) extern const int hkrt_whole_program;
}

namespace {

using hk_native::line;
using hk_native::monotonic_ns;
using hk_native::thread_id;

// Outermost calls between two readings of the activity records when the
// program does not synchronize (a reading takes the records of finished work).
constexpr uint64_t kDrainCalls = 4096;

hk_native::Writer& writer() {
  static hk_native::Writer instance;  // made on first use: safe from a constructor
  return instance;
}

bool on() { return __atomic_load_n(&hkrt_profile_on, __ATOMIC_RELAXED) != 0; }

std::atomic<uint64_t> ids{0};  // correlation ids of calls and markers
std::atomic<uint64_t> calls_since_drain{0};
std::once_flag activity_started;

struct ThreadState {
  int depth = 0;
  uint64_t cid = 0;
  int64_t start = 0;
  bool named = false;
  int roctx_level = 0;                                // open roctxRangePushA ranges
  std::vector<std::pair<std::string, int64_t>> open;  // their messages and starts, while traced
};
ThreadState& state() { return hk_native::per_thread<ThreadState>(); }

std::mutex mutex;  // everything below
struct Allocated {
  size_t bytes;
  std::string device;  // its name in the trace, or "host"
};
std::unordered_map<uintptr_t, Allocated> allocated;  // by address
// Stream handle -> number shown: 0 a device's null stream, the others by first
// use.  Handles are unique across devices, and each device shows its null stream.
std::unordered_map<uint64_t, int64_t> streams;
uint64_t dispatch_ids = 0;
uint64_t devices_written = 0;  // bit d: the runtime's device d is in the trace
struct StartedRange {
  std::string message;
  int64_t start;
  int32_t thread;
};
std::unordered_map<uint64_t, StartedRange> started_ranges;  // roctxRangeStartA id -> its start
std::atomic<uint64_t> range_ids{0};

void name_thread(ThreadState& t) {
  if (t.named) return;
  t.named = true;
  char name[64] = "";
  pthread_getname_np(pthread_self(), name, sizeof(name));
  writer().write(line("thread").num(thread_id()).str(name).end());
}

const char* copy_kind(uint32_t kind) {
  switch (kind) {
    case HKRT_MEMCPY_HOST_TO_HOST: return "HOST_TO_HOST";
    case HKRT_MEMCPY_HOST_TO_DEVICE: return "HOST_TO_DEVICE";
    case HKRT_MEMCPY_DEVICE_TO_HOST: return "DEVICE_TO_HOST";
    case HKRT_MEMCPY_DEVICE_TO_DEVICE: return "DEVICE_TO_DEVICE";
    default: return "DEFAULT";
  }
}

// A device's name in the trace: "cpu:N", N the program's number for it (as
// the Python profiler names devices).
std::string device_name(int native) {
  const int ordinal = __hk::ordinal_of(native);
  return "cpu:" + std::to_string(ordinal >= 0 ? ordinal : native);
}

// Under `mutex`: the device's name, noted in the trace on first use.
std::string device_line(int native) {
  std::string name = device_name(native);
  if (native >= 0 && native < 64 && (devices_written & (uint64_t(1) << native)) == 0) {
    devices_written |= uint64_t(1) << native;
    hkrt_device_info info;
    std::string description = name;
    if (hkrt_get_device_info(native, &info) == HKRT_SUCCESS)
      description += std::string(" ") + info.name;
    writer().write(line("device").str(name.c_str()).str(description.c_str()).end());
  }
  return name;
}

void write_record(const hk_activity_record& r) {
  // Under `mutex`.  Work that never ran is left out (its call is in the API
  // trace, as is a refused launch's).
  if (r.status != HK_ACTIVITY_RAN) return;
  const std::string device = device_line(r.device);
  if (streams.empty()) streams[0] = 0;
  auto found = streams.find(r.stream);
  const int64_t stream =
      found != streams.end() ? found->second : (streams[r.stream] = int64_t(streams.size()));
  if (r.kind == HK_ACTIVITY_KERNEL) {
    writer().write(line("kernel").unum(++dispatch_ids).unum(r.correlation_id).num(r.thread_id)
                       .str(device.c_str()).num(stream).str(r.name).triple(r.grid).triple(r.block)
                       .unum(r.dynamic_shared).unum(r.static_shared).num(r.enqueue_ns).num(r.start_ns)
                       .num(r.end_ns).end());
    return;
  }
  const char* kind = r.kind == HK_ACTIVITY_MEMSET ? "MEMSET" : copy_kind(r.copy_kind);
  const bool from_host = r.kind == HK_ACTIVITY_COPY && (r.copy_kind == HKRT_MEMCPY_HOST_TO_DEVICE ||
                                                        r.copy_kind == HKRT_MEMCPY_HOST_TO_HOST);
  const bool to_host = r.kind == HK_ACTIVITY_COPY && (r.copy_kind == HKRT_MEMCPY_DEVICE_TO_HOST ||
                                                      r.copy_kind == HKRT_MEMCPY_HOST_TO_HOST);
  // The device side of a copy is the memory's device where it is known (a
  // peer copy's two), else the device it ran on.
  const std::string source =
      from_host ? "host" : r.src_device >= 0 ? device_line(r.src_device) : device;
  const std::string destination =
      to_host ? "host" : r.dst_device >= 0 ? device_line(r.dst_device) : device;
  writer().write(line("copy").unum(r.correlation_id).num(r.thread_id).str(device.c_str())
                     .num(stream).str(kind).unum(r.bytes).str(source.c_str())
                     .str(destination.c_str()).num(r.enqueue_ns).num(r.start_ns).num(r.end_ns)
                     .end());
}

// Writes the records of the work finished so far.
void drain() {
  calls_since_drain.store(0, std::memory_order_relaxed);
  hk_activity_record records[256];
  std::lock_guard<std::mutex> lock(mutex);
  for (size_t n; (n = hk_activity_read(records, 256)) > 0;)
    for (size_t i = 0; i < n; ++i) write_record(records[i]);
}

bool synchronizing(const char* function) {
  for (const char* name : {"hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
                           "hipDeviceReset"})
    if (strcmp(function, name) == 0) return true;
  const bool copy_or_set =
      strncmp(function, "hipMemcpy", 9) == 0 || strncmp(function, "hipMemset", 9) == 0;
  return copy_or_set && strstr(function, "Async") == nullptr;
}

void meta(const char* key, int64_t value) {
  writer().write(line("meta").str(key).raw(std::to_string(value).c_str()).end());
}

void write_marker(uint64_t cid, int32_t thread, const char* message, const char* kind,
                  int64_t depth, int64_t start, int64_t end) {
  writer().write(line("marker").unum(cid).num(thread).str(message).str(kind).num(depth).num(start)
                     .num(end).end());
}

// At exit, first: wait for the devices and write the records of their work.
// Registered by the first HIP call, so that it runs before the runtime's
// static objects are destroyed (those made when the library was loaded).
void finish_work() {
  if (!on()) return;
  int count = 0;
  hkrt_device_count(&count);
  for (int device = 0; device < count; ++device) hkrt_device_synchronize(device);
  drain();
  if (uint64_t dropped = hk_activity_dropped()) meta("dropped_records", int64_t(dropped));
}

// At exit, last: the end of the trace (registered when it began).
void finish() {
  if (!on()) return;
  __atomic_store_n(&hkrt_profile_on, 0, __ATOMIC_RELAXED);
  meta("ended_ns", monotonic_ns());
  writer().close();
}

void forked_child() {
  // The parent's trace: the child does not write into it.
  __atomic_store_n(&hkrt_profile_on, 0, __ATOMIC_RELAXED);
  writer().disown();
}

// Runs when libhipkit_cpu is loaded, before the program's static initializers
// (which start the runtime and install its fault handlers).  Only libc and
// this file's constant-initialized state are used: the runtime's other files
// may not be initialized yet.
__attribute__((constructor)) void start_if_profiled() {
  const char* directory = getenv("HIPKIT_PROF_DIR");
  if (&hkrt_whole_program == nullptr || directory == nullptr || directory[0] == '\0') return;
  if (!writer().open(directory)) {
    fprintf(stderr, "hipkit prof: cannot write the trace of process %d in %s: %s\n", int(getpid()),
            directory, strerror(errno));
    return;
  }
  meta("pid", getpid());
  meta("started_ns", monotonic_ns());
  hk_native::fatal::install(&writer());
  pthread_atfork(nullptr, nullptr, forked_child);
  atexit(finish);
  __atomic_store_n(&hkrt_profile_on, 1, __ATOMIC_RELAXED);
}

}  // namespace

extern "C" {

void hkrt_profile_enter(void) {
  ThreadState& t = state();
  if (t.depth++ != 0) return;
  // Activity starts with the first call (not in the constructor: activity.cpp
  // may not be initialized then); no work is enqueued before a call.
  std::call_once(activity_started, [] {
    hk_activity_enable(HK_ACTIVITY_DEFAULT_CAPACITY);
    atexit(finish_work);
  });
  t.cid = ids.fetch_add(1, std::memory_order_relaxed) + 1;
  hk_activity_set_correlation(t.cid);
  t.start = monotonic_ns();
}

void hkrt_profile_exit(const char* function) {
  ThreadState& t = state();
  if (t.depth == 0 || --t.depth != 0) return;
  const int64_t end = monotonic_ns();
  hk_activity_set_correlation(0);
  name_thread(t);
  writer().write(
      line("api").unum(t.cid).num(thread_id()).str(function).num(t.start).num(end).end());
  if (synchronizing(function) ||
      calls_since_drain.fetch_add(1, std::memory_order_relaxed) + 1 >= kDrainCalls)
    drain();
}

void hkrt_profile_alloc(int allocate, int host, const void* address, size_t size) {
  const ThreadState& t = state();
  const uintptr_t key = reinterpret_cast<uintptr_t>(address);
  std::string device = host ? "host" : "cpu:0";
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (allocate) {
      int owner = -1;
      if (!host && hkrt_pointer_info(address, nullptr, &owner) == HKRT_SUCCESS && owner >= 0)
        device = device_line(owner);
      allocated[key] = {size, device};
    } else {
      auto it = allocated.find(key);
      size = it != allocated.end() ? it->second.bytes : 0;
      if (it != allocated.end()) {
        device = it->second.device;
        allocated.erase(it);
      }
    }
  }
  writer().write(line("alloc").unum(t.cid).num(thread_id()).str(allocate ? "ALLOCATE" : "FREE")
                     .str(host ? "host" : "device").str(device.c_str()).unum(size)
                     .unum(key).num(t.start).num(monotonic_ns()).end());
}

// ---- roctx (roctx.h) ------------------------------------------------------------
// The nesting levels are kept whether traced or not (they are return values).

__attribute__((visibility("default"))) void roctxMarkA(const char* message) {
  if (!on()) return;
  ThreadState& t = state();
  name_thread(t);
  const int64_t now = monotonic_ns();
  write_marker(ids.fetch_add(1, std::memory_order_relaxed) + 1, thread_id(), message, "mark",
               t.roctx_level, now, now);
}

__attribute__((visibility("default"))) int roctxRangePushA(const char* message) {
  ThreadState& t = state();
  if (on()) t.open.emplace_back(message != nullptr ? message : "", monotonic_ns());
  return t.roctx_level++;
}

__attribute__((visibility("default"))) int roctxRangePop(void) {
  ThreadState& t = state();
  if (t.roctx_level == 0) return -1;
  --t.roctx_level;
  if (!t.open.empty() && on()) {
    const int64_t end = monotonic_ns();
    name_thread(t);
    write_marker(ids.fetch_add(1, std::memory_order_relaxed) + 1, thread_id(),
                 t.open.back().first.c_str(), "range", t.roctx_level, t.open.back().second, end);
  }
  if (!t.open.empty()) t.open.pop_back();
  return t.roctx_level;
}

__attribute__((visibility("default"))) uint64_t roctxRangeStartA(const char* message) {
  const uint64_t id = range_ids.fetch_add(1, std::memory_order_relaxed) + 1;
  if (on()) {
    name_thread(state());
    std::lock_guard<std::mutex> lock(mutex);
    started_ranges[id] = {message != nullptr ? message : "", monotonic_ns(), thread_id()};
  }
  return id;
}

__attribute__((visibility("default"))) void roctxRangeStop(uint64_t id) {
  if (!on()) return;
  const int64_t end = monotonic_ns();
  StartedRange range;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = started_ranges.find(id);
    if (it == started_ranges.end()) return;  // not a started range, or stopped already
    range = std::move(it->second);
    started_ranges.erase(it);
  }
  write_marker(ids.fetch_add(1, std::memory_order_relaxed) + 1, range.thread, range.message.c_str(),
               "range", 0, range.start, end);
}

}  // extern "C"
