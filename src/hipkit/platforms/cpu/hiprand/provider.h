// hipkit's hipRAND on the CPU: what the provider's files share.
//
// The library (libhipkit_cpu_rand.so, built by platforms/cpu/rand.py) defines every
// function of hipkit_rand/api.h: the hipRAND that CPU programs link with -lhiprand and
// that Python calls through ctypes.  It links libhipkit_cpu, so devices and streams
// are the runtime's.  The numbers are the device API's (hipkit_portable/rand_kernel.h,
// compiled here as plain C++), by the rule README's "reproducibility" section states:
// element i of a call is made of the numbers at position offset + i * k of the
// engine's stream (seed, subsequence 0), where offset is the generator's offset and k
// the numbers each element takes (generate.cpp); Poisson numbers come from their own
// subsequences.  SOBOL32's element i of a call of n = m * dimensions is point
// offset + i % m of dimension i / m, the offset counting points (sobol.cpp).  MTGP32
// follows cuRAND's layout instead, from states the generator keeps (mtgp32.cpp).
// api.cpp holds the C functions and their checks; generate.cpp, sobol.cpp and
// mtgp32.cpp the work.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <memory>

#include <hipkit_cpu/runtime.h>

// What hipkit_rand/api.h and the portable device code name of HIP's types: the
// runtime's stream, and the vector types with their make_ functions.
typedef hkrt_stream* hipStream_t;
struct uint2 {
  unsigned int x, y;
};
struct uint4 {
  unsigned int x, y, z, w;
};
struct float2 {
  float x, y;
};
struct float4 {
  float x, y, z, w;
};
struct double2 {
  double x, y;
};
struct double4 {
  double x, y, z, w;
};
inline uint2 make_uint2(unsigned int x, unsigned int y) { return {x, y}; }
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return {x, y, z, w}; }
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline double4 make_double4(double x, double y, double z, double w) { return {x, y, z, w}; }

#define HIPKIT_RAND_DECL __attribute__((visibility("default")))
#include <hipkit_rand/api.h>

#define __HK_RAND_FN static inline
#define __HK_RAND_TABLE static const
#define __HK_RAND_NO_BLOCKS
#include <hipkit_portable/rand_kernel.h>

struct hiprandGenerator_st {
  hiprandRngType_t type;    // one of the engines served here
  bool host;                // hiprandCreateGeneratorHost's: output in host memory, made at once
  int device;               // the runtime's index of the device current at its creation
  hkrt_stream* stream;      // NULL: that device's null stream
  unsigned long long seed;  // hipRAND's default: 0
  unsigned long long offset;  // SOBOL32's: in points
  unsigned int dimensions;    // SOBOL32's (1 to kSobolDimensions), 1 by default
};

namespace hkrand {

struct Mtgp32Engine;

enum Kind { BITS, UNIFORM, UNIFORM_DOUBLE, NORMAL, NORMAL_DOUBLE, LOG_NORMAL, LOG_NORMAL_DOUBLE, POISSON };

// One call's work: what it makes, where, from which position of the stream.
struct Job {
  hiprandRngType_t type;
  Kind kind;
  unsigned long long seed, offset;
  unsigned int dimensions;  // SOBOL32's
  void* out;
  size_t n;
  double mean, stddev, lambda;
  int threads;  // the device's workers, which share the work
  std::shared_ptr<Mtgp32Engine> mtgp32;  // MTGP32's states, the generator's
};

// The numbers of the engine's stream each element of `kind` takes (the generator's
// offset moves by n times this; Poisson numbers by n).
unsigned long long numbers_per_element(hiprandRngType_t type, Kind kind);

// Makes the job's numbers (on the calling thread and job.threads - 1 more).
void run(const Job& job);

// SOBOL32: the dimensions served, their direction numbers, and elements [a, b) of a job.
constexpr unsigned int kSobolDimensions = 20000;
hiprandDirectionVectors32_t* sobol_directions();
void sobol_fill(const Job& job, size_t a, size_t b);

// MTGP32: a generator's states, and a job's numbers from them (numbers offset ..
// offset + n of the stream; the states move on).
std::shared_ptr<Mtgp32Engine> mtgp32_engine();
void mtgp32_run(const Job& job);

// Poisson number j is number j % kPoissonBlock of subsequence 1 + j / kPoissonBlock.
constexpr unsigned long long kPoissonBlock = 4096;

}  // namespace hkrand
