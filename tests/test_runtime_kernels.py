"""Kernel lookup: a kernel is found by its own name and runs the user's code,
whatever else in the process (the C library, other modules) has that name."""

from __future__ import annotations

import numpy as np
import pytest

import hipkit

# step() and advance() are also exported by the GNU C library (the old
# <regexp.h> API), which every process has loaded.
SOURCE = r"""
extern "C" __global__ void step(unsigned* x, unsigned k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 3u + k;
}
extern "C" __global__ void advance(unsigned* x, unsigned k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 5u + k;
}
"""


@pytest.mark.parametrize("name, factor", [("step", 3), ("advance", 5)])
def test_kernel_named_like_a_c_library_function(device, rng, name, factor):
    mod = hipkit.compile(SOURCE)
    kernel = mod.get_function(name)
    host = rng.integers(0, 2**32, 999, dtype=np.uint32)
    k = int(rng.integers(0, 2**32, dtype=np.uint32))
    x = hipkit.to_device(host)
    kernel[8, 128](x, k, host.size)
    np.testing.assert_array_equal(x.get(), host * np.uint32(factor) + np.uint32(k))


def test_same_kernel_name_in_two_modules(device, rng):
    """Two modules each define ``twice``; each module's kernel is its own."""
    template = 'extern "C" __global__ void twice(int* x) { x[threadIdx.x] = %s; }'
    first = hipkit.compile(template % "2 * x[threadIdx.x]").get_function("twice")
    second = hipkit.compile(template % "x[threadIdx.x] + 2").get_function("twice")
    host = rng.integers(-1000, 1000, 64, dtype=np.int32)
    a, b = hipkit.to_device(host), hipkit.to_device(host)
    first[1, 64](a)
    second[1, 64](b)
    np.testing.assert_array_equal(a.get(), 2 * host)
    np.testing.assert_array_equal(b.get(), host + 2)
