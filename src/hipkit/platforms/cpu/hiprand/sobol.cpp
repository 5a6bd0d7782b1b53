// hipkit's hipRAND on the CPU: SOBOL32 (provider.h says what the files share).
//
// Joe and Kuo's direction numbers (hipkit_rand/sobol_joe_kuo6.h keeps each dimension's
// polynomial and initial values) are expanded into 32 words a dimension once, on first
// use; hiprandGetDirectionVectors32 hands them out, and the generator's calls make
// their points with the device API's engine (hipkit_portable/rand_sobol.h).
#include <mutex>
#include <vector>

#include <hipkit_rand/sobol_joe_kuo6.h>

#include "provider.h"

namespace hkrand {

static_assert(kSobolDimensions == __HK_SOBOL_DIMENSIONS, "the table's dimensions");

namespace {

// Joe and Kuo's recurrence: v[k] = m_k / 2^k as 32-bit fractions for k < s, and beyond
// v[k] = v[k-s] ^ (v[k-s] >> s) ^ (v[k-j] for the polynomial's inner coefficients a_j).
void expand(unsigned int poly, const unsigned int* m, unsigned int* v) {
  const int s = 31 - __builtin_clz(poly);
  for (int k = 0; k < 32; ++k) {
    if (s == 0) {  // dimension 0, van der Corput's: every m is 1
      v[k] = 1u << (31 - k);
    } else if (k < s) {
      v[k] = m[k] << (31 - k);
    } else {
      unsigned int x = v[k - s] ^ (v[k - s] >> s);
      for (int j = 1; j < s; ++j)
        if ((poly >> (s - j)) & 1u) x ^= v[k - j];
      v[k] = x;
    }
  }
}

}  // namespace

hiprandDirectionVectors32_t* sobol_directions() {
  static std::vector<unsigned int> words;
  static std::once_flag once;
  std::call_once(once, [] {
    words.resize(size_t(kSobolDimensions) * 32);
    const unsigned int* m = __hk_sobol_m;
    for (unsigned int d = 0; d < kSobolDimensions; ++d) {
      expand(__hk_sobol_poly[d], m, &words[size_t(d) * 32]);
      m += 31 - __builtin_clz(__hk_sobol_poly[d]);
    }
  });
  return reinterpret_cast<hiprandDirectionVectors32_t*>(words.data());
}

// Element e of a call of m = n / dimensions points a dimension is point offset + e % m
// of dimension e / m (dimension-major, as cuRAND lays them out).
void sobol_fill(const Job& job, size_t a, size_t b) {
  hiprandDirectionVectors32_t* directions = sobol_directions();
  const size_t m = job.n / job.dimensions;
  hiprandStateSobol32_t s;
  for (size_t e = a; e < b; ++e) {
    if (e == a || e % m == 0) hiprand_init(directions[e / m], (unsigned int)(job.offset + e % m), &s);
    switch (job.kind) {
      case BITS:
        static_cast<unsigned int*>(job.out)[e] = hiprand(&s);
        break;
      case UNIFORM:
        static_cast<float*>(job.out)[e] = hiprand_uniform(&s);
        break;
      case UNIFORM_DOUBLE:
        static_cast<double*>(job.out)[e] = hiprand_uniform_double(&s);
        break;
      case NORMAL:
        static_cast<float*>(job.out)[e] = float(job.mean) + float(job.stddev) * hiprand_normal(&s);
        break;
      case NORMAL_DOUBLE:
        static_cast<double*>(job.out)[e] = job.mean + job.stddev * hiprand_normal_double(&s);
        break;
      case LOG_NORMAL:
        static_cast<float*>(job.out)[e] = hiprand_log_normal(&s, float(job.mean), float(job.stddev));
        break;
      case LOG_NORMAL_DOUBLE:
        static_cast<double*>(job.out)[e] = hiprand_log_normal_double(&s, job.mean, job.stddev);
        break;
      case POISSON:
        static_cast<unsigned int*>(job.out)[e] = hiprand_poisson(&s, job.lambda);
        break;
    }
  }
}

}  // namespace hkrand
