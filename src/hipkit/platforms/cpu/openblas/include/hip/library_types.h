// hipkit's CPU hipBLAS provider: hipDataType (see hip_runtime_api.h here).
#pragma once

#include <hipkit_portable/library_types.h>
