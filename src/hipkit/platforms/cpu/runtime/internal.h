// Declarations shared by the runtime's source files (not installed, not ABI).
//
// The pieces: device.cpp (init, configuration, errors, reset), memory.cpp
// (allocations, copies), stream.cpp (operations, their ordering, streams,
// events), executor.cpp (worker threads running kernels and large copies),
// launch.cpp (function registry, launch validation), module.cpp (kernel
// modules), fiber.cpp (GPU threads as user-space contexts), signals.cpp
// (faults and traps in kernel code), activity.cpp (timestamps of the work
// run, activity.h) and program.cpp (the kernels and globals of whole
// programs).
#ifndef HIPKIT_CPU_RUNTIME_INTERNAL_H
#define HIPKIT_CPU_RUNTIME_INTERNAL_H

#include <hipkit_cpu/runtime.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "activity.h"

// Everything below is internal to libhipkit_cpu.so: only the hkrt_* and
// __hk_* functions and the built-in variables (declared above) are exported.
#pragma GCC visibility push(hidden)

namespace hk {

// ---- device.cpp: configuration, errors -----------------------------------

struct Config {
  uint32_t warp_size;
  uint32_t num_workers;
  bool launch_blocking;  // HIP_LAUNCH_BLOCKING
};
extern Config config;  // valid once ensure_init() succeeded

// Starts the runtime on first use (hkrt_init(0, 0)); returns its error.
int ensure_init();

// Records `code` and a printf-style detail as this host thread's last error
// (hkrt_last_error_detail) and returns `code`.
int fail(int code, const char* format, ...) __attribute__((format(printf, 2, 3)));
// The sticky error, reported through fail(), or hipSuccess.
int sticky_check();
// Sets the sticky error unless one is set already (the first one wins).
void sticky_set(int code, const char* detail);
// Set while queued work must be dropped instead of run: a sticky error is
// set, or hkrt_device_reset() is draining the queues.  Running kernels test
// it before every block, so it is one flag.
extern std::atomic<bool> halt;
inline bool halted() { return halt.load(std::memory_order_relaxed); }

// CLOCK_MONOTONIC in nanoseconds (vDSO: no system call).
inline int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Sleeping on / waking a 32-bit word (process-private futex).
inline void futex_wait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected,
          nullptr, nullptr, 0);
}
inline void futex_wake(std::atomic<uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, count,
          nullptr, nullptr, 0);
}

// A mutex that spins briefly before sleeping (glibc's adaptive mutex).  The
// critical sections of the launch path take well under a microsecond, less
// than a futex round trip; std::mutex would sleep on the first contention.
class Mutex {
 public:
  void lock() { pthread_mutex_lock(&mutex_); }
  void unlock() { pthread_mutex_unlock(&mutex_); }

 private:
  pthread_mutex_t mutex_ = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
};
using Lock = std::unique_lock<Mutex>;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Spins until `ready()` holds or `budget_ns` have passed; returns ready().
// After a few microseconds of pause instructions it yields the processor
// between checks, so that a spinning thread does not hold back the thread
// it waits for when there are more runnable threads than cores.
template <class F> bool spin_until(F ready, int64_t budget_ns) {
  constexpr int64_t kPauseOnlyNs = 5000;
  const int64_t start = now_ns();
  for (int i = 1;; ++i) {
    if (ready()) return true;
    cpu_relax();
    if (i % 32 == 0) {
      int64_t elapsed = now_ns() - start;
      if (elapsed > budget_ns) return ready();
      if (elapsed > kPauseOnlyNs) sched_yield();
    }
  }
}

// ---- stream.cpp: operations and their ordering ----------------------------

struct Module;  // module.cpp

enum class OpKind : uint8_t { Kernel, Copy, Set, Record, Marker };

struct KernelLaunch {
  const hk_kernel_desc* desc = nullptr;
  Module* module = nullptr;  // null for kernels not loaded from a module
  const char* name = nullptr;  // for activity records (activity_intern: never freed)
  hk_index3 grid = {0, 0, 0}, block = {0, 0, 0};
  uint32_t dynamic_shared_bytes = 0;
  uint32_t static_shared_bytes = 0;  // for activity records
  void** args = nullptr;  // args[i] points to the copy of argument i, all in `storage`
  std::unique_ptr<unsigned char[]> storage;
};

// One unit of work on a stream.  Ops form a dependency graph: an op runs once
// every op it depends on (its stream predecessor, legacy-stream and
// wait-event dependencies) is done.  Kernels and large copies are "jobs",
// split into units that the workers claim; the rest run inline on whichever
// thread makes them ready.
struct Op {
  std::atomic<int> refs{1};
  std::atomic<bool> done{false};
  OpKind kind;
  bool is_job = false;
  int pending = 0;               // unfinished dependencies (under the scheduler lock)
  std::vector<Op*> dependents;   // ops waiting for this one (under the scheduler lock)
  int64_t timestamp_ns = 0;      // Record: when it ran

  // Job progress: units [0, total) are claimed through `next`; the op is
  // done when `finished` reaches `total`.
  uint64_t total = 0;
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> finished{0};

  KernelLaunch kernel;
  // Copy and Set.
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  uint32_t value = 0, elem_size = 1;
  uint32_t copy_kind = 0;  // hipMemcpyKind, for activity records
  // An asynchronous copy from pageable host memory copies from here: the
  // source was staged when the copy was queued, so the caller may reuse it.
  std::unique_ptr<unsigned char[]> staging;

  // Activity (activity.cpp): the session that stamps this op (0: none) and
  // what its record needs beyond the op itself.
  uint32_t activity = 0;
  int32_t thread_id = 0;
  uint64_t stream = 0;
  uint64_t correlation_id = 0;
  int64_t enqueue_ns = 0;
  int64_t call_ns = 0;   // a launch: when its call entered the runtime (0: enqueue_ns)
  int64_t start_ns = 0;  // set by the thread that begins running it (0: it never ran)
};

inline void op_ref(Op* op) { op->refs.fetch_add(1, std::memory_order_relaxed); }
void op_unref(Op* op);

// Small ops made ready under the scheduler lock, run after unlocking by the
// thread that made them ready.
using ReadyList = std::vector<Op*>;

// Enqueues `op` (taking over its initial reference) on `stream`, after the
// op `extra_dep` too if not null.  If `wait` is true, returns an extra
// reference to the op for waiting on it.  Runs the op inline if it is ready
// and small.  `stream` must be valid (checked by the caller).
Op* enqueue(hkrt_stream* stream, Op* op, Op* extra_dep, bool wait);
// Marks `op` done, releases the ops waiting for it and drops the execution
// reference; newly ready small ops are appended to `ready`.
void complete(Op* op, ReadyList& ready);
// Runs the small ops of `ready` (and those they make ready) on this thread.
void run_ready(ReadyList& ready);
// Waits for `op` (spinning, then sleeping); drops the caller's reference.
void wait_and_unref(Op* op);
// A counter bumped whenever an op completes, and a sleep until it moves on
// from `seen_epoch`.
uint32_t completion_epoch();
void wait_for_completion(uint32_t seen_epoch);
// Sleeps until `done()` holds, rechecking whenever an op completes.
template <class F> void wait_until(F done) {
  while (!done()) {
    uint32_t epoch = completion_epoch();
    if (done()) return;
    wait_for_completion(epoch);
  }
}
// Checks a stream handle (NULL is valid): hipSuccess or hipErrorInvalidHandle.
int stream_check(hkrt_stream* stream);
// Waits for all work enqueued so far.
void drain_all();
// hkrt_device_reset's part: destroys streams and events (the queues are empty).
void destroy_streams_and_events();

// ---- activity.cpp: timestamps of the work run (activity.h) ---------------

// The session stamping ops now, 0 when activity is off.
extern std::atomic<uint32_t> activity_session;
// Stamps `op` (a kernel, copy or memset) as enqueued now on `stream` by this
// thread; called when activity_session is not 0.
void activity_enqueued(Op* op, hkrt_stream* stream, uint32_t session);
// Pushes the record of `op`, which finished now (called for ops whose
// `activity` is set, before they count as done).
void activity_finished(const Op* op);
// Pushes the record of a launch refused with `error` before it was enqueued,
// made by this thread with a call that entered the runtime at `call_ns`.
void activity_refused(const KernelLaunch& k, hkrt_stream* stream, int64_t call_ns, int error);
// Whether a launch should answer HK_ACTIVITY_READ_SOON now (hk_activity_notify).
bool activity_read_soon();
// A copy of `name` that lives until the process exits (one per distinct name).
const char* activity_intern(const char* name);

// ---- executor.cpp: workers ----------------------------------------------------

// Starts config.num_workers worker threads (hkrt_init).
int start_workers();
// Adds a ready job to the workers' list (called under the scheduler lock).
void publish_job_locked(Op* op);
// Wakes a worker for jobs published under the lock, unless one is spinning
// (called after unlocking).
void wake_workers();
// Removes a completed job from the list (under the scheduler lock).
void retire_job_locked(Op* op);
// Runs a small op (copy, set, record, marker) on this thread, catching faults.
void run_small(Op* op);
// The copy/set kernel of one piece of a Copy/Set op.
void copy_or_set(Op* op, size_t offset, size_t bytes);
// Large copies are split into pieces of this size.
constexpr size_t kCopyPiece = 256 << 10;
constexpr size_t kCopyParallelMin = 1 << 20;

// The scheduler lock: streams, events, dependencies, the job list.
Lock scheduler_lock();

// ---- signals.cpp / executor.cpp: running kernel code ------------------------

class FiberPool;

// A worker thread and what it keeps between blocks and launches.
struct Worker {
  static constexpr uint32_t kMaxThreads = 1024;
  static constexpr size_t kSharedBytes = 65536;

  hk_block_context block{};
  hk_index3 ids_shape{0, 0, 0};  // the block shape thread_ids describes
  std::unique_ptr<hk_index3[]> thread_ids{new hk_index3[kMaxThreads]};
  void* dynamic_shared = nullptr;  // kSharedBytes, 64-byte aligned
  // Scratch arena: chunk 0 is where every block starts; later chunks are
  // added on demand and kept for reuse.
  struct Chunk {
    unsigned char* begin;
    unsigned char* end;
  };
  std::vector<Chunk> scratch;
  size_t scratch_chunk = 0;
  FiberPool* fibers = nullptr;
  // This thread's built-in variables (TLS addresses taken once).
  hk_index3* thread_idx = nullptr;
  hk_index3* block_idx = nullptr;
  // The units being run, accounted for by the fault path.
  uint64_t range_begin = 0, range_end = 0;
};

// The state of a thread while it runs kernel code (a worker running a job,
// or a host thread running a small op or a query): where a fault or trap
// jumps back to, and what it reports.
struct ExecContext {
  sigjmp_buf jump;
  // For messages: "in kernel <name>" or "in <what>" ("memcpy", "memset").
  const char* what = "kernel";
  // The kernel being run.  Only read while a unit of the job is claimed: a
  // finished job's module may already be unloaded.
  const hk_kernel_desc* kernel = nullptr;
  Worker* worker = nullptr;  // null on host threads (no fibers, no scratch)
  int code = 0;
  char detail[512];
};

// Initial-exec TLS, so that the signal handler reads it without calling
// __tls_get_addr (which may allocate).  Null outside kernel code.
extern __thread ExecContext* tls_exec __attribute__((tls_model("initial-exec")));

// Runs `body` with faults and traps caught; returns 0 or the error code
// (with ctx.detail filled).
template <class F> int run_guarded(ExecContext& ctx, F body) {
  ExecContext* saved = tls_exec;
  tls_exec = &ctx;
  if (sigsetjmp(ctx.jump, 0) != 0) {
    tls_exec = saved;
    return ctx.code;
  }
  body();
  tls_exec = saved;
  return 0;
}

void install_signal_handlers();
// Sets up this worker thread's alternate signal stack (fiber stack overflows
// must be handled somewhere).
void install_alt_stack();

// ---- fiber.cpp --------------------------------------------------------------

FiberPool* fiber_pool_create();
// Forgets the fibers of a block that a fault or trap ended on this thread.
void fibers_abandon();
// True if `address` lies in a guard page of one of the pool's stacks.
bool fiber_pool_is_guard(const FiberPool* pool, const void* address);

// ---- memory.cpp --------------------------------------------------------------

uint64_t mem_total_bytes();
// hkrt_device_reset's part: frees every allocation.
void free_all_allocations();

// ---- module.cpp / launch.cpp --------------------------------------------------

// The lock of the registry of modules and functions.
Lock registry_lock();
// Counts a launch of one of `module`'s kernels (under the registry lock);
// module_launch_done is called when it completes.
void module_launch_started(Module* module);
void module_launch_done(Module* module);
// The loaded module that owns `desc`, or null (under the registry lock).
Module* module_owning_locked(const hk_kernel_desc* desc);
// hkrt_device_reset's part: unloads every module.
void unload_all_modules();
// Runs `desc` in query mode on first use and records its attributes.
int function_register(const hk_kernel_desc* desc);
// Drops what the registry knows of `desc` (its module is being unloaded;
// under the registry lock).
void function_forget_locked(const hk_kernel_desc* desc);

// ---- program.cpp --------------------------------------------------------------

// The function a generic descriptor of a whole program calls (its entry reads
// it from the last argument), or null for any other descriptor.
const void* program_generic_function(const hk_kernel_desc* desc);

}  // namespace hk

#pragma GCC visibility pop

#endif  // HIPKIT_CPU_RUNTIME_INTERNAL_H
