// hipkit CPU platform: HIP's hip_fp8.h (__hip_fp8_e4m3, __hip_fp8_e5m2), which hipkit lacks
// here so far: a clear error rather than a system ROCm's header.
#pragma once
#error "hipkit: FP8 (hip_fp8.h) is not available on the CPU platform yet"
