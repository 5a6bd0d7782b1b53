// hipkit: hipRAND's device distributions over the engines (rand_kernel.h), the same
// code on every platform.
//
// What is the same everywhere, bit for bit: which engine numbers each call uses, and
// the uniform floats and doubles made of them (exact arithmetic: a 32-bit number
// times 2^-32 plus half of that, so (0, 1]).  Normals are Box-Muller pairs of those
// numbers as cuRAND makes them; their logarithms, roots and sines are the platform's
// math library's: on NVIDIA cuRAND's own choices (logf, sqrtf and the __sincosf
// intrinsic; sincospi for doubles), so that they match cuRAND bit for bit; on the CPU
// and AMD the correctly rounded sinf/cosf and sin/cos (as cuRAND's host build), which
// agree with NVIDIA's to a few units in the last place.
#pragma once

#define __HK_2POW32_INV 2.3283064e-10f
#define __HK_2POW32_INV_DOUBLE 2.3283064365386963e-10
#define __HK_2POW53_INV_DOUBLE 1.1102230246251565e-16
#define __HK_2PI 6.2831855f
#define __HK_PI_DOUBLE 3.1415926535897932
#define __HK_PAIR_NORMAL 1  // what pair_extra holds: the second normal,
#define __HK_PAIR_LOG_NORMAL 2  // or the second log-normal

// ---- uniform ----------------------------------------------------------------

__HK_RAND_FN float __hk_uniform(unsigned int x) { return x * __HK_2POW32_INV + (__HK_2POW32_INV / 2.0f); }
// 53 bits of two numbers (cuRAND's "hq" doubles): x ^ (y << 21), in (0, 1).
__HK_RAND_FN double __hk_uniform_double2(unsigned int x, unsigned int y) {
  const unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
  return z * __HK_2POW53_INV_DOUBLE + (__HK_2POW53_INV_DOUBLE / 2.0);
}

__HK_RAND_FN float hiprand_uniform(hiprandStatePhilox4_32_10_t* s) { return __hk_uniform(hiprand(s)); }
__HK_RAND_FN float hiprand_uniform(hiprandStateXORWOW_t* s) { return __hk_uniform(hiprand(s)); }
__HK_RAND_FN float hiprand_uniform(hiprandStateMRG32k3a_t* s) {
  return (float)(__hk_mrg32k3a_next(s) * __HK_MRG_NORM);
}
// Philox's double is one number's 32 bits; XORWOW's takes two (cuRAND's choices).
__HK_RAND_FN double hiprand_uniform_double(hiprandStatePhilox4_32_10_t* s) {
  return hiprand(s) * __HK_2POW32_INV_DOUBLE + __HK_2POW32_INV_DOUBLE;
}
__HK_RAND_FN double hiprand_uniform_double(hiprandStateXORWOW_t* s) {
  const unsigned int x = hiprand(s);
  return __hk_uniform_double2(x, hiprand(s));
}
__HK_RAND_FN double hiprand_uniform_double(hiprandStateMRG32k3a_t* s) {
  return __hk_mrg32k3a_next(s) * __HK_MRG_NORM;
}
__HK_RAND_FN float4 hiprand_uniform4(hiprandStatePhilox4_32_10_t* s) {
  const uint4 x = hiprand4(s);
  return make_float4(__hk_uniform(x.x), __hk_uniform(x.y), __hk_uniform(x.z), __hk_uniform(x.w));
}
__HK_RAND_FN double2 hiprand_uniform2_double(hiprandStatePhilox4_32_10_t* s) {
  const uint4 x = hiprand4(s);
  return make_double2(__hk_uniform_double2(x.x, x.y), __hk_uniform_double2(x.z, x.w));
}
__HK_RAND_FN double4 hiprand_uniform4_double(hiprandStatePhilox4_32_10_t* s) {
  const double2 a = hiprand_uniform2_double(s), b = hiprand_uniform2_double(s);
  return make_double4(a.x, a.y, b.x, b.y);
}

// ---- Box-Muller pairs ---------------------------------------------------------

__HK_RAND_FN float2 __hk_polar(float u, float angle) {
  float2 r;
  const float radius = sqrtf(-2.0f * logf(u));
#if defined(__CUDA_ARCH__)
  __sincosf(angle, &r.x, &r.y);
#else
  r.x = sinf(angle);
  r.y = cosf(angle);
#endif
  r.x *= radius;
  r.y *= radius;
  return r;
}

// angle_pi is the angle over pi.
__HK_RAND_FN double2 __hk_polar_double(double u, double angle_pi) {
  double2 r;
  const double radius = sqrt(-2.0 * log(u));
#if defined(__CUDA_ARCH__)
  sincospi(angle_pi, &r.x, &r.y);
#else
  r.x = sin(angle_pi * __HK_PI_DOUBLE);
  r.y = cos(angle_pi * __HK_PI_DOUBLE);
#endif
  r.x *= radius;
  r.y *= radius;
  return r;
}

__HK_RAND_FN float2 __hk_box_muller(unsigned int x, unsigned int y) {
  return __hk_polar(__hk_uniform(x), y * (__HK_2POW32_INV * __HK_2PI) + (__HK_2POW32_INV * __HK_2PI / 2));
}
__HK_RAND_FN double2 __hk_box_muller_double(unsigned int x0, unsigned int x1, unsigned int y0, unsigned int y1) {
  const unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << (53 - 32));
  return __hk_polar_double(__hk_uniform_double2(x0, x1), zy * (__HK_2POW53_INV_DOUBLE * 2.0) + __HK_2POW53_INV_DOUBLE);
}

// Each engine's pair of normals, float and double: from two (four) numbers, or
// MRG32k3a's from its uniforms.
__HK_RAND_FN float2 __hk_pair(hiprandStatePhilox4_32_10_t* s) {
  const unsigned int x = hiprand(s);
  return __hk_box_muller(x, hiprand(s));
}
__HK_RAND_FN float2 __hk_pair(hiprandStateXORWOW_t* s) {
  const unsigned int x = hiprand(s);
  return __hk_box_muller(x, hiprand(s));
}
__HK_RAND_FN float2 __hk_pair(hiprandStateMRG32k3a_t* s) {
  const float u = hiprand_uniform(s);
  return __hk_polar(u, hiprand_uniform(s) * __HK_2PI);
}
__HK_RAND_FN double2 __hk_pair_double(hiprandStatePhilox4_32_10_t* s) {
  const uint4 x = hiprand4(s);
  return __hk_box_muller_double(x.x, x.y, x.z, x.w);
}
__HK_RAND_FN double2 __hk_pair_double(hiprandStateXORWOW_t* s) {
  unsigned int x[4];
  for (int i = 0; i < 4; ++i) x[i] = hiprand(s);
  return __hk_box_muller_double(x[0], x[1], x[2], x[3]);
}
__HK_RAND_FN double2 __hk_pair_double(hiprandStateMRG32k3a_t* s) {
  const double u = hiprand_uniform_double(s);
  return __hk_polar_double(u, hiprand_uniform_double(s) * 2.0);
}

// ---- normal and log-normal ----------------------------------------------------

// One value of a pair, the other kept for the next call of the same kind.
#define __HK_RAND_ONE_OF_PAIR(T, FLAG, EXTRA, KIND, PAIR, MAP)          \
  if (s->FLAG != KIND) {                                                \
    const T pair = PAIR(s);                                             \
    s->EXTRA = MAP(pair.y);                                             \
    s->FLAG = KIND;                                                     \
    return MAP(pair.x);                                                 \
  }                                                                     \
  s->FLAG = 0;                                                          \
  return s->EXTRA

#define __HK_RAND_SAME(v) (v)
#define __HK_RAND_EXPF(v) expf(mean + (stddev * (v)))
#define __HK_RAND_EXP(v) exp(mean + (stddev * (v)))

template <class S> __HK_RAND_FN float hiprand_normal(S* s) {
  __HK_RAND_ONE_OF_PAIR(float2, pair_flag, pair_extra, __HK_PAIR_NORMAL, __hk_pair, __HK_RAND_SAME);
}
template <class S> __HK_RAND_FN double hiprand_normal_double(S* s) {
  __HK_RAND_ONE_OF_PAIR(double2, pair_flag_double, pair_extra_double, __HK_PAIR_NORMAL, __hk_pair_double,
                        __HK_RAND_SAME);
}
template <class S> __HK_RAND_FN float hiprand_log_normal(S* s, float mean, float stddev) {
  __HK_RAND_ONE_OF_PAIR(float2, pair_flag, pair_extra, __HK_PAIR_LOG_NORMAL, __hk_pair, __HK_RAND_EXPF);
}
template <class S> __HK_RAND_FN double hiprand_log_normal_double(S* s, double mean, double stddev) {
  __HK_RAND_ONE_OF_PAIR(double2, pair_flag_double, pair_extra_double, __HK_PAIR_LOG_NORMAL, __hk_pair_double,
                        __HK_RAND_EXP);
}

template <class S> __HK_RAND_FN float2 hiprand_normal2(S* s) { return __hk_pair(s); }
template <class S> __HK_RAND_FN double2 hiprand_normal2_double(S* s) { return __hk_pair_double(s); }
template <class S> __HK_RAND_FN float2 hiprand_log_normal2(S* s, float mean, float stddev) {
  const float2 v = __hk_pair(s);
  return make_float2(__HK_RAND_EXPF(v.x), __HK_RAND_EXPF(v.y));
}
template <class S> __HK_RAND_FN double2 hiprand_log_normal2_double(S* s, double mean, double stddev) {
  const double2 v = __hk_pair_double(s);
  return make_double2(__HK_RAND_EXP(v.x), __HK_RAND_EXP(v.y));
}

// Philox's four at once, from one block (hiprand4).
__HK_RAND_FN float4 hiprand_normal4(hiprandStatePhilox4_32_10_t* s) {
  const uint4 x = hiprand4(s);
  const float2 a = __hk_box_muller(x.x, x.y), b = __hk_box_muller(x.z, x.w);
  return make_float4(a.x, a.y, b.x, b.y);
}
__HK_RAND_FN double4 hiprand_normal4_double(hiprandStatePhilox4_32_10_t* s) {
  const double2 a = __hk_pair_double(s), b = __hk_pair_double(s);
  return make_double4(a.x, a.y, b.x, b.y);
}
__HK_RAND_FN float4 hiprand_log_normal4(hiprandStatePhilox4_32_10_t* s, float mean, float stddev) {
  const float4 v = hiprand_normal4(s);
  return make_float4(__HK_RAND_EXPF(v.x), __HK_RAND_EXPF(v.y), __HK_RAND_EXPF(v.z), __HK_RAND_EXPF(v.w));
}
__HK_RAND_FN double4 hiprand_log_normal4_double(hiprandStatePhilox4_32_10_t* s, double mean, double stddev) {
  const double4 v = hiprand_normal4_double(s);
  return make_double4(__HK_RAND_EXP(v.x), __HK_RAND_EXP(v.y), __HK_RAND_EXP(v.z), __HK_RAND_EXP(v.w));
}

#include "rand_poisson.h"
