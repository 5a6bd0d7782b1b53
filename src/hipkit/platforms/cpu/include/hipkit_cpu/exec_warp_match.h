// hipkit CPU platform, the block executor (exec.h): warp match and reduce in
// split kernels (device_warp_match.h has their fiber forms), computed lane by
// lane over the arguments every thread has evaluated.  Included by
// exec_warp_ops.h.  Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_WARP_MATCH_H
#define HIPKIT_CPU_EXEC_WARP_MATCH_H

namespace __hk {

// f(t, members, w, end) for each thread t taking part, with the lanes of t's
// mask that take part (bit i: thread w + i) and its warp's threads [w, end).
template <class M, class F>
inline void split_each_member(const block& b, const mask* m, const unsigned char* x,
                              const M& lane_mask, F f) noexcept {
  const int W = warpSize;
  for (int w = range_lo(m) / W * W, last = range_hi(b, m); w < last; w += W) {
    const int end = w + W < b.n ? w + W : b.n;
    unsigned long long live = 0;
    for (int t = w; t < end; ++t)
      if (active(on_of(m), x, t)) live |= 1ull << (t - w);
    for (int t = w; t < end; ++t)
      if (live >> (t - w) & 1) f(t, live & static_cast<unsigned long long>(lane_mask[t]), w, end);
  }
}

template <class R, class M, class V>
inline void split_match_any(const block& b, const mask* m, const unsigned char* x, R* r,
                            M lane_mask, V v) noexcept {
  split_each_member(b, m, x, lane_mask, [&](int t, unsigned long long members, int w, int end) {
    unsigned long long same = 0;
    for (int s = w; s < end; ++s)
      if ((members >> (s - w) & 1) && to_bits(v[s]) == to_bits(v[t])) same |= 1ull << (s - w);
    r[t] = static_cast<R>(same);
  });
}

template <class R, class M, class V, class P>
inline void split_match_all(const block& b, const mask* m, const unsigned char* x, R* r,
                            M lane_mask, V v, P pred) noexcept {
  split_each_member(b, m, x, lane_mask, [&](int t, unsigned long long members, int w, int end) {
    bool all = true;
    for (int s = w; s < end; ++s)
      if ((members >> (s - w) & 1) && to_bits(v[s]) != to_bits(v[t])) all = false;
    *pred[t] = all;
    r[t] = static_cast<R>(all ? static_cast<unsigned long long>(lane_mask[t]) : 0ull);
  });
}

template <class R, class M, class V, class Op>
inline void split_reduce(const block& b, const mask* m, const unsigned char* x, R* r,
                         M lane_mask, V v, Op op) noexcept {
  split_each_member(b, m, x, lane_mask, [&](int t, unsigned long long members, int w, int end) {
    R result = static_cast<R>(v[t]);
    bool first = true;
    for (int s = w; s < end; ++s) {
      if (!(members >> (s - w) & 1)) continue;
      result = first ? static_cast<R>(v[s]) : op(result, static_cast<R>(v[s]));
      first = false;
    }
    r[t] = result;
  });
}

#define __HK_SPLIT_REDUCE(name, expr)                                                        \
  template <class R, class M, class V>                                                       \
  inline void split_reduce_##name(const block& b, const mask* m, const unsigned char* x,     \
                                  R* r, M lane_mask, V v) noexcept {                  \
    split_reduce(b, m, x, r, lane_mask, v, [](R a, R b) -> R { return expr; });              \
  }
__HK_SPLIT_REDUCE(add, a + b)
__HK_SPLIT_REDUCE(min, b < a ? b : a)
__HK_SPLIT_REDUCE(max, a < b ? b : a)
__HK_SPLIT_REDUCE(and, a & b)
__HK_SPLIT_REDUCE(or, a | b)
__HK_SPLIT_REDUCE(xor, a ^ b)
#undef __HK_SPLIT_REDUCE

}  // namespace __hk

#endif  // HIPKIT_CPU_EXEC_WARP_MATCH_H
