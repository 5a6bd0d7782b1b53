// hipkit CPU platform: managed memory, registered host memory, what is known
// of a pointer, and the device limits, for whole programs (part of
// program_memory.h).  Host and devices share one address space, so a
// pointer is its own device and host pointer.
#ifndef HIPKIT_CPU_PROGRAM_MEMORY_INFO_H
#define HIPKIT_CPU_PROGRAM_MEMORY_INFO_H

namespace __hk {

inline hipMemoryType memory_type(int kind) {
  switch (kind) {
    case HKRT_MEMORY_DEVICE: return hipMemoryTypeDevice;
    case HKRT_MEMORY_MANAGED: return hipMemoryTypeManaged;
    case HKRT_MEMORY_HOST:
    case HKRT_MEMORY_REGISTERED: return hipMemoryTypeHost;
    default: return hipMemoryTypeUnregistered;
  }
}

// A location of the managed-memory calls: a device ordinal or hipCpuDeviceId,
// as the runtime numbers it (an ordinal no device has: hipErrorInvalidDevice).
inline hipError_t location(int device, int* out) {
  if (device == hipCpuDeviceId) {
    *out = device;
    return hipSuccess;
  }
  if (hipError_t code = check_device(device)) return code;
  *out = native(device);
  return hipSuccess;
}
inline int location_ordinal(int native_location) {
  return native_location >= 0 ? ordinal_of(native_location) : native_location;
}

// One attribute of hipPointerGetAttribute for a pointer of known memory.
inline hipError_t pointer_attribute(void* data, hipPointer_attribute attribute, const void* ptr,
                                    const hkrt_pointer_attributes& a) {
  void* const self = const_cast<void*>(ptr);
  switch (attribute) {
    case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<unsigned*>(data) = memory_type(a.kind); break;
    case HIP_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<void**>(data) = self; break;
    case HIP_POINTER_ATTRIBUTE_HOST_POINTER:
      if (a.kind == HKRT_MEMORY_DEVICE) return result(hipErrorInvalidValue);  // as CUDA
      *static_cast<void**>(data) = self;
      break;
    case HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case HIP_POINTER_ATTRIBUTE_MAPPED: *static_cast<bool*>(data) = true; break;
    case HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: *static_cast<bool*>(data) = false; break;
    case HIP_POINTER_ATTRIBUTE_BUFFER_ID:
      *static_cast<unsigned long long*>(data) = a.buffer_id;
      break;
    case HIP_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<bool*>(data) = a.kind == HKRT_MEMORY_MANAGED;
      break;
    case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = a.device >= 0 ? ordinal_of(a.device) : current_device;
      break;
    case HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<void**>(data) = a.base; break;
    case HIP_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<size_t*>(data) = a.size; break;
    case HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: *static_cast<unsigned*>(data) = 0; break;
    case HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS:
      *static_cast<unsigned*>(data) = hipMemAccessFlagsProtReadWrite;
      break;
    case HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *static_cast<hipMemPool_t*>(data) = a.pool; break;
    default: return result(hipErrorInvalidValue);  // contexts, P2P tokens, legacy IPC: not here
  }
  return hipSuccess;
}

inline hipError_t query(const void* ptr, hkrt_pointer_attributes* out) {
  return result(hkrt_pointer_query(ptr, out));
}

}  // namespace __hk

// ---- Managed memory --------------------------------------------------------------

inline hipError_t hipMallocManaged(void** ptr, size_t size,
                                   unsigned int flags = hipMemAttachGlobal) {
  __HK_API_CALL();
  if (flags != hipMemAttachGlobal && flags != hipMemAttachHost)
    return __hk::result(hipErrorInvalidValue);
  return __hk_api_call.allocated(
      __hk::result(hkrt_managed_malloc(__hk::current(), ptr, size, flags)), ptr, size, false);
}
template <class T>
inline hipError_t hipMallocManaged(T** ptr, size_t size, unsigned int flags = hipMemAttachGlobal) {
  __HK_API_CALL();
  return hipMallocManaged(reinterpret_cast<void**>(ptr), size, flags);
}
inline hipError_t hipMemAdvise(const void* ptr, size_t count, hipMemoryAdvise advice, int device) {
  __HK_API_CALL();
  int where = device;
  const bool located = advice >= hipMemAdviseSetPreferredLocation &&
                       advice <= hipMemAdviseUnsetAccessedBy;
  if (located)
    if (hipError_t code = __hk::location(device, &where)) return code;
  return __hk::result(hkrt_mem_advise(ptr, count, advice, where));
}
inline hipError_t hipMemPrefetchAsync(const void* ptr, size_t count, int device,
                                      hipStream_t stream = nullptr) {
  __HK_API_CALL();
  int where = 0;
  if (hipError_t code = __hk::location(device, &where)) return code;
  return __hk::result(hkrt_mem_prefetch(__hk::current(), ptr, count, where, stream));
}
inline hipError_t hipMemRangeGetAttribute(void* data, size_t data_size,
                                          hipMemRangeAttribute attribute, const void* ptr,
                                          size_t count) {
  __HK_API_CALL();
  if (int code = hkrt_mem_range_attribute(data, data_size, attribute, ptr, count))
    return __hk::result(code);
  // Locations back to the program's device ordinals.
  if (attribute == hipMemRangeAttributePreferredLocation ||
      attribute == hipMemRangeAttributeLastPrefetchLocation ||
      attribute == hipMemRangeAttributeAccessedBy)
    for (size_t i = 0; i < data_size / sizeof(int); ++i)
      static_cast<int*>(data)[i] = __hk::location_ordinal(static_cast<int*>(data)[i]);
  return hipSuccess;
}
inline hipError_t hipMemRangeGetAttributes(void** data, size_t* data_sizes,
                                           hipMemRangeAttribute* attributes,
                                           size_t num_attributes, const void* ptr, size_t count) {
  __HK_API_CALL();
  if (num_attributes > 0 && (data == nullptr || data_sizes == nullptr || attributes == nullptr))
    return __hk::result(hipErrorInvalidValue);
  for (size_t i = 0; i < num_attributes; ++i)
    if (hipError_t code = hipMemRangeGetAttribute(data[i], data_sizes[i], attributes[i], ptr, count))
      return code;
  return hipSuccess;
}
// Every stream reaches all memory on the CPU: attaching changes nothing
// but is checked as HIP checks it (length 0 is the whole allocation).
inline hipError_t hipStreamAttachMemAsync(hipStream_t stream, void* ptr, size_t length = 0,
                                          unsigned int flags = hipMemAttachSingle) {
  __HK_API_CALL();
  if (flags != hipMemAttachGlobal && flags != hipMemAttachHost && flags != hipMemAttachSingle)
    return __hk::result(hipErrorInvalidValue);
  hkrt_pointer_attributes a;
  if (hipError_t code = __hk::query(ptr, &a)) return code;
  if (a.kind != HKRT_MEMORY_MANAGED || (length != 0 && (a.base != ptr || length != a.size)))
    return __hk::result(hipErrorInvalidValue);
  int device = 0;
  return __hk::result(hkrt_stream_get_device(__hk::current(), stream, &device));
}

// ---- Registered and pinned host memory ----------------------------------------

inline hipError_t hipHostRegister(void* ptr, size_t size, unsigned int flags) {
  __HK_API_CALL();
  if ((flags & ~0xFu) != 0) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_host_register(__hk::current(), ptr, size, flags));
}
inline hipError_t hipHostUnregister(void* ptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_host_unregister(ptr));
}
inline hipError_t hipHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
  __HK_API_CALL();
  if (device_ptr == nullptr || host_ptr == nullptr || flags != 0)
    return __hk::result(hipErrorInvalidValue);
  hkrt_pointer_attributes a;
  if (hipError_t code = __hk::query(host_ptr, &a)) return code;
  if (a.kind != HKRT_MEMORY_HOST && a.kind != HKRT_MEMORY_REGISTERED)
    return __hk::result(hipErrorInvalidValue);
  *device_ptr = host_ptr;  // one address space
  return hipSuccess;
}
inline hipError_t hipHostGetFlags(unsigned int* flags, void* host_ptr) {
  __HK_API_CALL();
  if (flags == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_pointer_attributes a;
  if (hipError_t code = __hk::query(host_ptr, &a)) return code;
  if (a.kind != HKRT_MEMORY_HOST && a.kind != HKRT_MEMORY_REGISTERED)
    return __hk::result(hipErrorInvalidValue);
  *flags = a.flags;
  return hipSuccess;
}
inline hipError_t hipMemAllocHost(void** ptr, size_t size) {
  __HK_API_CALL();
  return hipHostMalloc(ptr, size, 0);
}

// ---- What is known of a pointer ---------------------------------------------------

// Unknown memory (pageable host memory) is hipMemoryTypeUnregistered and
// success, as in CUDA 11 and later.
inline hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr) {
  __HK_API_CALL();
  if (attributes == nullptr || ptr == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_pointer_attributes a;
  if (hipError_t code = __hk::query(ptr, &a)) return code;
  memset(attributes, 0, sizeof(*attributes));
  attributes->type = __hk::memory_type(a.kind);
  // The device whose memory it is; other memory, the current device (as HIP
  // reports for host memory).
  const int ordinal = a.device >= 0 ? __hk::ordinal_of(a.device) : -1;
  attributes->device = ordinal >= 0 ? ordinal : __hk::current_device;
  attributes->devicePointer = const_cast<void*>(ptr);
  attributes->hostPointer = a.kind == HKRT_MEMORY_DEVICE ? nullptr : const_cast<void*>(ptr);
  attributes->isManaged = a.kind == HKRT_MEMORY_MANAGED;
  attributes->allocationFlags = a.flags;
  return hipSuccess;
}
// hipErrorInvalidValue for memory the runtime does not know.
inline hipError_t hipPointerGetAttribute(void* data, hipPointer_attribute attribute,
                                         hipDeviceptr_t ptr) {
  __HK_API_CALL();
  if (data == nullptr || ptr == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_pointer_attributes a;
  if (hipError_t code = __hk::query(ptr, &a)) return code;
  if (a.kind == HKRT_MEMORY_UNKNOWN) return __hk::result(hipErrorInvalidValue);
  return __hk::pointer_attribute(data, attribute, ptr, a);
}
inline hipError_t hipDrvPointerGetAttributes(unsigned int count, hipPointer_attribute* attributes,
                                             void** data, hipDeviceptr_t ptr) {
  __HK_API_CALL();
  if (count > 0 && (attributes == nullptr || data == nullptr))
    return __hk::result(hipErrorInvalidValue);
  for (unsigned i = 0; i < count; ++i)
    if (hipError_t code = hipPointerGetAttribute(data[i], attributes[i], ptr)) return code;
  return hipSuccess;
}
inline hipError_t hipMemGetAddressRange(hipDeviceptr_t* base, size_t* size, hipDeviceptr_t ptr) {
  __HK_API_CALL();
  hkrt_pointer_attributes a;
  if (hipError_t code = __hk::query(ptr, &a)) return code;
  if (a.kind == HKRT_MEMORY_UNKNOWN) return __hk::result(hipErrorNotFound);
  if (base != nullptr) *base = a.base;
  if (size != nullptr) *size = a.size;
  return hipSuccess;
}
inline hipError_t hipMemPtrGetInfo(void* ptr, size_t* size) {
  __HK_API_CALL();
  if (size == nullptr) return __hk::result(hipErrorInvalidValue);
  hkrt_pointer_attributes a;
  if (hipError_t code = __hk::query(ptr, &a)) return code;
  if (a.kind == HKRT_MEMORY_UNKNOWN) return __hk::result(hipErrorInvalidValue);
  *size = a.size;
  return hipSuccess;
}

// ---- Limits ---------------------------------------------------------------------

inline hipError_t hipDeviceGetLimit(size_t* value, enum hipLimit_t limit) {
  __HK_API_CALL();
  return __hk::result(hkrt_device_limit(__hk::current(), limit, value, 0));
}
inline hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value) {
  __HK_API_CALL();
  return __hk::result(hkrt_device_limit(__hk::current(), limit, &value, 1));
}

#endif  // HIPKIT_CPU_PROGRAM_MEMORY_INFO_H
