// hipkit CPU platform: pitched allocations and 2-D / 3-D copies and sets of
// whole programs (part of program_memory.h).  A pitched copy is its rows'
// copies, each ordered on the stream as hipMemcpyAsync's are (rows that are
// contiguous on both sides are one copy); array sides go to program_array.h's
// copies.
#ifndef HIPKIT_CPU_PROGRAM_MEMORY2D_H
#define HIPKIT_CPU_PROGRAM_MEMORY2D_H

#include "program_array_hooks.h"

namespace __hk {

// Rows of pitched allocations start on this boundary (the allocator's).
constexpr size_t kPitchAlignment = 256;

// `height` rows of `width` bytes; `depth` slices of `height` rows, at
// dslice / sslice bytes from each other.
inline hipError_t copy_rows(char* dst, size_t dpitch, size_t dslice, const char* src,
                            size_t spitch, size_t sslice, size_t width, size_t height,
                            size_t depth, int kind, hipStream_t stream, int async) {
  if (width > dpitch || width > spitch) return result(hipErrorInvalidPitchValue);
  if (width == 0 || height == 0 || depth == 0) return hipSuccess;
  if (dst == nullptr || src == nullptr) return result(hipErrorInvalidValue);
  const bool rows_packed = dpitch == width && spitch == width;
  const bool slices_packed = rows_packed && dslice == width * height && sslice == width * height;
  if (slices_packed) return copy(dst, src, width * height * depth, kind, stream, async);
  for (size_t z = 0; z < depth; ++z) {
    if (rows_packed) {
      if (hipError_t code = copy(dst + z * dslice, src + z * sslice, width * height, kind, stream,
                                 async))
        return code;
      continue;
    }
    for (size_t y = 0; y < height; ++y)
      if (hipError_t code = copy(dst + z * dslice + y * dpitch, src + z * sslice + y * spitch,
                                 width, kind, stream, async))
        return code;
  }
  return hipSuccess;
}

inline hipError_t set_rows(char* dst, size_t pitch, size_t slice, int value, size_t width,
                           size_t height, size_t depth, hipStream_t stream, int async) {
  if (width > pitch) return result(hipErrorInvalidPitchValue);
  if (width == 0 || height == 0 || depth == 0) return hipSuccess;
  if (dst == nullptr) return result(hipErrorInvalidValue);
  for (size_t z = 0; z < depth; ++z)
    for (size_t y = 0; y < height; ++y)
      if (int code = hkrt_memset(current(), dst + z * slice + y * pitch, uint32_t(value) & 0xffu,
                                 width, 1, stream, async))
        return result(code);
  return hipSuccess;
}

inline hipError_t malloc_pitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (ptr == nullptr || pitch == nullptr) return result(hipErrorInvalidValue);
  *pitch = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  return result(hkrt_malloc(current(), ptr, *pitch * height));
}

// The start of a 3-D copy's side: its pointer moved to `pos`; the slice
// height (ysize) must hold the rows copied when there is more than a slice.
inline hipError_t side_3d(const hipPitchedPtr& p, const hipPos& pos, const hipExtent& extent,
                          char** out) {
  if (pos.x + extent.width > p.pitch) return result(hipErrorInvalidPitchValue);
  if ((extent.depth > 1 || pos.z > 0) && pos.y + extent.height > p.ysize)
    return result(hipErrorInvalidValue);
  *out = static_cast<char*>(p.ptr) + (pos.z * p.ysize + pos.y) * p.pitch + pos.x;
  return hipSuccess;
}

inline hipError_t copy_3d(const hipMemcpy3DParms* p, hipStream_t stream, int async) {
  if (p == nullptr) return result(hipErrorInvalidValue);
  if (p->srcArray != nullptr || p->dstArray != nullptr) return copy_3d_array(p, stream, async);
  if (p->srcPtr.ptr == nullptr || p->dstPtr.ptr == nullptr) return result(hipErrorInvalidValue);
  char *dst = nullptr, *src = nullptr;
  if (hipError_t code = side_3d(p->dstPtr, p->dstPos, p->extent, &dst)) return code;
  if (hipError_t code = side_3d(p->srcPtr, p->srcPos, p->extent, &src)) return code;
  return copy_rows(dst, p->dstPtr.pitch, p->dstPtr.pitch * p->dstPtr.ysize, src, p->srcPtr.pitch,
                   p->srcPtr.pitch * p->srcPtr.ysize, p->extent.width, p->extent.height,
                   p->extent.depth, p->kind, stream, async);
}

inline hipError_t copy_param_2d(const hip_Memcpy2D* p, hipStream_t stream, int async) {
  if (p == nullptr) return result(hipErrorInvalidValue);
  if (p->srcMemoryType == hipMemoryTypeArray || p->dstMemoryType == hipMemoryTypeArray)
    return copy_param_2d_array(p, stream, async);
  const bool src_host = p->srcMemoryType == hipMemoryTypeHost;
  const bool dst_host = p->dstMemoryType == hipMemoryTypeHost;
  const char* src = static_cast<const char*>(src_host ? p->srcHost : p->srcDevice);
  char* dst = static_cast<char*>(dst_host ? p->dstHost : p->dstDevice);
  if (src == nullptr || dst == nullptr) return result(hipErrorInvalidValue);
  const int kind = src_host ? (dst_host ? hipMemcpyHostToHost : hipMemcpyHostToDevice)
                            : (dst_host ? hipMemcpyDeviceToHost : hipMemcpyDeviceToDevice);
  return copy_rows(dst + p->dstY * p->dstPitch + p->dstXInBytes, p->dstPitch, 0,
                   src + p->srcY * p->srcPitch + p->srcXInBytes, p->srcPitch, 0, p->WidthInBytes,
                   p->Height, 1, kind, stream, async);
}

}  // namespace __hk

inline hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  __HK_API_CALL();
  return __hk::malloc_pitch(ptr, pitch, width, height);
}
inline hipError_t hipMemAllocPitch(hipDeviceptr_t* ptr, size_t* pitch, size_t width,
                                   size_t height, unsigned int element_bytes) {
  __HK_API_CALL();
  if (element_bytes != 4 && element_bytes != 8 && element_bytes != 16)
    return __hk::result(hipErrorInvalidValue);
  return __hk::malloc_pitch(ptr, pitch, width, height);
}
inline hipError_t hipMalloc3D(hipPitchedPtr* pitched, hipExtent extent) {
  __HK_API_CALL();
  if (pitched == nullptr) return __hk::result(hipErrorInvalidValue);
  size_t pitch = 0;
  void* ptr = nullptr;
  if (hipError_t code = __hk::malloc_pitch(&ptr, &pitch, extent.width,
                                           extent.height * extent.depth))
    return code;
  *pitched = make_hipPitchedPtr(ptr, pitch, extent.width, extent.height);
  return hipSuccess;
}

inline hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, hipMemcpyKind kind) {
  __HK_API_CALL();
  return __hk::copy_rows(static_cast<char*>(dst), dpitch, 0, static_cast<const char*>(src),
                         spitch, 0, width, height, 1, kind, nullptr, 0);
}
inline hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                   size_t width, size_t height, hipMemcpyKind kind,
                                   hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::copy_rows(static_cast<char*>(dst), dpitch, 0, static_cast<const char*>(src),
                         spitch, 0, width, height, 1, kind, stream, 1);
}
inline hipError_t hipMemcpyParam2D(const hip_Memcpy2D* copy) {
  __HK_API_CALL();
  return __hk::copy_param_2d(copy, nullptr, 0);
}
inline hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D* copy, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::copy_param_2d(copy, stream, 1);
}
inline hipError_t hipMemcpy3D(const hipMemcpy3DParms* parms) {
  __HK_API_CALL();
  return __hk::copy_3d(parms, nullptr, 0);
}
inline hipError_t hipMemcpy3DAsync(const hipMemcpy3DParms* parms, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::copy_3d(parms, stream, 1);
}

inline hipError_t hipMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  __HK_API_CALL();
  return __hk::set_rows(static_cast<char*>(dst), pitch, 0, value, width, height, 1, nullptr, 0);
}
inline hipError_t hipMemset2DAsync(void* dst, size_t pitch, int value, size_t width,
                                   size_t height, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::set_rows(static_cast<char*>(dst), pitch, 0, value, width, height, 1, stream, 1);
}
inline hipError_t hipMemset3D(hipPitchedPtr p, int value, hipExtent extent) {
  __HK_API_CALL();
  return __hk::set_rows(static_cast<char*>(p.ptr), p.pitch, p.pitch * p.ysize, value,
                        extent.width, extent.height, extent.depth, nullptr, 0);
}
inline hipError_t hipMemset3DAsync(hipPitchedPtr p, int value, hipExtent extent,
                                   hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::set_rows(static_cast<char*>(p.ptr), p.pitch, p.pitch * p.ysize, value,
                        extent.width, extent.height, extent.depth, stream, 1);
}

#endif  // HIPKIT_CPU_PROGRAM_MEMORY2D_H
