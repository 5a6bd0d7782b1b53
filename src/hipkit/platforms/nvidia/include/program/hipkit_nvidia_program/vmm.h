// hipkit NVIDIA platform, whole programs: HIP's virtual memory management on the CUDA
// driver's (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess ...), found
// through the runtime as the module API is (module.h; part of host.h).
//
// HIP's types keep HIP's shapes (hipkit_program/vmm_types.h): the allocation handle
// is a pointer (the driver's is an integer), hipMemAllocationProp has HIP's field
// names (requestedHandleType), and device addresses are pointers (CUdeviceptr is an
// integer).  hipMemLocation and hipMemAccessDesc are the runtime's structs (names.h),
// laid out as the driver's.  Arrays (hipMemMapArrayAsync) are left out.
#pragma once

#include "hipkit_program/vmm_types.h"
typedef enum hipMemAllocationGranularity_flags {
  hipMemAllocationGranularityMinimum = CU_MEM_ALLOC_GRANULARITY_MINIMUM,
  hipMemAllocationGranularityRecommended = CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
} hipMemAllocationGranularity_flags;
typedef enum hipMemHandleType { hipMemHandleTypeGeneric = CU_MEM_HANDLE_TYPE_GENERIC } hipMemHandleType;
typedef enum hipMemOperationType {
  hipMemOperationTypeMap = CU_MEM_OPERATION_TYPE_MAP,
  hipMemOperationTypeUnmap = CU_MEM_OPERATION_TYPE_UNMAP
} hipMemOperationType;

static_assert(sizeof(hipMemLocation) == sizeof(CUmemLocation), "hipMemLocation is CUmemLocation's layout");
static_assert(sizeof(hipMemAccessDesc) == sizeof(CUmemAccessDesc), "hipMemAccessDesc is CUmemAccessDesc's");

namespace __hk_driver {

inline CUdeviceptr address(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }
inline CUmemGenericAllocationHandle handle(hipMemGenericAllocationHandle_t h) {
  return reinterpret_cast<CUmemGenericAllocationHandle>(h);
}
inline hipMemGenericAllocationHandle_t hip_handle(CUmemGenericAllocationHandle h) {
  return reinterpret_cast<hipMemGenericAllocationHandle_t>(h);
}
inline const CUmemLocation* location(const hipMemLocation* l) {
  return reinterpret_cast<const CUmemLocation*>(l);
}

inline CUmemAllocationProp driver_properties(const hipMemAllocationProp& p) {
  CUmemAllocationProp d = {};
  d.type = static_cast<CUmemAllocationType>(p.type);
  d.requestedHandleTypes = static_cast<CUmemAllocationHandleType>(p.requestedHandleType);
  d.location = *location(&p.location);
  d.win32HandleMetaData = p.win32HandleMetaData;
  d.allocFlags.compressionType = p.allocFlags.compressionType;
  d.allocFlags.gpuDirectRDMACapable = p.allocFlags.gpuDirectRDMACapable;
  d.allocFlags.usage = p.allocFlags.usage;
  return d;
}

}  // namespace __hk_driver

inline hipError_t hipMemGetAllocationGranularity(size_t* granularity, const hipMemAllocationProp* prop,
                                                 hipMemAllocationGranularity_flags option) {
  if (prop == nullptr) return hipErrorInvalidValue;
  const CUmemAllocationProp d = __hk_driver::driver_properties(*prop);
  return __hk_driver_call(cuMemGetAllocationGranularity)(granularity, &d,
                                                         static_cast<CUmemAllocationGranularity_flags>(option));
}

inline hipError_t hipMemAddressReserve(void** ptr, size_t size, size_t alignment, void* addr,
                                       unsigned long long flags) {
  if (ptr == nullptr) return hipErrorInvalidValue;
  CUdeviceptr reserved = 0;
  hipError_t error =
      __hk_driver_call(cuMemAddressReserve)(&reserved, size, alignment, __hk_driver::address(addr), flags);
  if (error == hipSuccess) *ptr = reinterpret_cast<void*>(reserved);
  return error;
}

inline hipError_t hipMemAddressFree(void* devPtr, size_t size) {
  return __hk_driver_call(cuMemAddressFree)(__hk_driver::address(devPtr), size);
}

inline hipError_t hipMemCreate(hipMemGenericAllocationHandle_t* handle, size_t size,
                               const hipMemAllocationProp* prop, unsigned long long flags) {
  if (handle == nullptr || prop == nullptr) return hipErrorInvalidValue;
  const CUmemAllocationProp d = __hk_driver::driver_properties(*prop);
  CUmemGenericAllocationHandle made = 0;
  hipError_t error = __hk_driver_call(cuMemCreate)(&made, size, &d, flags);
  if (error == hipSuccess) *handle = __hk_driver::hip_handle(made);
  return error;
}

inline hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle) {
  return __hk_driver_call(cuMemRelease)(__hk_driver::handle(handle));
}

inline hipError_t hipMemMap(void* ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle,
                            unsigned long long flags) {
  return __hk_driver_call(cuMemMap)(__hk_driver::address(ptr), size, offset, __hk_driver::handle(handle), flags);
}

inline hipError_t hipMemUnmap(void* ptr, size_t size) {
  return __hk_driver_call(cuMemUnmap)(__hk_driver::address(ptr), size);
}

inline hipError_t hipMemSetAccess(void* ptr, size_t size, const hipMemAccessDesc* desc, size_t count) {
  return __hk_driver_call(cuMemSetAccess)(__hk_driver::address(ptr), size,
                                          reinterpret_cast<const CUmemAccessDesc*>(desc), count);
}

inline hipError_t hipMemGetAccess(unsigned long long* flags, const hipMemLocation* location, void* ptr) {
  return __hk_driver_call(cuMemGetAccess)(flags, __hk_driver::location(location), __hk_driver::address(ptr));
}

inline hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t* handle, void* addr) {
  if (handle == nullptr) return hipErrorInvalidValue;
  CUmemGenericAllocationHandle found = 0;
  hipError_t error = __hk_driver_call(cuMemRetainAllocationHandle)(&found, addr);
  if (error == hipSuccess) *handle = __hk_driver::hip_handle(found);
  return error;
}

inline hipError_t hipMemGetAllocationPropertiesFromHandle(hipMemAllocationProp* prop,
                                                          hipMemGenericAllocationHandle_t handle) {
  if (prop == nullptr) return hipErrorInvalidValue;
  CUmemAllocationProp d = {};
  hipError_t error = __hk_driver_call(cuMemGetAllocationPropertiesFromHandle)(&d, __hk_driver::handle(handle));
  if (error != hipSuccess) return error;
  *prop = hipMemAllocationProp{};
  prop->type = static_cast<hipMemAllocationType>(d.type);
  prop->requestedHandleType = static_cast<hipMemAllocationHandleType>(d.requestedHandleTypes);
  prop->location = *reinterpret_cast<const hipMemLocation*>(&d.location);
  prop->win32HandleMetaData = d.win32HandleMetaData;
  prop->allocFlags.compressionType = d.allocFlags.compressionType;
  prop->allocFlags.gpuDirectRDMACapable = d.allocFlags.gpuDirectRDMACapable;
  prop->allocFlags.usage = d.allocFlags.usage;
  return hipSuccess;
}

inline hipError_t hipMemExportToShareableHandle(void* shareableHandle, hipMemGenericAllocationHandle_t handle,
                                                hipMemAllocationHandleType handleType,
                                                unsigned long long flags) {
  return __hk_driver_call(cuMemExportToShareableHandle)(
      shareableHandle, __hk_driver::handle(handle), static_cast<CUmemAllocationHandleType>(handleType), flags);
}

inline hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t* handle, void* osHandle,
                                                  hipMemAllocationHandleType shHandleType) {
  if (handle == nullptr) return hipErrorInvalidValue;
  CUmemGenericAllocationHandle made = 0;
  hipError_t error = __hk_driver_call(cuMemImportFromShareableHandle)(
      &made, osHandle, static_cast<CUmemAllocationHandleType>(shHandleType));
  if (error == hipSuccess) *handle = __hk_driver::hip_handle(made);
  return error;
}
