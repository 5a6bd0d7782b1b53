// hipkit NVIDIA platform: the atomic functions HIP has and CUDA lacks (part
// of device.h).
//
// CUDA's atomics cover int, unsigned int and unsigned long long (and float
// and double for atomicAdd); HIP's and the CPU platform's take int, unsigned,
// long, unsigned long, long long, unsigned long long, float and double for
// every operation that makes sense.  The missing ones are defined here on
// CUDA's: 64-bit integers on the unsigned long long instruction (the same
// bits), subtraction as addition of the negation, floating-point min/max and
// compare-and-swap as loops on the bit pattern.  Every function returns the
// old value; memory order is relaxed, as CUDA's and HIP's.
#pragma once

namespace __hk {

// *p = val while better(val, *p); returns the old value.  Never writes when
// val does not win (so a NaN is never stored, and a stored NaN stays).
template <class T, class U, class Better>
__HK_INLINE T atomic_extremum(T* p, T val, Better better) {
  U* const q = reinterpret_cast<U*>(p);
  U old_bits = *reinterpret_cast<volatile U*>(q);
  for (;;) {
    const T old = __builtin_bit_cast(T, old_bits);
    if (!better(val, old)) return old;
    const U seen = atomicCAS(q, old_bits, __builtin_bit_cast(U, val));
    if (seen == old_bits) return old;
    old_bits = seen;
  }
}

}  // namespace __hk

// An operation on T done by CUDA's on U, with T's bits.
#define __HK_ATOMIC_AS(name, T, U)                                           \
  __HK_FN T name(T* p, T v) {                                                \
    return static_cast<T>(name(reinterpret_cast<U*>(p), static_cast<U>(v))); \
  }
#define __HK_ATOMIC_INT64(T, U)                                                  \
  __HK_ATOMIC_AS(atomicAdd, T, unsigned long long)                               \
  __HK_ATOMIC_AS(atomicExch, T, unsigned long long)                              \
  __HK_ATOMIC_AS(atomicAnd, T, unsigned long long)                               \
  __HK_ATOMIC_AS(atomicOr, T, unsigned long long)                                \
  __HK_ATOMIC_AS(atomicXor, T, unsigned long long)                               \
  __HK_ATOMIC_AS(atomicMin, T, U)                                                \
  __HK_ATOMIC_AS(atomicMax, T, U)                                                \
  __HK_FN T atomicSub(T* p, T v) {                                               \
    return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(p),    \
                                    0ull - static_cast<unsigned long long>(v))); \
  }                                                                              \
  __HK_FN T atomicCAS(T* p, T compare, T v) {                                    \
    return static_cast<T>(atomicCAS(reinterpret_cast<unsigned long long*>(p),    \
                                    static_cast<unsigned long long>(compare),    \
                                    static_cast<unsigned long long>(v)));        \
  }
#ifdef __LP64__
__HK_ATOMIC_INT64(long, long long)
__HK_ATOMIC_INT64(unsigned long, unsigned long long)
#endif
#undef __HK_ATOMIC_INT64
__HK_ATOMIC_AS(atomicAdd, long long, unsigned long long)
__HK_ATOMIC_AS(atomicExch, long long, unsigned long long)
__HK_FN long long atomicSub(long long* p, long long v) { return atomicAdd(p, -v); }
__HK_FN unsigned long long atomicSub(unsigned long long* p, unsigned long long v) {
  return atomicAdd(p, 0ull - v);
}
__HK_FN long long atomicCAS(long long* p, long long compare, long long v) {
  return static_cast<long long>(atomicCAS(reinterpret_cast<unsigned long long*>(p),
                                          static_cast<unsigned long long>(compare),
                                          static_cast<unsigned long long>(v)));
}
#undef __HK_ATOMIC_AS

__HK_FN float atomicSub(float* p, float v) { return atomicAdd(p, -v); }
__HK_FN double atomicSub(double* p, double v) { return atomicAdd(p, -v); }
__HK_FN double atomicExch(double* p, double v) {
  const auto bits = static_cast<unsigned long long>(__double_as_longlong(v));
  const auto old = atomicExch(reinterpret_cast<unsigned long long*>(p), bits);
  return __longlong_as_double(static_cast<long long>(old));
}
// Compare-and-swap of the bit patterns (as the CPU platform's).
__HK_FN float atomicCAS(float* p, float compare, float v) {
  return __uint_as_float(atomicCAS(reinterpret_cast<unsigned int*>(p), __float_as_uint(compare),
                                   __float_as_uint(v)));
}
__HK_FN double atomicCAS(double* p, double compare, double v) {
  return __longlong_as_double(static_cast<long long>(
      atomicCAS(reinterpret_cast<unsigned long long*>(p),
                static_cast<unsigned long long>(__double_as_longlong(compare)),
                static_cast<unsigned long long>(__double_as_longlong(v)))));
}
__HK_FN float atomicMin(float* p, float v) {
  return __hk::atomic_extremum<float, unsigned int>(p, v, [](float a, float b) { return a < b; });
}
__HK_FN float atomicMax(float* p, float v) {
  return __hk::atomic_extremum<float, unsigned int>(p, v, [](float a, float b) { return a > b; });
}
__HK_FN double atomicMin(double* p, double v) {
  return __hk::atomic_extremum<double, unsigned long long>(
      p, v, [](double a, double b) { return a < b; });
}
__HK_FN double atomicMax(double* p, double v) {
  return __hk::atomic_extremum<double, unsigned long long>(
      p, v, [](double a, double b) { return a > b; });
}

// The GPU's f16 atomic add (sm_70 and later).
__HK_FN __half atomicAdd(__half* p, __half v) {
  unsigned short old;
  asm volatile("atom.add.noftz.f16 %0, [%1], %2;" : "=h"(old) : "l"(p), "h"(v.__x) : "memory");
  return __half_raw{old};
}
__HK_FN __half2 atomicAdd(__half2* p, __half2 v) {
  unsigned int old;
  asm volatile("atom.add.noftz.f16x2 %0, [%1], %2;"
               : "=r"(old)
               : "l"(p), "r"(__hk::half2_bits(v))
               : "memory");
  return __hk::half2_from_bits(old);
}

// Scoped variants, and HIP's (un)safeAtomic* for floating-point: CUDA's
// scoped functions where they exist (non-templates win overload resolution),
// else the device-scope operation (a wider scope is also correct).  The value
// converts to the pointee type as in the plain call.
#include "hipkit_portable/atomic_scopes.h"
