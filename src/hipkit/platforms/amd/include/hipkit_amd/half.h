// hipkit AMD platform: the __half names hipkit's kernel language has and HIP
// on AMD lacks (part of device.h): those the platforms share, on HIP's own
// half API, and __double2half.
#pragma once

#include "hipkit_portable/half_names.h"

// Rounded once, from double to half.
__HK_FN __half __double2half(double d) { return __half(d); }

#include "hipkit_portable/half_minmax.h"

namespace __hk {
// Both halves of a __half2 as one 32-bit pattern, as the shuffles move them.
__HK_FN unsigned int half2_bits(__half2 v) { return __builtin_bit_cast(unsigned int, v); }
__HK_FN __half2 half2_from_bits(unsigned int v) { return __builtin_bit_cast(__half2, v); }
}  // namespace __hk
