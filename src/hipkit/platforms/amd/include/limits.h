// hipkit AMD platform: hiprtc has no C library; what kernels use of it is in hipkit_amd/libc.h.
#include "hipkit_amd/device.h"
