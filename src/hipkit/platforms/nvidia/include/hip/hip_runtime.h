// hipkit NVIDIA platform: HIP's main header, for kernel sources compiled by hipkit (NVRTC).
#pragma once
#include "hipkit_nvidia/device.h"
