// hipkit: the types HIP's shuffles take, for the platforms' warp headers:
// __HK_SHFL_TYPES(X) applies X to each.  CUDA's (the integer types, float
// and double), and __half and __half2.
#pragma once

#define __HK_SHFL_TYPES(X)                                                                   \
  X(int) X(unsigned int) X(long) X(unsigned long) X(long long) X(unsigned long long) X(float) \
  X(double) X(__half) X(__half2)
