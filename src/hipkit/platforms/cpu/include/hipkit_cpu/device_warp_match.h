// hipkit CPU platform: HIP's warp match and reduce functions (part of device.h):
// __match_any_sync, __match_all_sync and __reduce_{add,min,max,and,or,xor}_sync.
//
// These are the fiber forms, built on the lane exchange of device_warp.h: the
// caller's lanes meet at its call site, read every lane's value in turn, and
// keep those of the lanes that take part (the live lanes of the mask).  Split
// kernels compute the same lane by lane (exec_warp_match.h).  Values compare
// by their bits, as the GPU's match does; a reduction folds the lanes in lane
// order.
#ifndef HIPKIT_CPU_DEVICE_WARP_MATCH_H
#define HIPKIT_CPU_DEVICE_WARP_MATCH_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

namespace __hk {

// The lanes of `mask` taking part, and each lane's value, in `values`.
template <class T>
__HK_INLINE unsigned long long gather_lanes(unsigned long long mask, T value, T* values,
                                            uint64_t site) {
  const unsigned long long members = __hk_fiber_activemask(site) & mask;
  for (int lane = 0; lane < warpSize; ++lane) values[lane] = shfl(value, lane, site);
  return members;
}

template <class T, class Op>
__HK_INLINE T warp_fold(unsigned long long mask, T value, Op op, uint64_t site) {
  T values[64];
  const unsigned long long members = gather_lanes(mask, value, values, site);
  T result = value;
  bool first = true;
  for (int lane = 0; lane < warpSize; ++lane) {
    if (!(members >> lane & 1)) continue;
    result = first ? values[lane] : op(result, values[lane]);
    first = false;
  }
  return result;
}

}  // namespace __hk

template <class T>
__HK_INLINE unsigned long long __match_any_sync(unsigned long long mask, T value,
                                                __hk::site at = __hk::site::here()) {
  T values[64];
  const unsigned long long members = __hk::gather_lanes(mask, value, values, at.id);
  unsigned long long same = 0;
  for (int lane = 0; lane < warpSize; ++lane)
    if ((members >> lane & 1) && __hk::to_bits(values[lane]) == __hk::to_bits(value))
      same |= 1ull << lane;
  return same;
}

// The mask if every lane taking part has the same value (and *pred = 1), else 0.
template <class T>
__HK_INLINE unsigned long long __match_all_sync(unsigned long long mask, T value, int* pred,
                                                __hk::site at = __hk::site::here()) {
  T values[64];
  const unsigned long long members = __hk::gather_lanes(mask, value, values, at.id);
  bool all = true;
  for (int lane = 0; lane < warpSize; ++lane)
    if ((members >> lane & 1) && __hk::to_bits(values[lane]) != __hk::to_bits(value)) all = false;
  *pred = all;
  return all ? mask : 0ull;
}

#define __HK_REDUCE(name, trait, expr)                                                       \
  template <class T, typename std::enable_if<std::trait<T>::value, int>::type = 0>           \
  __HK_INLINE T __reduce_##name##_sync(unsigned long long mask, T value,                     \
                                       __hk::site at = __hk::site::here()) {                 \
    return __hk::warp_fold(mask, value, [](T a, T b) -> T { return expr; }, at.id);          \
  }
__HK_REDUCE(add, is_arithmetic, a + b)
__HK_REDUCE(min, is_arithmetic, b < a ? b : a)
__HK_REDUCE(max, is_arithmetic, a < b ? b : a)
__HK_REDUCE(and, is_integral, a & b)
__HK_REDUCE(or, is_integral, a | b)
__HK_REDUCE(xor, is_integral, a ^ b)
#undef __HK_REDUCE

#endif  // HIPKIT_CPU_DEVICE_WARP_MATCH_H
