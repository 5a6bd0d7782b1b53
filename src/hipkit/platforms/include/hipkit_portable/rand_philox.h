// hipkit: the Philox4x32-10 engine of hipRAND's device API, the same on every platform
// (rand_kernel.h says what the including header provides).
//
// Salmon, Moraes, Dror and Shaw's counter-based generator ("Parallel random numbers: as
// easy as 1, 2, 3", SC 2011): a 128-bit counter and a 64-bit key (the seed) go through
// ten rounds, and the four 32-bit words out are the next four numbers.  The counter's
// low 64 bits count blocks of four within a subsequence, its high 64 bits count
// subsequences: number k of subsequence s for seed is word k % 4 of
// philox(counter = (s << 64) + k / 4, key = seed).  That is cuRAND's layout too, so
// that the same (seed, subsequence, offset) gives cuRAND's numbers bit for bit.
#pragma once

#define __HK_PHILOX_M0 0xD2511F53u
#define __HK_PHILOX_M1 0xCD9E8D57u
#define __HK_PHILOX_W0 0x9E3779B9u  // the key's increments between rounds (the golden
#define __HK_PHILOX_W1 0xBB67AE85u  // ratio's and sqrt(3) - 1's first 32 bits)

struct hiprandStatePhilox4_32_10 {
  uint4 counter;
  uint4 result;  // philox(counter): the numbers from result[position] on come next
  uint2 key;
  unsigned int position;
  // The second of a Box-Muller pair, kept for the next call (rand_distributions.h).
  int pair_flag;
  int pair_flag_double;
  float pair_extra;
  double pair_extra_double;
};
typedef struct hiprandStatePhilox4_32_10 hiprandStatePhilox4_32_10_t;

__HK_RAND_FN unsigned int __hk_philox_mulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}

__HK_RAND_FN uint4 __hk_philox_round(uint4 c, uint2 k) {
  const unsigned int hi0 = __hk_philox_mulhi(__HK_PHILOX_M0, c.x), lo0 = __HK_PHILOX_M0 * c.x;
  const unsigned int hi1 = __hk_philox_mulhi(__HK_PHILOX_M1, c.z), lo1 = __HK_PHILOX_M1 * c.z;
  return make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
}

// The ten rounds: the block function of Philox4x32-10.
__HK_RAND_FN uint4 __hk_philox4x32_10(uint4 c, uint2 k) {
  for (int round = 0; round < 9; ++round) {
    c = __hk_philox_round(c, k);
    k.x += __HK_PHILOX_W0;
    k.y += __HK_PHILOX_W1;
  }
  return __hk_philox_round(c, k);
}

// counter += n (the low half, blocks) with the carry into the high half.  A carry out
// of n's high word (n within 2^32 of 2^64) is dropped, as cuRAND drops it.
__HK_RAND_FN void __hk_philox_advance(hiprandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned int lo = (unsigned int)n;
  unsigned int hi = (unsigned int)(n >> 32);
  s->counter.x += lo;
  if (s->counter.x < lo) ++hi;
  s->counter.y += hi;
  if (hi <= s->counter.y) return;
  if (++s->counter.z) return;
  ++s->counter.w;
}

// counter += n << 64: n subsequences on.
__HK_RAND_FN void __hk_philox_advance_sequences(hiprandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned int lo = (unsigned int)n;
  unsigned int hi = (unsigned int)(n >> 32);
  s->counter.z += lo;
  if (s->counter.z < lo) ++hi;
  s->counter.w += hi;
}

__HK_RAND_FN void skipahead(unsigned long long n, hiprandStatePhilox4_32_10_t* state) {
  unsigned long long blocks = n / 4;
  state->position += (unsigned int)(n & 3);
  if (state->position > 3) {
    state->position -= 4;
    ++blocks;
  }
  __hk_philox_advance(state, blocks);
  state->result = __hk_philox4x32_10(state->counter, state->key);
}

// Each subsequence is 2^66 numbers.
__HK_RAND_FN void skipahead_sequence(unsigned long long n, hiprandStatePhilox4_32_10_t* state) {
  __hk_philox_advance_sequences(state, n);
  state->result = __hk_philox4x32_10(state->counter, state->key);
}

__HK_RAND_FN void hiprand_init(unsigned long long seed, unsigned long long subsequence,
                               unsigned long long offset, hiprandStatePhilox4_32_10_t* state) {
  state->counter = make_uint4(0, 0, 0, 0);
  state->key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
  state->position = 0;
  state->pair_flag = state->pair_flag_double = 0;
  state->pair_extra = 0.0f;
  state->pair_extra_double = 0.0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
}

__HK_RAND_FN unsigned int __hk_philox_word(const uint4& v, unsigned int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

__HK_RAND_FN unsigned int hiprand(hiprandStatePhilox4_32_10_t* state) {
  const unsigned int out = __hk_philox_word(state->result, state->position++);
  if (state->position == 4) {
    __hk_philox_advance(state, 1);
    state->result = __hk_philox4x32_10(state->counter, state->key);
    state->position = 0;
  }
  return out;
}

// The next four numbers (cuRAND's curand4).
__HK_RAND_FN uint4 hiprand4(hiprandStatePhilox4_32_10_t* state) {
  const uint4 now = state->result;
  __hk_philox_advance(state, 1);
  state->result = __hk_philox4x32_10(state->counter, state->key);
  const unsigned int p = state->position;
  unsigned int w[4];
  for (unsigned int i = 0; i < 4; ++i)
    w[i] = p + i < 4 ? __hk_philox_word(now, p + i) : __hk_philox_word(state->result, p + i - 4);
  return make_uint4(w[0], w[1], w[2], w[3]);
}
