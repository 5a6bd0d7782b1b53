// hipkit: MTGP32's 200 parameter sets, mtgp32dc_params_fast_11213 (what hipify writes for
// cuRAND's curand_mtgp32dc_p_11213.h), for hipRAND's device API (hiprand/hiprand_kernel.h).
#pragma once

#include "../hiprand/hiprand_kernel.h"
#include <hipkit_rand/mtgp32_11213.h>
