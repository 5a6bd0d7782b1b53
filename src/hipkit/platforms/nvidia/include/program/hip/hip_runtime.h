// hipkit NVIDIA platform: HIP's main header for whole programs, compiled by nvcc
// (hipkit cc --platform nvidia): HIP's host API on the CUDA runtime and HIP's
// device dialect.  Kernel sources compiled by NVRTC use ../../hip/hip_runtime.h.
#pragma once
#include "hip_runtime_api.h"
#include "hipkit_nvidia_program/device.h"
