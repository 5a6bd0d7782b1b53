// hipkit: hipRAND's host API (ROCm's hiprand/hiprand.h, hipRAND 2.10): its types, its
// numbers (cuRAND's too) and the declarations of its functions, for the platforms that
// serve hipRAND themselves (the CPU: libhipkit_cpu_rand.so) and, for its types, those
// that serve it inline over the vendor's (NVIDIA: hipRAND on cuRAND).  The including
// header defines HIPKIT_RAND_DECL (how a function is declared) and hipStream_t.
#pragma once

#include <stddef.h>

#define HIPRAND_VERSION 201009  // hipRAND 2.10.9, whose API this follows

typedef struct hiprandGenerator_st* hiprandGenerator_t;

typedef enum hiprandStatus {
  HIPRAND_STATUS_SUCCESS = 0,
  HIPRAND_STATUS_VERSION_MISMATCH = 100,
  HIPRAND_STATUS_NOT_INITIALIZED = 101,
  HIPRAND_STATUS_ALLOCATION_FAILED = 102,
  HIPRAND_STATUS_TYPE_ERROR = 103,
  HIPRAND_STATUS_OUT_OF_RANGE = 104,
  HIPRAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
  HIPRAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
  HIPRAND_STATUS_LAUNCH_FAILURE = 201,
  HIPRAND_STATUS_PREEXISTING_FAILURE = 202,
  HIPRAND_STATUS_INITIALIZATION_FAILED = 203,
  HIPRAND_STATUS_ARCH_MISMATCH = 204,
  HIPRAND_STATUS_INTERNAL_ERROR = 999,
  HIPRAND_STATUS_NOT_IMPLEMENTED = 1000
} hiprandStatus_t;

typedef enum hiprandRngType {
  HIPRAND_RNG_TEST = 0,
  HIPRAND_RNG_PSEUDO_DEFAULT = 400,
  HIPRAND_RNG_PSEUDO_XORWOW = 401,
  HIPRAND_RNG_PSEUDO_MRG32K3A = 402,
  HIPRAND_RNG_PSEUDO_MTGP32 = 403,
  HIPRAND_RNG_PSEUDO_MT19937 = 404,
  HIPRAND_RNG_PSEUDO_PHILOX4_32_10 = 405,
  HIPRAND_RNG_QUASI_DEFAULT = 500,
  HIPRAND_RNG_QUASI_SOBOL32 = 501,
  HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 502,
  HIPRAND_RNG_QUASI_SOBOL64 = 503,
  HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 504
} hiprandRngType_t;

// SOBOL32's direction numbers: a dimension's 32 words (the device API's type too,
// hipkit_portable/rand_sobol.h), and the sets hiprandGetDirectionVectors32 knows.
typedef unsigned int hiprandDirectionVectors32_t[32];
typedef enum hiprandDirectionVectorSet {
  HIPRAND_DIRECTION_VECTORS_32_JOEKUO6 = 101,
  HIPRAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 = 102,
  HIPRAND_DIRECTION_VECTORS_64_JOEKUO6 = 103,
  HIPRAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 = 104
} hiprandDirectionVectorSet_t;

#ifdef HIPKIT_RAND_DECL
#ifdef __cplusplus
extern "C" {
#endif

HIPKIT_RAND_DECL hiprandStatus_t hiprandCreateGenerator(hiprandGenerator_t* generator, hiprandRngType_t rng_type);
HIPKIT_RAND_DECL hiprandStatus_t hiprandCreateGeneratorHost(hiprandGenerator_t* generator,
                                                             hiprandRngType_t rng_type);
HIPKIT_RAND_DECL hiprandStatus_t hiprandDestroyGenerator(hiprandGenerator_t generator);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGenerate(hiprandGenerator_t generator, unsigned int* output_data,
                                                 size_t n);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGenerateUniform(hiprandGenerator_t generator, float* output_data,
                                                        size_t n);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGenerateUniformDouble(hiprandGenerator_t generator, double* output_data,
                                                              size_t n);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGenerateNormal(hiprandGenerator_t generator, float* output_data, size_t n,
                                                       float mean, float stddev);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGenerateNormalDouble(hiprandGenerator_t generator, double* output_data,
                                                             size_t n, double mean, double stddev);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGenerateLogNormal(hiprandGenerator_t generator, float* output_data,
                                                          size_t n, float mean, float stddev);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGenerateLogNormalDouble(hiprandGenerator_t generator,
                                                                double* output_data, size_t n, double mean,
                                                                double stddev);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGeneratePoisson(hiprandGenerator_t generator, unsigned int* output_data,
                                                        size_t n, double lambda);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGenerateSeeds(hiprandGenerator_t generator);
HIPKIT_RAND_DECL hiprandStatus_t hiprandSetStream(hiprandGenerator_t generator, hipStream_t stream);
HIPKIT_RAND_DECL hiprandStatus_t hiprandSetPseudoRandomGeneratorSeed(hiprandGenerator_t generator,
                                                                     unsigned long long seed);
HIPKIT_RAND_DECL hiprandStatus_t hiprandSetGeneratorOffset(hiprandGenerator_t generator,
                                                           unsigned long long offset);
HIPKIT_RAND_DECL hiprandStatus_t hiprandSetQuasiRandomGeneratorDimensions(hiprandGenerator_t generator,
                                                                          unsigned int dimensions);
HIPKIT_RAND_DECL hiprandStatus_t hiprandGetVersion(int* version);
// Newer hipRAND's (and cuRAND's): the 20000 dimensions' direction numbers, in host memory.
HIPKIT_RAND_DECL hiprandStatus_t hiprandGetDirectionVectors32(hiprandDirectionVectors32_t** vectors,
                                                              hiprandDirectionVectorSet_t set);

#ifdef __cplusplus
}
#endif
#endif  // HIPKIT_RAND_DECL
