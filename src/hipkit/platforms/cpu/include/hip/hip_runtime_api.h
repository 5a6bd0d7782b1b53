// hipkit CPU platform: HIP's host API header; everything is in hip_runtime.h.
#include "hip_runtime.h"
