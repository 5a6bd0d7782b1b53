// hipkit CPU platform: the contract between kernel modules and libhipkit_cpu.
//
// A kernel module is a shared object built from HIP C++ by hipkit's source
// transform (hipkit/platforms/cpu/transform.py) and the system C++ compiler.
// Each __global__ function becomes a *block function*: called once per block,
// it runs all of the block's threads, either as plain loops (kernels with no
// barriers or warp operations), as loops split at barriers, or as user-space
// fibers (the general fallback).  The runtime (libhipkit_cpu.so) owns worker
// threads, memory, streams, events, fibers and error state.
//
// Everything here is plain C layout so that the Python side (ctypes) and
// whole C++ programs share one definition.  Bump HK_ABI_VERSION on any change.
#ifndef HIPKIT_CPU_ABI_H
#define HIPKIT_CPU_ABI_H

#include <stddef.h>
#include <stdint.h>

#define HK_ABI_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

// A thread/block coordinate, as threadIdx/blockIdx/blockDim/gridDim.
typedef struct hk_index3 {
  unsigned int x, y, z;
} hk_index3;

// How a kernel parameter is passed (from its C++ type, see hipkit_cpu/kernel.h).
enum hk_param_kind {
  HK_PARAM_POINTER = 0,
  HK_PARAM_SIGNED = 1,    // signed integers and enums with signed underlying type
  HK_PARAM_UNSIGNED = 2,  // unsigned integers, bool, enums with unsigned underlying type
  HK_PARAM_FLOAT = 3,     // float, double, __half
  HK_PARAM_OTHER = 4      // structs and vector types, passed by value as bytes
};

typedef struct hk_param_desc {
  uint32_t size;
  uint32_t align;
  uint32_t kind;  // enum hk_param_kind
} hk_param_desc;

// entry() runs one whole block (all modes).  Parameters are read from
// args[i], a pointer to the i-th argument's bytes (as hipModuleLaunchKernel's
// kernelParams).
typedef void (*hk_entry_fn)(void** args);

enum hk_exec_mode {
  HK_EXEC_LOOP = 0,   // no barriers or warp operations: threads run as a loop
  HK_EXEC_SPLIT = 1,  // loops over the block's threads, split at barriers
  HK_EXEC_FIBER = 2   // one fiber per thread (barriers anywhere)
};

typedef struct hk_kernel_desc {
  const char* name;          // identifier or name expression ("scale<float>")
  const void* symbol;        // the kernel's own function (dladdr gives its mangled name)
  hk_entry_fn entry;
  uint32_t mode;             // enum hk_exec_mode
  uint32_t num_params;
  const hk_param_desc* params;
} hk_kernel_desc;

typedef struct hk_global_desc {
  const char* name;          // __device__ / __constant__ / __managed__ variable
  void* address;
  size_t size;
} hk_global_desc;

typedef struct hk_module_desc {
  uint32_t abi_version;      // HK_ABI_VERSION
  uint32_t warp_size;        // the warp size the module was compiled for
  uint32_t num_kernels;
  const hk_kernel_desc* const* kernels;
  uint32_t num_globals;
  const hk_global_desc* globals;
} hk_module_desc;

// Every kernel module exports this.
typedef const hk_module_desc* (*hk_module_fn)(void);
#define HK_MODULE_SYMBOL "__hk_module"

// Per-worker state for the block being run.  The runtime fills it before
// calling a block function; generated code reads it through __hk_block.
typedef struct hk_block_context {
  uint32_t nthreads;            // blockDim.x * blockDim.y * blockDim.z; 0 in query mode
  uint32_t warp_size;
  const hk_index3* thread_ids;  // thread_ids[t] is threadIdx of linear thread t
  void* dynamic_shared;         // extern __shared__ memory for this block
  uint32_t dynamic_shared_bytes;
  // Query mode (nthreads == 0): the block function runs no thread; it reports
  // its static shared memory and __launch_bounds__ here.
  uint32_t static_shared_bytes;
  uint32_t max_threads_per_block;
  // Scratch arena for per-thread storage of split kernels; reset per block.
  unsigned char* scratch_cur;
  unsigned char* scratch_end;
} hk_block_context;

// ---- Entry points into the runtime used by kernel code -------------------

// Slow path of the scratch allocator (a new chunk); never returns NULL (traps).
void* __hk_scratch_alloc_slow(size_t bytes, size_t align);

// Run fn(closure, t) for every thread t of the current block as fibers; the
// functions below may only be called from inside such a fiber.
void __hk_run_fibers(void (*fn)(void* closure, unsigned int tid), void* closure);
void __hk_fiber_barrier(void);
int __hk_fiber_barrier_reduce(int predicate, int op);  // op: 0 count, 1 and, 2 or
// Warp operations.  `site` identifies the call in the source (its line):
// lanes of a warp meet by site, as the active lanes of a divergent branch do
// on a GPU, and only the lanes that met take part.
// __hk_fiber_shfl returns the value of lane `src_lane` (0 <= src_lane < warp
// size), or `value` itself if that lane does not take part.
uint64_t __hk_fiber_shfl(uint64_t value, int src_lane, uint64_t site);
uint64_t __hk_fiber_ballot(int predicate, uint64_t site);  // over the lanes taking part
uint64_t __hk_fiber_activemask(uint64_t site);
void __hk_fiber_syncwarp(uint64_t site);

// Abort the running kernel with a hipError_t code (hipErrorAssert,
// hipErrorLaunchFailure, ...) and a message.  Does not return.
void __hk_trap(int hip_error, const char* message) __attribute__((noreturn));
// Device-side assert (the preprocessed assert() calls are renamed to this).
void __hk_assert_fail(const char* expr, const char* file, unsigned int line,
                      const char* function) __attribute__((noreturn));

#ifdef __cplusplus
}  // extern "C"

// The built-in variables.  blockIdx/blockDim/gridDim are set per block and
// threadIdx per thread by the runtime (generated code shadows them with locals
// where it can).  __thread, not thread_local: no TLS wrapper calls.
extern __thread hk_index3 threadIdx;
extern __thread hk_index3 blockIdx;
extern __thread hk_index3 blockDim;
extern __thread hk_index3 gridDim;
extern __thread hk_block_context* __hk_block;

// The generated code's update of threadIdx where code outside the kernel body reads it.
// In a build with the sanitizer's probes (-D__HK_PROBES) it is a call into the runtime:
// the probes are placed after the optimizer has run, which may have moved a plain store
// out of the thread loop (nothing in it read the variable yet).
#ifdef __HK_PROBES
extern "C" void __hk_probe_thread(hk_index3 thread);
#endif
namespace __hk {
inline __attribute__((always_inline)) void set_thread(const hk_index3& thread) {
#ifdef __HK_PROBES
  __hk_probe_thread(thread);
#else
  ::threadIdx = thread;
#endif
}
}  // namespace __hk
#endif

#endif  // HIPKIT_CPU_ABI_H
