// hipkit CPU platform: the primitives of cooperative groups
// (hipkit_portable/cooperative_groups.h) over the fibers' warp operations, and the
// grid barrier of cooperative launches.
//
// A kernel that uses cooperative groups runs on fibers (the transform sees the
// groups' names).  Warp operations take their call site, as __shfl does, so that
// lanes meet where the user's code calls them.  grid.sync() waits at the block's
// barrier, then the block's first thread waits in the runtime for every other
// block of the grid (each block of a cooperative launch has a worker of its own:
// hipOccupancyMaxActiveBlocksPerMultiprocessor is 1 and a worker is a multiprocessor).
#ifndef HIPKIT_CPU_COOPERATIVE_H
#define HIPKIT_CPU_COOPERATIVE_H

#include "kernel.h"

extern "C" {
// The grid barrier of the running cooperative launch (traps in any other launch).
void __hk_grid_sync(void);
// Whether the running kernel was launched cooperatively.
int __hk_grid_cooperative(void);
}

#define __HK_CG_FN inline __attribute__((always_inline))
#define __HK_CG_WARP_SIZE __HK_WARP_SIZE
#define __HK_CG_SITE , ::__hk::site __hk_at = ::__hk::site::here()
#define __HK_CG_SITE_ONLY ::__hk::site __hk_at = ::__hk::site::here()
#define __HK_CG_AT , __hk_at
#define __HK_CG_AT_ONLY __hk_at

namespace __hk_cg {
typedef unsigned long long lane_mask;
__HK_CG_FN unsigned lane() { return __lane_id(); }
__HK_CG_FN void block_sync() { __hk_fiber_barrier(); }
__HK_CG_FN void warp_sync(lane_mask, ::__hk::site at) { __hk_fiber_syncwarp(at.id); }
__HK_CG_FN lane_mask active_mask(::__hk::site at) { return __hk_fiber_activemask(at.id); }
__HK_CG_FN lane_mask ballot(lane_mask mask, int predicate, ::__hk::site at) {
  return __hk_fiber_ballot(predicate != 0, at.id) & mask;
}
// The value of lane `src` (absolute in the warp); a lane that does not take part
// leaves the caller's own.
template <class T>
__HK_CG_FN T shfl(lane_mask, T value, int src, ::__hk::site at) {
  return ::__hk::shfl(value, src, at.id);
}
__HK_CG_FN bool grid_valid() { return __hk_grid_cooperative() != 0; }
__HK_CG_FN void grid_sync() {
  __hk_fiber_barrier();
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0) __hk_grid_sync();
  __hk_fiber_barrier();
}
[[noreturn]] __HK_CG_FN void invalid(const char* message) {
  __hk_assert_fail(message, "hip/hip_cooperative_groups.h", 0, "cooperative_groups");
}
}  // namespace __hk_cg

// The portable header's device functions are plain inline C++ here: hipkit's headers
// pass the transform untouched, so __device__ means nothing while they are read.
#include "hipkit_portable/cooperative_groups.h"

#endif  // HIPKIT_CPU_COOPERATIVE_H
