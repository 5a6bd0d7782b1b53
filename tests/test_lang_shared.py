"""Kernel language: shared memory.

Static ``__shared__`` arrays (1-D, 2-D, of structs and vector types, in nested
scopes and in device functions), dynamic ``extern __shared__`` sized at launch
(``shared_mem=``), ``HIP_DYNAMIC_SHARED``, an ``extern __shared__`` declared at
file scope and used by a kernel and a device function, static and dynamic
shared memory together, and shared memory being private to each block.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

#define TILE 32

// Reverse each block's part of x (the last block may be partial).
extern "C" __global__ void reverse_static(const float* x, float* y, int n) {
  __shared__ float s[1024];
  int base = blockIdx.x * blockDim.x, t = threadIdx.x;
  int valid = min((int)blockDim.x, n - base);
  if (t < valid) s[t] = x[base + t];
  __syncthreads();
  if (t < valid) y[base + t] = s[valid - 1 - t];
}

// Tiled transpose through a padded 2-D shared array; blocks of TILE x 8.
extern "C" __global__ void transpose_tiled(const float* a, float* t, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += blockDim.y)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = a[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += blockDim.y)
    if (x < rows && y + j < cols) t[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void reverse_dynamic(const float* x, float* y, int n) {
  extern __shared__ float dyn[];
  int base = blockIdx.x * blockDim.x, t = threadIdx.x;
  int valid = min((int)blockDim.x, n - base);
  if (t < valid) dyn[t] = x[base + t];
  __syncthreads();
  if (t < valid) y[base + t] = dyn[valid - 1 - t];
}

// Dynamic shared memory split into a double part and an int part.
extern "C" __global__ void split_dynamic(const double* x, const int* k, double* y, int* m, int n) {
  extern __shared__ double raw[];
  double* d = raw;
  int* ints = reinterpret_cast<int*>(d + blockDim.x);
  int base = blockIdx.x * blockDim.x, t = threadIdx.x;
  int valid = min((int)blockDim.x, n - base);
  if (t < valid) {
    d[t] = x[base + t];
    ints[t] = k[base + t];
  }
  __syncthreads();
  if (t < valid) {
    y[base + t] = d[(t + 1) % valid] - d[t];
    m[base + t] = ints[valid - 1 - t] * 2;
  }
}

extern "C" __global__ void rotate_hip_dynamic(const int* x, int* y, int n, int shift) {
  HIP_DYNAMIC_SHARED(int, buf)
  int base = blockIdx.x * blockDim.x, t = threadIdx.x;
  int valid = min((int)blockDim.x, n - base);
  if (t < valid) buf[t] = x[base + t];
  __syncthreads();
  if (t < valid) y[base + t] = buf[(t + shift) % valid];
}

// File-scope dynamic shared memory, used by a kernel and by a device function.
extern __shared__ double file_scope_buf[];

__device__ double neighbours(int t, int valid) {
  return file_scope_buf[(t + valid - 1) % valid] + file_scope_buf[(t + 1) % valid];
}

extern "C" __global__ void smooth_file_scope(const double* x, double* y, int n) {
  int base = blockIdx.x * blockDim.x, t = threadIdx.x;
  int valid = min((int)blockDim.x, n - base);
  if (t < valid) file_scope_buf[t] = x[base + t];
  __syncthreads();
  if (t < valid) y[base + t] = 0.5 * file_scope_buf[t] + 0.25 * neighbours(t, valid);
}

// Static and dynamic shared memory in one kernel: distinct storage.
extern "C" __global__ void static_and_dynamic(const int* x, int* y, int n) {
  __shared__ int fixed[256];
  extern __shared__ int extra[];
  int base = blockIdx.x * blockDim.x, t = threadIdx.x;
  int valid = min((int)blockDim.x, n - base);
  if (t < valid) {
    fixed[t] = x[base + t];
    extra[t] = -x[base + t];
  }
  __syncthreads();
  if (t < valid) y[base + t] = fixed[valid - 1 - t] * 1000 + extra[t];
}

struct Pair {
  int key;
  float value;
};

// Shared arrays of a struct and of float4, a shared scalar, and a shared array
// declared in a nested scope.
extern "C" __global__ void shared_aggregates(const int* keys, const float4* v, int* out_key,
                                             float4* out_v, int* block_max, int n) {
  __shared__ Pair pairs[128];
  __shared__ float4 vecs[128];
  __shared__ int best;
  int base = blockIdx.x * blockDim.x, t = threadIdx.x, i = base + t;
  int valid = min((int)blockDim.x, n - base);
  if (t == 0) best = -2147483647 - 1;
  if (t < valid) {
    pairs[t].key = keys[i];
    pairs[t].value = (float)t;
    vecs[t] = v[i];
  }
  __syncthreads();
  if (t < valid) atomicMax(&best, pairs[t].key);
  {
    __shared__ int scratch[128];
    if (t < valid) scratch[t] = pairs[valid - 1 - t].key;
    __syncthreads();
    if (t < valid) {
      out_key[i] = scratch[t] + (int)pairs[t].value;
      float4 a = vecs[valid - 1 - t];
      out_v[i] = make_float4(a.w, a.z, a.y, a.x);
    }
  }
  if (t == 0) block_max[blockIdx.x] = best;
}

// A __shared__ variable declared inside a device function (one per block).
__device__ int block_sum(int v) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, v);
  __syncthreads();
  return total;
}

extern "C" __global__ void shared_in_device_function(const int* x, int* sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = block_sum(i < n ? x[i] : 0);
  if (i < n) sums[i] = s;
}

// Touches every byte of the dynamic shared memory it is given.
extern "C" __global__ void fill_all_dynamic(unsigned* sums, unsigned words) {
  extern __shared__ unsigned all[];
  for (unsigned k = threadIdx.x; k < words; k += blockDim.x) all[k] = k * 2654435761u + blockIdx.x;
  __syncthreads();
  unsigned acc = 0;
  for (unsigned k = threadIdx.x; k < words; k += blockDim.x) acc += all[words - 1 - k];
  atomicAdd(&sums[blockIdx.x], acc);
}

// Shared memory is per block: each block counts its own threads.
extern "C" __global__ void per_block_counter(int* counts) {
  __shared__ int counter;
  if (threadIdx.x == 0 && threadIdx.y == 0) counter = 0;
  __syncthreads();
  atomicAdd(&counter, 1);
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) counts[blockIdx.x + gridDim.x * blockIdx.y] = counter;
}
"""


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE)
    recover(device)


def blockwise(x, block, fn):
    """fn applied to each block-sized chunk of x (the last one partial)."""
    return np.concatenate([fn(x[s : s + block]) for s in range(0, len(x), block)])


SIZES_BLOCKS = [(1, 1), (100, 1), (1000, 256), (1500, 1024), (257, 64)]


@pytest.mark.parametrize("n,block", SIZES_BLOCKS)
def test_static_1d(mod, rng, n, block):
    x = rng.standard_normal(n).astype(np.float32)
    y = hipkit.empty(n, np.float32)
    mod.get_function("reverse_static")[cdiv(n, block), block](hipkit.to_device(x), y, n)
    np.testing.assert_array_equal(y.get(), blockwise(x, block, lambda c: c[::-1]))


@pytest.mark.parametrize("rows,cols,block_rows", [(45, 77, 8), (32, 32, 32), (1, 100, 1), (200, 3, 4)])
def test_static_2d_tiled_transpose(mod, rng, rows, cols, block_rows):
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    t = hipkit.empty((cols, rows), np.float32)
    grid = (cdiv(cols, 32), cdiv(rows, 32))
    mod.get_function("transpose_tiled")[grid, (32, block_rows)](hipkit.to_device(a), t, rows, cols)
    np.testing.assert_array_equal(t.get(), a.T)


@pytest.mark.parametrize("n,block", SIZES_BLOCKS)
def test_dynamic_extern_shared(mod, rng, n, block):
    x = rng.standard_normal(n).astype(np.float32)
    y = hipkit.empty(n, np.float32)
    kernel = mod.get_function("reverse_dynamic")
    kernel[cdiv(n, block), block, 4 * block](hipkit.to_device(x), y, n)
    np.testing.assert_array_equal(y.get(), blockwise(x, block, lambda c: c[::-1]))
    y2 = hipkit.empty(n, np.float32)
    kernel.launch(cdiv(n, block), block, (hipkit.to_device(x), y2, n), shared_mem=4 * block + 100)
    np.testing.assert_array_equal(y2.get(), y.get())


@pytest.mark.parametrize("n,block", SIZES_BLOCKS)
def test_dynamic_shared_of_two_types(mod, rng, n, block):
    x = rng.standard_normal(n)
    k = rng.integers(-1000, 1000, n, dtype=np.int32)
    y, m = hipkit.empty(n, np.float64), hipkit.empty(n, np.int32)
    mod.get_function("split_dynamic").launch(
        cdiv(n, block), block, (hipkit.to_device(x), hipkit.to_device(k), y, m, n), shared_mem=12 * block
    )
    np.testing.assert_array_equal(y.get(), blockwise(x, block, lambda c: np.roll(c, -1) - c))
    np.testing.assert_array_equal(m.get(), blockwise(k, block, lambda c: c[::-1] * 2))


@pytest.mark.parametrize("n,block", SIZES_BLOCKS)
def test_hip_dynamic_shared(mod, rng, n, block):
    x = rng.integers(-(10**6), 10**6, n, dtype=np.int32)
    shift = int(rng.integers(0, 50))
    y = hipkit.empty(n, np.int32)
    mod.get_function("rotate_hip_dynamic")[cdiv(n, block), block, 4 * block](hipkit.to_device(x), y, n, shift)
    np.testing.assert_array_equal(y.get(), blockwise(x, block, lambda c: np.roll(c, -(shift % len(c)))))


@pytest.mark.parametrize("n,block", SIZES_BLOCKS)
def test_file_scope_extern_shared(mod, rng, n, block):
    x = rng.standard_normal(n)
    y = hipkit.empty(n, np.float64)
    mod.get_function("smooth_file_scope")[cdiv(n, block), block, 8 * block](hipkit.to_device(x), y, n)

    def smooth(c):
        return 0.5 * c + 0.25 * (np.roll(c, 1) + np.roll(c, -1))

    np.testing.assert_allclose(y.get(), blockwise(x, block, smooth), rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("n,block", [(1, 1), (1000, 256), (300, 100)])
def test_static_and_dynamic_together(mod, rng, n, block):
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    y = hipkit.empty(n, np.int32)
    mod.get_function("static_and_dynamic")[cdiv(n, block), block, 4 * block](hipkit.to_device(x), y, n)
    np.testing.assert_array_equal(y.get(), blockwise(x, block, lambda c: c[::-1] * 1000 - c))


@pytest.mark.parametrize("n,block", [(1, 1), (1000, 128), (129, 64)])
def test_shared_structs_vectors_and_nested_scopes(mod, rng, n, block):
    keys = rng.integers(-(10**6), 10**6, n, dtype=np.int32)
    v = rng.standard_normal((n, 4)).astype(np.float32)
    out_key, out_v = hipkit.empty(n, np.int32), hipkit.empty((n, 4), np.float32)
    nblocks = cdiv(n, block)
    block_max = hipkit.empty(nblocks, np.int32)
    mod.get_function("shared_aggregates")[nblocks, block](
        hipkit.to_device(keys), hipkit.to_device(v), out_key, out_v, block_max, n
    )
    np.testing.assert_array_equal(
        out_key.get(), blockwise(keys, block, lambda c: c[::-1] + np.arange(len(c)))
    )
    np.testing.assert_array_equal(out_v.get(), blockwise(v, block, lambda c: c[::-1, ::-1]))
    np.testing.assert_array_equal(block_max.get(), [keys[s : s + block].max() for s in range(0, n, block)])


@pytest.mark.parametrize("n,block", [(1, 1), (1000, 256), (70, 32)])
def test_shared_in_device_function(mod, rng, n, block):
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    sums = hipkit.empty(n, np.int32)
    mod.get_function("shared_in_device_function")[cdiv(n, block), block](hipkit.to_device(x), sums, n)
    np.testing.assert_array_equal(sums.get(), blockwise(x, block, lambda c: np.full(len(c), c.sum())))


@pytest.mark.parametrize("block", [1, 256, 1024])
def test_all_of_the_dynamic_shared_memory(mod, device, block):
    nbytes = device.properties.sharedMemPerBlock
    words = nbytes // 4
    grid = 3
    sums = hipkit.zeros(grid, np.uint32)
    mod.get_function("fill_all_dynamic")[grid, block, nbytes](sums, words)
    k = np.arange(words, dtype=np.uint64)
    base = (k * 2654435761 % 2**32).sum()
    want = [(base + b * words) % 2**32 for b in range(grid)]
    np.testing.assert_array_equal(sums.get(), want)


@pytest.mark.parametrize("grid,block", [((37, 3), (5, 7)), ((1000, 1), (1, 1)), ((2, 2), (32, 32))])
def test_shared_memory_is_per_block(mod, grid, block):
    counts = hipkit.zeros(grid[0] * grid[1], np.int32)
    mod.get_function("per_block_counter")[grid, block](counts)
    np.testing.assert_array_equal(counts.get(), block[0] * block[1])
