// hipkit CPU platform, the block executor (exec.h): a loop of shuffles that folds
// a variable into itself, `for (int d = warpSize / 2; d > 0; d >>= 1) v += __shfl_down(v, d);`,
// with its rounds done over each warp in vector registers, as a GPU's warp does
// them.  One pass over the block per round (split_shift_apply) loads and stores
// every lane each round; here a warp is loaded once, each round is a permute
// (a constant one for each power-of-two delta) and an operation per vector, and
// the warp is stored once.
// Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_WARP_ROUNDS_H
#define HIPKIT_CPU_EXEC_WARP_ROUNDS_H

#include <type_traits>
#include <utility>

#include "exec_warp_ops.h"

namespace __hk {

// The target's vector registers, in bytes (0: none that this code uses).
#if defined(__AVX512F__)
inline constexpr int vector_bytes = 64;
#elif defined(__AVX__)
inline constexpr int vector_bytes = 32;
#elif defined(__SSE2__) || defined(__ARM_NEON)
inline constexpr int vector_bytes = 16;
#else
inline constexpr int vector_bytes = 0;
#endif

// A warp of V in R vector registers of L lanes.  At most 8 registers, so that the
// warp and a round's temporaries fit in AVX2's 16 (a double warp of 64 does not:
// it takes the passes).
template <class V>
struct warp_vectors {
  static constexpr int L = vector_bytes ? vector_bytes / static_cast<int>(sizeof(V)) : 1;
  static constexpr int R = warpSize / L;
  static constexpr bool fits = vector_bytes != 0 && std::is_arithmetic_v<V> && !std::is_same_v<V, bool> &&
                               (sizeof(V) == 4 || sizeof(V) == 8) && warpSize % L == 0 && R <= 8;
  using I = std::conditional_t<sizeof(V) == 4, int, long long>;
  typedef V vec __attribute__((vector_size(vector_bytes ? vector_bytes : sizeof(V))));
  typedef I ivec __attribute__((vector_size(vector_bytes ? vector_bytes : sizeof(V))));
  // The same vector at V's own alignment: a warp's values in per-thread storage.
  typedef V loose __attribute__((vector_size(vector_bytes ? vector_bytes : sizeof(V)), aligned(alignof(V)),
                                 may_alias));

  template <int S, int... K>
  static constexpr ivec iota(std::integer_sequence<int, K...>) noexcept {
    return ivec{static_cast<I>(K + S)...};
  }
  template <int S>
  static constexpr ivec iota() noexcept {
    return iota<S>(std::make_integer_sequence<int, L>{});
  }

  // One round down by D: lane l takes op(own, lane l + D), or op(own, own) where
  // l + D lies past the warp (HIP gives a lane its own value then).  In place,
  // vector by vector upwards: each vector's sources are itself and those above.
  template <int D, class Op>
  __attribute__((always_inline)) static void down(vec (&r)[R], Op op) noexcept {
    constexpr int q = D / L, s = D % L;
    for (int j = 0; j < R; ++j) {
      const vec a = j + q < R ? r[j + q] : r[j];
      vec ahead = a;
      if constexpr (s != 0) {
        const vec c = j + q + 1 < R ? r[j + q + 1] : r[j];
        ahead = __builtin_shuffle(a, c, iota<s>());
      }
      ahead = iota<0>() + static_cast<I>(j * L + D) < static_cast<I>(warpSize) ? ahead : r[j];
      r[j] = op(r[j], ahead);
    }
  }

  // A round of any delta in [0, warpSize]: a power of two through its permute,
  // another through memory.
  template <int D = 1, class Op>
  __attribute__((always_inline)) static void round(vec (&r)[R], int delta, Op op) noexcept {
    if constexpr (D < warpSize) {
      if (delta == D) return down<D>(r, op);
      return round<D * 2>(r, delta, op);
    } else {
      alignas(vector_bytes ? vector_bytes : alignof(V)) V lanes[warpSize], out[warpSize];
      __builtin_memcpy(lanes, r, sizeof lanes);
      for (int l = 0; l < warpSize; ++l) {
        const V own = lanes[l];
        out[l] = static_cast<V>(op(own, l + delta < warpSize ? lanes[l + delta] : own));
      }
      __builtin_memcpy(r, out, sizeof out);
    }
  }
};

// The loop's rounds on v (the variable's per-thread array): `loop(round)` runs the
// loop's header, calling round(delta) where the loop's statement shuffles; `f(t, r)`
// is the statement for thread t with r its shuffled value, and `op(a, b)` the same
// operation on numbers and on vectors.  Whole warps of a block every thread of which
// takes part go through registers, warp by warp; any other block takes one pass
// over its threads a round, as the statement alone would.  Always inlined: called,
// it would take the block's address through its closures, and every byte store of
// the kernel's masks could then alias the block's sizes (no loop over threads
// would vectorize).
template <class V, class Loop, class F, class Op>
__attribute__((always_inline)) inline void split_shift_rounds(const block& b, const mask* m,
                                                              const unsigned char* x, V* v, Loop loop,
                                                              F f, Op op) {
  using W = warp_vectors<V>;
  if constexpr (W::fits) {
    const bool whole = !x && b.n % warpSize == 0 &&
                       (!m || (m->count == m->hi - m->lo && m->lo % warpSize == 0 && m->hi % warpSize == 0));
    if (whole) {
      for (int w = m ? m->lo : 0, end = m ? m->hi : b.n; w < end; w += warpSize) {
        typename W::vec r[W::R];
        for (int j = 0; j < W::R; ++j) r[j] = *reinterpret_cast<const typename W::loose*>(v + w + j * W::L);
        loop([&](int delta) __attribute__((always_inline)) { W::round(r, delta, op); });
        for (int j = 0; j < W::R; ++j) *reinterpret_cast<typename W::loose*>(v + w + j * W::L) = r[j];
      }
      return;
    }
  }
  loop([&](int delta) __attribute__((always_inline)) { split_shift_apply(b, m, x, v, delta, f); });
}

}  // namespace __hk

#endif  // HIPKIT_CPU_EXEC_WARP_ROUNDS_H
