// hipkit NVIDIA platform: HIP's vector types, char1 ... double4, and dim3
// (part of device.h).
//
// CUDA's built-in vector types are plain aggregates; HIP's (and the CPU
// platform's) have constructors and element-wise operators:
// `float4(s)` broadcasts, `float2(a, b)` converts each element, `a + b` and
// `a * s` work element-wise.  These are new types in namespace __hk with
// CUDA's size and alignment, and the names float4, make_float4, dim3, ...
// are macros for them (NVRTC has declared CUDA's own already, so the names
// cannot be declared again): float4 is __hk::vec<float, 4>.
//
// Like the CPU's: a trivial default constructor (so `__shared__ float4 s[64];`
// runs no code), trivially copyable; 2..N-1 arguments zero-fill the rest.
#pragma once

// The operators are found by argument-dependent lookup, in __hk with the types.
#define __HK_VEC_NAMESPACE_BEGIN namespace __hk {
#define __HK_VEC_NAMESPACE_END }
#include "hipkit_portable/vector_ops.h"
#undef __HK_VEC_NAMESPACE_BEGIN
#undef __HK_VEC_NAMESPACE_END

namespace __hk {

// CUDA's own types, by other names: the macros at the end of this file hide
// theirs.  What converts to CUDA's uint3: threadIdx, blockIdx, blockDim, gridDim.
using cuda_uint2 = ::uint2;
using cuda_uint4 = ::uint4;
// (A class: from C++20 on, an int converts to an aggregate too.)
template <class I>
using enable_if_index = typename enable_if<
    __is_class(I), decltype(static_cast<::uint3>(*static_cast<const I*>(nullptr)))>::type;

// The vector of N elements of type T, with CUDA's alignment: rank 1 and 3 as
// the element, rank 2 twice its size, rank 4 four times its size but at most
// 16.  (One template, not 48 structs: NVRTC warns that CUDA's double4 & co.
// are deprecated wherever a class of that name is used, in any namespace.)
template <class T, int N>
struct vec;

#define __HK_VEC_BROADCAST(...)              \
  vec() = default;                           \
  template <class U, enable_if_arith<U> = 0> \
  __host__ __device__ constexpr vec(U s) : __VA_ARGS__ {}

template <class T>
struct alignas(sizeof(T)) vec<T, 1> {
  T x;
  __HK_VEC_BROADCAST(x(static_cast<T>(s)))
};
template <class T>
struct alignas(2 * sizeof(T)) vec<T, 2> {
  T x, y;
  __HK_VEC_BROADCAST(x(static_cast<T>(s)), y(static_cast<T>(s)))
  template <class U0, class U1>
  __host__ __device__ constexpr vec(U0 a, U1 b) : x(static_cast<T>(a)), y(static_cast<T>(b)) {}
};
template <class T>
struct alignas(sizeof(T)) vec<T, 3> {
  T x, y, z;
  __HK_VEC_BROADCAST(x(static_cast<T>(s)), y(static_cast<T>(s)), z(static_cast<T>(s)))
  template <class U0, class U1, class U2 = T>
  __host__ __device__ constexpr vec(U0 a, U1 b, U2 c = U2())
      : x(static_cast<T>(a)), y(static_cast<T>(b)), z(static_cast<T>(c)) {}
  // uint3 is what threadIdx & co. convert to: `uint3 t = threadIdx;`.
  template <class I, class = enable_if_index<I>, class U = T,
            class = typename enable_if<is_same<U, unsigned int>::value>::type>
  __device__ constexpr vec(const I& v)
      : x(static_cast<::uint3>(v).x), y(static_cast<::uint3>(v).y), z(static_cast<::uint3>(v).z) {}
};
template <class T>
struct alignas(4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16) vec<T, 4> {
  T x, y, z, w;
  __HK_VEC_BROADCAST(x(static_cast<T>(s)), y(static_cast<T>(s)), z(static_cast<T>(s)),
                     w(static_cast<T>(s)))
  template <class U0, class U1, class U2 = T, class U3 = T>
  __host__ __device__ constexpr vec(U0 a, U1 b, U2 c = U2(), U3 d = U3())
      : x(static_cast<T>(a)), y(static_cast<T>(b)), z(static_cast<T>(c)), w(static_cast<T>(d)) {}
};
#undef __HK_VEC_BROADCAST

template <class T, int N>
struct vec_info<vec<T, N>> {
  using elem = T;
  enum { rank = N };
};

// base1 ... base4 over element type T, and their make_ functions (named
// make_vec_float4 & co. here: NVRTC also warns on a function called
// make_double4).
#define __HK_VEC_TYPES(base, T)                                                            \
  typedef vec<T, 1> base##1;                                                               \
  typedef vec<T, 2> base##2;                                                               \
  typedef vec<T, 3> base##3;                                                               \
  typedef vec<T, 4> base##4;                                                               \
  __HK_FN constexpr base##1 make_vec_##base##1(T x) { return base##1(x); }                 \
  __HK_FN constexpr base##2 make_vec_##base##2(T x, T y) { return base##2(x, y); }         \
  __HK_FN constexpr base##3 make_vec_##base##3(T x, T y, T z) { return base##3(x, y, z); } \
  __HK_FN constexpr base##4 make_vec_##base##4(T x, T y, T z, T w) {                       \
    return base##4(x, y, z, w);                                                            \
  }

// CUDA's char vectors hold signed char.
__HK_VEC_TYPES(char, signed char)
__HK_VEC_TYPES(uchar, unsigned char)
__HK_VEC_TYPES(short, short)
__HK_VEC_TYPES(ushort, unsigned short)
__HK_VEC_TYPES(int, int)
__HK_VEC_TYPES(uint, unsigned int)
__HK_VEC_TYPES(long, long)
__HK_VEC_TYPES(ulong, unsigned long)
__HK_VEC_TYPES(longlong, long long)
__HK_VEC_TYPES(ulonglong, unsigned long long)
__HK_VEC_TYPES(float, float)
__HK_VEC_TYPES(double, double)
#undef __HK_VEC_TYPES

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(const uint3& v) : x(v.x), y(v.y), z(v.z) {}
  template <class I, class = enable_if_index<I>>
  __device__ constexpr dim3(const I& v) : dim3(uint3(v)) {}
  __host__ __device__ constexpr operator uint3() const { return uint3(x, y, z); }
};

}  // namespace __hk

#define char1 __hk::char1
#define make_char1 __hk::make_vec_char1
#define char2 __hk::char2
#define make_char2 __hk::make_vec_char2
#define char3 __hk::char3
#define make_char3 __hk::make_vec_char3
#define char4 __hk::char4
#define make_char4 __hk::make_vec_char4
#define uchar1 __hk::uchar1
#define make_uchar1 __hk::make_vec_uchar1
#define uchar2 __hk::uchar2
#define make_uchar2 __hk::make_vec_uchar2
#define uchar3 __hk::uchar3
#define make_uchar3 __hk::make_vec_uchar3
#define uchar4 __hk::uchar4
#define make_uchar4 __hk::make_vec_uchar4
#define short1 __hk::short1
#define make_short1 __hk::make_vec_short1
#define short2 __hk::short2
#define make_short2 __hk::make_vec_short2
#define short3 __hk::short3
#define make_short3 __hk::make_vec_short3
#define short4 __hk::short4
#define make_short4 __hk::make_vec_short4
#define ushort1 __hk::ushort1
#define make_ushort1 __hk::make_vec_ushort1
#define ushort2 __hk::ushort2
#define make_ushort2 __hk::make_vec_ushort2
#define ushort3 __hk::ushort3
#define make_ushort3 __hk::make_vec_ushort3
#define ushort4 __hk::ushort4
#define make_ushort4 __hk::make_vec_ushort4
#define int1 __hk::int1
#define make_int1 __hk::make_vec_int1
#define int2 __hk::int2
#define make_int2 __hk::make_vec_int2
#define int3 __hk::int3
#define make_int3 __hk::make_vec_int3
#define int4 __hk::int4
#define make_int4 __hk::make_vec_int4
#define uint1 __hk::uint1
#define make_uint1 __hk::make_vec_uint1
#define uint2 __hk::uint2
#define make_uint2 __hk::make_vec_uint2
#define uint3 __hk::uint3
#define make_uint3 __hk::make_vec_uint3
#define uint4 __hk::uint4
#define make_uint4 __hk::make_vec_uint4
#define long1 __hk::long1
#define make_long1 __hk::make_vec_long1
#define long2 __hk::long2
#define make_long2 __hk::make_vec_long2
#define long3 __hk::long3
#define make_long3 __hk::make_vec_long3
#define long4 __hk::long4
#define make_long4 __hk::make_vec_long4
#define ulong1 __hk::ulong1
#define make_ulong1 __hk::make_vec_ulong1
#define ulong2 __hk::ulong2
#define make_ulong2 __hk::make_vec_ulong2
#define ulong3 __hk::ulong3
#define make_ulong3 __hk::make_vec_ulong3
#define ulong4 __hk::ulong4
#define make_ulong4 __hk::make_vec_ulong4
#define longlong1 __hk::longlong1
#define make_longlong1 __hk::make_vec_longlong1
#define longlong2 __hk::longlong2
#define make_longlong2 __hk::make_vec_longlong2
#define longlong3 __hk::longlong3
#define make_longlong3 __hk::make_vec_longlong3
#define longlong4 __hk::longlong4
#define make_longlong4 __hk::make_vec_longlong4
#define ulonglong1 __hk::ulonglong1
#define make_ulonglong1 __hk::make_vec_ulonglong1
#define ulonglong2 __hk::ulonglong2
#define make_ulonglong2 __hk::make_vec_ulonglong2
#define ulonglong3 __hk::ulonglong3
#define make_ulonglong3 __hk::make_vec_ulonglong3
#define ulonglong4 __hk::ulonglong4
#define make_ulonglong4 __hk::make_vec_ulonglong4
#define float1 __hk::float1
#define make_float1 __hk::make_vec_float1
#define float2 __hk::float2
#define make_float2 __hk::make_vec_float2
#define float3 __hk::float3
#define make_float3 __hk::make_vec_float3
#define float4 __hk::float4
#define make_float4 __hk::make_vec_float4
#define double1 __hk::double1
#define make_double1 __hk::make_vec_double1
#define double2 __hk::double2
#define make_double2 __hk::make_vec_double2
#define double3 __hk::double3
#define make_double3 __hk::make_vec_double3
#define double4 __hk::double4
#define make_double4 __hk::make_vec_double4
#define dim3 __hk::dim3
