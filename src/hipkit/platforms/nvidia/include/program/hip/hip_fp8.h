// hipkit NVIDIA platform, whole programs: HIP's hip_fp8.h types (the OCP formats, E4M3
// and E5M2) are CUDA's cuda_fp8.h types, which have the same constructors and
// conversions.  HIP's FNUZ formats (gfx942's) have no NVIDIA counterpart.
#pragma once
#include "hip_runtime.h"
#include <cuda_fp8.h>

typedef __nv_fp8_e4m3 __hip_fp8_e4m3;
typedef __nv_fp8_e5m2 __hip_fp8_e5m2;
typedef __nv_fp8x2_e4m3 __hip_fp8x2_e4m3;
typedef __nv_fp8x2_e5m2 __hip_fp8x2_e5m2;
typedef __nv_fp8x4_e4m3 __hip_fp8x4_e4m3;
typedef __nv_fp8x4_e5m2 __hip_fp8x4_e5m2;
typedef __nv_fp8_storage_t __hip_fp8_storage_t;
typedef __nv_fp8x2_storage_t __hip_fp8x2_storage_t;
typedef __nv_fp8x4_storage_t __hip_fp8x4_storage_t;
