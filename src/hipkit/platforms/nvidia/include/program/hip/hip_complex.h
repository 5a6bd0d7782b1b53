// hipkit NVIDIA platform, whole programs: HIP's complex numbers (hipFloatComplex,
// hipDoubleComplex and their functions), the portable ones.  Their float2 and double2 are
// the dialect's (hip_runtime.h), which CUDA's cuComplex.h, read after hip_runtime.h, takes
// for cuComplex too: a hipComplex* is a cuComplex* (hipkit_blas/cublas.h checks it).  The
// names differ from cuComplex.h's (hipCaddf, cuCaddf), so the two headers sit together.
#pragma once
#include "hip_runtime.h"
#include <hipkit_portable/complex.h>
