// hipkit CPU platform, the block executor (exec.h): the warp and block
// operations of split kernels (shuffles, votes, __syncthreads_count/and/or),
// computed lane by lane over arguments every thread has already evaluated.
// Included after device.h: warpSize, and the source lanes of device_warp.h.
// Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_WARP_OPS_H
#define HIPKIT_CPU_EXEC_WARP_OPS_H

#include <type_traits>

#include "exec_mask.h"

namespace __hk {

// r[t] is the result for thread t.  Arguments are per-thread arrays, or
// same<T> when every thread passes the same value (a uniform expression).
// m is the mask of the construct (null: every thread), x the exit codes
// (null if the kernel has no return/break/continue).

__attribute__((always_inline)) inline const unsigned char* on_of(const mask* m) noexcept {
  return m ? m->on : nullptr;
}
__attribute__((always_inline)) inline int range_lo(const mask* m) noexcept { return m ? m->lo : 0; }
__attribute__((always_inline)) inline int range_hi(const block& b, const mask* m) noexcept {
  return m ? m->hi : b.n;
}
inline int warp_activity_exits(const unsigned char* x, int w, int lanes) noexcept {
  int count = 0;
  for (int t = w; t < w + lanes; ++t) count += !x[t];
  return count == lanes ? 2 : count != 0;
}

template <class T>
struct same {
  T value;
  __attribute__((always_inline)) T operator[](int) const noexcept { return value; }
};
template <class A>
struct is_same_arg : std::false_type {};
template <class T>
struct is_same_arg<same<T>> : std::true_type {};

// r[t] = v[source lane of t within its warp], or v[t] if that lane does not
// take part (HIP returns the caller's own value then).
template <class R, class V, class Lane>
inline void split_exchange(const block& b, const mask* m, const unsigned char* x, R* r,
                           const V* v, Lane source_lane) noexcept {
  const int W = warpSize;
  if (!m && !x) {
    for (int t = 0; t < b.n; ++t) {
      int lane = t % W;
      int src = t - lane + source_lane(t, lane);
      r[t] = static_cast<R>(src < b.n ? v[src] : v[t]);
    }
    return;
  }
  for (int t = range_lo(m), end = range_hi(b, m); t < end; ++t) {
    if (!active(on_of(m), x, t)) continue;
    int lane = t % W;
    int src = t - lane + source_lane(t, lane);
    r[t] = static_cast<R>((src < b.n && active(on_of(m), x, src)) ? v[src] : v[t]);
  }
}

template <class Width>
__attribute__((always_inline)) inline int width_of(const Width& width, int t) noexcept {
  return static_cast<int>(width[t]);
}

template <class R, class V, class S, class Width = same<int>>
inline void split_shfl(const block& b, const mask* m, const unsigned char* x, R* r,
                       const V* v, S src, Width width = {warpSize}) noexcept {
  split_exchange(b, m, x, r, v, [&](int t, int lane) {
    return shfl_src_lane(lane, static_cast<int>(src[t]), width_of(width, t));
  });
}

// Lanes [w, w + lanes) form a warp.  Shuffle by a uniform delta (positive:
// down, negative: up) when every lane takes part: two contiguous copies.
template <class R, class V>
__attribute__((always_inline)) inline void shift_warp(R* r, const V* v, int w, int lanes,
                                                      int delta) noexcept {
  if (delta >= 0) {
    int moved = lanes - delta > 0 ? lanes - delta : 0;
    for (int lane = 0; lane < moved; ++lane) r[w + lane] = static_cast<R>(v[w + lane + delta]);
    for (int lane = moved; lane < lanes; ++lane) r[w + lane] = static_cast<R>(v[w + lane]);
  } else {
    int kept = -delta < lanes ? -delta : lanes;
    for (int lane = 0; lane < kept; ++lane) r[w + lane] = static_cast<R>(v[w + lane]);
    for (int lane = kept; lane < lanes; ++lane) r[w + lane] = static_cast<R>(v[w + lane + delta]);
  }
}

// 2 if every lane of the warp at w takes part, 0 if none, 1 if some.
inline int warp_activity(const mask* m, const unsigned char* x, int w, int lanes) noexcept {
  if (!x && m->count == m->hi - m->lo && m->lo <= w && w + lanes <= m->hi) return 2;  // dense
  int count = 0;
  for (int t = w; t < w + lanes; ++t) count += active(on_of(m), x, t);
  return count == lanes ? 2 : count != 0;
}

// A shuffle by a uniform delta fused with the statement that uses it:
// f(t, value of t's source lane) for the threads taking part.  `v` is the
// shuffled variable's per-thread array and f may update v[t]: going down the
// lanes for a positive delta (up for a negative one), each source is read
// before its own lane's f runs.
template <class V, class F>
inline void split_shift_apply(const block& b, const mask* m, const unsigned char* x, const V* v,
                              int delta, F f) {
  const int W = warpSize;
  if (!m && !x && delta >= 0) {
    // Every thread takes part: the whole block in one pass, a lane whose
    // source lies past its warp (or past the block) taking its own value; one
    // loop the compiler vectorizes, not two short ones per warp.
    const int inside = b.n - delta > 0 ? b.n - delta : 0;
#pragma GCC ivdep
    for (int t = 0; t < inside; ++t) {
      const V ahead = v[t + delta], own = v[t];  // both read: a blend, not a masked load
      f(t, static_cast<unsigned>(t) % static_cast<unsigned>(W) + delta < static_cast<unsigned>(W) ? ahead : own);
    }
#pragma GCC ivdep
    for (int t = inside; t < b.n; ++t) f(t, v[t]);
    return;
  }
  for (int w = range_lo(m) / W * W, last = range_hi(b, m); w < last; w += W) {
    const int lanes = b.n - w < W ? b.n - w : W;
    const int activity = (!m && !x) ? 2 : !m ? warp_activity_exits(x, w, lanes) : warp_activity(m, x, w, lanes);
    if (activity == 0) continue;
    if (activity == 1) {  // some lanes: an inactive source gives the lane its own value
      const unsigned char* on = on_of(m);
      for (int i = 0; i < lanes; ++i) {
        const int t = delta >= 0 ? w + i : w + lanes - 1 - i;
        if (!active(on, x, t)) continue;
        const int src = t + delta;
        f(t, (src >= w && src < w + lanes && active(on, x, src)) ? v[src] : v[t]);
      }
      continue;
    }
    // A vector of lanes reads its sources before writing, and no source lies
    // behind the lanes already written: vector order is as correct as lane order.
    if (delta >= 0) {
      const int moved = lanes - delta > 0 ? lanes - delta : 0;
#pragma GCC ivdep
      for (int t = w; t < w + moved; ++t) f(t, v[t + delta]);
#pragma GCC ivdep
      for (int t = w + moved; t < w + lanes; ++t) f(t, v[t]);
    } else {
      const int kept = -delta < lanes ? -delta : lanes;
#pragma GCC ivdep
      for (int t = w + lanes - 1; t >= w + kept; --t) f(t, v[t + delta]);
#pragma GCC ivdep
      for (int t = w + kept - 1; t >= w; --t) f(t, v[t]);
    }
  }
}

// The delta is an unsigned int in HIP: beyond the warp, every lane keeps its value.
template <class D>
__attribute__((always_inline)) inline int clamp_delta(D delta) noexcept {
  unsigned d = static_cast<unsigned>(delta);
  return d > static_cast<unsigned>(warpSize) ? warpSize : static_cast<int>(d);
}

// __shfl_down / __shfl_up by the same delta in every thread, full width.
template <class R, class V>
inline void split_shift(const block& b, const mask* m, const unsigned char* x, R* r,
                        const V* v, int delta) noexcept {
  const int W = warpSize;
  for (int w = range_lo(m) / W * W, end = range_hi(b, m); w < end; w += W) {
    int lanes = b.n - w < W ? b.n - w : W;
    int activity = (!m && !x) ? 2 : !m ? warp_activity_exits(x, w, lanes) : warp_activity(m, x, w, lanes);
    if (activity == 2) {
      shift_warp(r, v, w, lanes, delta);
    } else if (activity == 1) {
      for (int t = w; t < w + lanes; ++t) {
        if (!active(on_of(m), x, t)) continue;
        int src = t + delta;
        bool inside = src >= w && src < w + lanes && active(on_of(m), x, src);
        r[t] = static_cast<R>(inside ? v[src] : v[t]);
      }
    }
  }
}

template <class R, class V, class D, class Width = same<int>>
inline void split_shfl_down(const block& b, const mask* m, const unsigned char* x, R* r,
                            const V* v, D delta, Width width = {warpSize}) noexcept {
  if constexpr (is_same_arg<D>::value && is_same_arg<Width>::value) {
    if (width.value == warpSize) {
      split_shift(b, m, x, r, v, clamp_delta(delta.value));
      return;
    }
  }
  split_exchange(b, m, x, r, v, [&](int t, int lane) {
    return shfl_down_src_lane(lane, static_cast<unsigned>(delta[t]), width_of(width, t));
  });
}

template <class R, class V, class D, class Width = same<int>>
inline void split_shfl_up(const block& b, const mask* m, const unsigned char* x, R* r,
                          const V* v, D delta, Width width = {warpSize}) noexcept {
  if constexpr (is_same_arg<D>::value && is_same_arg<Width>::value) {
    if (width.value == warpSize) {
      split_shift(b, m, x, r, v, -clamp_delta(delta.value));
      return;
    }
  }
  split_exchange(b, m, x, r, v, [&](int t, int lane) {
    return shfl_up_src_lane(lane, static_cast<unsigned>(delta[t]), width_of(width, t));
  });
}

template <class R, class V, class M, class Width = same<int>>
inline void split_shfl_xor(const block& b, const mask* m, const unsigned char* x, R* r,
                           const V* v, M mask, Width width = {warpSize}) noexcept {
  split_exchange(b, m, x, r, v, [&](int t, int lane) {
    return shfl_xor_src_lane(lane, static_cast<int>(mask[t]), width_of(width, t));
  });
}

// Per warp: the lanes taking part, and those among them whose predicate holds.
template <class P, class Out>
inline void split_warp_vote(const block& b, const mask* m, const unsigned char* x,
                            const P& pred, bool has_pred, Out out) noexcept {
  const int W = warpSize;
  for (int w = range_lo(m) / W * W, last = range_hi(b, m); w < last; w += W) {
    unsigned long long members = 0, votes = 0;
    int end = w + W < b.n ? w + W : b.n;
    for (int t = w; t < end; ++t) {
      if (!active(on_of(m), x, t)) continue;
      members |= 1ull << (t - w);
      if (!has_pred || pred[t]) votes |= 1ull << (t - w);
    }
    for (int t = w; t < end; ++t)
      if (active(on_of(m), x, t)) out(t, members, votes);
  }
}

template <class R, class P>
inline void split_ballot(const block& b, const mask* m, const unsigned char* x, R* r,
                         P pred) noexcept {
  split_warp_vote(b, m, x, pred, true, [&](int t, unsigned long long, unsigned long long votes) {
    r[t] = static_cast<R>(votes);
  });
}
template <class R, class P>
inline void split_any(const block& b, const mask* m, const unsigned char* x, R* r,
                      P pred) noexcept {
  split_warp_vote(b, m, x, pred, true, [&](int t, unsigned long long, unsigned long long votes) {
    r[t] = static_cast<R>(votes != 0);
  });
}
template <class R, class P>
inline void split_all(const block& b, const mask* m, const unsigned char* x, R* r,
                      P pred) noexcept {
  split_warp_vote(b, m, x, pred, true,
                  [&](int t, unsigned long long members, unsigned long long votes) {
                    r[t] = static_cast<R>(votes == members);
                  });
}
template <class R>
inline void split_activemask(const block& b, const mask* m, const unsigned char* x,
                             R* r) noexcept {
  split_warp_vote(b, m, x, same<int>{1}, false,
                  [&](int t, unsigned long long members, unsigned long long) {
                    r[t] = static_cast<R>(members);
                  });
}

// __lanemask_lt / __lanemask_gt: the lanes taking part below / above the caller.
template <class R>
inline void split_lanemask_lt(const block& b, const mask* m, const unsigned char* x,
                              R* r) noexcept {
  split_warp_vote(b, m, x, same<int>{1}, false,
                  [&](int t, unsigned long long members, unsigned long long) {
                    r[t] = static_cast<R>(members & ((1ull << (t % warpSize)) - 1));
                  });
}
template <class R>
inline void split_lanemask_gt(const block& b, const mask* m, const unsigned char* x,
                              R* r) noexcept {
  split_warp_vote(b, m, x, same<int>{1}, false,
                  [&](int t, unsigned long long members, unsigned long long) {
                    r[t] = static_cast<R>(members & ~((2ull << (t % warpSize)) - 1));
                  });
}

template <class R, class P, class Op>
inline void split_block_reduce(const block& b, const mask* m, const unsigned char* x,
                               R* r, const P& pred, Op op) noexcept {
  unsigned total = 0, set = 0;
  for (int t = range_lo(m), end = range_hi(b, m); t < end; ++t) {
    if (!active(on_of(m), x, t)) continue;
    ++total;
    set += pred[t] != 0;
  }
  R value = static_cast<R>(op(set, total));
  for (int t = range_lo(m), end = range_hi(b, m); t < end; ++t)
    if (active(on_of(m), x, t)) r[t] = value;
}
template <class R, class P>
inline void split_block_count(const block& b, const mask* m, const unsigned char* x,
                              R* r, P pred) noexcept {
  split_block_reduce(b, m, x, r, pred, [](unsigned set, unsigned) { return set; });
}
template <class R, class P>
inline void split_block_and(const block& b, const mask* m, const unsigned char* x,
                            R* r, P pred) noexcept {
  split_block_reduce(b, m, x, r, pred, [](unsigned set, unsigned all) { return set == all; });
}
template <class R, class P>
inline void split_block_or(const block& b, const mask* m, const unsigned char* x,
                           R* r, P pred) noexcept {
  split_block_reduce(b, m, x, r, pred, [](unsigned set, unsigned) { return set != 0; });
}

}  // namespace __hk

#include "exec_warp_match.h"

#endif  // HIPKIT_CPU_EXEC_WARP_OPS_H
