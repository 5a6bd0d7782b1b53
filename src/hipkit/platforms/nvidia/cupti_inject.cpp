// hipkit prof's tracer of NVIDIA programs: a CUPTI injection library.
//
// `hipkit prof` builds it on first use (hipkit/platforms/nvidia/tracing.py)
// and names it in CUDA_INJECTION64_PATH for the program it runs; the CUDA
// driver loads it into every process that initializes CUDA and calls
// InitializeInjection.
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
// - Libraries' calls (hipBLAS's, defined inline over cuBLAS in the program):
//   the program announces them through hipkit_library_call_begin/end, which
//   it finds in this library (hipkit_nvidia_program/library_trace.h); each is
//   an API row, and the CUDA calls inside it are its inside.
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
// The parts: cupti_hip_names.h (HIP names), cupti_state.h (what the callbacks
// and the records share), cupti_api.h (API callbacks), cupti_records.h
// (activity records); this file starts the trace and ends it.
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "cupti_api.h"
#include "cupti_records.h"

namespace {

CUpti_SubscriberHandle subscriber = nullptr;

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

// A library's call begins on this thread (a call inside another is its inside).
extern "C" __attribute__((visibility("default"))) void hipkit_library_call_begin(void) {
  static std::atomic<uint64_t> library_ids{0};
  if (!started) return;
  ThreadState& t = state();
  if (t.library_depth++ > 0) return;
  t.library_start = monotonic_ns();
  t.library_cid = (uint64_t(1) << 41) + ++library_ids;
  remember_call(t.library_cid, thread_id(), t.library_start);
}

// The library's call `function` ends: its API row.
extern "C" __attribute__((visibility("default"))) void hipkit_library_call_end(const char* function) {
  ThreadState& t = state();
  if (t.library_depth == 0 || --t.library_depth > 0 || !started) return;
  name_thread(t);
  write_api(t.library_cid, function, t.library_start, monotonic_ns());
}

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
