// hipkit: the XORWOW engine of hipRAND's device API, the same on every platform
// (rand_kernel.h says what the including header provides).
//
// Marsaglia's xorwow ("Xorshift RNGs", J. Stat. Soft. 8(14), 2003): a 160-bit xorshift
// (five words v) plus a Weyl sequence d stepping by 362437; each number is v[4] + d.
// The seed is spread over the state as cuRAND does (salted halves times odd constants),
// subsequences are 2^67 numbers apart, and jumps are products of the step's matrix
// powers over GF(2), which hipkit/tables/make_rand_tables.py computes (hipkit_rand/
// xorwow_jumps.h): the same (seed, subsequence, offset) gives cuRAND's numbers bit for bit.
#pragma once

#include <hipkit_rand/xorwow_jumps.h>

#define __HK_XORWOW_WEYL 362437u

struct hiprandStateXORWOW {
  unsigned int d, v[5];
  int pair_flag;  // the second of a Box-Muller pair (rand_distributions.h)
  int pair_flag_double;
  float pair_extra;
  double pair_extra_double;
};
typedef struct hiprandStateXORWOW hiprandStateXORWOW_t;
typedef struct hiprandStateXORWOW hiprandState_t;
typedef struct hiprandStateXORWOW hiprandState;

__HK_RAND_FN unsigned int hiprand(hiprandStateXORWOW_t* state) {
  const unsigned int t = state->v[0] ^ (state->v[0] >> 2);
  for (int i = 0; i < 4; ++i) state->v[i] = state->v[i + 1];
  state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
  state->d += __HK_XORWOW_WEYL;
  return state->v[4] + state->d;
}

// v = v * M for one of the tables' matrices (160 rows of five words).
__HK_RAND_FN void __hk_xorwow_apply(unsigned int* v, const unsigned int* matrix) {
  unsigned int out[5] = {0, 0, 0, 0, 0};
  for (int bit = 0; bit < 160; ++bit) {
    if ((v[bit >> 5] >> (bit & 31)) & 1u) {
      const unsigned int* row = matrix + 5 * bit;
      for (int k = 0; k < 5; ++k) out[k] ^= row[k];
    }
  }
  for (int k = 0; k < 5; ++k) v[k] = out[k];
}

// v jumps n steps of table's unit: table[i] is the unit to the power 4^i, applied once
// per unit of n's base-4 digit i.
__HK_RAND_FN void __hk_xorwow_jump_by(unsigned int* v, unsigned long long n, const unsigned int (*table)[800]) {
  for (int digit = 0; n != 0; ++digit, n >>= 2)
    for (unsigned int k = 0; k < (unsigned int)(n & 3); ++k) __hk_xorwow_apply(v, table[digit]);
}

__HK_RAND_FN void skipahead(unsigned long long n, hiprandStateXORWOW_t* state) {
  __hk_xorwow_jump_by(state->v, n, __hk_xorwow_jump);
  state->d += __HK_XORWOW_WEYL * (unsigned int)n;
}

// n subsequences of 2^67 numbers: d moves by a multiple of 2^32, not at all.
__HK_RAND_FN void skipahead_sequence(unsigned long long n, hiprandStateXORWOW_t* state) {
  __hk_xorwow_jump_by(state->v, n, __hk_xorwow_sequence_jump);
}

__HK_RAND_FN void hiprand_init(unsigned long long seed, unsigned long long subsequence,
                               unsigned long long offset, hiprandStateXORWOW_t* state) {
  const unsigned int t0 = 1099087573u * ((unsigned int)seed ^ 0xaad26b49u);
  const unsigned int t1 = 2591861531u * ((unsigned int)(seed >> 32) ^ 0xf7dcefddu);
  state->d = 6615241u + t1 + t0;
  state->v[0] = 123456789u + t0;
  state->v[1] = 362436069u ^ t0;
  state->v[2] = 521288629u + t1;
  state->v[3] = 88675123u ^ t1;
  state->v[4] = 5783321u + t0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  state->pair_flag = state->pair_flag_double = 0;
  state->pair_extra = 0.0f;
  state->pair_extra_double = 0.0;
}
