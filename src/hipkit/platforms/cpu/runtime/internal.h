// Declarations shared by the runtime's source files (not installed, not ABI).
//
// The pieces: device.cpp (init, configuration, errors, reset), peer.cpp
// (peer access between the devices), memory.cpp (allocations, copies),
// stream.cpp (operations, their ordering, streams, events), executor.cpp
// (each device's worker threads running kernels, large copies and host
// functions), launch.cpp (function registry, launch validation),
// host_func.cpp (host functions on streams), stream_extras.cpp (waits and
// writes of words in stream order, a stream's properties), ipc.cpp (memory
// and events shared with other processes), module.cpp (kernel modules),
// fiber.cpp (GPU threads as user-space contexts), signals.cpp (faults and
// traps in kernel code), activity.cpp (timestamps of the work run,
// activity.h) and program.cpp (the kernels and globals of whole programs).
#ifndef HIPKIT_CPU_RUNTIME_INTERNAL_H
#define HIPKIT_CPU_RUNTIME_INTERNAL_H

#include <hipkit_cpu/runtime.h>
#include <hipkit_cpu/runtime_memory.h>
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
#include <string>
#include <unordered_set>
#include <vector>

#include "activity.h"

// Everything below is internal to libhipkit_cpu.so: only the hkrt_* and
// __hk_* functions and the built-in variables (declared above) are exported.
#pragma GCC visibility push(hidden)

namespace hk {

// ---- device.cpp: configuration, devices, errors ------------------------------

// HIPKIT_CPU_DEVICES at most: peer access is a 64-bit mask per device.
constexpr uint32_t kMaxDevices = 64;

struct Config {
  uint32_t warp_size;
  uint32_t num_threads;  // as asked for (HIPKIT_CPU_THREADS or the cores)
  uint32_t num_workers;  // every device's together: num_threads, or one per device if more
  uint32_t num_devices;
  bool launch_blocking;  // HIP_LAUNCH_BLOCKING
};
extern Config config;  // valid once ensure_init() succeeded

struct Pool;    // executor.cpp: a device's workers and the jobs they run
struct Stream;  // stream.cpp
struct Event;
struct Module;  // module.cpp

// One CPU device: its share of the host's worker threads and memory, and its
// own streams, events, modules, sticky error and reset.  The devices share one
// address space, and one scheduler lock orders the work of all of them, so that
// an op may depend on another device's (events, peer copies).
struct Device {
  int index = 0;
  uint32_t num_workers = 0;
  uint32_t first_worker = 0;  // its workers' numbers in thread names
  uint64_t total_bytes = 0;   // its share of the host's memory (hipMemGetInfo's total)
  std::atomic<uint64_t> allocated_bytes{0};
  // Set while queued work of this device must be dropped instead of run: a
  // sticky error is set, or its reset is draining the queues.  Running kernels
  // test it before every block, so it is one flag.
  std::atomic<bool> halt{false};
  std::atomic<int> sticky_code{0};
  std::mutex sticky_mutex;  // guards sticky_detail
  std::string sticky_detail;
  std::atomic<uint64_t> generation{0};  // bumped by every reset
  std::mutex reset_mutex;
  std::atomic<uint64_t> peers{0};  // bit p: peer access to device p enabled (peer.cpp)
  Pool* pool = nullptr;
  // Under the scheduler lock (stream.cpp): the null stream, the streams and
  // events made on this device.
  Stream* null_stream = nullptr;
  std::unordered_set<Stream*> streams;
  std::unordered_set<Event*> events;

  bool halted() const { return halt.load(std::memory_order_relaxed); }
};

// config.num_devices devices, valid once ensure_init() succeeded.
extern Device* devices;

// Starts the runtime on first use (hkrt_init(0, 0, 0)); returns its error.
int ensure_init();
// Starts the runtime and checks a device index: *out is the device, or the
// error (hipErrorInvalidDevice) is returned through fail().
int device_get(int index, Device** out);

// Records `code` and a printf-style detail as this host thread's last error
// (hkrt_last_error_detail) and returns `code`.
int fail(int code, const char* format, ...) __attribute__((format(printf, 2, 3)));
// The device's sticky error, reported through fail(), or hipSuccess.
int sticky_check(Device* device);
// Sets the device's sticky error unless one is set already (the first one wins).
void sticky_set(Device* device, int code, const char* detail);

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

enum class OpKind : uint8_t { Kernel, Copy, Set, Record, Marker, HostFunc };

// A cooperative launch's grid barrier (cooperative.cpp): blocks that finished
// count as arrived, as a block's finished threads do at __syncthreads.
struct GridBarrier {
  Mutex mutex;
  uint32_t live = 0;     // blocks not finished
  uint32_t arrived = 0;  // blocks waiting
  std::atomic<uint32_t> generation{0};
};

struct KernelLaunch {
  const hk_kernel_desc* desc = nullptr;
  Module* module = nullptr;  // null for kernels not loaded from a module
  const char* name = nullptr;  // for activity records (activity_intern: never freed)
  hk_index3 grid = {0, 0, 0}, block = {0, 0, 0};
  uint32_t dynamic_shared_bytes = 0;
  uint32_t static_shared_bytes = 0;  // for activity records
  void** args = nullptr;  // args[i] points to the copy of argument i, all in `storage`
  size_t arg_bytes = 0;   // the arguments' bytes in `storage` (copy_launch)
  std::unique_ptr<unsigned char[]> storage;
  std::unique_ptr<GridBarrier> grid_barrier;  // a cooperative launch's; null otherwise
};

// One unit of work on a stream.  Ops form a dependency graph: an op runs once
// every op it depends on (its stream predecessor, legacy-stream and
// wait-event dependencies) is done.  Kernels, large copies and host
// functions are "jobs", split into units that the workers claim (a host
// function is one unit); the rest run inline on whichever thread makes them
// ready.
struct Op {
  std::atomic<int> refs{1};
  std::atomic<bool> done{false};
  OpKind kind;
  Device* device = nullptr;      // its stream's: whose workers run it (set by enqueue)
  bool is_job = false;
  int8_t priority = 0;           // its stream's: workers take the greatest (lowest) first
  int pending = 0;               // unfinished dependencies (under the scheduler lock)
  std::vector<Op*> dependents;   // ops waiting for this one (under the scheduler lock)
  int64_t timestamp_ns = 0;      // Record: when it ran

  // Job progress: units [0, total) are claimed through `next`; the op is
  // done when `finished` reaches `total`.
  uint64_t total = 0;
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> finished{0};

  // Kernel; a named HostFunc's activity record uses its name, grid and block.
  KernelLaunch kernel;
  // HostFunc: host_fn(host_data) on a worker.  It is dropped with the device's
  // other queued work (a sticky error, a reset) unless host_always is set.
  void (*host_fn)(void*) = nullptr;
  void* host_data = nullptr;
  bool host_always = false;
  // Copy and Set.
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  uint32_t value = 0, elem_size = 1;
  uint32_t copy_kind = 0;  // hipMemcpyKind, for activity records
  // For activity records: the device whose memory each side is (-1: the host's).
  int16_t src_device = -1, dst_device = -1;
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

// The stream `handle` names, with the null stream of `device` for NULL
// (streams of any device are accepted: the caller checks whose it needs);
// hipErrorInvalidHandle through fail() for a handle that is no live stream.
int stream_get(Device* device, hkrt_stream* handle, Stream** out);
// The device a stream belongs to.
Device* stream_device(const Stream* stream);
// Makes the device's null stream (hkrt_init).
void streams_init(Device* device);
// Enqueues `op` (taking over its initial reference) on `stream`, after the
// op `extra_dep` too if not null.  If `wait` is true, returns an extra
// reference to the op for waiting on it.  Runs the op inline if it is ready
// and small.
Op* enqueue(Stream* stream, Op* op, Op* extra_dep, bool wait);
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
// Waits for the work enqueued so far on the device's streams.
void drain_all(Device* device);
// The same for every device.
void drain_every_device();
// Waits for what an op enqueued on the device's null stream now would wait
// for: the null stream's work and that of its blocking streams.
void wait_legacy(Device* device);
// hkrt_device_reset's part: destroys the device's streams and events (its
// queues are empty).
void destroy_streams_and_events(Device* device);
unsigned stream_flags(const Stream* stream);
int stream_priority(const Stream* stream);

// ---- stream_extras.cpp, ipc.cpp -----------------------------------------------

// Holds back `stream`'s later work until the word at `ptr` meets `value` under
// `mask` by `compare` (arguments checked by the caller).
int enqueue_value_wait(Stream* stream, const void* ptr, uint64_t value, uint64_t mask,
                       unsigned compare, unsigned bytes);
// A small host function op that runs even when its device's work is dropped.
Op* small_host_op(void (*fn)(void*), void* data);

// An interprocess event's state, shared with other processes (ipc.cpp).
struct IpcEvent;
int ipc_event_create(unsigned flags, IpcEvent** out);  // null: hipErrorInvalidValue's detail
void ipc_event_destroy(IpcEvent* ipc);                 // null: nothing
// A record of the event enqueued on `stream` now (after its Record op).
void ipc_event_record(IpcEvent* ipc, Stream* stream);
// hipSuccess or hipErrorNotReady: whether its latest record, of any process, is done.
int ipc_event_query(IpcEvent* ipc);
void ipc_event_wait(IpcEvent* ipc);
int ipc_event_stream_wait(IpcEvent* ipc, Stream* stream);
// The event's interprocess state (set to `attach` first if not null), or an invalid handle.
int event_ipc(hkrt_event* event, IpcEvent** out, IpcEvent* attach);

// ---- activity.cpp: timestamps of the work run (activity.h) ---------------

// The session stamping ops now, 0 when activity is off.
extern std::atomic<uint32_t> activity_session;
// Stamps `op` (a kernel, copy, memset or named host function) as enqueued now
// on the stream whose handle is `stream` (0: a null stream) by this thread;
// called when activity_session is not 0.
void activity_enqueued(Op* op, uint64_t stream, uint32_t session);
// Pushes the record of `op`, which finished now (called for ops whose
// `activity` is set, before they count as done).
void activity_finished(const Op* op);
// Pushes the record of a launch on `device` refused with `error` before it was
// enqueued, made by this thread with a call that entered the runtime at `call_ns`.
void activity_refused(const KernelLaunch& k, int device, hkrt_stream* stream, int64_t call_ns,
                      int error);
// Whether a launch should answer HK_ACTIVITY_READ_SOON now (hk_activity_notify).
bool activity_read_soon();
// A copy of `name` that lives until the process exits (one per distinct name).
const char* activity_intern(const char* name);

// ---- executor.cpp: workers ----------------------------------------------------

// Starts the device's worker threads (hkrt_init).
int start_workers(Device* device);
// Adds a ready job to its device's list (called under the scheduler lock);
// returns the bit of that device in the mask wake_workers takes.
uint64_t publish_job_locked(Op* op);
// Wakes a worker of each device in `mask` (bit d: device d) for jobs
// published under the lock, unless one is spinning (called after unlocking).
void wake_workers(uint64_t mask);
// Removes a completed job from its device's list (under the scheduler lock).
void retire_job_locked(Op* op);
// Runs a small op (copy, set, record, marker) on this thread, catching faults.
void run_small(Op* op);
// The copy/set kernel of one piece of a Copy/Set op.
void copy_or_set(Op* op, size_t offset, size_t bytes);
// Large copies are split into pieces of this size.
constexpr size_t kCopyPiece = 256 << 10;
constexpr size_t kCopyParallelMin = 1 << 20;

// The scheduler lock: streams, events, dependencies, the job lists.
Lock scheduler_lock();

// ---- signals.cpp / executor.cpp: running kernel code ------------------------

class FiberPool;

// cooperative.cpp: a block of a cooperative launch has finished.
void grid_block_finished(GridBarrier* grid);
// Whether launch `k` (cooperative) can have every block running at once; the
// error through fail() if not.
int cooperative_check(const KernelLaunch& k, const Device* device);

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
  Device* device = nullptr;  // whose jobs it runs
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
  // For messages: "in kernel <name>" or "in <what>" ("memcpy", "memset",
  // "host function").
  const char* what = "kernel";
  // The kernel being run.  Only read while a unit of the job is claimed: a
  // finished job's module may already be unloaded.
  const hk_kernel_desc* kernel = nullptr;
  Worker* worker = nullptr;  // null on host threads (no fibers, no scratch)
  GridBarrier* grid = nullptr;  // the kernel's, in a cooperative launch
  int code = 0;
  char detail[512];
};

// hipkit sanitize (sanitize.cpp): the tool HIPKIT_SANITIZE names, read at init; the
// device allocations it checks (memory.cpp tells it of each), and the end of a block.
enum SanitizeTool { SANITIZE_OFF = 0, SANITIZE_MEMCHECK = 1 };
int sanitize_init();
bool sanitize_active();
void sanitize_allocated(uintptr_t base, size_t size, size_t span, int kind);
void sanitize_freed(uintptr_t base);     // freed, kept mapped (memory.cpp's quarantine)
void sanitize_released(uintptr_t base);  // unmapped: no longer checked
void sanitize_block_end();               // traps if the block made errors
// memory.cpp's side of hkrt_sanitize_start/stop: the allocations so far told to the
// sanitizer; the quarantine released.
void sanitize_known_allocations();
void sanitize_release_quarantine();

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

// ---- peer.cpp --------------------------------------------------------------------

// hkrt_device_reset's part: ends peer access from and to the device.
void peers_forget(Device* device);

// ---- module.cpp / launch.cpp --------------------------------------------------

// The lock of the registry of modules and functions.
Lock registry_lock();
// Counts a launch of one of `module`'s kernels (under the registry lock);
// module_launch_done is called when it completes.
void module_launch_started(Module* module);
void module_launch_done(Module* module);
// The loaded module that owns `desc`, or null (under the registry lock).
Module* module_owning_locked(const hk_kernel_desc* desc);
// The device a module is loaded on.
Device* module_device(const Module* module);
// hkrt_device_reset's part: unloads every module loaded on the device.
void unload_all_modules(Device* device);
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

#include "internal_memory.h"

#pragma GCC visibility pop

#endif  // HIPKIT_CPU_RUNTIME_INTERNAL_H
