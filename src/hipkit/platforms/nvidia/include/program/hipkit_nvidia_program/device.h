// hipkit NVIDIA platform, whole programs: HIP's device dialect under nvcc.
//
// The dialect is the one kernels compiled by NVRTC get (hipkit_nvidia/device.h:
// warpSize a constant 32, mask-free shuffles and votes, 64-bit __ballot, HIP's
// vector types, __half, atomics), so that a kernel means the same in a program
// as from Python.  What differs under nvcc is its surroundings: the C and C++
// libraries are real here, and code is host code unless marked __device__ (as
// in HIP), so the adjustments below let the dialect sit beside them.
#pragma once

// As in HIP's own header, programs get the C library and <cmath> from
// hip_runtime.h; they come first, so that the dialect's stand-ins for NVRTC
// (hipkit_nvidia/libc.h) find them defined.
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// libc.h defines the fixed-width types for NVRTC, which has no C library.  Its
// fast 16- and 32-bit types are int (NVRTC's choice) where glibc's are long:
// while it is read, its names for them are moved aside.
#define int_fast16_t __hk_nvrtc_int_fast16_t
#define int_fast32_t __hk_nvrtc_int_fast32_t
#define uint_fast16_t __hk_nvrtc_uint_fast16_t
#define uint_fast32_t __hk_nvrtc_uint_fast32_t
#include "../../hipkit_nvidia/device.h"
#undef int_fast16_t
#undef int_fast32_t
#undef uint_fast16_t
#undef uint_fast32_t

// The dialect's assert calls NVRTC's __assertfail, which host code cannot
// call; the C library's assert works in host and device code under nvcc (a
// failed one in a kernel is hipErrorAssert).  <assert.h> redefines it for the
// NDEBUG in force.
#include <assert.h>

// dim3 is CUDA's own: launches (<<<>>>, hipLaunchKernelGGL, hipLaunchKernel)
// take it, and it has HIP's constructors.
#undef dim3

// make_float4 & co. for host code too (the dialect's are device functions):
// HIP's vector types, built on either side.
namespace __hk_program {
#define __HK_PROGRAM_MAKE(base, T)                                                           \
  __host__ __device__ constexpr base##1 make_vec_##base##1(T x) { return base##1(x); }         \
  __host__ __device__ constexpr base##2 make_vec_##base##2(T x, T y) { return base##2(x, y); } \
  __host__ __device__ constexpr base##3 make_vec_##base##3(T x, T y, T z) {                   \
    return base##3(x, y, z);                                                                  \
  }                                                                                           \
  __host__ __device__ constexpr base##4 make_vec_##base##4(T x, T y, T z, T w) {              \
    return base##4(x, y, z, w);                                                               \
  }
__HK_PROGRAM_MAKE(char, signed char)
__HK_PROGRAM_MAKE(uchar, unsigned char)
__HK_PROGRAM_MAKE(short, short)
__HK_PROGRAM_MAKE(ushort, unsigned short)
__HK_PROGRAM_MAKE(int, int)
__HK_PROGRAM_MAKE(uint, unsigned int)
__HK_PROGRAM_MAKE(long, long)
__HK_PROGRAM_MAKE(ulong, unsigned long)
__HK_PROGRAM_MAKE(longlong, long long)
__HK_PROGRAM_MAKE(ulonglong, unsigned long long)
__HK_PROGRAM_MAKE(float, float)
__HK_PROGRAM_MAKE(double, double)
#undef __HK_PROGRAM_MAKE
}  // namespace __hk_program
#undef make_char1
#define make_char1 __hk_program::make_vec_char1
#undef make_char2
#define make_char2 __hk_program::make_vec_char2
#undef make_char3
#define make_char3 __hk_program::make_vec_char3
#undef make_char4
#define make_char4 __hk_program::make_vec_char4
#undef make_uchar1
#define make_uchar1 __hk_program::make_vec_uchar1
#undef make_uchar2
#define make_uchar2 __hk_program::make_vec_uchar2
#undef make_uchar3
#define make_uchar3 __hk_program::make_vec_uchar3
#undef make_uchar4
#define make_uchar4 __hk_program::make_vec_uchar4
#undef make_short1
#define make_short1 __hk_program::make_vec_short1
#undef make_short2
#define make_short2 __hk_program::make_vec_short2
#undef make_short3
#define make_short3 __hk_program::make_vec_short3
#undef make_short4
#define make_short4 __hk_program::make_vec_short4
#undef make_ushort1
#define make_ushort1 __hk_program::make_vec_ushort1
#undef make_ushort2
#define make_ushort2 __hk_program::make_vec_ushort2
#undef make_ushort3
#define make_ushort3 __hk_program::make_vec_ushort3
#undef make_ushort4
#define make_ushort4 __hk_program::make_vec_ushort4
#undef make_int1
#define make_int1 __hk_program::make_vec_int1
#undef make_int2
#define make_int2 __hk_program::make_vec_int2
#undef make_int3
#define make_int3 __hk_program::make_vec_int3
#undef make_int4
#define make_int4 __hk_program::make_vec_int4
#undef make_uint1
#define make_uint1 __hk_program::make_vec_uint1
#undef make_uint2
#define make_uint2 __hk_program::make_vec_uint2
#undef make_uint3
#define make_uint3 __hk_program::make_vec_uint3
#undef make_uint4
#define make_uint4 __hk_program::make_vec_uint4
#undef make_long1
#define make_long1 __hk_program::make_vec_long1
#undef make_long2
#define make_long2 __hk_program::make_vec_long2
#undef make_long3
#define make_long3 __hk_program::make_vec_long3
#undef make_long4
#define make_long4 __hk_program::make_vec_long4
#undef make_ulong1
#define make_ulong1 __hk_program::make_vec_ulong1
#undef make_ulong2
#define make_ulong2 __hk_program::make_vec_ulong2
#undef make_ulong3
#define make_ulong3 __hk_program::make_vec_ulong3
#undef make_ulong4
#define make_ulong4 __hk_program::make_vec_ulong4
#undef make_longlong1
#define make_longlong1 __hk_program::make_vec_longlong1
#undef make_longlong2
#define make_longlong2 __hk_program::make_vec_longlong2
#undef make_longlong3
#define make_longlong3 __hk_program::make_vec_longlong3
#undef make_longlong4
#define make_longlong4 __hk_program::make_vec_longlong4
#undef make_ulonglong1
#define make_ulonglong1 __hk_program::make_vec_ulonglong1
#undef make_ulonglong2
#define make_ulonglong2 __hk_program::make_vec_ulonglong2
#undef make_ulonglong3
#define make_ulonglong3 __hk_program::make_vec_ulonglong3
#undef make_ulonglong4
#define make_ulonglong4 __hk_program::make_vec_ulonglong4
#undef make_float1
#define make_float1 __hk_program::make_vec_float1
#undef make_float2
#define make_float2 __hk_program::make_vec_float2
#undef make_float3
#define make_float3 __hk_program::make_vec_float3
#undef make_float4
#define make_float4 __hk_program::make_vec_float4
#undef make_double1
#define make_double1 __hk_program::make_vec_double1
#undef make_double2
#define make_double2 __hk_program::make_vec_double2
#undef make_double3
#define make_double3 __hk_program::make_vec_double3
#undef make_double4
#define make_double4 __hk_program::make_vec_double4

// hipCreateChannelDesc<T>() for the vector types above (texture.h has the other form).
#include "hipkit_portable/channel_desc.h"
