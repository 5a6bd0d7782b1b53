// hipkit: __half and __half2, the hip_fp16.h API, shared by the CPU and NVIDIA
// platforms' half.h (HIP on AMD has its own; the AMD platform adds what it
// lacks with half_names.h and half_minmax.h).
//
// A __half is its IEEE binary16 bit pattern.  Conversions and + - * fma are
// rounded once, by the platform's primitives; division, comparisons and math
// functions are computed in float and rounded once.  Before including this,
// the platform includes half_raw.h and defines __HK_FN, __HK_DEVICE (the
// types' members), __HK_HOST_DEVICE (those host code calls too: the
// conversions), __HK_CONVERT (the conversion functions), the traits
// __hk::enable_if and is_integral, and in namespace __hk, on bit patterns,
// with rounding modes 0 nearest even, 1 toward zero, 2 up, 3 down:
//   float half_to_float(unsigned short h);                 exact; host code too
//   unsigned short to_half(F v, int mode);                 F float, double (host
//                                                          code too) or an
//                                                          integer type
//   I half_to(unsigned short h, int mode, I*);             saturating, NaN -> 0
//   unsigned short hadd, hsub, hmul (+ _sat), hfma (+ _sat)
//   __half2_raw hadd2, hsub2, hmul2 (+ _sat), hfma2 (+ _sat)
//   float half_exp10(float x);                             10^x as hexp10 takes it
// (_sat clamps the result to [0, 1], NaN to 0).
#pragma once

struct alignas(2) __half {
  unsigned short __x;

  __half() = default;
  __HK_HOST_DEVICE constexpr __half(const __half_raw& r) : __x(r.x) {}
  __HK_HOST_DEVICE __half(float f) : __x(__hk::to_half(f, 0)) {}
  __HK_HOST_DEVICE __half(double d) : __x(__hk::to_half(d, 0)) {}
  // Integers up to 65520 are exact in float; larger ones overflow half anyway.
  template <class T, typename __hk::enable_if<__hk::is_integral<T>::value, int>::type = 0>
  __HK_HOST_DEVICE __half(T v) : __x(__hk::to_half(static_cast<float>(v), 0)) {}

  __HK_HOST_DEVICE operator float() const { return __hk::half_to_float(__x); }
  __HK_HOST_DEVICE constexpr operator __half_raw() const { return __half_raw{__x}; }
  __HK_HOST_DEVICE __half& operator=(const __half_raw& r) {
    __x = r.x;
    return *this;
  }

  __HK_DEVICE __half& operator+=(const __half& o) {
    return *this = __half_raw{__hk::hadd(__x, o.__x)};
  }
  __HK_DEVICE __half& operator-=(const __half& o) {
    return *this = __half_raw{__hk::hsub(__x, o.__x)};
  }
  __HK_DEVICE __half& operator*=(const __half& o) {
    return *this = __half_raw{__hk::hmul(__x, o.__x)};
  }
  __HK_DEVICE __half& operator/=(const __half& o) {
    return *this = __half(float(*this) / float(o));
  }
  __HK_DEVICE __half& operator++() { return *this += __half_raw{0x3c00}; }
  __HK_DEVICE __half& operator--() { return *this -= __half_raw{0x3c00}; }
  __HK_DEVICE __half operator++(int) {
    __half old = *this;
    ++*this;
    return old;
  }
  __HK_DEVICE __half operator--(int) {
    __half old = *this;
    --*this;
    return old;
  }
  __HK_DEVICE __half operator+() const { return *this; }
  __HK_DEVICE __half operator-() const {
    return __half_raw{static_cast<unsigned short>(__x ^ 0x8000u)};
  }

  __HK_DEVICE friend __half operator+(__half a, const __half& b) { return a += b; }
  __HK_DEVICE friend __half operator-(__half a, const __half& b) { return a -= b; }
  __HK_DEVICE friend __half operator*(__half a, const __half& b) { return a *= b; }
  __HK_DEVICE friend __half operator/(__half a, const __half& b) { return a /= b; }
  __HK_DEVICE friend bool operator==(const __half& a, const __half& b) {
    return float(a) == float(b);
  }
  __HK_DEVICE friend bool operator!=(const __half& a, const __half& b) {
    return float(a) != float(b);
  }
  __HK_DEVICE friend bool operator<(const __half& a, const __half& b) {
    return float(a) < float(b);
  }
  __HK_DEVICE friend bool operator>(const __half& a, const __half& b) {
    return float(a) > float(b);
  }
  __HK_DEVICE friend bool operator<=(const __half& a, const __half& b) {
    return float(a) <= float(b);
  }
  __HK_DEVICE friend bool operator>=(const __half& a, const __half& b) {
    return float(a) >= float(b);
  }
};

// Members x and y are __half (as CUDA and current HIP).
struct alignas(4) __half2 {
  __half x, y;

  __half2() = default;
  __HK_HOST_DEVICE constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  __HK_HOST_DEVICE constexpr __half2(const __half2_raw& r)
      : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  // A scalar is both halves, as HIP's __half2 takes its vector type's splat: so
  // h2 += 1, h2 *= 0.5f and h2 = 2 act on each half (each rounded to half first).
  template <class T, typename __hk::enable_if<__hk::is_arithmetic<T>::value, int>::type = 0>
  __HK_HOST_DEVICE __half2(T s) : x(__half(s)), y(__half(s)) {}
  __HK_HOST_DEVICE constexpr operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }

  __HK_DEVICE __half2& operator+=(const __half2& o) { return *this = __hk::hadd2(*this, o); }
  __HK_DEVICE __half2& operator-=(const __half2& o) { return *this = __hk::hsub2(*this, o); }
  __HK_DEVICE __half2& operator*=(const __half2& o) { return *this = __hk::hmul2(*this, o); }
  __HK_DEVICE __half2& operator/=(const __half2& o) { return *this = __half2(x / o.x, y / o.y); }
  __HK_DEVICE __half2& operator++() {
    return *this += __half2(__half_raw{0x3c00}, __half_raw{0x3c00});
  }
  __HK_DEVICE __half2& operator--() {
    return *this -= __half2(__half_raw{0x3c00}, __half_raw{0x3c00});
  }
  __HK_DEVICE __half2 operator++(int) {
    __half2 old = *this;
    ++*this;
    return old;
  }
  __HK_DEVICE __half2 operator--(int) {
    __half2 old = *this;
    --*this;
    return old;
  }
  __HK_DEVICE __half2 operator+() const { return *this; }
  __HK_DEVICE __half2 operator-() const { return __half2(-x, -y); }

  __HK_DEVICE friend __half2 operator+(__half2 a, const __half2& b) { return a += b; }
  __HK_DEVICE friend __half2 operator-(__half2 a, const __half2& b) { return a -= b; }
  __HK_DEVICE friend __half2 operator*(__half2 a, const __half2& b) { return a *= b; }
  __HK_DEVICE friend __half2 operator/(__half2 a, const __half2& b) { return a /= b; }
  // True when true for both halves (HIP).
  __HK_DEVICE friend bool operator==(const __half2& a, const __half2& b) {
    return a.x == b.x && a.y == b.y;
  }
  __HK_DEVICE friend bool operator!=(const __half2& a, const __half2& b) { return !(a == b); }
  __HK_DEVICE friend bool operator<(const __half2& a, const __half2& b) {
    return a.x < b.x && a.y < b.y;
  }
  __HK_DEVICE friend bool operator>(const __half2& a, const __half2& b) { return b < a; }
  __HK_DEVICE friend bool operator<=(const __half2& a, const __half2& b) { return !(b < a); }
  __HK_DEVICE friend bool operator>=(const __half2& a, const __half2& b) { return !(a < b); }
};

#include "hipkit_portable/half_bits.h"

// ---- Conversions -----------------------------------------------------------

__HK_CONVERT __half __float2half(float f) { return __half(f); }
__HK_CONVERT __half __float2half_rn(float f) { return __half(f); }
__HK_CONVERT __half __float2half_rz(float f) { return __half_raw{__hk::to_half(f, 1)}; }
__HK_CONVERT __half __float2half_ru(float f) { return __half_raw{__hk::to_half(f, 2)}; }
__HK_CONVERT __half __float2half_rd(float f) { return __half_raw{__hk::to_half(f, 3)}; }
__HK_CONVERT __half __double2half(double d) { return __half(d); }
__HK_CONVERT float __half2float(__half h) { return float(h); }
__HK_CONVERT __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
__HK_CONVERT __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
__HK_CONVERT __half2 __float22half2_rn(float2 v) { return __half2(__half(v.x), __half(v.y)); }
__HK_CONVERT float2 __half22float2(__half2 v) { return float2(float(v.x), float(v.y)); }
__HK_CONVERT float __low2float(__half2 v) { return float(v.x); }
__HK_CONVERT float __high2float(__half2 v) { return float(v.y); }

// half -> integer with CUDA's rounding (HIP on AMD truncates in every mode)
// and saturation; integer -> half in each rounding mode.
#define __HK_HALF_INT(to, I)                                                                   \
  __HK_FN I __half2##to##_rn(__half h) { return __hk::half_to(h.__x, 0, static_cast<I*>(0)); } \
  __HK_FN I __half2##to##_rz(__half h) { return __hk::half_to(h.__x, 1, static_cast<I*>(0)); } \
  __HK_FN I __half2##to##_ru(__half h) { return __hk::half_to(h.__x, 2, static_cast<I*>(0)); } \
  __HK_FN I __half2##to##_rd(__half h) { return __hk::half_to(h.__x, 3, static_cast<I*>(0)); } \
  __HK_FN __half __##to##2half_rn(I v) { return __half_raw{__hk::to_half(v, 0)}; }             \
  __HK_FN __half __##to##2half_rz(I v) { return __half_raw{__hk::to_half(v, 1)}; }             \
  __HK_FN __half __##to##2half_ru(I v) { return __half_raw{__hk::to_half(v, 2)}; }             \
  __HK_FN __half __##to##2half_rd(I v) { return __half_raw{__hk::to_half(v, 3)}; }
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

#define __HK_HALF_ARITH(name)                                                                      \
  __HK_FN __half __h##name(__half a, __half b) { return __half_raw{__hk::h##name(a.__x, b.__x)}; } \
  __HK_FN __half __h##name##_sat(__half a, __half b) {                                             \
    return __half_raw{__hk::h##name##_sat(a.__x, b.__x)};                                          \
  }                                                                                                \
  __HK_FN __half __h##name##_rn(__half a, __half b) { return __h##name(a, b); }                    \
  __HK_FN __half2 __h##name##2(__half2 a, __half2 b) { return __hk::h##name##2(a, b); }            \
  __HK_FN __half2 __h##name##2_sat(__half2 a, __half2 b) { return __hk::h##name##2_sat(a, b); }    \
  __HK_FN __half2 __h##name##2_rn(__half2 a, __half2 b) { return __h##name##2(a, b); }
__HK_HALF_ARITH(add)
__HK_HALF_ARITH(sub)
__HK_HALF_ARITH(mul)
#undef __HK_HALF_ARITH

__HK_FN __half __hdiv(__half a, __half b) { return __half(float(a) / float(b)); }
__HK_FN __half2 __h2div(__half2 a, __half2 b) {
  return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}
__HK_FN __half __hfma(__half a, __half b, __half c) {
  return __half_raw{__hk::hfma(a.__x, b.__x, c.__x)};
}
__HK_FN __half __hfma_sat(__half a, __half b, __half c) {
  return __half_raw{__hk::hfma_sat(a.__x, b.__x, c.__x)};
}
__HK_FN __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __hk::hfma2(a, b, c); }
__HK_FN __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) { return __hk::hfma2_sat(a, b, c); }
__HK_FN __half __hneg(__half a) { return -a; }
__HK_FN __half2 __hneg2(__half2 a) { return -a; }
__HK_FN __half __habs(__half a) { return __half_raw{static_cast<unsigned short>(a.__x & 0x7fffu)}; }
__HK_FN __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }

// ---- Math functions (evaluated in float, rounded once) ---------------------

#define __HK_HALF_MATH(name, expr)   \
  __HK_FN __half h##name(__half a) { \
    const float x = float(a);        \
    return __half(expr);             \
  }                                  \
  __HK_FN __half2 h2##name(__half2 a) { return __half2(h##name(a.x), h##name(a.y)); }
__HK_HALF_MATH(sqrt, sqrtf(x))
__HK_HALF_MATH(rsqrt, 1.0f / sqrtf(x))
__HK_HALF_MATH(rcp, 1.0f / x)
__HK_HALF_MATH(exp, expf(x))
__HK_HALF_MATH(exp2, exp2f(x))
__HK_HALF_MATH(exp10, __hk::half_exp10(x))
__HK_HALF_MATH(log, logf(x))
__HK_HALF_MATH(log2, log2f(x))
__HK_HALF_MATH(log10, log10f(x))
__HK_HALF_MATH(sin, sinf(x))
__HK_HALF_MATH(cos, cosf(x))
__HK_HALF_MATH(floor, floorf(x))
__HK_HALF_MATH(ceil, ceilf(x))
__HK_HALF_MATH(trunc, truncf(x))
__HK_HALF_MATH(rint, nearbyintf(x))
#undef __HK_HALF_MATH
