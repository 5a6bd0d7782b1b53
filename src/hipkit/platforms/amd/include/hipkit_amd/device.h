// hipkit AMD platform: hipkit's kernel language on HIP for AMD GPUs, for hiprtc.
//
// Pre-included into every kernel source compiled for a gfx target, after
// hiprtc's built-in HIP headers: threadIdx & co., math functions, atomics,
// warp shuffles and votes, __half, vector types, printf and assert's
// __assert_fail are HIP's own.  hiprtc's built-in headers were preprocessed
// when ROCm was built, so HIP's macros are gone, and hiprtc has no C library
// (hipkit compiles with -nostdinc: the host's headers do not fit the
// device); this header brings those back, and what hipkit's kernel language
// has that HIP lacks or spells otherwise, following the CPU platform's
// headers so that one source means the same on every platform.
//
// The compiler gives -D__HK_WARP_SIZE=64 or 32 (the target's wavefront size).
#pragma once

#define __HIPKIT_AMD__ 1
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(X) X
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

// warpSize is a compile-time constant, as in HIP up to ROCm 6 (HIP 7 made it
// a run-time value) and on hipkit's other platforms: array bounds, template
// arguments and static_asserts may use it.  A macro naming a constant, so a
// local variable or member called warpSize still declares a name of its own.
#ifdef __AMDGCN_WAVEFRONT_SIZE
static_assert(__HK_WARP_SIZE == __AMDGCN_WAVEFRONT_SIZE, "hipkit's warp size is the compiler's");
#endif
static constexpr int __hk_warp_size = __HK_WARP_SIZE;
#define warpSize __hk_warp_size

// Small library functions are templates with one defaulted parameter, as on
// the other platforms: hiprtc then only parses their bodies and compiles just
// what a kernel uses.  Where HIP has a function of the same name and
// parameters (a newer ROCm), overload resolution prefers HIP's.
#define __HK_INLINE __device__ inline __attribute__((always_inline))
#define __HK_FN template <class = void> __HK_INLINE

#include "libc.h"
#include "hipkit_portable/traits.h"
#include "hipkit_portable/index.h"
#include "assert.h"
#include "hipkit_portable/kernel_params.h"
#include "coordinates.h"
#include "intrinsics.h"
#include "half.h"
#include "atomics.h"
#include "warp.h"
