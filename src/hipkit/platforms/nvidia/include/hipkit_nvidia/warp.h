// hipkit NVIDIA platform: HIP's warp operations on CUDA (part of device.h).
//
// HIP's shuffles and votes take no mask: they act on the lanes that execute
// them together, as on AMD and the CPU platform, so they are CUDA's _sync
// forms over __activemask().  (A full mask would make a vote in a branch
// that only some lanes take wait for the others: a deadlock.)  __ballot
// returns 64 bits, as HIP's; __any, __all and __ballot are macros because
// CUDA declares deprecated functions of those names with other types.
// (The AMD platform's warp.h goes the other way, as HIP on AMD has the
// mask-free forms, and the _sync ones only from ROCm 6.2.)
#pragma once

// CUDA has the _sync forms for the integer types, float and double; these
// add __half and __half2 (cuda_fp16.h's), through the 32-bit ones.
#define __HK_SHFL_HALF_DECL(op, ...) op##_sync(unsigned int mask, __VA_ARGS__)
#define __HK_SHFL_HALF_CALL(op, ...) op##_sync(mask, __VA_ARGS__)
#include "hipkit_portable/shfl_half.h"
#undef __HK_SHFL_HALF_DECL
#undef __HK_SHFL_HALF_CALL

#define __HK_SHFL(T)                                                       \
  __HK_FN T __shfl(T var, int src_lane, int width = warpSize) {            \
    return __shfl_sync(__activemask(), var, src_lane, width);              \
  }                                                                        \
  __HK_FN T __shfl_up(T var, unsigned int delta, int width = warpSize) {   \
    return __shfl_up_sync(__activemask(), var, delta, width);              \
  }                                                                        \
  __HK_FN T __shfl_down(T var, unsigned int delta, int width = warpSize) { \
    return __shfl_down_sync(__activemask(), var, delta, width);            \
  }                                                                        \
  __HK_FN T __shfl_xor(T var, int lane_mask, int width = warpSize) {       \
    return __shfl_xor_sync(__activemask(), var, lane_mask, width);         \
  }
#include "hipkit_portable/shfl_types.h"
__HK_SHFL_TYPES(__HK_SHFL)
#undef __HK_SHFL

namespace __hk {
__HK_FN unsigned long long vote_ballot(int predicate) {
  return __ballot_sync(__activemask(), predicate);
}
__HK_FN int vote_any(int predicate) { return __any_sync(__activemask(), predicate); }
__HK_FN int vote_all(int predicate) { return __all_sync(__activemask(), predicate); }
}  // namespace __hk
#define __ballot __hk::vote_ballot
#define __ballot64 __hk::vote_ballot  // AMD's name for the 64-bit ballot
#define __any __hk::vote_any
#define __all __hk::vote_all

// NVRTC declares legacy votes `bool all(bool)` and `bool any(bool)` (which
// sm_70 and later cannot run) in the global namespace, so a kernel's own
// `all` or `any` (`extern __shared__ unsigned all[];`) would clash with
// them.  The names are the source's own under other spellings.
#define all __hk_all
#define any __hk_any

// Live lanes below, above, and equal to the calling lane (HIP's, 64-bit).
__HK_FN unsigned long long __lanemask_lt() {
  unsigned int mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return __activemask() & mask;
}
__HK_FN unsigned long long __lanemask_gt() {
  unsigned int mask;
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(mask));
  return __activemask() & mask;
}
__HK_FN unsigned long long __lanemask_eq() { return 1ull << __lane_id(); }
