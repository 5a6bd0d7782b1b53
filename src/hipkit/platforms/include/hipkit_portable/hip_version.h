// hipkit: HIP's hip_version.h, the HIP API level hipkit's headers follow (HIP_VERSION's
// encoding: major * 10000000 + minor * 100000 + patch), shared by the CPU and NVIDIA
// platforms' host and kernel headers.
#pragma once

#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH "hipkit"
#define HIP_VERSION_BUILD_ID 0
#define HIP_VERSION_BUILD_NAME "hipkit"
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
