// hipkit CPU platform: HIP arrays of whole programs and their copies (part of
// program.h).  An array's texels are packed rows in device memory (width
// elements a row, its rows, then its slices or layers); a copy to or from one
// is its rows' copies, each ordered on the stream as hipMemcpyAsync's are.
#ifndef HIPKIT_CPU_PROGRAM_ARRAY_H
#define HIPKIT_CPU_PROGRAM_ARRAY_H

// hipExtent and hipPos are memory_types.h's.
#include <mutex>
#include <unordered_set>

#include "program_array_hooks.h"

namespace __hk {

// The arrays the program made and has not freed: every handle is checked
// against them, so a stale or made-up one is hipErrorInvalidValue, not a fault.
struct live_arrays {
  std::mutex mutex;
  std::unordered_set<const hipArray*> set;
};
inline live_arrays& arrays() {
  static live_arrays* all = new live_arrays;  // never destroyed: used until exit
  return *all;
}
inline bool array_live(hipArray_const_t a) {
  std::lock_guard<std::mutex> lock(arrays().mutex);
  return a != nullptr && arrays().set.count(a) != 0;
}

// The channels and bits of a descriptor: 1, 2 or 4 channels of one size,
// 8, 16 or 32 bits (16 or 32 for floats); false for any other.
inline bool channel_format(const hipChannelFormatDesc& d, int* channels, int* bits) {
  const int n = d.w ? 4 : d.z ? 3 : d.y ? 2 : d.x ? 1 : 0;
  const int sizes[4] = {d.x, d.y, d.z, d.w};
  for (int c = 0; c < 4; ++c)
    if ((c < n) != (sizes[c] != 0) || (c < n && sizes[c] != d.x)) return false;
  if (n == 0 || n == 3) return false;
  if (d.f == hipChannelFormatKindFloat ? d.x != 16 && d.x != 32
      : d.f == hipChannelFormatKindSigned || d.f == hipChannelFormatKindUnsigned
          ? d.x != 8 && d.x != 16 && d.x != 32
          : true)
    return false;
  *channels = n;
  *bits = d.x;
  return true;
}

inline hipArray_Format array_format(hipChannelFormatKind kind, int bits) {
  if (kind == hipChannelFormatKindFloat) return bits == 16 ? HIP_AD_FORMAT_HALF : HIP_AD_FORMAT_FLOAT;
  const bool sign = kind == hipChannelFormatKindSigned;
  if (bits == 8) return sign ? HIP_AD_FORMAT_SIGNED_INT8 : HIP_AD_FORMAT_UNSIGNED_INT8;
  if (bits == 16) return sign ? HIP_AD_FORMAT_SIGNED_INT16 : HIP_AD_FORMAT_UNSIGNED_INT16;
  return sign ? HIP_AD_FORMAT_SIGNED_INT32 : HIP_AD_FORMAT_UNSIGNED_INT32;
}

// The descriptor of a driver format; false for a format or channel count HIP lacks.
inline bool format_desc(int format, unsigned channels, hipChannelFormatDesc* out) {
  int bits = 0;
  hipChannelFormatKind kind = hipChannelFormatKindUnsigned;
  switch (format) {
    case HIP_AD_FORMAT_UNSIGNED_INT8: bits = 8; break;
    case HIP_AD_FORMAT_UNSIGNED_INT16: bits = 16; break;
    case HIP_AD_FORMAT_UNSIGNED_INT32: bits = 32; break;
    case HIP_AD_FORMAT_SIGNED_INT8: bits = 8; kind = hipChannelFormatKindSigned; break;
    case HIP_AD_FORMAT_SIGNED_INT16: bits = 16; kind = hipChannelFormatKindSigned; break;
    case HIP_AD_FORMAT_SIGNED_INT32: bits = 32; kind = hipChannelFormatKindSigned; break;
    case HIP_AD_FORMAT_HALF: bits = 16; kind = hipChannelFormatKindFloat; break;
    case HIP_AD_FORMAT_FLOAT: bits = 32; kind = hipChannelFormatKindFloat; break;
    default: return false;
  }
  if (channels != 1 && channels != 2 && channels != 4) return false;
  *out = hipCreateChannelDesc(bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0,
                              channels > 3 ? bits : 0, kind);
  return true;
}

constexpr unsigned kArrayFlags =
    hipArrayLayered | hipArraySurfaceLoadStore | hipArrayCubemap | hipArrayTextureGather;

// An array of width x height x depth elements (0: the dimension is absent;
// with hipArrayLayered, depth is the number of layers).
inline hipError_t make_array(hipArray_t* out, const hipChannelFormatDesc* desc, size_t width,
                             size_t height, size_t depth, unsigned flags, bool driver) {
  int channels = 0, bits = 0;
  if (out == nullptr || desc == nullptr || !channel_format(*desc, &channels, &bits))
    return result(hipErrorInvalidValue);
  if (width == 0 || (depth > 0 && height == 0 && !(flags & hipArrayLayered)) ||
      (flags & ~kArrayFlags) || ((flags & hipArrayLayered) && depth == 0) ||
      width > kMaxArrayExtent || height > kMaxArrayExtent || depth > kMaxArrayDepth)
    return result(hipErrorInvalidValue);
  if (flags & hipArrayCubemap) return result(hipErrorNotSupported);
  const size_t element = size_t(channels) * size_t(bits / 8);
  const size_t bytes = width * element * (height ? height : 1) * (depth ? depth : 1);
  void* data = nullptr;
  if (int code = hkrt_malloc(current(), &data, bytes)) return result(code);
  hipArray* a = new hipArray();
  a->data = data;
  a->desc = *desc;
  a->type = flags;
  a->width = unsigned(width);
  a->height = unsigned(height);
  a->depth = unsigned(depth);
  a->Format = array_format(desc->f, bits);
  a->NumChannels = unsigned(channels);
  a->isDrv = driver;
  a->textureType = (flags & hipArrayLayered) ? (height ? hipTextureType2DLayered : hipTextureType1DLayered)
                   : depth ? hipTextureType3D : height ? hipTextureType2D : hipTextureType1D;
  {
    std::lock_guard<std::mutex> lock(arrays().mutex);
    arrays().set.insert(a);
  }
  *out = a;
  return hipSuccess;
}

inline hipError_t free_array(hipArray_t a) {
  {
    std::lock_guard<std::mutex> lock(arrays().mutex);
    if (a == nullptr || arrays().set.erase(a) == 0) return result(hipErrorInvalidValue);
  }
  if (int code = hkrt_free(a->data)) return result(code);
  delete a;
  return hipSuccess;
}

// Where an array's texels are, as samplers and surfaces see them.
inline texels array_texels(hipArray_const_t a) {
  texels t;
  t.channels = int(a->NumChannels);
  t.bits = a->desc.x;
  t.kind = a->desc.f;
  t.element = t.channels * t.bits / 8;
  t.data = static_cast<const char*>(a->data);
  t.width = int(a->width);
  t.height = a->height ? int(a->height) : 1;
  const bool layered = (a->type & hipArrayLayered) != 0;
  t.depth = !layered && a->depth ? int(a->depth) : 1;
  t.layers = layered ? int(a->depth) : 0;
  t.pitch = size_t(t.width) * t.element;
  t.slice = t.pitch * t.height;
  return t;
}

inline size_t array_bytes(hipArray_const_t a) {
  const texels t = array_texels(a);
  return t.slice * size_t(t.layers ? t.layers : t.depth);
}

// The bytes [offset, offset + count) of an array's texels.
inline hipError_t array_range(hipArray_const_t a, size_t offset, size_t count, char** at) {
  if (!array_live(a)) return result(hipErrorInvalidValue);
  const size_t bytes = array_bytes(a);
  if (offset > bytes || count > bytes - offset) return result(hipErrorInvalidValue);
  *at = static_cast<char*>(a->data) + offset;
  return hipSuccess;
}

// The rectangle of `width` bytes x `height` rows at byte x, row y; its row pitch.
inline hipError_t array_rect(hipArray_const_t a, size_t x, size_t y, size_t width, size_t height,
                             char** at, size_t* pitch) {
  if (!array_live(a)) return result(hipErrorInvalidValue);
  const texels t = array_texels(a);
  const size_t rows = size_t(t.height) * size_t(t.layers ? t.layers : t.depth);
  if (x > t.pitch || width > t.pitch - x || y > rows || height > rows - y)
    return result(hipErrorInvalidValue);
  *at = static_cast<char*>(a->data) + y * t.pitch + x;
  *pitch = t.pitch;
  return hipSuccess;
}

// `height` rows of `width` bytes between an array and other memory, each
// ordered on the stream as hipMemcpyAsync's (one copy where both are packed).
inline hipError_t array_rows(void* dst, size_t dpitch, const void* src, size_t spitch,
                             size_t width, size_t height, int kind, hipStream_t stream,
                             int async) {
  if (width > dpitch || width > spitch) return result(hipErrorInvalidPitchValue);
  if (dpitch == width && spitch == width) return copy(dst, src, width * height, kind, stream, async);
  for (size_t row = 0; row < height; ++row)
    if (hipError_t code = copy(static_cast<char*>(dst) + row * dpitch,
                               static_cast<const char*>(src) + row * spitch, width, kind, stream,
                               async))
      return code;
  return hipSuccess;
}

inline hipError_t to_array(hipArray_t dst, size_t x, size_t y, const void* src, size_t spitch,
                           size_t width, size_t height, int kind, hipStream_t stream, int async) {
  char* at = nullptr;
  size_t pitch = 0;
  if (hipError_t code = array_rect(dst, x, y, width, height, &at, &pitch)) return code;
  if (src == nullptr) return result(hipErrorInvalidValue);
  return array_rows(at, pitch, src, spitch, width, height, kind, stream, async);
}

inline hipError_t from_array(void* dst, size_t dpitch, hipArray_const_t src, size_t x, size_t y,
                             size_t width, size_t height, int kind, hipStream_t stream,
                             int async) {
  char* at = nullptr;
  size_t pitch = 0;
  if (hipError_t code = array_rect(src, x, y, width, height, &at, &pitch)) return code;
  if (dst == nullptr) return result(hipErrorInvalidValue);
  return array_rows(dst, dpitch, at, pitch, width, height, kind, stream, async);
}

// count bytes between an array at `offset` and linear memory.
inline hipError_t array_linear(hipArray_const_t a, size_t offset, void* other, size_t count,
                               bool into_array, int kind, hipStream_t stream, int async) {
  char* at = nullptr;
  if (hipError_t code = array_range(a, offset, count, &at)) return code;
  if (other == nullptr) return result(hipErrorInvalidValue);
  return into_array ? copy(at, other, count, kind, stream, async)
                    : copy(other, at, count, kind, stream, async);
}

// hipMemcpy3D's arrays (a hook for the pitched copies, to call when a side is
// an array): on an array's side the position and the extent's width are in
// elements, on a pitched pointer's the position's x is in bytes.  A template
// over hipMemcpy3DParms, so that it needs only its field names.
template <class Pos, class Pitched, class Extent>
inline hipError_t side_3d_array(hipArray_const_t a, const Pos& pos, const Pitched& ptr,
                                const Extent& e, size_t element, char** base, size_t* pitch,
                                size_t* slice) {
  if (a != nullptr) {
    if (!array_live(a)) return result(hipErrorInvalidValue);
    const texels t = array_texels(a);
    const size_t slices = size_t(t.layers ? t.layers : t.depth);
    if (pos.x + e.width > size_t(t.width) || pos.y + e.height > size_t(t.height) ||
        pos.z + e.depth > slices)
      return result(hipErrorInvalidValue);
    *pitch = t.pitch;
    *slice = t.slice;
    *base = static_cast<char*>(a->data) + pos.z * t.slice + pos.y * t.pitch + pos.x * element;
    return hipSuccess;
  }
  if (ptr.ptr == nullptr) return result(hipErrorInvalidValue);
  if (pos.x + e.width * element > ptr.pitch) return result(hipErrorInvalidPitchValue);
  if ((e.depth > 1 || pos.z > 0) && pos.y + e.height > ptr.ysize) return result(hipErrorInvalidValue);
  *pitch = ptr.pitch;
  *slice = ptr.pitch * ptr.ysize;
  *base = static_cast<char*>(ptr.ptr) + pos.z * *slice + pos.y * ptr.pitch + pos.x;
  return hipSuccess;
}

template <class Parms>
inline hipError_t copy_3d_array(const Parms* p, hipStream_t stream, int async) {
  if (p == nullptr || (p->srcArray == nullptr && p->dstArray == nullptr))
    return result(hipErrorInvalidValue);
  if ((p->srcArray && !array_live(p->srcArray)) || (p->dstArray && !array_live(p->dstArray)))
    return result(hipErrorInvalidValue);
  const size_t element = size_t(array_texels(p->srcArray ? p->srcArray : p->dstArray).element);
  if (p->srcArray && p->dstArray && size_t(array_texels(p->dstArray).element) != element)
    return result(hipErrorInvalidValue);
  char *src = nullptr, *dst = nullptr;
  size_t spitch = 0, sslice = 0, dpitch = 0, dslice = 0;
  if (hipError_t code = side_3d_array(p->srcArray, p->srcPos, p->srcPtr, p->extent, element, &src,
                                      &spitch, &sslice))
    return code;
  if (hipError_t code = side_3d_array(p->dstArray, p->dstPos, p->dstPtr, p->extent, element, &dst,
                                      &dpitch, &dslice))
    return code;
  const size_t width = p->extent.width * element;
  for (size_t z = 0; z < p->extent.depth; ++z)
    if (hipError_t code = array_rows(dst + z * dslice, dpitch, src + z * sslice, spitch, width,
                                  p->extent.height, p->kind, stream, async))
      return code;
  return hipSuccess;
}

// hipMemcpyParam2D's arrays (the same hook): an array side (hipMemoryTypeArray,
// 10, with srcArray / dstArray) starts at byte XInBytes of row Y.
constexpr int kMemoryTypeArray = 10;
constexpr int kMemoryTypeHost = 1;

template <class Parms>
inline hipError_t copy_param_2d_array(const Parms* p, hipStream_t stream, int async) {
  if (p == nullptr) return result(hipErrorInvalidValue);
  const bool src_array = int(p->srcMemoryType) == kMemoryTypeArray;
  const bool dst_array = int(p->dstMemoryType) == kMemoryTypeArray;
  if (!src_array && !dst_array) return result(hipErrorInvalidValue);
  char *src = nullptr, *dst = nullptr;
  size_t spitch = p->srcPitch, dpitch = p->dstPitch;
  if (src_array) {
    if (hipError_t code = array_rect(p->srcArray, p->srcXInBytes, p->srcY, p->WidthInBytes,
                                     p->Height, &src, &spitch))
      return code;
  } else {
    const void* from = int(p->srcMemoryType) == kMemoryTypeHost ? p->srcHost : p->srcDevice;
    if (from == nullptr) return result(hipErrorInvalidValue);
    src = const_cast<char*>(static_cast<const char*>(from)) + p->srcY * spitch + p->srcXInBytes;
  }
  if (dst_array) {
    if (hipError_t code = array_rect(p->dstArray, p->dstXInBytes, p->dstY, p->WidthInBytes,
                                     p->Height, &dst, &dpitch))
      return code;
  } else {
    void* to = int(p->dstMemoryType) == kMemoryTypeHost ? p->dstHost : p->dstDevice;
    if (to == nullptr) return result(hipErrorInvalidValue);
    dst = static_cast<char*>(to) + p->dstY * dpitch + p->dstXInBytes;
  }
  const bool src_host = int(p->srcMemoryType) == kMemoryTypeHost;
  const bool dst_host = int(p->dstMemoryType) == kMemoryTypeHost;
  const int kind = src_host ? (dst_host ? hipMemcpyHostToHost : hipMemcpyHostToDevice)
                            : (dst_host ? hipMemcpyDeviceToHost : hipMemcpyDeviceToDevice);
  return array_rows(dst, dpitch, src, spitch, p->WidthInBytes, p->Height, kind, stream, async);
}

}  // namespace __hk

#include "program_array_api.h"

#endif  // HIPKIT_CPU_PROGRAM_ARRAY_H
