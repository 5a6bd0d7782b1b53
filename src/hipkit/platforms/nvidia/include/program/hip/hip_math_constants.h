// hipkit NVIDIA platform, whole programs: HIP's hip_math_constants.h, shared with the CPU platform.
#pragma once
#include <hipkit_portable/math_constants.h>
