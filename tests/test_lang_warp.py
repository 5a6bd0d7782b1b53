"""Kernel language: warp operations, at the device's warp size.

``__shfl``, ``__shfl_up``, ``__shfl_down``, ``__shfl_xor`` with and without
``width`` (1, 2, 4, ... warpSize), on int, float, double and long long, with
per-thread and uniform sources, deltas and masks; the ``_sync`` forms;
``__ballot`` (64-bit), ``__any``, ``__all``, ``__activemask``, ``__syncwarp``
and their ``_sync`` forms; warp reductions (also in a device function); a
partial last warp (block size not a multiple of the warp size); shuffles in
code where whole warps take different branches; multi-dimensional blocks
(lanes numbered by the linear thread index).

Shuffles here only read lanes that exist, as HIP and CUDA require.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

__device__ inline int linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// out holds 4 planes of gridDim.x * threads: __shfl, __shfl_up, __shfl_down, __shfl_xor.
template <typename T>
__global__ void shuffles(const T* in, const int* src, const unsigned* delta, const int* mask,
                         int width, T* out) {
  const int nt = blockDim.x * blockDim.y * blockDim.z;
  const int n = gridDim.x * nt;
  int i = blockIdx.x * nt + linear_tid();
  T v = in[i];
  out[i] = __shfl(v, src[i], width);
  out[n + i] = __shfl_up(v, delta[i], width);
  out[2 * n + i] = __shfl_down(v, delta[i], width);
  out[3 * n + i] = __shfl_xor(v, mask[i], width);
}

// The same with one source offset, delta and mask for all threads.
template <typename T>
__global__ void shuffles_uniform(const T* in, int src, unsigned delta, int mask, int width, T* out) {
  const int nt = blockDim.x * blockDim.y * blockDim.z;
  const int n = gridDim.x * nt;
  int i = blockIdx.x * nt + linear_tid();
  T v = in[i];
  out[i] = __shfl(v, src, width);
  out[n + i] = __shfl_up(v, delta, width);
  out[2 * n + i] = __shfl_down(v, delta, width);
  out[3 * n + i] = __shfl_xor(v, mask, width);
}

// Without a width (the whole warp); the _sync forms with the active mask.
template <typename T>
__global__ void shuffles_full(const T* in, const int* src, const unsigned* delta, const int* mask,
                              T* out, T* out_sync) {
  const int n = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[i];
  out[i] = __shfl(v, src[i]);
  out[n + i] = __shfl_up(v, delta[i]);
  out[2 * n + i] = __shfl_down(v, delta[i]);
  out[3 * n + i] = __shfl_xor(v, mask[i]);
  auto m = __activemask();
  out_sync[i] = __shfl_sync(m, v, src[i]);
  out_sync[n + i] = __shfl_up_sync(m, v, delta[i]);
  out_sync[2 * n + i] = __shfl_down_sync(m, v, delta[i]);
  out_sync[3 * n + i] = __shfl_xor_sync(m, v, mask[i]);
}

template <typename T>
__global__ void shuffles_sync_width(const T* in, const int* src, const unsigned* delta,
                                    const int* mask, int width, T* out) {
  const int n = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[i];
  auto m = __activemask();
  out[i] = __shfl_sync(m, v, src[i], width);
  out[n + i] = __shfl_up_sync(m, v, delta[i], width);
  out[2 * n + i] = __shfl_down_sync(m, v, delta[i], width);
  out[3 * n + i] = __shfl_xor_sync(m, v, mask[i], width);
}

// Every thread exists (n = grid * block); the block may end in a partial warp.
extern "C" __global__ void votes(const int* pred, unsigned long long* ballot, int* any, int* all,
                                 unsigned long long* active, unsigned long long* ballot_sync,
                                 int* any_sync, int* all_sync) {
  const int nt = blockDim.x * blockDim.y * blockDim.z;
  int i = blockIdx.x * nt + linear_tid();
  int p = pred[i];
  ballot[i] = __ballot(p);
  any[i] = __any(p);
  all[i] = __all(p);
  active[i] = __activemask();
  unsigned long long m = __activemask();
  ballot_sync[i] = __ballot_sync(m, p);
  any_sync[i] = __any_sync(m, p);
  all_sync[i] = __all_sync(m, p);
}

// Votes inside a branch that only some lanes take.
extern "C" __global__ void divergent_votes(const int* pred, const int* pred2,
                                           unsigned long long* active, unsigned long long* ballot,
                                           int* all, unsigned long long* even_ballot) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long a = 0, b = 0;
  int al = -1;
  if (pred[i]) {
    a = __activemask();
    b = __ballot(pred2[i]);
    al = __all(pred2[i]);
  }
  active[i] = a;
  ballot[i] = b;
  all[i] = al;
  unsigned long long e = 0;
  if (threadIdx.x % 2 == 0) {
    unsigned long long even_lanes = __activemask();
    e = __ballot_sync(0x5555555555555555ull & even_lanes, pred2[i]);
  }
  even_ballot[i] = e;
}

// Half of each warp votes, then the whole block meets at a barrier.
extern "C" __global__ void half_warp_vote_then_barrier(const int* pred, unsigned long long* out) {
  __shared__ int s[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long b = 0;
  if (threadIdx.x % warpSize < warpSize / 2) b = __ballot(pred[i]);
  s[threadIdx.x] = (int)threadIdx.x;
  __syncthreads();
  out[i] = b + s[blockDim.x - 1 - threadIdx.x];
}

template <typename T>
__device__ T warp_sum_down(T v) {
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down(v, off);
  return v;
}

// Butterfly reduction (every lane gets the warp's sum) and a tree reduction
// in a device function (lane 0 gets it).
template <typename T>
__global__ void warp_reduce(const T* in, T* all_lanes, T* per_warp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[i];
  for (int off = 1; off < warpSize; off *= 2) v += __shfl_xor(v, off);
  all_lanes[i] = v;
  T s = warp_sum_down(in[i]);
  if (threadIdx.x % warpSize == 0) per_warp[i / warpSize] = s;
}

// Sums over segments of `width` lanes with the width argument.
template <typename T>
__global__ void segment_reduce(const T* in, T* out, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[i];
  for (int off = width / 2; off > 0; off /= 2) v += __shfl_down(v, off, width);
  out[i] = __shfl(v, 0, width);
}

// Warp votes in a loop condition and in one arm of a conditional expression.
extern "C" __global__ void votes_in_expressions(const int* x, const int* p, const int* q, int* rounds,
                                                int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[i], r = 0;
  while (__any(v > 0)) {
    v -= 3;
    ++r;
  }
  rounds[i] = r;
  counts[i] = p[i] ? (int)__popcll(__ballot(q[i])) : -1;
}

// A partial last warp: inclusive scan with __shfl_up, guarded sum with __shfl_down.
extern "C" __global__ void partial_warp(const int* in, int* scan, int* sums) {
  int t = threadIdx.x, lane = t % warpSize, i = blockIdx.x * blockDim.x + t;
  int lanes = min(warpSize, (int)blockDim.x - (t - lane));
  int v = in[i];
  for (int off = 1; off < warpSize; off *= 2) {
    int o = __shfl_up(v, off);
    if (lane >= off) v += o;
  }
  scan[i] = v;
  int s = in[i];
  for (int off = 1; off < warpSize; off *= 2) {
    int o = __shfl_down(s, off);
    if (lane + off < lanes) s += o;
  }
  if (lane == 0) sums[blockIdx.x * ((blockDim.x + warpSize - 1) / warpSize) + t / warpSize] = s;
}

// Whole warps take different branches and loops of different lengths.
template <typename T>
__global__ void warp_branches(const T* in, T* out) {
  int t = threadIdx.x, lane = t % warpSize, warp = t / warpSize;
  int i = blockIdx.x * blockDim.x + t;
  T v = in[i];
  if (warp % 2 == 0) {
    v = __shfl_xor(v, 1);
  } else {
    v = __shfl(v, warpSize - 1 - lane);
  }
  for (int k = 0; k <= warp % 4; ++k) v += __shfl_down(v, 1);
  out[i] = v;
}

// Every lane after `v += __shfl_down(v, d)`, d the same in all threads (the CPU
// does the whole block in one pass): a lane whose source is past its warp or the
// block adds its own value.
extern "C" __global__ void shift_add_all_lanes(const int* in, int* out, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  v += __shfl_down(v, d);
  out[i] = v;
}

// Lanes exchange through shared memory, ordered by __syncwarp.
extern "C" __global__ void syncwarp_exchange(const int* in, int* out) {
  __shared__ int s[1024];
  int t = threadIdx.x, lane = t % warpSize, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  __syncwarp();
  int v = s[t ^ 1];
  __syncwarp();
  s[t] = v * 2;
  __syncwarp(__activemask());
  out[i] = s[t - lane + (lane + 1) % warpSize];
}
"""

TYPES = {"int": np.int32, "float": np.float32, "double": np.float64, "long long": np.int64}
NAMES = [
    f"{k}<{t}>"
    for k in ("shuffles", "shuffles_uniform", "shuffles_full", "shuffles_sync_width", "warp_branches")
    for t in TYPES
]
NAMES += [f"{k}<{t}>" for k in ("warp_reduce", "segment_reduce") for t in ("int", "double")]


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE, NAMES)
    recover(device)


def random_values(rng, dtype, n):
    if dtype in (np.float32, np.float64):
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def widths(warp_size):
    return [w for w in (1, 2, 4, 8, 16, 32, 64) if w <= warp_size]


def lanes_of(n, block_threads, warp_size):
    """Each thread's lane, and the index of lane 0 of its warp."""
    t = np.arange(n) % block_threads
    lane = t % warp_size
    return lane, np.arange(n) - lane


def shuffle_reference(v, src, delta, mask, width, block_threads, warp_size):
    """The four shuffles as HIP defines them (width a power of two <= warpSize)."""
    lane, base = lanes_of(len(v), block_threads, warp_size)
    seg = lane & ~(width - 1)
    shfl = (src & (width - 1)) + seg
    up = np.where(lane - delta.astype(np.int64) < seg, lane, lane - delta.astype(np.int64))
    down = np.where((lane & (width - 1)) + delta.astype(np.int64) >= width, lane, lane + delta)
    xor = lane ^ mask
    xor = np.where(xor >= ((lane + width) & ~(width - 1)), lane, xor)
    return np.concatenate([v[base + s] for s in (shfl, up, down, xor)])


def shuffle_operands(rng, n, warp_size):
    src = rng.integers(0, 2 * warp_size, n, dtype=np.int32)
    delta = rng.integers(0, warp_size + 1, n, dtype=np.uint32)
    mask = rng.integers(0, warp_size, n, dtype=np.int32)
    return src, delta, mask


# (grid, block): lanes numbered across 2-D/3-D blocks; all a whole number of warps.
def shuffle_launches(warp_size):
    return [
        (1, warp_size),
        (3, 4 * warp_size),
        (2, 1024),
        (2, (warp_size // 2, 2, 3)),
        (1, (4, warp_size // 4, 2)),
    ]


@pytest.mark.parametrize("ctype", list(TYPES))
def test_shuffles_with_width(mod, rng, device, ctype):
    W, dtype = device.warp_size, TYPES[ctype]
    kernel = mod.get_function(f"shuffles<{ctype}>")
    for grid, block in shuffle_launches(W):
        nt = int(np.prod(block))
        n = grid * nt
        v = random_values(rng, dtype, n)
        src, delta, mask = shuffle_operands(rng, n, W)
        for width in widths(W):
            out = hipkit.empty(4 * n, dtype)
            kernel[grid, block](
                hipkit.to_device(v),
                hipkit.to_device(src),
                hipkit.to_device(delta),
                hipkit.to_device(mask),
                width,
                out,
            )
            np.testing.assert_array_equal(
                out.get(),
                shuffle_reference(v, src, delta, mask, width, nt, W),
                err_msg=f"grid {grid}, block {block}, width {width}",
            )


@pytest.mark.parametrize("ctype", list(TYPES))
def test_shuffles_uniform_operands(mod, rng, device, ctype):
    W, dtype = device.warp_size, TYPES[ctype]
    kernel = mod.get_function(f"shuffles_uniform<{ctype}>")
    grid, block = 3, 2 * W
    n = grid * block
    v = random_values(rng, dtype, n)
    for width in widths(W):
        for delta in sorted({0, 1, width // 2, width - 1, width, W} | {int(rng.integers(0, W))}):
            src, mask = int(rng.integers(0, 2 * W)), int(rng.integers(0, W))
            out = hipkit.empty(4 * n, dtype)
            kernel[grid, block](hipkit.to_device(v), src, delta, mask, width, out)
            full = np.full(n, 1)
            want = shuffle_reference(
                v, full * src, full.astype(np.uint32) * delta, full * mask, width, block, W
            )
            np.testing.assert_array_equal(
                out.get(), want, err_msg=f"width {width} src {src} delta {delta} mask {mask}"
            )


@pytest.mark.parametrize("ctype", list(TYPES))
@pytest.mark.parametrize("warps,grid", [(1, 1), (4, 5), (16, 2)])
def test_shuffles_default_width_and_sync(mod, rng, device, ctype, warps, grid):
    W, dtype = device.warp_size, TYPES[ctype]
    block = min(warps * W, 1024)
    n = grid * block
    v = random_values(rng, dtype, n)
    src, delta, mask = shuffle_operands(rng, n, W)
    out, out_sync = hipkit.empty(4 * n, dtype), hipkit.empty(4 * n, dtype)
    mod.get_function(f"shuffles_full<{ctype}>")[grid, block](
        hipkit.to_device(v),
        hipkit.to_device(src),
        hipkit.to_device(delta),
        hipkit.to_device(mask),
        out,
        out_sync,
    )
    want = shuffle_reference(v, src, delta, mask, W, block, W)
    np.testing.assert_array_equal(out.get(), want)
    np.testing.assert_array_equal(out_sync.get(), want)


@pytest.mark.parametrize("ctype", list(TYPES))
def test_shuffles_sync_with_width(mod, rng, device, ctype):
    W, dtype = device.warp_size, TYPES[ctype]
    grid, block = 2, 3 * W
    n = grid * block
    v = random_values(rng, dtype, n)
    src, delta, mask = shuffle_operands(rng, n, W)
    for width in widths(W):
        out = hipkit.empty(4 * n, dtype)
        mod.get_function(f"shuffles_sync_width<{ctype}>")[grid, block](
            hipkit.to_device(v),
            hipkit.to_device(src),
            hipkit.to_device(delta),
            hipkit.to_device(mask),
            width,
            out,
        )
        np.testing.assert_array_equal(
            out.get(), shuffle_reference(v, src, delta, mask, width, block, W), err_msg=f"width {width}"
        )


def ballots(pred, block_threads, warp_size):
    """Per thread: the ballot of its warp and the mask of the warp's lanes."""
    n = len(pred)
    ballot, members = np.zeros(n, np.uint64), np.zeros(n, np.uint64)
    for block_start in range(0, n, block_threads):
        for start in range(block_start, min(block_start + block_threads, n), warp_size):
            stop = min(start + warp_size, block_start + block_threads, n)
            bits = sum(1 << k for k in range(stop - start) if pred[start + k])
            ballot[start:stop] = bits
            members[start:stop] = (1 << (stop - start)) - 1
    return ballot, members


@pytest.mark.parametrize("block", [1, 7, 64, 100, 96, 1000, 1024, (5, 3, 7), (16, 16, 4)])
@pytest.mark.parametrize("density", [0.0, 0.1, 0.5, 1.0])
def test_votes_and_active_mask(mod, rng, device, block, density):
    nt = int(np.prod(block))
    grid = 3
    n = grid * nt
    W = device.warp_size
    pred = (rng.random(n) < density) * rng.integers(1, 1000, n)
    pred = pred.astype(np.int32)
    outs = [
        hipkit.empty(n, t) for t in (np.uint64, np.int32, np.int32, np.uint64, np.uint64, np.int32, np.int32)
    ]
    mod.get_function("votes")[grid, block](hipkit.to_device(pred), *outs)
    ballot, any_, all_, active, ballot_sync, any_sync, all_sync = (o.get() for o in outs)
    want_ballot, members = ballots(pred != 0, nt, W)
    np.testing.assert_array_equal(ballot, want_ballot)
    np.testing.assert_array_equal(active, members)
    np.testing.assert_array_equal(any_, want_ballot != 0)
    np.testing.assert_array_equal(all_, want_ballot == members)
    np.testing.assert_array_equal(ballot_sync, want_ballot)
    np.testing.assert_array_equal(any_sync, want_ballot != 0)
    np.testing.assert_array_equal(all_sync, want_ballot == members)


@pytest.mark.parametrize("block", [64, 100, 1024, 32])
def test_votes_in_divergent_branches(mod, rng, device, block):
    W = device.warp_size
    grid = 2
    n = grid * block
    pred = (rng.random(n) < 0.6).astype(np.int32)
    pred2 = (rng.random(n) < 0.7).astype(np.int32)
    outs = [hipkit.empty(n, t) for t in (np.uint64, np.uint64, np.int32, np.uint64)]
    mod.get_function("divergent_votes")[grid, block](hipkit.to_device(pred), hipkit.to_device(pred2), *outs)
    active, ballot, all_, even_ballot = (o.get() for o in outs)
    taken, _ = ballots(pred != 0, block, W)
    taken_and_true, _ = ballots((pred != 0) & (pred2 != 0), block, W)
    np.testing.assert_array_equal(active, np.where(pred != 0, taken, 0))
    np.testing.assert_array_equal(ballot, np.where(pred != 0, taken_and_true, 0))
    np.testing.assert_array_equal(all_, np.where(pred != 0, taken_and_true == taken, -1))
    even = (np.arange(n) % block) % 2 == 0
    even_true, _ = ballots(even & (pred2 != 0), block, W)
    np.testing.assert_array_equal(even_ballot, np.where(even, even_true, 0))


@pytest.mark.parametrize("block", [64, 256, 1024])
def test_half_warp_vote_then_barrier(mod, rng, device, block):
    W = device.warp_size
    grid = 2
    n = grid * block
    pred = (rng.random(n) < 0.5).astype(np.int32)
    out = hipkit.empty(n, np.uint64)
    mod.get_function("half_warp_vote_then_barrier")[grid, block](hipkit.to_device(pred), out)
    lane = (np.arange(n) % block) % W
    voting = lane < W // 2
    want, _ = ballots((pred != 0) & voting, block, W)
    want = np.where(voting, want, 0) + (block - 1 - np.arange(n) % block).astype(np.uint64)
    np.testing.assert_array_equal(out.get(), want)


@pytest.mark.parametrize("block", [1, 64, 100, 1024])
def test_votes_in_loop_conditions_and_conditional_expressions(mod, rng, device, block):
    W = device.warp_size
    grid = 2
    n = grid * block
    x = rng.integers(-10, 40, n, dtype=np.int32)
    p, q = (rng.random(n) < 0.5).astype(np.int32), (rng.random(n) < 0.5).astype(np.int32)
    rounds, counts = hipkit.empty(n, np.int32), hipkit.empty(n, np.int32)
    mod.get_function("votes_in_expressions")[grid, block](
        hipkit.to_device(x), hipkit.to_device(p), hipkit.to_device(q), rounds, counts
    )
    want_rounds, want_counts = np.empty(n, np.int32), np.empty(n, np.int32)
    for b in range(grid):
        for start in range(b * block, (b + 1) * block, W):
            w = slice(start, min(start + W, (b + 1) * block))
            want_rounds[w] = max(0, -(-x[w].max() // 3))
            want_counts[w] = np.where(p[w] != 0, ((p[w] != 0) & (q[w] != 0)).sum(), -1)
    np.testing.assert_array_equal(rounds.get(), want_rounds)
    np.testing.assert_array_equal(counts.get(), want_counts)


@pytest.mark.parametrize("ctype", ["int", "double"])
@pytest.mark.parametrize("warps,grid", [(1, 1), (16, 3), (5, 7)])
def test_warp_reductions(mod, rng, device, ctype, warps, grid):
    W = device.warp_size
    dtype = TYPES[ctype]
    block = min(warps * W, 1024)
    n = grid * block
    x = rng.integers(-(10**5), 10**5, n).astype(dtype) if ctype == "int" else rng.standard_normal(n)
    all_lanes, per_warp = hipkit.empty(n, dtype), hipkit.empty(n // W, dtype)
    mod.get_function(f"warp_reduce<{ctype}>")[grid, block](hipkit.to_device(x), all_lanes, per_warp)
    sums = x.reshape(-1, W).sum(axis=1)
    np.testing.assert_allclose(per_warp.get(), sums, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(all_lanes.get(), np.repeat(sums, W), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("ctype", ["int", "double"])
def test_segment_reductions_with_width(mod, rng, device, ctype):
    W = device.warp_size
    dtype = TYPES[ctype]
    grid, block = 3, 2 * W
    n = grid * block
    x = rng.integers(-(10**5), 10**5, n).astype(dtype) if ctype == "int" else rng.standard_normal(n)
    for width in widths(W):
        out = hipkit.empty(n, dtype)
        mod.get_function(f"segment_reduce<{ctype}>")[grid, block](hipkit.to_device(x), out, width)
        sums = x.reshape(-1, width).sum(axis=1)
        np.testing.assert_allclose(
            out.get(), np.repeat(sums, width), rtol=1e-12, atol=1e-12, err_msg=f"width {width}"
        )


@pytest.mark.parametrize("block", [1, 3, 100, 65, 1000, 1023])
def test_partial_last_warp(mod, rng, device, block):
    W = device.warp_size
    grid = 3
    n = grid * block
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    warps_per_block = cdiv(block, W)
    scan, sums = hipkit.empty(n, np.int32), hipkit.empty(grid * warps_per_block, np.int32)
    mod.get_function("partial_warp")[grid, block](hipkit.to_device(x), scan, sums)
    want_scan, want_sums = np.empty(n, np.int32), np.empty(grid * warps_per_block, np.int32)
    for b in range(grid):
        for w in range(warps_per_block):
            start = b * block + w * W
            stop = min(start + W, (b + 1) * block)
            want_scan[start:stop] = np.cumsum(x[start:stop])
            want_sums[b * warps_per_block + w] = x[start:stop].sum()
    np.testing.assert_array_equal(scan.get(), want_scan)
    np.testing.assert_array_equal(sums.get(), want_sums)


@pytest.mark.parametrize("block", [1, 64, 100, 256])
@pytest.mark.parametrize("d", [0, 1, 5, 31, 63, 64, 100])
def test_shift_add_in_every_lane(mod, rng, device, block, d):
    W = device.warp_size
    grid = 2
    x = rng.integers(-1000, 1000, grid * block, dtype=np.int32)
    out = hipkit.empty(grid * block, np.int32)
    mod.get_function("shift_add_all_lanes")[grid, block](hipkit.to_device(x), out, d)
    t = np.arange(grid * block) % block
    lane = t % W
    src = np.arange(grid * block) + d
    inside = (lane + d < W) & (t + d < block)
    want = x + np.where(inside, x[np.where(inside, src, 0)], x)
    got = out.get()
    if device.platform.name == "nvidia":
        # CUDA leaves two cases undefined that HIP (AMD, the CPU) defines as the
        # thread's own value: a source lane past the block's last thread (the H200
        # gives garbage), and a delta of a warp or more (it takes the delta mod 32).
        defined = (d < W) & ((lane + d >= W) | (t + d < block))
        got, want = got[defined], want[defined]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("ctype", list(TYPES))
@pytest.mark.parametrize("warps", [1, 2, 8, 16])
def test_shuffles_in_warp_divergent_branches(mod, rng, device, ctype, warps):
    W = device.warp_size
    dtype = TYPES[ctype]
    block = min(warps * W, 1024)
    grid = 2
    v = (rng.integers(-1000, 1000, grid * block)).astype(dtype)
    out = hipkit.empty(grid * block, dtype)
    mod.get_function(f"warp_branches<{ctype}>")[grid, block](hipkit.to_device(v), out)
    want = []
    for warp_index, w in enumerate(v.reshape(-1, W)):
        warp = warp_index % (block // W)
        lane = np.arange(W)
        w = w[lane ^ 1] if warp % 2 == 0 else w[W - 1 - lane]
        for _ in range(warp % 4 + 1):
            w = w + np.concatenate([w[1:], w[-1:]])
        want.append(w)
    np.testing.assert_array_equal(out.get(), np.concatenate(want))


@pytest.mark.parametrize("warps,grid", [(1, 1), (4, 3), (16, 2)])
def test_syncwarp_orders_shared_memory(mod, rng, device, warps, grid):
    W = device.warp_size
    block = min(warps * W, 1024)
    x = rng.integers(-1000, 1000, grid * block, dtype=np.int32)
    out = hipkit.empty(grid * block, np.int32)
    mod.get_function("syncwarp_exchange")[grid, block](hipkit.to_device(x), out)
    w = x.reshape(-1, W)
    swapped = w[:, np.arange(W) ^ 1] * 2
    np.testing.assert_array_equal(out.get(), np.roll(swapped, -1, axis=1).ravel())
