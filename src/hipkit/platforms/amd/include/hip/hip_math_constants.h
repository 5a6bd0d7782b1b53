// hipkit AMD platform: HIP's hip_math_constants.h, which ROCm has from 5.5 on: ROCm's
// own where it has one, else hipkit's (the CPU and NVIDIA platforms' constants).
#pragma once

#if __has_include_next(<hip/hip_math_constants.h>)
#include_next <hip/hip_math_constants.h>
#else
#include "hipkit_portable/math_constants.h"
#endif
