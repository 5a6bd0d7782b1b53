// hipkit's hipRAND on the CPU: the C functions, with hipRAND's checks and statuses
// (ROCm's hiprand.h documents them).  A generator is the device current when it was
// made (a program's hipSetDevice, or for Python hipkitRandSetDevice), its stream, its
// seed and its position in the stream: a call's work is a host function on the stream
// (providers/work.h), which makes the numbers with the device's workers; a host
// generator (hiprandCreateGeneratorHost) makes them before the call returns.
//
// Served: PHILOX4_32_10, XORWOW (PSEUDO_DEFAULT), MRG32K3A, MTGP32 and SOBOL32
// (QUASI_DEFAULT).  MTGP32 has no offset (HIPRAND_STATUS_TYPE_ERROR, as cuRAND answers)
// and makes normals one a number, so any count.  MT19937, the scrambled Sobol and the
// 64-bit Sobol generators are hipRAND's types that this provider does not make (HIPRAND_STATUS_NOT_IMPLEMENTED, hipRAND's
// status for that); any other number is HIPRAND_STATUS_TYPE_ERROR.  A quasi-random
// generator has dimensions instead of a seed (a seed is HIPRAND_STATUS_TYPE_ERROR, as
// dimensions are for a pseudo-random one), its offset counts points, and a call's count
// must be a multiple of its dimensions (HIPRAND_STATUS_LENGTH_NOT_MULTIPLE).
#include "provider.h"
#include "work.h"

extern "C" {
// A program built by hipkit cc that includes <hiprand/hiprand.h> defines this (the CPU
// platform's hiprand/hiprand.h): its thread's current device, the runtime's index.
// Python processes do not: they say which device with hipkitRandSetDevice.
__attribute__((weak)) int __hipkit_rand_program_device(void);
}

using hkprovider::ApiCall;

namespace {

thread_local int selected_device = 0;  // hipkitRandSetDevice's

int current_device() {
  return __hipkit_rand_program_device != nullptr ? __hipkit_rand_program_device() : selected_device;
}

// The generator's state besides hipRAND's: where SetGeneratorOffset put it (a new seed
// starts over from there).
struct Generator : hiprandGenerator_st {
  unsigned long long start;
  std::shared_ptr<hkrand::Mtgp32Engine> mtgp32;  // MTGP32's states (its queued work holds them too)
};

hiprandStatus_t create(hiprandGenerator_t* generator, hiprandRngType_t type, bool host) {
  if (generator == nullptr) return HIPRAND_STATUS_NOT_INITIALIZED;
  switch (type) {
    case HIPRAND_RNG_PSEUDO_DEFAULT:
      type = HIPRAND_RNG_PSEUDO_XORWOW;  // cuRAND's and hipRAND's default
      break;
    case HIPRAND_RNG_PSEUDO_XORWOW:
    case HIPRAND_RNG_PSEUDO_MRG32K3A:
    case HIPRAND_RNG_PSEUDO_PHILOX4_32_10:
    case HIPRAND_RNG_PSEUDO_MTGP32:
    case HIPRAND_RNG_QUASI_SOBOL32:
      break;
    case HIPRAND_RNG_QUASI_DEFAULT:
      type = HIPRAND_RNG_QUASI_SOBOL32;
      break;
    case HIPRAND_RNG_PSEUDO_MT19937:
    case HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL32:
    case HIPRAND_RNG_QUASI_SOBOL64:
    case HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL64:
      return HIPRAND_STATUS_NOT_IMPLEMENTED;
    default:
      return HIPRAND_STATUS_TYPE_ERROR;
  }
  const int device = current_device();
  hkrt_device_info info;
  if (hkrt_get_device_info(device, &info) != HKRT_SUCCESS) return HIPRAND_STATUS_INITIALIZATION_FAILED;
  Generator* g = new Generator{};
  g->type = type;
  g->host = host;
  g->device = device;
  g->dimensions = 1;
  if (type == HIPRAND_RNG_PSEUDO_MTGP32) g->mtgp32 = hkrand::mtgp32_engine();
  *generator = g;
  return HIPRAND_STATUS_SUCCESS;
}

Generator* generator_of(hiprandGenerator_t g) { return static_cast<Generator*>(g); }

bool is_quasi(const Generator& g) { return g.type == HIPRAND_RNG_QUASI_SOBOL32; }

int workers(int device) {
  hkrt_device_info info;
  return hkrt_get_device_info(device, &info) == HKRT_SUCCESS && info.multiprocessor_count > 0
             ? int(info.multiprocessor_count)
             : 1;
}

// Every Generate call: hipRAND's checks, then the job made now (host generators) or
// enqueued; the generator's position moves past what it takes.  Pairs (normals of the
// counter-based and XORWOW engines) need an even count and an output aligned to a pair;
// a quasi-random call, whole points.
hiprandStatus_t generate(const char* name, hiprandGenerator_t generator, hkrand::Kind kind, void* out, size_t n,
                         size_t element_size, double mean = 0, double stddev = 1, double lambda = 0) {
  if (generator == nullptr) return HIPRAND_STATUS_NOT_INITIALIZED;
  Generator& g = *generator_of(generator);
  const bool quasi = is_quasi(g);
  const bool pairs = !quasi && g.type != HIPRAND_RNG_PSEUDO_MTGP32 && kind != hkrand::BITS &&
                     kind != hkrand::UNIFORM && kind != hkrand::UNIFORM_DOUBLE && kind != hkrand::POISSON;
  if (pairs && (n % 2 != 0 || reinterpret_cast<uintptr_t>(out) % (2 * element_size) != 0))
    return HIPRAND_STATUS_LENGTH_NOT_MULTIPLE;
  if (quasi && n % g.dimensions != 0) return HIPRAND_STATUS_LENGTH_NOT_MULTIPLE;
  if (kind == hkrand::POISSON && !(lambda > 0)) return HIPRAND_STATUS_OUT_OF_RANGE;
  if (n == 0) return HIPRAND_STATUS_SUCCESS;
  // The positions must stay below 2^64 (the stream's offsets are 64-bit numbers), a
  // SOBOL32 point's index below 2^32.
  const unsigned __int128 advance =
      quasi ? n / g.dimensions : (unsigned __int128)n * hkrand::numbers_per_element(g.type, kind);
  if (g.offset + advance > (unsigned __int128)1 << (quasi ? 32 : 64)) return HIPRAND_STATUS_OUT_OF_RANGE;
  const hkrand::Job job{g.type, kind, g.seed, g.offset, g.dimensions, out, n, mean, stddev, lambda,
                        workers(g.device), g.mtgp32};
  g.offset += (unsigned long long)advance;
  if (g.host) {
    hkrand::run(job);
    return HIPRAND_STATUS_SUCCESS;
  }
  const bool small = (quasi ? n : advance) <= 4096;  // the numbers it makes
  return hkprovider::enqueue(g.device, g.stream, name, [job] { hkrand::run(job); }, small)
             ? HIPRAND_STATUS_SUCCESS
             : HIPRAND_STATUS_LAUNCH_FAILURE;
}

}  // namespace

extern "C" {

// For Python: the device, the runtime's index, that this thread's next generator is
// made on.  Programs need not call it.
__attribute__((visibility("default"))) int hipkitRandSetDevice(int device) {
  hkrt_device_info info;
  if (hkrt_get_device_info(device, &info) != HKRT_SUCCESS) return HIPRAND_STATUS_INITIALIZATION_FAILED;
  selected_device = device;
  return HIPRAND_STATUS_SUCCESS;
}

hiprandStatus_t hiprandCreateGenerator(hiprandGenerator_t* generator, hiprandRngType_t rng_type) {
  const ApiCall call("hiprandCreateGenerator");
  return create(generator, rng_type, false);
}

hiprandStatus_t hiprandCreateGeneratorHost(hiprandGenerator_t* generator, hiprandRngType_t rng_type) {
  const ApiCall call("hiprandCreateGeneratorHost");
  return create(generator, rng_type, true);
}

// The generator's queued work holds what it needs: the generator may go at once.
hiprandStatus_t hiprandDestroyGenerator(hiprandGenerator_t generator) {
  const ApiCall call("hiprandDestroyGenerator");
  if (generator == nullptr) return HIPRAND_STATUS_NOT_INITIALIZED;
  delete generator_of(generator);
  return HIPRAND_STATUS_SUCCESS;
}

hiprandStatus_t hiprandSetStream(hiprandGenerator_t generator, hipStream_t stream) {
  if (generator == nullptr) return HIPRAND_STATUS_NOT_INITIALIZED;
  generator->stream = stream;
  return HIPRAND_STATUS_SUCCESS;
}

hiprandStatus_t hiprandSetPseudoRandomGeneratorSeed(hiprandGenerator_t generator, unsigned long long seed) {
  if (generator == nullptr) return HIPRAND_STATUS_NOT_INITIALIZED;
  Generator& g = *generator_of(generator);
  if (is_quasi(g)) return HIPRAND_STATUS_TYPE_ERROR;
  g.seed = seed;
  g.offset = g.start;  // a new seed's stream, from the generator's offset
  return HIPRAND_STATUS_SUCCESS;
}

hiprandStatus_t hiprandSetGeneratorOffset(hiprandGenerator_t generator, unsigned long long offset) {
  if (generator == nullptr) return HIPRAND_STATUS_NOT_INITIALIZED;
  Generator& g = *generator_of(generator);
  if (g.type == HIPRAND_RNG_PSEUDO_MTGP32) return HIPRAND_STATUS_TYPE_ERROR;
  g.start = g.offset = offset;
  return HIPRAND_STATUS_SUCCESS;
}

// New dimensions start over from the generator's offset, as a new seed does.
hiprandStatus_t hiprandSetQuasiRandomGeneratorDimensions(hiprandGenerator_t generator, unsigned int dimensions) {
  if (generator == nullptr) return HIPRAND_STATUS_NOT_INITIALIZED;
  Generator& g = *generator_of(generator);
  if (!is_quasi(g)) return HIPRAND_STATUS_TYPE_ERROR;
  if (dimensions < 1 || dimensions > hkrand::kSobolDimensions) return HIPRAND_STATUS_OUT_OF_RANGE;
  g.dimensions = dimensions;
  g.offset = g.start;
  return HIPRAND_STATUS_SUCCESS;
}

// The engines' states are made from the seed in each call: nothing to do ahead.
hiprandStatus_t hiprandGenerateSeeds(hiprandGenerator_t generator) {
  return generator == nullptr ? HIPRAND_STATUS_NOT_INITIALIZED : HIPRAND_STATUS_SUCCESS;
}

hiprandStatus_t hiprandGetVersion(int* version) {
  if (version == nullptr) return HIPRAND_STATUS_OUT_OF_RANGE;
  *version = HIPRAND_VERSION;
  return HIPRAND_STATUS_SUCCESS;
}

// Joe and Kuo's set only (cuRAND's CURAND_DIRECTION_VECTORS_32_JOEKUO6); the scrambled
// set is not served, the 64-bit ones are not 32-bit vectors.
hiprandStatus_t hiprandGetDirectionVectors32(hiprandDirectionVectors32_t** vectors,
                                             hiprandDirectionVectorSet_t set) {
  if (vectors == nullptr) return HIPRAND_STATUS_OUT_OF_RANGE;
  if (set == HIPRAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6) return HIPRAND_STATUS_NOT_IMPLEMENTED;
  if (set != HIPRAND_DIRECTION_VECTORS_32_JOEKUO6) return HIPRAND_STATUS_OUT_OF_RANGE;
  *vectors = hkrand::sobol_directions();
  return HIPRAND_STATUS_SUCCESS;
}

// Each Generate function: its API row, then generate()'s checks and work.
#define HK_GENERATE_BODY(NAME, KIND, ...)   \
  const ApiCall call(#NAME);               \
  return generate(#NAME, generator, hkrand::KIND, out, n, sizeof(*out), ##__VA_ARGS__)

hiprandStatus_t hiprandGenerate(hiprandGenerator_t generator, unsigned int* out, size_t n) {
  HK_GENERATE_BODY(hiprandGenerate, BITS);
}
hiprandStatus_t hiprandGenerateUniform(hiprandGenerator_t generator, float* out, size_t n) {
  HK_GENERATE_BODY(hiprandGenerateUniform, UNIFORM);
}
hiprandStatus_t hiprandGenerateUniformDouble(hiprandGenerator_t generator, double* out, size_t n) {
  HK_GENERATE_BODY(hiprandGenerateUniformDouble, UNIFORM_DOUBLE);
}
hiprandStatus_t hiprandGenerateNormal(hiprandGenerator_t generator, float* out, size_t n, float mean, float stddev) {
  HK_GENERATE_BODY(hiprandGenerateNormal, NORMAL, mean, stddev);
}
hiprandStatus_t hiprandGenerateNormalDouble(hiprandGenerator_t generator, double* out, size_t n, double mean, double stddev) {
  HK_GENERATE_BODY(hiprandGenerateNormalDouble, NORMAL_DOUBLE, mean, stddev);
}
hiprandStatus_t hiprandGenerateLogNormal(hiprandGenerator_t generator, float* out, size_t n, float mean, float stddev) {
  HK_GENERATE_BODY(hiprandGenerateLogNormal, LOG_NORMAL, mean, stddev);
}
hiprandStatus_t hiprandGenerateLogNormalDouble(hiprandGenerator_t generator, double* out, size_t n, double mean, double stddev) {
  HK_GENERATE_BODY(hiprandGenerateLogNormalDouble, LOG_NORMAL_DOUBLE, mean, stddev);
}
hiprandStatus_t hiprandGeneratePoisson(hiprandGenerator_t generator, unsigned int* out, size_t n, double lambda) {
  HK_GENERATE_BODY(hiprandGeneratePoisson, POISSON, 0, 1, lambda);
}
#undef HK_GENERATE_BODY

}  // extern "C"
