// hipkit CPU platform: hipBLAS (ROCm's hipblas/hipblas.h), served by hipkit's provider
// on OpenBLAS, libhipkit_cpu_blas.so, which `hipkit cc ... -lhipblas` links (and
// -lrocblas).  Its routines are work on the CPU runtime's streams, ordered with the
// program's kernels and copies.
#pragma once

#include <hipkit_blas/api.h>

#ifdef __HIPKIT_PROGRAM__
// The device hipblasCreate makes its handle on: the calling thread's current device,
// which is the program headers' (hipSetDevice), so the provider asks the program for it.
extern "C" inline __attribute__((used, visibility("default"))) int __hipkit_blas_program_device(void) {
  return __hk::current();
}
#endif
