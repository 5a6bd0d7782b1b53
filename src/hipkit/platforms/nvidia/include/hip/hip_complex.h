// hipkit NVIDIA platform: HIP's hip_complex.h for kernels, the portable one (float2
// and double2 are the dialect's, from hip_runtime.h).
#pragma once
#include "hip_runtime.h"
#include <hipkit_portable/complex.h>
