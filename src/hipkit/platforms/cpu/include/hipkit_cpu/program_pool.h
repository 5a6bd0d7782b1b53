// hipkit CPU platform: stream-ordered allocation and memory pools of whole
// programs (part of program_memory.h; the rules of reuse: runtime/pool.cpp).
#ifndef HIPKIT_CPU_PROGRAM_POOL_H
#define HIPKIT_CPU_PROGRAM_POOL_H

namespace __hk {

// A pool attribute's value: an int for the reuse flags, else a uint64_t.
inline bool pool_flag(hipMemPoolAttr attribute) {
  return attribute == hipMemPoolReuseFollowEventDependencies ||
         attribute == hipMemPoolReuseAllowOpportunistic ||
         attribute == hipMemPoolReuseAllowInternalDependencies;
}

inline hipError_t pool_attribute(hipMemPool_t pool, hipMemPoolAttr attribute, void* value,
                                 int set) {
  if (value == nullptr) return result(hipErrorInvalidValue);
  uint64_t v = 0;
  if (set) v = pool_flag(attribute) ? uint64_t(*static_cast<int*>(value)) : *static_cast<uint64_t*>(value);
  if (int code = hkrt_mem_pool_attribute(pool, attribute, &v, set)) return result(code);
  if (pool_flag(attribute))
    *static_cast<int*>(value) = int(v);
  else if (!set)
    *static_cast<uint64_t*>(value) = v;
  return hipSuccess;
}

inline hipError_t pool_location(const hipMemLocation& location, int* native_device) {
  if (location.type != hipMemLocationTypeDevice) return result(hipErrorInvalidValue);
  if (hipError_t code = check_device(location.id)) return code;
  *native_device = native(location.id);
  return hipSuccess;
}

}  // namespace __hk

inline hipError_t hipMallocAsync(void** ptr, size_t size, hipStream_t stream) {
  __HK_API_CALL();
  return __hk_api_call.allocated(
      __hk::result(hkrt_malloc_async(__hk::current(), nullptr, ptr, size, stream)), ptr, size,
      false);
}
inline hipError_t hipMallocFromPoolAsync(void** ptr, size_t size, hipMemPool_t pool,
                                         hipStream_t stream) {
  __HK_API_CALL();
  if (pool == nullptr) return __hk::result(hipErrorInvalidValue);
  return __hk_api_call.allocated(
      __hk::result(hkrt_malloc_async(__hk::current(), pool, ptr, size, stream)), ptr, size, false);
}
template <class T>
inline hipError_t hipMallocAsync(T** ptr, size_t size, hipStream_t stream) {
  __HK_API_CALL();
  return hipMallocAsync(reinterpret_cast<void**>(ptr), size, stream);
}
template <class T>
inline hipError_t hipMallocFromPoolAsync(T** ptr, size_t size, hipMemPool_t pool,
                                         hipStream_t stream) {
  __HK_API_CALL();
  return hipMallocFromPoolAsync(reinterpret_cast<void**>(ptr), size, pool, stream);
}
inline hipError_t hipFreeAsync(void* ptr, hipStream_t stream) {
  __HK_API_CALL();
  return __hk_api_call.freed(__hk::result(hkrt_free_async(__hk::current(), ptr, stream)), ptr,
                             false);
}

inline hipError_t hipMemPoolCreate(hipMemPool_t* pool, const hipMemPoolProps* props) {
  __HK_API_CALL();
  if (pool == nullptr || props == nullptr || props->allocType != hipMemAllocationTypePinned)
    return __hk::result(hipErrorInvalidValue);
  // Pools shared with other processes through OS handles: not on the CPU.
  if (props->handleTypes != hipMemHandleTypeNone) return __hk::result(hipErrorNotSupported);
  int device = 0;
  if (props->location.type != hipMemLocationTypeDevice || props->location.id < 0)
    return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::pool_location(props->location, &device)) return code;
  return __hk::result(hkrt_mem_pool_create(device, props->maxSize, pool));
}
inline hipError_t hipMemPoolDestroy(hipMemPool_t pool) {
  __HK_API_CALL();
  return __hk::result(hkrt_mem_pool_destroy(pool));
}
inline hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t* pool, int device) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(device)) return code;
  return __hk::result(hkrt_mem_pool_default(__hk::native(device), pool));
}
inline hipError_t hipDeviceSetMemPool(int device, hipMemPool_t pool) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(device)) return code;
  return __hk::result(hkrt_mem_pool_set_current(__hk::native(device), pool));
}
inline hipError_t hipDeviceGetMemPool(hipMemPool_t* pool, int device) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(device)) return code;
  return __hk::result(hkrt_mem_pool_get_current(__hk::native(device), pool));
}
inline hipError_t hipMemPoolSetAttribute(hipMemPool_t pool, hipMemPoolAttr attribute,
                                         void* value) {
  __HK_API_CALL();
  return __hk::pool_attribute(pool, attribute, value, 1);
}
inline hipError_t hipMemPoolGetAttribute(hipMemPool_t pool, hipMemPoolAttr attribute,
                                         void* value) {
  __HK_API_CALL();
  return __hk::pool_attribute(pool, attribute, value, 0);
}
inline hipError_t hipMemPoolTrimTo(hipMemPool_t pool, size_t keep) {
  __HK_API_CALL();
  return __hk::result(hkrt_mem_pool_trim(pool, keep));
}
inline hipError_t hipMemPoolSetAccess(hipMemPool_t pool, const hipMemAccessDesc* descs,
                                      size_t count) {
  __HK_API_CALL();
  if (count > 0 && descs == nullptr) return __hk::result(hipErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    int device = 0, flags = descs[i].flags;
    if (hipError_t code = __hk::pool_location(descs[i].location, &device)) return code;
    if (int code = hkrt_mem_pool_access(pool, device, &flags, 1)) return __hk::result(code);
  }
  return hipSuccess;
}
inline hipError_t hipMemPoolGetAccess(hipMemAccessFlags* flags, hipMemPool_t pool,
                                      hipMemLocation* location) {
  __HK_API_CALL();
  if (flags == nullptr || location == nullptr) return __hk::result(hipErrorInvalidValue);
  int device = 0, value = 0;
  if (hipError_t code = __hk::pool_location(*location, &device)) return code;
  if (int code = hkrt_mem_pool_access(pool, device, &value, 0)) return __hk::result(code);
  *flags = static_cast<hipMemAccessFlags>(value);
  return hipSuccess;
}

// Sharing pools between processes needs OS handles, which the CPU's pools
// do not have (hipMemPoolCreate refuses handle types).
inline hipError_t hipMemPoolExportToShareableHandle(void*, hipMemPool_t,
                                                    hipMemAllocationHandleType, unsigned int) {
  __HK_API_CALL();
  return __hk::result(hipErrorNotSupported);
}
inline hipError_t hipMemPoolImportFromShareableHandle(hipMemPool_t*, void*,
                                                      hipMemAllocationHandleType, unsigned int) {
  __HK_API_CALL();
  return __hk::result(hipErrorNotSupported);
}
inline hipError_t hipMemPoolExportPointer(hipMemPoolPtrExportData*, void*) {
  __HK_API_CALL();
  return __hk::result(hipErrorNotSupported);
}
inline hipError_t hipMemPoolImportPointer(void**, hipMemPool_t, hipMemPoolPtrExportData*) {
  __HK_API_CALL();
  return __hk::result(hipErrorNotSupported);
}

#endif  // HIPKIT_CPU_PROGRAM_POOL_H
