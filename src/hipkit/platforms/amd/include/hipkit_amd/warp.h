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

// CUDA's warp match and reduce (__match_any_sync, __reduce_add_sync ...), which
// HIP on AMD lacks: every lane reads every lane's value (a shuffle each) and
// keeps those of the mask's lanes.  Values compare by their bits; reductions fold
// in lane order, as on the CPU platform.
template <class T>
__HK_INLINE unsigned long long __match_any_sync(unsigned long long mask, T value) {
  unsigned long long same = 0;
  for (int lane = 0; lane < warpSize; ++lane)
    if ((mask >> lane & 1) && __shfl(value, lane) == value) same |= 1ull << lane;
  return same;
}
template <class T>
__HK_INLINE unsigned long long __match_all_sync(unsigned long long mask, T value, int* pred) {
  const bool all = __match_any_sync(mask, value) == (mask & __activemask());
  *pred = all;
  return all ? mask : 0;
}
#define __HK_WARP_REDUCE(name, expr)                                                        \
  template <class T>                                                                       \
  __HK_INLINE T __reduce_##name##_sync(unsigned long long mask, T value) {                \
    bool first = true;                                                                     \
    T r = value;                                                                           \
    for (int lane = 0; lane < warpSize; ++lane) {                                          \
      const T v = __shfl(value, lane);                                                     \
      if (mask >> lane & 1) r = first ? v : (expr), first = false;                         \
    }                                                                                      \
    return r;                                                                              \
  }
__HK_WARP_REDUCE(add, r + v)
__HK_WARP_REDUCE(min, v < r ? v : r)
__HK_WARP_REDUCE(max, v > r ? v : r)
__HK_WARP_REDUCE(and, r & v)
__HK_WARP_REDUCE(or, r | v)
__HK_WARP_REDUCE(xor, r ^ v)
#undef __HK_WARP_REDUCE
