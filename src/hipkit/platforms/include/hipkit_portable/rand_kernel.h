// hipkit: hipRAND's device API (hiprand/hiprand_kernel.h), one code for every platform,
// so that a kernel gets the same numbers wherever it runs, and cuRAND's numbers: for the
// same (seed, subsequence, offset) each engine's 32-bit numbers and uniforms are
// cuRAND's bit for bit (rand_distributions.h says what holds for normals).
//
// Engines: Philox4x32-10 (rand_philox.h), XORWOW (rand_xorwow.h, the default
// hiprandState_t), MRG32k3a (rand_mrg32k3a.h); distributions over them in
// rand_distributions.h and rand_poisson.h.  The quasi-random SOBOL32 engine and its
// distributions: rand_sobol.h.  MTGP32, whose states are a block's: rand_mtgp32.h.
//
// The including platform header first makes float2/uint4... available (hip_runtime.h)
// and defines how functions and tables are declared:
//   __HK_RAND_FN     static inline (CPU) or static __forceinline__ __device__ (GPUs)
//   __HK_RAND_TABLE  static const (CPU) or static const __device__ (GPUs)
// and, where no block of threads runs the code (the CPU's host library), defines
// __HK_RAND_NO_BLOCKS: MTGP32's functions that a block calls together are left out.
#pragma once

#include <math.h>

#include "rand_philox.h"
#include "rand_xorwow.h"
#include "rand_mrg32k3a.h"
#include "rand_distributions.h"
#include "rand_sobol.h"
#include "rand_mtgp32.h"
