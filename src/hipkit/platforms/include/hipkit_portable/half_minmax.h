// hipkit: __half max and min, shared by every platform's device headers (the
// CPU and NVIDIA ones through half.h; HIP on AMD lacks these).
// Written with HIP's own __half2float, __hisnan, __low2half, __high2half
// and __halves2half2 only: HIP on AMD keeps a __half2's halves as bits in x
// and y, where the other platforms have __half members.
#pragma once

// fmax/fmin semantics (a NaN operand is ignored); the _nan forms propagate it.
__HK_FN __half __hmax(__half a, __half b) {
  const float x = __half2float(a), y = __half2float(b);
  return x > y || y != y ? a : b;
}
__HK_FN __half __hmin(__half a, __half b) {
  const float x = __half2float(a), y = __half2float(b);
  return x < y || y != y ? a : b;
}
__HK_FN __half __hmax_nan(__half a, __half b) {
  return __hisnan(a) ? a : __hisnan(b) ? b : __hmax(a, b);
}
__HK_FN __half __hmin_nan(__half a, __half b) {
  return __hisnan(a) ? a : __hisnan(b) ? b : __hmin(a, b);
}

// Each half of a __half2 on its own.
#define __HK_HALF2_OF(name, op)                                                \
  __HK_FN __half2 name(__half2 a, __half2 b) {                                 \
    return __halves2half2(op(__low2half(a), __low2half(b)),                    \
                          op(__high2half(a), __high2half(b)));                 \
  }
__HK_HALF2_OF(__hmax2, __hmax)
__HK_HALF2_OF(__hmin2, __hmin)
__HK_HALF2_OF(__hmax2_nan, __hmax_nan)
__HK_HALF2_OF(__hmin2_nan, __hmin_nan)
#undef __HK_HALF2_OF
