// hipkit: hipRAND's Poisson numbers in kernels (rand_distributions.h includes this),
// by cuRAND's three methods: for lambda < 64 Knuth's product of uniforms (The Art of
// Computer Programming, vol. 2, 3.4.1), above 4000 the rounded normal approximation,
// between them rejection from an approximate incomplete gamma function.  The
// approximations' exp, log, rsqrt and reciprocal are NVIDIA's approximate
// instructions on NVIDIA (as cuRAND), the math library's elsewhere.
#pragma once

#if defined(__CUDA_ARCH__)
__HK_RAND_FN float __hk_fast_rsqrt(float a) {
  asm("rsqrt.approx.f32.ftz %0, %1;" : "=f"(a) : "f"(a));
  return a;
}
__HK_RAND_FN float __hk_fast_exp(float a) {
  a = a * 1.4426950408889634074;
  asm("ex2.approx.f32.ftz %0, %1;" : "=f"(a) : "f"(a));
  return a;
}
__HK_RAND_FN float __hk_fast_log(float a) {
  asm("lg2.approx.f32.ftz %0, %1;" : "=f"(a) : "f"(a));
  return a * 0.69314718055994530942;
}
__HK_RAND_FN float __hk_fast_rcp(float a) {
  asm("rcp.approx.f32.ftz %0, %1;" : "=f"(a) : "f"(a));
  return a;
}
#else
__HK_RAND_FN float __hk_fast_rsqrt(float a) { return 1.0f / sqrtf(a); }
__HK_RAND_FN float __hk_fast_exp(float a) { return expf(a); }
__HK_RAND_FN float __hk_fast_log(float a) { return logf(a); }
__HK_RAND_FN float __hk_fast_rcp(float a) { return 1.0f / a; }
#endif

// The incomplete gamma function's approximation P(a, x) and its inverse: a logistic
// curve in x whose slope and centre depend on a.
__HK_RAND_FN void __hk_gammainc_shape(float a, float* alpha, float* beta) {
  *alpha = 1.43248035075540910f * __hk_fast_rsqrt(a - 0.12400979329415655f) + 0.00025361074907033f;
  *beta = 0.21096734870196546f * __hk_fast_rsqrt(a - 1.97381164089999420f) + 0.94201734077887530f;
}
__HK_RAND_FN float __hk_gammainc(float a, float x) {
  float alpha, beta;
  __hk_gammainc_shape(a, &alpha, &beta);
  float t = alpha * (a - x) - beta;
  t = 1.0f + __hk_fast_exp(t);
  return __hk_fast_rcp(t * t);
}
__HK_RAND_FN float __hk_gammainc_inverse(float a, float y) {
  float alpha, beta;
  __hk_gammainc_shape(a, &alpha, &beta);
  float t = __hk_fast_log(__hk_fast_rsqrt(y) - 1.0f);
  t = beta + t;
  return -t * __hk_fast_rcp(alpha) + a;
}

// log((n - 1)!) for n >= 1: a table to 8, Stirling's series above (Hart et al.,
// Computer Approximations, 1968, approximation 5404); log(8!) below 1, as cuRAND's host code.
__HK_RAND_FN double __hk_log_factorial_of(int n) {
  const double fn = fabs((float)n);
  if (n > 8) {
    const double s = 1.0 / fn, t = s * s;
    double sum = -0.1633436431e-2;
    sum = sum * t + 0.83645878922e-3;
    sum = sum * t - 0.5951896861197e-3;
    sum = sum * t + 0.793650576493454e-3;
    sum = sum * t - 0.277777777735865004e-2;
    sum = sum * t + 0.833333333333331018375e-1;
    sum = sum * s + 0.918938533204672;
    double half = 0.5 * log(fn);
    half = half * (fn - 0.5);
    return (half - fn) + (half + sum);
  }
  const double small[9] = {0.0, 0.0, 6.931471805599453094e-1, 1.791759469228055001e0, 3.178053830347945620e0,
                           4.787491742782045994e0, 6.579251212010100995e0, 8.525161361065414300e0,
                           1.060460290274525023e1};
  return n >= 1 ? small[n - 1] : small[8];
}

template <class S> __HK_RAND_FN unsigned int __hk_poisson_knuth(S* s, float lambda) {
  unsigned int k = 0;
  float p = expf(lambda);
  do {
    ++k;
    p *= hiprand_uniform(s);
  } while (p > 1.0);
  return k - 1;
}

template <class S> __HK_RAND_FN unsigned int __hk_poisson_gammainc(S* s, float lambda) {
  const float log_lambda = __hk_fast_log(lambda);
  for (;;) {
    const float x = floorf(__hk_gammainc_inverse(lambda, hiprand_uniform(s)));
    float z = hiprand_uniform(s);
    const float v = (__hk_gammainc(lambda, x + 1.0f) - __hk_gammainc(lambda, x)) * 1.3f;
    z = z * v;
    const float t = (float)__hk_fast_exp(-lambda + x * log_lambda - (float)__hk_log_factorial_of((int)(1.0f + x)));
    if (z < t && v >= 1e-20) return (unsigned int)x;
  }
}

__HK_RAND_FN unsigned int __hk_poisson_normal(double lambda, double normal) {
  return (unsigned int)((sqrt(lambda) * normal) + lambda + 0.5);
}

template <class S> __HK_RAND_FN unsigned int hiprand_poisson(S* s, double lambda) {
  if (lambda < 64) return __hk_poisson_knuth(s, (float)lambda);
  if (lambda > 4000) return __hk_poisson_normal(lambda, hiprand_normal_double(s));
  return __hk_poisson_gammainc(s, (float)lambda);
}

__HK_RAND_FN uint4 hiprand_poisson4(hiprandStatePhilox4_32_10_t* s, double lambda) {
  if (lambda > 4000 || lambda < 64) {
    unsigned int k[4];
    if (lambda < 64) {
      for (int i = 0; i < 4; ++i) k[i] = __hk_poisson_knuth(s, (float)lambda);
    } else {
      const double4 n = hiprand_normal4_double(s);
      k[0] = __hk_poisson_normal(lambda, n.x);
      k[1] = __hk_poisson_normal(lambda, n.y);
      k[2] = __hk_poisson_normal(lambda, n.z);
      k[3] = __hk_poisson_normal(lambda, n.w);
    }
    return make_uint4(k[0], k[1], k[2], k[3]);
  }
  const unsigned int a = __hk_poisson_gammainc(s, (float)lambda), b = __hk_poisson_gammainc(s, (float)lambda);
  const unsigned int c = __hk_poisson_gammainc(s, (float)lambda);
  return make_uint4(a, b, c, __hk_poisson_gammainc(s, (float)lambda));
}
