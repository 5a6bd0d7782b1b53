// hipkit CPU platform: HIP's channel_descriptor.h; hip_runtime.h gives arrays, textures and surfaces.
#include "hip_runtime.h"
