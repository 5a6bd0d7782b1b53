// hipkit CPU platform: memory, copies and device globals of whole programs
// (part of program.h).
#ifndef HIPKIT_CPU_PROGRAM_MEMORY_H
#define HIPKIT_CPU_PROGRAM_MEMORY_H

#include "memory_types.h"

namespace __hk {

// The device-memory part of a copy: a symbol's bytes [offset, offset + bytes).
inline hipError_t symbol_range(const void* symbol, size_t size, size_t offset, size_t bytes,
                               char** out) {
  if (offset > size || bytes > size - offset) return result(hipErrorInvalidValue);
  *out = const_cast<char*>(static_cast<const char*>(symbol)) + offset;
  return hipSuccess;
}

inline hipError_t registered_symbol(const void* symbol, size_t size, size_t offset, size_t bytes,
                                    char** out) {
  if (size == 0) {  // a symbol given by address: only a registered global
    if (int code = hkrt_program_global(symbol, &size)) return result(code);
  }
  return symbol_range(symbol, size, offset, bytes, out);
}

inline hipError_t copy(void* dst, const void* src, size_t bytes, int kind, hipStream_t stream,
                       int async) {
  return result(hkrt_memcpy(current(), dst, src, bytes, kind, stream, async));
}

}  // namespace __hk

// ---- Memory --------------------------------------------------------------------

inline hipError_t hipMalloc(void** ptr, size_t size) {
  __HK_API_CALL();
  return __hk_api_call.allocated(__hk::result(hkrt_malloc(__hk::current(), ptr, size)), ptr, size,
                                 false);
}
inline hipError_t hipFree(void* ptr) {
  __HK_API_CALL();
  return __hk_api_call.freed(__hk::result(hkrt_free(ptr)), ptr, false);
}
inline hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags = hipHostMallocDefault) {
  __HK_API_CALL();
  // Every kind of host memory is the same on the CPU; the flags are kept
  // for hipHostGetFlags.  The current device's, as CUDA's: its reset frees it.
  // Coherent and non-coherent at once is no kind at all (HIP's hipErrorInvalidValue).
  if ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent)) {
    if (ptr != nullptr) *ptr = nullptr;
    return __hk::result(hipErrorInvalidValue);
  }
  return __hk_api_call.allocated(
      __hk::result(hkrt_host_alloc(__hk::current(), ptr, size, flags)), ptr, size, true);
}
inline hipError_t hipMallocHost(void** ptr, size_t size) {
  __HK_API_CALL();
  return hipHostMalloc(ptr, size, 0);
}
inline hipError_t hipHostAlloc(void** ptr, size_t size, unsigned int flags) {
  __HK_API_CALL();
  return hipHostMalloc(ptr, size, flags);
}
inline hipError_t hipHostFree(void* ptr) {
  __HK_API_CALL();
  return __hk_api_call.freed(__hk::result(hkrt_host_free(ptr)), ptr, true);
}
inline hipError_t hipFreeHost(void* ptr) {
  __HK_API_CALL();
  return hipHostFree(ptr);
}

template <class T>
inline hipError_t hipMalloc(T** ptr, size_t size) {
  __HK_API_CALL();
  return hipMalloc(reinterpret_cast<void**>(ptr), size);
}
template <class T>
inline hipError_t hipHostMalloc(T** ptr, size_t size, unsigned int flags = hipHostMallocDefault) {
  __HK_API_CALL();
  return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
inline hipError_t hipMallocHost(T** ptr, size_t size) {
  __HK_API_CALL();
  return hipHostMalloc(reinterpret_cast<void**>(ptr), size, 0);
}
template <class T>
inline hipError_t hipHostAlloc(T** ptr, size_t size, unsigned int flags) {
  __HK_API_CALL();
  return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags);
}

inline hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  __HK_API_CALL();
  return __hk::result(hkrt_mem_get_info(__hk::current(), free_bytes, total_bytes));
}



inline hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
  __HK_API_CALL();
  return __hk::copy(dst, src, bytes, kind, nullptr, 0);
}
inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind kind,
                                 hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::copy(dst, src, bytes, kind, stream, 1);
}
inline hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t bytes) {
  __HK_API_CALL();
  return hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice);
}
inline hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t bytes) {
  __HK_API_CALL();
  return hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost);
}
inline hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes) {
  __HK_API_CALL();
  return hipMemcpy(dst, src, bytes, hipMemcpyDeviceToDevice);
}
inline hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t bytes,
                                     hipStream_t stream) {
  __HK_API_CALL();
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, stream);
}
inline hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t bytes,
                                     hipStream_t stream) {
  __HK_API_CALL();
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, stream);
}
inline hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes,
                                     hipStream_t stream) {
  __HK_API_CALL();
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, stream);
}
// Serialized with the work queued on both devices' null streams; the
// asynchronous form with `stream` only (of any device; 0: the current one's).
inline hipError_t hipMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                                size_t bytes) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(dst_device)) return code;
  if (hipError_t code = __hk::check_device(src_device)) return code;
  return __hk::result(hkrt_memcpy_peer(dst, __hk::native(dst_device), src, __hk::native(src_device),
                                       bytes, __hk::current(), nullptr, 0));
}
inline hipError_t hipMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                     size_t bytes, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(dst_device)) return code;
  if (hipError_t code = __hk::check_device(src_device)) return code;
  return __hk::result(hkrt_memcpy_peer(dst, __hk::native(dst_device), src, __hk::native(src_device),
                                       bytes, __hk::current(), stream, 1));
}

inline hipError_t hipMemset(void* dst, int value, size_t bytes) {
  __HK_API_CALL();
  return __hk::result(
      hkrt_memset(__hk::current(), dst, uint32_t(value) & 0xffu, bytes, 1, nullptr, 0));
}
inline hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::result(
      hkrt_memset(__hk::current(), dst, uint32_t(value) & 0xffu, bytes, 1, stream, 1));
}
inline hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count) {
  __HK_API_CALL();
  return __hk::result(hkrt_memset(__hk::current(), dst, value, count, 1, nullptr, 0));
}
inline hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short value, size_t count) {
  __HK_API_CALL();
  return __hk::result(hkrt_memset(__hk::current(), dst, value, count, 2, nullptr, 0));
}
inline hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count) {
  __HK_API_CALL();
  return __hk::result(hkrt_memset(__hk::current(), dst, uint32_t(value), count, 4, nullptr, 0));
}
inline hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count,
                                   hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_memset(__hk::current(), dst, value, count, 1, stream, 1));
}
inline hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short value, size_t count,
                                    hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_memset(__hk::current(), dst, value, count, 2, stream, 1));
}
inline hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count,
                                    hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_memset(__hk::current(), dst, uint32_t(value), count, 4, stream, 1));
}

// ---- Device globals (__device__, __constant__, __managed__ variables) -----------
// HIP_SYMBOL(x) is x: the templates take the variable itself (its size is
// known); the void* forms take its address, which must be a registered global.

#define HIP_SYMBOL(X) X

inline hipError_t hipGetSymbolAddress(void** address, const void* symbol) {
  __HK_API_CALL();
  if (address == nullptr) return __hk::result(hipErrorInvalidValue);
  char* at = nullptr;
  if (hipError_t code = __hk::registered_symbol(symbol, 0, 0, 0, &at)) return code;
  *address = at;
  return hipSuccess;
}
inline hipError_t hipGetSymbolSize(size_t* size, const void* symbol) {
  __HK_API_CALL();
  if (size == nullptr) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_program_global(symbol, size));
}
inline hipError_t hipMemcpyToSymbol(const void* symbol, const void* src, size_t bytes,
                                    size_t offset = 0, hipMemcpyKind kind = hipMemcpyHostToDevice) {
  __HK_API_CALL();
  char* dst = nullptr;
  if (hipError_t code = __hk::registered_symbol(symbol, 0, offset, bytes, &dst)) return code;
  return __hk::copy(dst, src, bytes, kind, nullptr, 0);
}
inline hipError_t hipMemcpyToSymbolAsync(const void* symbol, const void* src, size_t bytes,
                                         size_t offset, hipMemcpyKind kind,
                                         hipStream_t stream = nullptr) {
  __HK_API_CALL();
  char* dst = nullptr;
  if (hipError_t code = __hk::registered_symbol(symbol, 0, offset, bytes, &dst)) return code;
  return __hk::copy(dst, src, bytes, kind, stream, 1);
}
inline hipError_t hipMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes,
                                      size_t offset = 0,
                                      hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  __HK_API_CALL();
  char* src = nullptr;
  if (hipError_t code = __hk::registered_symbol(symbol, 0, offset, bytes, &src)) return code;
  return __hk::copy(dst, src, bytes, kind, nullptr, 0);
}
inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t bytes,
                                           size_t offset, hipMemcpyKind kind,
                                           hipStream_t stream = nullptr) {
  __HK_API_CALL();
  char* src = nullptr;
  if (hipError_t code = __hk::registered_symbol(symbol, 0, offset, bytes, &src)) return code;
  return __hk::copy(dst, src, bytes, kind, stream, 1);
}

template <class T>
inline hipError_t hipGetSymbolAddress(void** address, const T& symbol) {
  __HK_API_CALL();
  if (address == nullptr) return __hk::result(hipErrorInvalidValue);
  *address = const_cast<void*>(static_cast<const void*>(&symbol));
  return hipSuccess;
}
template <class T>
inline hipError_t hipGetSymbolSize(size_t* size, const T&) {
  __HK_API_CALL();
  if (size == nullptr) return __hk::result(hipErrorInvalidValue);
  *size = sizeof(T);
  return hipSuccess;
}
template <class T>
inline hipError_t hipMemcpyToSymbol(const T& symbol, const void* src, size_t bytes,
                                    size_t offset = 0, hipMemcpyKind kind = hipMemcpyHostToDevice) {
  __HK_API_CALL();
  char* dst = nullptr;
  if (hipError_t code = __hk::symbol_range(&symbol, sizeof(T), offset, bytes, &dst)) return code;
  return __hk::copy(dst, src, bytes, kind, nullptr, 0);
}
template <class T>
inline hipError_t hipMemcpyToSymbolAsync(const T& symbol, const void* src, size_t bytes,
                                         size_t offset, hipMemcpyKind kind,
                                         hipStream_t stream = nullptr) {
  __HK_API_CALL();
  char* dst = nullptr;
  if (hipError_t code = __hk::symbol_range(&symbol, sizeof(T), offset, bytes, &dst)) return code;
  return __hk::copy(dst, src, bytes, kind, stream, 1);
}
template <class T>
inline hipError_t hipMemcpyFromSymbol(void* dst, const T& symbol, size_t bytes, size_t offset = 0,
                                      hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  __HK_API_CALL();
  char* src = nullptr;
  if (hipError_t code = __hk::symbol_range(&symbol, sizeof(T), offset, bytes, &src)) return code;
  return __hk::copy(dst, src, bytes, kind, nullptr, 0);
}
template <class T>
inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t bytes, size_t offset,
                                           hipMemcpyKind kind, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  char* src = nullptr;
  if (hipError_t code = __hk::symbol_range(&symbol, sizeof(T), offset, bytes, &src)) return code;
  return __hk::copy(dst, src, bytes, kind, stream, 1);
}

#include "program_memory2d.h"
#include "program_memory_info.h"
#include "program_pool.h"

#endif  // HIPKIT_CPU_PROGRAM_MEMORY_H
