// hipkit: HIP's hip_complex.h, shared by the CPU and NVIDIA platforms (HIP on AMD has
// its own).  As in HIP, a complex number is a float2 or double2 (x the real part, y the
// imaginary): the same layout as std::complex, Fortran's and BLAS's complex types, and on
// NVIDIA the same type as cuComplex, so that hipBLAS on cuBLAS passes pointers through.
// The platform's hip/hip_complex.h includes hip_runtime.h (float2, __host__ __device__)
// before this.
#pragma once

#include <math.h>

typedef float2 hipFloatComplex;
typedef double2 hipDoubleComplex;
typedef hipFloatComplex hipComplex;

#define __HK_COMPLEX_FN static inline __host__ __device__

__HK_COMPLEX_FN float hipCrealf(hipFloatComplex z) { return z.x; }
__HK_COMPLEX_FN float hipCimagf(hipFloatComplex z) { return z.y; }
__HK_COMPLEX_FN double hipCreal(hipDoubleComplex z) { return z.x; }
__HK_COMPLEX_FN double hipCimag(hipDoubleComplex z) { return z.y; }

__HK_COMPLEX_FN hipFloatComplex make_hipFloatComplex(float re, float im) {
  hipFloatComplex z;
  z.x = re;
  z.y = im;
  return z;
}
__HK_COMPLEX_FN hipDoubleComplex make_hipDoubleComplex(double re, double im) {
  hipDoubleComplex z;
  z.x = re;
  z.y = im;
  return z;
}
__HK_COMPLEX_FN hipComplex make_hipComplex(float re, float im) { return make_hipFloatComplex(re, im); }

__HK_COMPLEX_FN hipFloatComplex hipComplexDoubleToFloat(hipDoubleComplex z) {
  return make_hipFloatComplex(float(z.x), float(z.y));
}
__HK_COMPLEX_FN hipDoubleComplex hipComplexFloatToDouble(hipFloatComplex z) {
  return make_hipDoubleComplex(z.x, z.y);
}

// The arithmetic, once for each precision: conj, + - * /, |z| (without overflow for
// large parts) and z*w + v.
#define __HK_COMPLEX_OPS(T, R, SUFFIX, MAKE, SQRT, FABS)                                   \
  __HK_COMPLEX_FN T hipConj##SUFFIX(T z) { return MAKE(z.x, -z.y); }                          \
  __HK_COMPLEX_FN T hipCadd##SUFFIX(T a, T b) { return MAKE(a.x + b.x, a.y + b.y); }          \
  __HK_COMPLEX_FN T hipCsub##SUFFIX(T a, T b) { return MAKE(a.x - b.x, a.y - b.y); }          \
  __HK_COMPLEX_FN T hipCmul##SUFFIX(T a, T b) {                                                \
    return MAKE(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);                                 \
  }                                                                                            \
  __HK_COMPLEX_FN T hipCdiv##SUFFIX(T a, T b) {                                                \
    R scale = FABS(b.x) + FABS(b.y);                                                           \
    R br = b.x / scale, bi = b.y / scale, ar = a.x / scale, ai = a.y / scale;                  \
    R d = br * br + bi * bi;                                                                   \
    return MAKE((ar * br + ai * bi) / d, (ai * br - ar * bi) / d);                             \
  }                                                                                            \
  __HK_COMPLEX_FN R hipCabs##SUFFIX(T z) {                                                     \
    R a = FABS(z.x), b = FABS(z.y);                                                            \
    R big = a > b ? a : b, small = a > b ? b : a;                                              \
    if (big == R(0)) return big;                                                               \
    R q = small / big;                                                                         \
    return big * SQRT(R(1) + q * q);                                                           \
  }                                                                                            \
  __HK_COMPLEX_FN T hipCfma##SUFFIX(T p, T q, T r) {                                           \
    return MAKE(p.x * q.x - p.y * q.y + r.x, p.x * q.y + p.y * q.x + r.y);                     \
  }                                                                                            \
  __HK_COMPLEX_FN R hipCsqabs##SUFFIX(T z) { return z.x * z.x + z.y * z.y; }

__HK_COMPLEX_OPS(hipFloatComplex, float, f, make_hipFloatComplex, sqrtf, fabsf)
__HK_COMPLEX_OPS(hipDoubleComplex, double, , make_hipDoubleComplex, sqrt, fabs)

#undef __HK_COMPLEX_OPS
#undef __HK_COMPLEX_FN
