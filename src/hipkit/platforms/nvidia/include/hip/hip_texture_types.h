// hipkit NVIDIA platform: HIP's hip_texture_types.h; NVRTC has CUDA's texture and surface
// objects and fetches built in.
#pragma once
#include "hip_runtime.h"
