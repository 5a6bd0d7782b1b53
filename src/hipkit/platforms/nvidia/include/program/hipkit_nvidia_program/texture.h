// hipkit NVIDIA platform, whole programs: what HIP's arrays and textures need
// beyond the runtime's names (names.h maps hipMallocArray, hipCreateTextureObject,
// tex2D's types ...): hipCreateChannelDesc as both of HIP's forms, and the driver
// API's forms (hipArrayCreate, hipTexObjectCreate, hipMemcpyAtoH, mipmapped
// arrays ...) over CUDA's driver, found as the module API's calls are (module.h).
// Their descriptors keep HIP's shapes (hipkit_portable/texture_driver_types.h:
// pointers where CUDA has integers) and are converted field by field; CUDA's
// arrays are the runtime's (cudaArray_t and CUarray name the same object).
#pragma once

#include "hipkit_portable/texture_driver_types.h"

// A function and a template, which one function-like macro cannot be.
#undef hipCreateChannelDesc
inline cudaChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return cudaCreateChannelDesc(x, y, z, w, f);
}
// hipCreateChannelDesc<T>() comes with the vector types (device.h).

namespace __hk_driver {

inline CUarray array(hipArray_const_t a) { return reinterpret_cast<CUarray>(const_cast<cudaArray_t>(a)); }
inline CUarray* array_out(hipArray_t* a) { return reinterpret_cast<CUarray*>(a); }

inline CUDA_ARRAY3D_DESCRIPTOR array3d(const HIP_ARRAY3D_DESCRIPTOR& d) {
  CUDA_ARRAY3D_DESCRIPTOR c = {};
  c.Width = d.Width;
  c.Height = d.Height;
  c.Depth = d.Depth;
  c.Format = static_cast<CUarray_format>(d.Format);
  c.NumChannels = d.NumChannels;
  c.Flags = d.Flags;
  return c;
}

inline CUDA_RESOURCE_DESC resource(const HIP_RESOURCE_DESC& d) {
  CUDA_RESOURCE_DESC c = {};
  c.resType = static_cast<CUresourcetype>(d.resType);
  c.flags = d.flags;
  switch (d.resType) {
    case HIP_RESOURCE_TYPE_ARRAY:
      c.res.array.hArray = array(d.res.array.hArray);
      break;
    case HIP_RESOURCE_TYPE_MIPMAPPED_ARRAY:
      c.res.mipmap.hMipmappedArray = reinterpret_cast<CUmipmappedArray>(d.res.mipmap.hMipmappedArray);
      break;
    case HIP_RESOURCE_TYPE_LINEAR:
      c.res.linear.devPtr = address(d.res.linear.devPtr);
      c.res.linear.format = static_cast<CUarray_format>(d.res.linear.format);
      c.res.linear.numChannels = d.res.linear.numChannels;
      c.res.linear.sizeInBytes = d.res.linear.sizeInBytes;
      break;
    case HIP_RESOURCE_TYPE_PITCH2D:
      c.res.pitch2D.devPtr = address(d.res.pitch2D.devPtr);
      c.res.pitch2D.format = static_cast<CUarray_format>(d.res.pitch2D.format);
      c.res.pitch2D.numChannels = d.res.pitch2D.numChannels;
      c.res.pitch2D.width = d.res.pitch2D.width;
      c.res.pitch2D.height = d.res.pitch2D.height;
      c.res.pitch2D.pitchInBytes = d.res.pitch2D.pitchInBytes;
      break;
  }
  return c;
}

inline HIP_RESOURCE_DESC hip_resource(const CUDA_RESOURCE_DESC& c) {
  HIP_RESOURCE_DESC d = {};
  d.resType = static_cast<HIPresourcetype>(c.resType);
  d.flags = c.flags;
  switch (c.resType) {
    case CU_RESOURCE_TYPE_ARRAY:
      d.res.array.hArray = reinterpret_cast<hipArray_t>(c.res.array.hArray);
      break;
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
      d.res.mipmap.hMipmappedArray = reinterpret_cast<hipMipmappedArray_t>(c.res.mipmap.hMipmappedArray);
      break;
    case CU_RESOURCE_TYPE_LINEAR:
      d.res.linear.devPtr = reinterpret_cast<void*>(c.res.linear.devPtr);
      d.res.linear.format = static_cast<hipArray_Format>(c.res.linear.format);
      d.res.linear.numChannels = c.res.linear.numChannels;
      d.res.linear.sizeInBytes = c.res.linear.sizeInBytes;
      break;
    case CU_RESOURCE_TYPE_PITCH2D:
      d.res.pitch2D.devPtr = reinterpret_cast<void*>(c.res.pitch2D.devPtr);
      d.res.pitch2D.format = static_cast<hipArray_Format>(c.res.pitch2D.format);
      d.res.pitch2D.numChannels = c.res.pitch2D.numChannels;
      d.res.pitch2D.width = c.res.pitch2D.width;
      d.res.pitch2D.height = c.res.pitch2D.height;
      d.res.pitch2D.pitchInBytes = c.res.pitch2D.pitchInBytes;
      break;
  }
  return d;
}

// The texture and view descriptors have CUDA's fields, in CUDA's order, with
// HIP's enumerations of the same numbers.
static_assert(sizeof(HIP_TEXTURE_DESC) == sizeof(CUDA_TEXTURE_DESC), "HIP_TEXTURE_DESC is CUDA's layout");
static_assert(sizeof(HIP_RESOURCE_VIEW_DESC) == sizeof(CUDA_RESOURCE_VIEW_DESC), "as CUDA's");
template <class To, class From>
inline To same_layout(const From& from) {
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

}  // namespace __hk_driver

inline hipError_t hipArrayCreate(hipArray_t* array, const HIP_ARRAY_DESCRIPTOR* desc) {
  if (desc == nullptr) return hipErrorInvalidValue;
  CUDA_ARRAY_DESCRIPTOR c = {};
  c.Width = desc->Width;
  c.Height = desc->Height;
  c.Format = static_cast<CUarray_format>(desc->Format);
  c.NumChannels = desc->NumChannels;
  return __hk_driver_call(cuArrayCreate)(__hk_driver::array_out(array), &c);
}
inline hipError_t hipArray3DCreate(hipArray_t* array, const HIP_ARRAY3D_DESCRIPTOR* desc) {
  if (desc == nullptr) return hipErrorInvalidValue;
  const CUDA_ARRAY3D_DESCRIPTOR c = __hk_driver::array3d(*desc);
  return __hk_driver_call(cuArray3DCreate)(__hk_driver::array_out(array), &c);
}
inline hipError_t hipArrayDestroy(hipArray_t array) {
  return __hk_driver_call(cuArrayDestroy)(__hk_driver::array(array));
}
inline hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR* desc, hipArray_t array) {
  if (desc == nullptr) return hipErrorInvalidValue;
  CUDA_ARRAY_DESCRIPTOR c = {};
  hipError_t error = __hk_driver_call(cuArrayGetDescriptor)(&c, __hk_driver::array(array));
  desc->Width = c.Width;
  desc->Height = c.Height;
  desc->Format = static_cast<hipArray_Format>(c.Format);
  desc->NumChannels = c.NumChannels;
  return error;
}
inline hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR* desc, hipArray_t array) {
  if (desc == nullptr) return hipErrorInvalidValue;
  CUDA_ARRAY3D_DESCRIPTOR c = {};
  hipError_t error = __hk_driver_call(cuArray3DGetDescriptor)(&c, __hk_driver::array(array));
  desc->Width = c.Width;
  desc->Height = c.Height;
  desc->Depth = c.Depth;
  desc->Format = static_cast<hipArray_Format>(c.Format);
  desc->NumChannels = c.NumChannels;
  desc->Flags = c.Flags;
  return error;
}

inline hipError_t hipMemcpyAtoH(void* dst, hipArray_t src, size_t srcOffset, size_t count) {
  return __hk_driver_call(cuMemcpyAtoH)(dst, __hk_driver::array(src), srcOffset, count);
}
inline hipError_t hipMemcpyHtoA(hipArray_t dst, size_t dstOffset, const void* src, size_t count) {
  return __hk_driver_call(cuMemcpyHtoA)(__hk_driver::array(dst), dstOffset, src, count);
}
inline hipError_t hipMemcpyAtoHAsync(void* dst, hipArray_t src, size_t srcOffset, size_t count, cudaStream_t stream) {
  return __hk_driver_call(cuMemcpyAtoHAsync)(dst, __hk_driver::array(src), srcOffset, count,
                                             reinterpret_cast<CUstream>(stream));
}
inline hipError_t hipMemcpyHtoAAsync(hipArray_t dst, size_t dstOffset, const void* src, size_t count,
                                     cudaStream_t stream) {
  return __hk_driver_call(cuMemcpyHtoAAsync)(__hk_driver::array(dst), dstOffset, src, count,
                                             reinterpret_cast<CUstream>(stream));
}
inline hipError_t hipMemcpyAtoD(hipDeviceptr_t dst, hipArray_t src, size_t srcOffset, size_t count) {
  return __hk_driver_call(cuMemcpyAtoD)(__hk_driver::address(dst), __hk_driver::array(src), srcOffset, count);
}
inline hipError_t hipMemcpyDtoA(hipArray_t dst, size_t dstOffset, hipDeviceptr_t src, size_t count) {
  return __hk_driver_call(cuMemcpyDtoA)(__hk_driver::array(dst), dstOffset, __hk_driver::address(src), count);
}
inline hipError_t hipMemcpyAtoA(hipArray_t dst, size_t dstOffset, hipArray_t src, size_t srcOffset, size_t count) {
  return __hk_driver_call(cuMemcpyAtoA)(__hk_driver::array(dst), dstOffset, __hk_driver::array(src), srcOffset,
                                        count);
}

inline hipError_t hipTexObjectCreate(hipTextureObject_t* texture, const HIP_RESOURCE_DESC* res,
                                     const HIP_TEXTURE_DESC* tex, const HIP_RESOURCE_VIEW_DESC* view) {
  if (texture == nullptr || res == nullptr || tex == nullptr) return hipErrorInvalidValue;
  const CUDA_RESOURCE_DESC r = __hk_driver::resource(*res);
  const CUDA_TEXTURE_DESC t = __hk_driver::same_layout<CUDA_TEXTURE_DESC>(*tex);
  CUDA_RESOURCE_VIEW_DESC v = {};
  if (view != nullptr) v = __hk_driver::same_layout<CUDA_RESOURCE_VIEW_DESC>(*view);
  return __hk_driver_call(cuTexObjectCreate)(texture, &r, &t, view ? &v : nullptr);
}
inline hipError_t hipTexObjectDestroy(hipTextureObject_t texture) {
  return __hk_driver_call(cuTexObjectDestroy)(texture);
}
inline hipError_t hipTexObjectGetResourceDesc(HIP_RESOURCE_DESC* res, hipTextureObject_t texture) {
  if (res == nullptr) return hipErrorInvalidValue;
  CUDA_RESOURCE_DESC r = {};
  hipError_t error = __hk_driver_call(cuTexObjectGetResourceDesc)(&r, texture);
  *res = __hk_driver::hip_resource(r);
  return error;
}
inline hipError_t hipTexObjectGetTextureDesc(HIP_TEXTURE_DESC* tex, hipTextureObject_t texture) {
  if (tex == nullptr) return hipErrorInvalidValue;
  CUDA_TEXTURE_DESC t = {};
  hipError_t error = __hk_driver_call(cuTexObjectGetTextureDesc)(&t, texture);
  *tex = __hk_driver::same_layout<HIP_TEXTURE_DESC>(t);
  return error;
}
inline hipError_t hipTexObjectGetResourceViewDesc(HIP_RESOURCE_VIEW_DESC* view, hipTextureObject_t texture) {
  if (view == nullptr) return hipErrorInvalidValue;
  CUDA_RESOURCE_VIEW_DESC v = {};
  hipError_t error = __hk_driver_call(cuTexObjectGetResourceViewDesc)(&v, texture);
  *view = __hk_driver::same_layout<HIP_RESOURCE_VIEW_DESC>(v);
  return error;
}

inline hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t* mipmapped, HIP_ARRAY3D_DESCRIPTOR* desc,
                                          unsigned int levels) {
  if (desc == nullptr) return hipErrorInvalidValue;
  const CUDA_ARRAY3D_DESCRIPTOR c = __hk_driver::array3d(*desc);
  return __hk_driver_call(cuMipmappedArrayCreate)(reinterpret_cast<CUmipmappedArray*>(mipmapped), &c, levels);
}
inline hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t mipmapped) {
  return __hk_driver_call(cuMipmappedArrayDestroy)(reinterpret_cast<CUmipmappedArray>(mipmapped));
}
inline hipError_t hipMipmappedArrayGetLevel(hipArray_t* level_array, hipMipmappedArray_t mipmapped,
                                            unsigned int level) {
  return __hk_driver_call(cuMipmappedArrayGetLevel)(__hk_driver::array_out(level_array),
                                                    reinterpret_cast<CUmipmappedArray>(mipmapped), level);
}
