// hipkit CPU platform: __half and __half2, the hip_fp16.h API (part of
// device.h): hipkit_portable/half.h on this platform's primitives.
//
// Arithmetic is done in float and rounded once to half, which gives exactly
// the correctly rounded half result for + - * / and sqrt (float has more
// than 2 * 11 + 2 bits); fma uses round-to-odd.
#ifndef HIPKIT_CPU_HALF_H
#define HIPKIT_CPU_HALF_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

#include "hipkit_portable/half_raw.h"
#include "hipkit_portable/half_convert.h"

namespace __hk {

// The conversions are hipkit_portable/half_convert.h's, which NVIDIA programs'
// host code uses too.
using soft::double_to_half;
using soft::double_to_half_mode;
using soft::float_to_half;
using soft::half_to_float;

// a*b + c rounded once to half.  a*b is exact in float; the sum is rounded to
// odd (inexactness kept in the last bit, from TwoSum's error term), after
// which rounding to half is correct.
__HK_INLINE unsigned short fma_to_half(float a, float b, float c) {
  const float p = a * b;
  const float s = p + c;
  const float bb = s - p;
  const float err = (p - (s - bb)) + (c - bb);
  unsigned bits = __builtin_bit_cast(unsigned, s);
  if (err != 0 && !(bits & 1) && s - s == 0) bits += (err > 0) == (s > 0) ? 1 : -1;
  return float_to_half(__builtin_bit_cast(float, bits));
}

// ---- The primitives hipkit_portable/half.h is written on ---------------------
// Rounding modes 0 nearest even, 1 toward zero, 2 up, 3 down.

__HK_FN unsigned short to_half(float f, int mode) {
  return mode == 0 ? float_to_half(f) : double_to_half_mode(f, mode);
}
__HK_FN unsigned short to_half(double d, int mode) { return double_to_half_mode(d, mode); }
// Integers up to 65520 are exact in float; larger ones overflow half anyway
// when rounded to nearest.
template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
__HK_INLINE unsigned short to_half(I v, int mode) {
  return mode == 0 ? float_to_half(static_cast<float>(v)) : double_to_half_mode(double(v), mode);
}

// CUDA's rounding (HIP on AMD truncates in every mode), saturating.
template <class I>
__HK_INLINE I half_to(unsigned short h, int mode, I*) {
  const float f = half_to_float(h);
  return saturate_to<I>(mode == 1   ? f
                        : mode == 2 ? std::ceil(f)
                        : mode == 3 ? std::floor(f)
                                    : std::nearbyint(f));
}

__HK_FN float sat01(float f) { return f >= 0.0f ? (f <= 1.0f ? f : 1.0f) : 0.0f; }

// In float, rounded once; _sat rounds, then clamps; a __half2_raw's halves
// each on its own.
#define __HK_HALF_OP(name, expr)                                                      \
  __HK_FN unsigned short name(unsigned short a, unsigned short b) {                   \
    const float x = half_to_float(a), y = half_to_float(b);                           \
    return float_to_half(expr);                                                       \
  }                                                                                   \
  __HK_FN unsigned short name##_sat(unsigned short a, unsigned short b) {             \
    return float_to_half(sat01(half_to_float(name(a, b))));                           \
  }                                                                                   \
  __HK_FN __half2_raw name##2(__half2_raw a, __half2_raw b) {                         \
    return __half2_raw{name(a.x, b.x), name(a.y, b.y)};                               \
  }                                                                                   \
  __HK_FN __half2_raw name##2_sat(__half2_raw a, __half2_raw b) {                     \
    return __half2_raw{name##_sat(a.x, b.x), name##_sat(a.y, b.y)};                   \
  }
__HK_HALF_OP(hadd, x + y)
__HK_HALF_OP(hsub, x - y)
__HK_HALF_OP(hmul, x * y)
#undef __HK_HALF_OP

__HK_FN unsigned short hfma(unsigned short a, unsigned short b, unsigned short c) {
  return fma_to_half(half_to_float(a), half_to_float(b), half_to_float(c));
}
__HK_FN unsigned short hfma_sat(unsigned short a, unsigned short b, unsigned short c) {
  return float_to_half(sat01(half_to_float(hfma(a, b, c))));
}
__HK_FN __half2_raw hfma2(__half2_raw a, __half2_raw b, __half2_raw c) {
  return __half2_raw{hfma(a.x, b.x, c.x), hfma(a.y, b.y, c.y)};
}
__HK_FN __half2_raw hfma2_sat(__half2_raw a, __half2_raw b, __half2_raw c) {
  return __half2_raw{hfma_sat(a.x, b.x, c.x), hfma_sat(a.y, b.y, c.y)};
}

// hexp10's 10^x: float pow (NVIDIA has exp10f).
__HK_FN float half_exp10(float x) { return std::pow(10.0f, x); }

}  // namespace __hk

#include "hipkit_portable/half.h"

#endif  // HIPKIT_CPU_HALF_H
