// hipkit: HIP's hip_profile.h.  Its markers name code regions for ROCm's old profiler
// and expand to nothing unless a program is built for it (__HIP_PROFILE__), as in HIP;
// hipkit's regions are ROCTx's (roctx.h), which hipkit prof records.
#pragma once

#define HIP_SCOPED_MARKER(markerName, group)
#define HIP_BEGIN_MARKER(markerName, group)
#define HIP_END_MARKER()
