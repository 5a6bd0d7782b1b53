// hipkit NVIDIA platform, whole programs: part of HIP's API, all in hip_runtime.h.
#include "hip_runtime.h"
