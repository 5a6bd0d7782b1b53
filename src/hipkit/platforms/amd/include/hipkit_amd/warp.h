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

__HK_FN unsigned long long __ballot_sync(unsigned long long mask, int predicate) {
  return __ballot(predicate) & mask;
}
__HK_FN int __any_sync(unsigned long long mask, int predicate) {
  return (__ballot(predicate) & mask) != 0;
}
__HK_FN int __all_sync(unsigned long long mask, int predicate) {
  return (__ballot(!predicate) & mask) == 0;
}

// The lanes' earlier writes to memory are visible to each other after it.
__HK_FN void __syncwarp(unsigned long long = ~0ull) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

// HIP shuffles 32- and 64-bit types; __half and __half2 go as their bits.
#define __HK_SHFL_BITS(op, arg)                                                            \
  __HK_FN __half op(__half var, arg, int width = warpSize) {                               \
    return __builtin_bit_cast(                                                             \
        __half, static_cast<unsigned short>(                                               \
                    op(static_cast<unsigned int>(__builtin_bit_cast(unsigned short, var)), \
                       lane, width)));                                                     \
  }                                                                                        \
  __HK_FN __half2 op(__half2 var, arg, int width = warpSize) {                             \
    return __builtin_bit_cast(__half2, op(__builtin_bit_cast(unsigned int, var), lane, width)); \
  }
__HK_SHFL_BITS(__shfl, int lane)
__HK_SHFL_BITS(__shfl_up, unsigned int lane)
__HK_SHFL_BITS(__shfl_down, unsigned int lane)
__HK_SHFL_BITS(__shfl_xor, int lane)
#undef __HK_SHFL_BITS

#define __HK_SHFL_SYNC(T)                                                                \
  __HK_FN T __shfl_sync(unsigned long long, T var, int src_lane, int width = warpSize) { \
    return __shfl(var, src_lane, width);                                                 \
  }                                                                                      \
  __HK_FN T __shfl_up_sync(unsigned long long, T var, unsigned int delta,                \
                           int width = warpSize) {                                       \
    return __shfl_up(var, delta, width);                                                 \
  }                                                                                      \
  __HK_FN T __shfl_down_sync(unsigned long long, T var, unsigned int delta,              \
                             int width = warpSize) {                                     \
    return __shfl_down(var, delta, width);                                               \
  }                                                                                      \
  __HK_FN T __shfl_xor_sync(unsigned long long, T var, int lane_mask, int width = warpSize) { \
    return __shfl_xor(var, lane_mask, width);                                            \
  }
__HK_SHFL_SYNC(int)
__HK_SHFL_SYNC(unsigned int)
__HK_SHFL_SYNC(long)
__HK_SHFL_SYNC(unsigned long)
__HK_SHFL_SYNC(long long)
__HK_SHFL_SYNC(unsigned long long)
__HK_SHFL_SYNC(float)
__HK_SHFL_SYNC(double)
__HK_SHFL_SYNC(__half)
__HK_SHFL_SYNC(__half2)
#undef __HK_SHFL_SYNC
