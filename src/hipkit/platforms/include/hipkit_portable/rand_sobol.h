// hipkit: the SOBOL32 quasi-random engine of hipRAND's device API, the same on every
// platform (rand_kernel.h says what the including header provides), and its
// distributions.
//
// A state is one dimension of the sequence: its 32 direction numbers v (the caller's:
// hiprandGetDirectionVectors32 gives Joe and Kuo's) and a point index i.  Point i is
// the XOR of v[k] over the bits k of i's Gray code i ^ (i >> 1), so point 0 is 0 and
// each next point flips one direction number: v[k] for k the lowest zero bit of i.
// That is cuRAND's order and SciPy's (scipy.stats.qmc.Sobol, scramble=False).
//
// Uniforms are the pseudo-random engines' ((0, 1] floats; doubles a number's 32 bits).
// Normals are one point each, through the inverse of the normal distribution (a
// Box-Muller pair would break the sequence's evenness), mirrored about the middle as
// cuRAND's are so that both tails keep their precision; log-normals are their
// exponentials.
#pragma once

typedef unsigned int hiprandDirectionVectors32_t[32];

struct hiprandStateSobol32 {
  unsigned int i;  // the next point's index
  unsigned int x;  // the next point
  unsigned int direction_vectors[32];
};
typedef struct hiprandStateSobol32 hiprandStateSobol32_t;

__HK_RAND_FN unsigned int __hk_sobol_point(const unsigned int* v, unsigned int i) {
  unsigned int x = 0;
  for (unsigned int gray = i ^ (i >> 1), k = 0; gray != 0; gray >>= 1, ++k)
    if (gray & 1u) x ^= v[k];
  return x;
}

// The lowest zero bit of i (31 for 2^32 - 1, where the sequence ends).
__HK_RAND_FN unsigned int __hk_lowest_zero_bit(unsigned int i) {
#if defined(__CUDA_ARCH__)
  return i == 0xFFFFFFFFu ? 31u : (unsigned int)(__ffs(~i) - 1);
#else
  return i == 0xFFFFFFFFu ? 31u : (unsigned int)__builtin_ctz(~i);
#endif
}

// cuRAND's signature, the vectors const (rocRAND's).
__HK_RAND_FN void hiprand_init(const unsigned int direction_vectors[32], unsigned int offset,
                               hiprandStateSobol32_t* state) {
  for (int k = 0; k < 32; ++k) state->direction_vectors[k] = direction_vectors[k];
  state->i = offset;
  state->x = __hk_sobol_point(direction_vectors, offset);
}

__HK_RAND_FN void skipahead(unsigned int n, hiprandStateSobol32_t* state) {
  state->i += n;
  state->x = __hk_sobol_point(state->direction_vectors, state->i);
}

__HK_RAND_FN unsigned int hiprand(hiprandStateSobol32_t* state) {
  const unsigned int x = state->x;
  state->x ^= state->direction_vectors[__hk_lowest_zero_bit(state->i)];
  ++state->i;
  return x;
}

// ---- the inverse of the normal distribution ---------------------------------------

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define __HK_ERFCINVF erfcinvf
#define __HK_ERFCINV erfcinv
#else
// libm has no erfcinv.  erfcinv(y) = -q(y / 2) / sqrt(2), for q the normal quantile:
// P. J. Acklam's rational approximation of q (relative error below 1.2e-9), then two
// Halley steps on erfc, which bring it to double precision.
__HK_RAND_FN double __hk_erfcinv(double y) {
  if (y > 1.0) return -__hk_erfcinv(2.0 - y);  // keeps p = y / 2 in (0, 0.5]
  const double p = y / 2.0;
  double z;
  if (p < 0.02425) {
    const double q = sqrt(-2.0 * log(p));
    z = (((((-7.784894002430293e-03 * q - 3.223964580411365e-01) * q - 2.400758277161838e+00) * q -
           2.549732539343734e+00) * q + 4.374664141464968e+00) * q + 2.938163982698783e+00) /
        ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q + 2.445134137142996e+00) * q +
          3.754408661907416e+00) * q + 1.0);
  } else {
    const double q = p - 0.5, r = q * q;
    z = (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r - 2.759285104469687e+02) * r +
           1.383577518672690e+02) * r - 3.066479806614716e+01) * r + 2.506628277459239e+00) * q /
        (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r - 1.556989798598866e+02) * r +
           6.680131188771972e+01) * r - 1.328068155288572e+01) * r + 1.0);
  }
  for (int step = 0; step < 2; ++step) {
    const double e = 0.5 * erfc(-z / 1.4142135623730951) - p;
    const double u = e * 2.5066282746310002 * exp(z * z / 2.0);  // e / the density
    z -= u / (1.0 + z * u / 2.0);
  }
  return -z / 1.4142135623730951;
}
#define __HK_ERFCINVF(y) ((float)__hk_erfcinv((double)(y)))
#define __HK_ERFCINV __hk_erfcinv
#endif

// A point's normal, increasing with the point (point 0 the lowest, as cuRAND's): the
// upper half mirrored onto the lower, so that p is in (0, 0.5].
__HK_RAND_FN float __hk_normal_icdf(unsigned int x) {
  float s = -1.4142135f;
  if (x > 0x80000000u) {
    x = 0xFFFFFFFFu - x;
    s = -s;
  }
  const float p = x * __HK_2POW32_INV + (__HK_2POW32_INV / 2.0f);
  return s * __HK_ERFCINVF(2.0f * p);
}
__HK_RAND_FN double __hk_normal_icdf_double(unsigned int x) {
  double s = -1.4142135623730951;
  if (x > 0x80000000u) {
    x = 0xFFFFFFFFu - x;
    s = -s;
  }
  const double p = x * __HK_2POW32_INV_DOUBLE + (__HK_2POW32_INV_DOUBLE / 2.0);
  return s * __HK_ERFCINV(2.0 * p);
}

// A Poisson number of one 32-bit number x (SOBOL32's point, so that they keep the
// sequence's evenness; MTGP32's): up to lambda 4000 the inverse of the distribution (its
// terms summed from 12 deviations below the mean, where what lies below is under 1e-30),
// above it the rounded normal approximation of the pseudo-random engines (rand_poisson.h).
__HK_RAND_FN unsigned int __hk_poisson_of(unsigned int x, double lambda) {
  if (lambda > 4000) return __hk_poisson_normal(lambda, __hk_normal_icdf_double(x));
  const double u = x * __HK_2POW32_INV_DOUBLE + (__HK_2POW32_INV_DOUBLE / 2.0);
  const double deviation = sqrt(lambda);
  double k = floor(lambda - 12.0 * deviation) > 0 ? floor(lambda - 12.0 * deviation) : 0.0;
  const double last = ceil(lambda + 12.0 * deviation + 10.0);
  double term = exp(k * log(lambda) - lambda - lgamma(k + 1.0)), sum = term;
  while (sum < u && k < last) {
    k += 1.0;
    term *= lambda / k;
    sum += term;
  }
  return (unsigned int)k;
}

// ---- distributions ----------------------------------------------------------------

// The distributions of an engine whose every value is one 32-bit number (SOBOL32's and
// MTGP32's): uniforms of (0, 1] (doubles of the number's 32 bits), normals and
// log-normals through the inverse normal distribution, Poisson numbers by
// __hk_poisson_of.  STATE is the engine's state type; its hiprand(STATE*) comes first.
#define __HK_ONE_NUMBER_DISTRIBUTIONS(STATE)                                                   \
  __HK_RAND_FN float hiprand_uniform(STATE* s) { return __hk_uniform(hiprand(s)); }            \
  __HK_RAND_FN double hiprand_uniform_double(STATE* s) {                                       \
    return hiprand(s) * __HK_2POW32_INV_DOUBLE + __HK_2POW32_INV_DOUBLE;                        \
  }                                                                                            \
  __HK_RAND_FN float hiprand_normal(STATE* s) { return __hk_normal_icdf(hiprand(s)); }         \
  __HK_RAND_FN double hiprand_normal_double(STATE* s) { return __hk_normal_icdf_double(hiprand(s)); } \
  __HK_RAND_FN float hiprand_log_normal(STATE* s, float mean, float stddev) {                  \
    return expf(mean + stddev * hiprand_normal(s));                                            \
  }                                                                                            \
  __HK_RAND_FN double hiprand_log_normal_double(STATE* s, double mean, double stddev) {        \
    return exp(mean + stddev * hiprand_normal_double(s));                                      \
  }                                                                                            \
  __HK_RAND_FN unsigned int hiprand_poisson(STATE* s, double lambda) {                         \
    return __hk_poisson_of(hiprand(s), lambda);                                                \
  }

__HK_ONE_NUMBER_DISTRIBUTIONS(hiprandStateSobol32_t)
