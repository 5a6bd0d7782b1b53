// hipkit NVIDIA platform: hiprtc for whole programs, on NVRTC.
#pragma once
#include "hip_runtime.h"
#include "hipkit_nvidia_program/rtc.h"
