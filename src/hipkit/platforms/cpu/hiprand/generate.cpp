// hipkit's hipRAND on the CPU: a call's numbers (provider.h says which).
//
// Element i of a call takes the k numbers at position offset + i * k of the stream
// (seed, subsequence 0) of the engine, through the device API's own functions: k = 1
// for 32-bit numbers, floats, and normals and log-normals (pairs of two numbers, as
// hiprand_normal2); doubles take two numbers (hiprand_uniform_double's 53 bits of two,
// as Philox's hiprand_uniform2_double; pairs as hiprand_normal2_double), one value of
// MRG32k3a.  Poisson number j of the generator is draw j % 4096 of subsequence
// 1 + j / 4096 (hiprand_poisson, whose draws take a varying count of numbers).  So any
// range of elements can be made on its own: the work is split among the device's
// workers in ranges, and Philox's numbers and uniforms, the common case, take a path
// the compiler vectorizes (sixteen blocks of the counter a step), which gives the same bits.
#include <string.h>

#include <algorithm>
#include <thread>
#include <type_traits>
#include <vector>

#include "provider.h"

namespace hkrand {
namespace {

bool is_double(Kind kind) {
  return kind == UNIFORM_DOUBLE || kind == NORMAL_DOUBLE || kind == LOG_NORMAL_DOUBLE;
}

template <class S> void start(S* s, const Job& job, size_t first) {
  hiprand_init(job.seed, 0, job.offset + first * numbers_per_element(job.type, job.kind), s);
}

// Elements [a, b) of a job of one of the engines' states.  a is even (pairs).
template <class S> void fill(const Job& job, size_t a, size_t b) {
  S s;
  if (job.kind == POISSON) {
    unsigned int* out = static_cast<unsigned int*>(job.out);
    for (unsigned long long j = job.offset + a; j < job.offset + b;) {
      hiprand_init(job.seed, 1 + j / kPoissonBlock, 0, &s);
      const unsigned long long block_end = (j / kPoissonBlock + 1) * kPoissonBlock;
      for (unsigned long long k = j - j % kPoissonBlock; k < block_end && k < job.offset + b; ++k) {
        const unsigned int x = hiprand_poisson(&s, job.lambda);
        if (k >= j) out[k - job.offset] = x;
      }
      j = block_end;
    }
    return;
  }
  start(&s, job, a);
  const float mean = float(job.mean), stddev = float(job.stddev);
  switch (job.kind) {
    case BITS:
      for (size_t i = a; i < b; ++i) static_cast<unsigned int*>(job.out)[i] = hiprand(&s);
      break;
    case UNIFORM:
      for (size_t i = a; i < b; ++i) static_cast<float*>(job.out)[i] = hiprand_uniform(&s);
      break;
    case UNIFORM_DOUBLE:
      for (size_t i = a; i < b; ++i) {
        double* out = static_cast<double*>(job.out);
        if constexpr (std::is_same_v<S, hiprandStateMRG32k3a_t>) {
          out[i] = hiprand_uniform_double(&s);
        } else {
          const unsigned int x = hiprand(&s);
          out[i] = __hk_uniform_double2(x, hiprand(&s));
        }
      }
      break;
    case NORMAL:
    case LOG_NORMAL:
      for (size_t i = a; i < b; i += 2) {
        const float2 v = job.kind == NORMAL ? hiprand_normal2(&s) : hiprand_log_normal2(&s, mean, stddev);
        float* out = static_cast<float*>(job.out) + i;
        out[0] = job.kind == NORMAL ? mean + stddev * v.x : v.x;
        out[1] = job.kind == NORMAL ? mean + stddev * v.y : v.y;
      }
      break;
    case NORMAL_DOUBLE:
    case LOG_NORMAL_DOUBLE:
      for (size_t i = a; i < b; i += 2) {
        const double2 v = job.kind == NORMAL_DOUBLE ? hiprand_normal2_double(&s)
                                                    : hiprand_log_normal2_double(&s, job.mean, job.stddev);
        double* out = static_cast<double*>(job.out) + i;
        out[0] = job.kind == NORMAL_DOUBLE ? job.mean + job.stddev * v.x : v.x;
        out[1] = job.kind == NORMAL_DOUBLE ? job.mean + job.stddev * v.y : v.y;
      }
      break;
    case POISSON:
      break;
  }
}

// Philox's blocks first .. first + count - 1 of subsequence 0 (count a multiple of 4,
// first < 2^62), four lanes a step so that the compiler vectorizes the rounds.
__attribute__((target_clones("avx512f", "avx2", "default"))) void philox_blocks(
    unsigned long long first, size_t count, uint2 key, unsigned int* out) {
  constexpr int L = 16;
  for (size_t base = 0; base < count; base += L) {
    unsigned int c0[L], c1[L], c2[L], c3[L];
    for (int l = 0; l < L; ++l) {
      const unsigned long long block = first + base + l;
      c0[l] = (unsigned int)block;
      c1[l] = (unsigned int)(block >> 32);
      c2[l] = c3[l] = 0;
    }
    unsigned int k0 = key.x, k1 = key.y;
    for (int round = 0; round < 10; ++round) {
      for (int l = 0; l < L; ++l) {
        const unsigned long long p0 = (unsigned long long)__HK_PHILOX_M0 * c0[l];
        const unsigned long long p1 = (unsigned long long)__HK_PHILOX_M1 * c2[l];
        const unsigned int y = (unsigned int)(p1 >> 32) ^ c1[l] ^ k0, w = (unsigned int)(p0 >> 32) ^ c3[l] ^ k1;
        c0[l] = y;
        c1[l] = (unsigned int)p1;
        c2[l] = w;
        c3[l] = (unsigned int)p0;
      }
      k0 += __HK_PHILOX_W0;
      k1 += __HK_PHILOX_W1;
    }
    const size_t lanes = std::min<size_t>(L, count - base);
    for (size_t l = 0; l < lanes; ++l) {
      unsigned int* o = out + 4 * (base + l);
      o[0] = c0[l];
      o[1] = c1[l];
      o[2] = c2[l];
      o[3] = c3[l];
    }
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void to_uniform(const unsigned int* in, float* out,
                                                                            size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = __hk_uniform(in[i]);
}

// hiprand_uniform_double's 53 bits of two numbers.
__attribute__((target_clones("avx512f", "avx2", "default"))) void to_uniform_double(const unsigned int* in,
                                                                                   double* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = __hk_uniform_double2(in[2 * i], in[2 * i + 1]);
}

// Philox's numbers, floats and doubles of elements [a, b): their numbers' blocks made in
// batches (the words before the first and after the last thrown away), then converted.
void philox_fast(const Job& job, size_t a, size_t b) {
  const unsigned long long per = numbers_per_element(job.type, job.kind);
  const uint2 key = make_uint2((unsigned int)job.seed, (unsigned int)(job.seed >> 32));
  constexpr size_t kBatch = 1024;  // elements
  std::vector<unsigned int> words(4 * (kBatch * 2 / 4 + 2) + 64);
  for (size_t i = a; i < b; i += kBatch) {
    const size_t count = std::min(kBatch, b - i);
    const unsigned long long first = job.offset + i * per;  // the first word (the last may be 2^64 - 1)
    const unsigned long long block = first / 4, blocks = (first % 4 + count * per + 3) / 4;
    philox_blocks(block, (blocks + 15) / 16 * 16, key, words.data());
    const unsigned int* w = words.data() + (first - 4 * block);
    switch (job.kind) {
      case BITS:
        memcpy(static_cast<unsigned int*>(job.out) + i, w, count * sizeof(unsigned int));
        break;
      case UNIFORM:
        to_uniform(w, static_cast<float*>(job.out) + i, count);
        break;
      default:  // UNIFORM_DOUBLE
        to_uniform_double(w, static_cast<double*>(job.out) + i, count);
        break;
    }
  }
}

void fill_range(const Job& job, size_t a, size_t b) {
  if (a >= b) return;
  switch (job.type) {
    case HIPRAND_RNG_PSEUDO_PHILOX4_32_10:
      if (job.kind == BITS || job.kind == UNIFORM || job.kind == UNIFORM_DOUBLE) return philox_fast(job, a, b);
      return fill<hiprandStatePhilox4_32_10_t>(job, a, b);
    case HIPRAND_RNG_PSEUDO_MRG32K3A:
      return fill<hiprandStateMRG32k3a_t>(job, a, b);
    case HIPRAND_RNG_QUASI_SOBOL32:
      return sobol_fill(job, a, b);
    default:  // XORWOW, the default engine
      return fill<hiprandStateXORWOW_t>(job, a, b);
  }
}

}  // namespace

unsigned long long numbers_per_element(hiprandRngType_t type, Kind kind) {
  if (kind == POISSON || type == HIPRAND_RNG_QUASI_SOBOL32 || type == HIPRAND_RNG_PSEUDO_MTGP32)
    return 1;  // Poisson positions; points; MTGP32's one number an element
  return is_double(kind) && type != HIPRAND_RNG_PSEUDO_MRG32K3A ? 2 : 1;
}

void run(const Job& job) {
  if (job.type == HIPRAND_RNG_PSEUDO_MTGP32) return mtgp32_run(job);
  // Ranges of whole Poisson blocks (each made from its start), or of four elements.
  const size_t grain = job.kind == POISSON && job.type != HIPRAND_RNG_QUASI_SOBOL32 ? kPoissonBlock : 4;
  const size_t min_range = 1 << 16;  // below this, one thread: starting one costs more
  const size_t parts = std::max<size_t>(1, std::min<size_t>(job.threads, job.n / min_range));
  std::vector<size_t> bounds{0};
  for (size_t p = 1; p < parts; ++p) {
    size_t at = job.n / parts * p;
    if (grain == kPoissonBlock) {
      const unsigned long long block_start = (job.offset + at) / grain * grain;
      at = block_start > job.offset ? size_t(block_start - job.offset) : 0;
    } else {
      at -= at % grain;
    }
    bounds.push_back(std::max(bounds.back(), at));
  }
  bounds.push_back(job.n);
  std::vector<std::thread> helpers;
  for (size_t p = 1; p + 1 < bounds.size(); ++p)
    helpers.emplace_back([&job, a = bounds[p], b = bounds[p + 1]] { fill_range(job, a, b); });
  fill_range(job, bounds[0], bounds[1]);
  for (std::thread& t : helpers) t.join();
}

}  // namespace hkrand
