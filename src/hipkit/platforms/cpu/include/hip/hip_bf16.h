// hipkit CPU platform: HIP's hip_bf16.h (__hip_bfloat16), which hipkit lacks here so far:
// a clear error rather than a system ROCm's header.
#pragma once
#error "hipkit: bfloat16 (hip_bf16.h, __hip_bfloat16) is not available on the CPU platform yet"
