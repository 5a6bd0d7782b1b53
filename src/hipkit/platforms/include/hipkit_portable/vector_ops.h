// hipkit: the element-wise operators of HIP's vector types, char1 ... double4,
// with a scalar on either side, shared by the CPU and NVIDIA platforms'
// vector_types.h (HIP on AMD has its own).  Those define __HK_DEVICE and the
// traits __hk::enable_if, is_arithmetic and remove_cv (<type_traits>' on the
// CPU, traits.h's on NVIDIA), include this before their types, and give each
// type a __hk::vec_info specialization.
//
// The operators are declared in the namespace of the types, where
// argument-dependent lookup finds them: the platform defines
// __HK_VEC_NAMESPACE_BEGIN and _END (the global namespace on the CPU, __hk on
// NVIDIA, whose types cannot take CUDA's global names).
#pragma once

namespace __hk {

// vec_info<V> describes vector type V (element type, rank); the operators
// below exist only for types that have one.
template <class V>
struct vec_info {};
template <class V>
using vec_elem = typename vec_info<V>::elem;
// The scalars a vector type's constructor broadcasts.
template <class U>
using enable_if_arith = typename enable_if<is_arithmetic<U>::value, int>::type;

// f(a.x, b.x), f(a.y, b.y), ... over the rank of A (a vector type).
template <class A, class B, class F>
__HK_DEVICE constexpr void vec_each(A& a, B& b, F f) {
  constexpr int n = vec_info<typename remove_cv<A>::type>::rank;
  f(a.x, b.x);
  if constexpr (n > 1) f(a.y, b.y);
  if constexpr (n > 2) f(a.z, b.z);
  if constexpr (n > 3) f(a.w, b.w);
}

}  // namespace __hk

__HK_VEC_NAMESPACE_BEGIN

// Templates rather than per-type functions: declared once for all 48 types,
// which keeps the headers fast to compile.
#define __HK_VEC_BINARY(op)                                               \
  template <class V, class T = __hk::vec_elem<V>>                         \
  __HK_DEVICE constexpr V& operator op##=(V& a, const V& b) {             \
    __hk::vec_each(a, b, [](T& l, T r) { l op##= r; });                   \
    return a;                                                             \
  }                                                                       \
  template <class V, class T = __hk::vec_elem<V>>                         \
  __HK_DEVICE constexpr V& operator op##=(V& a, __hk::vec_elem<V> s) {    \
    __hk::vec_each(a, a, [s](T& l, T) { l op##= s; });                    \
    return a;                                                             \
  }                                                                       \
  template <class V, class = __hk::vec_elem<V>>                           \
  __HK_DEVICE constexpr V operator op(V a, const V& b) {                  \
    return a op##= b;                                                     \
  }                                                                       \
  template <class V>                                                      \
  __HK_DEVICE constexpr V operator op(V a, __hk::vec_elem<V> s) {         \
    return a op##= s;                                                     \
  }                                                                       \
  template <class V>                                                      \
  __HK_DEVICE constexpr V operator op(__hk::vec_elem<V> s, const V& b) {  \
    V a(s);                                                               \
    return a op##= b;                                                     \
  }
__HK_VEC_BINARY(+)
__HK_VEC_BINARY(-)
__HK_VEC_BINARY(*)
__HK_VEC_BINARY(/)
// Integer element types only (as HIP); using them on float4 fails to compile.
__HK_VEC_BINARY(%)
__HK_VEC_BINARY(&)
__HK_VEC_BINARY(|)
__HK_VEC_BINARY(^)
__HK_VEC_BINARY(<<)
__HK_VEC_BINARY(>>)
#undef __HK_VEC_BINARY

template <class V, class = __hk::vec_elem<V>>
__HK_DEVICE constexpr V operator+(const V& a) {
  return a;
}
template <class V, class T = __hk::vec_elem<V>>
__HK_DEVICE constexpr V operator-(V a) {
  __hk::vec_each(a, a, [](T& l, T) { l = static_cast<T>(-l); });
  return a;
}
template <class V, class T = __hk::vec_elem<V>>
__HK_DEVICE constexpr V operator~(V a) {
  __hk::vec_each(a, a, [](T& l, T) { l = static_cast<T>(~l); });
  return a;
}
template <class V, class T = __hk::vec_elem<V>>
__HK_DEVICE constexpr V& operator++(V& a) {
  return a += T(1);
}
template <class V, class T = __hk::vec_elem<V>>
__HK_DEVICE constexpr V& operator--(V& a) {
  return a -= T(1);
}
template <class V, class T = __hk::vec_elem<V>>
__HK_DEVICE constexpr V operator++(V& a, int) {
  const V old = a;
  a += T(1);
  return old;
}
template <class V, class T = __hk::vec_elem<V>>
__HK_DEVICE constexpr V operator--(V& a, int) {
  const V old = a;
  a -= T(1);
  return old;
}
template <class V, class T = __hk::vec_elem<V>>
__HK_DEVICE constexpr bool operator==(const V& a, const V& b) {
  bool equal = true;
  __hk::vec_each(a, b, [&equal](T l, T r) { equal = equal && l == r; });
  return equal;
}
template <class V, class = __hk::vec_elem<V>>
__HK_DEVICE constexpr bool operator!=(const V& a, const V& b) {
  return !(a == b);
}

__HK_VEC_NAMESPACE_END
