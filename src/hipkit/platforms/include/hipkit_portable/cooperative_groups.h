// hipkit: HIP's cooperative groups (namespace cooperative_groups), written once over a
// few warp and grid primitives that each platform's cooperative.h defines first:
//
//   __HK_CG_FN          how a device function is declared;
//   __HK_CG_WARP_SIZE   the warp size, a constant;
//   __HK_CG_SITE, __HK_CG_AT   a last parameter every warp operation takes (with its
//                       comma) and its argument: the CPU's call site, where lanes
//                       meet; nothing elsewhere (__HK_CG_SITE_ONLY, __HK_CG_AT_ONLY:
//                       the same without the comma);
//   namespace __hk_cg:  lane(), block_sync(), warp_sync(mask), active_mask(),
//                       ballot(mask, predicate) (over the warp's lanes),
//                       shfl(mask, value, lane) (from an absolute lane),
//                       grid_sync(), grid_valid(), invalid(message) (stops the kernel
//                       as a failed assert does).
//
// Masks are 64-bit, bit i for lane i of the warp.  Tiles are powers of two no larger
// than the warp; a tile's lanes are consecutive and aligned in its warp.  Votes and
// ballots of tiles and coalesced groups number their bits by thread_rank, as HIP does.
#pragma once

namespace cooperative_groups {

namespace internal {
// HIP's group kinds (thread_group::cg_type()).
enum group_type { cg_multi_grid, cg_grid, cg_workgroup, cg_tiled_group, cg_coalesced_group };
}  // namespace internal

namespace __hk_detail {
typedef unsigned long long lane_mask;

__HK_CG_FN unsigned block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__HK_CG_FN unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
__HK_CG_FN unsigned long long block_index() {
  return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}
__HK_CG_FN unsigned long long grid_blocks() {
  return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
}
__HK_CG_FN lane_mask low_bits(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
__HK_CG_FN unsigned popc(lane_mask m) { return (unsigned)__popcll(m); }
// The rank of `lane` among the lanes of `mask`.
__HK_CG_FN unsigned rank_in(lane_mask mask, unsigned lane) { return popc(mask & low_bits(lane)); }
// The lane of rank `rank` in `mask` (rank < popc(mask)).
__HK_CG_FN int lane_of(lane_mask mask, unsigned rank) {
  for (unsigned i = 0; i < rank; ++i) mask &= mask - 1;
  return __ffsll((long long)mask) - 1;
}
// Bits of `bits` at the lanes of `mask`, packed in rank order.
__HK_CG_FN lane_mask pack(lane_mask mask, lane_mask bits) {
  lane_mask out = 0;
  for (unsigned r = 0; mask != 0; mask &= mask - 1, ++r)
    if (bits >> (__ffsll((long long)mask) - 1) & 1) out |= 1ull << r;
  return out;
}
// Every thread of the grid waits for all the others (a cooperative launch only).
__HK_CG_FN void grid_sync() {
  if (!__hk_cg::grid_valid())
    __hk_cg::invalid("grid_group::sync() in a kernel not launched with hipLaunchCooperativeKernel");
  __hk_cg::grid_sync();
}
__HK_CG_FN bool valid_tile(unsigned n) {
  return n != 0 && (n & (n - 1)) == 0 && n <= __HK_CG_WARP_SIZE;
}
// The lanes of the calling thread's n-thread tile in its warp.
__HK_CG_FN lane_mask tile_lanes(unsigned n) {
  return low_bits(n) << (__hk_cg::lane() & ~(n - 1));
}
}  // namespace __hk_detail

// ---- thread_group: any group, its kind chosen at run time ----------------------------

class thread_group {
 protected:
  unsigned type_;
  unsigned size_;
  __hk_detail::lane_mask mask_;  // tiled and coalesced groups: their lanes in the warp
  unsigned meta_rank_, meta_size_;
  __HK_CG_FN thread_group(unsigned type, unsigned size, __hk_detail::lane_mask mask = 0,
                          unsigned meta_rank = 0, unsigned meta_size = 1)
      : type_(type), size_(size), mask_(mask), meta_rank_(meta_rank), meta_size_(meta_size) {}
  friend __HK_CG_FN thread_group tiled_partition(const thread_group& parent, unsigned tile_size);

 public:
  __HK_CG_FN unsigned size() const { return size_; }
  __HK_CG_FN unsigned num_threads() const { return size_; }
  __HK_CG_FN unsigned cg_type() const { return type_; }
  __HK_CG_FN unsigned thread_rank() const {
    switch (type_) {
      case internal::cg_workgroup: return __hk_detail::block_rank();
      case internal::cg_tiled_group:
      case internal::cg_coalesced_group: return __hk_detail::rank_in(mask_, __hk_cg::lane());
      default:
        return (unsigned)(__hk_detail::block_index() * __hk_detail::block_size() +
                          __hk_detail::block_rank());
    }
  }
  __HK_CG_FN bool is_valid() const {
    return type_ == internal::cg_grid ? __hk_cg::grid_valid() : size_ != 0;
  }
  __HK_CG_FN void sync(__HK_CG_SITE_ONLY) const {
    switch (type_) {
      case internal::cg_workgroup: __hk_cg::block_sync(); break;
      case internal::cg_grid: __hk_detail::grid_sync(); break;
      default: __hk_cg::warp_sync(mask_ __HK_CG_AT);
    }
  }
};

// ---- the grid and the block ----------------------------------------------------------

class grid_group : public thread_group {
  friend __HK_CG_FN grid_group this_grid();
  __HK_CG_FN grid_group()
      : thread_group(internal::cg_grid,
                     (unsigned)(__hk_detail::grid_blocks() * __hk_detail::block_size())) {}

 public:
  __HK_CG_FN unsigned thread_rank() const { return thread_group::thread_rank(); }
  __HK_CG_FN bool is_valid() const { return __hk_cg::grid_valid(); }
  // Every thread of the grid waits here for all the others; the kernel must have been
  // launched with hipLaunchCooperativeKernel.
  __HK_CG_FN void sync() const { __hk_detail::grid_sync(); }
  __HK_CG_FN dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  __HK_CG_FN unsigned long long num_blocks() const { return __hk_detail::grid_blocks(); }
  __HK_CG_FN unsigned long long block_rank() const { return __hk_detail::block_index(); }
  __HK_CG_FN dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __HK_CG_FN dim3 dim_blocks() const { return group_dim(); }
};

__HK_CG_FN grid_group this_grid() { return grid_group(); }

class thread_block : public thread_group {
  friend __HK_CG_FN thread_block this_thread_block();
  __HK_CG_FN thread_block() : thread_group(internal::cg_workgroup, __hk_detail::block_size()) {}

 public:
  __HK_CG_FN unsigned thread_rank() const { return __hk_detail::block_rank(); }
  __HK_CG_FN bool is_valid() const { return true; }
  __HK_CG_FN void sync() const { __hk_cg::block_sync(); }
  __HK_CG_FN dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __HK_CG_FN dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __HK_CG_FN dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __HK_CG_FN dim3 dim_threads() const { return group_dim(); }
};

__HK_CG_FN thread_block this_thread_block() { return thread_block(); }

}  // namespace cooperative_groups

#include "hipkit_portable/cooperative_tiles.h"
#include "hipkit_portable/cooperative_reduce.h"
