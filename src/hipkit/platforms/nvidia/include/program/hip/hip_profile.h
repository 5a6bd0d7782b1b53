// hipkit NVIDIA platform, whole programs: HIP's hip_profile.h, shared with the CPU platform.
#pragma once
#include <hipkit_portable/hip_profile.h>
