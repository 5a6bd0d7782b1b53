"""Kernel language: guards of a thread's index against a size.

``int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) ...`` and
``if (i >= n) return;`` are what nearly every elementwise kernel does.  The
CPU transform proves such a guard the same for every thread of a block and
then runs a copy of the block without it (transform/guards.py); the blocks
where it differs, and those where it cannot prove anything (an index that
wraps, a negative one, one assigned before the test), run the kernel as
written.  Each kernel runs over sizes around the block and vector widths and
is checked against NumPy.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void axpy_exit(float a, const float* x, float* y, int n) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n || n <= i) return;
  y[i] = a * x[i] + y[i];
}

// Two coordinates, the size on the left, an unsigned index.
extern "C" __global__ void scale2d(float* m, int width, unsigned height, float s) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (width > x && y < height) m[y * width + x] *= s;
}

// flags[t] = the guard's value in thread t, for indexes that wrap or start
// negative; each guard is true at the block's first and last thread and false
// between them.
extern "C" __global__ void wrapping_int(int* flags, int offset, int n) {
  int i = offset + threadIdx.x;  // offset near INT_MAX: the unsigned sum wraps
  if (i < n) flags[threadIdx.x] = 1;
}

extern "C" __global__ void wrapping_unsigned(int* flags, unsigned big, unsigned limit) {
  unsigned u = big + threadIdx.x;  // big near 2^32: wraps
  if (u < limit) flags[threadIdx.x] = 1;
}

extern "C" __global__ void negative_start(int* flags, int start, unsigned limit) {
  int k = start + threadIdx.x;  // -5, -4, ...: converted to unsigned, -1 is the largest
  if (k < limit) flags[threadIdx.x] = 1;
}

// Guards in the stretches between barriers: a value that lives across one, an
// early return after one.
extern "C" __global__ void neighbours(const float* in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : -1.0f;
  s[threadIdx.x] = v;
  __syncthreads();
  if (i >= n) return;
  out[i] = v + s[(threadIdx.x + 1) % blockDim.x];
}

// The index changes before the guard: the guard is not proved, the kernel still right.
extern "C" __global__ void shifted(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  i += 3;
  if (i < n) out[i - 3] = in[i] * 2;
}
"""


@pytest.mark.parametrize("n", [1, 5, 8, 63, 64, 65, 255, 256, 257, 1000, 4096])
@pytest.mark.parametrize("kernel", ["axpy", "axpy_exit"])
def test_guarded_axpy(device, rng, kernel, n):
    mod = compile_once(SOURCE)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n + 64, dtype=np.float32)  # past n: must stay as it is
    dy = hipkit.to_device(y)
    try:
        mod.get_function(kernel)[cdiv(n, 64), 64](np.float32(2.5), hipkit.to_device(x), dy, n)
    finally:
        recover(device)
    expect = y.copy()
    expect[:n] = np.float32(2.5) * x + y[:n]
    np.testing.assert_allclose(dy.get(), expect, rtol=1e-6)


@pytest.mark.parametrize("width, height", [(1, 1), (31, 9), (32, 8), (100, 37)])
def test_guard_on_two_coordinates(device, rng, width, height):
    mod = compile_once(SOURCE)
    m = rng.random((height + 2, width), dtype=np.float32)
    dm = hipkit.to_device(m)
    try:
        grid = (cdiv(width, 16), cdiv(height, 8))
        mod.get_function("scale2d")[grid, (16, 8)](dm, width, height, np.float32(3))
    finally:
        recover(device)
    expect = m.copy()
    expect[:height] *= np.float32(3)
    np.testing.assert_array_equal(dm.get(), expect)


def test_guards_on_wrapping_and_negative_indexes(device, rng):
    mod = compile_once(SOURCE)
    block = 128
    t = np.arange(block, dtype=np.int64)
    offset = 2**31 - 1 - int(rng.integers(1, block - 1))
    big = 2**32 - int(rng.integers(2, block - 1))
    start = -int(rng.integers(1, block - 1))
    cases = {
        "wrapping_int": ((offset, offset + 1), (offset + t + 2**31) % 2**32 - 2**31 < offset + 1),
        "wrapping_unsigned": ((np.uint32(big), np.uint32(big + 1)), (big + t) % 2**32 < big + 1),
        "negative_start": ((start, np.uint32(2**32 - 1)), (start + t) % 2**32 < 2**32 - 1),
    }
    for name, (args, expect) in cases.items():
        assert expect[0] and expect[-1] and not expect.all()  # the case the proof must refuse
        flags = hipkit.zeros(block, np.int32)
        try:
            mod.get_function(name)[1, block](flags, *args)
        finally:
            recover(device)
        np.testing.assert_array_equal(flags.get(), expect.astype(np.int32), err_msg=name)


@pytest.mark.parametrize("n", [3, 100, 300])
def test_index_assigned_before_its_guard(device, rng, n):
    mod = compile_once(SOURCE)
    src = rng.integers(-1000, 1000, n, dtype=np.int32)
    out = hipkit.zeros(n, np.int32)
    try:
        mod.get_function("shifted")[cdiv(n, 64), 64](hipkit.to_device(src), out, n)
    finally:
        recover(device)
    expect = np.zeros(n, np.int32)
    expect[: max(n - 3, 0)] = 2 * src[3:]
    np.testing.assert_array_equal(out.get(), expect)


@pytest.mark.parametrize("n", [1, 9, 255, 256, 600])
def test_guards_between_barriers(device, rng, n):
    mod = compile_once(SOURCE)
    x = rng.random(n, dtype=np.float32)
    out = hipkit.zeros(n + 8, np.float32)
    try:
        mod.get_function("neighbours")[cdiv(n, 256), 256](hipkit.to_device(x), out, n)
    finally:
        recover(device)
    v = np.full(cdiv(n, 256) * 256, -1, np.float32)
    v[:n] = x
    blocks = v.reshape(-1, 256)
    expect = np.zeros(n + 8, np.float32)
    expect[:n] = (blocks + np.roll(blocks, -1, axis=1)).ravel()[:n]
    np.testing.assert_array_equal(out.get(), expect)
