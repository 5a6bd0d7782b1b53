// hipkit NVIDIA platform, whole programs: HIP's hip_texture_types.h; texture and surface types
// are CUDA's (cuda_runtime.h), by HIP's names where hipify's table maps them.
#pragma once
#include "hip_runtime.h"
