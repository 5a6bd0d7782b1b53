// hipkit NVIDIA platform: the HIP intrinsics CUDA lacks (part of device.h):
// bit-field extract and insert, __fns32/64, HIP's clocks, __lane_id and AMD's
// __mbcnt_lo/hi, powi, and cache-hinted loads and stores of any type.
#pragma once

#include "hipkit_portable/bits.h"

__HK_FN long long __clock64() { return clock64(); }
__HK_FN long long __clock() { return clock64(); }
// A constant-rate clock in nanoseconds (hipDeviceAttributeWallClockRate is
// 1000000 kHz).
__HK_FN long long wall_clock64() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__HK_FN unsigned int __lane_id() {
  unsigned int lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
#include "hipkit_portable/mbcnt.h"

__HK_FN float saturate(float x) { return __saturatef(x); }
__HK_FN double __float2double_rn(float x) { return x; }
// HIP's integer powers (OCML's pown: pown(x, 0) is 1 for every x), on CUDA's pow.
__HK_FN double powi(double base, int iexp) { return pow(base, double(iexp)); }
__HK_FN float powif(float base, int iexp) { return float(pow(double(base), double(iexp))); }

// ---- Cache-hinted loads and stores of any type --------------------------------
// CUDA has them for its scalar and vector types; these take any trivially
// copyable T (HIP's vector types, __half, structs), moved in the widest
// pieces its alignment allows.

namespace __hk {

template <int Align>
struct piece;  // the unsigned type of Align bytes (16 at most) that CUDA's hints take
template <>
struct piece<1> {
  using type = unsigned char;
};
template <>
struct piece<2> {
  using type = unsigned short;
};
template <>
struct piece<4> {
  using type = unsigned int;
};
template <>
struct piece<8> {
  using type = cuda_uint2;
};
template <>
struct piece<16> {
  using type = cuda_uint4;
};

template <class T>
struct pieces {
  using type = typename piece<(alignof(T) < 16 ? alignof(T) : 16)>::type;
  enum { count = sizeof(T) / sizeof(type) };
  type part[count];
};

}  // namespace __hk

#define __HK_LOAD_HINT(name)                                         \
  template <class T>                                                 \
  __HK_INLINE T name(const T* p) {                                   \
    using P = __hk::pieces<T>;                                       \
    const auto* from = reinterpret_cast<const typename P::type*>(p); \
    P v;                                                             \
    for (int i = 0; i < P::count; ++i) v.part[i] = name(from + i);   \
    return __builtin_bit_cast(T, v);                                 \
  }
#define __HK_STORE_HINT(name)                                   \
  template <class T>                                            \
  __HK_INLINE void name(T* p, T value) {                        \
    using P = __hk::pieces<T>;                                  \
    auto* to = reinterpret_cast<typename P::type*>(p);          \
    const P v = __builtin_bit_cast(P, value);                   \
    for (int i = 0; i < P::count; ++i) name(to + i, v.part[i]); \
  }
__HK_LOAD_HINT(__ldg)
__HK_LOAD_HINT(__ldca)
__HK_LOAD_HINT(__ldcg)
__HK_LOAD_HINT(__ldcs)
__HK_LOAD_HINT(__ldlu)
__HK_LOAD_HINT(__ldcv)
__HK_STORE_HINT(__stwb)
__HK_STORE_HINT(__stcg)
__HK_STORE_HINT(__stcs)
__HK_STORE_HINT(__stwt)
#undef __HK_LOAD_HINT
#undef __HK_STORE_HINT
