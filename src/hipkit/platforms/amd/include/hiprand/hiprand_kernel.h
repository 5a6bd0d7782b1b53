// hipkit: hipRAND's device API on a GPU platform, the portable one (hipkit_portable/
// rand_kernel.h): device functions, the jump tables in device memory.
#pragma once

#define __HK_RAND_FN static __forceinline__ __device__
#define __HK_RAND_TABLE static const __device__
#include <hipkit_portable/rand_kernel.h>
