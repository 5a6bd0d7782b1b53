// hipkit CPU platform: HIP's hip_complex.h (hipFloatComplex, hipDoubleComplex and their
// arithmetic), shared with the NVIDIA platform; float2 and double2 come from
// hip_runtime.h.  The shared functions are __host__ __device__: on the CPU both are
// plain inline C++, and hipkit's headers pass the transform untouched, so __device__
// (the transform's marker elsewhere) means nothing while they are read.
#pragma once

#include "hip_runtime.h"

#pragma push_macro("__device__")
#undef __device__
#define __device__
#include <hipkit_portable/complex.h>
#pragma pop_macro("__device__")
