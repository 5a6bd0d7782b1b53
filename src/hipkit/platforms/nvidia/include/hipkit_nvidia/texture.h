// hipkit NVIDIA platform: texture fetches and surface reads and writes in
// kernels (part of device.h), NVRTC's and nvcc's: HIP's names for CUDA's, and
// the forms for HIP's vector types.  A kernel's float4 & co. are hipkit's
// (vector_types.h) where CUDA's texture and surface functions take CUDA's own:
// these forms, found by argument-dependent lookup in namespace __hk (as CUDA's
// tex2D<T> calls tex2D(&ret, ...)), fetch CUDA's type of the same layout and
// take its bits.
#pragma once

#ifdef __CUDACC_RTC__  // kernels from Python (programs have names.h)
typedef cudaTextureObject_t hipTextureObject_t;
typedef cudaSurfaceObject_t hipSurfaceObject_t;
#define hipSurfaceBoundaryMode cudaSurfaceBoundaryMode
#define hipBoundaryModeZero cudaBoundaryModeZero
#define hipBoundaryModeTrap cudaBoundaryModeTrap
#define hipBoundaryModeClamp cudaBoundaryModeClamp
#endif

namespace __hk_tex {
template <class T>
struct native {};
}  // namespace __hk_tex

// CUDA's vector types, named while hipkit's names for its own are away (NVRTC
// has no push_macro: they are defined again after, as vector_types.h does).
#undef char1
#undef char2
#undef char4
#undef uchar1
#undef uchar2
#undef uchar4
#undef short1
#undef short2
#undef short4
#undef ushort1
#undef ushort2
#undef ushort4
#undef int1
#undef int2
#undef int4
#undef uint1
#undef uint2
#undef uint4
#undef float1
#undef float2
#undef float4
namespace __hk_tex {
template <>
struct native<__hk::char1> {
  using type = ::char1;
};
template <>
struct native<__hk::char2> {
  using type = ::char2;
};
template <>
struct native<__hk::char4> {
  using type = ::char4;
};
template <>
struct native<__hk::uchar1> {
  using type = ::uchar1;
};
template <>
struct native<__hk::uchar2> {
  using type = ::uchar2;
};
template <>
struct native<__hk::uchar4> {
  using type = ::uchar4;
};
template <>
struct native<__hk::short1> {
  using type = ::short1;
};
template <>
struct native<__hk::short2> {
  using type = ::short2;
};
template <>
struct native<__hk::short4> {
  using type = ::short4;
};
template <>
struct native<__hk::ushort1> {
  using type = ::ushort1;
};
template <>
struct native<__hk::ushort2> {
  using type = ::ushort2;
};
template <>
struct native<__hk::ushort4> {
  using type = ::ushort4;
};
template <>
struct native<__hk::int1> {
  using type = ::int1;
};
template <>
struct native<__hk::int2> {
  using type = ::int2;
};
template <>
struct native<__hk::int4> {
  using type = ::int4;
};
template <>
struct native<__hk::uint1> {
  using type = ::uint1;
};
template <>
struct native<__hk::uint2> {
  using type = ::uint2;
};
template <>
struct native<__hk::uint4> {
  using type = ::uint4;
};
template <>
struct native<__hk::float1> {
  using type = ::float1;
};
template <>
struct native<__hk::float2> {
  using type = ::float2;
};
template <>
struct native<__hk::float4> {
  using type = ::float4;
};
}  // namespace __hk_tex
#define char1 __hk::char1
#define char2 __hk::char2
#define char4 __hk::char4
#define uchar1 __hk::uchar1
#define uchar2 __hk::uchar2
#define uchar4 __hk::uchar4
#define short1 __hk::short1
#define short2 __hk::short2
#define short4 __hk::short4
#define ushort1 __hk::ushort1
#define ushort2 __hk::ushort2
#define ushort4 __hk::ushort4
#define int1 __hk::int1
#define int2 __hk::int2
#define int4 __hk::int4
#define uint1 __hk::uint1
#define uint2 __hk::uint2
#define uint4 __hk::uint4
#define float1 __hk::float1
#define float2 __hk::float2
#define float4 __hk::float4

namespace __hk {

template <class T>
using __tex_native = typename ::__hk_tex::native<T>::type;

#define __HK_TEX_FORM(name, params, args)                                                           \
  template <class T, class N = __tex_native<T>>                                                     \
  static __device__ void name(T* ptr, cudaTextureObject_t t params) {                               \
    N got;                                                                                          \
    ::name(&got, t args);                                                                           \
    *ptr = *reinterpret_cast<const T*>(&got);                                                       \
  }
#define __HK_COMMA ,
__HK_TEX_FORM(tex1Dfetch, __HK_COMMA int x, __HK_COMMA x)
__HK_TEX_FORM(tex1D, __HK_COMMA float x, __HK_COMMA x)
__HK_TEX_FORM(tex2D, __HK_COMMA float x __HK_COMMA float y, __HK_COMMA x __HK_COMMA y)
__HK_TEX_FORM(tex3D, __HK_COMMA float x __HK_COMMA float y __HK_COMMA float z,
              __HK_COMMA x __HK_COMMA y __HK_COMMA z)
__HK_TEX_FORM(tex1DLayered, __HK_COMMA float x __HK_COMMA int layer, __HK_COMMA x __HK_COMMA layer)
__HK_TEX_FORM(tex2DLayered, __HK_COMMA float x __HK_COMMA float y __HK_COMMA int layer,
              __HK_COMMA x __HK_COMMA y __HK_COMMA layer)
__HK_TEX_FORM(tex1DLod, __HK_COMMA float x __HK_COMMA float level, __HK_COMMA x __HK_COMMA level)
__HK_TEX_FORM(tex2DLod, __HK_COMMA float x __HK_COMMA float y __HK_COMMA float level,
              __HK_COMMA x __HK_COMMA y __HK_COMMA level)
__HK_TEX_FORM(tex3DLod, __HK_COMMA float x __HK_COMMA float y __HK_COMMA float z __HK_COMMA float level,
              __HK_COMMA x __HK_COMMA y __HK_COMMA z __HK_COMMA level)
__HK_TEX_FORM(tex2Dgather, __HK_COMMA float x __HK_COMMA float y __HK_COMMA int comp,
              __HK_COMMA x __HK_COMMA y __HK_COMMA comp)
#undef __HK_TEX_FORM

#define __HK_SURF_FORMS(name, params, args)                                                         \
  template <class T, class N = __tex_native<T>>                                                     \
  static __device__ void name##read(T* ptr, cudaSurfaceObject_t s params,                           \
                                    cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {          \
    N got;                                                                                          \
    ::name##read(&got, s args, mode);                                                               \
    *ptr = *reinterpret_cast<const T*>(&got);                                                       \
  }                                                                                                 \
  template <class T, class N = __tex_native<T>>                                                     \
  static __device__ void name##write(T value, cudaSurfaceObject_t s params,                         \
                                     cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {         \
    N put;                                                                                          \
    put = *reinterpret_cast<const N*>(&value);                                                      \
    ::name##write(put, s args, mode);                                                               \
  }
__HK_SURF_FORMS(surf1D, __HK_COMMA int x, __HK_COMMA x)
__HK_SURF_FORMS(surf2D, __HK_COMMA int x __HK_COMMA int y, __HK_COMMA x __HK_COMMA y)
__HK_SURF_FORMS(surf3D, __HK_COMMA int x __HK_COMMA int y __HK_COMMA int z,
                __HK_COMMA x __HK_COMMA y __HK_COMMA z)
__HK_SURF_FORMS(surf1DLayered, __HK_COMMA int x __HK_COMMA int layer, __HK_COMMA x __HK_COMMA layer)
__HK_SURF_FORMS(surf2DLayered, __HK_COMMA int x __HK_COMMA int y __HK_COMMA int layer,
                __HK_COMMA x __HK_COMMA y __HK_COMMA layer)
#undef __HK_SURF_FORMS
#undef __HK_COMMA

}  // namespace __hk
