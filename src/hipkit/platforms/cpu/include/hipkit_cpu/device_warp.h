// hipkit CPU platform: barriers and warp operations (part of device.h).
//
// These run only in kernels executed as fibers (abi.h): each calls the
// runtime's fiber functions, which switch to the block's other threads.  The
// lane arithmetic of the shuffles is HIP-on-AMD's, in small helpers that the
// rest of hipkit reuses so that every execution mode agrees.
#ifndef HIPKIT_CPU_DEVICE_WARP_H
#define HIPKIT_CPU_DEVICE_WARP_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

// ---- Barriers ---------------------------------------------------------------

__HK_FN void __syncthreads() { __hk_fiber_barrier(); }
__HK_FN int __syncthreads_count(int predicate) {
  return __hk_fiber_barrier_reduce(predicate != 0, 0);
}
__HK_FN int __syncthreads_and(int predicate) {
  return __hk_fiber_barrier_reduce(predicate != 0, 1);
}
__HK_FN int __syncthreads_or(int predicate) {
  return __hk_fiber_barrier_reduce(predicate != 0, 2);
}

// ---- Shuffle lanes -------------------------------------------------------------
// Each returns the lane whose value `lane` reads, or `lane` itself when the
// source falls outside its width-wide segment.  width is a power of two no
// larger than the warp.  The result can lie outside [0, warpSize) only for
// out-of-contract arguments (a negative or oversized __shfl_xor mask, a
// huge delta); the shuffles below then wrap it modulo the warp size, as
// AMD's ds_bpermute does.

namespace __hk {

inline int shfl_src_lane(int lane, int src, int width) {
  return (src & (width - 1)) + (lane & ~(width - 1));
}
inline int shfl_up_src_lane(int lane, unsigned delta, int width) {
  const int src = static_cast<int>(static_cast<unsigned>(lane) - delta);
  return src < (lane & ~(width - 1)) ? lane : src;
}
inline int shfl_down_src_lane(int lane, unsigned delta, int width) {
  const int offset = static_cast<int>(static_cast<unsigned>(lane & (width - 1)) + delta);
  return offset >= width ? lane : static_cast<int>(static_cast<unsigned>(lane) + delta);
}
inline int shfl_xor_src_lane(int lane, int mask, int width) {
  const int src = lane ^ mask;
  return src >= ((lane + width) & ~(width - 1)) ? lane : src;
}

// A shuffled value travels as its bit pattern in the low bytes of a uint64_t.
template <class T>
__HK_INLINE uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "warp operations move at most 8 bytes");
  uint64_t bits = 0;
  __builtin_memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <class T>
__HK_INLINE T from_bits(uint64_t bits) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "warp operations move at most 8 bytes");
  T v;
  __builtin_memcpy(&v, &bits, sizeof(T));
  return v;
}

template <class T>
__HK_INLINE T shfl(T v, int src_lane, uint64_t site) {
  return from_bits<T>(__hk_fiber_shfl(to_bits(v), src_lane & (warpSize - 1), site));
}

// Where a warp operation is called, as a defaulted last argument: evaluated at
// the call (as std::source_location::current()), so lanes meet by source line.
struct site {
  uint64_t id;
  static constexpr site here(unsigned line = __builtin_LINE()) { return site{line}; }
};

}  // namespace __hk

// ---- Shuffles, votes and masks -----------------------------------------------
// Masks are 64-bit (bit i is lane i), over the warp's live lanes; the _sync
// forms are hipkit_portable/warp_sync.h's.

#define __HK_SHFL(T)                                                                       \
  __HK_FN T __shfl(T var, int src_lane, int width = warpSize,                              \
                   __hk::site at = __hk::site::here()) {                                   \
    return __hk::shfl(var, __hk::shfl_src_lane(int(__lane_id()), src_lane, width), at.id);  \
  }                                                                                        \
  __HK_FN T __shfl_up(T var, unsigned int delta, int width = warpSize,                     \
                      __hk::site at = __hk::site::here()) {                                \
    return __hk::shfl(var, __hk::shfl_up_src_lane(int(__lane_id()), delta, width), at.id);  \
  }                                                                                        \
  __HK_FN T __shfl_down(T var, unsigned int delta, int width = warpSize,                   \
                        __hk::site at = __hk::site::here()) {                              \
    return __hk::shfl(var, __hk::shfl_down_src_lane(int(__lane_id()), delta, width), at.id); \
  }                                                                                        \
  __HK_FN T __shfl_xor(T var, int lane_mask, int width = warpSize,                         \
                       __hk::site at = __hk::site::here()) {                               \
    return __hk::shfl(var, __hk::shfl_xor_src_lane(int(__lane_id()), lane_mask, width), at.id); \
  }
#include "hipkit_portable/shfl_types.h"
__HK_SHFL_TYPES(__HK_SHFL)
#undef __HK_SHFL

__HK_FN unsigned long long __ballot(int predicate, __hk::site at = __hk::site::here()) {
  return __hk_fiber_ballot(predicate != 0, at.id);
}
// AMD's name for the 64-bit ballot (HIP's __ballot is 64-bit already).
__HK_FN unsigned long long __ballot64(int predicate, __hk::site at = __hk::site::here()) {
  return __hk_fiber_ballot(predicate != 0, at.id);
}
__HK_FN int __any(int predicate, __hk::site at = __hk::site::here()) {
  return __hk_fiber_ballot(predicate != 0, at.id) != 0;
}
__HK_FN int __all(int predicate, __hk::site at = __hk::site::here()) {
  return __hk_fiber_ballot(predicate == 0, at.id) == 0;
}
__HK_FN unsigned long long __activemask(__hk::site at = __hk::site::here()) {
  return __hk_fiber_activemask(at.id);
}

#define __HK_WARP_SITE , __hk::site at = __hk::site::here()
#define __HK_WARP_AT , at
#include "hipkit_portable/warp_sync.h"
#undef __HK_WARP_SITE
#undef __HK_WARP_AT

__HK_FN void __syncwarp(unsigned long long = ~0ull, __hk::site at = __hk::site::here()) {
  __hk_fiber_syncwarp(at.id);
}

// Live lanes below, above, and equal to the calling lane.
__HK_FN unsigned long long __lanemask_lt(__hk::site at = __hk::site::here()) {
  return __activemask(at) & ((1ull << __lane_id()) - 1);
}
__HK_FN unsigned long long __lanemask_gt(__hk::site at = __hk::site::here()) {
  const unsigned lane = __lane_id();
  return lane == 63 ? 0ull : __activemask(at) & (~0ull << (lane + 1));
}
__HK_FN unsigned long long __lanemask_eq() { return 1ull << __lane_id(); }

#endif  // HIPKIT_CPU_DEVICE_WARP_H
