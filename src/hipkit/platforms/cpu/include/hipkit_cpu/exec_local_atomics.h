// hipkit CPU platform, the block executor (exec.h): atomics on a block's own
// shared memory, as plain loads and stores.
// Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_LOCAL_ATOMICS_H
#define HIPKIT_CPU_EXEC_LOCAL_ATOMICS_H

namespace __hk {

// The threads of one block never run at the same time on the CPU (loops, or
// cooperative fibers) and no other block sees its shared memory, so an atomic
// on it needs no atomic instruction.  The transform wraps such pointers
// (&s[i] of a __shared__ array of the kernel) in local(); these overloads then
// do exactly what the atomics of device_atomics.h do, with plain loads/stores.
// Two threads of one vector may update the same element, so a loop over threads
// that makes them carries no ivdep (transform/split_state.py's ivdep): with it,
// a gather, add and scatter would lose all but one of their updates.
template <class T>
struct block_local {
  T* p;
};
template <class T>
__attribute__((always_inline)) inline block_local<T> local(T* p) noexcept {
  return {p};
}
template <class T, class F>
__attribute__((always_inline)) inline T plain_update(T* p, F f) noexcept {
  T old = *p;
  *p = f(old);
  return old;
}

}  // namespace __hk

#define __HK_PLAIN(name, expr)                                                                    \
  template <class T, class U>                                                                     \
  __attribute__((always_inline)) inline T name(__hk::block_local<T> a, U value) noexcept {       \
    const T v = static_cast<T>(value);                                                            \
    return __hk::plain_update(a.p, [&](T old) -> T { return expr; });                           \
  }                                                                                               \
  template <class T, class U>                                                                     \
  __attribute__((always_inline)) inline T name##_block(__hk::block_local<T> a, U value) noexcept { \
    return name(a, value);                                                                        \
  }                                                                                               \
  template <class T, class U>                                                                     \
  __attribute__((always_inline)) inline T name##_system(__hk::block_local<T> a, U value) noexcept { \
    return name(a, value);                                                                        \
  }
__HK_PLAIN(atomicAdd, old + v)
__HK_PLAIN(atomicSub, old - v)
__HK_PLAIN(atomicExch, v)
__HK_PLAIN(atomicMin, v < old ? v : old)
__HK_PLAIN(atomicMax, v > old ? v : old)
__HK_PLAIN(atomicAnd, old & v)
__HK_PLAIN(atomicOr, old | v)
__HK_PLAIN(atomicXor, old ^ v)
__HK_PLAIN(atomicInc, old >= v ? T(0) : T(old + 1))
__HK_PLAIN(atomicDec, old == 0 || old > v ? v : T(old - 1))
__HK_PLAIN(safeAtomicAdd, old + v)
__HK_PLAIN(unsafeAtomicAdd, old + v)
__HK_PLAIN(safeAtomicMin, v < old ? v : old)
__HK_PLAIN(unsafeAtomicMin, v < old ? v : old)
__HK_PLAIN(safeAtomicMax, v > old ? v : old)
__HK_PLAIN(unsafeAtomicMax, v > old ? v : old)
#undef __HK_PLAIN

// As __atomic_compare_exchange: compares bit patterns (so NaNs match themselves).
template <class T, class U, class V>
__attribute__((always_inline)) inline T atomicCAS(__hk::block_local<T> a, U compare, V value) noexcept {
  const T c = static_cast<T>(compare), v = static_cast<T>(value);
  T old = *a.p;
  if (__builtin_memcmp(&old, &c, sizeof(T)) == 0) *a.p = v;
  return old;
}
template <class T, class U, class V>
__attribute__((always_inline)) inline T atomicCAS_block(__hk::block_local<T> a, U compare, V value) noexcept {
  return atomicCAS(a, compare, value);
}
template <class T, class U, class V>
__attribute__((always_inline)) inline T atomicCAS_system(__hk::block_local<T> a, U compare, V value) noexcept {
  return atomicCAS(a, compare, value);
}

#endif  // HIPKIT_CPU_EXEC_LOCAL_ATOMICS_H
