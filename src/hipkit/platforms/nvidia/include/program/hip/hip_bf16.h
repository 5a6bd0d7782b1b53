// hipkit NVIDIA platform, whole programs: HIP's hip_bf16.h is CUDA's cuda_bf16.h, as in
// HIP on NVIDIA: the functions have CUDA's names (__float2bfloat16, __hadd, ...), and
// HIP's types are CUDA's.
#pragma once
#include "hip_runtime.h"
#include <cuda_bf16.h>

typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
typedef __nv_bfloat16_raw __hip_bfloat16_raw;
typedef __nv_bfloat162_raw __hip_bfloat162_raw;
