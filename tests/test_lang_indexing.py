"""Kernel language: thread and block indexing.

``threadIdx``/``blockIdx``/``blockDim``/``gridDim`` and their ``hipThreadIdx_x``
... ``hipGridDim_z`` spellings, ``dim3``/``uint3`` in device code, 1-D, 2-D and
3-D grids and blocks (blocks of 1 and of 1024 threads, grids wider than
65535 blocks), guarded kernels over sizes that are not a multiple of the
block, and grid-stride loops.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

// Each thread writes 12 values at its global linear index:
// threadIdx, blockIdx, blockDim, gridDim (x, y, z each).
__device__ void record(unsigned* out, dim3 t, dim3 b, dim3 bd, dim3 gd) {
  unsigned gx = b.x * bd.x + t.x, gy = b.y * bd.y + t.y, gz = b.z * bd.z + t.z;
  unsigned long long nx = (unsigned long long)gd.x * bd.x, ny = (unsigned long long)gd.y * bd.y;
  unsigned* o = out + 12 * ((gz * ny + gy) * nx + gx);
  const unsigned v[12] = {t.x, t.y, t.z, b.x, b.y, b.z, bd.x, bd.y, bd.z, gd.x, gd.y, gd.z};
  for (int k = 0; k < 12; ++k) o[k] = v[k];
}

extern "C" __global__ void builtins(unsigned* out) {
  record(out, threadIdx, blockIdx, blockDim, gridDim);
}

extern "C" __global__ void hip_macros(unsigned* out) {
  record(out, dim3(hipThreadIdx_x, hipThreadIdx_y, hipThreadIdx_z),
         dim3(hipBlockIdx_x, hipBlockIdx_y, hipBlockIdx_z),
         dim3(hipBlockDim_x, hipBlockDim_y, hipBlockDim_z),
         dim3(hipGridDim_x, hipGridDim_y, hipGridDim_z));
}

extern "C" __global__ void vector_copies(unsigned* out) {
  uint3 t = threadIdx;
  const uint3 b = blockIdx;
  dim3 bd = blockDim;
  dim3 gd(gridDim.x, gridDim.y);  // z defaults to 1 ...
  gd.z = gridDim.z;                // ... and is assignable
  record(out, t, b, bd, gd);
}

// A 3-D array of shape (nz, ny, nx), x fastest; sizes need not divide the block.
extern "C" __global__ void add3d(const float* a, const float* b, float* c, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    size_t i = ((size_t)z * ny + y) * nx + x;
    c[i] = a[i] + 2.0f * b[i];
  }
}

// y = A^T for A of shape (rows, cols), 2-D blocks and grid.
extern "C" __global__ void transpose_naive(const double* a, double* t, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) t[(size_t)c * rows + r] = a[(size_t)r * cols + c];
}

extern "C" __global__ void grid_stride(const int* x, int* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] * 3 - 1;
}
"""


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE)
    recover(device)


# (grid, block): 1-D, 2-D and 3-D, blocks of 1 and 1024 threads, odd sizes.
SHAPES = [
    (1, 1),
    (7, 1),
    (3, 1024),
    (5, 96),
    ((4, 3), (16, 8)),
    ((1, 5), (1, 1024)),
    ((3, 2, 2), (4, 4, 4)),
    ((2, 3, 4), (1, 1, 1)),
    ((1, 1, 3), (8, 2, 64)),
    ((2, 1, 2), (3, 5, 7)),
    ((70000,), (1,)),
]


def _dims(d):
    d = (d,) if isinstance(d, int) else tuple(d)
    return d + (1,) * (3 - len(d))


def expected_indices(grid, block):
    """The 12 recorded values of every thread, indexed [gz, gy, gx, 0..11]."""
    (gx, gy, gz), (bx, by, bz) = _dims(grid), _dims(block)
    z, y, x = np.meshgrid(np.arange(gz * bz), np.arange(gy * by), np.arange(gx * bx), indexing="ij")
    cols = [x % bx, y % by, z % bz, x // bx, y // by, z // bz]
    cols += [np.full_like(x, v) for v in (bx, by, bz, gx, gy, gz)]
    return np.stack(cols, axis=-1).astype(np.uint32)


@pytest.mark.parametrize("kernel", ["builtins", "hip_macros", "vector_copies"])
@pytest.mark.parametrize("grid,block", SHAPES)
def test_thread_and_block_indices(mod, kernel, grid, block):
    want = expected_indices(grid, block)
    out = hipkit.empty(want.size, np.uint32)
    out.fill(0xDEADBEEF)
    mod.get_function(kernel)[grid, block](out)
    np.testing.assert_array_equal(out.get().reshape(want.shape), want)


def test_launch_with_dim3_like_objects(mod):
    class Dim3:
        def __init__(self, x, y=1, z=1):
            self.x, self.y, self.z = x, y, z

    want = expected_indices((2, 3, 2), (5, 2, 3))
    out = hipkit.empty(want.size, np.uint32)
    mod.get_function("builtins").launch(Dim3(2, 3, 2), Dim3(5, 2, 3), (out,))
    np.testing.assert_array_equal(out.get().reshape(want.shape), want)


@pytest.mark.parametrize(
    "shape,block",
    [
        ((5, 9, 13), (4, 4, 4)),
        ((1, 1, 1), (8, 8, 8)),
        ((3, 1, 1030), (1024, 1, 1)),
        ((2, 33, 17), (1, 32, 2)),
        ((70, 3, 2), (2, 2, 16)),
    ],
)
def test_3d_elementwise_with_partial_blocks(mod, rng, shape, block):
    nz, ny, nx = shape
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    c = hipkit.zeros(shape, np.float32)
    grid = (cdiv(nx, block[0]), cdiv(ny, block[1]), cdiv(nz, block[2]))
    mod.get_function("add3d")[grid, block](hipkit.to_device(a), hipkit.to_device(b), c, nx, ny, nz)
    np.testing.assert_array_equal(c.get(), a + np.float32(2) * b)


@pytest.mark.parametrize(
    "rows,cols,block", [(45, 77, (16, 16)), (1, 1000, (32, 32)), (1000, 3, (1, 1)), (129, 129, (8, 128))]
)
def test_2d_transpose(mod, rng, rows, cols, block):
    a = rng.standard_normal((rows, cols))
    t = hipkit.empty((cols, rows), np.float64)
    grid = (cdiv(cols, block[0]), cdiv(rows, block[1]))
    mod.get_function("transpose_naive")[grid, block](hipkit.to_device(a), t, rows, cols)
    np.testing.assert_array_equal(t.get(), a.T)


@pytest.mark.parametrize("n,grid,block", [(10000, 3, 128), (1, 4, 1024), (4097, 1, 1), (999, 1000, 1)])
def test_grid_stride_loop(mod, rng, n, grid, block):
    x = rng.integers(-(10**6), 10**6, n, dtype=np.int32)
    y = hipkit.empty(n, np.int32)
    mod.get_function("grid_stride")[grid, block](hipkit.to_device(x), y, n)
    np.testing.assert_array_equal(y.get(), x * 3 - 1)
