// hipkit CPU platform: hipFFT (ROCm's hipfft/hipfft.h), served by hipkit's own FFT
// engine, libhipkit_cpu_fft.so, which `hipkit cc ... -lhipfft` links.  Its transforms
// are work on the CPU runtime's streams, ordered with the program's kernels and copies.
#pragma once

typedef struct hipfftHandle_t* hipfftHandle;

#include <hipkit_fft/api.h>

#ifdef __HIPKIT_PROGRAM__
// The device a plan is made on: the calling thread's current device (hipSetDevice),
// which the program's headers know, so the engine asks the program for it.
extern "C" inline __attribute__((used, visibility("default"))) int __hipkit_fft_program_device(void) {
  return __hk::current();
}
#endif
