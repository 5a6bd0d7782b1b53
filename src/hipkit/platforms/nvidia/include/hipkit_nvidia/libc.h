// hipkit NVIDIA platform: what kernel code takes from the C library (part of
// device.h): fixed-width integers, limits, floating-point constants, abort().
// NVRTC has no C library headers; printf, malloc, free, memcpy and memset
// are NVRTC built-ins.
#pragma once

// The host's types (glibc's on LP64: int64_t is long), so that overloads and
// mangled names agree with code compiled for the host and the CPU platform.
// (On AMD, hiprtc declares these itself, the 64-bit ones as long long.)
typedef int int32_t;
typedef unsigned int uint32_t;
#ifdef __LP64__
typedef long int64_t;
typedef unsigned long uint64_t;
#else
typedef long long int64_t;
typedef unsigned long long uint64_t;
#endif

#include "hipkit_portable/libc.h"

// As on AMD (where HIP has it): abort() in a kernel traps (hipErrorLaunchFailure).
template <class = void>
[[noreturn]] __HK_INLINE void abort() {
  __trap();
  __builtin_unreachable();
}
