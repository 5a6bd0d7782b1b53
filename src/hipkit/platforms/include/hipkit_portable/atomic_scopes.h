// hipkit: HIP's scoped atomics (_system, _block) and (un)safeAtomic* as aliases of the plain calls.
// Plain C++ on HIP's own device API, shared by the CPU, NVIDIA and AMD platforms'
// device headers, which define __HK_FN and __HK_INLINE and include this.
#pragma once

// The value converts to the pointee type as in the plain call; where a platform
// has its own non-template scoped function, overload resolution prefers it.
#define __HK_ATOMIC_ALIAS(alias, name)                                                 \
  template <class T, class U>                                                          \
  __HK_INLINE T alias(T* p, U v) {                                                     \
    return name(p, static_cast<T>(v));                                                 \
  }
#define __HK_ATOMIC_SCOPES(name)                                                       \
  __HK_ATOMIC_ALIAS(name##_system, name)                                               \
  __HK_ATOMIC_ALIAS(name##_block, name)
__HK_ATOMIC_SCOPES(atomicAdd)
__HK_ATOMIC_SCOPES(atomicSub)
__HK_ATOMIC_SCOPES(atomicExch)
__HK_ATOMIC_SCOPES(atomicMin)
__HK_ATOMIC_SCOPES(atomicMax)
__HK_ATOMIC_SCOPES(atomicInc)
__HK_ATOMIC_SCOPES(atomicDec)
__HK_ATOMIC_SCOPES(atomicAnd)
__HK_ATOMIC_SCOPES(atomicOr)
__HK_ATOMIC_SCOPES(atomicXor)
__HK_ATOMIC_ALIAS(safeAtomicAdd, atomicAdd)
__HK_ATOMIC_ALIAS(unsafeAtomicAdd, atomicAdd)
__HK_ATOMIC_ALIAS(safeAtomicMin, atomicMin)
__HK_ATOMIC_ALIAS(unsafeAtomicMin, atomicMin)
__HK_ATOMIC_ALIAS(safeAtomicMax, atomicMax)
__HK_ATOMIC_ALIAS(unsafeAtomicMax, atomicMax)
#undef __HK_ATOMIC_SCOPES
#undef __HK_ATOMIC_ALIAS

template <class T, class U, class V>
__HK_INLINE T atomicCAS_system(T* p, U compare, V v) {
  return atomicCAS(p, static_cast<T>(compare), static_cast<T>(v));
}
template <class T, class U, class V>
__HK_INLINE T atomicCAS_block(T* p, U compare, V v) {
  return atomicCAS(p, static_cast<T>(compare), static_cast<T>(v));
}
