// hipkit CPU platform, the block executor (exec.h): which threads of a split
// kernel take part in a construct (masks), and the exit codes of those that
// left it through return, break or continue.
// Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_MASK_H
#define HIPKIT_CPU_EXEC_MASK_H

#include "exec_block.h"

namespace __hk {

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
  // (plain stores vectorize; set() does not).  Written as plain min and max
  // reductions, which vectorize on AVX2 as on AVX-512 (a conditional "last
  // index" does not).
  void finish(const block& b) noexcept {
    int first = b.n, last = 0, n = 0;
    for (int t = 0; t < b.n; ++t) {
      const int s = on[t];
      const int f = s ? t : b.n, l = s ? t + 1 : 0;
      first = f < first ? f : first;
      last = l > last ? l : last;
      n += s;
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

}  // namespace __hk

#endif  // HIPKIT_CPU_EXEC_MASK_H
