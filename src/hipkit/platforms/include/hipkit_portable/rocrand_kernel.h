// hipkit: rocRAND's device names (rocrand/rocrand_kernel.h, which hipify --roc writes)
// over hipRAND's (rand_kernel.h): the same engines and numbers, rocRAND's spellings.
// Programs get hipkit's numbers (cuRAND's, rand_kernel.h), not ROCm rocRAND's own.
#pragma once

#include "rand_kernel.h"

typedef hiprandStatePhilox4_32_10_t rocrand_state_philox4x32_10;
typedef hiprandStateXORWOW_t rocrand_state_xorwow;
typedef hiprandStateMRG32k3a_t rocrand_state_mrg32k3a;
typedef hiprandStateSobol32_t rocrand_state_sobol32;

// rocrand_NAME(state, args...) is hiprand_HIPNAME(state, args...).
#define __HK_ROCRAND(NAME, HIPNAME)                                                    \
  template <class S, class... A>                                                       \
  __HK_RAND_FN auto NAME(S* s, A... a)->decltype(HIPNAME(s, a...)) { return HIPNAME(s, a...); }

__HK_ROCRAND(rocrand, hiprand)
__HK_ROCRAND(rocrand4, hiprand4)
__HK_ROCRAND(rocrand_uniform, hiprand_uniform)
__HK_ROCRAND(rocrand_uniform4, hiprand_uniform4)
__HK_ROCRAND(rocrand_uniform_double, hiprand_uniform_double)
__HK_ROCRAND(rocrand_uniform_double2, hiprand_uniform2_double)
__HK_ROCRAND(rocrand_uniform_double4, hiprand_uniform4_double)
__HK_ROCRAND(rocrand_normal, hiprand_normal)
__HK_ROCRAND(rocrand_normal2, hiprand_normal2)
__HK_ROCRAND(rocrand_normal4, hiprand_normal4)
__HK_ROCRAND(rocrand_normal_double, hiprand_normal_double)
__HK_ROCRAND(rocrand_normal_double2, hiprand_normal2_double)
__HK_ROCRAND(rocrand_normal_double4, hiprand_normal4_double)
__HK_ROCRAND(rocrand_log_normal, hiprand_log_normal)
__HK_ROCRAND(rocrand_log_normal2, hiprand_log_normal2)
__HK_ROCRAND(rocrand_log_normal4, hiprand_log_normal4)
__HK_ROCRAND(rocrand_log_normal_double, hiprand_log_normal_double)
__HK_ROCRAND(rocrand_log_normal_double2, hiprand_log_normal2_double)
__HK_ROCRAND(rocrand_log_normal_double4, hiprand_log_normal4_double)
__HK_ROCRAND(rocrand_poisson, hiprand_poisson)
__HK_ROCRAND(rocrand_poisson4, hiprand_poisson4)
#undef __HK_ROCRAND

template <class S>
__HK_RAND_FN void rocrand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                               S* state) {
  hiprand_init(seed, subsequence, offset, state);
}
__HK_RAND_FN void rocrand_init(const unsigned int* vectors, unsigned int offset, rocrand_state_sobol32* state) {
  hiprand_init(vectors, offset, state);
}
