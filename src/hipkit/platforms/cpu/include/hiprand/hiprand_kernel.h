// hipkit CPU platform: hipRAND's device API, the portable one (hipkit_portable/
// rand_kernel.h): in kernels and in host code alike, every function plain inline C++.
#pragma once

#include "../hip/hip_runtime.h"

#define __HK_RAND_FN static inline
#define __HK_RAND_TABLE static const
#include <hipkit_portable/rand_kernel.h>
