// hipkit: __half's bit casts and moves, with its short names and constants
// (half_names.h).  Plain C++ on HIP's own device API, part of half.h, which
// the CPU and NVIDIA platforms' device headers include; HIP on AMD has these
// functions itself.
#pragma once

#include "hipkit_portable/half_names.h"

// ---- Bit casts and moves ---------------------------------------------------

__HK_FN constexpr unsigned short __half_as_ushort(__half h) { return h.__x; }
__HK_FN constexpr short __half_as_short(__half h) { return static_cast<short>(h.__x); }
__HK_FN constexpr __half __ushort_as_half(unsigned short x) { return __half_raw{x}; }
__HK_FN constexpr __half __short_as_half(short x) {
  return __half_raw{static_cast<unsigned short>(x)};
}
__HK_FN constexpr __half2 make_half2(__half x, __half y) { return __half2(x, y); }
__HK_FN constexpr __half2 __halves2half2(__half x, __half y) { return __half2(x, y); }
__HK_FN constexpr __half2 __half2half2(__half x) { return __half2(x, x); }
__HK_FN constexpr __half __low2half(__half2 v) { return v.x; }
__HK_FN constexpr __half __high2half(__half2 v) { return v.y; }
__HK_FN constexpr __half2 __low2half2(__half2 v) { return __half2(v.x, v.x); }
__HK_FN constexpr __half2 __high2half2(__half2 v) { return __half2(v.y, v.y); }
__HK_FN constexpr __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__HK_FN constexpr __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__HK_FN constexpr __half2 __lowhigh2highlow(__half2 v) { return __half2(v.y, v.x); }
