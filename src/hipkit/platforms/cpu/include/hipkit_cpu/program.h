// hipkit CPU platform: HIP's host API for whole programs (`hipkit cc`).
//
// hip_runtime.h includes this when __HIPKIT_PROGRAM__ is defined (hipkit cc
// defines it); kernel sources compiled from Python never see it.  Every call
// maps onto libhipkit_cpu's hkrt_* functions, the runtime the Python API uses,
// and returns HIP's error codes.  As in HIP, a call that fails also becomes
// the calling thread's last error (hipGetLastError); errors raised inside a
// kernel are sticky: every later call on that device returns them until its
// hipDeviceReset().
//
// The CPU is HIPKIT_CPU_DEVICES devices (one by default), which the program
// numbers as HIP_VISIBLE_DEVICES says (program_visible.h); each thread has a
// current device (hipSetDevice), whose index the runtime's calls are given.
// Device and host memory are all host memory, so a device pointer can be
// dereferenced on the host, and by any device's kernels, and managed memory
// is ordinary memory; copies still run on streams, in order.
//
// Here: errors, devices, streams, events and host functions; program_memory.h:
// memory, copies and device globals; program_launch.h: launches, kernel
// attributes; program_occupancy.h: occupancy; program_module.h: modules;
// program_device.h, program_context.h, program_ipc.h: devices, contexts and IPC;
// program_vmm.h: virtual memory management; program_ext.h: HIP's extensions;
// program_cooperative.h, program_graph.h: cooperative launches and graphs;
// program_visible.h: the *_VISIBLE_DEVICES variables.
#ifndef HIPKIT_CPU_PROGRAM_H
#define HIPKIT_CPU_PROGRAM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "device.h"
#include "host_types.h"
#include "program_profile.h"
#include "program_visible.h"

namespace __hk {

// The calling thread's last error and current device (the program's number).
inline thread_local hipError_t last_error = hipSuccess;
inline thread_local int current_device = 0;

// Records a failed call's code as the thread's last error; returns the code.
// hipErrorNotReady (a query's answer) is not an error, as in CUDA.
inline hipError_t result(int code) {
  if (code != hipSuccess && code != hipErrorNotReady) last_error = static_cast<hipError_t>(code);
  return static_cast<hipError_t>(code);
}

// Checks the program's device number `device`: hipErrorNoDevice if none is
// visible, hipErrorInvalidDevice if it is not one of them.
inline hipError_t check_device(int device) {
  if (int code = hkrt_init(0, 0, 0)) return result(code);
  if (visible().count == 0) return result(hipErrorNoDevice);
  return device >= 0 && device < visible().count ? hipSuccess : result(hipErrorInvalidDevice);
}

// The runtime's index of the program's device `device` (checked first), or
// -1 (which the runtime refuses) if it is none.
inline int native(int device) {
  return device >= 0 && device < visible().count ? visible().native[device] : -1;
}
// The runtime's index of the calling thread's current device.
inline int current() { return native(current_device); }

// The UUID of the runtime's device `native` (program_device.h).
inline void device_uuid(int native, hipUUID* uuid);
// Contexts (program_context.h): hipSetDevice's part, and a device's flags.
inline void bind_primary(int ordinal);
inline hipError_t check_flags(unsigned flags);
inline std::atomic<unsigned>& device_flags(int native);

}  // namespace __hk

// ---- Errors ------------------------------------------------------------------

inline hipError_t hipGetLastError(void) {
  __HK_API_CALL();
  hipError_t code = __hk::last_error;
  __hk::last_error = hipSuccess;
  return code;
}
inline hipError_t hipPeekAtLastError(void) {
  __HK_API_CALL();
  return __hk::last_error;
}

inline const char* hipGetErrorName(hipError_t error) {
  __HK_API_CALL();
  return __hk_error_name(error);
}

inline const char* hipGetErrorString(hipError_t error) {
  __HK_API_CALL();
  return __hk_error_string(error);
}

inline hipError_t hipDrvGetErrorName(hipError_t error, const char** out) {
  __HK_API_CALL();
  if (out == nullptr) return __hk::result(hipErrorInvalidValue);
  *out = hipGetErrorName(error);
  return hipSuccess;
}
inline hipError_t hipDrvGetErrorString(hipError_t error, const char** out) {
  __HK_API_CALL();
  if (out == nullptr) return __hk::result(hipErrorInvalidValue);
  *out = hipGetErrorString(error);
  return hipSuccess;
}

// ---- Devices -------------------------------------------------------------------

inline hipError_t hipInit(unsigned int flags) {
  __HK_API_CALL();
  if (flags != 0) return __hk::result(hipErrorInvalidValue);
  return __hk::check_device(0);
}

inline hipError_t hipDriverGetVersion(int* version) {
  __HK_API_CALL();
  if (version == nullptr) return __hk::result(hipErrorInvalidValue);
  *version = HIP_VERSION;
  return hipSuccess;
}
inline hipError_t hipRuntimeGetVersion(int* version) {
  __HK_API_CALL();
  return hipDriverGetVersion(version);
}

inline hipError_t hipGetDeviceCount(int* count) {
  __HK_API_CALL();
  if (count == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(0)) {
    *count = 0;
    return code;
  }
  *count = __hk::visible().count;
  return hipSuccess;
}

inline hipError_t hipSetDevice(int device) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(device)) return code;
  __hk::current_device = device;
  __hk::bind_primary(device);
  return hipSuccess;
}

inline hipError_t hipGetDevice(int* device) {
  __HK_API_CALL();
  if (device == nullptr) return __hk::result(hipErrorInvalidValue);
  *device = __hk::current_device;
  return hipSuccess;
}

inline hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  __HK_API_CALL();
  if (device == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(ordinal)) return code;
  *device = ordinal;
  return hipSuccess;
}

inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device) {
  __HK_API_CALL();
  if (prop == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(device)) return code;
  hkrt_device_info info;
  if (int code = hkrt_get_device_info(__hk::native(device), &info)) return __hk::result(code);
  memset(prop, 0, sizeof(*prop));
  snprintf(prop->name, sizeof(prop->name), "%s", info.name);
  snprintf(prop->gcnArchName, sizeof(prop->gcnArchName), "%s", info.arch);
  prop->totalGlobalMem = info.total_global_mem;
  prop->sharedMemPerBlock = info.shared_mem_per_block;
  prop->sharedMemPerBlockOptin = info.shared_mem_per_block;
  prop->sharedMemPerMultiprocessor = info.shared_mem_per_block;
  prop->maxSharedMemoryPerMultiProcessor = info.shared_mem_per_block;
  prop->regsPerBlock = int(info.regs_per_block);
  prop->regsPerMultiprocessor = int(info.regs_per_block);
  prop->warpSize = int(info.warp_size);
  prop->memPitch = INT32_MAX;
  prop->maxThreadsPerBlock = int(info.max_threads_per_block);
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = int(info.max_threads_dim[i]);
    prop->maxGridSize[i] = int(info.max_grid_size[i]);
  }
  prop->clockRate = int(info.clock_rate_khz);
  prop->clockInstructionRate = int(info.clock_rate_khz);
  prop->totalConstMem = info.total_const_mem;
  prop->major = int(info.compute_capability[0]);
  prop->minor = int(info.compute_capability[1]);
  prop->multiProcessorCount = int(info.multiprocessor_count);
  prop->l2CacheSize = int(info.l2_cache_size);
  prop->pciDomainID = 0;  // its PCI bus id (program_device.h)
  prop->pciBusID = __hk::native(device);
  __hk::device_uuid(__hk::native(device), &prop->uuid);
  prop->streamPrioritiesSupported = 1;
  // A worker thread (a "multiprocessor") runs one block at a time.
  prop->maxThreadsPerMultiProcessor = int(info.max_threads_per_block);
  prop->maxBlocksPerMultiProcessor = 1;
  prop->cooperativeLaunch = 1;  // grids of at most one block per worker (program_cooperative.h)
  prop->integrated = 1;  // the host's own memory
  prop->isLargeBar = 1;  // and all of it visible to the host
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->unifiedAddressing = 1;
  prop->managedMemory = 1;
  prop->concurrentManagedAccess = 1;
  prop->directManagedMemAccessFromHost = 1;
  prop->pageableMemoryAccess = 1;
  prop->pageableMemoryAccessUsesHostPageTables = 1;
  prop->canUseHostPointerForRegisteredMem = 1;
  prop->hostNativeAtomicSupported = 1;
  prop->hostRegisterSupported = 1;
  prop->computeMode = hipComputeModeDefault;
  prop->textureAlignment = prop->surfaceAlignment = __hk::kTextureAlignment;
  prop->texturePitchAlignment = __hk::kTexturePitchAlignment;
  // What the CPU's arrays take; no cube maps, no mipmap sampling (zero).
  const int extent = int(__hk::kMaxArrayExtent), depth = int(__hk::kMaxArrayDepth);
  prop->maxTexture1D = prop->maxSurface1D = extent;
  prop->maxTexture1DLinear = int(__hk::kMaxTexture1DLinear);
  for (int i = 0; i < 2; ++i) {
    prop->maxTexture2D[i] = prop->maxTexture2DGather[i] = prop->maxSurface2D[i] = extent;
    prop->maxTexture2DLinear[i] = int(__hk::kMaxTexture2DLinear);
  }
  prop->maxTexture2DLinear[2] = int(__hk::kMaxTexture2DLinear);  // its pitch in bytes
  for (int i = 0; i < 3; ++i)
    prop->maxTexture3D[i] = prop->maxSurface3D[i] = prop->maxTexture2DLayered[i] =
        prop->maxSurface2DLayered[i] = i < 2 ? extent : depth;
  prop->maxTexture1DLayered[0] = prop->maxSurface1DLayered[0] = extent;
  prop->maxTexture1DLayered[1] = prop->maxSurface1DLayered[1] = depth;
  prop->memoryPoolsSupported = 1;
  prop->ipcEventSupported = 1;
  prop->singleToDoublePrecisionPerfRatio = 2;
  hipDeviceArch_t& arch = prop->arch;
  arch.hasGlobalInt32Atomics = __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__;
  arch.hasGlobalFloatAtomicExch = __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__;
  arch.hasSharedInt32Atomics = __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__;
  arch.hasSharedFloatAtomicExch = __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__;
  arch.hasFloatAtomicAdd = __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__;
  arch.hasGlobalInt64Atomics = __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__;
  arch.hasSharedInt64Atomics = __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__;
  arch.hasDoubles = __HIP_ARCH_HAS_DOUBLES__;
  arch.hasWarpVote = __HIP_ARCH_HAS_WARP_VOTE__;
  arch.hasWarpBallot = __HIP_ARCH_HAS_WARP_BALLOT__;
  arch.hasWarpShuffle = __HIP_ARCH_HAS_WARP_SHUFFLE__;
  arch.hasFunnelShift = __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__;
  arch.hasThreadFenceSystem = __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__;
  arch.hasSyncThreadsExt = __HIP_ARCH_HAS_SYNC_THREAD_EXT__;
  arch.hasSurfaceFuncs = __HIP_ARCH_HAS_SURFACE_FUNCS__;
  arch.has3dGrid = __HIP_ARCH_HAS_3DGRID__;
  arch.hasDynamicParallelism = __HIP_ARCH_HAS_DYNAMIC_PARALLEL__;
  return hipSuccess;
}

inline hipError_t hipDeviceGetName(char* name, int length, hipDevice_t device) {
  __HK_API_CALL();
  if (name == nullptr || length <= 0) return __hk::result(hipErrorInvalidValue);
  hipDeviceProp_t p;
  if (hipError_t code = hipGetDeviceProperties(&p, device)) return code;
  snprintf(name, size_t(length), "%s", p.name);
  return hipSuccess;
}

inline hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
  __HK_API_CALL();
  if (bytes == nullptr) return __hk::result(hipErrorInvalidValue);
  hipDeviceProp_t p;
  if (hipError_t code = hipGetDeviceProperties(&p, device)) return code;
  *bytes = p.totalGlobalMem;
  return hipSuccess;
}

inline hipError_t hipDeviceComputeCapability(int* major, int* minor, hipDevice_t device) {
  __HK_API_CALL();
  if (major == nullptr || minor == nullptr) return __hk::result(hipErrorInvalidValue);
  hipDeviceProp_t p;
  if (hipError_t code = hipGetDeviceProperties(&p, device)) return code;
  *major = p.major;
  *minor = p.minor;
  return hipSuccess;
}

inline hipError_t hipDeviceSynchronize(void) {
  __HK_API_CALL();
  return __hk::result(hkrt_device_synchronize(__hk::current()));
}
// The current device only: the others keep their memory, streams and errors.
inline hipError_t hipDeviceReset(void) {
  __HK_API_CALL();
  return __hk::result(hkrt_device_reset(__hk::current()));
}

// The device's flags are kept (program_context.h); the CPU's scheduling does not
// depend on them.  The others are settings that change nothing on the CPU: accepted.
inline hipError_t hipSetDeviceFlags(unsigned int flags) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  if (hipError_t code = __hk::check_flags(flags)) return code;
  __hk::device_flags(__hk::current()).store(flags);
  return hipSuccess;
}
inline hipError_t hipGetDeviceFlags(unsigned int* flags) {
  __HK_API_CALL();
  if (flags == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  *flags = __hk::device_flags(__hk::current()).load();
  return hipSuccess;
}
inline hipError_t hipDeviceSetCacheConfig(hipFuncCache_t) {
  __HK_API_CALL();
  return hipSuccess;
}
inline hipError_t hipDeviceGetCacheConfig(hipFuncCache_t* config) {
  __HK_API_CALL();
  if (config == nullptr) return __hk::result(hipErrorInvalidValue);
  *config = hipFuncCachePreferNone;
  return hipSuccess;
}
inline hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig) {
  __HK_API_CALL();
  return hipSuccess;
}

// Any two distinct CPU devices are peers: they share one address space.
inline hipError_t hipDeviceCanAccessPeer(int* can_access, int device, int peer) {
  __HK_API_CALL();
  if (can_access == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(device)) return code;
  if (hipError_t code = __hk::check_device(peer)) return code;
  return __hk::result(
      hkrt_device_can_access_peer(can_access, __hk::native(device), __hk::native(peer)));
}
inline hipError_t hipDeviceEnablePeerAccess(int peer, unsigned int flags) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  if (hipError_t code = __hk::check_device(peer)) return code;
  return __hk::result(
      hkrt_device_enable_peer_access(__hk::current(), __hk::native(peer), flags));
}
inline hipError_t hipDeviceDisablePeerAccess(int peer) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  if (hipError_t code = __hk::check_device(peer)) return code;
  return __hk::result(hkrt_device_disable_peer_access(__hk::current(), __hk::native(peer)));
}

// ---- Streams and events ------------------------------------------------------------

inline hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_create(__hk::current(), stream, flags));
}
inline hipError_t hipStreamCreate(hipStream_t* stream) {
  __HK_API_CALL();
  return hipStreamCreateWithFlags(stream, hipStreamDefault);
}
inline hipError_t hipStreamDestroy(hipStream_t stream) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_destroy(stream));
}
inline hipError_t hipStreamSynchronize(hipStream_t stream) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_synchronize(__hk::current(), stream));
}
inline hipError_t hipStreamQuery(hipStream_t stream) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_query(__hk::current(), stream));
}
inline hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags = 0) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_wait_event(__hk::current(), stream, event, flags));
}

// Host functions run on a worker thread of the stream's device, in the
// stream's order; the call returns before they run.  hipLaunchHostFunc's is
// dropped after a sticky error, as in CUDA; hipStreamAddCallback's callback
// runs once all the same, and is told the error.
inline hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* userData) {
  __HK_API_CALL();
  return __hk::result(hkrt_launch_host_func(__hk::current(), stream, fn, userData, nullptr, 0));
}

namespace __hk {

// A callback of hipStreamAddCallback, with what it is passed.
struct stream_callback {
  hipStreamCallback_t callback;
  hipStream_t stream;  // as the program gave it (NULL: the null stream)
  void* user_data;
  int device;  // the runtime's index of the stream's device, whose sticky error it is told

  static void run(void* self) {
    auto* call = static_cast<stream_callback*>(self);
    call->callback(call->stream, static_cast<hipError_t>(hkrt_sticky_error(call->device)),
                   call->user_data);
    delete call;
  }
};

}  // namespace __hk

inline hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback,
                                       void* userData, unsigned int flags) {
  __HK_API_CALL();
  if (callback == nullptr || flags != 0) return __hk::result(hipErrorInvalidValue);
  int device = 0;
  if (int code = hkrt_stream_get_device(__hk::current(), stream, &device))
    return __hk::result(code);
  auto* call = new __hk::stream_callback{callback, stream, userData, device};
  int code = hkrt_launch_host_func(__hk::current(), stream, __hk::stream_callback::run, call,
                                   nullptr, HKRT_HOST_FUNC_ALWAYS);
  if (code != hipSuccess) delete call;
  return __hk::result(code);
}

inline hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned int flags) {
  __HK_API_CALL();
  return __hk::result(hkrt_event_create(__hk::current(), event, flags));
}
inline hipError_t hipEventCreate(hipEvent_t* event) {
  __HK_API_CALL();
  return hipEventCreateWithFlags(event, hipEventDefault);
}
inline hipError_t hipEventDestroy(hipEvent_t event) {
  __HK_API_CALL();
  return __hk::result(hkrt_event_destroy(event));
}
inline hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_event_record(__hk::current(), event, stream));
}
inline hipError_t hipEventSynchronize(hipEvent_t event) {
  __HK_API_CALL();
  return __hk::result(hkrt_event_synchronize(event));
}
inline hipError_t hipEventQuery(hipEvent_t event) {
  __HK_API_CALL();
  return __hk::result(hkrt_event_query(event));
}
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  __HK_API_CALL();
  return __hk::result(hkrt_event_elapsed_time(ms, start, stop));
}

#include "program_stream.h"
#include "program_memory.h"
#include "program_array.h"
#include "program_texture.h"
#include "program_launch.h"
#include "program_module.h"
#include "program_occupancy.h"
#include "program_device.h"
#include "program_context.h"
#include "program_ipc.h"
#include "program_vmm.h"
#include "program_ext.h"
#include "program_cooperative.h"
#include "program_graph.h"

#endif  // HIPKIT_CPU_PROGRAM_H
