// hipkit CPU platform: HIP's hip_texture_types.h; hip_runtime.h gives arrays, textures and surfaces.
#include "hip_runtime.h"
