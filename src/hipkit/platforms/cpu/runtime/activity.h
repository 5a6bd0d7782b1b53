// hipkit CPU platform: activity records, the runtime's own timestamps of the
// device work it runs (exported by libhipkit_cpu.so; plain C).
//
// While activity is on, every kernel, copy and memset is stamped three times
// on CLOCK_MONOTONIC (Python's time.perf_counter_ns on Linux): when the host
// thread enqueued it (inside hkrt_launch*, hkrt_memcpy, hkrt_memset), when it
// began to run, and when it finished.  A finished op becomes one record in a
// buffer that a consumer drains in batches with hk_activity_read: the Python
// profiler (hipkit/platforms/cpu/__init__.py) and the trace writer of whole
// programs built by `hipkit cc`.  Records are pushed before the op counts as
// done, so after a synchronize returns, the records of everything it waited
// for can be read.  Work that never ran (dropped by a sticky error or a device
// reset) has a record too, with status HK_ACTIVITY_NEVER_RAN and no start or
// end; so does a launch the runtime refused (HK_ACTIVITY_REFUSED, pushed when
// the call returns its error).  A launch's record describes the whole call
// (when it entered the runtime, what it launched, how), so a consumer needs
// nothing else to trace it: the Python profiler leaves the launch path alone.
// A host function enqueued with a name (hkrt_launch_host_func: a library's
// work on the stream) is stamped too, as a kernel of that name with a grid
// and block of 1x1x1; one without a name has no record.
//
// Cost: when off, one relaxed atomic load per enqueued op (two per launch);
// when on, three clock reads (vDSO, no system call; four for a launch) and a
// short critical section per op.
//
// Memory is bounded: at most `capacity` records wait unread.  A record that
// finds the buffer full is dropped and counted (hk_activity_dropped), never
// silently lost and never blocking the worker that finished the op: blocking
// could deadlock a consumer that drains only after synchronizing.
#ifndef HIPKIT_CPU_ACTIVITY_H
#define HIPKIT_CPU_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// hk_activity_record.kind
enum { HK_ACTIVITY_KERNEL = 1, HK_ACTIVITY_COPY = 2, HK_ACTIVITY_MEMSET = 3 };
// hk_activity_record.status
enum { HK_ACTIVITY_RAN = 0, HK_ACTIVITY_NEVER_RAN = 1, HK_ACTIVITY_REFUSED = 2 };

// A capacity that holds far more than a consumer lets accumulate (30 MiB when full).
#define HK_ACTIVITY_DEFAULT_CAPACITY ((size_t)1 << 18)

typedef struct hk_activity_record {
  uint32_t kind;            // HK_ACTIVITY_*
  uint32_t copy_kind;       // a copy's hipMemcpyKind (HKRT_MEMCPY_*); 0 otherwise
  int32_t device;           // the device it ran on (its stream's; a refused launch's)
  int32_t thread_id;        // gettid() of the thread that enqueued it
  uint64_t stream;          // the stream handle as the API sees it; 0: the null stream
  uint64_t correlation_id;  // the enqueuing thread's hk_activity_set_correlation value
  int64_t enqueue_ns;       // CLOCK_MONOTONIC, as the three below
  int64_t start_ns;         // 0 unless status is HK_ACTIVITY_RAN
  int64_t end_ns;
  int64_t call_ns;          // a launch: when its call entered the runtime; else enqueue_ns
  // A kernel's name: its symbol (mangled, e.g. "_Z9vectorAddPKfS0_Pfi") where
  // the dynamic linker knows it (kernel modules), else its source name (an
  // identifier or name expression such as "scale<float>"), or a host
  // function's name as it was enqueued; NULL for copies and memsets.  The string lives until the process exits (names are kept
  // in a table that is never freed), so a record outlives its module.
  const char* name;
  uint32_t grid[3];         // blocks
  uint32_t block[3];        // threads per block
  uint32_t dynamic_shared;  // a kernel's dynamic shared memory, bytes
  uint32_t static_shared;   // a kernel's static shared memory, bytes
  uint64_t bytes;           // a copy's or memset's size, bytes
  uint32_t status;          // HK_ACTIVITY_*: it ran, it never ran, the launch was refused
  int32_t error;            // a refused launch's hipError_t; 0 otherwise
  // A copy's or memset's sides: the device whose memory each is, -1 the host's
  // (a memset's source is -1).
  int32_t src_device;
  int32_t dst_device;
} hk_activity_record;

// Turns stamping on, keeping at most `capacity` records unread, or off
// (capacity 0).  Turning it on or off drops the records not yet read, and
// those of ops enqueued before.  Returns hipSuccess.
int hk_activity_enable(size_t capacity);
// Moves up to `max` records, oldest first, into `out`; returns how many.
// Thread-safe; ops finishing meanwhile wait for the next read.
size_t hk_activity_read(hk_activity_record* out, size_t max);
// Records dropped because the buffer was full, since activity was turned on.
uint64_t hk_activity_dropped(void);
// Records waiting to be read now.
size_t hk_activity_waiting(void);

// A launch's answer (hkrt_launch*) asking its caller to read the records soon:
// the launch itself succeeded.  Given once `waiting` or more records wait
// (hk_activity_notify), and again only after a read.  No hipError_t has it.
#define HK_ACTIVITY_READ_SOON 0x48500001
// Sets the number of waiting records at which a launch answers
// HK_ACTIVITY_READ_SOON; 0 (the default) never.  A consumer that reads only
// when asked keeps memory bounded without a thread of its own: the Python
// profiler, which does not wrap launches.
int hk_activity_notify(size_t waiting);
// Sets the calling thread's correlation id, which the records of the work it
// enqueues from now on carry (e.g. the id of the API call being made);
// returns the previous one.  0 (the initial value) means none.
uint64_t hk_activity_set_correlation(uint64_t id);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HIPKIT_CPU_ACTIVITY_H
