"""Kernel language: device globals, printf and assert.

``__device__`` variables and arrays (initialized and not, written by kernels,
read and written by the host through ``Module.get_global``), ``__constant__``
arrays set from the host and read by kernels, a ``__device__`` struct; device
``printf`` (exact lines, in any order across threads) and ``assert`` that
holds.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>
#include <cassert>
#include <cstdio>

__constant__ float coeffs[8];                    // set from the host
__constant__ double table[3] = {1.5, -2.25, 4.0};  // initialized
__device__ int magic = 42;
__device__ unsigned long long counter;
__device__ float scratch[1000];
__device__ int per_module[4] = {1, 2, 3, 4};  // only test_each_module_has_its_own_globals uses it
struct Stats {
  int count;
  float sum;
  double sum_sq;
};
__device__ Stats stats;

__device__ float horner(float x) {
  float r = 0.0f;
  for (int k = 7; k >= 0; --k) r = r * x + coeffs[k];
  return r;
}

extern "C" __global__ void eval_poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = horner(x[i]);
}

extern "C" __global__ void use_table(const int* k, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = table[k[i] % 3] * magic;
}

extern "C" __global__ void count_and_stash(const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&counter, 1ull);
    scratch[i] = 2.0f * x[i];
    atomicAdd(&stats.count, 1);
    atomicAdd(&stats.sum, x[i]);
    atomicAdd(&stats.sum_sq, (double)x[i] * x[i]);
  }
}

extern "C" __global__ void read_scratch(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scratch[i] + (float)magic;
}

extern "C" __global__ void bump_magic(int by) { magic += by; }

extern "C" __global__ void hello(const int* v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("block %d thread %d value %d\n", (int)blockIdx.x, (int)threadIdx.x, v[i]);
}

// printf and assert after barriers.
extern "C" __global__ void hello_after_barrier(const int* v) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = v[blockIdx.x * blockDim.x + t];
  __syncthreads();
  assert(s[t] == v[blockIdx.x * blockDim.x + t]);
  printf("block %d thread %d mirror %d\n", (int)blockIdx.x, t, s[blockDim.x - 1 - t]);
}

struct Limits {
  int lo, hi;
  float scale;
};
__constant__ Limits limits;

extern "C" __global__ void clamp_scale(const int* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = min(max(x[i], limits.lo), limits.hi) * limits.scale;
}

extern "C" __global__ void formats(int i, unsigned u, long long ll, double d, float f, char c) {
  printf("i=%d u=%u ll=%lld x=%x f=%.3f e=%e g=%g c=%c s=%s pct=%% p5=%5d|%-5d|\n",
         i, u, ll, u, d, d, (double)f, c, "str", i, i);
}

extern "C" __global__ void checked(const int* x, int* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    assert(x[i] >= 0);
    assert(i < n && "index in range");
    y[i] = x[i] / 2;
  }
}
"""

STATS = np.dtype([("count", "i4"), ("sum", "f4"), ("sum_sq", "f8")], align=True)


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE)
    recover(device)


@pytest.mark.parametrize("n,block", [(1, 1), (1000, 256), (2000, 1024)])
def test_constant_array_set_from_host(mod, rng, n, block):
    c = rng.uniform(-1, 1, 8).astype(np.float32)
    coeffs = mod.get_global("coeffs", np.float32)
    assert coeffs.shape == (8,)
    coeffs.set(c)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = hipkit.empty(n, np.float32)
    mod.get_function("eval_poly")[cdiv(n, block), block](hipkit.to_device(x), y, n)
    np.testing.assert_allclose(y.get(), np.polyval(c[::-1].astype(np.float64), x), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(coeffs.get(), c)


def test_initialized_globals(mod, rng):
    np.testing.assert_array_equal(mod.get_global("table", np.float64).get(), [1.5, -2.25, 4.0])
    magic = mod.get_global("magic", np.int32)
    magic.set(42)  # other tests change it
    n = 500
    k = rng.integers(0, 1000, n, dtype=np.int32)
    y = hipkit.empty(n, np.float64)
    mod.get_function("use_table")[cdiv(n, 128), 128](hipkit.to_device(k), y, n)
    np.testing.assert_array_equal(y.get(), np.array([1.5, -2.25, 4.0])[k % 3] * 42)


@pytest.mark.parametrize("n,block", [(1, 1), (1000, 64), (1000, 1000)])
def test_device_globals_written_by_kernels(mod, rng, n, block):
    mod.get_global("counter", np.uint64).set(0)
    stats = mod.get_global("stats", STATS)
    stats.set(np.zeros(1, STATS))
    magic = mod.get_global("magic", np.int32)
    magic.set(7)
    x = rng.integers(-50, 50, n).astype(np.float32)  # integer-valued: exact sums in any order
    mod.get_function("count_and_stash")[cdiv(n, block), block](hipkit.to_device(x), n)
    y = hipkit.empty(n, np.float32)
    mod.get_function("read_scratch")[cdiv(n, block), block](y, n)
    np.testing.assert_array_equal(y.get(), 2 * x + 7)
    assert mod.get_global("counter", np.uint64).get()[0] == n
    np.testing.assert_array_equal(mod.get_global("scratch", np.float32).get()[:n], 2 * x)
    got = stats.get()[0]
    assert got["count"] == n and got["sum"] == x.sum() and got["sum_sq"] == (x.astype(np.float64) ** 2).sum()
    mod.get_function("bump_magic")[1, 1](-3)
    assert magic.get()[0] == 4


def test_printf_from_many_threads(mod, rng, capfd):
    grid, block = 3, 5
    v = rng.integers(-1000, 1000, grid * block, dtype=np.int32)
    capfd.readouterr()
    mod.get_function("hello")[grid, block](hipkit.to_device(v))
    hipkit.synchronize()
    lines = capfd.readouterr().out.splitlines()
    want = [f"block {b} thread {t} value {v[b * block + t]}" for b in range(grid) for t in range(block)]
    assert sorted(lines) == sorted(want)


def test_printf_and_assert_after_barrier(mod, rng, capfd):
    grid, block = 2, 37
    v = rng.integers(-1000, 1000, grid * block, dtype=np.int32)
    capfd.readouterr()
    mod.get_function("hello_after_barrier")[grid, block](hipkit.to_device(v))
    hipkit.synchronize()
    lines = capfd.readouterr().out.splitlines()
    want = [
        f"block {b} thread {t} mirror {v[b * block + block - 1 - t]}"
        for b in range(grid)
        for t in range(block)
    ]
    assert sorted(lines) == sorted(want)


def test_constant_struct(mod, rng):
    limits = np.zeros(1, np.dtype([("lo", "i4"), ("hi", "i4"), ("scale", "f4")]))
    limits[0] = (-100, 250, 0.5)
    mod.get_global("limits", limits.dtype).set(limits)
    n = 1000
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    y = hipkit.empty(n, np.float32)
    mod.get_function("clamp_scale")[cdiv(n, 256), 256](hipkit.to_device(x), y, n)
    np.testing.assert_array_equal(y.get(), np.clip(x, -100, 250) * np.float32(0.5))


def test_printf_formats(mod, capfd):
    capfd.readouterr()
    mod.get_function("formats")[1, 1](-42, 3735928559, -(2**40), 3.14159265, 0.5, ord("Z"))
    hipkit.synchronize()
    out = capfd.readouterr().out
    want = (
        "i=-42 u=3735928559 ll=-1099511627776 x=deadbeef f=3.142 e=3.141593e+00 g=0.5 c=Z "
        "s=str pct=% p5=  -42|-42  |\n"
    )
    assert out == want


@pytest.mark.parametrize("n,block", [(1, 1), (5000, 256)])
def test_assert_that_holds(mod, rng, n, block):
    x = rng.integers(0, 1000, n, dtype=np.int32)
    y = hipkit.empty(n, np.int32)
    mod.get_function("checked")[cdiv(n, block), block](hipkit.to_device(x), y, n)
    hipkit.synchronize()
    np.testing.assert_array_equal(y.get(), x // 2)


def test_each_module_has_its_own_globals(mod):
    # Two loads of the same code are two modules (hipModuleLoadData twice),
    # each with its own initialized copy of every device variable.
    other = hipkit.compile(SOURCE)
    mine, theirs = mod.get_global("per_module", np.int32), other.get_global("per_module", np.int32)
    np.testing.assert_array_equal(theirs.get(), [1, 2, 3, 4])
    mine.set([5, 6, 7, 8])
    np.testing.assert_array_equal(theirs.get(), [1, 2, 3, 4])
    np.testing.assert_array_equal(mine.get(), [5, 6, 7, 8])
