"""The seed's first HIP program, vector add, written with hipkit's Python API.

The kernel is the seed's vector_add.cpp kernel, unchanged.  Runs on the default
platform (HIPKIT_PLATFORM chooses another), checks every element against NumPy
and prints the bandwidth the kernel achieved.

    python examples/vector_add.py [--n N] [--repeat R]
"""

import argparse
import sys

import numpy as np

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

__global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        C[idx] = A[idx] + B[idx];
    }
}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="number of floats (seed: 10^6)")
    parser.add_argument("--repeat", type=int, default=20, help="timed launches")
    args = parser.parse_args()
    n = args.n
    block_size = 256
    grid_size = (n + block_size - 1) // block_size

    h_a = np.arange(n, dtype=np.float32)
    h_b = h_a * 2

    device = hipkit.get_device()
    vector_add = hipkit.compile(SOURCE, name="vector_add.cpp").get_function("vectorAdd")
    d_a = hipkit.to_device(h_a)
    d_b = hipkit.to_device(h_b)
    d_c = hipkit.empty(n, np.float32)

    vector_add[grid_size, block_size](d_a, d_b, d_c, n)
    hipkit.synchronize()
    passed = np.array_equal(d_c.get(), h_a + h_b)

    start, stop = hipkit.Event(), hipkit.Event()
    vector_add[grid_size, block_size](d_a, d_b, d_c, n)  # warm-up
    start.record()
    for _ in range(args.repeat):
        vector_add[grid_size, block_size](d_a, d_b, d_c, n)
    stop.record()
    stop.synchronize()
    seconds = start.elapsed_time(stop) / 1e3 / args.repeat

    print(f"Device: {device.name} ({device.platform.name}, warp size {device.warp_size})")
    print("Vector add test PASSED!" if passed else "Vector add test FAILED: results differ from NumPy")
    print(
        f"{n} floats: {seconds * 1e6:.1f} us per kernel, "
        f"{3 * n * 4 / seconds / 1e9:.1f} GB/s (read A and B, write C)"
    )
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
