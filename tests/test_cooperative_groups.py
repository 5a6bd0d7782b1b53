"""Cooperative groups from Python (hip/hip_cooperative_groups.h), on every device.

Tiles of every size up to the warp (static and dynamic), coalesced groups in a
divergent branch, their shuffles, votes and matches, cg::reduce and the scans with
each operator, against NumPy on fresh random data; grid.sync() in a cooperative
launch (phase 2 reads what other blocks wrote in phase 1); and the errors: a grid
too large to be co-resident, grid.sync() in a plain launch, an invalid tile size.
On the CPU each test runs at both warp sizes (HIPKIT_CPU_WARP_SIZE).
"""

import numpy as np
import pytest
from lang_helpers import compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;

// Per thread, 10 results of its N-thread tile.
template <unsigned N>
__global__ void tile_ops(const int* in, const int* src, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const int i = blockIdx.x * blockDim.x + block.thread_rank();
  const int v = in[i];
  int* o = out + 12 * i;
  o[0] = cg::reduce(tile, v, cg::plus<int>());
  o[1] = cg::reduce(tile, v, cg::less<int>());
  o[2] = cg::reduce(tile, v, cg::greater<int>());
  o[3] = cg::reduce(tile, v, cg::bit_xor<int>());
  o[4] = cg::inclusive_scan(tile, v, cg::plus<int>());
  o[5] = cg::exclusive_scan(tile, v);
  o[6] = tile.shfl(v, src[i]);
  o[7] = tile.shfl_down(v, 1) + tile.shfl_up(v, 2) + tile.shfl_xor(v, N - 1);
  o[8] = (int)tile.ballot(v > 0);
  o[9] = tile.any(v > 40) + 2 * tile.all(v > -40);
  o[10] = (int)tile.match_any(v & 3);
  o[11] = tile.thread_rank() + 1000 * tile.meta_group_rank() + 100000 * tile.meta_group_size();
}

// Dynamic tiles: thread_group results of a tile of n.
extern "C" __global__ void dynamic_tiles(const int* in, unsigned n, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group tile = cg::tiled_partition(block, n);
  const int i = blockIdx.x * blockDim.x + block.thread_rank();
  tile.sync();
  out[3 * i] = tile.thread_rank();
  out[3 * i + 1] = tile.size();
  out[3 * i + 2] = cg::group_size(tile) + cg::thread_rank(tile) + in[i] * 0;
}

// The lanes with in[i] odd form a coalesced group; each gets its group's sum,
// inclusive scan, rank and size.
extern "C" __global__ void coalesced(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  out[4 * i] = out[4 * i + 1] = out[4 * i + 2] = out[4 * i + 3] = -1;
  if (v & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    out[4 * i] = cg::reduce(active, v, cg::plus<int>());
    out[4 * i + 1] = cg::inclusive_scan(active, v, cg::plus<int>());
    out[4 * i + 2] = active.thread_rank();
    out[4 * i + 3] = active.size() + 1000 * (int)active.ballot(v > 0);
  }
}

// Phase 1 writes one value per thread; after grid.sync() each reads a value
// another block wrote.
extern "C" __global__ void two_phase(int* data, int* out, int shift) {
  cg::grid_group grid = cg::this_grid();
  const int i = grid.thread_rank();
  const int n = grid.size();
  data[i] = 3 * i + 1;
  grid.sync();
  const int j = (i + shift) % n;
  out[i] = data[j] + (grid.is_valid() ? 0 : 1 << 30);
  grid.sync();
  data[i] = out[(i + 1) % n];
}

extern "C" __global__ void grid_valid(int* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = cg::this_grid().is_valid();
}

extern "C" __global__ void sync_not_cooperative(int* out) {
  cg::this_grid().sync();
  out[threadIdx.x] = 1;
}

extern "C" __global__ void bad_tile(unsigned n, int* out) {
  cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), n);
  out[threadIdx.x] = tile.thread_rank();
}
"""

TILES = (1, 2, 4, 8, 16, 32, 64)


@pytest.fixture
def mod(device):
    # Tiles of 64 only where the warp has 64 lanes (a separate build: compile_once
    # builds its sources for NVIDIA too, whose warp has 32).
    return compile_once(SOURCE, name_expressions=[f"tile_ops<{n}>" for n in TILES if n <= 32])


def tile_kernel(mod, device, N):
    if N <= 32:
        return mod.get_function(f"tile_ops<{N}>")
    return hipkit.compile(SOURCE, name_expressions=[f"tile_ops<{N}>"]).get_function(f"tile_ops<{N}>")


def tile_reference(v, src, N, block):
    out = np.zeros((v.size, 12), np.int64)
    for t0 in range(0, v.size, N):
        t = v[t0 : t0 + N].astype(np.int64)
        r = np.arange(N)
        b = t0 % block
        out[t0 : t0 + N, 0] = t.sum()
        out[t0 : t0 + N, 1] = t.min()
        out[t0 : t0 + N, 2] = t.max()
        out[t0 : t0 + N, 3] = np.bitwise_xor.reduce(t)
        out[t0 : t0 + N, 4] = np.cumsum(t)
        out[t0 : t0 + N, 5] = np.concatenate([[0], np.cumsum(t)[:-1]])
        out[t0 : t0 + N, 6] = t[src[t0 : t0 + N] % N]
        down = np.where(r + 1 < N, t[np.minimum(r + 1, N - 1)], t)
        up = np.where(r >= 2, t[np.maximum(r - 2, 0)], t)
        out[t0 : t0 + N, 7] = down + up + t[r ^ (N - 1)]
        out[t0 : t0 + N, 8] = np.int32(np.uint32(sum(1 << k for k in range(N) if t[k] > 0) & 0xFFFFFFFF))
        out[t0 : t0 + N, 9] = int((t > 40).any()) + 2 * int((t > -40).all())
        key = t & 3
        out[t0 : t0 + N, 10] = [
            np.int32(np.uint32(sum(1 << k for k in range(N) if key[k] == key[j]) & 0xFFFFFFFF))
            for j in range(N)
        ]
        out[t0 : t0 + N, 11] = r + 1000 * (b // N) + 100000 * (block // N)
    return out


@pytest.mark.parametrize("N", TILES)
def test_static_tiles(mod, device, rng, N):
    W = device.warp_size
    if N > W:
        pytest.skip(f"tiles are at most the warp ({W})")
    grid, block = 3, 2 * W
    n = grid * block
    v = rng.integers(-50, 50, n, dtype=np.int32)
    src = rng.integers(0, 1000, n, dtype=np.int32)
    out = hipkit.empty(12 * n, np.int32)
    tile_kernel(mod, device, N)[grid, block](hipkit.to_device(v), hipkit.to_device(src), out)
    got = out.get().reshape(n, 12)
    want = tile_reference(v, src, N, block).astype(np.int32)
    recover(device)
    for column in range(12):
        np.testing.assert_array_equal(got[:, column], want[:, column], err_msg=f"tile {N}, result {column}")


@pytest.mark.parametrize("N", [1, 4, 16, 32, 64])
def test_dynamic_tiles(mod, device, rng, N):
    W = device.warp_size
    if N > W:
        pytest.skip(f"tiles are at most the warp ({W})")
    grid, block = 2, 2 * W
    n = grid * block
    out = hipkit.empty(3 * n, np.int32)
    v = rng.integers(0, 9, n, dtype=np.int32)
    mod.get_function("dynamic_tiles")[grid, block](hipkit.to_device(v), N, out)
    got = out.get().reshape(n, 3)
    rank = np.arange(n) % block % N
    recover(device)
    np.testing.assert_array_equal(got[:, 0], rank)
    np.testing.assert_array_equal(got[:, 1], N)
    np.testing.assert_array_equal(got[:, 2], N + rank)


def test_coalesced_group(mod, device, rng):
    W = device.warp_size
    grid, block = 2, 2 * W
    n = grid * block
    v = rng.integers(-100, 100, n, dtype=np.int32)
    out = hipkit.empty(4 * n, np.int32)
    mod.get_function("coalesced")[grid, block](hipkit.to_device(v), out)
    got = out.get().reshape(n, 4)
    recover(device)
    want = np.full((n, 4), -1, np.int64)
    for w0 in range(0, n, W):
        lanes = [k for k in range(w0, w0 + W) if v[k] & 1]
        vals = v[lanes].astype(np.int64)
        ballot = sum(1 << r for r, x in enumerate(vals) if x > 0)
        for r, k in enumerate(lanes):
            want[k] = [vals.sum(), vals[: r + 1].sum(), r, len(lanes) + 1000 * ballot]
    want[:, 3] = want[:, 3].astype(np.int64).astype(np.int32)
    np.testing.assert_array_equal(got, want.astype(np.int32))


def test_grid_sync(mod, device, rng):
    # One block per multiprocessor is co-resident on every platform (on the CPU a
    # worker thread is a multiprocessor that holds one block).
    blocks = min(device.properties.multiProcessorCount, 8)
    block = 64
    n = blocks * block
    shift = int(rng.integers(1, n))
    data = hipkit.empty(n, np.int32)
    out = hipkit.empty(n, np.int32)
    mod.get_function("two_phase").launch(blocks, block, (data, out, shift), cooperative=True)
    i = np.arange(n)
    first = 3 * ((i + shift) % n) + 1
    np.testing.assert_array_equal(out.get(), first)
    np.testing.assert_array_equal(data.get(), first[(i + 1) % n])
    recover(device)


def test_grid_is_valid_only_in_cooperative_launches(mod, device):
    out = hipkit.empty(2 * 32, np.int32)
    kernel = mod.get_function("grid_valid")
    kernel[2, 32](out)
    # CUDA's driver leaves the grid workspace in place for plain launches once a
    # process has made a cooperative one (CUDA's own cooperative groups then say
    # valid too, on the H200): there, only a process's first launches tell.
    if device.platform.name != "nvidia":
        assert not out.get().any()
    kernel.launch(1, 32, (out,), cooperative=True)
    assert out.get()[:32].all()
    recover(device)


def test_cooperative_grid_too_large(mod, device):
    # More than any multiprocessor holds (at most one block on the CPU, 32 on NVIDIA's).
    too_many = 64 * device.properties.multiProcessorCount + 1
    out = hipkit.empty(too_many * 32, np.int32)
    with pytest.raises(hipkit.HipError) as info:
        mod.get_function("grid_valid").launch(too_many, 32, (out,), cooperative=True)
    assert info.value.name == "hipErrorCooperativeLaunchTooLarge"
    recover(device)


def test_grid_sync_in_plain_launch_fails(mod, device):
    if device.platform.name != "cpu":
        pytest.skip("on a GPU grid.sync() outside a cooperative launch is undefined")
    out = hipkit.empty(32, np.int32)
    mod.get_function("sync_not_cooperative")[1, 32](out)
    with pytest.raises(hipkit.HipError) as info:
        device.synchronize()
    assert info.value.name == "hipErrorAssert"
    device.reset()


@pytest.mark.parametrize("n", [0, 3, 128])
def test_invalid_tile_size(mod, device, n):
    if device.platform.name == "nvidia":
        pytest.skip("a device-side assert ends CUDA's context for the whole process (checked on the CPU)")
    out = hipkit.empty(64, np.int32)
    mod.get_function("bad_tile")[1, 64](n, out)
    with pytest.raises(hipkit.HipError) as info:
        device.synchronize()
    assert info.value.name == "hipErrorAssert"
    device.reset()
