// hipkit CPU platform: HIP's hip_version.h, shared with the NVIDIA platform.
#pragma once
#include <hipkit_portable/hip_version.h>
