// hipkit AMD platform: the __half names hipkit's kernel language has and HIP
// on AMD lacks (part of device.h): those the platforms share, on HIP's own
// half API, and __double2half.
#pragma once

#include "hipkit_portable/half_names.h"

// Rounded once, from double to half.
__HK_FN __half __double2half(double d) { return __half(d); }

#include "hipkit_portable/half_minmax.h"
