// hipkit CPU platform: HIP's hip_deprecated.h, part of what hip_runtime.h gives.
#include "hip_runtime.h"
