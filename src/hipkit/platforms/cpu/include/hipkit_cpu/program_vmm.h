// hipkit CPU platform: virtual memory management in whole programs (part of program.h),
// on the runtime's (runtime_vmm.h): reserve an address range, create physical
// allocations, map them into it and set each device's access, as in HIP and CUDA.
//
// Sizes, offsets and addresses are multiples of hipMemGetAllocationGranularity's
// minimum (the page size; the recommended one is 2 MiB, CUDA's).  hipMemSetAccess and
// hipMemUnmap take whole mappings.  Allocations export as POSIX file descriptors,
// which another process imports; the CPU's arrays are not sparse (hipMemMapArrayAsync).
#ifndef HIPKIT_CPU_PROGRAM_VMM_H
#define HIPKIT_CPU_PROGRAM_VMM_H

#include <stdint.h>

// hipMemLocation, hipMemAccessDesc and the allocation enums are memory_types.h's.
#include "hipkit_program/vmm_types.h"
typedef enum hipMemAllocationGranularity_flags {
  hipMemAllocationGranularityMinimum = 0x0,
  hipMemAllocationGranularityRecommended = 0x1
} hipMemAllocationGranularity_flags;
typedef enum hipMemHandleType { hipMemHandleTypeGeneric = 0x0 } hipMemHandleType;
typedef enum hipMemOperationType {
  hipMemOperationTypeMap = 0x1,
  hipMemOperationTypeUnmap = 0x2
} hipMemOperationType;
typedef struct hipArrayMapInfo hipArrayMapInfo;

namespace __hk {

inline hkrt_vmm* vmm(hipMemGenericAllocationHandle_t handle) {
  return reinterpret_cast<hkrt_vmm*>(handle);
}

// A device location, checked: its runtime index in *index.
inline hipError_t vmm_location(const hipMemLocation& location, int* index) {
  if (location.type != hipMemLocationTypeDevice) return result(hipErrorInvalidValue);
  if (hipError_t code = check_device(location.id)) return code;
  *index = native(location.id);
  return hipSuccess;
}

// A pinned allocation on a device, exportable as nothing or a file descriptor
// (Win32 handles are not for this platform).
inline hipError_t vmm_properties(const hipMemAllocationProp* prop, int* index) {
  if (prop == nullptr || prop->type != hipMemAllocationTypePinned) return result(hipErrorInvalidValue);
  if (prop->requestedHandleType != hipMemHandleTypeNone &&
      prop->requestedHandleType != hipMemHandleTypePosixFileDescriptor)
    return result(prop->requestedHandleType == hipMemHandleTypeWin32 ||
                          prop->requestedHandleType == hipMemHandleTypeWin32Kmt
                      ? hipErrorNotSupported
                      : hipErrorInvalidValue);
  return vmm_location(prop->location, index);
}

// The program's number of the runtime's device `index` (-1: not visible).
inline int program_device(int index) {
  for (int d = 0; d < visible().count; ++d)
    if (visible().native[d] == index) return d;
  return -1;
}

}  // namespace __hk

inline hipError_t hipMemGetAllocationGranularity(size_t* granularity, const hipMemAllocationProp* prop,
                                                 hipMemAllocationGranularity_flags option) {
  __HK_API_CALL();
  int index = 0;
  if (hipError_t code = __hk::vmm_properties(prop, &index)) return code;
  if (option != hipMemAllocationGranularityMinimum && option != hipMemAllocationGranularityRecommended)
    return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_vmm_granularity(option == hipMemAllocationGranularityRecommended, granularity));
}

inline hipError_t hipMemAddressReserve(void** ptr, size_t size, size_t alignment, void* addr,
                                       unsigned long long flags) {
  __HK_API_CALL();
  if (flags != 0) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_vmm_reserve(ptr, size, alignment, addr));
}

inline hipError_t hipMemAddressFree(void* devPtr, size_t size) {
  __HK_API_CALL();
  return __hk::result(hkrt_vmm_free(devPtr, size));
}

inline hipError_t hipMemCreate(hipMemGenericAllocationHandle_t* handle, size_t size,
                               const hipMemAllocationProp* prop, unsigned long long flags) {
  __HK_API_CALL();
  int index = 0;
  if (hipError_t code = __hk::vmm_properties(prop, &index)) return code;
  if (handle == nullptr || flags != 0) return __hk::result(hipErrorInvalidValue);
  const int exportable = prop->requestedHandleType == hipMemHandleTypePosixFileDescriptor;
  hkrt_vmm* made = nullptr;
  if (int code = hkrt_vmm_create(index, size, exportable, &made)) return __hk::result(code);
  *handle = reinterpret_cast<hipMemGenericAllocationHandle_t>(made);
  return hipSuccess;
}

inline hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle) {
  __HK_API_CALL();
  return __hk::result(hkrt_vmm_release(__hk::vmm(handle)));
}

inline hipError_t hipMemMap(void* ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle,
                            unsigned long long flags) {
  __HK_API_CALL();
  if (flags != 0) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_vmm_map(ptr, size, offset, __hk::vmm(handle)));
}

inline hipError_t hipMemUnmap(void* ptr, size_t size) {
  __HK_API_CALL();
  return __hk::result(hkrt_vmm_unmap(ptr, size));
}

// Every descriptor is checked before any is applied.
inline hipError_t hipMemSetAccess(void* ptr, size_t size, const hipMemAccessDesc* desc, size_t count) {
  __HK_API_CALL();
  if (desc == nullptr || count == 0) return __hk::result(hipErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    int index = 0;
    if (hipError_t code = __hk::vmm_location(desc[i].location, &index)) return code;
    const int flags = desc[i].flags;
    if (flags != hipMemAccessFlagsProtNone && flags != hipMemAccessFlagsProtRead &&
        flags != hipMemAccessFlagsProtReadWrite)
      return __hk::result(hipErrorInvalidValue);
  }
  for (size_t i = 0; i < count; ++i) {
    const int index = __hk::native(desc[i].location.id);
    if (int code = hkrt_vmm_set_access(ptr, size, index, desc[i].flags)) return __hk::result(code);
  }
  return hipSuccess;
}

inline hipError_t hipMemGetAccess(unsigned long long* flags, const hipMemLocation* location, void* ptr) {
  __HK_API_CALL();
  int index = 0;
  if (flags == nullptr || location == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::vmm_location(*location, &index)) return code;
  int access = 0;
  if (int code = hkrt_vmm_get_access(ptr, index, &access)) return __hk::result(code);
  *flags = static_cast<unsigned long long>(access);
  return hipSuccess;
}

inline hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t* handle, void* addr) {
  __HK_API_CALL();
  hkrt_vmm* found = nullptr;
  if (int code = hkrt_vmm_retain(addr, &found)) return __hk::result(code);
  *handle = reinterpret_cast<hipMemGenericAllocationHandle_t>(found);
  return hipSuccess;
}

inline hipError_t hipMemGetAllocationPropertiesFromHandle(hipMemAllocationProp* prop,
                                                          hipMemGenericAllocationHandle_t handle) {
  __HK_API_CALL();
  if (prop == nullptr) return __hk::result(hipErrorInvalidValue);
  int device = 0, exportable = 0;
  size_t size = 0;
  if (int code = hkrt_vmm_info(__hk::vmm(handle), &device, &exportable, &size)) return __hk::result(code);
  *prop = hipMemAllocationProp{};
  prop->type = hipMemAllocationTypePinned;
  prop->requestedHandleType = exportable ? hipMemHandleTypePosixFileDescriptor : hipMemHandleTypeNone;
  prop->location = {hipMemLocationTypeDevice, __hk::program_device(device)};
  return hipSuccess;
}

// The file descriptor is written to *(int*)shareableHandle, as in CUDA.
inline hipError_t hipMemExportToShareableHandle(void* shareableHandle, hipMemGenericAllocationHandle_t handle,
                                                hipMemAllocationHandleType handleType,
                                                unsigned long long flags) {
  __HK_API_CALL();
  if (shareableHandle == nullptr || flags != 0) return __hk::result(hipErrorInvalidValue);
  if (handleType != hipMemHandleTypePosixFileDescriptor)
    return __hk::result(handleType == hipMemHandleTypeNone ? hipErrorInvalidValue : hipErrorNotSupported);
  return __hk::result(hkrt_vmm_export(__hk::vmm(handle), static_cast<int*>(shareableHandle)));
}

// osHandle is the file descriptor itself, cast to a pointer, as in CUDA.
inline hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t* handle, void* osHandle,
                                                  hipMemAllocationHandleType shHandleType) {
  __HK_API_CALL();
  if (handle == nullptr) return __hk::result(hipErrorInvalidValue);
  if (shHandleType != hipMemHandleTypePosixFileDescriptor)
    return __hk::result(shHandleType == hipMemHandleTypeNone ? hipErrorInvalidValue : hipErrorNotSupported);
  hkrt_vmm* made = nullptr;
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(osHandle));
  if (int code = hkrt_vmm_import(fd, &made)) return __hk::result(code);
  *handle = reinterpret_cast<hipMemGenericAllocationHandle_t>(made);
  return hipSuccess;
}

inline hipError_t hipMemMapArrayAsync(hipArrayMapInfo* mapInfoList, unsigned int count, hipStream_t stream) {
  __HK_API_CALL();
  (void)mapInfoList, (void)count, (void)stream;
  return __hk::result(hipErrorNotSupported);  // the CPU's arrays are not sparse
}

#endif  // HIPKIT_CPU_PROGRAM_VMM_H
