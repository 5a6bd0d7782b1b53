// hipkit CPU platform: support for the block functions that hipkit's source
// transform generates (hipkit/platforms/cpu/transform.py and split.py).
// Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_H
#define HIPKIT_CPU_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <new>
#include <type_traits>
#include <utility>

#include "abi.h"

namespace __hk {

// The block being run, read once from the worker's context.
struct block {
  hk_block_context* ctx;
  int n;  // threads in the block; 0 when the runtime queries attributes
  const hk_index3* tids;
  int bx, by, bz;

  __attribute__((always_inline)) block() noexcept
      : ctx(__hk_block),
        n(static_cast<int>(ctx->nthreads)),
        tids(ctx->thread_ids),
        bx(n ? static_cast<int>(::blockDim.x) : 0),
        by(n ? static_cast<int>(::blockDim.y) : 0),
        bz(n ? static_cast<int>(::blockDim.z) : 0) {
    // Facts the launch checks guarantee; they let the compiler prove index
    // arithmetic does not wrap, and so vectorize loops over threads.
    if (n > 1024 || bx > 1024 || by > 1024 || bz > 1024) __builtin_unreachable();
  }

  hk_index3 tid(unsigned t) const noexcept { return tids[t]; }
  void note_shared(size_t bytes) const noexcept {
    if (n == 0) ctx->static_shared_bytes += static_cast<uint32_t>(bytes);
  }
  void note_launch_bounds(unsigned max_threads) const noexcept {
    if (n == 0) ctx->max_threads_per_block = max_threads;
  }
};

// Runs body(std::true_type, blockIdx, blockDim, gridDim) for blocks whose
// blockIdx.x < 2^21 (then blockIdx.x * blockDim.x + threadIdx.x fits in an int
// and loops over threads vectorize), and body(std::false_type, ...) for the
// others: two instantiations of one body.  The coordinates are passed by value
// so that the compiler keeps them in registers and knows their ranges.
template <class Body>
__attribute__((always_inline)) inline void specialize(Body&& body) {
  const hk_index3 block_idx = ::blockIdx, block_dim = ::blockDim, grid_dim = ::gridDim;
  if (block_idx.x < (1u << 21)) {
    body(std::true_type{}, block_idx, block_dim, grid_dim);
  } else {
    body(std::false_type{}, block_idx, block_dim, grid_dim);
  }
}

// What the launch checks guarantee, told to the compiler inside the body.
__attribute__((always_inline)) inline void assume_launch_limits(const hk_index3& block_idx,
                                                                const hk_index3& block_dim,
                                                                const hk_index3& grid_dim) {
  if (block_idx.y > 65535u || block_idx.z > 65535u || grid_dim.y > 65535u || grid_dim.z > 65535u ||
      block_dim.x > 1024u || block_dim.y > 1024u || block_dim.z > 1024u)
    __builtin_unreachable();
}

__attribute__((always_inline)) inline void* scratch(hk_block_context* c, size_t bytes,
                                                    size_t align) noexcept {
  uintptr_t p = (reinterpret_cast<uintptr_t>(c->scratch_cur) + align - 1) & ~(uintptr_t)(align - 1);
  if (p + bytes <= reinterpret_cast<uintptr_t>(c->scratch_end)) {
    c->scratch_cur = reinterpret_cast<unsigned char*>(p + bytes);
    return reinterpret_cast<void*>(p);
  }
  return __hk_scratch_alloc_slow(bytes, align);
}

// Per-thread storage for a variable that lives across a barrier (none in
// query mode, when no thread runs).
template <class T>
__attribute__((always_inline)) inline T* per_thread(const block& b) noexcept {
  if (!b.n) return nullptr;
  return static_cast<T*>(scratch(b.ctx, sizeof(T) * b.n, alignof(T)));
}

// Initializes a per-thread slot as `T name(args)` would.  Scalars are assigned:
// a placement new checks for a null address, which keeps loops over threads
// from vectorizing.
template <class T, class... A>
__attribute__((always_inline)) inline void construct(T& slot, A&&... args) {
  if constexpr (std::is_scalar_v<T> && sizeof...(A) == 1) {
    const_cast<std::remove_const_t<T>&>(slot) = T(static_cast<A&&>(args)...);
  } else {
    ::new (const_cast<void*>(static_cast<const void*>(&slot))) T(static_cast<A&&>(args)...);
  }
}

// Scratch allocated inside a scope (a loop body) is released at its end.
struct scratch_mark {
  hk_block_context* ctx;
  unsigned char* cur;
  unsigned char* end;
  explicit scratch_mark(const block& b) noexcept
      : ctx(b.ctx), cur(b.ctx->scratch_cur), end(b.ctx->scratch_end) {}
  ~scratch_mark() {
    ctx->scratch_cur = cur;
    ctx->scratch_end = end;
  }
  scratch_mark(const scratch_mark&) = delete;
  scratch_mark& operator=(const scratch_mark&) = delete;
};

inline unsigned char* zeroed_bytes(const block& b) noexcept {
  unsigned char* m = per_thread<unsigned char>(b);
  if (m) memset(m, 0, static_cast<size_t>(b.n));
  return m;
}

// The threads taking part in a construct of a split kernel (a branch, a loop
// whose condition differs between threads): on[t], and the range [lo, hi)
// outside which no thread takes part, so that regions skip idle warps.
struct mask {
  unsigned char* on;
  int lo, hi;
  int count;  // threads set; count == hi - lo: every thread of the range
  __attribute__((always_inline)) void set(int t) noexcept {
    on[t] = 1;
    lo = t < lo ? t : lo;
    hi = t >= hi ? t + 1 : hi;
    ++count;
  }
  __attribute__((always_inline)) void clear(int t) noexcept {
    count -= on[t];
    on[t] = 0;
  }
  // Sets lo, hi and count from on[], after a loop that wrote on[t] directly
  // (plain stores vectorize; set() does not).
  void finish(const block& b) noexcept {
    int first = b.n, last = 0, n = 0;
    for (int t = 0; t < b.n; ++t) {
      first = on[t] && t < first ? t : first;
      last = on[t] ? t + 1 : last;
      n += on[t];
    }
    lo = first, hi = last, count = n;
  }
  // Every thread in [lo, hi) takes part and threadIdx.x is the thread index:
  // a region can run as a plain loop over the range.
  __attribute__((always_inline)) bool dense_1d(const block& b) const noexcept {
    return count == hi - lo && b.by == 1 && b.bz == 1;
  }
};

inline mask empty_mask(const block& b) noexcept { return mask{zeroed_bytes(b), b.n, 0, 0}; }

__attribute__((always_inline)) inline bool active(const unsigned char* on,
                                                  const unsigned char* exits,
                                                  int t) noexcept {
  return (!on || on[t]) && (!exits || !exits[t]);
}

// The threads taking part in a loop: those of `parent` (all if null) that
// have not left through return/break/continue.
inline mask active_mask(const block& b, const mask* parent, const unsigned char* exits) noexcept {
  mask m = empty_mask(b);
  for (int t = parent ? parent->lo : 0; t < (parent ? parent->hi : b.n); ++t)
    if (active(parent ? parent->on : nullptr, exits, t)) m.set(t);
  return m;
}

// Exit codes written by regions: 1 return, 2 break, 3 continue.  At the end
// of a loop iteration, break leaves the loop's mask and continue is over;
// returns whether any thread goes on looping.
inline bool loop_exits(const block& b, mask& loop_mask, unsigned char* exits) noexcept {
  bool any = false;
  for (int t = 0; t < b.n; ++t) {
    if (exits[t] == 2) {
      loop_mask.clear(t);
      exits[t] = 0;
    } else if (exits[t] == 3) {
      exits[t] = 0;
    }
    any |= loop_mask.on[t] && !exits[t];
  }
  return any;
}

// ---- Warp and block operations of split kernels ---------------------------
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

// ---- Atomics on a block's own shared memory --------------------------------
// The threads of one block never run at the same time on the CPU (loops, or
// cooperative fibers) and no other block sees its shared memory, so an atomic
// on it needs no atomic instruction.  The transform wraps such pointers
// (&s[i] of a __shared__ array of the kernel) in local(); these overloads then
// do exactly what the atomics of device_atomics.h do, with plain loads/stores.
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

namespace __hk {

// ---- Fibers ---------------------------------------------------------------

// Runs thread(t) for every thread of the block on its own fiber; each fiber
// works on its own copy of the closure (the kernel's parameters are per thread).
template <class F>
inline void run_fibers(F& thread) {
  struct trampoline {
    static void call(void* closure, unsigned int t) {
      F copy = *static_cast<F*>(closure);
      copy(t);
    }
  };
  __hk_run_fibers(&trampoline::call, &thread);
}

// ---- extern __shared__ at namespace scope -----------------------------------

// Stands for an array of unknown bound in the block's dynamic shared memory.
template <class T>
struct dyn_shared {
  T* get() const noexcept { return static_cast<T*>(__hk_block->dynamic_shared); }
  template <class U>
  operator U*() const noexcept {
    return reinterpret_cast<U*>(get());
  }
  T& operator[](ptrdiff_t i) const noexcept { return get()[i]; }
  T* operator+(ptrdiff_t i) const noexcept { return get() + i; }
  T& operator*() const noexcept { return *get(); }
};

// ---- Device assert ----------------------------------------------------------

// assert() in a kernel body: threadIdx there is a local of the thread loop, so
// store it where the runtime's report looks.
[[noreturn]] inline void kernel_assert_fail(const hk_index3& thread, const char* expr,
                                            const char* file, unsigned int line,
                                            const char* function) {
  ::threadIdx = thread;
  __hk_assert_fail(expr, file, line, function);
}

// ---- Kernel descriptors ------------------------------------------------------

template <class T>
constexpr uint32_t param_kind() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_pointer_v<U> || std::is_null_pointer_v<U>) {
    return HK_PARAM_POINTER;
  } else if constexpr (std::is_enum_v<U>) {
    return std::is_signed_v<std::underlying_type_t<U>> ? HK_PARAM_SIGNED : HK_PARAM_UNSIGNED;
  } else if constexpr (std::is_same_v<U, bool>) {
    return HK_PARAM_UNSIGNED;
  } else if constexpr (std::is_integral_v<U>) {
    return std::is_signed_v<U> ? HK_PARAM_SIGNED : HK_PARAM_UNSIGNED;
  } else if constexpr (std::is_floating_point_v<U> || std::is_same_v<U, __half>) {
    return HK_PARAM_FLOAT;
  } else {
    return HK_PARAM_OTHER;
  }
}

template <class Signature>
struct kernel_signature;

template <class... P>
struct kernel_signature<void (*)(P...)> {
  static constexpr uint32_t count = sizeof...(P);
  static constexpr hk_param_desc params[sizeof...(P) ? sizeof...(P) : 1] = {
      {static_cast<uint32_t>(sizeof(P)), static_cast<uint32_t>(alignof(P)), param_kind<P>()}...};

  template <auto F, size_t... I>
  static void call(void** args, std::index_sequence<I...>) {
    F(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(args[I])...);
  }
};

template <auto F>
struct kernel_entry {
  using signature = kernel_signature<decltype(F)>;
  static void entry(void** args) {
    signature::template call<F>(args, std::make_index_sequence<signature::count>{});
  }
  static hk_kernel_desc describe(const char* name, uint32_t mode) {
    return hk_kernel_desc{name,    reinterpret_cast<const void*>(F), &entry, mode,
                          signature::count, signature::params};
  }
};

}  // namespace __hk

#endif  // HIPKIT_CPU_EXEC_H
