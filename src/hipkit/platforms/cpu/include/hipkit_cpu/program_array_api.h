// hipkit CPU platform: HIP's array functions (part of program_array.h):
// allocation, queries, copies (runtime and driver forms) and mipmapped arrays.
#ifndef HIPKIT_CPU_PROGRAM_ARRAY_API_H
#define HIPKIT_CPU_PROGRAM_ARRAY_API_H

inline hipError_t hipMallocArray(hipArray_t* array, const hipChannelFormatDesc* desc,
                                 size_t width, size_t height = 0,
                                 unsigned int flags = hipArrayDefault) {
  __HK_API_CALL();
  return __hk::make_array(array, desc, width, height, 0, flags, false);
}
inline hipError_t hipMalloc3DArray(hipArray_t* array, const hipChannelFormatDesc* desc,
                                   hipExtent extent, unsigned int flags) {
  __HK_API_CALL();
  return __hk::make_array(array, desc, extent.width, extent.height, extent.depth, flags, false);
}
inline hipError_t hipArrayCreate(hipArray_t* array, const HIP_ARRAY_DESCRIPTOR* desc) {
  __HK_API_CALL();
  hipChannelFormatDesc channels;
  if (desc == nullptr || !__hk::format_desc(desc->Format, desc->NumChannels, &channels))
    return __hk::result(hipErrorInvalidValue);
  return __hk::make_array(array, &channels, desc->Width, desc->Height, 0, 0, true);
}
inline hipError_t hipArray3DCreate(hipArray_t* array, const HIP_ARRAY3D_DESCRIPTOR* desc) {
  __HK_API_CALL();
  hipChannelFormatDesc channels;
  if (desc == nullptr || !__hk::format_desc(desc->Format, desc->NumChannels, &channels))
    return __hk::result(hipErrorInvalidValue);
  return __hk::make_array(array, &channels, desc->Width, desc->Height, desc->Depth, desc->Flags,
                          true);
}
inline hipError_t hipFreeArray(hipArray_t array) {
  __HK_API_CALL();
  return __hk::free_array(array);
}
inline hipError_t hipArrayDestroy(hipArray_t array) {
  __HK_API_CALL();
  return __hk::free_array(array);
}

inline hipError_t hipArrayGetInfo(hipChannelFormatDesc* desc, hipExtent* extent,
                                  unsigned int* flags, hipArray_t array) {
  __HK_API_CALL();
  if (!__hk::array_live(array)) return __hk::result(hipErrorInvalidValue);
  if (desc != nullptr) *desc = array->desc;
  if (extent != nullptr) *extent = make_hipExtent(array->width, array->height, array->depth);
  if (flags != nullptr) *flags = array->type;
  return hipSuccess;
}
inline hipError_t hipGetChannelDesc(hipChannelFormatDesc* desc, hipArray_const_t array) {
  __HK_API_CALL();
  if (desc == nullptr || !__hk::array_live(array)) return __hk::result(hipErrorInvalidValue);
  *desc = array->desc;
  return hipSuccess;
}
inline hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR* desc, hipArray_t array) {
  __HK_API_CALL();
  if (desc == nullptr || !__hk::array_live(array)) return __hk::result(hipErrorInvalidValue);
  desc->Width = array->width;
  desc->Height = array->height;
  desc->Format = array->Format;
  desc->NumChannels = array->NumChannels;
  return hipSuccess;
}
inline hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR* desc, hipArray_t array) {
  __HK_API_CALL();
  if (desc == nullptr || !__hk::array_live(array)) return __hk::result(hipErrorInvalidValue);
  desc->Width = array->width;
  desc->Height = array->height;
  desc->Depth = array->depth;
  desc->Format = array->Format;
  desc->NumChannels = array->NumChannels;
  desc->Flags = array->type;
  return hipSuccess;
}

// ---- Copies: offsets and widths in bytes, heights in rows -----------------------

inline hipError_t hipMemcpy2DToArray(hipArray_t dst, size_t wOffset, size_t hOffset,
                                     const void* src, size_t spitch, size_t width, size_t height,
                                     hipMemcpyKind kind) {
  __HK_API_CALL();
  return __hk::to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, nullptr, 0);
}
inline hipError_t hipMemcpy2DToArrayAsync(hipArray_t dst, size_t wOffset, size_t hOffset,
                                          const void* src, size_t spitch, size_t width,
                                          size_t height, hipMemcpyKind kind,
                                          hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, stream, 1);
}
inline hipError_t hipMemcpy2DFromArray(void* dst, size_t dpitch, hipArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width,
                                       size_t height, hipMemcpyKind kind) {
  __HK_API_CALL();
  return __hk::from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, nullptr, 0);
}
inline hipError_t hipMemcpy2DFromArrayAsync(void* dst, size_t dpitch, hipArray_const_t src,
                                            size_t wOffset, size_t hOffset, size_t width,
                                            size_t height, hipMemcpyKind kind,
                                            hipStream_t stream = nullptr) {
  __HK_API_CALL();
  return __hk::from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream, 1);
}
inline hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                          hipArray_const_t src, size_t wOffsetSrc,
                                          size_t hOffsetSrc, size_t width, size_t height,
                                          hipMemcpyKind kind = hipMemcpyDeviceToDevice) {
  __HK_API_CALL();
  char* from = nullptr;
  size_t pitch = 0;
  if (hipError_t code = __hk::array_rect(src, wOffsetSrc, hOffsetSrc, width, height, &from, &pitch))
    return code;
  return __hk::to_array(dst, wOffsetDst, hOffsetDst, from, pitch, width, height, kind, nullptr, 0);
}
// count bytes from (wOffset, hOffset) on, across rows.
inline hipError_t hipMemcpyToArray(hipArray_t dst, size_t wOffset, size_t hOffset,
                                   const void* src, size_t count, hipMemcpyKind kind) {
  __HK_API_CALL();
  if (dst == nullptr) return __hk::result(hipErrorInvalidValue);
  const size_t offset = hOffset * __hk::array_texels(dst).pitch + wOffset;
  return __hk::array_linear(dst, offset, const_cast<void*>(src), count, true, kind, nullptr, 0);
}
inline hipError_t hipMemcpyFromArray(void* dst, hipArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, hipMemcpyKind kind) {
  __HK_API_CALL();
  if (src == nullptr) return __hk::result(hipErrorInvalidValue);
  const size_t offset = hOffset * __hk::array_texels(src).pitch + wOffset;
  return __hk::array_linear(src, offset, dst, count, false, kind, nullptr, 0);
}
inline hipError_t hipMemcpyAtoH(void* dst, hipArray_t src, size_t srcOffset, size_t count) {
  __HK_API_CALL();
  return __hk::array_linear(src, srcOffset, dst, count, false, hipMemcpyDeviceToHost, nullptr, 0);
}
inline hipError_t hipMemcpyHtoA(hipArray_t dst, size_t dstOffset, const void* src, size_t count) {
  __HK_API_CALL();
  return __hk::array_linear(dst, dstOffset, const_cast<void*>(src), count, true,
                            hipMemcpyHostToDevice, nullptr, 0);
}
inline hipError_t hipMemcpyAtoHAsync(void* dst, hipArray_t src, size_t srcOffset, size_t count,
                                     hipStream_t stream) {
  __HK_API_CALL();
  return __hk::array_linear(src, srcOffset, dst, count, false, hipMemcpyDeviceToHost, stream, 1);
}
inline hipError_t hipMemcpyHtoAAsync(hipArray_t dst, size_t dstOffset, const void* src,
                                     size_t count, hipStream_t stream) {
  __HK_API_CALL();
  return __hk::array_linear(dst, dstOffset, const_cast<void*>(src), count, true,
                            hipMemcpyHostToDevice, stream, 1);
}
inline hipError_t hipMemcpyAtoD(hipDeviceptr_t dst, hipArray_t src, size_t srcOffset,
                                size_t count) {
  __HK_API_CALL();
  return __hk::array_linear(src, srcOffset, dst, count, false, hipMemcpyDeviceToDevice, nullptr,
                            0);
}
inline hipError_t hipMemcpyDtoA(hipArray_t dst, size_t dstOffset, hipDeviceptr_t src,
                                size_t count) {
  __HK_API_CALL();
  return __hk::array_linear(dst, dstOffset, src, count, true, hipMemcpyDeviceToDevice, nullptr, 0);
}
inline hipError_t hipMemcpyAtoA(hipArray_t dst, size_t dstOffset, hipArray_t src,
                                size_t srcOffset, size_t count) {
  __HK_API_CALL();
  char* from = nullptr;
  if (hipError_t code = __hk::array_range(src, srcOffset, count, &from)) return code;
  return __hk::array_linear(dst, dstOffset, from, count, true, hipMemcpyDeviceToDevice, nullptr,
                            0);
}

// ---- Mipmapped arrays: level l is an array of max(1, extent >> l); the number
// of levels is clamped to [1, 1 + log2(largest extent)], as CUDA's ----------------

namespace __hk {
inline unsigned full_levels(size_t width, size_t height, size_t depth) {
  size_t largest = width > height ? width : height;
  largest = largest > depth ? largest : depth;
  unsigned levels = 1;
  while (largest >>= 1) ++levels;
  return levels;
}
// The mipmapped arrays the program made and has not freed (under arrays()'s lock).
inline std::unordered_set<const hipMipmappedArray*>& mipmapped() {
  static auto* all = new std::unordered_set<const hipMipmappedArray*>;  // used until exit
  return *all;
}
inline hipError_t make_mipmapped(hipMipmappedArray_t* out, const hipChannelFormatDesc* desc,
                                 hipExtent extent, unsigned levels, unsigned flags, bool driver) {
  if (out == nullptr || desc == nullptr || extent.width == 0) return result(hipErrorInvalidValue);
  const unsigned full = full_levels(extent.width, extent.height, extent.depth);
  levels = levels < 1 ? 1 : levels > full ? full : levels;  // CUDA's clamp
  hipArray_t* each = new hipArray_t[levels]();
  for (unsigned l = 0; l < levels; ++l) {
    auto at = [l](size_t n) -> size_t { return n == 0 ? 0 : (n >> l) ? (n >> l) : 1; };
    const size_t depth = (flags & hipArrayLayered) ? extent.depth : at(extent.depth);
    if (hipError_t code = make_array(&each[l], desc, at(extent.width), at(extent.height), depth,
                                     flags, driver)) {
      for (unsigned k = 0; k < l; ++k) free_array(each[k]);
      delete[] each;
      return code;
    }
  }
  hipMipmappedArray* m = new hipMipmappedArray();
  m->data = each;
  m->desc = *desc;
  m->type = each[0]->textureType;
  m->width = unsigned(extent.width);
  m->height = unsigned(extent.height);
  m->depth = unsigned(extent.depth);
  m->min_mipmap_level = 0;
  m->max_mipmap_level = levels - 1;
  m->flags = flags;
  m->format = each[0]->Format;
  {
    std::lock_guard<std::mutex> lock(arrays().mutex);
    mipmapped().insert(m);
  }
  *out = m;
  return hipSuccess;
}
// A mipmapped array owns its levels: they are freed with it, not one by one.
inline hipError_t free_mipmapped(hipMipmappedArray_t m) {
  {
    std::lock_guard<std::mutex> lock(arrays().mutex);
    if (m == nullptr || mipmapped().erase(m) == 0) return result(hipErrorInvalidValue);
  }
  hipArray_t* each = static_cast<hipArray_t*>(m->data);
  for (unsigned l = 0; l <= m->max_mipmap_level; ++l) free_array(each[l]);
  delete[] each;
  delete m;
  return hipSuccess;
}
inline hipError_t mipmapped_level(hipArray_t* out, hipMipmappedArray_const_t m, unsigned level) {
  bool live = false;
  {
    std::lock_guard<std::mutex> lock(arrays().mutex);
    live = m != nullptr && mipmapped().count(m) != 0;
  }
  if (out == nullptr || !live || level > m->max_mipmap_level) return result(hipErrorInvalidValue);
  *out = static_cast<hipArray_t*>(m->data)[level];
  return hipSuccess;
}
}  // namespace __hk

inline hipError_t hipMallocMipmappedArray(hipMipmappedArray_t* mipmappedArray,
                                          const hipChannelFormatDesc* desc, hipExtent extent,
                                          unsigned int numLevels, unsigned int flags = 0) {
  __HK_API_CALL();
  return __hk::make_mipmapped(mipmappedArray, desc, extent, numLevels, flags, false);
}
inline hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t* handle,
                                          HIP_ARRAY3D_DESCRIPTOR* desc,
                                          unsigned int numMipmapLevels) {
  __HK_API_CALL();
  hipChannelFormatDesc channels;
  if (desc == nullptr || !__hk::format_desc(desc->Format, desc->NumChannels, &channels))
    return __hk::result(hipErrorInvalidValue);
  return __hk::make_mipmapped(handle, &channels,
                              make_hipExtent(desc->Width, desc->Height, desc->Depth),
                              numMipmapLevels, desc->Flags, true);
}
inline hipError_t hipFreeMipmappedArray(hipMipmappedArray_t mipmappedArray) {
  __HK_API_CALL();
  return __hk::free_mipmapped(mipmappedArray);
}
inline hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t mipmappedArray) {
  __HK_API_CALL();
  return __hk::free_mipmapped(mipmappedArray);
}
inline hipError_t hipGetMipmappedArrayLevel(hipArray_t* levelArray,
                                            hipMipmappedArray_const_t mipmappedArray,
                                            unsigned int level) {
  __HK_API_CALL();
  return __hk::mipmapped_level(levelArray, mipmappedArray, level);
}
inline hipError_t hipMipmappedArrayGetLevel(hipArray_t* levelArray,
                                            hipMipmappedArray_t mipmappedArray,
                                            unsigned int level) {
  __HK_API_CALL();
  return __hk::mipmapped_level(levelArray, mipmappedArray, level);
}

#endif  // HIPKIT_CPU_PROGRAM_ARRAY_API_H
