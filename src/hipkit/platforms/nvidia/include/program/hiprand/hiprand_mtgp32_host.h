// hipkit: hipRAND's MTGP32 host functions for programs (hipkit_portable/rand_mtgp32_host.h),
// with the parameter sets, mtgp32dc_params_fast_11213, as cuRAND's curand_mtgp32_host.h has them.
#pragma once

#include "hiprand.h"
#include "hiprand_kernel.h"
#include <hipkit_portable/rand_mtgp32_host.h>
#include <hipkit_rand/mtgp32_11213.h>
