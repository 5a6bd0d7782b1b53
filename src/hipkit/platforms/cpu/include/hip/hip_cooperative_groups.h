// hipkit CPU platform: HIP's cooperative groups (namespace cooperative_groups), the
// portable ones over the CPU's fibers and grid barrier (hipkit_cpu/cooperative.h).
#pragma once
#include "hip_runtime.h"
#include "hipkit_cpu/cooperative.h"
