// hipkit NVIDIA platform, whole programs: HIP's host API on the CUDA runtime.
#pragma once
#include "hipkit_nvidia_program/host.h"
