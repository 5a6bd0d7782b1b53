// hipkit CPU platform: hipRAND's host API (ROCm's hiprand/hiprand.h), served by hipkit's
// provider, libhipkit_cpu_rand.so, which `hipkit cc ... -lhiprand` links.  Its calls are
// work on the CPU runtime's streams, ordered with the program's kernels and copies;
// their numbers are the device API's (hiprand/hiprand_kernel.h) by hipkit's rule.
#pragma once

#include "../hip/hip_runtime.h"

#define HIPKIT_RAND_DECL
#include <hipkit_rand/api.h>

#ifdef __HIPKIT_PROGRAM__
// The device a generator is made on: the calling thread's current device, which is the
// program headers' (hipSetDevice), so the provider asks the program for it.
extern "C" inline __attribute__((used, visibility("default"))) int __hipkit_rand_program_device(void) {
  return __hk::current();
}
#endif
