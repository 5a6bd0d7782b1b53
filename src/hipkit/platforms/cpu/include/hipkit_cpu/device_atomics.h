// hipkit CPU platform: atomic functions (part of device.h).
//
// Real atomics (GCC __atomic builtins), correct between OS threads, so on
// global memory shared by blocks running on different workers.  Memory order
// is relaxed, as HIP's (ordering comes from __threadfence()).  Operations the
// CPU lacks (min/max, inc/dec, floating-point add) are compare-exchange loops
// on the value's bit pattern.  Every function returns the old value.
//
// Integer functions take int, unsigned, long, unsigned long, long long and
// unsigned long long (a superset of HIP's and CUDA's lists); floating-point
// ones take float and double; atomicAdd also takes __half and __half2.  The
// _system and _block variants are the same operations.
#ifndef HIPKIT_CPU_DEVICE_ATOMICS_H
#define HIPKIT_CPU_DEVICE_ATOMICS_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

namespace __hk {

constexpr int relaxed = __ATOMIC_RELAXED;

// *p = f(*p) atomically; returns the old value.
template <class T, class F>
__HK_INLINE T atomic_update(T* p, F f) {
  T old, desired;
  __atomic_load(p, &old, relaxed);
  do {
    desired = f(old);
  } while (!__atomic_compare_exchange(p, &old, &desired, true, relaxed, relaxed));
  return old;
}

// *p = val while better(val, *p); returns the old value.  Never writes when
// val does not win (so a NaN is never stored, and a stored NaN stays).
template <class T, class Better>
__HK_INLINE T atomic_extremum(T* p, T val, Better better) {
  T old;
  __atomic_load(p, &old, relaxed);
  while (better(val, old) && !__atomic_compare_exchange(p, &old, &val, true, relaxed, relaxed)) {
  }
  return old;
}

}  // namespace __hk

#define __HK_ATOMIC_COMMON(T)                                                          \
  __HK_FN T atomicExch(T* p, T v) {                                                \
    T old;                                                                             \
    __atomic_exchange(p, &v, &old, __hk::relaxed);                                     \
    return old;                                                                        \
  }                                                                                    \
  __HK_FN T atomicCAS(T* p, T compare, T v) {                                      \
    __atomic_compare_exchange(p, &compare, &v, false, __hk::relaxed, __hk::relaxed);   \
    return compare;                                                                    \
  }                                                                                    \
  __HK_FN T atomicMin(T* p, T v) {                                                     \
    return __hk::atomic_extremum(p, v, [](T a, T b) { return a < b; });                \
  }                                                                                    \
  __HK_FN T atomicMax(T* p, T v) {                                                     \
    return __hk::atomic_extremum(p, v, [](T a, T b) { return a > b; });                \
  }

#define __HK_ATOMIC_INT(T)                                                             \
  __HK_ATOMIC_COMMON(T)                                                                \
  __HK_FN T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __hk::relaxed); } \
  __HK_FN T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __hk::relaxed); } \
  __HK_FN T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __hk::relaxed); } \
  __HK_FN T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __hk::relaxed); }   \
  __HK_FN T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __hk::relaxed); }

#define __HK_ATOMIC_FLOAT(T)                                                           \
  __HK_ATOMIC_COMMON(T)                                                                \
  __HK_FN T atomicAdd(T* p, T v) {                                                 \
    return __hk::atomic_update(p, [v](T old) { return old + v; });                     \
  }                                                                                    \
  __HK_FN T atomicSub(T* p, T v) {                                                 \
    return __hk::atomic_update(p, [v](T old) { return old - v; });                     \
  }

__HK_ATOMIC_INT(int)
__HK_ATOMIC_INT(unsigned int)
__HK_ATOMIC_INT(long)
__HK_ATOMIC_INT(unsigned long)
__HK_ATOMIC_INT(long long)
__HK_ATOMIC_INT(unsigned long long)
__HK_ATOMIC_FLOAT(float)
__HK_ATOMIC_FLOAT(double)
#undef __HK_ATOMIC_INT
#undef __HK_ATOMIC_FLOAT
#undef __HK_ATOMIC_COMMON

__HK_FN unsigned short atomicCAS(unsigned short* p, unsigned short compare, unsigned short v) {
  __atomic_compare_exchange_n(p, &compare, v, false, __hk::relaxed, __hk::relaxed);
  return compare;
}

// ((old >= val) ? 0 : (old + 1)) and (((old == 0) || (old > val)) ? val : (old - 1)).
__HK_FN unsigned int atomicInc(unsigned int* p, unsigned int val) {
  return __hk::atomic_update(p, [val](unsigned int old) { return old >= val ? 0u : old + 1; });
}
__HK_FN unsigned int atomicDec(unsigned int* p, unsigned int val) {
  return __hk::atomic_update(p, [val](unsigned int old) {
    return old == 0 || old > val ? val : old - 1;
  });
}

__HK_FN __half atomicAdd(__half* p, __half v) {
  return __hk::atomic_update(p, [v](__half old) { return old + v; });
}
__HK_FN __half2 atomicAdd(__half2* p, __half2 v) {
  return __hk::atomic_update(p, [v](__half2 old) { return old + v; });
}

// Scoped variants, and HIP's (un)safeAtomic* for floating-point: the same
// operations; the value converts to the pointee type as in the plain call.
#include "hipkit_portable/atomic_scopes.h"

#endif  // HIPKIT_CPU_DEVICE_ATOMICS_H
