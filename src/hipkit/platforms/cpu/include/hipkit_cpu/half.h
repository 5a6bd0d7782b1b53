// hipkit CPU platform: __half and __half2, the hip_fp16.h API (part of
// device.h).
//
// A __half is its IEEE binary16 bit pattern.  Arithmetic is done in float
// and rounded once to half, which gives exactly the correctly rounded half
// result for + - * / and sqrt (float has more than 2 * 11 + 2 bits); fma uses
// round-to-odd.
#ifndef HIPKIT_CPU_HALF_H
#define HIPKIT_CPU_HALF_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

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

}  // namespace __hk

struct alignas(2) __half {
  unsigned short __x;

  __half() = default;
  constexpr __half(const __half_raw& r) : __x(r.x) {}
  __half(float f) : __x(__hk::float_to_half(f)) {}
  __half(double d) : __x(__hk::double_to_half(d)) {}
  // Integers up to 65520 are exact in float; larger ones overflow half anyway.
  template <class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
  __half(T v) : __x(__hk::float_to_half(static_cast<float>(v))) {}

  operator float() const { return __hk::half_to_float(__x); }
  constexpr operator __half_raw() const { return __half_raw{__x}; }
  __half& operator=(const __half_raw& r) {
    __x = r.x;
    return *this;
  }

  __half& operator+=(const __half& o) { return *this = __half(float(*this) + float(o)); }
  __half& operator-=(const __half& o) { return *this = __half(float(*this) - float(o)); }
  __half& operator*=(const __half& o) { return *this = __half(float(*this) * float(o)); }
  __half& operator/=(const __half& o) { return *this = __half(float(*this) / float(o)); }
  __half& operator++() { return *this += __half_raw{0x3c00}; }
  __half& operator--() { return *this -= __half_raw{0x3c00}; }
  __half operator++(int) {
    __half old = *this;
    ++*this;
    return old;
  }
  __half operator--(int) {
    __half old = *this;
    --*this;
    return old;
  }
  __half operator+() const { return *this; }
  __half operator-() const { return __half_raw{static_cast<unsigned short>(__x ^ 0x8000u)}; }

  friend __half operator+(__half a, const __half& b) { return a += b; }
  friend __half operator-(__half a, const __half& b) { return a -= b; }
  friend __half operator*(__half a, const __half& b) { return a *= b; }
  friend __half operator/(__half a, const __half& b) { return a /= b; }
  friend bool operator==(const __half& a, const __half& b) { return float(a) == float(b); }
  friend bool operator!=(const __half& a, const __half& b) { return float(a) != float(b); }
  friend bool operator<(const __half& a, const __half& b) { return float(a) < float(b); }
  friend bool operator>(const __half& a, const __half& b) { return float(a) > float(b); }
  friend bool operator<=(const __half& a, const __half& b) { return float(a) <= float(b); }
  friend bool operator>=(const __half& a, const __half& b) { return float(a) >= float(b); }
};

// Members x and y are __half (as CUDA and current HIP).
struct alignas(4) __half2 {
  __half x, y;

  __half2() = default;
  constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  constexpr __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  constexpr operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }

  __half2& operator+=(const __half2& o) { return *this = __half2(x + o.x, y + o.y); }
  __half2& operator-=(const __half2& o) { return *this = __half2(x - o.x, y - o.y); }
  __half2& operator*=(const __half2& o) { return *this = __half2(x * o.x, y * o.y); }
  __half2& operator/=(const __half2& o) { return *this = __half2(x / o.x, y / o.y); }
  __half2& operator++() { return *this += __half2(__half_raw{0x3c00}, __half_raw{0x3c00}); }
  __half2& operator--() { return *this -= __half2(__half_raw{0x3c00}, __half_raw{0x3c00}); }
  __half2 operator++(int) {
    __half2 old = *this;
    ++*this;
    return old;
  }
  __half2 operator--(int) {
    __half2 old = *this;
    --*this;
    return old;
  }
  __half2 operator+() const { return *this; }
  __half2 operator-() const { return __half2(-x, -y); }

  friend __half2 operator+(__half2 a, const __half2& b) { return a += b; }
  friend __half2 operator-(__half2 a, const __half2& b) { return a -= b; }
  friend __half2 operator*(__half2 a, const __half2& b) { return a *= b; }
  friend __half2 operator/(__half2 a, const __half2& b) { return a /= b; }
  // True when true for both halves (HIP).
  friend bool operator==(const __half2& a, const __half2& b) { return a.x == b.x && a.y == b.y; }
  friend bool operator!=(const __half2& a, const __half2& b) { return !(a == b); }
  friend bool operator<(const __half2& a, const __half2& b) { return a.x < b.x && a.y < b.y; }
  friend bool operator>(const __half2& a, const __half2& b) { return b < a; }
  friend bool operator<=(const __half2& a, const __half2& b) { return !(b < a); }
  friend bool operator>=(const __half2& a, const __half2& b) { return !(a < b); }
};

namespace __hk {
__HK_LAZY __half half_in_mode(double v, int mode) {
  return __half_raw{double_to_half_mode(v, mode)};
}
}  // namespace __hk

#include "hipkit_portable/half_bits.h"

// ---- Conversions -----------------------------------------------------------

__HK_FN __half __float2half(float f) { return __half(f); }
__HK_FN __half __float2half_rn(float f) { return __half(f); }
__HK_FN __half __float2half_rz(float f) { return __hk::half_in_mode(f, 1); }
__HK_FN __half __float2half_ru(float f) { return __hk::half_in_mode(f, 2); }
__HK_FN __half __float2half_rd(float f) { return __hk::half_in_mode(f, 3); }
__HK_FN __half __double2half(double d) { return __half(d); }
__HK_FN float __half2float(__half h) { return float(h); }
__HK_FN __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
__HK_FN __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
__HK_FN __half2 __float22half2_rn(float2 v) { return __half2(__half(v.x), __half(v.y)); }
__HK_FN float2 __half22float2(__half2 v) { return float2(float(v.x), float(v.y)); }
__HK_FN float __low2float(__half2 v) { return float(v.x); }
__HK_FN float __high2float(__half2 v) { return float(v.y); }

// half -> integer with CUDA's rounding (HIP truncates in every mode) and
// saturation; integer -> half in each rounding mode.
#define __HK_HALF_INT(to, I)                                                              \
  __HK_FN I __half2##to##_rn(__half h) { return __hk::saturate_to<I>(std::nearbyint(float(h))); } \
  __HK_FN I __half2##to##_rz(__half h) { return __hk::saturate_to<I>(float(h)); }                 \
  __HK_FN I __half2##to##_ru(__half h) { return __hk::saturate_to<I>(std::ceil(float(h))); }      \
  __HK_FN I __half2##to##_rd(__half h) { return __hk::saturate_to<I>(std::floor(float(h))); }     \
  __HK_FN __half __##to##2half_rn(I v) { return __half(v); }                                      \
  __HK_FN __half __##to##2half_rz(I v) { return __hk::half_in_mode(double(v), 1); }               \
  __HK_FN __half __##to##2half_ru(I v) { return __hk::half_in_mode(double(v), 2); }               \
  __HK_FN __half __##to##2half_rd(I v) { return __hk::half_in_mode(double(v), 3); }
__HK_HALF_INT(short, short)
__HK_HALF_INT(ushort, unsigned short)
__HK_HALF_INT(int, int)
__HK_HALF_INT(uint, unsigned int)
__HK_HALF_INT(ll, long long)
__HK_HALF_INT(ull, unsigned long long)
#undef __HK_HALF_INT

#include "hipkit_portable/half_compare.h"

// ---- Arithmetic ------------------------------------------------------------
// _sat clamps the result to [0, 1] (NaN to 0).

namespace __hk {
__HK_FN float sat01(float f) { return f >= 0.0f ? (f <= 1.0f ? f : 1.0f) : 0.0f; }
}  // namespace __hk

#define __HK_HALF_ARITH(name, expr)                                                    \
  __HK_FN __half __h##name(__half a, __half b) {                                   \
    const float x = float(a), y = float(b);                                            \
    return __half(expr);                                                               \
  }                                                                                    \
  __HK_FN __half __h##name##_sat(__half a, __half b) {                             \
    const float x = float(a), y = float(b);                                            \
    return __half(__hk::sat01(float(__half(expr))));                                   \
  }                                                                                    \
  __HK_FN __half __h##name##_rn(__half a, __half b) { return __h##name(a, b); }   \
  __HK_FN __half2 __h##name##2(__half2 a, __half2 b) {                             \
    return __half2(__h##name(a.x, b.x), __h##name(a.y, b.y));                          \
  }                                                                                    \
  __HK_FN __half2 __h##name##2_sat(__half2 a, __half2 b) {                         \
    return __half2(__h##name##_sat(a.x, b.x), __h##name##_sat(a.y, b.y));              \
  }                                                                                    \
  __HK_FN __half2 __h##name##2_rn(__half2 a, __half2 b) { return __h##name##2(a, b); }
__HK_HALF_ARITH(add, x + y)
__HK_HALF_ARITH(sub, x - y)
__HK_HALF_ARITH(mul, x * y)
#undef __HK_HALF_ARITH

__HK_FN __half __hdiv(__half a, __half b) { return __half(float(a) / float(b)); }
__HK_FN __half2 __h2div(__half2 a, __half2 b) {
  return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}
__HK_FN __half __hfma(__half a, __half b, __half c) {
  return __half_raw{__hk::fma_to_half(float(a), float(b), float(c))};
}
__HK_FN __half __hfma_sat(__half a, __half b, __half c) {
  return __half(__hk::sat01(float(__hfma(a, b, c))));
}
__HK_FN __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__HK_FN __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
__HK_FN __half __hneg(__half a) { return -a; }
__HK_FN __half2 __hneg2(__half2 a) { return -a; }
__HK_FN __half __habs(__half a) { return __half_raw{static_cast<unsigned short>(a.__x & 0x7fffu)}; }
__HK_FN __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }

// ---- Math functions (evaluated in float, rounded once) ---------------------

#define __HK_HALF_MATH(name, expr)                                                      \
  __HK_FN __half h##name(__half a) {                                                \
    const float x = float(a);                                                           \
    return __half(expr);                                                                \
  }                                                                                     \
  __HK_FN __half2 h2##name(__half2 a) { return __half2(h##name(a.x), h##name(a.y)); }
__HK_HALF_MATH(sqrt, std::sqrt(x))
__HK_HALF_MATH(rsqrt, 1.0f / std::sqrt(x))
__HK_HALF_MATH(rcp, 1.0f / x)
__HK_HALF_MATH(exp, std::exp(x))
__HK_HALF_MATH(exp2, std::exp2(x))
__HK_HALF_MATH(exp10, std::pow(10.0f, x))
__HK_HALF_MATH(log, std::log(x))
__HK_HALF_MATH(log2, std::log2(x))
__HK_HALF_MATH(log10, std::log10(x))
__HK_HALF_MATH(sin, std::sin(x))
__HK_HALF_MATH(cos, std::cos(x))
__HK_HALF_MATH(floor, std::floor(x))
__HK_HALF_MATH(ceil, std::ceil(x))
__HK_HALF_MATH(trunc, std::trunc(x))
__HK_HALF_MATH(rint, std::nearbyint(x))
#undef __HK_HALF_MATH

#endif  // HIPKIT_CPU_HALF_H
