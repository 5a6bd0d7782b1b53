// hipkit: cooperative groups of a warp's lanes (part of cooperative_groups.h):
// thread_block_tile<N> (a static tile of a block or of a larger tile),
// coalesced_group (the lanes that call coalesced_threads() together), the dynamic
// tiled_partition(parent, n), and the free functions over every group.
#pragma once

namespace cooperative_groups {

template <unsigned N, class Parent = void>
class thread_block_tile;
class coalesced_group;

namespace __hk_detail {
// A tile's position among its parent's tiles: (rank, count).
__HK_CG_FN unsigned tile_meta_rank(unsigned parent_size, unsigned n) {
  return (__hk_detail::block_rank() & (parent_size - 1)) / n;
}
// Whether value equals each lane's of a group; bit r for rank r.
template <class G, class T>
__HK_CG_FN lane_mask match(const G& g, T value __HK_CG_SITE) {
  lane_mask out = 0;
  for (unsigned r = 0; r < g.size(); ++r)
    if (g.shfl(value, int(r) __HK_CG_AT) == value) out |= 1ull << r;
  return out;
}
}  // namespace __hk_detail

// N consecutive threads of a block (a power of two no larger than the warp).
template <unsigned N, class Parent>
class thread_block_tile : public thread_group {
  static_assert(N != 0 && (N & (N - 1)) == 0 && N <= __HK_CG_WARP_SIZE,
                "thread_block_tile: the size must be a power of two no larger than the warp");
  template <unsigned, class>
  friend class thread_block_tile;
  __HK_CG_FN unsigned base() const { return __hk_cg::lane() & ~(N - 1); }
  __HK_CG_FN int own() const { return int(__hk_cg::lane()); }

 public:
  __HK_CG_FN thread_block_tile(unsigned meta_rank, unsigned meta_size)
      : thread_group(internal::cg_tiled_group, N, __hk_detail::tile_lanes(N), meta_rank, meta_size) {}
  template <class Other>
  __HK_CG_FN thread_block_tile(const thread_block_tile<N, Other>& g)
      : thread_group(internal::cg_tiled_group, N, g.mask_, g.meta_rank_, g.meta_size_) {}

  static constexpr __HK_CG_FN unsigned num_threads() { return N; }
  static constexpr __HK_CG_FN unsigned size() { return N; }
  __HK_CG_FN unsigned thread_rank() const { return __hk_detail::block_rank() & (N - 1); }
  __HK_CG_FN unsigned meta_group_rank() const { return meta_rank_; }
  __HK_CG_FN unsigned meta_group_size() const { return meta_size_; }
  __HK_CG_FN bool is_valid() const { return true; }
  __HK_CG_FN void sync(__HK_CG_SITE_ONLY) const { __hk_cg::warp_sync(mask_ __HK_CG_AT); }

  template <class T>
  __HK_CG_FN T shfl(T var, int src_rank __HK_CG_SITE) const {
    return __hk_cg::shfl(mask_, var, int(base() + (unsigned(src_rank) & (N - 1))) __HK_CG_AT);
  }
  template <class T>
  __HK_CG_FN T shfl_down(T var, unsigned delta __HK_CG_SITE) const {
    const unsigned r = thread_rank() + delta;
    return __hk_cg::shfl(mask_, var, r < N ? int(base() + r) : own() __HK_CG_AT);
  }
  template <class T>
  __HK_CG_FN T shfl_up(T var, unsigned delta __HK_CG_SITE) const {
    const unsigned r = thread_rank();
    return __hk_cg::shfl(mask_, var, delta <= r ? int(base() + r - delta) : own() __HK_CG_AT);
  }
  template <class T>
  __HK_CG_FN T shfl_xor(T var, unsigned lane_mask __HK_CG_SITE) const {
    const unsigned r = thread_rank() ^ lane_mask;
    return __hk_cg::shfl(mask_, var, r < N ? int(base() + r) : own() __HK_CG_AT);
  }
  __HK_CG_FN unsigned long long ballot(int predicate __HK_CG_SITE) const {
    return (__hk_cg::ballot(mask_, predicate __HK_CG_AT) >> base()) & __hk_detail::low_bits(N);
  }
  __HK_CG_FN int any(int predicate __HK_CG_SITE) const { return ballot(predicate __HK_CG_AT) != 0; }
  __HK_CG_FN int all(int predicate __HK_CG_SITE) const {
    return ballot(predicate __HK_CG_AT) == __hk_detail::low_bits(N);
  }
  template <class T>
  __HK_CG_FN unsigned long long match_any(T value __HK_CG_SITE) const {
    return __hk_detail::match(*this, value __HK_CG_AT);
  }
  template <class T>
  __HK_CG_FN unsigned long long match_all(T value, int& predicate __HK_CG_SITE) const {
    const unsigned long long same = __hk_detail::match(*this, value __HK_CG_AT);
    predicate = same == __hk_detail::low_bits(N);
    return predicate ? same : 0;
  }
};

template <unsigned N>
__HK_CG_FN thread_block_tile<N, thread_block> tiled_partition(const thread_block& parent) {
  const unsigned n = parent.size();
  return thread_block_tile<N, thread_block>(__hk_detail::block_rank() / N, (n + N - 1) / N);
}
template <unsigned N, unsigned M, class P>
__HK_CG_FN thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(
    const thread_block_tile<M, P>&) {
  static_assert(N <= M, "tiled_partition: a tile of a tile is no larger than it");
  return thread_block_tile<N, thread_block_tile<M, P>>(__hk_detail::tile_meta_rank(M, N), M / N);
}

// The lanes of a warp that call coalesced_threads() together, ranked by lane.
class coalesced_group : public thread_group {
  friend __HK_CG_FN coalesced_group tiled_partition(const coalesced_group& parent, unsigned n);
  __HK_CG_FN int own() const { return int(__hk_cg::lane()); }
  __HK_CG_FN int lane_of(unsigned rank) const { return __hk_detail::lane_of(mask_, rank); }

 public:
  // Made by coalesced_threads() and tiled_partition(), not by user code.
  __HK_CG_FN coalesced_group(__hk_detail::lane_mask mask, unsigned meta_rank, unsigned meta_size)
      : thread_group(internal::cg_coalesced_group, __hk_detail::popc(mask), mask, meta_rank,
                     meta_size) {}
  __HK_CG_FN unsigned size() const { return size_; }
  __HK_CG_FN unsigned num_threads() const { return size_; }
  __HK_CG_FN unsigned thread_rank() const { return __hk_detail::rank_in(mask_, __hk_cg::lane()); }
  __HK_CG_FN unsigned meta_group_rank() const { return meta_rank_; }
  __HK_CG_FN unsigned meta_group_size() const { return meta_size_; }
  __HK_CG_FN bool is_valid() const { return size_ != 0; }
  __HK_CG_FN void sync(__HK_CG_SITE_ONLY) const { __hk_cg::warp_sync(mask_ __HK_CG_AT); }

  template <class T>
  __HK_CG_FN T shfl(T var, int src_rank __HK_CG_SITE) const {
    return __hk_cg::shfl(mask_, var, lane_of(unsigned(src_rank) % size_) __HK_CG_AT);
  }
  template <class T>
  __HK_CG_FN T shfl_down(T var, unsigned delta __HK_CG_SITE) const {
    const unsigned r = thread_rank() + delta;
    return __hk_cg::shfl(mask_, var, r < size_ ? lane_of(r) : own() __HK_CG_AT);
  }
  template <class T>
  __HK_CG_FN T shfl_up(T var, unsigned delta __HK_CG_SITE) const {
    const unsigned r = thread_rank();
    return __hk_cg::shfl(mask_, var, delta <= r ? lane_of(r - delta) : own() __HK_CG_AT);
  }
  __HK_CG_FN unsigned long long ballot(int predicate __HK_CG_SITE) const {
    return __hk_detail::pack(mask_, __hk_cg::ballot(mask_, predicate __HK_CG_AT));
  }
  __HK_CG_FN int any(int predicate __HK_CG_SITE) const { return ballot(predicate __HK_CG_AT) != 0; }
  __HK_CG_FN int all(int predicate __HK_CG_SITE) const {
    return ballot(predicate __HK_CG_AT) == __hk_detail::low_bits(size_);
  }
  template <class T>
  __HK_CG_FN unsigned long long match_any(T value __HK_CG_SITE) const {
    return __hk_detail::match(*this, value __HK_CG_AT);
  }
  template <class T>
  __HK_CG_FN unsigned long long match_all(T value, int& predicate __HK_CG_SITE) const {
    const unsigned long long same = __hk_detail::match(*this, value __HK_CG_AT);
    predicate = same == __hk_detail::low_bits(size_);
    return predicate ? same : 0;
  }
};

__HK_CG_FN coalesced_group coalesced_threads(__HK_CG_SITE_ONLY) {
  return coalesced_group(__hk_cg::active_mask(__HK_CG_AT_ONLY), 0, 1);
}

// The n-rank pieces of a coalesced group (n a power of two no larger than the warp).
__HK_CG_FN coalesced_group tiled_partition(const coalesced_group& parent, unsigned n) {
  if (!__hk_detail::valid_tile(n))
    __hk_cg::invalid("tiled_partition: the tile size must be a power of two no larger than the warp");
  const unsigned mine = parent.thread_rank() / n;
  __hk_detail::lane_mask lanes = 0, rest = parent.mask_;
  for (unsigned r = 0; rest != 0; rest &= rest - 1, ++r)
    if (r / n == mine) lanes |= rest & (~rest + 1);
  return coalesced_group(lanes, mine, (parent.size_ + n - 1) / n);
}

// A tile of n threads of a block, a tile or a coalesced group, its size known at run time.
__HK_CG_FN thread_group tiled_partition(const thread_group& parent, unsigned n) {
  if (!__hk_detail::valid_tile(n) || parent.type_ == internal::cg_grid ||
      parent.type_ == internal::cg_multi_grid || (parent.type_ != internal::cg_workgroup && n > parent.size_))
    __hk_cg::invalid("tiled_partition: the tile size must be a power of two no larger than the warp"
                     " or the parent, and the parent a block, tile or coalesced group");
  if (parent.type_ == internal::cg_coalesced_group)
    return tiled_partition(static_cast<const coalesced_group&>(parent), n);
  if (parent.type_ == internal::cg_tiled_group)
    return thread_group(internal::cg_tiled_group, n, __hk_detail::tile_lanes(n),
                        __hk_detail::tile_meta_rank(parent.size_, n), parent.size_ / n);
  // The block's last tile may be cut short by its end: it has the threads that are there,
  // as HIP's (its size, ranks and lanes).
  const unsigned tile = __hk_detail::block_rank() / n, left = parent.size_ - tile * n;
  const unsigned size = left < n ? left : n;
  return thread_group(internal::cg_tiled_group, size,
                      __hk_detail::low_bits(size) << (__hk_cg::lane() & ~(n - 1)), tile,
                      (parent.size_ + n - 1) / n);
}
__HK_CG_FN thread_group tiled_partition(const thread_block& parent, unsigned n) {
  return tiled_partition(static_cast<const thread_group&>(parent), n);
}

// ---- the free functions ------------------------------------------------------------

template <class G>
__HK_CG_FN unsigned group_size(const G& g) {
  return g.size();
}
template <class G>
__HK_CG_FN unsigned thread_rank(const G& g) {
  return g.thread_rank();
}
template <class G>
__HK_CG_FN bool is_valid(const G& g) {
  return g.is_valid();
}
template <class G>
__HK_CG_FN void sync(const G& g) {
  g.sync();
}

}  // namespace cooperative_groups
