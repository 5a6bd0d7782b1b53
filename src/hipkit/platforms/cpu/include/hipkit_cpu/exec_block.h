// hipkit CPU platform, the block executor (exec.h): the block a block
// function runs, what the launch guarantees about it, and its scratch memory,
// where variables that live across a barrier keep one value per thread.
// Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_BLOCK_H
#define HIPKIT_CPU_EXEC_BLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <new>
#include <type_traits>

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

// u + t and t + u for a thread coordinate t (below 1024), as the transform
// writes `U + threadIdx.x` (transform/thread_index.py): the sum's own type and
// value.  A 32-bit unsigned sum is computed in int arithmetic where it cannot
// wrap, so that the compiler sees an index that grows by one per thread of the
// loop; converted to int, the unsigned sum is not affine to GCC (a contiguous
// access would be a gather, or stay scalar).  The branch is the same for every
// thread: the loop is unswitched on it.
template <class U>
__attribute__((always_inline)) inline auto plus_thread(U u, unsigned t) {
  if constexpr (std::is_integral_v<U> && std::is_same_v<decltype(u + t), unsigned>) {
    const unsigned v = static_cast<unsigned>(u);
    if (v <= 0x7fffffffu - 1024u) return static_cast<unsigned>(static_cast<int>(v) + static_cast<int>(t));
    return v + t;
  } else {
    return u + t;
  }
}
template <class U>
__attribute__((always_inline)) inline auto thread_plus(unsigned t, U u) {
  if constexpr (std::is_integral_v<U> && std::is_same_v<decltype(t + u), unsigned>) {
    return plus_thread(u, t);
  } else {
    return t + u;
  }
}

// Whether `x op u` has one value in every thread of the block: 1 true in all,
// 0 false in all, -1 not the same or not proved (transform/guards.py).  x is
// an integer index `A + threadIdx.c` (the transform checked its form), x_at(t)
// its value at thread t, u the same for every thread.  x is checked to be x0 +
// t over the block, not negative and without wrapping, so that it grows by one
// per thread in whatever type the comparison converts it to: the comparison is
// then monotone over the block, and its values at the first and the last
// thread are its value everywhere.
template <class XAt, class U, class Op>
inline int guard_at_ends(const block& b, int c, XAt x_at, const U& u, Op op) {
  using X = decltype(x_at(hk_index3{}));
  if constexpr (!std::is_integral_v<X> || std::is_same_v<X, bool> || !std::is_arithmetic_v<U>) {
    return -1;
  } else {
    const int extent = c == 0 ? b.bx : c == 1 ? b.by : b.bz;
    hk_index3 first{0, 0, 0}, last{0, 0, 0};
    (c == 0 ? last.x : c == 1 ? last.y : last.z) = static_cast<unsigned>(extent - 1);
    const X x0 = x_at(first), x1 = x_at(last);
    if constexpr (std::is_signed_v<X>) {
      if (x0 < 0) return -1;
    }
    if (x1 < x0 || static_cast<unsigned long long>(x1) - static_cast<unsigned long long>(x0) !=
                       static_cast<unsigned long long>(extent - 1))
      return -1;
    const bool at_first = op(x0, u), at_last = op(x1, u);
    return at_first == at_last ? static_cast<int>(at_first) : -1;
  }
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

}  // namespace __hk

#endif  // HIPKIT_CPU_EXEC_BLOCK_H
