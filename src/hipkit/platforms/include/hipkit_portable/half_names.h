// hipkit: __half's short names and the HIPRT_*_FP16 constants, shared by
// every platform's device headers: the CPU and NVIDIA ones through
// half_bits.h, the AMD one directly (HIP on AMD has the rest of half_bits.h).
#pragma once

#ifndef HIP_NO_HALF
typedef __half half;
typedef __half2 half2;
#endif

#ifndef HIPRT_INF_FP16  // where HIP's own headers have them
#define HIPRT_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define HIPRT_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define HIPRT_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define HIPRT_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define HIPRT_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define HIPRT_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)
#define HIPRT_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#endif
