// hipkit AMD platform: the warp operations hipkit's kernel language has and
// HIP on AMD lacks or restricts (part of device.h).
//
// HIP has the mask-free shuffles and votes; the CUDA-style _sync forms came
// in ROCm 6.2, with 64-bit masks only.  As on the CPU platform, these take a
// 64-bit mask (a 32-bit one converts), and the shuffles ignore it: a
// wavefront's lanes run in lockstep.  Votes count only the mask's lanes.
// (The NVIDIA platform's warp.h goes the other way, as CUDA has the _sync
// forms, with 32-bit masks, and lacks the mask-free ones.)
#pragma once

__HK_FN unsigned long long __activemask() { return __ballot(1); }

// The lanes' earlier writes to memory are visible to each other after it.
__HK_FN void __syncwarp(unsigned long long = ~0ull) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

// HIP shuffles 32- and 64-bit types; __half and __half2 go as their bits.
#define __HK_SHFL_HALF_DECL(op, ...) op(__VA_ARGS__)
#define __HK_SHFL_HALF_CALL(op, ...) op(__VA_ARGS__)
#include "hipkit_portable/shfl_half.h"
#undef __HK_SHFL_HALF_DECL
#undef __HK_SHFL_HALF_CALL

// The _sync forms, and votes that count only the mask's lanes.
#define __HK_WARP_SITE
#define __HK_WARP_AT
#include "hipkit_portable/warp_sync.h"
#undef __HK_WARP_SITE
#undef __HK_WARP_AT
