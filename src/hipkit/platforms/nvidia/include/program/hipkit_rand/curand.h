// hipkit NVIDIA platform, whole programs: hipRAND's host API on cuRAND, as hipRAND's own
// NVIDIA backend does, inline in this header (programs link cuRAND: hipkit cc takes
// -lhiprand for -lcurand).  hipRAND's statuses are cuRAND's numbers and its generator
// is cuRAND's, so each call passes its arguments through as they are, but for the
// generator type (ROCm's numbers, mapped to cuRAND's).  Under `hipkit prof` each call
// is an API row named by hipRAND, its cuRAND kernels correlated with it (hipkit_nvidia_program/library_trace.h).
#pragma once

#include <hip/hip_runtime.h>
#include <curand.h>

#include "../hipkit_nvidia_program/library_trace.h"

#define HIPKIT_RAND_DECL inline
#include <hipkit_rand/api.h>

namespace __hk_rand {
inline curandGenerator_t cu(hiprandGenerator_t g) { return reinterpret_cast<curandGenerator_t>(g); }
inline hiprandStatus_t status(curandStatus_t s) { return static_cast<hiprandStatus_t>(s); }
// hipRAND's generator types (ROCm's numbers) as cuRAND's, whose enum hipRAND on NVIDIA
// takes (PHILOX4_32_10: 405 and 161); another number (HIPRAND_RNG_TEST too) is no type (-1: cuRAND refuses it).
inline curandRngType_t rng(hiprandRngType_t t) {
  switch (static_cast<int>(t)) {
    case 400: return CURAND_RNG_PSEUDO_DEFAULT;
    case 401: return CURAND_RNG_PSEUDO_XORWOW;
    case 402: return CURAND_RNG_PSEUDO_MRG32K3A;
    case 403: return CURAND_RNG_PSEUDO_MTGP32;
    case 404: return CURAND_RNG_PSEUDO_MT19937;
    case 405: return CURAND_RNG_PSEUDO_PHILOX4_32_10;
    case 500: return CURAND_RNG_QUASI_DEFAULT;
    case 501: return CURAND_RNG_QUASI_SOBOL32;
    case 502: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
    case 503: return CURAND_RNG_QUASI_SOBOL64;
    case 504: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
    default: return static_cast<curandRngType_t>(-1);
  }
}
}  // namespace __hk_rand

// Each function: its API row, then cuRAND's function of the same arguments.
#define __HK_RAND_CALL(NAME, CU_CALL)          \
  const __hk_trace::LibraryCall call_(#NAME); \
  return __hk_rand::status(CU_CALL)

inline hiprandStatus_t hiprandCreateGenerator(hiprandGenerator_t* generator, hiprandRngType_t rng_type) {
  __HK_RAND_CALL(hiprandCreateGenerator, curandCreateGenerator(reinterpret_cast<curandGenerator_t*>(generator),
                                                               __hk_rand::rng(rng_type)));
}
inline hiprandStatus_t hiprandCreateGeneratorHost(hiprandGenerator_t* generator, hiprandRngType_t rng_type) {
  __HK_RAND_CALL(hiprandCreateGeneratorHost,
                 curandCreateGeneratorHost(reinterpret_cast<curandGenerator_t*>(generator),
                                           __hk_rand::rng(rng_type)));
}
inline hiprandStatus_t hiprandDestroyGenerator(hiprandGenerator_t g) {
  __HK_RAND_CALL(hiprandDestroyGenerator, curandDestroyGenerator(__hk_rand::cu(g)));
}
inline hiprandStatus_t hiprandGenerate(hiprandGenerator_t g, unsigned int* out, size_t n) {
  __HK_RAND_CALL(hiprandGenerate, curandGenerate(__hk_rand::cu(g), out, n));
}
inline hiprandStatus_t hiprandGenerateUniform(hiprandGenerator_t g, float* out, size_t n) {
  __HK_RAND_CALL(hiprandGenerateUniform, curandGenerateUniform(__hk_rand::cu(g), out, n));
}
inline hiprandStatus_t hiprandGenerateUniformDouble(hiprandGenerator_t g, double* out, size_t n) {
  __HK_RAND_CALL(hiprandGenerateUniformDouble, curandGenerateUniformDouble(__hk_rand::cu(g), out, n));
}
inline hiprandStatus_t hiprandGenerateNormal(hiprandGenerator_t g, float* out, size_t n, float mean, float stddev) {
  __HK_RAND_CALL(hiprandGenerateNormal, curandGenerateNormal(__hk_rand::cu(g), out, n, mean, stddev));
}
inline hiprandStatus_t hiprandGenerateNormalDouble(hiprandGenerator_t g, double* out, size_t n, double mean,
                                                   double stddev) {
  __HK_RAND_CALL(hiprandGenerateNormalDouble, curandGenerateNormalDouble(__hk_rand::cu(g), out, n, mean, stddev));
}
inline hiprandStatus_t hiprandGenerateLogNormal(hiprandGenerator_t g, float* out, size_t n, float mean,
                                                float stddev) {
  __HK_RAND_CALL(hiprandGenerateLogNormal, curandGenerateLogNormal(__hk_rand::cu(g), out, n, mean, stddev));
}
inline hiprandStatus_t hiprandGenerateLogNormalDouble(hiprandGenerator_t g, double* out, size_t n, double mean,
                                                      double stddev) {
  __HK_RAND_CALL(hiprandGenerateLogNormalDouble,
                 curandGenerateLogNormalDouble(__hk_rand::cu(g), out, n, mean, stddev));
}
// cuRAND takes any lambda and answers CURAND_STATUS_OUT_OF_RANGE itself (hipRAND's rule).
inline hiprandStatus_t hiprandGeneratePoisson(hiprandGenerator_t g, unsigned int* out, size_t n, double lambda) {
  __HK_RAND_CALL(hiprandGeneratePoisson, curandGeneratePoisson(__hk_rand::cu(g), out, n, lambda));
}
inline hiprandStatus_t hiprandGenerateSeeds(hiprandGenerator_t g) {
  __HK_RAND_CALL(hiprandGenerateSeeds, curandGenerateSeeds(__hk_rand::cu(g)));
}
inline hiprandStatus_t hiprandSetStream(hiprandGenerator_t g, hipStream_t stream) {
  __HK_RAND_CALL(hiprandSetStream, curandSetStream(__hk_rand::cu(g), stream));
}
inline hiprandStatus_t hiprandSetPseudoRandomGeneratorSeed(hiprandGenerator_t g, unsigned long long seed) {
  __HK_RAND_CALL(hiprandSetPseudoRandomGeneratorSeed, curandSetPseudoRandomGeneratorSeed(__hk_rand::cu(g), seed));
}
inline hiprandStatus_t hiprandSetGeneratorOffset(hiprandGenerator_t g, unsigned long long offset) {
  __HK_RAND_CALL(hiprandSetGeneratorOffset, curandSetGeneratorOffset(__hk_rand::cu(g), offset));
}
inline hiprandStatus_t hiprandSetQuasiRandomGeneratorDimensions(hiprandGenerator_t g, unsigned int dimensions) {
  __HK_RAND_CALL(hiprandSetQuasiRandomGeneratorDimensions,
                 curandSetQuasiRandomGeneratorDimensions(__hk_rand::cu(g), dimensions));
}
// hipRAND on NVIDIA answers cuRAND's version; NULL is HIPRAND_STATUS_OUT_OF_RANGE.
inline hiprandStatus_t hiprandGetVersion(int* version) {
  if (version == nullptr) return HIPRAND_STATUS_OUT_OF_RANGE;
  return __hk_rand::status(curandGetVersion(version));
}
// The sets' numbers are cuRAND's.
inline hiprandStatus_t hiprandGetDirectionVectors32(hiprandDirectionVectors32_t** vectors,
                                                    hiprandDirectionVectorSet_t set) {
  __HK_RAND_CALL(hiprandGetDirectionVectors32,
                 curandGetDirectionVectors32(reinterpret_cast<curandDirectionVectors32_t**>(vectors),
                                             static_cast<curandDirectionVectorSet_t>(set)));
}
#undef __HK_RAND_CALL
