// hipkit NVIDIA platform, whole programs: HIP's host API on the CUDA runtime.
//
// Most names are CUDA's under HIP's names, generated from hipify's table
// (names.h); errors keep HIP's numbers and words (errors.h).  This header
// holds what a renaming cannot say: the macros and types HIP has and CUDA
// lacks, hipDeviceProp_t with HIP's fields, and the functions whose HIP
// arguments differ from CUDA's.  The module API is the driver's (module.h).
#pragma once

#include <cuda.h>  // the driver's types, for the module API (module.h)
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>  // hipProfilerStart/Stop (names.h)
#include <math_constants.h>     // HIP_PI_F & co. (names.h)

#include <cstddef>
#include <cstdio>
#include <cstring>

#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1  // its older spelling
#if defined(__CUDACC__) && !defined(__HIPCC__)
#define __HIPCC__ 1
#endif
#if defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define __HIP_DEVICE_COMPILE__ 1
#endif

#include <hipkit_portable/hip_version.h>  // HIP_VERSION, the API level these headers follow

#include "hipkit_nvidia_program/errors.h"  // generated: hipkit/tables

// The result of a CUDA call made through a HIP name (names.h): a cudaError_t
// as HIP's code, anything else as it is.
inline hipError_t __hk_hip_result(cudaError_t error) { return hipCUDAErrorTohipError(error); }
template <class T>
inline T __hk_hip_result(T value) {
  return value;
}

#include "hipkit_nvidia_program/names.h"  // generated: hipkit/tables

// A kernel launch, as HIP's own header for NVIDIA writes it.
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) \
  kernel<<<(grid), (block), (shared), (stream)>>>(__VA_ARGS__)
// CUDA's symbol functions take the variable itself (its templates take its address).
#define HIP_SYMBOL(symbol) symbol

typedef int hipDevice_t;
typedef void* hipDeviceptr_t;

// The dialect's warpSize (hipkit_nvidia/device.h: a constant, by a macro) is
// also the name of a field below: defined first, the macro names the field
// consistently wherever a program reads prop.warpSize.
#define warpSize __hk_warp_size

// hipDeviceProp_t: its gcnArchName is the target, "sm_90".
#include "hipkit_portable/device_prop.h"

// From cudaDeviceProp, and from attributes for the fields CUDA 13 dropped from it.
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device) {
  if (prop == nullptr) return hipErrorInvalidValue;
  cudaDeviceProp p;
  cudaError_t error = cudaGetDeviceProperties(&p, device);
  if (error != cudaSuccess) return hipCUDAErrorTohipError(error);
  // (cudaDeviceProp's warpSize is out of reach of the macro's name.)
  int attr[7] = {};
  const cudaDeviceAttr names[7] = {cudaDevAttrClockRate,         cudaDevAttrMemoryClockRate,
                                   cudaDevAttrGpuOverlap,        cudaDevAttrKernelExecTimeout,
                                   cudaDevAttrComputeMode,       cudaDevAttrWarpSize,
                                   cudaDevAttrMaxTexture1DLinearWidth};
  for (int i = 0; i < 7; ++i) {
    error = cudaDeviceGetAttribute(&attr[i], names[i], device);
    if (error != cudaSuccess) return hipCUDAErrorTohipError(error);
  }
  int ratio = 0;  // not every driver answers this one
  if (cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, device) != cudaSuccess) {
    (void)cudaGetLastError();
    ratio = 0;
  }
  hipDeviceProp_t h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.name, p.name, sizeof(h.name) < sizeof(p.name) ? sizeof(h.name) : sizeof(p.name));
  h.name[sizeof(h.name) - 1] = '\0';
  h.uuid = p.uuid;
  h.totalGlobalMem = p.totalGlobalMem;
  h.sharedMemPerBlock = p.sharedMemPerBlock;
  h.regsPerBlock = p.regsPerBlock;
  h.warpSize = attr[5];
  h.memPitch = p.memPitch;
  h.maxThreadsPerBlock = p.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    h.maxThreadsDim[i] = p.maxThreadsDim[i];
    h.maxGridSize[i] = p.maxGridSize[i];
  }
  h.clockRate = attr[0];
  h.totalConstMem = p.totalConstMem;
  h.major = p.major;
  h.minor = p.minor;
  h.textureAlignment = p.textureAlignment;
  h.texturePitchAlignment = p.texturePitchAlignment;
  h.deviceOverlap = attr[2];
  h.multiProcessorCount = p.multiProcessorCount;
  h.kernelExecTimeoutEnabled = attr[3];
  h.integrated = p.integrated;
  h.canMapHostMemory = p.canMapHostMemory;
  h.computeMode = attr[4];
  h.concurrentKernels = p.concurrentKernels;
  h.ECCEnabled = p.ECCEnabled;
  h.pciBusID = p.pciBusID;
  h.pciDeviceID = p.pciDeviceID;
  h.pciDomainID = p.pciDomainID;
  h.tccDriver = p.tccDriver;
  h.asyncEngineCount = p.asyncEngineCount;
  h.unifiedAddressing = p.unifiedAddressing;
  h.memoryClockRate = attr[1];
  h.memoryBusWidth = p.memoryBusWidth;
  h.l2CacheSize = p.l2CacheSize;
  h.persistingL2CacheMaxSize = p.persistingL2CacheMaxSize;
  h.maxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  h.streamPrioritiesSupported = p.streamPrioritiesSupported;
  h.globalL1CacheSupported = p.globalL1CacheSupported;
  h.localL1CacheSupported = p.localL1CacheSupported;
  h.sharedMemPerMultiprocessor = p.sharedMemPerMultiprocessor;
  h.regsPerMultiprocessor = p.regsPerMultiprocessor;
  h.managedMemory = p.managedMemory;
  h.isMultiGpuBoard = p.isMultiGpuBoard;
  h.multiGpuBoardGroupID = p.multiGpuBoardGroupID;
  h.hostNativeAtomicSupported = p.hostNativeAtomicSupported;
  h.singleToDoublePrecisionPerfRatio = ratio;
  h.pageableMemoryAccess = p.pageableMemoryAccess;
  h.concurrentManagedAccess = p.concurrentManagedAccess;
  h.computePreemptionSupported = p.computePreemptionSupported;
  h.canUseHostPointerForRegisteredMem = p.canUseHostPointerForRegisteredMem;
  h.cooperativeLaunch = p.cooperativeLaunch;
  h.cooperativeMultiDeviceLaunch = 0;  // gone from CUDA 13
  h.sharedMemPerBlockOptin = p.sharedMemPerBlockOptin;
  h.pageableMemoryAccessUsesHostPageTables = p.pageableMemoryAccessUsesHostPageTables;
  h.directManagedMemAccessFromHost = p.directManagedMemAccessFromHost;
  h.maxBlocksPerMultiProcessor = p.maxBlocksPerMultiProcessor;
  h.accessPolicyMaxWindowSize = p.accessPolicyMaxWindowSize;
  h.reservedSharedMemPerBlock = p.reservedSharedMemPerBlock;
  h.hostRegisterSupported = p.hostRegisterSupported;
  std::memcpy(h.luid, p.luid, sizeof(h.luid));
  h.luidDeviceNodeMask = p.luidDeviceNodeMask;
  h.maxTexture1D = p.maxTexture1D;
  h.maxTexture1DMipmap = p.maxTexture1DMipmap;
  h.maxTexture1DLinear = attr[6];
  h.maxTextureCubemap = p.maxTextureCubemap;
  h.maxSurface1D = p.maxSurface1D;
  h.maxSurfaceCubemap = p.maxSurfaceCubemap;
  for (int i = 0; i < 2; ++i) {
    h.maxTexture2D[i] = p.maxTexture2D[i];
    h.maxTexture2DMipmap[i] = p.maxTexture2DMipmap[i];
    h.maxTexture2DGather[i] = p.maxTexture2DGather[i];
    h.maxTexture1DLayered[i] = p.maxTexture1DLayered[i];
    h.maxTextureCubemapLayered[i] = p.maxTextureCubemapLayered[i];
    h.maxSurface2D[i] = p.maxSurface2D[i];
    h.maxSurface1DLayered[i] = p.maxSurface1DLayered[i];
    h.maxSurfaceCubemapLayered[i] = p.maxSurfaceCubemapLayered[i];
  }
  for (int i = 0; i < 3; ++i) {
    h.maxTexture2DLinear[i] = p.maxTexture2DLinear[i];
    h.maxTexture3D[i] = p.maxTexture3D[i];
    h.maxTexture3DAlt[i] = p.maxTexture3DAlt[i];
    h.maxTexture2DLayered[i] = p.maxTexture2DLayered[i];
    h.maxSurface3D[i] = p.maxSurface3D[i];
    h.maxSurface2DLayered[i] = p.maxSurface2DLayered[i];
  }
  h.surfaceAlignment = p.surfaceAlignment;
  h.sparseHipArraySupported = p.sparseCudaArraySupported;
  h.hostRegisterReadOnlySupported = p.hostRegisterReadOnlySupported;
  h.timelineSemaphoreInteropSupported = p.timelineSemaphoreInteropSupported;
  h.memoryPoolsSupported = p.memoryPoolsSupported;
  h.gpuDirectRDMASupported = p.gpuDirectRDMASupported;
  h.gpuDirectRDMAFlushWritesOptions = p.gpuDirectRDMAFlushWritesOptions;
  h.gpuDirectRDMAWritesOrdering = p.gpuDirectRDMAWritesOrdering;
  h.memoryPoolSupportedHandleTypes = p.memoryPoolSupportedHandleTypes;
  h.deferredMappingHipArraySupported = p.deferredMappingCudaArraySupported;
  h.ipcEventSupported = p.ipcEventSupported;
  h.clusterLaunch = p.clusterLaunch;
  h.unifiedFunctionPointers = p.unifiedFunctionPointers;
  std::snprintf(h.gcnArchName, sizeof(h.gcnArchName), "sm_%d%d", p.major, p.minor);
  h.maxSharedMemoryPerMultiProcessor = p.sharedMemPerMultiprocessor;
  h.clockInstructionRate = attr[0];
  std::memset(&h.arch, 0xff, sizeof(h.arch));
  *prop = h;
  return hipSuccess;
}

// ---- Driver-style calls HIP has in its runtime ---------------------------------

inline hipError_t hipInit(unsigned int flags) {
  int count = 0;
  return flags != 0 ? hipErrorInvalidValue : hipCUDAErrorTohipError(cudaGetDeviceCount(&count));
}

inline hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) return hipCUDAErrorTohipError(error);
  if (device == nullptr) return hipErrorInvalidValue;
  if (ordinal < 0 || ordinal >= count) return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}

inline hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
  if (name == nullptr || len <= 0) return hipErrorInvalidValue;
  cudaDeviceProp p;
  cudaError_t error = cudaGetDeviceProperties(&p, device);
  if (error != cudaSuccess) return hipCUDAErrorTohipError(error);
  std::snprintf(name, static_cast<size_t>(len), "%s", p.name);
  return hipSuccess;
}

inline hipError_t hipDeviceComputeCapability(int* major, int* minor, hipDevice_t device) {
  if (major == nullptr || minor == nullptr) return hipErrorInvalidValue;
  cudaError_t error = cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, device);
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, device);
  return hipCUDAErrorTohipError(error);
}

inline hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
  if (bytes == nullptr) return hipErrorInvalidValue;
  cudaDeviceProp p;
  cudaError_t error = cudaGetDeviceProperties(&p, device);
  if (error == cudaSuccess) *bytes = p.totalGlobalMem;
  return hipCUDAErrorTohipError(error);
}

// ---- Memory ----------------------------------------------------------------------

// HIP's flags that CUDA has (portable, mapped, write-combined); HIP's
// coherence and NUMA flags are about AMD's memory and mean nothing here.
inline hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags = 0) {
  return hipCUDAErrorTohipError(cudaHostAlloc(ptr, size, flags & 0x7u));
}
template <class T>
inline hipError_t hipHostMalloc(T** ptr, size_t size, unsigned int flags = 0) {
  return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags);
}

inline hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void* src, size_t bytes) {
  return hipCUDAErrorTohipError(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
inline hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t bytes) {
  return hipCUDAErrorTohipError(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
inline hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes) {
  return hipCUDAErrorTohipError(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
}
inline hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, const void* src, size_t bytes, cudaStream_t stream) {
  return hipCUDAErrorTohipError(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
}
inline hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t bytes, cudaStream_t stream) {
  return hipCUDAErrorTohipError(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
}
inline hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes, cudaStream_t stream) {
  return hipCUDAErrorTohipError(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
}

#ifdef __CUDACC__
// hipMemsetD16/D32 without the driver API: a fill kernel (the runtime API has
// only byte memsets).
template <class T>
__global__ void __hk_fill(T* p, T value, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(blockDim.x) * gridDim.x)
    p[i] = value;
}
template <class T>
inline hipError_t __hk_fill_async(void* dst, T value, size_t count, cudaStream_t stream) {
  if (count == 0) return hipSuccess;
  size_t blocks = (count + 255) / 256;
  __hk_fill<T><<<unsigned(blocks < 65535 ? blocks : 65535), 256, 0, stream>>>(static_cast<T*>(dst), value, count);
  return hipCUDAErrorTohipError(cudaGetLastError());
}
inline hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count, cudaStream_t stream = 0) {
  return hipCUDAErrorTohipError(cudaMemsetAsync(dst, value, count, stream));
}
inline hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short value, size_t count, cudaStream_t stream = 0) {
  return __hk_fill_async(dst, value, count, stream);
}
inline hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, cudaStream_t stream = 0) {
  return __hk_fill_async(dst, value, count, stream);
}
// As cudaMemset, synchronous for pageable host memory only: wait for the fill.
#define __HK_MEMSET_SYNC(bits, T)                                                  \
  inline hipError_t hipMemsetD##bits(hipDeviceptr_t dst, T value, size_t count) {  \
    hipError_t error = hipMemsetD##bits##Async(dst, value, count, 0);             \
    return error != hipSuccess ? error : hipCUDAErrorTohipError(cudaStreamSynchronize(0)); \
  }
__HK_MEMSET_SYNC(8, unsigned char)
__HK_MEMSET_SYNC(16, unsigned short)
__HK_MEMSET_SYNC(32, int)
#undef __HK_MEMSET_SYNC
#endif

// ---- Streams ---------------------------------------------------------------------

// HIP's callback is told a hipError_t, CUDA's a cudaError_t: each call's CUDA
// callback tells HIP's the error in HIP's numbers.
typedef void (*hipStreamCallback_t)(hipStream_t stream, hipError_t status, void* userData);
struct __hk_stream_callback {
  hipStreamCallback_t callback;
  void* user_data;

  static void CUDART_CB run(cudaStream_t stream, cudaError_t status, void* self) {
    auto* call = static_cast<__hk_stream_callback*>(self);
    call->callback(stream, hipCUDAErrorTohipError(status), call->user_data);
    delete call;
  }
};
inline hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void* userData,
                                       unsigned int flags) {
  if (callback == nullptr) return hipErrorInvalidValue;
  auto* call = new __hk_stream_callback{callback, userData};
  cudaError_t error = cudaStreamAddCallback(stream, __hk_stream_callback::run, call, flags);
  if (error != cudaSuccess) delete call;
  return hipCUDAErrorTohipError(error);
}

#include "module.h"
#include "context.h"
#include "vmm.h"
#include "ext.h"
#include "memory.h"
#include "graph.h"
#include "texture.h"
