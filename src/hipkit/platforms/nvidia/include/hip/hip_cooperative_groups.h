// hipkit NVIDIA platform: HIP's cooperative groups for kernel sources compiled by
// hipkit (NVRTC), the portable ones (hipkit_nvidia/cooperative.h).
#pragma once
#include "hip_runtime.h"
#include "hipkit_nvidia/cooperative.h"
