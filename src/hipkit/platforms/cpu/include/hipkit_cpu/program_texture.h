// hipkit CPU platform: texture and surface objects of whole programs (part of
// program.h).  An object is an allocation of the runtime's holding the texels' place and
// format, the sampler state and the descriptors it was made from; kernels
// read it directly (device_texture.h, device_surface.h).  The checks are
// ROCm's: a missing descriptor, a missing or misaligned pointer, zero or
// oversized extents, a pitch off hipDeviceProp_t::texturePitchAlignment, a
// format HIP lacks: hipErrorInvalidValue; wrap and mirror without normalized
// coordinates clamp, as HIP and CUDA do.
#ifndef HIPKIT_CPU_PROGRAM_TEXTURE_H
#define HIPKIT_CPU_PROGRAM_TEXTURE_H

namespace __hk {

// The texels of linear memory: a descriptor's format over `width` x `height`.
inline hipError_t linear_texels(const void* ptr, const hipChannelFormatDesc& desc, size_t width,
                                size_t height, size_t pitch, texels* out) {
  int channels = 0, bits = 0;
  if (ptr == nullptr || reinterpret_cast<uintptr_t>(ptr) % kTextureAlignment != 0 ||
      !channel_format(desc, &channels, &bits))
    return result(hipErrorInvalidValue);
  out->data = static_cast<const char*>(ptr);
  out->channels = channels;
  out->bits = bits;
  out->kind = desc.f;
  out->element = channels * bits / 8;
  out->width = int(width);
  out->height = int(height);
  out->depth = 1;
  out->layers = 0;
  out->pitch = pitch ? pitch : width * size_t(out->element);
  out->slice = out->pitch * height;
  return hipSuccess;
}

inline hipError_t resource_texels(const hipResourceDesc& res, texels* out) {
  switch (res.resType) {
    case hipResourceTypeArray:
      if (!array_live(res.res.array.array)) return result(hipErrorInvalidValue);
      *out = array_texels(res.res.array.array);
      return hipSuccess;
    case hipResourceTypeLinear: {
      int channels = 0, bits = 0;
      if (!channel_format(res.res.linear.desc, &channels, &bits))
        return result(hipErrorInvalidValue);
      const size_t elements = res.res.linear.sizeInBytes / size_t(channels * bits / 8);
      if (elements == 0 || elements >= kMaxTexture1DLinear) return result(hipErrorInvalidValue);
      return linear_texels(res.res.linear.devPtr, res.res.linear.desc, elements, 1, 0, out);
    }
    case hipResourceTypePitch2D: {
      const auto& p = res.res.pitch2D;
      if (p.width == 0 || p.height == 0 || p.width >= kMaxTexture2DLinear ||
          p.height >= kMaxTexture2DLinear || p.pitchInBytes % kTexturePitchAlignment != 0)
        return result(hipErrorInvalidValue);
      if (hipError_t code = linear_texels(p.devPtr, p.desc, p.width, p.height, p.pitchInBytes, out))
        return code;
      return size_t(out->element) * p.width > p.pitchInBytes ? result(hipErrorInvalidValue)
                                                              : hipSuccess;
    }
    case hipResourceTypeMipmappedArray:
      return result(hipErrorNotSupported);  // as ROCm: textures over mipmaps are not sampled
    default:
      return result(hipErrorInvalidValue);
  }
}

// An object in memory of the runtime's, as ROCm's: destroying it (hkrt_host_free)
// first lets the queued work that may read it finish.
template <class T>
inline hipError_t new_object(const T& value, T** out) {
  void* p = nullptr;
  if (int code = hkrt_host_malloc(current(), &p, sizeof(T))) return result(code);
  memcpy(p, &value, sizeof(T));
  *out = static_cast<T*>(p);
  return hipSuccess;
}
inline hipError_t delete_object(void* object) {
  return object == nullptr ? hipSuccess : result(hkrt_host_free(object));
}

inline hipError_t create_texture(hipTextureObject_t* out, const hipResourceDesc* res,
                                 const hipTextureDesc* tex, const hipResourceViewDesc* view) {
  if (out == nullptr || res == nullptr || tex == nullptr) return result(hipErrorInvalidValue);
  if (view != nullptr && res->resType != hipResourceTypeArray &&
      res->resType != hipResourceTypeMipmappedArray)
    return result(hipErrorInvalidValue);
  if (res->resType == hipResourceTypeMipmappedArray &&
      (res->res.mipmap.mipmap == nullptr || !tex->normalizedCoords))
    return result(hipErrorInvalidValue);
  for (int d = 0; d < 3; ++d)
    if (unsigned(tex->addressMode[d]) > hipAddressModeBorder) return result(hipErrorInvalidValue);
  if (unsigned(tex->filterMode) > hipFilterModeLinear ||
      unsigned(tex->readMode) > hipReadModeNormalizedFloat)
    return result(hipErrorInvalidValue);
  __hip_texture t = {};
  if (hipError_t code = resource_texels(*res, &t.texels)) return code;
  if (view != nullptr && view->format != hipResViewFormatNone) return result(hipErrorNotSupported);
  const bool integers = t.texels.kind != hipChannelFormatKindFloat;
  t.read_float = integers && t.texels.bits < 32 && tex->readMode == hipReadModeNormalizedFloat;
  // Filtering is for what reads as floats.
  t.linear = tex->filterMode == hipFilterModeLinear && res->resType != hipResourceTypeLinear;
  if (t.linear && integers && !t.read_float) return result(hipErrorInvalidValue);
  t.normalized = tex->normalizedCoords != 0;
  t.srgb = tex->sRGB && t.read_float && t.texels.bits == 8 &&
           t.texels.kind == hipChannelFormatKindUnsigned;
  for (int d = 0; d < 3; ++d) {
    const int mode = tex->addressMode[d];
    t.address[d] = !t.normalized && (mode == hipAddressModeWrap || mode == hipAddressModeMirror)
                       ? int(hipAddressModeClamp)
                       : mode;
  }
  for (int c = 0; c < 4; ++c) t.border[c] = tex->borderColor[c];
  t.resource = *res;
  t.texture = *tex;
  if (view != nullptr) t.view = *view;
  return new_object(t, out);
}

// The driver API's descriptors as the runtime's.
inline hipError_t runtime_resource(const HIP_RESOURCE_DESC& in, hipResourceDesc* out) {
  *out = hipResourceDesc{};
  if (in.flags != 0) return result(hipErrorInvalidValue);
  out->resType = hipResourceType(in.resType);
  switch (in.resType) {
    case HIP_RESOURCE_TYPE_ARRAY:
      out->res.array.array = in.res.array.hArray;
      return hipSuccess;
    case HIP_RESOURCE_TYPE_MIPMAPPED_ARRAY:
      out->res.mipmap.mipmap = in.res.mipmap.hMipmappedArray;
      return hipSuccess;
    case HIP_RESOURCE_TYPE_LINEAR:
      out->res.linear.devPtr = in.res.linear.devPtr;
      out->res.linear.sizeInBytes = in.res.linear.sizeInBytes;
      return format_desc(in.res.linear.format, in.res.linear.numChannels, &out->res.linear.desc)
                 ? hipSuccess
                 : result(hipErrorInvalidValue);
    case HIP_RESOURCE_TYPE_PITCH2D:
      out->res.pitch2D.devPtr = in.res.pitch2D.devPtr;
      out->res.pitch2D.width = in.res.pitch2D.width;
      out->res.pitch2D.height = in.res.pitch2D.height;
      out->res.pitch2D.pitchInBytes = in.res.pitch2D.pitchInBytes;
      return format_desc(in.res.pitch2D.format, in.res.pitch2D.numChannels,
                         &out->res.pitch2D.desc)
                 ? hipSuccess
                 : result(hipErrorInvalidValue);
    default:
      return result(hipErrorInvalidValue);
  }
}

inline hipTextureDesc runtime_texture(const HIP_TEXTURE_DESC& in) {
  hipTextureDesc out = {};
  for (int d = 0; d < 3; ++d) out.addressMode[d] = hipTextureAddressMode(in.addressMode[d]);
  out.filterMode = hipTextureFilterMode(in.filterMode);
  // The driver API reads integers as normalized floats unless told otherwise.
  out.readMode = (in.flags & HIP_TRSF_READ_AS_INTEGER) ? hipReadModeElementType
                                                       : hipReadModeNormalizedFloat;
  out.normalizedCoords = (in.flags & HIP_TRSF_NORMALIZED_COORDINATES) != 0;
  out.sRGB = (in.flags & HIP_TRSF_SRGB) != 0;
  for (int c = 0; c < 4; ++c) out.borderColor[c] = in.borderColor[c];
  out.maxAnisotropy = in.maxAnisotropy;
  out.mipmapFilterMode = hipTextureFilterMode(in.mipmapFilterMode);
  out.mipmapLevelBias = in.mipmapLevelBias;
  out.minMipmapLevelClamp = in.minMipmapLevelClamp;
  out.maxMipmapLevelClamp = in.maxMipmapLevelClamp;
  return out;
}

// A format and channel count from a runtime channel descriptor.
inline void driver_format(const hipChannelFormatDesc& desc, hipArray_Format* format,
                          unsigned* channels) {
  int n = 0, bits = 0;
  channel_format(desc, &n, &bits);
  *format = array_format(desc.f, bits);
  *channels = unsigned(n);
}

}  // namespace __hk

#include "program_texture_api.h"

#endif  // HIPKIT_CPU_PROGRAM_TEXTURE_H
