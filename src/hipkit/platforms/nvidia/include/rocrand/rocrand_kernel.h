// hipkit: rocRAND's device names over hipRAND's (hipkit_portable/rocrand_kernel.h).
#pragma once

#include "../hiprand/hiprand_kernel.h"
#include <hipkit_portable/rocrand_kernel.h>
