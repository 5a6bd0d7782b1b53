// hipkit CPU platform: the runtime's host API (libhipkit_cpu.so).
//
// One implementation serves the Python API (through ctypes) and whole HIP
// programs built by `hipkit cc` (hipkit_cpu/program.h maps hipMalloc & co.
// onto these).  Every function
// is thread-safe and returns a hipError_t value (HIP's numbering).
//
// The host's cores form HIPKIT_CPU_DEVICES devices (default 1), numbered from
// 0: each has its own worker threads, memory accounting, streams, events,
// modules, sticky error and reset.  The runtime has no current device: a
// function that needs one takes its index (`device`), and where a stream
// argument is NULL it means that device's null stream.  Indices are the
// runtime's own; HIP_VISIBLE_DEVICES is applied above (program_visible.h,
// the Python API), and -1 there means that none is visible: hipErrorNoDevice.
//
// Errors raised by a running kernel (illegal address, device assert, trap)
// are *sticky*, as on a GPU: the launch itself returned hipSuccess, and the
// error is returned by the next synchronizing call and by every later call
// that uses the device, until hkrt_device_reset() of that device.
#ifndef HIPKIT_CPU_RUNTIME_H
#define HIPKIT_CPU_RUNTIME_H

#include "abi.h"
#include "runtime_vmm.h"

#ifdef __cplusplus
extern "C" {
#endif

// hipError_t values the runtime returns (HIP's numbering).
enum {
  HKRT_SUCCESS = 0,
  HKRT_ERROR_INVALID_VALUE = 1,
  HKRT_ERROR_OUT_OF_MEMORY = 2,
  HKRT_ERROR_NOT_INITIALIZED = 3,
  HKRT_ERROR_INVALID_CONFIGURATION = 9,
  HKRT_ERROR_INVALID_SYMBOL = 13,
  HKRT_ERROR_INVALID_DEVICE_POINTER = 17,
  HKRT_ERROR_INVALID_MEMCPY_DIRECTION = 21,
  HKRT_ERROR_INVALID_DEVICE_FUNCTION = 98,
  HKRT_ERROR_NO_DEVICE = 100,
  HKRT_ERROR_INVALID_DEVICE = 101,
  HKRT_ERROR_INVALID_IMAGE = 200,
  HKRT_ERROR_INVALID_CONTEXT = 201,
  HKRT_ERROR_MAP_FAILED = 205,
  HKRT_ERROR_FILE_NOT_FOUND = 301,
  HKRT_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
  HKRT_ERROR_INVALID_HANDLE = 400,
  HKRT_ERROR_ILLEGAL_STATE = 401,
  HKRT_ERROR_NOT_FOUND = 500,
  HKRT_ERROR_NOT_READY = 600,
  HKRT_ERROR_ILLEGAL_ADDRESS = 700,
  HKRT_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  HKRT_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  HKRT_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
  HKRT_ERROR_ASSERT = 710,
  HKRT_ERROR_LAUNCH_FAILURE = 719,
  HKRT_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
  HKRT_ERROR_NOT_SUPPORTED = 801,
  HKRT_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,  // and the other errors of graphs
  HKRT_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
  HKRT_ERROR_STREAM_CAPTURE_MERGE = 902,
  HKRT_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
  HKRT_ERROR_STREAM_CAPTURE_UNJOINED = 904,
  HKRT_ERROR_STREAM_CAPTURE_ISOLATION = 905,
  HKRT_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
  HKRT_ERROR_CAPTURED_EVENT = 907,
  HKRT_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
  HKRT_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
  HKRT_ERROR_UNKNOWN = 999
};

// hipMemcpyKind
enum {
  HKRT_MEMCPY_HOST_TO_HOST = 0,
  HKRT_MEMCPY_HOST_TO_DEVICE = 1,
  HKRT_MEMCPY_DEVICE_TO_HOST = 2,
  HKRT_MEMCPY_DEVICE_TO_DEVICE = 3,
  HKRT_MEMCPY_DEFAULT = 4
};

// Stream and event flags (hipStreamNonBlocking, hipEventDisableTiming, ...).
#define HKRT_STREAM_NON_BLOCKING 0x1u
#define HKRT_EVENT_BLOCKING_SYNC 0x1u
#define HKRT_EVENT_DISABLE_TIMING 0x2u
#define HKRT_EVENT_INTERPROCESS 0x4u  // with HKRT_EVENT_DISABLE_TIMING only (ipc.cpp)
// HIP's fence scopes of a record: the CPU's memory is one coherent host memory,
// so they order nothing more than a plain record does (one release scope at most).
#define HKRT_EVENT_DISABLE_SYSTEM_FENCE 0x20000000u
#define HKRT_EVENT_RELEASE_TO_DEVICE 0x40000000u
#define HKRT_EVENT_RELEASE_TO_SYSTEM 0x80000000u
#define HKRT_EVENT_FENCE_SCOPES \
  (HKRT_EVENT_DISABLE_SYSTEM_FENCE | HKRT_EVENT_RELEASE_TO_DEVICE | HKRT_EVENT_RELEASE_TO_SYSTEM)

typedef struct hkrt_stream hkrt_stream;  // NULL is the null (legacy default) stream
// Two more handles no stream has, HIP's values: the legacy default stream (the
// NULL stream) and the calling thread's per-thread default stream of the device.
#define HKRT_STREAM_LEGACY ((hkrt_stream*)1)
#define HKRT_STREAM_PER_THREAD ((hkrt_stream*)2)
typedef struct hkrt_event hkrt_event;
typedef struct hkrt_module hkrt_module;

typedef struct hkrt_device_info {
  char name[256];              // CPU model name, and "(CPU device D of N)" when N > 1
  char arch[64];               // target name, e.g. "x86_64" (gcnArchName's place)
  uint64_t total_global_mem;   // the device's share of physical memory (all of it / N)
  uint32_t warp_size;
  uint32_t max_threads_per_block;   // 1024
  uint32_t max_threads_dim[3];      // 1024, 1024, 1024
  uint32_t max_grid_size[3];        // 2^31-1, 65535, 65535
  uint32_t shared_mem_per_block;    // 65536
  uint32_t multiprocessor_count;    // the device's worker threads
  uint32_t clock_rate_khz;
  uint32_t l2_cache_size;
  uint32_t total_const_mem;
  uint32_t regs_per_block;
  uint32_t compute_capability[2];   // reported as 0.0 on the CPU
} hkrt_device_info;

typedef struct hkrt_function_attributes {
  uint32_t mode;                 // enum hk_exec_mode
  uint32_t num_params;
  uint32_t static_shared_bytes;
  uint32_t max_threads_per_block;  // from __launch_bounds__, else 1024
  const char* activity_name;     // its name in activity records (runtime/activity.h)
} hkrt_function_attributes;

// Start the runtime.  warp_size: 32 or 64 (0: HIPKIT_CPU_WARP_SIZE or 64);
// num_threads: worker threads of all devices together (0: HIPKIT_CPU_THREADS
// or the number of cores), divided among the devices, each getting at least
// one; num_devices: 1 to 64 (0: HIPKIT_CPU_DEVICES or 1).  Idempotent; a
// later call with different non-zero values is hipErrorInvalidValue.
int hkrt_init(uint32_t warp_size, uint32_t num_threads, uint32_t num_devices);
int hkrt_device_count(int* count);
int hkrt_get_device_info(int device, hkrt_device_info* out);

// A message with details of the last error returned to this host thread
// (faulting address, failed assertion, compile problem ...), or "".
const char* hkrt_last_error_detail(void);
// The device's sticky error, or hipSuccess; does not clear it.
int hkrt_sticky_error(int device);

// hipkit sanitize from Python (hipkit.sanitize): from now on, `tool` ("memcheck")
// checks the kernels built with probes, against every allocation (those made before
// too), printing at most `print_limit` errors (0: all).  hkrt_sanitize_stop ends the
// checks, gives their error count and releases the freed memory kept mapped meanwhile.
// Starting while a tool runs, or stopping the one HIPKIT_SANITIZE started (it lasts as
// long as the process) or none, is HKRT_ERROR_INVALID_VALUE.
int hkrt_sanitize_start(const char* tool, uint32_t print_limit);
int hkrt_sanitize_stop(uint64_t* errors);

// Memory of `device`, counted against its share of the host's memory (more is
// hipErrorOutOfMemory); size 0 gives NULL, success.
int hkrt_malloc(int device, void** ptr, size_t size);
int hkrt_free(void* ptr);                          // NULL is a no-op
// Pinned host memory, freed by `device`'s reset; device -1: by no reset.
int hkrt_host_malloc(int device, void** ptr, size_t size);
int hkrt_host_free(void* ptr);
// *kind: 1 if ptr lies in memory from hkrt_malloc, 2 if from hkrt_host_malloc,
// else 0; *device: the device that owns that memory, else -1.  Either may be NULL.
int hkrt_pointer_info(const void* ptr, int* kind, int* device);
// total: the device's share of the host's memory; free: what is left of it
// after the device's allocations, at most what the host has available.
int hkrt_mem_get_info(int device, size_t* free_bytes, size_t* total_bytes);

// Ordered on `stream` (async != 0) or synchronous with respect to the host;
// `stream` may be another device's (the copy runs on that device, as in
// HIP).  A synchronous copy touching memory of another device than the
// stream's also waits for what that device's null stream would wait for.
int hkrt_memcpy(int device, void* dst, const void* src, size_t bytes, int kind,
                hkrt_stream* stream, int async);
// A copy from src_device's memory to dst_device's, on `stream` (NULL:
// `device`'s null stream).  Synchronous, it first waits for what the null
// streams of both devices would wait for (hipMemcpyPeer); asynchronous, it is
// ordered on `stream` only (hipMemcpyPeerAsync).
int hkrt_memcpy_peer(void* dst, int dst_device, const void* src, int src_device, size_t bytes,
                     int device, hkrt_stream* stream, int async);
// Sets `count` elements of elem_size bytes (1, 2 or 4) to `value`.
int hkrt_memset(int device, void* dst, uint32_t value, size_t count, uint32_t elem_size,
                hkrt_stream* stream, int async);

int hkrt_stream_create(int device, hkrt_stream** out, unsigned int flags);
// Priorities as HIP's: lower numbers are greater, from HKRT_STREAM_PRIORITY_LEAST
// to HKRT_STREAM_PRIORITY_GREATEST; others are clamped into that range.  The
// device's workers take the units of a greater-priority stream's ready jobs first.
#define HKRT_STREAM_PRIORITY_LEAST 0
#define HKRT_STREAM_PRIORITY_GREATEST (-1)
int hkrt_stream_create_with_priority(int device, hkrt_stream** out, unsigned int flags,
                                     int priority);
// The stream's creation flags and priority (either may be NULL); NULL: `device`'s null stream.
int hkrt_stream_get_info(int device, hkrt_stream* stream, unsigned int* flags, int* priority);
int hkrt_stream_destroy(hkrt_stream* stream);
int hkrt_stream_synchronize(int device, hkrt_stream* stream);
int hkrt_stream_query(int device, hkrt_stream* stream);   // hipSuccess or hipErrorNotReady
// The device `stream` belongs to (`device` for NULL: its null stream).
int hkrt_stream_get_device(int device, hkrt_stream* stream, int* out);
// The event may be another device's: streams of one device can wait for work
// of another.
int hkrt_stream_wait_event(int device, hkrt_stream* stream, hkrt_event* event,
                           unsigned int flags);

// Waits and writes of a 32- or 64-bit word (`bytes` 4 or 8) in `stream`'s order
// (hipStreamWaitValue32/64, hipStreamWriteValue32/64).  The wait holds back the
// stream's later work until the word at `ptr` (any memory this process maps,
// shared memory of another process included) meets `value` under `mask` by
// `compare` (HKRT_WAIT_*, HIP's numbers); it is checked from when the stream
// reaches it, by a thread of the runtime, not by a worker, so that the work
// that writes the word can run on the same device.  The write stores `value`
// once the work before it is done.
#define HKRT_WAIT_GEQ 0
#define HKRT_WAIT_EQ 1
#define HKRT_WAIT_AND 2
#define HKRT_WAIT_NOR 3
int hkrt_stream_wait_value(int device, hkrt_stream* stream, const void* ptr, uint64_t value,
                           uint64_t mask, unsigned int compare, unsigned int bytes);
int hkrt_stream_write_value(int device, hkrt_stream* stream, void* ptr, uint64_t value,
                            unsigned int bytes);

int hkrt_event_create(int device, hkrt_event** out, unsigned int flags);
int hkrt_event_destroy(hkrt_event* event);
// `stream` must be of the event's device (else hipErrorInvalidHandle).
int hkrt_event_record(int device, hkrt_event* event, hkrt_stream* stream);
int hkrt_event_synchronize(hkrt_event* event);
int hkrt_event_query(hkrt_event* event);
// Events of two devices: hipErrorInvalidHandle.
int hkrt_event_elapsed_time(float* ms, hkrt_event* start, hkrt_event* stop);

// Device memory shared between processes (hipIpcGetMemHandle & co., ipc.cpp):
// the handle of the hkrt_malloc allocation `ptr` lies in (its pages move to
// shared memory the first time; hipErrorInvalidHandle for other memory), 64
// bytes at `handle`; another process of the same user maps it as memory of its
// `device` (hipErrorInvalidContext in the exporting process itself,
// hipErrorInvalidValue for a handle that is none, or whose allocation or
// process is gone) at the exported pointer's offset; close unmaps it
// (hipErrorInvalidHandle for a pointer that open did not return).
#define HKRT_IPC_HANDLE_SIZE 64
#define HKRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 0x1u
int hkrt_ipc_get_mem_handle(void* handle, void* ptr);
int hkrt_ipc_open_mem_handle(int device, void** ptr, const void* handle, unsigned int flags);
int hkrt_ipc_close_mem_handle(void* ptr);
// Events of HKRT_EVENT_INTERPROCESS shared the same way: a record, query,
// synchronize or stream wait in any process that has the event sees the
// records of all of them.  The handle of an event made without the flag is
// hipErrorInvalidConfiguration; an opened event is of `device`, with timing
// disabled, and is destroyed by hkrt_event_destroy.
int hkrt_ipc_get_event_handle(void* handle, hkrt_event* event);
int hkrt_ipc_open_event_handle(int device, hkrt_event** out, const void* handle);

int hkrt_device_synchronize(int device);
// Clears the device's sticky error, waits for and destroys its streams,
// events, modules and allocations, and ends its peer access (as
// hipDeviceReset); the other devices keep theirs.
int hkrt_device_reset(int device);
// Incremented by every hkrt_device_reset() of the device, so callers can tell
// stale handles.
uint64_t hkrt_reset_generation(int device);

// Peer access (hipDeviceCanAccessPeer & co.): possible between any two
// distinct devices, which share one address space.
int hkrt_device_can_access_peer(int* can_access, int device, int peer);
// hipErrorPeerAccessAlreadyEnabled the second time; hipErrorInvalidDevice
// for device == peer.
int hkrt_device_enable_peer_access(int device, int peer, unsigned int flags);
// hipErrorPeerAccessNotEnabled unless enabled.
int hkrt_device_disable_peer_access(int device, int peer);

// Loads a kernel module on `device`: its kernels launch there only.
int hkrt_module_load(int device, const char* path, hkrt_module** out);
int hkrt_module_unload(hkrt_module* module);
int hkrt_module_get_function(hkrt_module* module, const char* name,
                             const hk_kernel_desc** out);
int hkrt_function_get_attributes(const hk_kernel_desc* function,
                                 hkrt_function_attributes* out);
int hkrt_module_get_global(hkrt_module* module, const char* name, void** ptr,
                           size_t* size);

// Launch `function` on `device`, on `stream`: a stream of another device, or a
// function of a module loaded on another device, is hipErrorInvalidHandle.
// args[i] points to the i-th argument.  Besides hipSuccess and errors, a
// launch that succeeded may answer HK_ACTIVITY_READ_SOON, but only to a
// caller that asked for it (hk_activity_notify, runtime/activity.h).
int hkrt_launch(int device, const hk_kernel_desc* function, const uint32_t grid[3],
                const uint32_t block[3], uint32_t dynamic_shared_bytes,
                hkrt_stream* stream, void** args);
// The same with arguments packed into one buffer, each at the next offset
// aligned to its parameter's alignment (as CUDA's parameter buffer).
int hkrt_launch_packed(int device, const hk_kernel_desc* function, const uint32_t grid[3],
                       const uint32_t block[3], uint32_t dynamic_shared_bytes,
                       hkrt_stream* stream, const void* arg_buffer,
                       size_t arg_bytes);

// A cooperative launch (hipLaunchCooperativeKernel): as hkrt_launch with `args`,
// or hkrt_launch_packed with `arg_buffer` (args NULL); grid.sync() works in it.
// Every block runs on a worker of its own, so a grid of more blocks than the
// device has workers is hipErrorCooperativeLaunchTooLarge.
int hkrt_launch_cooperative(int device, const hk_kernel_desc* function, const uint32_t grid[3],
                            const uint32_t block[3], uint32_t dynamic_shared_bytes,
                            hkrt_stream* stream, void** args, const void* arg_buffer,
                            size_t arg_bytes);

// Host functions on streams (hipLaunchHostFunc, hipStreamAddCallback, and the
// work of libraries built on this runtime): fn(data) runs on one of the
// device's worker threads once the work before it on `stream` is done, and
// the work after it waits until it returns, ordered as a kernel is (the null
// stream's rules included).  The call returns at once, before fn runs, even
// under HIP_LAUNCH_BLOCKING: fn may wait for the enqueuing thread, but must
// not wait for its own stream.  A fault in fn is the device's sticky error,
// as a kernel's.  `device` is whose null stream NULL is; a stream of any
// device is accepted (fn runs on that device).  `name` (may be NULL): while
// activity is on, fn is a kernel record of that name (runtime/activity.h);
// without one, it has no record.  flags: 0, or HKRT_HOST_FUNC_ALWAYS and
// HKRT_HOST_FUNC_SMALL.
int hkrt_launch_host_func(int device, hkrt_stream* stream, void (*fn)(void* data), void* data,
                          const char* name, unsigned int flags);
// Without this flag a host function is dropped with the device's other queued
// work (a sticky error, a reset), as hipLaunchHostFunc's; with it, it runs
// exactly once all the same, as hipStreamAddCallback's callback (which is
// told the sticky error, hkrt_sticky_error).
#define HKRT_HOST_FUNC_ALWAYS 0x1u
// A function of a few microseconds that never waits for another thread (a
// small BLAS call): run like a small copy, on the calling thread when nothing
// is ahead of it on its stream, else by the thread that finishes what is.
// Waking a worker would cost more than the function.
#define HKRT_HOST_FUNC_SMALL 0x2u

// ---- Whole programs -------------------------------------------------------
// A program's translation units are compiled by hipkit's source transform,
// as kernel modules are, but linked into the executable: each unit registers
// its kernels and device globals when the program starts.

// Registers a unit's kernels (by their host-side function, desc->symbol) and
// device globals, and starts the runtime with the unit's warp size.  They are
// every device's: one copy of each global serves all devices.
int hkrt_program_register(const hk_module_desc* unit);
// The kernel whose function is `symbol`: the registered one or else, if
// `generic` is not NULL, a descriptor made from `generic` for this symbol and
// kept for the life of the process; `name` names it in messages.  A generic
// descriptor's entry calls what the launch passes as an extra last argument
// (args[num_params - 1]): the function itself if that parameter is a
// pointer (the runtime passes `symbol` when it queries the kernel), else an
// object without state that calls it.  Without `generic`, an unregistered
// symbol is hipErrorInvalidDeviceFunction.
int hkrt_program_function(const void* symbol, const hk_kernel_desc* generic,
                          const char* name, const hk_kernel_desc** out);
// The registered device global starting at `address`: hipErrorInvalidSymbol
// if there is none.
int hkrt_program_global(const void* address, size_t* size);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HIPKIT_CPU_RUNTIME_H
