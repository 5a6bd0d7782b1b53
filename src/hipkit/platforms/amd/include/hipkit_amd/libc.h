// hipkit AMD platform: what kernel code takes from the C library (part of
// device.h): fixed-width integers, limits, floating-point constants.  hiprtc's
// HIP has size_t, int32_t, uint32_t, int64_t and uint64_t (the 64-bit ones as
// long long, where the NVIDIA platform's are the host's long), printf,
// malloc, free, memcpy, memset, abort and the math functions; the rest is
// here and in hipkit_portable/libc.h, which the NVIDIA platform shares.
#pragma once

typedef __PTRDIFF_TYPE__ ptrdiff_t;  // NVRTC has it built in

#ifndef NULL
#define NULL nullptr
#endif

#include "hipkit_portable/libc.h"
