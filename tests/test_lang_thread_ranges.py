"""Kernel language: branches that select threads by their index, between barriers.

``if (tid < stride)``, ``if (lane == 0)``, ``if (threadIdx.x >= k)``: on the
CPU a barrier-free stretch made of one such branch runs over just the threads
it selects (transform/thread_sets.py), found at run time; where that is not
proved (a 2-D block, a variable too narrow for the index, a residue out of
range) it runs every thread as written.  Each kernel records which threads
took the branch and is checked against NumPy, for bounds inside, at the edges
of and outside the block.
"""

import numpy as np
import pytest
from lang_helpers import compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

// hits[c * blockDim + t]: whether thread t took branch c (each branch alone
// between barriers).
extern "C" __global__ void branches(int* hits, int k, int m, float f) {
  const int n = blockDim.x * blockDim.y;
  const int t = threadIdx.x + blockDim.x * threadIdx.y;
  int tid = threadIdx.x;
  for (int c = 0; c < 9; ++c) hits[c * n + t] = 0;
  __syncthreads();
  if (tid < k) hits[0 * n + t] = 1;
  __syncthreads();
  if (k >= threadIdx.x) hits[1 * n + t] = 1;
  __syncthreads();
  if (tid == k) hits[2 * n + t] = 1;
  __syncthreads();
  int lane = threadIdx.x % m;
  if (lane == k) hits[3 * n + t] = 1;
  __syncthreads();
  if (lane == 0 && tid >= k) hits[4 * n + t] = 1;
  __syncthreads();
  if (tid < f) hits[5 * n + t] = 1;
  __syncthreads();
  unsigned char narrow = threadIdx.x;  // wraps past 255
  if (narrow < k) hits[6 * n + t] = 1;
  __syncthreads();
  if (threadIdx.x < (unsigned)k) hits[7 * n + t] = 1;  // k < 0: every thread
  __syncthreads();
  if (tid > k && tid <= k + 5) hits[8 * n + t] = 1;
}

// The same inside branches that a warp operation makes run with a mask: of whole
// warps (a range of threads: just those the inner branch selects), and of every
// third thread (not a range: every thread of the mask tests the condition).
extern "C" __global__ void branches_in_masks(int* hits, int k, int m, int warps) {
  hits[threadIdx.x] = 0;
  hits[blockDim.x + threadIdx.x] = 0;
  __syncthreads();
  if ((int)(threadIdx.x / warpSize) < warps) {
    const int v = __shfl_down((int)threadIdx.x, 0);
    const int lane = threadIdx.x % m;
    if (lane == k) hits[threadIdx.x] = v + 1;
  }
  if (threadIdx.x % 3 == 0) {
    const int v = __shfl_down((int)threadIdx.x, 0);
    if (threadIdx.x < k) hits[blockDim.x + threadIdx.x] = v + 1;
  }
}

// A tree reduction: the branch narrows as the stride halves.
extern "C" __global__ void tree(const float* in, float* out, int n) {
  __shared__ float s[1024];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}
"""


def expected_branches(bx: int, by: int, k: int, m: int, f: float) -> np.ndarray:
    x = np.tile(np.arange(bx), by)
    rows = [
        x < k,
        k % 2**32 >= x,  # k converted to unsigned
        x == k,
        (x % m) == k,
        ((x % m) == 0) & (x >= k),
        x < f,
        (x % 256) < k,
        x < (k % 2**32),
        (x > k) & (x <= k + 5),
    ]
    return np.stack(rows).astype(np.int32).ravel()


@pytest.mark.parametrize(
    "block, k, m",
    [
        ((256, 1), 100, 32),
        ((256, 1), 0, 64),
        ((64, 1), 64, 16),
        ((300, 1), 299, 7),
        ((512, 1), 300, 33),
        ((512, 1), 100, 32),
        ((256, 1), -3, 8),
        ((128, 1), 1000, 128),
        ((16, 4), 5, 4),
        ((1, 1), 0, 1),
    ],
)
def test_branches_on_the_thread_index(device, rng, block, k, m):
    mod = compile_once(SOURCE)
    bx, by = block
    f = float(rng.uniform(-2, bx + 2))
    hits = hipkit.zeros(9 * bx * by, np.int32)
    try:
        mod.get_function("branches")[1, block](hits, k, m, np.float32(f))
    finally:
        recover(device)
    np.testing.assert_array_equal(hits.get(), expected_branches(bx, by, k, m, np.float32(f)))


@pytest.mark.parametrize(
    "block, k, m, warps", [(256, 0, 64, 2), (256, 5, 16, 3), (300, 299, 7, 5), (128, 1, 2, 0)]
)
def test_branches_inside_masked_branches(device, rng, block, k, m, warps):
    mod = compile_once(SOURCE)
    hits = hipkit.zeros(2 * block, np.int32)
    try:
        mod.get_function("branches_in_masks")[1, block](hits, k, m, warps)
    finally:
        recover(device)
    t = np.arange(block)
    in_warps = (t // device.warp_size < warps) & (t % m == k)
    thirds = (t % 3 == 0) & (t < k)
    want = np.concatenate([np.where(in_warps, t + 1, 0), np.where(thirds, t + 1, 0)]).astype(np.int32)
    np.testing.assert_array_equal(hits.get(), want)


@pytest.mark.parametrize("n, block", [(1, 64), (7, 64), (1000, 256), (4096, 1024), (777, 128)])
def test_tree_reduction(device, rng, n, block):
    mod = compile_once(SOURCE)
    x = rng.random(n, dtype=np.float32)
    blocks = -(-n // block)
    out = hipkit.zeros(blocks, np.float32)
    try:
        mod.get_function("tree")[blocks, block](hipkit.to_device(x), out, n)
    finally:
        recover(device)
    padded = np.zeros(blocks * block, np.float32)
    padded[:n] = x
    np.testing.assert_allclose(out.get(), padded.reshape(blocks, block).sum(axis=1), rtol=1e-5)
