// hipkit CPU platform: HIP's hip_profile.h, shared with the NVIDIA platform.
#pragma once
#include <hipkit_portable/hip_profile.h>
