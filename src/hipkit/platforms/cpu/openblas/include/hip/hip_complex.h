// hipkit's CPU hipBLAS provider: HIP's complex types (see hip_runtime_api.h here).
#pragma once

#include <hip/hip_runtime_api.h>
#include <hipkit_portable/complex.h>
