// hipkit's CPU hipBLAS provider: what hipkit_blas/api.h needs of HIP's host API.
// The provider is a plain C++ library, not a HIP program: the CPU platform's own
// hip_runtime_api.h (kernels and whole programs, compiled through hipkit's
// transform) is not for it, so this folder stands in its place on the provider's
// include path.  Everything is passed by pointer or is a plain handle, so these
// types need only name what the programs' headers name.
#pragma once

#include <hipkit_cpu/runtime.h>

typedef hkrt_stream* hipStream_t;

#define __host__
#define __device__

struct float2 {
  float x, y;
};
struct double2 {
  double x, y;
};
