// hipkit NVIDIA platform, whole programs: contexts, module occupancy, stream
// memory operations and the device calls CUDA's runtime names differently
// (part of host.h, after module.h).
//
// hipCtx* and hipDevicePrimaryCtx* are the driver's cuCtx* and
// cuDevicePrimaryCtx*, found as module.h finds the module API; a context is a
// CUcontext and the stack is the driver's own, so the runtime's calls use
// whatever context is current.  These calls do not first make a context
// current (the module API does): popping the last context leaves none.
#pragma once

#include "hipkit_program/choose_device.h"

typedef CUcontext hipCtx_t;

namespace __hk_driver {

// A call of a driver function that needs the driver started, not a context.
template <class F>
struct raw_function;
template <class... P>
struct raw_function<CUresult(CUDAAPI*)(P...)> {
  const entry* found;
  hipError_t operator()(P... args) const {
    if (found->address == nullptr) return found->error;
    int count = 0;  // starts the driver (cuInit) as any runtime call
    if (cudaError_t error = cudaGetDeviceCount(&count)) return hipCUDAErrorTohipError(error);
    return hipCUResultTohipError(reinterpret_cast<CUresult(CUDAAPI*)(P...)>(found->address)(args...));
  }
};

}  // namespace __hk_driver

#define __hk_driver_raw(name)                                                       \
  ::__hk_driver::raw_function<decltype(&name)> {                                    \
    [] {                                                                            \
      static const ::__hk_driver::entry found = ::__hk_driver::find(#name);         \
      return &found;                                                                \
    }()                                                                             \
  }

inline hipError_t hipCtxCreate(hipCtx_t* ctx, unsigned int flags, hipDevice_t device) {
  return __hk_driver_raw(cuCtxCreate)(ctx, nullptr, flags, device);
}
inline hipError_t hipCtxDestroy(hipCtx_t ctx) { return __hk_driver_raw(cuCtxDestroy)(ctx); }
inline hipError_t hipCtxPushCurrent(hipCtx_t ctx) { return __hk_driver_raw(cuCtxPushCurrent)(ctx); }
inline hipError_t hipCtxPopCurrent(hipCtx_t* ctx) { return __hk_driver_raw(cuCtxPopCurrent)(ctx); }
inline hipError_t hipCtxSetCurrent(hipCtx_t ctx) { return __hk_driver_raw(cuCtxSetCurrent)(ctx); }
inline hipError_t hipCtxGetCurrent(hipCtx_t* ctx) { return __hk_driver_raw(cuCtxGetCurrent)(ctx); }
inline hipError_t hipCtxGetDevice(hipDevice_t* device) {
  return __hk_driver_raw(cuCtxGetDevice)(device);
}
inline hipError_t hipCtxGetApiVersion(hipCtx_t ctx, int* version) {
  if (version == nullptr) return hipErrorInvalidValue;
  unsigned int value = 0;
  hipError_t error = __hk_driver_raw(cuCtxGetApiVersion)(ctx, &value);
  if (error == hipSuccess) *version = static_cast<int>(value);
  return error;
}
inline hipError_t hipCtxGetFlags(unsigned int* flags) { return __hk_driver_raw(cuCtxGetFlags)(flags); }
inline hipError_t hipCtxSynchronize(void) { return __hk_driver_raw(cuCtxSynchronize)(); }
inline hipError_t hipCtxGetCacheConfig(hipFuncCache_t* config) {
  return __hk_driver_raw(cuCtxGetCacheConfig)(reinterpret_cast<CUfunc_cache*>(config));
}
inline hipError_t hipCtxSetCacheConfig(hipFuncCache_t config) {
  return __hk_driver_raw(cuCtxSetCacheConfig)(static_cast<CUfunc_cache>(config));
}
// CUDA deprecates its bank configuration: macros, so that only a program that uses them is told.
#define hipCtxGetSharedMemConfig(...) hipDeviceGetSharedMemConfig(__VA_ARGS__)
#define hipCtxSetSharedMemConfig(...) hipDeviceSetSharedMemConfig(__VA_ARGS__)
inline hipError_t hipCtxEnablePeerAccess(hipCtx_t peer, unsigned int flags) {
  return __hk_driver_raw(cuCtxEnablePeerAccess)(peer, flags);
}
inline hipError_t hipCtxDisablePeerAccess(hipCtx_t peer) {
  return __hk_driver_raw(cuCtxDisablePeerAccess)(peer);
}

inline hipError_t hipDevicePrimaryCtxRetain(hipCtx_t* ctx, hipDevice_t device) {
  return __hk_driver_raw(cuDevicePrimaryCtxRetain)(ctx, device);
}
inline hipError_t hipDevicePrimaryCtxRelease(hipDevice_t device) {
  return __hk_driver_raw(cuDevicePrimaryCtxRelease)(device);
}
inline hipError_t hipDevicePrimaryCtxReset(hipDevice_t device) {
  return __hk_driver_raw(cuDevicePrimaryCtxReset)(device);
}
inline hipError_t hipDevicePrimaryCtxGetState(hipDevice_t device, unsigned int* flags, int* active) {
  return __hk_driver_raw(cuDevicePrimaryCtxGetState)(device, flags, active);
}
inline hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t device, unsigned int flags) {
  return __hk_driver_raw(cuDevicePrimaryCtxSetFlags)(device, flags);
}

inline hipError_t hipDeviceGetUuid(hipUUID* uuid, hipDevice_t device) {
  if (uuid == nullptr) return hipErrorInvalidValue;
  return __hk_driver_raw(cuDeviceGetUuid)(reinterpret_cast<CUuuid*>(uuid), device);
}

inline hipError_t hipChooseDevice(int* device, const hipDeviceProp_t* prop) {
  if (device == nullptr || prop == nullptr) return hipErrorInvalidValue;
  int count = 0;
  if (cudaError_t error = cudaGetDeviceCount(&count)) return hipCUDAErrorTohipError(error);
  return __hk_portable::choose_device(device, *prop, count, [](int i, hipDeviceProp_t* p) {
    return hipGetDeviceProperties(p, i);
  });
}

#if CUDART_VERSION >= 12080
inline hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t* device) {
  return hipCUDAErrorTohipError(cudaStreamGetDevice(stream, device));
}
inline int hipGetStreamDeviceId(hipStream_t stream) {
  int device = -1;
  return cudaStreamGetDevice(stream, &device) == cudaSuccess ? device : -1;
}
#endif

// HIP's comparisons have CUDA's numbers; CUDA's waits take no mask.
#define hipStreamWaitValueGte CU_STREAM_WAIT_VALUE_GEQ
#define hipStreamWaitValueEq CU_STREAM_WAIT_VALUE_EQ
#define hipStreamWaitValueAnd CU_STREAM_WAIT_VALUE_AND
#define hipStreamWaitValueNor CU_STREAM_WAIT_VALUE_NOR
inline hipError_t hipStreamWaitValue32(hipStream_t stream, void* ptr, uint32_t value, unsigned int flags,
                                       uint32_t mask = 0xFFFFFFFF) {
  if (mask != 0xFFFFFFFF) return hipErrorNotSupported;
  return __hk_driver_call(cuStreamWaitValue32)(stream, reinterpret_cast<CUdeviceptr>(ptr), value, flags);
}
inline hipError_t hipStreamWaitValue64(hipStream_t stream, void* ptr, uint64_t value, unsigned int flags,
                                       uint64_t mask = 0xFFFFFFFFFFFFFFFFull) {
  if (mask != 0xFFFFFFFFFFFFFFFFull) return hipErrorNotSupported;
  return __hk_driver_call(cuStreamWaitValue64)(stream, reinterpret_cast<CUdeviceptr>(ptr), value, flags);
}
inline hipError_t hipStreamWriteValue32(hipStream_t stream, void* ptr, uint32_t value, unsigned int flags) {
  return __hk_driver_call(cuStreamWriteValue32)(stream, reinterpret_cast<CUdeviceptr>(ptr), value, flags);
}
inline hipError_t hipStreamWriteValue64(hipStream_t stream, void* ptr, uint64_t value, unsigned int flags) {
  return __hk_driver_call(cuStreamWriteValue64)(stream, reinterpret_cast<CUdeviceptr>(ptr), value, flags);
}

inline hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, hipFunction_t f,
                                                                             int block_size,
                                                                             size_t dynamic_shared,
                                                                             unsigned int flags) {
  return __hk_driver_call(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)(
      blocks, reinterpret_cast<CUfunction>(f), block_size, dynamic_shared, flags);
}
inline hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, hipFunction_t f,
                                                                     int block_size, size_t dynamic_shared) {
  return hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, f, block_size, dynamic_shared, 0);
}
inline hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int* grid_size, int* block_size,
                                                                   hipFunction_t f, size_t dynamic_shared,
                                                                   int block_size_limit, unsigned int flags) {
  return __hk_driver_call(cuOccupancyMaxPotentialBlockSizeWithFlags)(
      grid_size, block_size, reinterpret_cast<CUfunction>(f), nullptr, dynamic_shared, block_size_limit,
      flags);
}
inline hipError_t hipModuleOccupancyMaxPotentialBlockSize(int* grid_size, int* block_size, hipFunction_t f,
                                                          size_t dynamic_shared, int block_size_limit) {
  return hipModuleOccupancyMaxPotentialBlockSizeWithFlags(grid_size, block_size, f, dynamic_shared,
                                                          block_size_limit, 0);
}
