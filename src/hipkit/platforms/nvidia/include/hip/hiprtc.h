// hipkit NVIDIA platform: hiprtc is a host API; kernels compiled by NVRTC cannot
// use it (a program's hip/hiprtc.h is program/hip/hiprtc.h).
#pragma once
#error "hip/hiprtc.h is a host API: include it in programs built by hipkit cc, not in kernel sources"
