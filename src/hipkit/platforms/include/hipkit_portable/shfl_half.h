// hipkit: __half and __half2 shuffles, as their bits through the 32-bit
// ones (CUDA and HIP on AMD shuffle 32- and 64-bit types only), for the GPU
// platforms' warp.h.  Those first define __HK_FN, __hk::half2_bits and
// __hk::half2_from_bits, and the shuffles these are built on:
// __HK_SHFL_HALF_DECL(op, parameters...) declares a form of op, and
// __HK_SHFL_HALF_CALL(op, arguments...) calls its 32-bit one (NVIDIA:
// CUDA's _sync forms, under the caller's mask; AMD: HIP's mask-free ones).
#pragma once

#define __HK_SHFL_HALF(op, Lane)                                                         \
  __HK_FN __half __HK_SHFL_HALF_DECL(op, __half var, Lane lane, int width = warpSize) {  \
    return __ushort_as_half(static_cast<unsigned short>(                                 \
        __HK_SHFL_HALF_CALL(op, static_cast<unsigned int>(__half_as_ushort(var)), lane, width))); \
  }                                                                                      \
  __HK_FN __half2 __HK_SHFL_HALF_DECL(op, __half2 var, Lane lane, int width = warpSize) { \
    return __hk::half2_from_bits(__HK_SHFL_HALF_CALL(op, __hk::half2_bits(var), lane, width)); \
  }
__HK_SHFL_HALF(__shfl, int)
__HK_SHFL_HALF(__shfl_up, unsigned int)
__HK_SHFL_HALF(__shfl_down, unsigned int)
__HK_SHFL_HALF(__shfl_xor, int)
#undef __HK_SHFL_HALF
