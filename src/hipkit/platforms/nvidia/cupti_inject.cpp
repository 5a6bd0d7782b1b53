// hipkit prof's tracer of NVIDIA programs: a CUPTI injection library.
//
// `hipkit prof` builds it on first use (hipkit/profiler/_cupti.py) and names
// it in CUDA_INJECTION64_PATH for the program it runs; the CUDA driver loads
// it into every process that initializes CUDA and calls InitializeInjection.
// It writes the process's native trace file (hipkit_trace/native_trace.h, read by
// hipkit/profiler/_native.py), the same file the CPU runtime writes for CPU
// programs:
//
// - API calls, from CUPTI's callbacks of the runtime and driver APIs: the
//   outermost call of each thread (a runtime call's own driver calls are its
//   inside), named as HIP names them (hip_names.inc, made from hipify's
//   table), timed on CLOCK_MONOTONIC, with CUPTI's correlation id; and the
//   allocations and frees they make (cudaMalloc, cudaFree, cudaMallocHost...).
// - Kernels, copies and memsets, from CUPTI's activity records (timestamps on
//   CLOCK_MONOTONIC through a timestamp callback), carrying the correlation
//   id, thread and host time of the call that enqueued them.
// - NVTX marks and ranges (roctx.h on NVIDIA is NVTX), from CUPTI's marker
//   records: NVTX_INJECTION64_PATH names libcupti, set by `hipkit prof` too.
//
// Records reach the file as CUPTI completes its buffers and at exit
// (cuptiActivityFlushAll); a fatal signal writes what has reached the writer.
// A process that hipkit's Python tracer traces itself (its <pid>.spool exists)
// is left alone.
//
// Compiled with -D naming the newest versions of CUPTI's record structs
// (HK_KERNEL_RECORD=CUpti_ActivityKernel10, ...): their fields used here are
// the same in every version; HK_CUPTI_TIMESTAMP_CALLBACK=1 where CUPTI can
// take its timestamps from us.
//
// CUPTI's headers that the library uses, not cupti.h: that one also brings
// the parameters of every runtime and driver function, which need the CUDA
// headers of the same release (CUPTI's wheel may be newer than the toolkit).
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "hipkit_trace/native_trace.h"

namespace {

using hk_native::line;
using hk_native::monotonic_ns;
using hk_native::thread_id;

struct HipName {
  const char* cuda;
  const char* hip;
};
// CUDA runtime and driver functions -> HIP's names, sorted by CUDA name.
constexpr HipName kHipNames[] = {
#include "hip_names.inc"
};

hk_native::Writer writer;
CUpti_SubscriberHandle subscriber = nullptr;
std::atomic<bool> started{false};  // tracing, from InitializeInjection to exit
int64_t cupti_offset_ns = 0;  // CUPTI's clock minus CLOCK_MONOTONIC (0: CUPTI uses ours)
std::atomic<uint64_t> dispatch_ids{0};

// ---- names -----------------------------------------------------------------

const char* hip_lookup(const char* cuda) {
  const HipName* end = kHipNames + sizeof(kHipNames) / sizeof(kHipNames[0]);
  const HipName* it = std::lower_bound(kHipNames, end, cuda, [](const HipName& n, const char* key) {
    return strcmp(n.cuda, key) < 0;
  });
  return it != end && strcmp(it->cuda, cuda) == 0 ? it->hip : nullptr;
}

// The HIP name of a CUDA function as CUPTI names it ("cudaMalloc",
// "cudaMemcpyAsync_ptsz", "cuMemcpyHtoD_v2"): the name, else without its
// version and per-thread-stream suffixes; __cudaPushCallConfiguration is
// HIP's __hipPushCallConfiguration; a name HIP lacks stays CUDA's.
std::string hip_name(const char* cuda) {
  if (const char* hip = hip_lookup(cuda)) return hip;
  std::string base = cuda;
  for (;;) {
    size_t cut = base.rfind('_');
    if (cut == std::string::npos) break;
    const std::string tail = base.substr(cut + 1);
    const bool version = tail.size() > 1 && tail[0] == 'v' &&
                         tail.find_first_not_of("0123456789", 1) == std::string::npos;
    if (!version && tail != "ptsz" && tail != "ptds") break;
    base.resize(cut);
    if (const char* hip = hip_lookup(base.c_str())) return hip;
  }
  if (base.rfind("__cuda", 0) == 0) return "__hip" + base.substr(6);
  return base;
}

bool enqueues_work(const char* name) {
  return strstr(name, "Launch") != nullptr || strstr(name, "Memcpy") != nullptr ||
         strstr(name, "Memset") != nullptr;
}

// ---- what the records need from the calls -----------------------------------

struct Call {
  int32_t thread;
  int64_t start;
};

std::mutex state_mutex;  // everything below, shared by the program's threads and CUPTI's
// Calls that may have enqueued work, by correlation id, until a record
// claims them (oldest forgotten past kMaxCalls: a call whose work never ran).
constexpr size_t kMaxCalls = 1 << 18;
std::unordered_map<uint32_t, Call> calls;
std::deque<uint32_t> call_order;
// A driver call made inside an API call (the runtime launching for
// cudaLaunchKernel) -> that call's correlation id, for records carrying the inner one.
std::unordered_map<uint32_t, uint32_t> outer_of;
std::unordered_map<uint32_t, uint32_t> null_stream_of;  // context id -> its NULL stream's id
std::unordered_map<uint64_t, int64_t> stream_numbers;   // (context, stream id) -> number shown
std::unordered_map<uint32_t, int64_t> next_stream;      // device -> next number
std::unordered_map<uint64_t, uint64_t> allocated;       // address -> bytes
std::unordered_set<uint32_t> devices_named;
struct OpenRange {
  std::string message;
  int64_t start;
  int32_t thread;
  int64_t depth;
};
std::unordered_map<uint32_t, OpenRange> open_ranges;  // NVTX range id -> its start
std::unordered_map<int32_t, int64_t> ranges_open_on;  // thread -> ranges open on it
uint64_t marker_ids = 0;                               // correlation ids of markers (high range)

void remember_call(uint32_t cid, int32_t thread, int64_t start) {
  std::lock_guard<std::mutex> lock(state_mutex);
  if (calls.size() >= kMaxCalls) {
    while (!call_order.empty() && calls.size() >= kMaxCalls / 2) {
      calls.erase(call_order.front());
      call_order.pop_front();
    }
  }
  calls[cid] = {thread, start};
  call_order.push_back(cid);
}

// The call that enqueued a record's work: its correlation id, thread, start.
Call claim(uint32_t* cid) {
  auto outer = outer_of.find(*cid);
  if (outer != outer_of.end()) {
    *cid = outer->second;
    outer_of.erase(outer);
  }
  auto it = calls.find(*cid);
  if (it == calls.end()) return {0, 0};
  return it->second;  // kept: one call may enqueue several records (a 2D copy)
}

std::string device_name(uint32_t device) { return "nvidia:" + std::to_string(device); }

int64_t stream_number(uint32_t device, uint32_t context, uint32_t stream) {
  auto null = null_stream_of.find(context);
  if (null != null_stream_of.end() && null->second == stream) return 0;
  const uint64_t key = (uint64_t(context) << 32) | stream;
  auto it = stream_numbers.find(key);
  if (it != stream_numbers.end()) return it->second;
  int64_t& next = next_stream[device];
  return stream_numbers[key] = ++next;
}

// ---- API callbacks -------------------------------------------------------------

struct ThreadState {
  int depth = 0;
  uint32_t cid = 0;
  int64_t start = 0;
  bool named = false;     // its thread record is written
  bool internal = false;  // this library calls the driver: not the program's call
  // The thread that loaded this library, inside the call that initialized
  // CUDA (whose entry CUPTI could not report): see on_api.
  bool bootstrap = false;
  const char* held_name = nullptr;  // a driver call that ended there, maybe the program's own
  uint32_t held_cid = 0;
  int64_t held_end = 0;
};
ThreadState& state() { return hk_native::per_thread<ThreadState>(); }

void name_thread(ThreadState& t) {
  if (t.named) return;
  t.named = true;
  char name[64] = "";
  pthread_getname_np(pthread_self(), name, sizeof(name));
  writer.write(line("thread").num(thread_id()).str(name).end());
}

void write_api(uint32_t cid, const std::string& name, int64_t start, int64_t end) {
  writer.write(line("api").unum(cid).num(thread_id()).str(name.c_str()).num(start).num(end).end());
}

void write_alloc(uint32_t cid, const char* operation, const char* memory, const std::string& device,
                 uint64_t size, uint64_t address, int64_t start, int64_t end) {
  writer.write(line("alloc").unum(cid).num(thread_id()).str(operation).str(memory)
                   .str(device.c_str()).unum(size).unum(address).num(start).num(end).end());
}

// The parameters of the allocation functions (their layout since CUDA 3.2
// and 6.0, as the _v3020 and _v6000 of their callback ids say).
struct AllocParams {
  void** address;
  size_t size;
};
struct FreeParams {
  void* address;
};

// Allocations and frees of a finished runtime call.
void record_memory(CUpti_CallbackId cbid, const CUpti_CallbackData* data, int64_t start,
                   int64_t end) {
  if (*static_cast<const int*>(data->functionReturnValue) != 0) return;  // a cudaError_t
  const void* params = data->functionParams;
  const char* operation = "ALLOCATE";
  const char* memory = "device";
  void* address = nullptr;
  size_t size = 0;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
      memory = "host";
      [[fallthrough]];
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
      auto p = static_cast<const AllocParams*>(params);
      address = *p->address, size = p->size;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
      memory = "host";
      [[fallthrough]];
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
      address = static_cast<const FreeParams*>(params)->address, operation = "FREE";
      break;
    default:
      return;
  }
  if (address == nullptr) return;  // a zero-byte allocation, a free of NULL
  const uint64_t key = reinterpret_cast<uintptr_t>(address);
  std::string device = "host";
  if (memory[0] == 'd') {
    uint32_t id = 0;
    if (data->context != nullptr && cuptiGetDeviceId(data->context, &id) == CUPTI_SUCCESS)
      device = device_name(id);
  }
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    if (operation[0] == 'A') {
      allocated[key] = size;
    } else {
      auto it = allocated.find(key);
      size = it != allocated.end() ? it->second : 0;
      if (it != allocated.end()) allocated.erase(it);
    }
  }
  write_alloc(data->correlationId, operation, memory, device, size, key, start, end);
}

void finish_call(ThreadState& t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                 const CUpti_CallbackData* data) {
  const int64_t end = monotonic_ns();
  name_thread(t);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) record_memory(cbid, data, t.start, end);
  write_api(t.cid, hip_name(data->functionName), t.start, end);
}

void release_held(ThreadState& t) {
  if (t.held_name == nullptr) return;
  name_thread(t);
  write_api(t.held_cid, hip_name(t.held_name), t.start, t.held_end);
  t.held_name = nullptr;
}

// The CUDA runtime's own lazy loading of kernels (cuLibrary*, cuKernel*), which
// it does outside the program's calls: not calls of the program.
bool runtime_internal(const char* name) {
  return strncmp(name, "cuLibrary", 9) == 0 || strncmp(name, "cuKernel", 8) == 0;
}

void on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  ThreadState& t = state();
  if (t.internal) return;
  if (t.depth == 0 && domain == CUPTI_CB_DOMAIN_DRIVER_API && runtime_internal(data->functionName))
    return;  // its exit, at depth 0 too, is passed over below
  if (t.bootstrap) {
    // The call that initialized CUDA began before this library was loaded.
    // If the program called cuInit itself, the first driver call to end here
    // was it, and a runtime call to begin next tells so; if a runtime call
    // initialized CUDA, it is the first runtime call to end here, and the
    // driver calls that ended before were its inside.
    if (t.depth == 1 && data->callbackSite == CUPTI_API_EXIT) {
      if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        t.held_name = nullptr;
        t.bootstrap = false;
        t.depth = 0;
        t.cid = data->correlationId;
        if (enqueues_work(data->functionName)) remember_call(t.cid, thread_id(), t.start);
        finish_call(t, domain, cbid, data);
      } else if (t.held_name == nullptr) {
        t.held_name = data->functionName, t.held_cid = data->correlationId;
        t.held_end = monotonic_ns();
      }
      return;
    }
    // A runtime call beginning: runtime calls do not nest, so the initializing
    // call has returned (whether or not its exit was reported to us).
    if (t.depth == 1 && domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
        data->callbackSite == CUPTI_API_ENTER) {
      release_held(t);
      t.bootstrap = false;
      t.depth = 0;
    }
  }
  if (data->callbackSite == CUPTI_API_ENTER) {
    if (t.depth++ == 0) {
      t.start = monotonic_ns();
      t.cid = data->correlationId;
      if (enqueues_work(data->functionName)) remember_call(t.cid, thread_id(), t.start);
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && t.cid != 0 && data->correlationId != t.cid &&
               enqueues_work(data->functionName)) {
      std::lock_guard<std::mutex> lock(state_mutex);
      if (outer_of.size() >= kMaxCalls) outer_of.clear();  // inner calls whose work never ran
      outer_of[data->correlationId] = t.cid;
    }
    return;
  }
  if (t.depth == 0) return;  // began before tracing did
  if (--t.depth == 0) finish_call(t, domain, cbid, data);
}

// A context is made: its NULL stream's id (stream 0 of its device) and the
// device's name.
void on_context(const CUpti_ResourceData* data) {
  uint32_t context = 0, device = 0, null_stream = 0;
  if (cuptiGetContextId(data->context, &context) != CUPTI_SUCCESS ||
      cuptiGetDeviceId(data->context, &device) != CUPTI_SUCCESS)
    return;
  bool name_it = false;
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    if (cuptiGetStreamIdEx(data->context, nullptr, 0, &null_stream) == CUPTI_SUCCESS)
      null_stream_of[context] = null_stream;
    name_it = devices_named.insert(device).second;
  }
  if (!name_it) return;
  std::string description = device_name(device);
  // The driver that loaded this library (the runtime opens it RTLD_LOCAL).
  using GetName = CUresult (*)(char*, int, CUdevice);
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  auto get_name =
      driver != nullptr ? reinterpret_cast<GetName>(dlsym(driver, "cuDeviceGetName")) : nullptr;
  char name[256] = "";
  state().internal = true;
  if (get_name != nullptr && get_name(name, sizeof(name), CUdevice(device)) == CUDA_SUCCESS)
    description += std::string(" ") + name;
  state().internal = false;
  if (driver != nullptr) dlclose(driver);  // the reference RTLD_NOLOAD took
  writer.write(line("device").str(device_name(device).c_str()).str(description.c_str()).end());
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (!started) return;  // the trace has ended (the runtime's teardown at exit)
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API)
    on_api(domain, cbid, static_cast<const CUpti_CallbackData*>(data));
  else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
    on_context(static_cast<const CUpti_ResourceData*>(data));
}

// ---- activity records ------------------------------------------------------------

const char* copy_kind(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HOST_TO_DEVICE";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "DEVICE_TO_HOST";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HOST_TO_HOST";
    case CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN:
      return "DEFAULT";
    default:  // DTOD, DTOA, ATOD, ATOA, PTOP: device memory on both sides
      return "DEVICE_TO_DEVICE";
  }
}

int64_t ours(uint64_t cupti_ns) { return int64_t(cupti_ns) - cupti_offset_ns; }

void write_kernel(const HK_KERNEL_RECORD* k) {
  uint32_t cid = k->correlationId;
  Call call;
  int64_t stream;
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    call = claim(&cid);
    stream = stream_number(k->deviceId, k->contextId, k->streamId);
  }
  const uint32_t grid[3] = {uint32_t(k->gridX), uint32_t(k->gridY), uint32_t(k->gridZ)};
  const uint32_t block[3] = {uint32_t(k->blockX), uint32_t(k->blockY), uint32_t(k->blockZ)};
  const int64_t start = ours(k->start);
  writer.write(line("kernel").unum(++dispatch_ids).unum(cid).num(call.thread)
                   .str(device_name(k->deviceId).c_str()).num(stream).str(k->name).triple(grid)
                   .triple(block).num(k->dynamicSharedMemory).num(k->staticSharedMemory)
                   .num(call.start != 0 ? call.start : start).num(start).num(ours(k->end)).end());
}

void write_copy(uint32_t cid, const char* kind, uint64_t bytes, uint32_t device, uint32_t context,
                uint32_t stream_id, const std::string& src, const std::string& dst, uint64_t start,
                uint64_t end) {
  Call call;
  int64_t stream;
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    call = claim(&cid);
    stream = stream_number(device, context, stream_id);
  }
  writer.write(line("copy").unum(cid).num(call.thread).str(device_name(device).c_str()).num(stream)
                   .str(kind).unum(bytes).str(src.c_str()).str(dst.c_str())
                   .num(call.start != 0 ? call.start : ours(start)).num(ours(start)).num(ours(end))
                   .end());
}

void write_marker(const HK_MARKER_RECORD* m) {
  const int32_t thread = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD
                             ? int32_t(m->objectId.pt.threadId)
                             : 0;
  const int64_t at = ours(m->timestamp);
  std::lock_guard<std::mutex> lock(state_mutex);
  if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    int64_t& open = ranges_open_on[thread];
    open_ranges[m->id] = {m->name != nullptr ? m->name : "", at, thread, open++};
  } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    auto it = open_ranges.find(m->id);
    if (it == open_ranges.end()) return;  // began before tracing did
    const OpenRange& r = it->second;
    --ranges_open_on[r.thread];
    writer.write(line("marker").unum((uint64_t(1) << 40) + ++marker_ids).num(r.thread)
                     .str(r.message.c_str()).str("range").num(r.depth).num(r.start).num(at).end());
    open_ranges.erase(it);
  } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    writer.write(line("marker").unum((uint64_t(1) << 40) + ++marker_ids).num(thread).str(m->name)
                     .str("mark").num(ranges_open_on[thread]).num(at).num(at).end());
  }
}

void write_record(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      write_kernel(reinterpret_cast<const HK_KERNEL_RECORD*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto c = reinterpret_cast<const HK_MEMCPY_RECORD*>(record);
      const char* kind = copy_kind(c->copyKind);
      const std::string here = device_name(c->deviceId);
      const bool from_host = !strcmp(kind, "HOST_TO_DEVICE") || !strcmp(kind, "HOST_TO_HOST");
      const bool to_host = !strcmp(kind, "DEVICE_TO_HOST") || !strcmp(kind, "HOST_TO_HOST");
      uint32_t cid = c->runtimeCorrelationId != 0 ? c->runtimeCorrelationId : c->correlationId;
      write_copy(cid, kind, c->bytes, c->deviceId, c->contextId, c->streamId,
                 from_host ? "host" : here, to_host ? "host" : here, c->start, c->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {  // between two devices
      auto c = reinterpret_cast<const HK_MEMCPY_PTOP_RECORD*>(record);
      write_copy(c->correlationId, "DEVICE_TO_DEVICE", c->bytes, c->deviceId, c->contextId,
                 c->streamId, device_name(c->srcDeviceId), device_name(c->dstDeviceId), c->start,
                 c->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto s = reinterpret_cast<const HK_MEMSET_RECORD*>(record);
      const std::string here = device_name(s->deviceId);
      write_copy(s->correlationId, "MEMSET", s->bytes, s->deviceId, s->contextId, s->streamId,
                 here, here, s->start, s->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER:
      write_marker(reinterpret_cast<const HK_MARKER_RECORD*>(record));
      break;
    default:
      break;
  }
}

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) write_record(record);
  free(buffer);
}

uint64_t CUPTIAPI monotonic_timestamp() { return uint64_t(monotonic_ns()); }

// ---- life --------------------------------------------------------------------------

void meta(const char* key, int64_t value) {
  writer.write(line("meta").str(key).raw(std::to_string(value).c_str()).end());
}

void finish() {
  if (!started.exchange(false)) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  release_held(state());
  meta("ended_ns", monotonic_ns());
  writer.close();
}

void warn(const char* what, CUptiResult result) {
  const char* why = "";
  cuptiGetResultString(result, &why);
  fprintf(stderr, "hipkit prof: process %d: %s: %s\n", int(getpid()), what, why);
}

bool traced_by_python(const char* directory) {
  // hipkit's Python tracer spools this process itself.
  std::string spool = std::string(directory) + "/" + std::to_string(getpid()) + ".spool";
  struct stat info;
  return stat(spool.c_str(), &info) == 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* directory = getenv("HIPKIT_PROF_DIR");
  if (started || directory == nullptr || directory[0] == '\0' || traced_by_python(directory))
    return 1;
  if (CUptiResult r = cuptiSubscribe(&subscriber, on_callback, nullptr); r != CUPTI_SUCCESS) {
    warn("not traced: cuptiSubscribe failed (is another CUPTI tool, such as Nsight, attached?)", r);
    return 1;
  }
  if (!writer.open(directory)) {
    fprintf(stderr, "hipkit prof: cannot write the trace of process %d in %s: %s\n", int(getpid()),
            directory, strerror(errno));
    cuptiUnsubscribe(subscriber);
    return 1;
  }
  started = true;
  meta("pid", getpid());
  meta("started_ns", monotonic_ns());
#if HK_CUPTI_TIMESTAMP_CALLBACK
  const bool own_clock =
      cuptiActivityRegisterTimestampCallback(monotonic_timestamp) == CUPTI_SUCCESS;
#else
  const bool own_clock = false;
#endif
  if (!own_clock) {
    // An older CUPTI: its own clock, put on ours by an offset measured now.
    uint64_t cupti_now = 0;
    const int64_t before = monotonic_ns();
    cuptiGetTimestamp(&cupti_now);
    cupti_offset_ns = int64_t(cupti_now) - (before + monotonic_ns()) / 2;
  }
  cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityFlushPeriod(500);  // ms: records reach the file as the program runs
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                      CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                                      CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MARKER};
  for (CUpti_ActivityKind kind : kinds) {
    if (CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS)
      warn(("records of CUPTI activity kind " + std::to_string(int(kind)) + " are missing").c_str(),
           r);
  }
  // This thread is inside the call that initialized CUDA (see on_api).
  ThreadState& loading = state();
  loading.bootstrap = true;
  loading.depth = 1;
  loading.start = monotonic_ns();
  hk_native::fatal::install(&writer);
  pthread_atfork(nullptr, nullptr, [] {
    started = false;  // the parent's trace; a program the child runs traces itself
    writer.disown();
  });
  atexit(finish);
  return 1;
}
