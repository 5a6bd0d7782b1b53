// hipkit NVIDIA platform: part of HIP's device API, all in hip_runtime.h.
#include "hip_runtime.h"
