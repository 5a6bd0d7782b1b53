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

namespace __hk {

// Conversions between float and half in plain integer and float operations
// (bit-exact with the F16C/AVX512-FP16 instructions, NaNs quieted): written
// without branches so that loops over halves vectorize, which GCC does not do
// for _Float16 conversions.
__HK_INLINE float half_to_float(unsigned short h) {
  const unsigned em = (h & 0x7fffu) << 13;  // exponent and mantissa, float-aligned
  const unsigned e = em & 0x0f800000u;
  unsigned bits = em + 0x38000000u;  // rebias 15 -> 127
  // Inf and NaN: maximal exponent, quiet NaN.
  bits = e == 0x0f800000u ? (bits + 0x38000000u) | (em & 0x7fffffu ? 0x400000u : 0u) : bits;
  // Zero and subnormals: m * 2^-24, as (2^-14 + m * 2^-24) - 2^-14.
  const float sub = __builtin_bit_cast(float, bits + 0x00800000u) - 0x1p-14f;
  bits = e == 0 ? __builtin_bit_cast(unsigned, sub) : bits;
  return __builtin_bit_cast(float, bits | static_cast<unsigned>(h & 0x8000u) << 16);
}
// Round to nearest even.
__HK_INLINE unsigned short float_to_half(float f) {
  const unsigned u = __builtin_bit_cast(unsigned, f);
  const unsigned a = u & 0x7fffffffu;
  // Subnormal or zero result: adding 0.5 rounds to a multiple of 2^-24.
  const float sum = __builtin_bit_cast(float, a) + 0.5f;
  const unsigned sub = __builtin_bit_cast(unsigned, sum) - 0x3f000000u;
  // Normal result: rebias, round on the 13 dropped bits (a carry may reach inf).
  const unsigned norm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  unsigned h = a < 0x38800000u ? sub : norm;
  h = a >= 0x47800000u ? (a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : 0x7c00u) : h;
  return static_cast<unsigned short>(h | ((u >> 16) & 0x8000u));
}

// Round to nearest even from a double, directly (through float would round
// twice).
__HK_LAZY unsigned short double_to_half(double d) {
  const unsigned long long b = __builtin_bit_cast(unsigned long long, d);
  const unsigned sign = static_cast<unsigned>((b >> 48) & 0x8000u);
  const unsigned long long a = b & 0x7fffffffffffffffull;
  if (a > 0x7ff0000000000000ull)  // NaN, quiet, with its top payload bits
    return static_cast<unsigned short>(sign | 0x7e00u | ((a >> 42) & 0x3ffu));
  const int e = static_cast<int>(a >> 52) - 1023;
  if (e > 15) return static_cast<unsigned short>(sign | 0x7c00u);  // and inf
  if (e < -25) return static_cast<unsigned short>(sign);
  const unsigned long long m = (a & 0xfffffffffffffull) | (1ull << 52);
  const int shift = e >= -14 ? 42 : 42 + (-14 - e);  // bits below the half's last digit
  unsigned long long q = m >> shift;
  const unsigned long long rem = m & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1))) ++q;
  // A carry out of the significand moves to the next exponent (or to inf).
  const unsigned long long biased = static_cast<unsigned long long>(e + 15) << 10;
  const unsigned long long h = e >= -14 ? biased + (q - 1024) : q;
  return static_cast<unsigned short>(sign | h);
}

// Directed rounding to half (0 nearest even, 1 toward zero, 2 up, 3 down) of
// a value exact in double: round to nearest, then step one half-ulp pattern
// if that went the wrong way.
__HK_LAZY unsigned short double_to_half_mode(double v, int mode) {
  unsigned short h = double_to_half(v);
  if (mode == 0 || v != v) return h;
  const double r = half_to_float(h);
  const bool need_down = r > v && (mode == 3 || (mode == 1 && v > 0));
  const bool need_up = r < v && (mode == 2 || (mode == 1 && v < 0));
  if (need_down) h = h & 0x8000u ? h + 1 : h == 0 ? 0x8001u : h - 1;
  if (need_up) h = !(h & 0x8000u) ? h + 1 : h == 0x8000u ? 0x0001u : h - 1;
  return h;
}

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
