// hipkit: __half comparisons, NaN tests, max and min (half_minmax.h).
// Plain C++ on HIP's own device API, part of half.h, which the CPU and NVIDIA
// platforms' device headers include; HIP on AMD has all but max and min
// itself.
#pragma once

// ---- Comparisons -----------------------------------------------------------
// The "u" forms are unordered: also true when either operand is NaN.  The
// __half2 forms give 1.0 or 0.0 per half; the __hb...2 forms are true when
// true for both halves.

#define __HK_HALF_CMP(name, expr)                                                       \
  __HK_FN bool __h##name(__half a, __half b) {                                      \
    const float x = float(a), y = float(b);                                             \
    return expr;                                                                        \
  }                                                                                     \
  __HK_FN __half2 __h##name##2(__half2 a, __half2 b) {                              \
    return __half2(__half_raw{static_cast<unsigned short>(__h##name(a.x, b.x) ? 0x3c00 : 0)}, \
                   __half_raw{static_cast<unsigned short>(__h##name(a.y, b.y) ? 0x3c00 : 0)}); \
  }                                                                                     \
  __HK_FN bool __hb##name##2(__half2 a, __half2 b) {                                \
    return __h##name(a.x, b.x) && __h##name(a.y, b.y);                                  \
  }
__HK_HALF_CMP(eq, x == y)
__HK_HALF_CMP(ne, x < y || x > y)
__HK_HALF_CMP(lt, x < y)
__HK_HALF_CMP(le, x <= y)
__HK_HALF_CMP(gt, x > y)
__HK_HALF_CMP(ge, x >= y)
__HK_HALF_CMP(equ, !(x < y || x > y))
__HK_HALF_CMP(neu, !(x == y))
__HK_HALF_CMP(ltu, !(x >= y))
__HK_HALF_CMP(leu, !(x > y))
__HK_HALF_CMP(gtu, !(x <= y))
__HK_HALF_CMP(geu, !(x < y))
#undef __HK_HALF_CMP

__HK_FN bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
__HK_FN bool __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u; }
__HK_FN __half2 __hisnan2(__half2 a) {
  return __half2(__half_raw{static_cast<unsigned short>(__hisnan(a.x) ? 0x3c00 : 0)},
                 __half_raw{static_cast<unsigned short>(__hisnan(a.y) ? 0x3c00 : 0)});
}
__HK_FN __half2 __hisinf2(__half2 a) {
  return __half2(__half_raw{static_cast<unsigned short>(__hisinf(a.x) ? 0x3c00 : 0)},
                 __half_raw{static_cast<unsigned short>(__hisinf(a.y) ? 0x3c00 : 0)});
}

#include "hipkit_portable/half_minmax.h"
