// hipkit NVIDIA platform: NVRTC has no C library; assert() is hipkit's.
#include "hipkit_nvidia/device_assert.h"
