"""Kernel language: sums of a thread coordinate and another value.

The CPU transform writes ``U + threadIdx.x`` (and ``threadIdx.x + U``) so that
the C++ compiler sees an index that grows by one per thread
(transform/thread_index.py).  The sum must keep its type and value whatever
``U`` is: an unsigned sum that wraps, a negative int, a 64-bit value, a
pointer, a shared array, a float, a bit-field, a class with its own ``+``;
and the shapes around it (casts, template calls, comparisons, the
``hipThreadIdx_x`` spelling) must still compile.  Each kernel runs over sizes
that are not a multiple of the block and is checked against NumPy.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

template <int K> __device__ int scaled(int v) { return K * v; }

struct Offset {
  int base;
  __device__ int operator+(unsigned t) const { return base - (int)t; }
};

struct Packed {
  unsigned low : 5;
  unsigned high : 27;
};

// out[9 * i + k]: nine sums for global thread i.
extern "C" __global__ void sums(int* out, int n, unsigned big, int negative, Packed p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int* o = out + 9 * (threadIdx.x + blockIdx.x * blockDim.x);
    o[0] = big + threadIdx.x;                                 // wraps modulo 2^32
    o[1] = (negative + threadIdx.x) / 2;                      // an unsigned division
    o[2] = (int)((long long)blockIdx.x * blockDim.x + threadIdx.x - (long long)i);  // 64-bit: 0
    o[3] = static_cast<int>(static_cast<unsigned>(blockIdx.x) * 3u + threadIdx.x);
    o[4] = scaled<2>(blockIdx.x) + hipThreadIdx_x;
    o[5] = threadIdx.x + scaled<3>(1) < 5u ? 1 : 0;
    o[6] = p.low + threadIdx.x + p.high;
    o[7] = Offset{100} + threadIdx.x;
    o[8] = (int)(0.5f + threadIdx.x) + (int)(threadIdx.x + 0.25);
  }
}

// A pointer and a __shared__ array plus the thread: written through, read back.
extern "C" __global__ void through_pointers(const float* in, float* out, int n) {
  __shared__ float s[256];
  float* mine = s + threadIdx.x;
  const float* src = in + blockIdx.x * blockDim.x + threadIdx.x;
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  *mine = i < n ? *src : 0.0f;
  __syncthreads();
  if (i < n) out[i] = s[blockDim.x - 1 - threadIdx.x] + *(s + threadIdx.x);
}
"""


def expected_sums(n: int, block: int, big: int, negative: int, low: int, high: int) -> np.ndarray:
    i = np.arange(n, dtype=np.int64)
    t = i % block
    b = i // block
    wrap = lambda v: ((v + 2**31) % 2**32 - 2**31).astype(np.int64)  # noqa: E731  (C++'s int conversion)
    cols = [
        wrap(big + t),
        wrap((negative + t) % 2**32 // 2),
        np.zeros(n, np.int64),
        wrap(3 * b + t),
        2 * b + t,
        (t + 3 < 5).astype(np.int64),
        low + t + high,
        100 - t,
        np.floor(0.5 + t) + np.floor(t + 0.25),
    ]
    return np.stack(cols, axis=1).astype(np.int32).ravel()


@pytest.mark.parametrize("n, block", [(1, 64), (7, 64), (300, 128), (1000, 256)])
def test_sums_keep_their_type_and_value(device, rng, n, block):
    mod = compile_once(SOURCE)
    big = int(rng.integers(2**32 - 40, 2**32 - 1))
    negative = int(rng.integers(-500, -1))
    low, high = int(rng.integers(0, 32)), int(rng.integers(0, 2**20))
    packed = np.array([low | (high << 5)], dtype=np.uint32)
    out = hipkit.zeros(9 * n, np.int32)
    try:
        args = (out, n, np.uint32(big), np.int32(negative), packed.tobytes())
        mod.get_function("sums")[cdiv(n, block), block](*args)
    finally:
        recover(device)
    np.testing.assert_array_equal(out.get(), expected_sums(n, block, big, negative, low, high))


@pytest.mark.parametrize("n", [1, 200, 256, 1000])
def test_pointer_and_shared_array_sums(device, rng, n):
    mod = compile_once(SOURCE)
    host = rng.random(n, dtype=np.float32)
    out = hipkit.zeros(n, np.float32)
    try:
        mod.get_function("through_pointers")[cdiv(n, 256), 256](hipkit.to_device(host), out, n)
    finally:
        recover(device)
    padded = np.zeros(cdiv(n, 256) * 256, np.float32)
    padded[:n] = host
    blocks = padded.reshape(-1, 256)
    expect = (blocks[:, ::-1] + blocks).ravel()[:n]
    np.testing.assert_array_equal(out.get(), expect)
