// hipkit NVIDIA platform, whole programs: HIP's cooperative groups, the same as
// kernels compiled by NVRTC get (HIP's API, over the driver's grid barrier), and
// hipLaunchCooperativeKernel (CUDA's cudaLaunchCooperativeKernel, names.h).
#pragma once
#include "hip_runtime.h"
#include "../../hipkit_nvidia/cooperative.h"
