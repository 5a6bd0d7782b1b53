// ROCTx, ROCm's markers and ranges, for programs built by `hipkit cc`:
// `#include <roctx.h>` (or <roctracer/roctx.h>), and `-lroctx64` /
// `-lroctracer64` on the link line are accepted.  `hipkit prof` records the
// marks and ranges in marker_api_trace.csv and on the timeline's thread tracks.
//
//   roctxMarkA("checkpoint");             // an instant
//   roctxRangePushA("step");              // a range, nested per thread
//   ...  roctxRangePop();
//   roctx_range_id_t id = roctxRangeStartA("io");  // a range that may end on another thread
//   ...  roctxRangeStop(id);
//
// As ROCm's: roctxRangePushA returns the nesting level of the range it opens
// (0 for the outermost), roctxRangePop the level of the range it closes, -1
// when no range is open; roctxRangeStartA returns the range's id.  Without
// `hipkit prof` nothing is recorded and each call costs a few instructions.
//
// CPU: the functions are libhipkit_cpu's (runtime/roctx.cpp).  NVIDIA: they
// are NVTX's (header-only NVTX3 from the CUDA toolkit), which CUPTI records
// under `hipkit prof`, as do Nsight Systems and other NVTX tools; the nesting
// levels are counted here, as ROCm's library counts them.
#ifndef HIPKIT_ROCTX_H
#define HIPKIT_ROCTX_H

#include <stdint.h>

typedef uint64_t roctx_range_id_t;

#if defined(__HIPKIT_CPU__)

#ifdef __cplusplus
extern "C" {
#endif
void roctxMarkA(const char* message);
int roctxRangePushA(const char* message);
int roctxRangePop(void);
roctx_range_id_t roctxRangeStartA(const char* message);
void roctxRangeStop(roctx_range_id_t id);
#ifdef __cplusplus
}
#endif

#elif defined(__HIP_PLATFORM_NVIDIA__)

#if !__has_include(<nvtx3/nvToolsExt.h>)
#error "roctx.h on NVIDIA needs NVTX3 (nvtx3/nvToolsExt.h, part of the CUDA toolkit's headers)"
#endif
#include <nvtx3/nvToolsExt.h>

// The calling thread's open roctxRangePushA ranges.
static inline int* __hk_roctx_level(void) {
  static thread_local int level = 0;
  return &level;
}
static inline void roctxMarkA(const char* message) { nvtxMarkA(message); }
static inline int roctxRangePushA(const char* message) {
  nvtxRangePushA(message);
  return (*__hk_roctx_level())++;
}
static inline int roctxRangePop(void) {
  int* level = __hk_roctx_level();
  if (*level == 0) return -1;
  nvtxRangePop();
  return --*level;
}
static inline roctx_range_id_t roctxRangeStartA(const char* message) {
  return nvtxRangeStartA(message);
}
static inline void roctxRangeStop(roctx_range_id_t id) { nvtxRangeEnd(id); }

#else
#error "hipkit's roctx.h is for programs built by hipkit cc (hip/hip_runtime.h first)"
#endif

// ROCm's names without the A.
#define roctxMark(message) roctxMarkA(message)
#define roctxRangePush(message) roctxRangePushA(message)
#define roctxRangeStart(message) roctxRangeStartA(message)

#endif  // HIPKIT_ROCTX_H
