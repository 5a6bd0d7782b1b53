// hipkit: the MRG32k3a engine of hipRAND's device API, the same on every platform
// (rand_kernel.h says what the including header provides).
//
// L'Ecuyer's combined multiple recursive generator ("Good parameters and
// implementations for combined multiple recursive random number generators", Oper.
// Res. 47(1), 1999): two recursions of order 3 modulo m1 and m2, combined as
// (x1 - x2) mod m1 in (0, m1].  Seeding, subsequences (2^76 numbers apart; the
// subsequence is taken modulo 2^51, as cuRAND documents) and sequences (2^127) follow
// cuRAND, with the jumps' matrix powers from hipkit/tables/make_rand_tables.py
// (hipkit_rand/mrg32k3a_jumps.h).
#pragma once

#include <hipkit_rand/mrg32k3a_jumps.h>

#define __HK_MRG_M1 4294967087ull
#define __HK_MRG_M2 4294944443ull
#define __HK_MRG_NORM 2.3283065498378288e-10      // 1 / (m1 + 1), uniform's scale
#define __HK_MRG_BITS_NORM 1.000000048662          // (2^32 - 1) / m1, for 32-bit numbers
#define __HK_MRG_SUBSEQUENCE_MASK ((1ull << 51) - 1)

struct hiprandStateMRG32k3a {
  unsigned int s1[3], s2[3];  // each recursion's last three values, oldest first
  int pair_flag;              // the second of a Box-Muller pair (rand_distributions.h)
  int pair_flag_double;
  float pair_extra;
  double pair_extra_double;
};
typedef struct hiprandStateMRG32k3a hiprandStateMRG32k3a_t;

// One step: the combination in (0, m1], as a double (as cuRAND's curand_MRG32k3a).
__HK_RAND_FN double __hk_mrg32k3a_next(hiprandStateMRG32k3a_t* s) {
  // a12 x[n-2] - a13 x[n-3] (mod m1), kept non-negative as a13 (m1 - x[n-3]).
  const unsigned long long p1 = (1403580ull * s->s1[1] + 810728ull * (__HK_MRG_M1 - s->s1[0])) % __HK_MRG_M1;
  s->s1[0] = s->s1[1];
  s->s1[1] = s->s1[2];
  s->s1[2] = (unsigned int)p1;
  const unsigned long long p2 = (527612ull * s->s2[2] + 1370589ull * (__HK_MRG_M2 - s->s2[0])) % __HK_MRG_M2;
  s->s2[0] = s->s2[1];
  s->s2[1] = s->s2[2];
  s->s2[2] = (unsigned int)p2;
  return p1 > p2 ? (double)(p1 - p2) : (double)(p1 + __HK_MRG_M1 - p2);
}

__HK_RAND_FN unsigned int hiprand(hiprandStateMRG32k3a_t* state) {
  return (unsigned int)(__hk_mrg32k3a_next(state) * __HK_MRG_BITS_NORM);
}

// s = M s (mod m) for one of the tables' 3 by 3 matrices (row major).
__HK_RAND_FN void __hk_mrg_apply(unsigned int* s, const unsigned int* m, unsigned long long mod) {
  unsigned long long out[3];
  for (int i = 0; i < 3; ++i) {
    unsigned long long sum = 0;
    for (int j = 0; j < 3; ++j) sum += (unsigned long long)m[3 * i + j] * s[j] % mod;
    out[i] = sum % mod;
  }
  for (int i = 0; i < 3; ++i) s[i] = (unsigned int)out[i];
}

// Both recursions jump n units: table1[i] and table2[i] are the unit to the power 2^i.
__HK_RAND_FN void __hk_mrg_jump(hiprandStateMRG32k3a_t* s, unsigned long long n,
                                const unsigned int (*table1)[9], const unsigned int (*table2)[9]) {
  for (int bit = 0; n != 0; ++bit, n >>= 1) {
    if (n & 1) {
      __hk_mrg_apply(s->s1, table1[bit], __HK_MRG_M1);
      __hk_mrg_apply(s->s2, table2[bit], __HK_MRG_M2);
    }
  }
}

__HK_RAND_FN void skipahead(unsigned long long n, hiprandStateMRG32k3a_t* state) {
  __hk_mrg_jump(state, n, __hk_mrg32k3a_jump1, __hk_mrg32k3a_jump2);
}

__HK_RAND_FN void skipahead_subsequence(unsigned long long n, hiprandStateMRG32k3a_t* state) {
  __hk_mrg_jump(state, n & __HK_MRG_SUBSEQUENCE_MASK, __hk_mrg32k3a_subsequence_jump1,
                __hk_mrg32k3a_subsequence_jump2);
}

__HK_RAND_FN void skipahead_sequence(unsigned long long n, hiprandStateMRG32k3a_t* state) {
  __hk_mrg_jump(state, n, __hk_mrg32k3a_sequence_jump1, __hk_mrg32k3a_sequence_jump2);
}

// Seed 0 is L'Ecuyer's published start (every value 12345); any other seed multiplies
// the start's values by its salted halves.
__HK_RAND_FN void hiprand_init(unsigned long long seed, unsigned long long subsequence,
                               unsigned long long offset, hiprandStateMRG32k3a_t* state) {
  for (int i = 0; i < 3; ++i) state->s1[i] = state->s2[i] = 12345u;
  if (seed != 0) {
    const unsigned long long x1 = (unsigned int)seed ^ 0x55555555u;
    const unsigned long long x2 = (unsigned int)(seed >> 32) ^ 0xAAAAAAAAu;
    state->s1[0] = (unsigned int)(x1 * 12345u % __HK_MRG_M1);
    state->s1[1] = (unsigned int)(x2 * 12345u % __HK_MRG_M1);
    state->s1[2] = (unsigned int)(x1 * 12345u % __HK_MRG_M1);
    state->s2[0] = (unsigned int)(x2 * 12345u % __HK_MRG_M2);
    state->s2[1] = (unsigned int)(x1 * 12345u % __HK_MRG_M2);
    state->s2[2] = (unsigned int)(x2 * 12345u % __HK_MRG_M2);
  }
  skipahead_subsequence(subsequence, state);
  skipahead(offset, state);
  state->pair_flag = state->pair_flag_double = 0;
  state->pair_extra = 0.0f;
  state->pair_extra_double = 0.0;
}
