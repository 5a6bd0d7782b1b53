// hipkit CPU platform, the block executor (exec.h): the threads of a 1-D block
// that a region's `if` selects when its condition constrains threadIdx.x
// alone (transform/thread_sets.py), so that the region loops over just them.
// Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_THREAD_SET_H
#define HIPKIT_CPU_EXEC_THREAD_SET_H

#include <type_traits>

#include "exec_block.h"

namespace __hk {

// Threads lo, lo + step, ... below hi; step 0: not proved (run every thread).
struct thread_set {
  int lo, hi, step;
};

// A conjunct `X op K`, K the same in every thread, X the thread's x index as a
// variable holds it (x_at) and initialized with threadIdx.x (init_at): true on
// a prefix of the block's threads (op < or <=) or a suffix (op > or >=).
enum class comparison { less, less_equal, greater, greater_equal };
template <class XAt, class IAt, class P, class K>
struct monotone_conjunct {
  XAt x_at;
  IAt init_at;
  P holds;
  K k;
  comparison op;
};
template <class XAt, class IAt, class P, class K>
monotone_conjunct<XAt, IAt, P, K> compare(XAt x, IAt i, P p, K k, comparison op) {
  return {x, i, p, k, op};
}

// A conjunct `X == K`, X = threadIdx.x % C as a variable holds it.
template <class XAt, class P, class C, class K>
struct residue_conjunct {
  XAt x_at;
  P holds;
  C c;
  K k;
};
template <class XAt, class P, class C, class K>
residue_conjunct<XAt, P, C, K> residue(XAt x, P p, C c, K k) {
  return {x, p, c, k};
}

__attribute__((always_inline)) inline hk_index3 thread_x(int t) noexcept {
  return hk_index3{static_cast<unsigned>(t), 0, 0};
}

// The first thread (of n) for which `t op k` differs from its value at thread
// 0, for an integer k, the comparison made in the type the code makes it in
// (k negative compared with an unsigned index is a large number, say).
template <class X, class K>
int boundary(int n, K k, comparison op) {
  using T = decltype(X{} + K{});
  const T v = static_cast<T>(k), zero = T(0), top = static_cast<T>(n - 1);
  switch (op) {
    case comparison::less:  // t < v on [0, v)
    case comparison::greater_equal:  // t >= v from v
      return v <= zero ? 0 : v > top ? n : static_cast<int>(v);
    default:  // t <= v on [0, v], t > v from v + 1
      return v < zero ? 0 : v >= top ? n : static_cast<int>(v) + 1;
  }
}

// X is threadIdx.x itself when its variable holds the last thread's index
// exactly (a narrower type would not); the comparison, of an index that grows
// by one per thread with one value, then changes once over the block.  Where K
// is not an integer, a binary search of the comparison itself finds where.
template <class XAt, class IAt, class P, class K>
bool narrow(thread_set& s, const block& b, const monotone_conjunct<XAt, IAt, P, K>& c) {
  using X = decltype(c.x_at(hk_index3{}));
  if constexpr (!std::is_integral_v<X> || std::is_same_v<X, bool> || !std::is_arithmetic_v<K>) {
    return false;
  } else {
    const hk_index3 last = thread_x(b.n - 1);
    if (static_cast<long long>(c.x_at(last)) != static_cast<long long>(c.init_at(last))) return false;
    const bool prefix = c.op == comparison::less || c.op == comparison::less_equal;
    int edge;
    if constexpr (std::is_integral_v<K>) {
      edge = boundary<X>(b.n, c.k, c.op);
    } else {
      int lo = 0, hi = b.n;
      while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (static_cast<bool>(c.holds(thread_x(mid))) == prefix)
          lo = mid + 1;
        else
          hi = mid;
      }
      edge = lo;
    }
    if (prefix)
      s.hi = edge < s.hi ? edge : s.hi;
    else
      s.lo = edge > s.lo ? edge : s.lo;
    return true;
  }
}
template <class T>
bool narrow(thread_set&, const block&, const T&) {
  return true;  // a residue: narrowed after the ranges
}

// Every C-th thread from K, for 0 <= K < C, when X holds threadIdx.x % C exactly.
template <class XAt, class P, class C, class K>
bool narrow_residue(thread_set& s, const block& b, const residue_conjunct<XAt, P, C, K>& r) {
  using X = decltype(r.x_at(hk_index3{}));
  if constexpr (!std::is_integral_v<X> || std::is_same_v<X, bool> || !std::is_integral_v<C> ||
                !std::is_integral_v<K>) {
    return false;
  } else {
    if (s.step != 1 || !(r.c > C(0)) || r.c > C(1 << 20)) return false;  // one residue, a modulus C > 0
    if constexpr (std::is_signed_v<K>) {
      if (r.k < K(0)) return false;
    }
    const long long c = static_cast<long long>(r.c), k = static_cast<long long>(r.k);
    if (k >= c) return false;
    const int probe = static_cast<int>((c < b.n ? c : b.n) - 1);
    if (static_cast<long long>(r.x_at(thread_x(probe))) != probe) return false;
    const long long first = s.lo + ((k - s.lo % c) % c + c) % c;
    if (first < s.hi && !r.holds(thread_x(static_cast<int>(first)))) return false;
    s.lo = static_cast<int>(first < s.hi ? first : s.hi);
    s.step = static_cast<int>(c);
    return true;
  }
}
template <class T>
bool narrow_residue(thread_set&, const block&, const T&) {
  return true;
}

// The threads for which every conjunct holds, or step 0.
template <class... Conjuncts>
thread_set thread_set_of(const block& b, const Conjuncts&... conjuncts) {
  thread_set s{0, b.n, 1};
  const thread_set every{0, b.n, 0};
  if (b.n == 0 || b.by != 1 || b.bz != 1) return every;
  if (!(narrow(s, b, conjuncts) && ...) || !(narrow_residue(s, b, conjuncts) && ...)) return every;
  if (s.hi < s.lo) s.hi = s.lo;
  return s;
}

// The same among the threads of a mask, when they are a range of a 1-D block (a
// branch's warp, say), or step 0.
template <class... Conjuncts>
thread_set thread_set_in(const block& b, const mask& m, const Conjuncts&... conjuncts) {
  if (!m.dense_1d(b)) return thread_set{0, b.n, 0};
  thread_set s = thread_set_of(b, conjuncts...);
  if (s.step == 0) return s;
  if (m.lo > s.lo) s.lo += (m.lo - s.lo + s.step - 1) / s.step * s.step;
  if (m.hi < s.hi) s.hi = m.hi;
  if (s.hi < s.lo) s.hi = s.lo;
  return s;
}

}  // namespace __hk

#endif  // HIPKIT_CPU_EXEC_THREAD_SET_H
