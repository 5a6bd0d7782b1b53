// hipkit: hipCreateChannelDesc<T>(), the descriptor of texels of type T (a scalar,
// __half or one of HIP's vector types), for the CPU and NVIDIA program headers.
// Each declares hipCreateChannelDesc(x, y, z, w, f), __half and its vector types'
// __hk::vec_info before including it.  (CUDA's own template knows CUDA's vector
// types alone, and gave hipkit's float2 the empty descriptor.)
#pragma once

#include <type_traits>

namespace __hk {
template <class T>
struct channel_elem {
  using type = T;
  static constexpr int rank = 1;
};
template <class T>
struct channel_elem_of_vec {
  using type = typename vec_info<T>::elem;
  static constexpr int rank = vec_info<T>::rank;
};
template <class T>
using channel_traits =
    typename std::conditional<std::is_arithmetic<T>::value || std::is_same<T, __half>::value,
                              channel_elem<T>, channel_elem_of_vec<T>>::type;
}  // namespace __hk

template <class T>
inline hipChannelFormatDesc hipCreateChannelDesc() {
  using traits = __hk::channel_traits<T>;
  using E = typename traits::type;
  const int bits = int(sizeof(E) * 8);
  const hipChannelFormatKind kind =
      std::is_floating_point<E>::value || std::is_same<E, __half>::value
          ? hipChannelFormatKindFloat
          : std::is_signed<E>::value ? hipChannelFormatKindSigned : hipChannelFormatKindUnsigned;
  const int n = traits::rank;
  return hipCreateChannelDesc(bits, n > 1 ? bits : 0, n > 2 ? bits : 0, n > 3 ? bits : 0, kind);
}
template <>
inline hipChannelFormatDesc hipCreateChannelDesc<void>() {
  return hipCreateChannelDesc(0, 0, 0, 0, hipChannelFormatKindNone);
}
