// hipkit: the MTGP32 engine of hipRAND's device API (Saito and Matsumoto's Mersenne
// Twister for Graphic Processors, period 2^11213 - 1), the same on every platform
// (rand_kernel.h says what the including header provides), and its distributions.
//
// A state belongs to a block: its 351 words live in a ring of 1024 at `offset`, and
// its parameter set `pIdx` (one of the 200 of mtgp32dc_params_fast_11213, a state each)
// sits in the tables of `k`, which hiprandMakeMTGP32Constants fills
// (rand_mtgp32_host.h).  One call of hiprand(&state[blockIdx.x]) by every thread of the
// block is one round: thread t makes word offset + t + 351 from words t, t + 1 and
// t + pos, tempers it into its number, and the block moves the offset on by its size.
// No set's pos exceeds 95, so a round of up to 256 threads reads no word it writes,
// which is why threads may make their words at once.  The numbers and the layout of
// the state are cuRAND's (curandStateMtgp32_t) bit for bit.
//
// Every thread of the block calls, and at most 256 of them: each call is two barriers.
// Thread t is threadIdx's linear index, x + X (y + Y z); cuRAND's own for one- and
// two-dimensional blocks (for three-dimensional ones cuRAND's differs, and repeats
// numbers).  The CPU platform runs a kernel that names hiprandStateMtgp32_t on fibers,
// where barriers in called functions work (platforms/cpu/transform/analysis.py).
//
// Uniforms and normals take one number each (cuRAND's: normals by the inverse of the
// normal distribution, as SOBOL32's, rand_sobol.h), Poisson numbers one each too.
#pragma once

#define __HK_MTGP32_WORDS 351  // the state: 11213 / 32 + 1 words
#define __HK_MTGP32_RING 1024  // the words' ring, a power of two
#define __HK_MTGP32_SETS 200   // parameter sets, so at most 200 states
#define __HK_MTGP32_THREADS 256

#if defined(__CUDACC__) && !defined(__CUDACC_RTC__) && __has_include(<curand_mtgp32.h>)
// An nvcc program: cuRAND's own definitions of the two types (the same layout), so that
// a unit may include curand_kernel.h beside this header.
#include <curand_mtgp32.h>
#else
// One parameter set, as mtgp32dc_params_fast_11213 (hipkit_rand/mtgp32_11213.h) holds it.
struct mtgp32_params_fast {
  int mexp;                      // the Mersenne exponent, 11213
  int pos;                       // the pick-up position
  int sh1, sh2;                  // the recursion's shifts
  unsigned int tbl[16];          // the recursion's matrix
  unsigned int tmp_tbl[16];      // the tempering's
  unsigned int flt_tmp_tbl[16];  // the tempering's into a float's mantissa
  unsigned int mask;             // of the state's first word
  unsigned char poly_sha1[21];   // the characteristic polynomial's SHA-1
};
typedef struct mtgp32_params_fast mtgp32_params_fast_t;

// The 200 sets as the kernels read them (in device memory).
struct mtgp32_kernel_params {
  unsigned int pos_tbl[__HK_MTGP32_SETS];
  unsigned int param_tbl[__HK_MTGP32_SETS][16];
  unsigned int temper_tbl[__HK_MTGP32_SETS][16];
  unsigned int single_temper_tbl[__HK_MTGP32_SETS][16];
  unsigned int sh1_tbl[__HK_MTGP32_SETS];
  unsigned int sh2_tbl[__HK_MTGP32_SETS];
  unsigned int mask[1];
};
typedef struct mtgp32_kernel_params mtgp32_kernel_params_t;
#endif

struct hiprandStateMtgp32 {
  unsigned int s[__HK_MTGP32_RING];
  int offset;  // where word 0 of the state is in the ring
  int pIdx;    // its parameter set
  mtgp32_kernel_params_t* k;
};
typedef struct hiprandStateMtgp32 hiprandStateMtgp32_t;

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
// A state's words from a 32-bit seed, by MTGP's initialization: the words filled with a
// byte of the set's hidden seed, then Mersenne Twister's recurrence from (seed, hidden
// seed); the rest of the ring zero.  A host function (rand_mtgp32_host.h, the CPU's
// host library), left out of runtime-compiled kernels.
static inline void __hk_mtgp32_seed(unsigned int* s, const mtgp32_params_fast_t* para, unsigned int seed) {
  const unsigned int hidden = para->tbl[4] ^ (para->tbl[8] << 16);
  unsigned int fill = hidden;
  fill += fill >> 16;
  fill += fill >> 8;
  fill &= 0xff;
  for (int i = 0; i < __HK_MTGP32_RING; ++i) s[i] = i < __HK_MTGP32_WORDS ? fill * 0x01010101u : 0u;
  s[0] = seed;
  s[1] = hidden;
  for (unsigned int i = 1; i < __HK_MTGP32_WORDS; ++i) s[i] ^= 1812433253u * (s[i - 1] ^ (s[i - 1] >> 30)) + i;
}
#endif

// Thread t's number of a round that starts at the state's offset: the recursion makes
// word offset + t + 351, the tempering (with word t + pos - 1) its output.
__HK_RAND_FN unsigned int __hk_mtgp32_word(hiprandStateMtgp32_t* state, unsigned int t) {
  const mtgp32_kernel_params_t* k = state->k;
  const int set = state->pIdx;
  const unsigned int at = (unsigned int)state->offset + t, pos = k->pos_tbl[set], m = __HK_MTGP32_RING - 1;
  unsigned int x = (state->s[at & m] & k->mask[0]) ^ state->s[(at + 1) & m];
  x ^= x << k->sh1_tbl[set];
  unsigned int y = x ^ (state->s[(at + pos) & m] >> k->sh2_tbl[set]);
  y ^= k->param_tbl[set][y & 0x0f];
  state->s[(at + __HK_MTGP32_WORDS) & m] = y;
  unsigned int u = state->s[(at + pos - 1) & m];
  u ^= u >> 16;
  u ^= u >> 8;
  return y ^ k->temper_tbl[set][u & 0x0f];
}

// The state's next round: its offset moved on by `threads` numbers.
__HK_RAND_FN void __hk_mtgp32_advance(hiprandStateMtgp32_t* state, unsigned int threads) {
  state->offset = (int)(((unsigned int)state->offset + threads) & (__HK_MTGP32_RING - 1));
}

#ifndef __HK_RAND_NO_BLOCKS
// The functions that the block's threads call together (left out of the CPU's host
// library, which makes its rounds itself: platforms/cpu/hiprand/mtgp32.cpp).

__HK_RAND_FN unsigned int hiprand(hiprandStateMtgp32_t* state) {
  const unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  if (threads > __HK_MTGP32_THREADS) {  // a round would overwrite words it reads
#if defined(__HIPKIT_CPU__)
    __hk_assert_fail("hiprand(hiprandStateMtgp32_t*) in a block of more than 256 threads",
                     "hiprand/hiprand_kernel.h", __LINE__, "hiprand");
#elif defined(__CUDA_ARCH__)
    __trap();
#else
    __builtin_trap();
#endif
  }
  const unsigned int x = __hk_mtgp32_word(state, t);
  __syncthreads();  // every thread has read the offset and its words
  if (t == 0) __hk_mtgp32_advance(state, threads);
  __syncthreads();  // the next round starts at the new offset
  return x;
}

__HK_ONE_NUMBER_DISTRIBUTIONS(hiprandStateMtgp32_t)
#endif  // __HK_RAND_NO_BLOCKS
