// hipkit NVIDIA platform: HIP's device dialect on CUDA, for NVRTC.
//
// Pre-included into every kernel source compiled for an NVIDIA target
// (NVRTC --pre-include), after NVRTC's own built-in CUDA declarations:
// threadIdx & co., math functions, atomics, __shfl_sync, printf.  This header
// adds what HIP has and CUDA lacks: HIP's vector types (with constructors and
// operators), __half without cuda_fp16.h, the warp operations without masks,
// 64-bit __ballot, the atomics HIP has for more types, and HIP-only names.
// Where HIP (on AMD) and CUDA differ, it follows the CPU platform's headers,
// so that one source means the same on every platform.
//
// NVRTC has no system headers: the C library's types and constants are
// defined here, and <cstdio>, <cassert> & co. in this include directory map
// onto this header.
#pragma once

#define __HIPKIT_NVIDIA__ 1
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#include "hipkit_portable/index.h"

// warpSize is 32 on every NVIDIA GPU, and a compile-time constant here, as
// HIP's was on AMD GPUs: `i % warpSize`, `i / warpSize` and loops over the
// warp then compile to masks, shifts and unrolled code, as with a literal 32.
// CUDA's own warpSize is a register read the compiler cannot fold (a
// warp-shuffle reduction ran 25% slower with it).  The macro names a
// constant, so a local variable or member called warpSize still declares a
// name of its own.
static constexpr int __hk_warp_size = 32;
#define warpSize __hk_warp_size

// Small library functions, inlined as the GPU compiler would anyway.  Those
// that are not templates are made templates with one defaulted parameter (as
// on the CPU platform): NVRTC then only parses their bodies, and compiles
// just the functions a kernel uses.  Every kernel compile pays for this
// header, and this cuts its cost several-fold.
#define __HK_INLINE __device__ __forceinline__
#define __HK_FN template <class = void> __HK_INLINE
// The operators and conversions of the types the portable headers define
// (vector_ops.h, half.h), inlined too; those that host code calls as well
// (under nvcc a program builds __half constants from their bits on the host).
#define __HK_DEVICE __HK_INLINE
#define __HK_HOST_DEVICE __host__ __device__
// The half conversions, which host code calls too (lazy and inlined as
// __HK_FN; host code converts in software, hipkit_portable/half_convert.h).
#define __HK_CONVERT template <class = void> __host__ __device__ __forceinline__

#include "libc.h"
#include "hipkit_portable/traits.h"
#include "vector_types.h"
#include "half.h"
#include "intrinsics.h"
#include "hipkit_portable/mixed_dot.h"
#include "atomics.h"
#include "warp.h"
#include "texture.h"
#include "hipkit_portable/kernel_params.h"
#include "device_assert.h"
