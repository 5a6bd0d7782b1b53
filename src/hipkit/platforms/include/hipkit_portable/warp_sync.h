// hipkit: HIP's _sync shuffles and votes over the mask-free ones, for the
// platforms whose warp operations act on all of a warp's live lanes at once
// (the CPU's fibers, AMD's wavefronts; CUDA has the _sync forms itself).
// The mask is 64-bit (a 32-bit one converts); as on AMD, a shuffle ignores
// it, and a vote counts only the mask's lanes.
//
// The platform's warp.h first defines __HK_FN, the mask-free __shfl & co. for
// __HK_SHFL_TYPES, __ballot, and __HK_WARP_SITE and __HK_WARP_AT: a last
// parameter every warp operation takes, with its comma, and its argument
// (the CPU's call site, where lanes meet), or nothing.
#pragma once

#include "hipkit_portable/shfl_types.h"

#define __HK_SHFL_SYNC(T)                                                                    \
  __HK_FN T __shfl_sync(unsigned long long, T var, int src_lane,                             \
                        int width = warpSize __HK_WARP_SITE) {                               \
    return __shfl(var, src_lane, width __HK_WARP_AT);                                        \
  }                                                                                          \
  __HK_FN T __shfl_up_sync(unsigned long long, T var, unsigned int delta,                    \
                           int width = warpSize __HK_WARP_SITE) {                            \
    return __shfl_up(var, delta, width __HK_WARP_AT);                                        \
  }                                                                                          \
  __HK_FN T __shfl_down_sync(unsigned long long, T var, unsigned int delta,                  \
                             int width = warpSize __HK_WARP_SITE) {                          \
    return __shfl_down(var, delta, width __HK_WARP_AT);                                      \
  }                                                                                          \
  __HK_FN T __shfl_xor_sync(unsigned long long, T var, int lane_mask,                        \
                            int width = warpSize __HK_WARP_SITE) {                           \
    return __shfl_xor(var, lane_mask, width __HK_WARP_AT);                                   \
  }
__HK_SHFL_TYPES(__HK_SHFL_SYNC)
#undef __HK_SHFL_SYNC

__HK_FN unsigned long long __ballot_sync(unsigned long long mask, int predicate __HK_WARP_SITE) {
  return __ballot(predicate __HK_WARP_AT) & mask;
}
__HK_FN int __any_sync(unsigned long long mask, int predicate __HK_WARP_SITE) {
  return (__ballot(predicate __HK_WARP_AT) & mask) != 0;
}
// True when no live lane of mask has a false predicate (CUDA's definition:
// lanes of mask that have exited do not count).
__HK_FN int __all_sync(unsigned long long mask, int predicate __HK_WARP_SITE) {
  return (__ballot(!predicate __HK_WARP_AT) & mask) == 0;
}
