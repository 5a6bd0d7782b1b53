// hipkit NVIDIA platform: HIP's channel_descriptor.h; NVRTC has CUDA's texture and surface
// objects and fetches built in.
#pragma once
#include "hip_runtime.h"
