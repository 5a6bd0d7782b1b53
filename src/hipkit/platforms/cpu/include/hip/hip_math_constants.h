// hipkit CPU platform: HIP's hip_math_constants.h, shared with the NVIDIA platform.
#pragma once
#include <hipkit_portable/math_constants.h>
