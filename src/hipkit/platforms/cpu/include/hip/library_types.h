// hipkit CPU platform: HIP's library_types.h (hipDataType with HIP's values), shared
// with the NVIDIA platform.
#pragma once

#include <hipkit_portable/library_types.h>
