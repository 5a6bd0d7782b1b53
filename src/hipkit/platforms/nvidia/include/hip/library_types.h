// hipkit NVIDIA platform: HIP's library_types.h (hipDataType with HIP's values), the
// portable one.
#pragma once
#include <hipkit_portable/library_types.h>
