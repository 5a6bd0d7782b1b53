// hipkit NVIDIA platform: the primitives of cooperative groups
// (hipkit_portable/cooperative_groups.h) on CUDA's warp intrinsics, for kernels
// compiled by NVRTC (which has no CUDA headers) and programs compiled by nvcc alike.
//
// grid.sync() is the driver's grid barrier, as CUDA's own cooperative groups use
// it: a cooperative launch (cuLaunchCooperativeKernel) gives the kernel a workspace
// whose address is in %envreg1 (high half) and %envreg2 (low half), {size,
// barrier}; no workspace means the launch was not cooperative.  The barrier counts
// arriving blocks; block 0 adds the complement, so that the count's top bit flips
// when the last block arrives.
#pragma once

#define __HK_CG_FN __device__ __forceinline__
#define __HK_CG_WARP_SIZE 32
#define __HK_CG_SITE
#define __HK_CG_SITE_ONLY
#define __HK_CG_AT
#define __HK_CG_AT_ONLY

namespace __hk_cg {
typedef unsigned long long lane_mask;
__HK_CG_FN unsigned lane() {
  unsigned r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__HK_CG_FN void block_sync() { __syncthreads(); }
__HK_CG_FN void warp_sync(lane_mask mask) { __syncwarp(unsigned(mask)); }
__HK_CG_FN lane_mask active_mask() { return __activemask(); }
__HK_CG_FN lane_mask ballot(lane_mask mask, int predicate) {
  return __ballot_sync(unsigned(mask), predicate);
}
// The value of lane `src` of the warp, 32 bits at a time.
template <class T>
__HK_CG_FN T shfl(lane_mask mask, T value, int src) {
  constexpr unsigned words = (sizeof(T) + 3) / 4;
  unsigned bits[words] = {};
  memcpy(bits, &value, sizeof(T));
  for (unsigned i = 0; i < words; ++i) bits[i] = __shfl_sync(unsigned(mask), bits[i], src, 32);
  T out;
  memcpy(&out, bits, sizeof(T));
  return out;
}

__HK_CG_FN unsigned* grid_workspace_barrier() {
  unsigned lo, hi;
  asm("mov.u32 %0, %%envreg2;" : "=r"(lo));
  asm("mov.u32 %0, %%envreg1;" : "=r"(hi));
  const unsigned long long address = (unsigned long long)hi << 32 | lo;
  return address ? reinterpret_cast<unsigned*>(address) + 1 : nullptr;
}
__HK_CG_FN bool grid_valid() { return grid_workspace_barrier() != nullptr; }
__HK_CG_FN void grid_sync() {
  unsigned* barrier = grid_workspace_barrier();
  __syncthreads();
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0) {
    const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
    const bool first = blockIdx.x + blockIdx.y + blockIdx.z == 0;
    const unsigned add = first ? 0x80000000u - (blocks - 1) : 1u;
    unsigned before, now;
    asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(before) : "l"(barrier), "r"(add) : "memory");
    do {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(barrier) : "memory");
    } while (((before ^ now) & 0x80000000u) == 0);
  }
  __syncthreads();
}
// A failed assert (hipErrorAssert): NVRTC's built-in __assertfail, or under nvcc the
// C library's __assert_fail, which CUDA lets device code call.
__HK_CG_FN void invalid(const char* message) {
#ifdef __CUDACC_RTC__
  __assertfail(message, "hip/hip_cooperative_groups.h", 0, "cooperative_groups", 1);
#else
  __assert_fail(message, "hip/hip_cooperative_groups.h", 0, "cooperative_groups");
#endif
}
}  // namespace __hk_cg

#include "hipkit_portable/cooperative_groups.h"
