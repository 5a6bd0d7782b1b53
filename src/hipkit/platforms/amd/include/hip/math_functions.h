// hipkit AMD platform: hiprtc has HIP's device API built in, pre-included with hipkit's additions.
#pragma once
#include "hipkit_amd/device.h"
