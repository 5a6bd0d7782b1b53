// hipkit CPU platform: the HIP/CUDA device library for kernel code.
//
// Kernel code is compiled as ordinary C++17 by the system compiler; this
// header gives it what a GPU compiler would: vector types, __half, the CUDA
// math extensions, bit and conversion intrinsics, atomics, barriers and warp
// operations.  Where HIP (on AMD) and CUDA differ, it follows HIP.
//
// Everything is plain `inline` C++.  The execution-space markers
// (__global__, __device__, __shared__, ...) are not defined here: kernel.h
// defines them after including this file, as markers for the source
// transform.  Internal helpers live in namespace __hk; public names are
// exactly HIP's and CUDA's.
//
// The compiler is given -D__HK_WARP_SIZE=64 or 32 (the device's warp size).
#ifndef HIPKIT_CPU_DEVICE_H
#define HIPKIT_CPU_DEVICE_H

#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
// libstdc++'s <math.h> brings std's float overloads (sqrt(float), abs(float),
// ...) into the global namespace, as CUDA's headers do.
#include <math.h>

#include "abi.h"

#ifndef __HK_WARP_SIZE
#define __HK_WARP_SIZE 64
#endif
#if __HK_WARP_SIZE != 32 && __HK_WARP_SIZE != 64
#error "__HK_WARP_SIZE must be 32 or 64"
#endif

#define __HIP_CPU_RT__ 1
#define __HIPKIT_CPU__ 1
#define HIP_KERNEL_NAME(...) __VA_ARGS__

// Small helpers the GPU compiler would inline; forcing it keeps -O0 builds
// and large kernels from paying a call per intrinsic.
#define __HK_INLINE inline __attribute__((always_inline))
// Library functions are templates with one defaulted parameter: the compiler
// then only parses their bodies, and checks and compiles just the functions a
// kernel uses.  Every kernel compile pays for this header; this halves it.
#define __HK_LAZY template <class = void> inline
#define __HK_FN __HK_LAZY __attribute__((always_inline))
// The operators and conversions of the types the portable headers define
// (vector_ops.h, half.h), and those the GPU platforms' host code calls too:
// plain C++ here, which the compiler inlines as it sees fit (forcing it grew
// code using __half several-fold).
#define __HK_DEVICE
#define __HK_HOST_DEVICE
// The half conversions host code calls on the GPU platforms too.
#define __HK_CONVERT __HK_FN

constexpr int warpSize = __HK_WARP_SIZE;

// The traits the portable headers name in __hk are <type_traits>' here; the
// GPU platforms, whose compilers lack it, have hipkit_portable/traits.h.
namespace __hk {
using std::enable_if;
using std::is_arithmetic;
using std::is_integral;
using std::remove_cv;
}  // namespace __hk

#include "hipkit_portable/index.h"

#include "vector_types.h"
#include "device_intrinsics.h"
#include "half.h"
#include "hipkit_portable/mixed_dot.h"
#include "device_math.h"
#include "device_atomics.h"
#include "device_warp.h"
#include "device_texture.h"
#include "device_surface.h"
#include "device_warp_match.h"

#endif  // HIPKIT_CPU_DEVICE_H
