"""Cooperative groups in programs built by ``hipkit cc``: a grid-wide two-phase sum
through hipLaunchCooperativeKernel (each block's tiles reduce, grid.sync(), then
every block reads the others' partial sums), tile reductions in a plain launch,
the occupancy queries a cooperative grid is sized from, and the launch of a grid
too large to be co-resident (hipErrorCooperativeLaunchTooLarge), against NumPy on
fresh random data.  The same program compiles for NVIDIA (nvcc) where it is
installed.  Kernels from Python: test_cooperative_groups.py."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from test_cc import build, program_lines, write
from test_cc_nvidia import NVCC_MISSING
from test_cli import environment

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]

PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cstdio>
#include <vector>
namespace cg = cooperative_groups;

constexpr int N = 4096, THREADS = 128;

__global__ void tile_sums(const int* in, int* out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = cg::reduce(tile, in[i], cg::plus<int>());
  if (tile.thread_rank() == 0) out[i / 16] = s;
}

// partial[b]: block b's sum of a grid-stride share; after grid.sync() block b
// reads partial[b + 1] and block 0 the total.
__global__ void grid_sum(const int* in, int* partial, int* next, long long* total) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  int s = 0;
  for (int i = grid.thread_rank(); i < N; i += grid.size()) s += in[i];
  s = cg::reduce(tile, s, cg::plus<int>());
  if (block.thread_rank() == 0) partial[blockIdx.x] = 0;
  block.sync();
  if (tile.thread_rank() == 0) atomicAdd(&partial[blockIdx.x], s);
  grid.sync();
  if (block.thread_rank() == 0) next[blockIdx.x] = partial[(blockIdx.x + 1) % gridDim.x];
  if (grid.thread_rank() == 0) {
    long long t = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
    *total = t;
  }
}

int main(int argc, char** argv) {
  std::vector<int> host(N);
  FILE* f = fopen(argv[1], "rb");
  if (!f || fread(host.data(), sizeof(int), N, f) != size_t(N)) return 2;
  fclose(f);
  int cooperative = 0, sms = 0, per_sm = 0;
  hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, 0);
  hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0);
  hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, THREADS, 0);
  int blocks = sms * per_sm < 8 ? sms * per_sm : 8;
  int *in, *out, *partial, *next;
  long long* total;
  hipMalloc(&in, N * sizeof(int));
  hipMalloc(&out, N / 16 * sizeof(int));
  hipMalloc(&partial, 8 * sizeof(int));
  hipMalloc(&next, 8 * sizeof(int));
  hipMalloc(&total, sizeof(long long));
  hipMemcpy(in, host.data(), N * sizeof(int), hipMemcpyHostToDevice);
  tile_sums<<<N / THREADS, THREADS>>>(in, out);
  void* args[] = {&in, &partial, &next, &total};
  hipError_t launched = hipLaunchCooperativeKernel((void*)grid_sum, dim3(blocks), dim3(THREADS), args, 0, 0);
  hipError_t too_large = hipLaunchCooperativeKernel((void*)grid_sum, dim3(sms * per_sm + 1),
                                                    dim3(THREADS), args, 0, 0);
  hipError_t synced = hipDeviceSynchronize();
  std::vector<int> sums(N / 16), nexts(blocks);
  long long t = 0;
  hipMemcpy(sums.data(), out, sums.size() * sizeof(int), hipMemcpyDeviceToHost);
  hipMemcpy(nexts.data(), next, blocks * sizeof(int), hipMemcpyDeviceToHost);
  hipMemcpy(&t, total, sizeof t, hipMemcpyDeviceToHost);
  printf("cooperative=%d\nblocks=%d\nlaunched=%s\ntoo_large=%s\nsynced=%s\ntotal=%lld\n", cooperative,
         blocks, hipGetErrorName(launched), hipGetErrorName(too_large), hipGetErrorName(synced), t);
  printf("next=");
  for (int b = 0; b < blocks; ++b) printf("%d%s", nexts[b], b + 1 < blocks ? "," : "\n");
  printf("sums=");
  for (size_t i = 0; i < sums.size(); ++i) printf("%d%s", sums[i], i + 1 < sums.size() ? "," : "\n");
  return 0;
}
"""


@pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")
@pytest.mark.parametrize("warp_size", ["32", "64"])
def test_grid_sum_and_tiles_in_a_program(tmp_path, warp_size):
    write(tmp_path, "coop.hip", PROGRAM)
    values = np.random.default_rng().integers(-1000, 1000, 4096, dtype=np.int32)
    values.tofile(tmp_path / "in.bin")
    env = environment(HIPKIT_PLATFORM="cpu", HIPKIT_CPU_WARP_SIZE=warp_size)
    done = subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "cc", "-O1", "-o", "coop", "coop.hip"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    ran = subprocess.run(
        [str(tmp_path / "coop"), str(tmp_path / "in.bin")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    out = dict(line.split("=", 1) for line in ran.stdout.splitlines())
    assert out["cooperative"] == "1"
    assert (out["launched"], out["too_large"], out["synced"]) == (
        "hipSuccess",
        "hipErrorCooperativeLaunchTooLarge",
        "hipSuccess",
    )
    blocks = int(out["blocks"])
    stride = blocks * 128
    owner = np.arange(4096) % stride // 128
    partial = np.array([values[owner == b].sum() for b in range(blocks)])
    assert int(out["total"]) == values.sum()
    np.testing.assert_array_equal(np.array(out["next"].split(","), int), np.roll(partial, -1))
    np.testing.assert_array_equal(np.array(out["sums"].split(","), int), values.reshape(-1, 16).sum(axis=1))


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_program_compiles_for_nvidia(tmp_path):
    write(tmp_path, "coop.hip", PROGRAM)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "coop", "coop.hip")
    assert (tmp_path / "coop").exists()


# A block whose size is no multiple of the tile: its last tile has the threads that are there
# (HIP's answer, as hip-tests' thread_block_tile.cc has it), its ranks count them, and a
# reduction over it sums them only.
PARTIAL = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
namespace cg = cooperative_groups;

__global__ void tiles(unsigned n, const int* in, unsigned* size, unsigned* rank, int* sum) {
  cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), n);
  size[threadIdx.x] = tile.size();
  rank[threadIdx.x] = tile.thread_rank();
  // Lane 0 of each tile adds up its threads' values, read through shared memory.
  __shared__ int values[1024];
  values[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (tile.thread_rank() == 0) {
    int s = 0;
    for (unsigned i = 0; i < tile.size(); ++i) s += values[threadIdx.x + i];
    sum[threadIdx.x / n] = s;
  }
}

int main(int argc, char** argv) {
  const unsigned n = unsigned(atoi(argv[1])), threads = unsigned(atoi(argv[2]));
  int *in, *sum;
  unsigned *size, *rank;
  const size_t bytes = threads * sizeof(int);
  if (hipMallocManaged(&in, bytes) || hipMallocManaged(&sum, bytes) || hipMallocManaged(&size, bytes) ||
      hipMallocManaged(&rank, bytes))
    return 2;
  for (unsigned i = 0; i < threads; ++i) in[i] = atoi(argv[3 + i]);
  tiles<<<1, threads>>>(n, in, size, rank, sum);
  if (hipDeviceSynchronize() != hipSuccess) return 3;
  for (unsigned i = 0; i < threads; ++i) printf("%u %u\n", size[i], rank[i]);
  for (unsigned t = 0; t < (threads + n - 1) / n; ++t) printf("sum %d\n", sum[t]);
  return 0;
}
"""


@pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")
def test_a_blocks_last_tile_has_the_threads_that_are_there(tmp_path, rng):
    write(tmp_path, "partial.hip", PARTIAL)
    build(tmp_path, "-o", "partial", "partial.hip")
    for n in (2, 4, 8, 16, 32):
        threads = int(rng.integers(1, 200))
        threads += threads % n == 0  # a partial last tile
        values = rng.integers(-1000, 1000, threads)
        lines = program_lines(tmp_path / "partial", str(n), str(threads), *map(str, values))
        got = np.array([line.split() for line in lines[:threads]], dtype=np.int64)
        index = np.arange(threads)
        start = index // n * n
        np.testing.assert_array_equal(got[:, 0], np.minimum(n, threads - start))
        np.testing.assert_array_equal(got[:, 1], index % n)
        sums = [int(line.split()[1]) for line in lines[threads:]]
        expected = [int(values[t : t + n].sum()) for t in range(0, threads, n)]
        assert sums == expected
