// hipkit CPU platform: the parts of CUDA's math API that C++ lacks (part of
// device.h): min/max overloads, rsqrt, sinpi, exp10, erfinv and friends,
// the fast intrinsics (__expf, ...) and the rounding-mode intrinsics
// (__fadd_rz, ...).  The C functions (sinf, expf, fmaf, erff, ...) and the
// float overloads (sqrt(float), ...) come from <cmath>/<math.h>.
#ifndef HIPKIT_CPU_DEVICE_MATH_H
#define HIPKIT_CPU_DEVICE_MATH_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

// ---- min / max --------------------------------------------------------------
// CUDA's overload set (math_functions.hpp): non-templates, so that a call with
// two ints or two floats prefers them over std::min under `using namespace
// std;`.  Mixed signed/unsigned arguments compare as unsigned, as CUDA does.

#define __HK_MINMAX(R, A, B)                                                     \
  __HK_INLINE R min(A a, B b) {                                                  \
    const R x = static_cast<R>(a), y = static_cast<R>(b);                        \
    return x < y ? x : y;                                                        \
  }                                                                              \
  __HK_INLINE R max(A a, B b) {                                                  \
    const R x = static_cast<R>(a), y = static_cast<R>(b);                        \
    return x > y ? x : y;                                                        \
  }
__HK_MINMAX(int, int, int)
__HK_MINMAX(unsigned int, unsigned int, unsigned int)
__HK_MINMAX(unsigned int, int, unsigned int)
__HK_MINMAX(unsigned int, unsigned int, int)
__HK_MINMAX(long, long, long)
__HK_MINMAX(unsigned long, unsigned long, unsigned long)
__HK_MINMAX(unsigned long, long, unsigned long)
__HK_MINMAX(unsigned long, unsigned long, long)
__HK_MINMAX(long long, long long, long long)
__HK_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__HK_MINMAX(unsigned long long, long long, unsigned long long)
__HK_MINMAX(unsigned long long, unsigned long long, long long)
#undef __HK_MINMAX

// fminf/fmaxf semantics (a NaN argument is ignored), written as a select so
// that loops vectorize instead of calling libm.
#define __HK_FMINMAX(R, A, B)                                                    \
  __HK_INLINE R min(A a, B b) {                                                  \
    const R x = a, y = b;                                                        \
    return y < x || x != x ? y : x;                                              \
  }                                                                              \
  __HK_INLINE R max(A a, B b) {                                                  \
    const R x = a, y = b;                                                        \
    return y > x || x != x ? y : x;                                              \
  }
__HK_FMINMAX(float, float, float)
__HK_FMINMAX(double, double, double)
__HK_FMINMAX(double, float, double)
__HK_FMINMAX(double, double, float)
#undef __HK_FMINMAX

__HK_FN unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
__HK_FN unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
__HK_FN long long llmin(long long a, long long b) { return min(a, b); }
__HK_FN long long llmax(long long a, long long b) { return max(a, b); }
__HK_FN unsigned long long ullmin(unsigned long long a, unsigned long long b) { return min(a, b); }
__HK_FN unsigned long long ullmax(unsigned long long a, unsigned long long b) { return max(a, b); }

// ---- Functions some C libraries also declare --------------------------------
// exp10 and sincos are GNU extensions; rsqrt, sinpi and cospi are C23.  Ours
// are templates (__HK_LAZY), so where the C library declares the same
// function, the library's non-template wins overload resolution and nothing
// clashes.

namespace __hk {
constexpr double pi = 3.14159265358979323846;

// sin(pi x) and cos(pi x) with exact argument reduction (remainder is exact).
__HK_LAZY double sinpi(double x) {
  if (!std::isfinite(x)) return x - x;
  double r = std::remainder(x, 2.0);  // [-1, 1]
  if (r > 0.5) r = 1.0 - r;
  if (r < -0.5) r = -1.0 - r;
  const double s = std::sin(pi * r);
  return s == 0 ? std::copysign(0.0, x) : s;  // sinpi(-n) is -0
}
__HK_LAZY double cospi(double x) {
  if (!std::isfinite(x)) return x - x;
  const double a = std::fabs(std::remainder(x, 2.0));  // [0, 1]
  return a <= 0.25 ? std::cos(pi * a) : std::sin(pi * (0.5 - a));
}
}  // namespace __hk

__HK_LAZY double rsqrt(double x) { return 1.0 / std::sqrt(x); }
__HK_LAZY float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
__HK_LAZY float rsqrt(float x) { return 1.0f / std::sqrt(x); }
__HK_LAZY double exp10(double x) { return std::pow(10.0, x); }
__HK_LAZY float exp10f(float x) { return float(std::pow(10.0, double(x))); }
__HK_LAZY float exp10(float x) { return exp10f(x); }
__HK_LAZY void sincos(double x, double* s, double* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
__HK_LAZY void sincosf(float x, float* s, float* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
__HK_LAZY void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
__HK_LAZY double sinpi(double x) { return __hk::sinpi(x); }
__HK_LAZY double cospi(double x) { return __hk::cospi(x); }
__HK_LAZY float sinpif(float x) { return float(__hk::sinpi(x)); }
__HK_LAZY float cospif(float x) { return float(__hk::cospi(x)); }
__HK_LAZY float sinpi(float x) { return sinpif(x); }
__HK_LAZY float cospi(float x) { return cospif(x); }

__HK_LAZY void sincospi(double x, double* s, double* c) {
  *s = __hk::sinpi(x);
  *c = __hk::cospi(x);
}
__HK_LAZY void sincospif(float x, float* s, float* c) {
  *s = float(__hk::sinpi(x));
  *c = float(__hk::cospi(x));
}
__HK_LAZY void sincospi(float x, float* s, float* c) { sincospif(x, s, c); }
__HK_LAZY double rcbrt(double x) { return 1.0 / std::cbrt(x); }
__HK_LAZY float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
__HK_LAZY float rcbrt(float x) { return rcbrtf(x); }

__HK_FN float __saturatef(float x) { return x >= 0.0f ? (x <= 1.0f ? x : 1.0f) : 0.0f; }
__HK_FN float saturate(float x) { return __saturatef(x); }
__HK_FN float fdividef(float a, float b) { return a / b; }
__HK_FN double fdivide(double a, double b) { return a / b; }
// An integer power (OCML's pown): pown(x, 0) is 1 for every x.
__HK_LAZY double powi(double base, int iexp) { return std::pow(base, double(iexp)); }
__HK_LAZY float powif(float base, int iexp) { return float(std::pow(double(base), double(iexp))); }

// ---- Norms --------------------------------------------------------------------

namespace __hk {
// sqrt of a sum of squares without overflow or underflow; an infinite
// element wins over NaN, as in hypot.
__HK_LAZY double norm(int n, const double* a) {
  double m = 0;
  bool nan = false;
  for (int i = 0; i < n; ++i) {
    const double v = std::fabs(a[i]);
    if (v != v) nan = true;
    else if (v > m) m = v;
  }
  if (m == HUGE_VAL || m == 0) return m;
  if (nan) return NAN;
  double s = 0;
  for (int i = 0; i < n; ++i) s += (a[i] / m) * (a[i] / m);
  return m * std::sqrt(s);
}
// Floats cannot overflow a double sum of squares.
__HK_LAZY double normf(int n, const float* a) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += double(a[i]) * a[i];
  return std::sqrt(s);
}
}  // namespace __hk

__HK_LAZY double norm(int dim, const double* a) { return __hk::norm(dim, a); }
__HK_LAZY double rnorm(int dim, const double* a) { return 1.0 / __hk::norm(dim, a); }
__HK_LAZY float normf(int dim, const float* a) { return float(__hk::normf(dim, a)); }
__HK_LAZY float rnormf(int dim, const float* a) { return float(1.0 / __hk::normf(dim, a)); }
__HK_LAZY double norm3d(double a, double b, double c) {
  const double v[3] = {a, b, c};
  return __hk::norm(3, v);
}
__HK_LAZY double norm4d(double a, double b, double c, double d) {
  const double v[4] = {a, b, c, d};
  return __hk::norm(4, v);
}
__HK_LAZY double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
__HK_LAZY double rnorm4d(double a, double b, double c, double d) {
  return 1.0 / norm4d(a, b, c, d);
}
__HK_LAZY double rhypot(double a, double b) { return 1.0 / std::hypot(a, b); }
__HK_LAZY float norm3df(float a, float b, float c) {
  return float(std::sqrt(double(a) * a + double(b) * b + double(c) * c));
}
__HK_LAZY float norm4df(float a, float b, float c, float d) {
  return float(std::sqrt(double(a) * a + double(b) * b + double(c) * c + double(d) * d));
}
__HK_LAZY float rnorm3df(float a, float b, float c) {
  return float(1.0 / std::sqrt(double(a) * a + double(b) * b + double(c) * c));
}
__HK_LAZY float rnorm4df(float a, float b, float c, float d) {
  return float(1.0 / std::sqrt(double(a) * a + double(b) * b + double(c) * c + double(d) * d));
}
__HK_LAZY float rhypotf(float a, float b) { return float(1.0 / std::hypot(double(a), double(b))); }

// ---- Error-function family ------------------------------------------------------

namespace __hk {
constexpr double sqrt_pi = 1.77245385090551602730;

// Giles' single-precision erfinv approximation for w = -log((1-y)(1+y)),
// refined below by Newton steps on erf or erfc.
__HK_LAZY double erfinv_guess(double w, double y) {
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * y;
}
// erfinv(y) for |y| <= 1/2.
__HK_LAZY double erfinv_small(double y) {
  double x = erfinv_guess(-std::log((1.0 - y) * (1.0 + y)), y);
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) * (sqrt_pi / 2) * std::exp(x * x);
  return x;
}
// The x >= 0 with erfc(x) = z, for 0 < z <= 1/2 (z exact: no 1 - z loss).
__HK_LAZY double erfcinv_tail(double z) {
  const double w = -std::log(z * (2.0 - z));
  double x;
  if (w < 16.0) {  // the range Giles' approximation was fitted on
    x = erfinv_guess(w, 1.0 - z);
  } else {  // erfc(x) ~ exp(-x^2) / (x sqrt(pi)) (1 - 1/(2x^2)), solved by iteration
    x = std::sqrt(w);
    for (int i = 0; i < 4; ++i) x = std::sqrt(-std::log(z * x * sqrt_pi / (1.0 - 0.5 / (x * x))));
  }
  for (int i = 0; i < 4; ++i) {  // Newton on erfc(x) - z
    const double e = std::exp(x * x);
    if (!(e < HUGE_VAL)) break;
    x += (std::erfc(x) - z) * (sqrt_pi / 2) * e;
  }
  return x;
}
__HK_LAZY double erfinv(double y) {
  if (!(std::fabs(y) <= 1.0)) return NAN;
  if (std::fabs(y) == 1.0) return std::copysign(HUGE_VAL, y);
  if (std::fabs(y) <= 0.5) return erfinv_small(y);
  return y > 0 ? erfcinv_tail(1.0 - y) : -erfcinv_tail(1.0 + y);
}
__HK_LAZY double erfcinv(double z) {
  if (!(z >= 0.0 && z <= 2.0)) return NAN;
  if (z == 0.0) return HUGE_VAL;
  if (z == 2.0) return -HUGE_VAL;
  if (z >= 0.5 && z <= 1.5) return erfinv_small(1.0 - z);
  return z < 0.5 ? erfcinv_tail(z) : -erfcinv_tail(2.0 - z);
}
// exp(x^2) erfc(x), with x^2 split exactly so the exponential stays accurate.
__HK_LAZY double erfcx(double x) {
  if (x < -26.7) return HUGE_VAL;
  if (x < 25.0) {
    const double hi = x * x, lo = std::fma(x, x, -hi);
    return std::exp(hi) * std::exp(lo) * std::erfc(x);
  }
  const double t = 0.5 / (x * x);  // asymptotic series; converges fast here
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 12; ++k) sum += term *= -(2 * k - 1) * t;
  return sum / (x * sqrt_pi);
}
}  // namespace __hk

__HK_LAZY double erfinv(double x) { return __hk::erfinv(x); }
__HK_LAZY double erfcinv(double x) { return __hk::erfcinv(x); }
__HK_LAZY double erfcx(double x) { return __hk::erfcx(x); }
// erfc(-x/sqrt(2)) with the rounding error of -x/sqrt(2) corrected to first
// order: in the tail that error would be amplified by x^2.
__HK_LAZY double normcdf(double x) {
  // 1/sqrt(2) = c + c_lo
  constexpr double c = 0.70710678118654752440, c_lo = -4.833646656726457e-17;
  const double t = -x * c, t_lo = std::fma(-x, c, -t) - x * c_lo;
  return 0.5 * (std::erfc(t) - t_lo * (2.0 / __hk::sqrt_pi) * std::exp(-t * t));
}
__HK_LAZY double normcdfinv(double p) { return -1.41421356237309504880 * __hk::erfcinv(2.0 * p); }
__HK_LAZY float erfinvf(float x) { return float(__hk::erfinv(x)); }
__HK_LAZY float erfcinvf(float x) { return float(__hk::erfcinv(x)); }
__HK_LAZY float erfcxf(float x) { return float(__hk::erfcx(x)); }
__HK_LAZY float normcdff(float x) { return float(normcdf(double(x))); }
__HK_LAZY float normcdfinvf(float p) { return float(normcdfinv(double(p))); }
__HK_LAZY float erfinv(float x) { return erfinvf(x); }
__HK_LAZY float erfcinv(float x) { return erfcinvf(x); }
__HK_LAZY float erfcx(float x) { return erfcxf(x); }
__HK_LAZY float normcdf(float x) { return normcdff(x); }
__HK_LAZY float normcdfinv(float p) { return normcdfinvf(p); }

__HK_LAZY double cyl_bessel_i0(double x) {
  return std::cyl_bessel_i(0.0, std::fabs(x));
}
__HK_LAZY double cyl_bessel_i1(double x) {
  return std::copysign(std::cyl_bessel_i(1.0, std::fabs(x)), x);
}
__HK_LAZY float cyl_bessel_i0f(float x) {
  return float(cyl_bessel_i0(x));
}
__HK_LAZY float cyl_bessel_i1f(float x) {
  return float(cyl_bessel_i1(x));
}

// ---- Fast intrinsics --------------------------------------------------------------
// The GPU's approximations; here the accurate functions.  glibc declares
// __expf & co. (internal names it does not export), so these definitions
// match its declarations (noexcept) and replace them.

__HK_INLINE float __expf(float x) noexcept { return std::exp(x); }
__HK_INLINE float __exp10f(float x) noexcept { return exp10f(x); }
__HK_INLINE float __logf(float x) noexcept { return std::log(x); }
__HK_INLINE float __log2f(float x) noexcept { return std::log2(x); }
__HK_INLINE float __log10f(float x) noexcept { return std::log10(x); }
__HK_INLINE float __sinf(float x) noexcept { return std::sin(x); }
__HK_INLINE float __cosf(float x) noexcept { return std::cos(x); }
__HK_INLINE float __tanf(float x) noexcept { return std::tan(x); }
__HK_INLINE void __sincosf(float x, float* s, float* c) noexcept { sincosf(x, s, c); }
__HK_INLINE float __powf(float x, float y) noexcept { return std::pow(x, y); }
__HK_FN float __fdividef(float a, float b) { return a / b; }

// ---- IEEE operations with explicit rounding --------------------------------------
// _rn: round to nearest even, never contracted into a fused multiply-add;
// _rz/_ru/_rd: evaluated under that rounding mode.

__HK_FN float __fadd_rn(float a, float b) { return __hk::opaque(a) + __hk::opaque(b); }
__HK_FN float __fsub_rn(float a, float b) { return __hk::opaque(a) - __hk::opaque(b); }
__HK_FN float __fmul_rn(float a, float b) { return __hk::opaque(a * b); }
__HK_FN float __fdiv_rn(float a, float b) { return a / b; }
__HK_FN float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
__HK_FN float __frcp_rn(float a) { return 1.0f / a; }
__HK_FN float __fsqrt_rn(float a) { return std::sqrt(a); }
__HK_FN float __frsqrt_rn(float a) { return float(1.0 / std::sqrt(double(a))); }
__HK_FN double __dadd_rn(double a, double b) { return __hk::opaque(a) + __hk::opaque(b); }
__HK_FN double __dsub_rn(double a, double b) { return __hk::opaque(a) - __hk::opaque(b); }
__HK_FN double __dmul_rn(double a, double b) { return __hk::opaque(a * b); }
__HK_FN double __ddiv_rn(double a, double b) { return a / b; }
__HK_FN double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
__HK_FN double __drcp_rn(double a) { return 1.0 / a; }
__HK_FN double __dsqrt_rn(double a) { return std::sqrt(a); }

#define __HK_ROUNDED(rm, mode)                                                              \
  __HK_FN float __fadd_##rm(float a, float b) {                                              \
    return __hk::rounded(mode, [=] { return __hk::opaque_in(a) + __hk::opaque_in(b); });     \
  }                                                                                         \
  __HK_FN float __fsub_##rm(float a, float b) {                                              \
    return __hk::rounded(mode, [=] { return __hk::opaque_in(a) - __hk::opaque_in(b); });     \
  }                                                                                         \
  __HK_FN float __fmul_##rm(float a, float b) {                                              \
    return __hk::rounded(mode, [=] { return __hk::opaque_in(a) * __hk::opaque_in(b); });     \
  }                                                                                         \
  __HK_FN float __fdiv_##rm(float a, float b) {                                              \
    return __hk::rounded(mode, [=] { return __hk::opaque_in(a) / __hk::opaque_in(b); });     \
  }                                                                                         \
  __HK_FN float __fmaf_##rm(float a, float b, float c) {                                     \
    return __hk::rounded(mode, [=] {                                                        \
      return std::fma(__hk::opaque_in(a), __hk::opaque_in(b), __hk::opaque_in(c));          \
    });                                                                                     \
  }                                                                                         \
  __HK_FN float __frcp_##rm(float a) {                                                       \
    return __hk::rounded(mode, [=] { return 1.0f / __hk::opaque_in(a); });                  \
  }                                                                                         \
  __HK_FN float __fsqrt_##rm(float a) {                                                      \
    return __hk::rounded(mode, [=] { return std::sqrt(__hk::opaque_in(a)); });              \
  }                                                                                         \
  __HK_FN double __dadd_##rm(double a, double b) {                                           \
    return __hk::rounded(mode, [=] { return __hk::opaque_in(a) + __hk::opaque_in(b); });     \
  }                                                                                         \
  __HK_FN double __dsub_##rm(double a, double b) {                                           \
    return __hk::rounded(mode, [=] { return __hk::opaque_in(a) - __hk::opaque_in(b); });     \
  }                                                                                         \
  __HK_FN double __dmul_##rm(double a, double b) {                                           \
    return __hk::rounded(mode, [=] { return __hk::opaque_in(a) * __hk::opaque_in(b); });     \
  }                                                                                         \
  __HK_FN double __ddiv_##rm(double a, double b) {                                           \
    return __hk::rounded(mode, [=] { return __hk::opaque_in(a) / __hk::opaque_in(b); });     \
  }                                                                                         \
  __HK_FN double __fma_##rm(double a, double b, double c) {                                  \
    return __hk::rounded(mode, [=] {                                                        \
      return std::fma(__hk::opaque_in(a), __hk::opaque_in(b), __hk::opaque_in(c));          \
    });                                                                                     \
  }                                                                                         \
  __HK_FN double __drcp_##rm(double a) {                                                     \
    return __hk::rounded(mode, [=] { return 1.0 / __hk::opaque_in(a); });                   \
  }                                                                                         \
  __HK_FN double __dsqrt_##rm(double a) {                                                    \
    return __hk::rounded(mode, [=] { return std::sqrt(__hk::opaque_in(a)); });              \
  }
__HK_ROUNDED(rz, FE_TOWARDZERO)
__HK_ROUNDED(ru, FE_UPWARD)
__HK_ROUNDED(rd, FE_DOWNWARD)
#undef __HK_ROUNDED

#endif  // HIPKIT_CPU_DEVICE_MATH_H
