// hipkit CPU platform: hiprtc, HIP's run-time compiler, for whole programs.
// (Without this header a program's #include <hip/hiprtc.h> would find a
// system ROCm's, which cannot work here.)
#pragma once
#ifndef __HIPKIT_PROGRAM__
#error "hip/hiprtc.h is a host API: include it in programs built by hipkit cc, not in kernel sources"
#endif
#include "hip_runtime.h"
#include "hipkit_cpu/program_rtc.h"
