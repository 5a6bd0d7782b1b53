// hipkit NVIDIA platform: __half and __half2, the hip_fp16.h API (part of
// device.h).
//
// NVRTC has no cuda_fp16.h without the CUDA toolkit's include directory, so
// the types are defined here, with the CPU platform's API and semantics.
// Conversions and + - * fma are the GPU's f16 instructions (one rounding,
// never contracted); division, comparisons and math functions are computed
// in float and rounded once, as on the CPU.
#pragma once

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

namespace __hk {

__HK_FN float half_to_float(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}

// Directed rounding to half: 0 nearest even, 1 toward zero, 2 up, 3 down.
#define __HK_HALF_FROM(F, ptx, constraint)                           \
  __HK_FN unsigned short to_half(F v, int mode) {                    \
    unsigned short h;                                                \
    switch (mode) {                                                  \
      case 1:                                                        \
        asm("cvt.rz.f16." ptx " %0, %1;" : "=h"(h) : constraint(v)); \
        break;                                                       \
      case 2:                                                        \
        asm("cvt.rp.f16." ptx " %0, %1;" : "=h"(h) : constraint(v)); \
        break;                                                       \
      case 3:                                                        \
        asm("cvt.rm.f16." ptx " %0, %1;" : "=h"(h) : constraint(v)); \
        break;                                                       \
      default:                                                       \
        asm("cvt.rn.f16." ptx " %0, %1;" : "=h"(h) : constraint(v)); \
    }                                                                \
    return h;                                                        \
  }
__HK_HALF_FROM(float, "f32", "f")
__HK_HALF_FROM(double, "f64", "d")
__HK_HALF_FROM(short, "s16", "h")
__HK_HALF_FROM(unsigned short, "u16", "h")
__HK_HALF_FROM(int, "s32", "r")
__HK_HALF_FROM(unsigned int, "u32", "r")
__HK_HALF_FROM(long long, "s64", "l")
__HK_HALF_FROM(unsigned long long, "u64", "l")
#undef __HK_HALF_FROM

// f16 -> integer, rounding 0 nearest even, 1 toward zero, 2 up, 3 down; the
// instruction saturates and maps NaN to 0, as the CPU platform does.
#define __HK_HALF_TO(I, ptx, constraint)                                 \
  __HK_FN I half_to(unsigned short h, int mode, I*) {                    \
    I r;                                                                 \
    switch (mode) {                                                      \
      case 1:                                                            \
        asm("cvt.rzi." ptx ".f16 %0, %1;" : "=" constraint(r) : "h"(h)); \
        break;                                                           \
      case 2:                                                            \
        asm("cvt.rpi." ptx ".f16 %0, %1;" : "=" constraint(r) : "h"(h)); \
        break;                                                           \
      case 3:                                                            \
        asm("cvt.rmi." ptx ".f16 %0, %1;" : "=" constraint(r) : "h"(h)); \
        break;                                                           \
      default:                                                           \
        asm("cvt.rni." ptx ".f16 %0, %1;" : "=" constraint(r) : "h"(h)); \
    }                                                                    \
    return r;                                                            \
  }
__HK_HALF_TO(short, "s16", "h")
__HK_HALF_TO(unsigned short, "u16", "h")
__HK_HALF_TO(int, "s32", "r")
__HK_HALF_TO(unsigned int, "u32", "r")
__HK_HALF_TO(long long, "s64", "l")
__HK_HALF_TO(unsigned long long, "u64", "l")
#undef __HK_HALF_TO

// One f16 or f16x2 instruction on bit patterns ("h": 16-bit, "r": 32-bit).
#define __HK_HALF_OP2(name, ptx, T, c)               \
  __HK_FN T name(T a, T b) {                         \
    T r;                                             \
    asm(ptx " %0, %1, %2;" : "=" c(r) : c(a), c(b)); \
    return r;                                        \
  }
#define __HK_HALF_OP3(name, ptx, T, c)                         \
  __HK_FN T name(T a, T b, T d) {                              \
    T r;                                                       \
    asm(ptx " %0, %1, %2, %3;" : "=" c(r) : c(a), c(b), c(d)); \
    return r;                                                  \
  }
__HK_HALF_OP2(hadd, "add.rn.f16", unsigned short, "h")
__HK_HALF_OP2(hsub, "sub.rn.f16", unsigned short, "h")
__HK_HALF_OP2(hmul, "mul.rn.f16", unsigned short, "h")
__HK_HALF_OP2(hadd_sat, "add.rn.sat.f16", unsigned short, "h")
__HK_HALF_OP2(hsub_sat, "sub.rn.sat.f16", unsigned short, "h")
__HK_HALF_OP2(hmul_sat, "mul.rn.sat.f16", unsigned short, "h")
__HK_HALF_OP3(hfma, "fma.rn.f16", unsigned short, "h")
__HK_HALF_OP3(hfma_sat, "fma.rn.sat.f16", unsigned short, "h")
__HK_HALF_OP2(hadd2, "add.rn.f16x2", unsigned int, "r")
__HK_HALF_OP2(hsub2, "sub.rn.f16x2", unsigned int, "r")
__HK_HALF_OP2(hmul2, "mul.rn.f16x2", unsigned int, "r")
__HK_HALF_OP2(hadd2_sat, "add.rn.sat.f16x2", unsigned int, "r")
__HK_HALF_OP2(hsub2_sat, "sub.rn.sat.f16x2", unsigned int, "r")
__HK_HALF_OP2(hmul2_sat, "mul.rn.sat.f16x2", unsigned int, "r")
__HK_HALF_OP3(hfma2, "fma.rn.f16x2", unsigned int, "r")
__HK_HALF_OP3(hfma2_sat, "fma.rn.sat.f16x2", unsigned int, "r")
#undef __HK_HALF_OP2
#undef __HK_HALF_OP3

}  // namespace __hk

struct alignas(2) __half {
  unsigned short __x;

  __half() = default;
  __host__ __device__ constexpr __half(const __half_raw& r) : __x(r.x) {}
  __device__ __half(float f) : __x(__hk::to_half(f, 0)) {}
  __device__ __half(double d) : __x(__hk::to_half(d, 0)) {}
  // Integers up to 65520 are exact in float; larger ones overflow half anyway.
  template <class T, typename __hk::enable_if<__hk::is_integral<T>::value, int>::type = 0>
  __device__ __half(T v) : __x(__hk::to_half(static_cast<float>(v), 0)) {}

  __device__ operator float() const { return __hk::half_to_float(__x); }
  __host__ __device__ constexpr operator __half_raw() const { return __half_raw{__x}; }
  __host__ __device__ __half& operator=(const __half_raw& r) {
    __x = r.x;
    return *this;
  }

  __device__ __half& operator+=(const __half& o) {
    return *this = __half_raw{__hk::hadd(__x, o.__x)};
  }
  __device__ __half& operator-=(const __half& o) {
    return *this = __half_raw{__hk::hsub(__x, o.__x)};
  }
  __device__ __half& operator*=(const __half& o) {
    return *this = __half_raw{__hk::hmul(__x, o.__x)};
  }
  __device__ __half& operator/=(const __half& o) { return *this = __half(float(*this) / float(o)); }
  __device__ __half& operator++() { return *this += __half_raw{0x3c00}; }
  __device__ __half& operator--() { return *this -= __half_raw{0x3c00}; }
  __device__ __half operator++(int) {
    __half old = *this;
    ++*this;
    return old;
  }
  __device__ __half operator--(int) {
    __half old = *this;
    --*this;
    return old;
  }
  __device__ __half operator+() const { return *this; }
  __device__ __half operator-() const {
    return __half_raw{static_cast<unsigned short>(__x ^ 0x8000u)};
  }

  __device__ friend __half operator+(__half a, const __half& b) { return a += b; }
  __device__ friend __half operator-(__half a, const __half& b) { return a -= b; }
  __device__ friend __half operator*(__half a, const __half& b) { return a *= b; }
  __device__ friend __half operator/(__half a, const __half& b) { return a /= b; }
  __device__ friend bool operator==(const __half& a, const __half& b) {
    return float(a) == float(b);
  }
  __device__ friend bool operator!=(const __half& a, const __half& b) {
    return float(a) != float(b);
  }
  __device__ friend bool operator<(const __half& a, const __half& b) { return float(a) < float(b); }
  __device__ friend bool operator>(const __half& a, const __half& b) { return float(a) > float(b); }
  __device__ friend bool operator<=(const __half& a, const __half& b) {
    return float(a) <= float(b);
  }
  __device__ friend bool operator>=(const __half& a, const __half& b) {
    return float(a) >= float(b);
  }
};

// Members x and y are __half (as CUDA and current HIP).
struct alignas(4) __half2 {
  __half x, y;

  __half2() = default;
  __host__ __device__ constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  __host__ __device__ constexpr __half2(const __half2_raw& r)
      : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  __host__ __device__ constexpr operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }

  __device__ __half2& operator+=(const __half2& o) {
    return *this = __hk_from_bits(__hk::hadd2(__hk_bits(), o.__hk_bits()));
  }
  __device__ __half2& operator-=(const __half2& o) {
    return *this = __hk_from_bits(__hk::hsub2(__hk_bits(), o.__hk_bits()));
  }
  __device__ __half2& operator*=(const __half2& o) {
    return *this = __hk_from_bits(__hk::hmul2(__hk_bits(), o.__hk_bits()));
  }
  __device__ __half2& operator/=(const __half2& o) { return *this = __half2(x / o.x, y / o.y); }
  __device__ __half2& operator++() {
    return *this += __half2(__half_raw{0x3c00}, __half_raw{0x3c00});
  }
  __device__ __half2& operator--() {
    return *this -= __half2(__half_raw{0x3c00}, __half_raw{0x3c00});
  }
  __device__ __half2 operator++(int) {
    __half2 old = *this;
    ++*this;
    return old;
  }
  __device__ __half2 operator--(int) {
    __half2 old = *this;
    --*this;
    return old;
  }
  __device__ __half2 operator+() const { return *this; }
  __device__ __half2 operator-() const { return __half2(-x, -y); }

  __device__ friend __half2 operator+(__half2 a, const __half2& b) { return a += b; }
  __device__ friend __half2 operator-(__half2 a, const __half2& b) { return a -= b; }
  __device__ friend __half2 operator*(__half2 a, const __half2& b) { return a *= b; }
  __device__ friend __half2 operator/(__half2 a, const __half2& b) { return a /= b; }
  // True when true for both halves (HIP).
  __device__ friend bool operator==(const __half2& a, const __half2& b) {
    return a.x == b.x && a.y == b.y;
  }
  __device__ friend bool operator!=(const __half2& a, const __half2& b) { return !(a == b); }
  __device__ friend bool operator<(const __half2& a, const __half2& b) {
    return a.x < b.x && a.y < b.y;
  }
  __device__ friend bool operator>(const __half2& a, const __half2& b) { return b < a; }
  __device__ friend bool operator<=(const __half2& a, const __half2& b) { return !(b < a); }
  __device__ friend bool operator>=(const __half2& a, const __half2& b) { return !(a < b); }

  // Both halves as one 32-bit pattern (x in the low half), for f16x2.
  __device__ unsigned int __hk_bits() const {
    return x.__x | static_cast<unsigned int>(y.__x) << 16;
  }
  static __device__ __half2 __hk_from_bits(unsigned int v) {
    return __half2_raw{static_cast<unsigned short>(v), static_cast<unsigned short>(v >> 16)};
  }
};

#include "hipkit_portable/half_bits.h"

// ---- Conversions -----------------------------------------------------------

__HK_FN __half __float2half(float f) { return __half(f); }
__HK_FN __half __float2half_rn(float f) { return __half(f); }
__HK_FN __half __float2half_rz(float f) { return __half_raw{__hk::to_half(f, 1)}; }
__HK_FN __half __float2half_ru(float f) { return __half_raw{__hk::to_half(f, 2)}; }
__HK_FN __half __float2half_rd(float f) { return __half_raw{__hk::to_half(f, 3)}; }
__HK_FN __half __double2half(double d) { return __half(d); }
__HK_FN float __half2float(__half h) { return float(h); }
__HK_FN __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
__HK_FN __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
__HK_FN __half2 __float22half2_rn(float2 v) { return __half2(__half(v.x), __half(v.y)); }
__HK_FN float2 __half22float2(__half2 v) { return float2(float(v.x), float(v.y)); }
__HK_FN float __low2float(__half2 v) { return float(v.x); }
__HK_FN float __high2float(__half2 v) { return float(v.y); }

// half -> integer with CUDA's rounding and saturation; integer -> half in
// each rounding mode.
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
  __HK_FN __half2 __h##name##2(__half2 a, __half2 b) {                                             \
    return __half2::__hk_from_bits(__hk::h##name##2(a.__hk_bits(), b.__hk_bits()));                \
  }                                                                                                \
  __HK_FN __half2 __h##name##2_sat(__half2 a, __half2 b) {                                         \
    return __half2::__hk_from_bits(__hk::h##name##2_sat(a.__hk_bits(), b.__hk_bits()));            \
  }                                                                                                \
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
__HK_FN __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2::__hk_from_bits(__hk::hfma2(a.__hk_bits(), b.__hk_bits(), c.__hk_bits()));
}
__HK_FN __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
  return __half2::__hk_from_bits(__hk::hfma2_sat(a.__hk_bits(), b.__hk_bits(), c.__hk_bits()));
}
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
__HK_HALF_MATH(exp10, exp10f(x))
__HK_HALF_MATH(log, logf(x))
__HK_HALF_MATH(log2, log2f(x))
__HK_HALF_MATH(log10, log10f(x))
__HK_HALF_MATH(sin, sinf(x))
__HK_HALF_MATH(cos, cosf(x))
__HK_HALF_MATH(floor, floorf(x))
__HK_HALF_MATH(ceil, ceilf(x))
__HK_HALF_MATH(trunc, truncf(x))
__HK_HALF_MATH(rint, rintf(x))
#undef __HK_HALF_MATH
