// hipkit NVIDIA platform, whole programs: HIP's memory calls whose form CUDA's does not
// have (part of host.h): pointer attributes with HIP's fields, the driver's pointer
// queries, address ranges and pitched allocation through the runtime's entry points
// (module.h), hip_Memcpy2D copies, and managed-memory advice and prefetches by device
// number (CUDA 13's take a cudaMemLocation).
#pragma once

#define hipMemoryTypeUnregistered cudaMemoryTypeUnregistered
#define hipPointer_attribute CUpointer_attribute
// HIP numbers its pointer attributes as the driver does.
#define HIP_POINTER_ATTRIBUTE_CONTEXT CU_POINTER_ATTRIBUTE_CONTEXT
#define HIP_POINTER_ATTRIBUTE_MEMORY_TYPE CU_POINTER_ATTRIBUTE_MEMORY_TYPE
#define HIP_POINTER_ATTRIBUTE_DEVICE_POINTER CU_POINTER_ATTRIBUTE_DEVICE_POINTER
#define HIP_POINTER_ATTRIBUTE_HOST_POINTER CU_POINTER_ATTRIBUTE_HOST_POINTER
#define HIP_POINTER_ATTRIBUTE_P2P_TOKENS CU_POINTER_ATTRIBUTE_P2P_TOKENS
#define HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
#define HIP_POINTER_ATTRIBUTE_BUFFER_ID CU_POINTER_ATTRIBUTE_BUFFER_ID
#define HIP_POINTER_ATTRIBUTE_IS_MANAGED CU_POINTER_ATTRIBUTE_IS_MANAGED
#define HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
#define HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE
#define HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
#define HIP_POINTER_ATTRIBUTE_RANGE_SIZE CU_POINTER_ATTRIBUTE_RANGE_SIZE
#define HIP_POINTER_ATTRIBUTE_MAPPED CU_POINTER_ATTRIBUTE_MAPPED
#define HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
#define HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE
#define HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS CU_POINTER_ATTRIBUTE_ACCESS_FLAGS
#define HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE

#include "hipkit_program/memory_structs.h"

namespace __hk_driver {

// The driver's memory type as HIP's (the runtime's numbering, which names.h gives
// hipMemoryType): managed memory is the driver's device memory that says so.
inline unsigned hip_memory_type(unsigned type, const void* ptr) {
  if (type != CU_MEMORYTYPE_DEVICE) return type == CU_MEMORYTYPE_HOST ? cudaMemoryTypeHost : type;
  unsigned managed = 0;
  __hk_driver_call(cuPointerGetAttribute)(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, address(ptr));
  return managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
}

inline CUmemorytype driver_memory_type(hipMemoryType type) {
  switch (type) {
    case cudaMemoryTypeHost: return CU_MEMORYTYPE_HOST;
    case cudaMemoryTypeDevice: return CU_MEMORYTYPE_DEVICE;
    case cudaMemoryTypeManaged: return CU_MEMORYTYPE_UNIFIED;
    default: return CUmemorytype(0);  // the driver refuses it
  }
}

inline CUDA_MEMCPY2D driver_copy(const hip_Memcpy2D& c) {
  CUDA_MEMCPY2D d = {};
  d.srcXInBytes = c.srcXInBytes, d.srcY = c.srcY, d.srcMemoryType = driver_memory_type(c.srcMemoryType);
  d.srcHost = c.srcHost, d.srcDevice = address(c.srcDevice), d.srcPitch = c.srcPitch;
  d.srcArray = reinterpret_cast<CUarray>(c.srcArray);
  d.dstXInBytes = c.dstXInBytes, d.dstY = c.dstY, d.dstMemoryType = driver_memory_type(c.dstMemoryType);
  d.dstHost = c.dstHost, d.dstDevice = address(c.dstDevice), d.dstPitch = c.dstPitch;
  d.dstArray = reinterpret_cast<CUarray>(c.dstArray);
  d.WidthInBytes = c.WidthInBytes, d.Height = c.Height;
  return d;
}

// hipCpuDeviceId is the host.
inline cudaMemLocation location_of(int device) {
  cudaMemLocation l = {};
  l.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  l.id = device == cudaCpuDeviceId ? 0 : device;
  return l;
}

}  // namespace __hk_driver

inline hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr) {
  if (attributes == nullptr || ptr == nullptr) return hipErrorInvalidValue;
  cudaPointerAttributes a = {};
  if (cudaError_t error = cudaPointerGetAttributes(&a, ptr)) return hipCUDAErrorTohipError(error);
  attributes->type = a.type;
  attributes->device = a.device;
  attributes->devicePointer = a.devicePointer;
  attributes->hostPointer = a.hostPointer;
  attributes->isManaged = a.type == cudaMemoryTypeManaged;
  attributes->allocationFlags = 0;
  if (a.type == cudaMemoryTypeHost && cudaHostGetFlags(&attributes->allocationFlags, const_cast<void*>(ptr)))
    cudaGetLastError();  // registered memory without flags of its own
  return hipSuccess;
}

inline hipError_t hipPointerGetAttribute(void* data, hipPointer_attribute attribute, hipDeviceptr_t ptr) {
  hipError_t error = __hk_driver_call(cuPointerGetAttribute)(data, attribute, __hk_driver::address(ptr));
  if (error == hipSuccess && attribute == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
    *static_cast<unsigned*>(data) = __hk_driver::hip_memory_type(*static_cast<unsigned*>(data), ptr);
  return error;
}

inline hipError_t hipDrvPointerGetAttributes(unsigned int numAttributes, hipPointer_attribute* attributes,
                                             void** data, hipDeviceptr_t ptr) {
  hipError_t error =
      __hk_driver_call(cuPointerGetAttributes)(numAttributes, attributes, data, __hk_driver::address(ptr));
  for (unsigned i = 0; error == hipSuccess && i < numAttributes; ++i)
    if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
      *static_cast<unsigned*>(data[i]) = __hk_driver::hip_memory_type(*static_cast<unsigned*>(data[i]), ptr);
  return error;
}

inline hipError_t hipMemGetAddressRange(hipDeviceptr_t* pbase, size_t* psize, hipDeviceptr_t dptr) {
  CUdeviceptr base = 0;
  hipError_t error = __hk_driver_call(cuMemGetAddressRange)(&base, psize, __hk_driver::address(dptr));
  if (error == hipSuccess && pbase != nullptr) *pbase = reinterpret_cast<void*>(base);
  return error;
}

// The size of the allocation `ptr` starts (ROCm's extension).
inline hipError_t hipMemPtrGetInfo(void* ptr, size_t* size) {
  if (size == nullptr) return hipErrorInvalidValue;
  return hipMemGetAddressRange(nullptr, size, ptr);
}

inline hipError_t hipMemAllocPitch(hipDeviceptr_t* dptr, size_t* pitch, size_t widthInBytes, size_t height,
                                   unsigned int elementSizeBytes) {
  if (dptr == nullptr) return hipErrorInvalidValue;
  CUdeviceptr made = 0;
  hipError_t error = __hk_driver_call(cuMemAllocPitch)(&made, pitch, widthInBytes, height, elementSizeBytes);
  if (error == hipSuccess) *dptr = reinterpret_cast<void*>(made);
  return error;
}

inline hipError_t hipMemcpyParam2D(const hip_Memcpy2D* copy) {
  if (copy == nullptr) return hipErrorInvalidValue;
  const CUDA_MEMCPY2D d = __hk_driver::driver_copy(*copy);
  return __hk_driver_call(cuMemcpy2D)(&d);
}

inline hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D* copy, hipStream_t stream = 0) {
  if (copy == nullptr) return hipErrorInvalidValue;
  const CUDA_MEMCPY2D d = __hk_driver::driver_copy(*copy);
  return __hk_driver_call(cuMemcpy2DAsync)(&d, stream);
}

inline hipError_t hipMemAdvise(const void* ptr, size_t count, hipMemoryAdvise advice, int device) {
#if CUDART_VERSION >= 13000
  return hipCUDAErrorTohipError(cudaMemAdvise(ptr, count, advice, __hk_driver::location_of(device)));
#else
  return hipCUDAErrorTohipError(cudaMemAdvise(ptr, count, advice, device));
#endif
}

inline hipError_t hipMemPrefetchAsync(const void* ptr, size_t count, int device, hipStream_t stream = 0) {
#if CUDART_VERSION >= 13000
  return hipCUDAErrorTohipError(cudaMemPrefetchAsync(ptr, count, __hk_driver::location_of(device), 0, stream));
#else
  return hipCUDAErrorTohipError(cudaMemPrefetchAsync(ptr, count, device, stream));
#endif
}
