// hipkit NVIDIA platform: NVRTC has no C library; what kernels use of it is in hip_runtime.h.
#include "hip/hip_runtime.h"
