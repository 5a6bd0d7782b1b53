// hipkit's hipRAND on the CPU: MTGP32 (provider.h says what the files share).
//
// cuRAND's host generator's layout, which the H200 showed and tests/test_hiprand.py
// checks: 192 states, state i seeded as hiprandMakeMTGP32KernelState seeds it (set i,
// (seed ^ seed >> 32) + i + 1), each making rounds of 256 numbers.  Number p of the
// generator's stream is number p % 256 of round (p / 256) / 192 of state (p / 256) % 192:
// the rounds go to the states in turn.  Every kind of element takes one number
// (uniforms and normals as the device API makes them of one: rand_mtgp32.h).
//
// The engine is sequential, so the generator keeps its states (an Engine, shared with
// the work queued on its stream) and the position they have reached; a call for another
// seed or an earlier position starts them over.  A call's rounds are split among the
// device's workers by state, each state's rounds made in order.
#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "provider.h"  // first: the parameter sets' type

#include <hipkit_rand/mtgp32_11213.h>

namespace hkrand {

constexpr unsigned int kMtgpStates = 192;  // cuRAND's host generator's
constexpr unsigned int kRound = __HK_MTGP32_THREADS;

struct Mtgp32Engine {
  std::mutex lock;
  bool seeded = false;
  unsigned long long seed = 0;
  unsigned long long position = 0;  // numbers made since the seed
  mtgp32_kernel_params_t params;
  std::vector<hiprandStateMtgp32_t> states = std::vector<hiprandStateMtgp32_t>(kMtgpStates);
  unsigned int round[kRound];  // the numbers of the round the position is inside, if any
};

std::shared_ptr<Mtgp32Engine> mtgp32_engine() {
  auto engine = std::make_shared<Mtgp32Engine>();
  mtgp32_kernel_params_t& k = engine->params;
  k.mask[0] = mtgp32dc_params_fast_11213[0].mask;
  for (int i = 0; i < __HK_MTGP32_SETS; ++i) {
    const mtgp32_params_fast_t& p = mtgp32dc_params_fast_11213[i];
    k.pos_tbl[i] = (unsigned int)p.pos;
    k.sh1_tbl[i] = (unsigned int)p.sh1;
    k.sh2_tbl[i] = (unsigned int)p.sh2;
    for (int j = 0; j < 16; ++j) {
      k.param_tbl[i][j] = p.tbl[j];
      k.temper_tbl[i][j] = p.tmp_tbl[j];
      k.single_temper_tbl[i][j] = p.flt_tmp_tbl[j];
    }
  }
  return engine;
}

namespace {

// tbl[v & 15] of a 16-entry table that is linear over GF(2) (entry i the XOR of the
// entries 1, 2, 4, 8 of i's bits, as MTGP's matrices are: make_mtgp_tables.py checks
// every set), without a lookup, so that the loop vectorizes.
inline unsigned int linear_lookup(const unsigned int* basis, unsigned int v) {
  return (basis[0] & (0u - (v & 1u))) ^ (basis[1] & (0u - ((v >> 1) & 1u))) ^
         (basis[2] & (0u - ((v >> 2) & 1u))) ^ (basis[3] & (0u - ((v >> 3) & 1u)));
}

// A round of the 256 threads: __hk_mtgp32_word for each t, in loops the compiler
// vectorizes (the words it reads copied out of the ring first: a round reads no word it
// writes).
__attribute__((target_clones("avx512f", "avx2", "default"))) void make_round(hiprandStateMtgp32_t* state,
                                                                            unsigned int* out) {
  const mtgp32_kernel_params_t& k = *state->k;
  const int set = state->pIdx;
  const unsigned int at = (unsigned int)state->offset, pos = k.pos_tbl[set], m = __HK_MTGP32_RING - 1;
  const unsigned int mask = k.mask[0], sh1 = k.sh1_tbl[set], sh2 = k.sh2_tbl[set];
  const unsigned int* tbl = k.param_tbl[set];
  const unsigned int* temper = k.temper_tbl[set];
  const unsigned int recursion[4] = {tbl[1], tbl[2], tbl[4], tbl[8]};
  const unsigned int tempering[4] = {temper[1], temper[2], temper[4], temper[8]};
  unsigned int a[__HK_MTGP32_WORDS], y[kRound];  // a: 256 + pos words (every pos is at most 95)
  for (unsigned int i = 0; i < kRound + pos; ++i) a[i] = state->s[(at + i) & m];
  for (unsigned int t = 0; t < kRound; ++t) {
    unsigned int x = (a[t] & mask) ^ a[t + 1];
    x ^= x << sh1;
    unsigned int v = x ^ (a[t + pos] >> sh2);
    v ^= linear_lookup(recursion, v);
    unsigned int u = a[t + pos - 1];
    u ^= u >> 16;
    u ^= u >> 8;
    y[t] = v;
    out[t] = v ^ linear_lookup(tempering, u);
  }
  for (unsigned int t = 0; t < kRound; ++t) state->s[(at + __HK_MTGP32_WORDS + t) & m] = y[t];
  __hk_mtgp32_advance(state, kRound);
}

void reseed(Mtgp32Engine& e, unsigned long long seed) {
  const unsigned int seed32 = (unsigned int)(seed ^ (seed >> 32));
  for (unsigned int i = 0; i < kMtgpStates; ++i) {
    hiprandStateMtgp32_t& s = e.states[i];
    __hk_mtgp32_seed(s.s, &mtgp32dc_params_fast_11213[i], seed32 + i + 1);
    s.offset = 0;
    s.pIdx = (int)i;
    s.k = &e.params;
  }
  e.seeded = true;
  e.seed = seed;
  e.position = 0;
}

// Elements [first, first + count) of the job from numbers x[0 .. count).
template <class T, class F> void convert_each(const Job& job, size_t first, const unsigned int* x, size_t count, F f) {
  T* out = static_cast<T*>(job.out) + first;
  for (size_t j = 0; j < count; ++j) out[j] = f(x[j]);
}

void convert(const Job& job, size_t first, const unsigned int* x, size_t count) {
  const float mean = float(job.mean), stddev = float(job.stddev);
  switch (job.kind) {
    case BITS:
      return convert_each<unsigned int>(job, first, x, count, [](unsigned int v) { return v; });
    case UNIFORM:
      return convert_each<float>(job, first, x, count, [](unsigned int v) { return __hk_uniform(v); });
    case UNIFORM_DOUBLE:
      return convert_each<double>(job, first, x, count, [](unsigned int v) {
        return v * __HK_2POW32_INV_DOUBLE + __HK_2POW32_INV_DOUBLE;
      });
    case NORMAL:
      return convert_each<float>(job, first, x, count,
                                 [=](unsigned int v) { return mean + stddev * __hk_normal_icdf(v); });
    case NORMAL_DOUBLE:
      return convert_each<double>(job, first, x, count,
                                  [&](unsigned int v) { return job.mean + job.stddev * __hk_normal_icdf_double(v); });
    case LOG_NORMAL:
      return convert_each<float>(job, first, x, count,
                                 [=](unsigned int v) { return expf(mean + stddev * __hk_normal_icdf(v)); });
    case LOG_NORMAL_DOUBLE:
      return convert_each<double>(job, first, x, count, [&](unsigned int v) {
        return exp(job.mean + job.stddev * __hk_normal_icdf_double(v));
      });
    case POISSON:
      return convert_each<unsigned int>(job, first, x, count,
                                        [&](unsigned int v) { return __hk_poisson_of(v, job.lambda); });
  }
}

}  // namespace

void mtgp32_run(const Job& job) {
  Mtgp32Engine& e = *job.mtgp32;
  const std::lock_guard<std::mutex> hold(e.lock);
  if (!e.seeded || e.seed != job.seed || e.position > job.offset) reseed(e, job.seed);
  // Rounds made so far; the round holding the job's first number.  A round made that a
  // call uses only the start of stays in e.round for the next.
  unsigned long long made = (e.position + kRound - 1) / kRound;
  const unsigned long long first_round = job.offset / kRound;
  unsigned int discard[kRound];
  for (; made < first_round; ++made)  // a position skipped (queued work run out of order)
    make_round(&e.states[made % kMtgpStates], discard);
  if (job.offset % kRound != 0 && made == first_round) make_round(&e.states[made++ % kMtgpStates], e.round);

  // The rest of the round the job starts inside, then whole rounds, then the start of
  // the last one.
  size_t done = 0;
  if (job.offset % kRound != 0) {
    const size_t at = job.offset % kRound;
    done = std::min<size_t>(kRound - at, job.n);
    convert(job, 0, e.round + at, done);
  }
  const unsigned long long first = made;  // the first whole round
  const unsigned long long whole = (job.n - done) / kRound;
  const size_t tail = (job.n - done) % kRound;
  const unsigned long long rounds = whole + (tail != 0);
  auto make_states = [&](unsigned int part, unsigned int parts) {
    unsigned int x[kRound];
    for (unsigned long long r = 0; r < rounds; ++r) {
      const unsigned int state = (unsigned int)((first + r) % kMtgpStates);
      if (state % parts != part) continue;
      make_round(&e.states[state], x);
      const size_t element = done + size_t(r) * kRound;
      if (r < whole) {
        convert(job, element, x, kRound);
      } else {  // the last, partial round
        std::copy(x, x + kRound, e.round);
        convert(job, element, x, tail);
      }
    }
  };
  const unsigned int parts = (unsigned int)std::max<size_t>(
      1, std::min<size_t>({size_t(job.threads), kMtgpStates, size_t(rounds / 64)}));
  std::vector<std::thread> helpers;
  for (unsigned int p = 1; p < parts; ++p) helpers.emplace_back(make_states, p, parts);
  make_states(0, parts);
  for (std::thread& t : helpers) t.join();
  e.position = job.offset + job.n;
}

}  // namespace hkrand
