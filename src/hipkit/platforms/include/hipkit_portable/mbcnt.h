// hipkit: AMD's masked bit counts, __mbcnt_lo and __mbcnt_hi, on HIP's __lane_id
// and __popc, for the CPU and NVIDIA platforms' device headers (which define
// __HK_FN and __lane_id, then include this).
//
// A 64-bit lane mask is counted in two 32-bit halves, as AMD's v_mbcnt does:
// __mbcnt_lo counts the bits of x for the lanes of 0-31 below the calling lane,
// __mbcnt_hi those for the lanes of 32-63 below it, each plus y, so
// __mbcnt_hi(mask >> 32, __mbcnt_lo(mask, 0)) is the number of lanes of mask
// below the caller.
#pragma once

__HK_FN unsigned int __mbcnt_lo(unsigned int x, unsigned int y) {
  const unsigned int lane = __lane_id();
  return __popc(lane >= 32 ? x : x & ((1u << lane) - 1)) + y;
}
__HK_FN unsigned int __mbcnt_hi(unsigned int x, unsigned int y) {
  const unsigned int lane = __lane_id();
  return __popc(lane <= 32 ? 0u : x & ((1u << (lane - 32)) - 1)) + y;
}
