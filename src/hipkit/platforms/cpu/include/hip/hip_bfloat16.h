// hipkit CPU platform: HIP's hip_bfloat16.h (the hip_bfloat16 struct of rocBLAS's
// interface), which hipkit lacks so far: a clear error rather than a system ROCm's header.
#pragma once
#error "hipkit: hip_bfloat16 (hip_bfloat16.h) is not available on the CPU platform yet"
