// hipkit AMD platform: the atomics hipkit's kernel language has and HIP on
// AMD lacks (part of device.h): the signed 64-bit integers, 16-bit
// compare-and-swap, __half and __half2 addition, and the _block, _system,
// safe and unsafe spellings of every operation (hipkit_portable/atomic_scopes.h,
// where HIP's own non-template functions win overload resolution).  All
// relaxed and device-wide, as HIP's plain atomics.
#pragma once

#define __HK_ATOMIC_RMW(T, name, builtin)                                     \
  __HK_FN T name(T* p, T v) {                                                 \
    return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);         \
  }
#define __HK_ATOMIC_S64(T)                                                    \
  __HK_ATOMIC_RMW(T, atomicAdd, __hip_atomic_fetch_add)                       \
  __HK_ATOMIC_RMW(T, atomicExch, __hip_atomic_exchange)                       \
  __HK_ATOMIC_RMW(T, atomicMin, __hip_atomic_fetch_min)                       \
  __HK_ATOMIC_RMW(T, atomicMax, __hip_atomic_fetch_max)                       \
  __HK_ATOMIC_RMW(T, atomicAnd, __hip_atomic_fetch_and)                       \
  __HK_ATOMIC_RMW(T, atomicOr, __hip_atomic_fetch_or)                         \
  __HK_ATOMIC_RMW(T, atomicXor, __hip_atomic_fetch_xor)                       \
  /* ROCm 5's clang has no __hip_atomic_fetch_sub: add the negation, taken unsigned (no overflow). */ \
  __HK_FN T atomicSub(T* p, T v) {                                            \
    return atomicAdd(p, static_cast<T>(0ull - static_cast<unsigned long long>(v))); \
  }                                                                           \
  __HK_FN T atomicCAS(T* p, T compare, T v) {                                 \
    __hip_atomic_compare_exchange_strong(p, &compare, v, __ATOMIC_RELAXED,    \
                                         __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); \
    return compare;                                                           \
  }
__HK_ATOMIC_S64(long)
__HK_ATOMIC_S64(long long)
#undef __HK_ATOMIC_S64
#undef __HK_ATOMIC_RMW

__HK_FN unsigned short atomicCAS(unsigned short* p, unsigned short compare, unsigned short v) {
  __hip_atomic_compare_exchange_strong(p, &compare, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_AGENT);
  return compare;
}

// Compare-and-swap loops over the halves' bits.
__HK_FN __half atomicAdd(__half* p, __half v) {
  unsigned short* bits = reinterpret_cast<unsigned short*>(p);
  unsigned short old = *bits, seen;
  do {
    seen = old;
    old = atomicCAS(bits, seen, __half_as_ushort(__hadd(__ushort_as_half(seen), v)));
  } while (old != seen);
  return __ushort_as_half(old);
}
__HK_FN __half2 atomicAdd(__half2* p, __half2 v) {
  unsigned int* bits = reinterpret_cast<unsigned int*>(p);
  unsigned int old = *bits, seen;
  do {
    seen = old;
    old = atomicCAS(bits, seen,
                    __builtin_bit_cast(unsigned int, __hadd2(__builtin_bit_cast(__half2, seen), v)));
  } while (old != seen);
  return __builtin_bit_cast(__half2, old);
}

#include "hipkit_portable/atomic_scopes.h"
