// hipkit: cooperative groups' reductions and scans over the lanes of a tile or a
// coalesced group (part of cooperative_groups.h), with the operators of CUDA's
// cooperative groups: plus, less (the smaller), greater (the larger), bit_and,
// bit_or, bit_xor, or any callable op(a, b).
#pragma once

namespace cooperative_groups {

template <class T>
struct plus {
  __HK_CG_FN T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  __HK_CG_FN T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  __HK_CG_FN T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  __HK_CG_FN T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  __HK_CG_FN T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  __HK_CG_FN T operator()(T a, T b) const { return a ^ b; }
};

namespace __hk_detail {
template <class G>
struct lane_group {
  static constexpr bool value = false;
};
template <unsigned N, class P>
struct lane_group<thread_block_tile<N, P>> {
  static constexpr bool value = true;
};
template <>
struct lane_group<coalesced_group> {
  static constexpr bool value = true;
};
}  // namespace __hk_detail

// op over every rank's value, in rank order; every rank gets the result.
template <class G, class T, class Op>
__HK_CG_FN T reduce(const G& g, T value, Op op __HK_CG_SITE) {
  static_assert(__hk_detail::lane_group<G>::value,
                "cooperative_groups::reduce: over a thread_block_tile or a coalesced_group");
  const unsigned n = g.size(), rank = g.thread_rank();
  for (unsigned offset = 1; offset < n; offset <<= 1) {
    const T other = g.shfl_down(value, offset __HK_CG_AT);
    if (rank + offset < n) value = op(value, other);
  }
  return g.shfl(value, 0 __HK_CG_AT);
}

// Rank r gets op over the values of ranks 0..r.
template <class G, class T, class Op>
__HK_CG_FN T inclusive_scan(const G& g, T value, Op op __HK_CG_SITE) {
  static_assert(__hk_detail::lane_group<G>::value,
                "cooperative_groups::inclusive_scan: over a thread_block_tile or a coalesced_group");
  const unsigned n = g.size(), rank = g.thread_rank();
  for (unsigned offset = 1; offset < n; offset <<= 1) {
    const T other = g.shfl_up(value, offset __HK_CG_AT);
    if (rank >= offset) value = op(other, value);
  }
  return value;
}
template <class G, class T>
__HK_CG_FN T inclusive_scan(const G& g, T value __HK_CG_SITE) {
  return inclusive_scan(g, value, plus<T>() __HK_CG_AT);
}

// Rank r gets op over the values of ranks 0..r-1; rank 0 gets T() (CUDA leaves it
// undefined; T() is the identity of plus, bit_or and bit_xor).
template <class G, class T, class Op>
__HK_CG_FN T exclusive_scan(const G& g, T value, Op op __HK_CG_SITE) {
  const T inclusive = inclusive_scan(g, value, op __HK_CG_AT);
  const T before = g.shfl_up(inclusive, 1 __HK_CG_AT);
  return g.thread_rank() == 0 ? T() : before;
}
template <class G, class T>
__HK_CG_FN T exclusive_scan(const G& g, T value __HK_CG_SITE) {
  return exclusive_scan(g, value, plus<T>() __HK_CG_AT);
}

}  // namespace cooperative_groups
