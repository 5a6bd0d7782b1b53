// hipkit NVIDIA platform: HIP's driver_types.h, part of what hip_runtime.h gives.
#include "hip_runtime.h"
