"""Kernel language: loops of shuffles that fold a variable into itself.

``for (int d = warpSize / 2; d > 0; d >>= 1) v += __shfl_down(v, d);`` is the warp
reduction's idiom.  The CPU does such a loop over each warp in vector registers
(exec_warp_rounds.h) where every thread of whole warps takes part, and one pass
over the block a round otherwise (masks of parts of warps, a partial last warp).
Every lane's value is checked against HIP's rule, round by round: a lane whose
source lies past its warp or past the block takes its own value.  Deltas go up by
powers of two (each a constant permute on the CPU) or down by a step (any delta,
beyond the warp too); the operations are those of the idiom on integers and on
floating point (compared exactly: each round is one IEEE operation per lane).
"""

import os
import subprocess
import sys

import numpy as np
import pytest
from lang_helpers import compile_once, recover

import hipkit
from hipkit import platforms

SOURCE = r"""
#include <hip/hip_runtime.h>

// Every lane of v after the rounds: deltas first, 2 first, 4 first, ... below limit
// (pattern 0) or limit, limit - first, ... down to first (pattern 1), in the threads
// of the warps below `warps` (a branch of whole warps; the loop is uniform in it).
#define ROUNDS(OP)                                                                  \
  if (pattern == 0)                                                                 \
    for (int d = first; d < limit; d *= 2) v OP __shfl_down(v, d);                  \
  else                                                                              \
    for (int d = limit; d >= first; d -= first) v OP __shfl_down(v, d);

template <typename T>
__global__ void integer_rounds(const T* in, T* out, int op, int pattern, int first, int limit, int warps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[i];
  if ((int)(threadIdx.x / warpSize) < warps) {
    if (op == 0) {
      ROUNDS(+=)
    } else if (op == 1) {
      ROUNDS(^=)
    } else {
      ROUNDS(|=)
    }
  }
  out[i] = v;
}

template <typename T>
__global__ void float_rounds(const T* in, T* out, int op, int pattern, int first, int limit, int warps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[i];
  if ((int)(threadIdx.x / warpSize) < warps) {
    if (op == 0) {
      ROUNDS(+=)
    } else if (op == 1) {
      ROUNDS(*=)
    } else {
      ROUNDS(-=)
    }
  }
  out[i] = v;
}

// The idiom at the top of a kernel, every thread taking part: the sum of each warp.
extern "C" __global__ void warp_sums(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
  out[i] = v;
}
"""

INTEGERS = {"int": np.int32, "unsigned int": np.uint32, "long long": np.int64}
FLOATS = {"float": np.float32, "double": np.float64}
NAMES = [f"integer_rounds<{t}>" for t in INTEGERS] + [f"float_rounds<{t}>" for t in FLOATS]
OPERATIONS = {
    "integer": (np.add, np.bitwise_xor, np.bitwise_or),
    "float": (np.add, np.multiply, np.subtract),
}


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE, NAMES)
    recover(device)


def deltas_of(pattern: int, first: int, limit: int) -> list[int]:
    if pattern == 0:
        return [d for d in (first << k for k in range(12)) if d < limit]
    return list(range(limit, first - 1, -first))


def rounds_reference(x, operation, deltas, block, warp_size, warps):
    """Each round as HIP defines __shfl_down, in the threads of warps below ``warps``."""
    n = len(x)
    t = np.arange(n) % block
    lane = t % warp_size
    taking_part = t // warp_size < warps
    v = x.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        for d in deltas:
            d = min(d, warp_size)  # HIP's delta is unsigned; a warp or more leaves each lane its own value
            inside = (lane + d < warp_size) & (t + d < block)
            source = np.where(inside, v[np.where(inside, np.arange(n) + d, 0)], v)
            v = np.where(taking_part, operation(v, source), v)
    return v


def launches(device):
    """(block, warps taking part): whole warps, one warp, a partial last warp (not on
    NVIDIA, where a source past the block's last thread is undefined)."""
    W = device.warp_size
    cases = [(4 * W, 4), (4 * W, 1), (2 * W, 0), (W, 1)]
    if device.platform.name != "nvidia":
        cases += [(3 * W + 5, 4), (3 * W + 5, 2)]
    return cases


@pytest.mark.parametrize("kind", ["integer", "float"])
@pytest.mark.parametrize("pattern,first,limit", [(0, 1, 64), (0, 2, 40), (1, 7, 45), (1, 13, 100)])
def test_every_lane_after_the_rounds(mod, rng, device, kind, pattern, first, limit):
    W, grid = device.warp_size, 3
    if device.platform.name == "nvidia" and limit > W:
        limit = W - 1  # CUDA takes a delta of a warp or more modulo 32; HIP gives the own value
    types = INTEGERS if kind == "integer" else FLOATS
    deltas = deltas_of(pattern, first, limit)
    for ctype, dtype in types.items():
        kernel = mod.get_function(f"{kind}_rounds<{ctype}>")
        for block, warps in launches(device):
            n = grid * block
            if kind == "integer":
                x = rng.integers(0, 2**20, n).astype(dtype)
            else:
                x = rng.uniform(0.5, 1.5, n).astype(dtype)
            for op, operation in enumerate(OPERATIONS[kind]):
                out = hipkit.empty(n, dtype)
                kernel[grid, block](hipkit.to_device(x), out, op, pattern, first, limit, warps)
                want = rounds_reference(x, operation, deltas, block, W, warps)
                np.testing.assert_array_equal(
                    out.get(), want, err_msg=f"{ctype}, operation {op}, block {block}, warps {warps}"
                )


@pytest.mark.parametrize("grid,block", [(1, 64), (5, 256), (2, 1024), (3, 96)])
def test_warp_sums(mod, rng, device, grid, block):
    """The idiom as written in reductions: lane 0 of each warp holds its warp's sum
    (integer-valued floats, so that any order of the additions gives it exactly)."""
    W = device.warp_size
    if block % W:
        pytest.skip(f"block {block} is not a whole number of warps of {W}")
    x = rng.integers(-1000, 1000, grid * block).astype(np.float32)
    out = hipkit.empty(grid * block, np.float32)
    mod.get_function("warp_sums")[grid, block](hipkit.to_device(x), out)
    np.testing.assert_array_equal(out.get()[::W], x.reshape(-1, W).sum(axis=1))
    want = rounds_reference(x, np.add, [W >> k for k in range(1, W.bit_length())], block, W, block // W)
    if device.platform.name != "nvidia":  # every lane, as HIP defines it
        np.testing.assert_array_equal(out.get(), want)


@pytest.mark.skipif(bool(platforms.status()["cpu"]), reason="the CPU platform is absent")
@pytest.mark.skipif(os.environ.get("HIPKIT_CPU_WARP_SIZE") == "32", reason="already at warp size 32")
def test_at_warp_size_32():
    """The same tests on the CPU with warps of 32 (2 vectors of a warp on AVX-512, 4 on AVX2)."""
    env = {**os.environ, "HIPKIT_CPU_WARP_SIZE": "32", "HIPKIT_PLATFORM": "cpu"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        __file__,
        "-k",
        "cpu and not fiber",
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
