"""Warp-level programs of the kinds users reported on the CPU platform.

- Warp-aggregated atomics (a leader elected by ``__ffs(__ballot(...)) - 1``,
  ``__popc`` for the count, ``__shfl`` to broadcast the base; and the
  match-any loop of shuffles and ballots that programs use where
  ``__match_any_sync`` is not a builtin), at warp size 32 as the report ran
  them.  The atomics live in device functions: kernels calling a function that
  synchronizes ran on fibers, a context switch per lane and warp operation, and
  such a program ran past 120 s (HeCBench's atomicAggregate: over 300 s here,
  11 s once inlined).  transform/inline.py now inlines them and the kernels
  split; the tests check the execution mode (not the time) and the results.
- A segmented sort per block (bitonic, shared memory and barriers above the
  warp, warp shuffles below; and one with keys in registers across barriers),
  against NumPy's sort of each segment.  The report's wrong keys came from
  HeCBench's segsort merge kernel: a uniform declaration inside a divergent
  branch was computed whether a thread entered or not, and the launch's query
  run divided by zero there (test_uniform_values_in_divergent_branches).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from test_cc import write
from test_cli import environment

import hipkit
from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
pytestmark = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

AGGREGATE = r"""
#include <hip/hip_runtime.h>

// The leader of the lanes here adds for all of them.
// (64-bit masks: the same source runs at both warp sizes.)
__device__ int atomicAggInc(int* counter) {
  unsigned long long active = __activemask();
  int leader = __ffsll(active) - 1;
  int lane = threadIdx.x % warpSize;
  int base = 0;
  if (lane == leader) base = atomicAdd(counter, __popcll(active));
  base = __shfl(base, leader);
  return base + __popcll(active & ((1ull << lane) - 1));
}

// Lanes with the same pointer elect a leader (a match-any by shuffles and ballots).
template <unsigned int WarpSize = warpSize>
__device__ int atomicAggIncPeers(int* ptr) {
  unsigned long long mask = 0;
  for (int i = 0; i < WarpSize; i++) {
    unsigned long long theirs = __shfl((unsigned long long)ptr, i);
    unsigned long long peers = __ballot(theirs == (unsigned long long)ptr);
    if (i == (threadIdx.x & (WarpSize - 1))) mask = peers;
  }
  int leader = __ffsll(mask) - 1;
  int res = 0;
  unsigned lane = threadIdx.x % WarpSize;
  if (lane == leader) res = atomicAdd(ptr, __popcll(mask));
  res = __shfl(res, leader);
  return res + __popcll(mask & ((1ull << lane) - 1));
}

// A function whose early return keeps it out of line: the kernel runs on fibers.
__device__ int vote_or_skip(int v) {
  if (v < 0) return -1;
  return __popcll(__ballot(v > 0));
}

extern "C" __global__ void filter(const int* src, int* dst, int* count, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (src[i] > 0) dst[atomicAggInc(count)] = src[i];
}

extern "C" __global__ void buckets(const int* bucket, int* counters, int* slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) slot[i] = atomicAggIncPeers(counters + bucket[i]);
}

extern "C" __global__ void votes(const int* v, int* out) {
  out[threadIdx.x] = vote_or_skip(v[threadIdx.x]);
}
"""


def launch_aggregate(rng, warp):
    mod = hipkit.compile(AGGREGATE, name="aggregate.hip")
    n = 5000
    src = rng.integers(-100, 100, n).astype(np.int32)
    dst, count = hipkit.empty(n, np.int32), hipkit.to_device(np.zeros(1, np.int32))
    mod.get_function("filter")[8, 256](hipkit.to_device(src), dst, count, n)
    kept = int(count.get()[0])
    assert kept == int((src > 0).sum())
    np.testing.assert_array_equal(np.sort(dst.get()[:kept]), np.sort(src[src > 0]))

    nb = 6
    bucket = rng.integers(0, nb, n).astype(np.int32)
    counters, slot = hipkit.to_device(np.zeros(nb, np.int32)), hipkit.empty(n, np.int32)
    mod.get_function("buckets")[(n + 255) // 256, 256](hipkit.to_device(bucket), counters, slot, n)
    np.testing.assert_array_equal(counters.get(), np.bincount(bucket, minlength=nb))
    for b in range(nb):  # each bucket's slots are 0..count-1, once each
        np.testing.assert_array_equal(np.sort(slot.get()[bucket == b]), np.arange((bucket == b).sum()))

    v = rng.integers(-1, 3, 256).astype(np.int32)
    out = hipkit.empty(256, np.int32)
    mod.get_function("votes")[1, 256](hipkit.to_device(v), out)
    np.testing.assert_array_equal(out.get(), expected_votes(v, warp))
    return mod


@pytest.mark.parametrize("executor", ["auto", "fiber"])
def test_warp_aggregated_atomics(monkeypatch, rng, executor):
    monkeypatch.setenv("HIPKIT_CPU_EXEC", executor)
    with hipkit.Device(0, platform="cpu") as device:
        mod = launch_aggregate(rng, device.warp_size)
    modes = {k["name"]: k["mode"] for k in mod.binary.kernels}
    if executor == "auto":  # the atomics' functions are inlined: the kernels split
        assert modes == {"filter": "split", "buckets": "split", "votes": "fiber"}, modes
        reason = next(k["reason"] for k in mod.binary.kernels if k["name"] == "votes")
        assert "vote_or_skip" in reason


# The same kernels in a program, which sets its warp size when it is built.
AGGREGATE_MAIN = r"""
#include <fstream>
#include <vector>

template <class T>
T* upload(const std::vector<T>& v) {
  T* d = nullptr;
  hipMalloc(&d, v.size() * sizeof(T) + 1);
  hipMemcpy(d, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice);
  return d;
}
template <class T>
void save(const char* path, const T* d, size_t count) {
  std::vector<T> h(count);
  hipMemcpy(h.data(), d, count * sizeof(T), hipMemcpyDeviceToHost);
  std::ofstream(path, std::ios::binary).write((const char*)h.data(), count * sizeof(T));
}

int main(int argc, char** argv) {
  const int n = 5000, nb = 6;
  std::vector<int> src(n), bucket(n), v(256);
  std::ifstream(argv[1], std::ios::binary).read((char*)src.data(), 4 * n).read((char*)bucket.data(), 4 * n)
      .read((char*)v.data(), 4 * 256);
  int *dsrc = upload(src), *dbucket = upload(bucket), *dv = upload(v);
  int *dst = upload(std::vector<int>(n)), *count = upload(std::vector<int>(1));
  int* counters = upload(std::vector<int>(nb));
  int *slot = upload(std::vector<int>(n)), *dvotes = upload(std::vector<int>(256));
  hipLaunchKernelGGL(filter, dim3(8), dim3(256), 0, 0, dsrc, dst, count, n);
  hipLaunchKernelGGL(buckets, dim3((n + 255) / 256), dim3(256), 0, 0, dbucket, counters, slot, n);
  hipLaunchKernelGGL(votes, dim3(1), dim3(256), 0, 0, dv, dvotes);
  save("count.bin", count, 1);
  save("dst.bin", dst, n);
  save("counters.bin", counters, nb);
  save("slot.bin", slot, n);
  save("votes.bin", dvotes, 256);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
"""


@pytest.mark.parametrize("executor", ["auto", "fiber"])
def test_warp_aggregated_atomics_at_warp_32(tmp_path, rng, executor):
    """As reported: a program built with HIPKIT_CPU_WARP_SIZE=32."""
    write(tmp_path, "aggregate.hip", AGGREGATE + AGGREGATE_MAIN)
    env = environment(HIPKIT_PLATFORM="cpu", HIPKIT_CPU_WARP_SIZE="32", HIPKIT_CPU_EXEC=executor)
    built = subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "cc", "-o", "aggregate", "aggregate.hip"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    n, nb = 5000, 6
    src = rng.integers(-100, 100, n).astype(np.int32)
    bucket = rng.integers(0, nb, n).astype(np.int32)
    v = rng.integers(-1, 3, 256).astype(np.int32)
    (tmp_path / "in.bin").write_bytes(src.tobytes() + bucket.tobytes() + v.tobytes())
    ran = subprocess.run(
        [str(tmp_path / "aggregate"), "in.bin"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    read = lambda name: np.fromfile(tmp_path / name, np.int32)  # noqa: E731
    kept = int(read("count.bin")[0])
    assert kept == int((src > 0).sum())
    np.testing.assert_array_equal(np.sort(read("dst.bin")[:kept]), np.sort(src[src > 0]))
    np.testing.assert_array_equal(read("counters.bin"), np.bincount(bucket, minlength=nb))
    slot = read("slot.bin")
    for b in range(nb):
        np.testing.assert_array_equal(np.sort(slot[bucket == b]), np.arange((bucket == b).sum()))
    np.testing.assert_array_equal(read("votes.bin"), expected_votes(v, 32))


def expected_votes(v: np.ndarray, warp: int) -> np.ndarray:
    want = np.empty(len(v), np.int64)
    for w in range(0, len(v), warp):
        lanes = v[w : w + warp]
        live = lanes >= 0  # lanes that returned early take no part
        want[w : w + warp] = np.where(live, ((lanes > 0) & live).sum(), -1)
    return want


SORT = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
#include <fstream>
#include <vector>

#define IPT 4
#define BLOCK 128

// One block sorts one segment of up to BLOCK keys: bitonic, shared memory for the
// strides of a warp or more, warp shuffles below.
__global__ void sort_shared(const int* keys, const int* offsets, int* out) {
  __shared__ int s[BLOCK];
  int lo = offsets[blockIdx.x], len = offsets[blockIdx.x + 1] - lo, t = threadIdx.x;
  s[t] = t < len ? keys[lo + t] : 0x7fffffff;
  __syncthreads();
  for (int k = 2; k <= BLOCK; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      if (j >= warpSize) {
        int p = t ^ j;
        if (p > t) {
          int a = s[t], b = s[p];
          if ((a > b) == ((t & k) == 0)) { s[t] = b; s[p] = a; }
        }
      } else {
        int v = s[t];
        int o = __shfl_xor(v, j);
        s[t] = (((t & j) == 0) == ((t & k) == 0)) ? min(v, o) : max(v, o);
      }
      __syncthreads();
    }
  }
  if (t < len) out[lo + t] = s[t];
}

// Up to BLOCK * IPT keys, IPT of them in each thread's registers (a local array
// live across barriers): pairs inside a thread, across lanes by shuffle, across
// warps through shared memory.
__device__ inline void order(int& a, int& b, bool up) {
  if ((a > b) == up) { int t = a; a = b; b = t; }
}
__global__ void sort_registers(const int* keys, const int* offsets, int* out) {
  __shared__ int s[BLOCK * IPT];
  int lo = offsets[blockIdx.x], len = offsets[blockIdx.x + 1] - lo, t = threadIdx.x;
  int k[IPT];
  for (int i = 0; i < IPT; ++i) k[i] = t * IPT + i < len ? keys[lo + t * IPT + i] : 0x7fffffff;
  for (int size = 2; size <= BLOCK * IPT; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      if (stride < IPT) {
        for (int i = 0; i < IPT; ++i)
          if ((i ^ stride) > i) order(k[i], k[i ^ stride], ((t * IPT + i) & size) == 0);
      } else if (stride / IPT < warpSize) {
        for (int i = 0; i < IPT; ++i) {
          int other = __shfl_xor(k[i], stride / IPT), e = t * IPT + i;
          k[i] = (((e & stride) == 0) == ((e & size) == 0)) ? min(k[i], other) : max(k[i], other);
        }
      } else {
        for (int i = 0; i < IPT; ++i) s[t * IPT + i] = k[i];
        __syncthreads();
        for (int i = 0; i < IPT; ++i) {
          int e = t * IPT + i, other = s[e ^ stride];
          k[i] = (((e & stride) == 0) == ((e & size) == 0)) ? min(k[i], other) : max(k[i], other);
        }
        __syncthreads();
      }
    }
  }
  for (int i = 0; i < IPT; ++i) if (t * IPT + i < len) out[lo + t * IPT + i] = k[i];
}

int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary);
  int nseg = 0;
  f.read((char*)&nseg, 4);
  std::vector<int> off(nseg + 1);
  f.read((char*)off.data(), 4 * (nseg + 1));
  int n = off[nseg];
  std::vector<int> keys(n), out(n);
  f.read((char*)keys.data(), 4 * n);
  int *dk, *doff, *dout;
  hipMalloc(&dk, 4 * n + 4); hipMalloc(&doff, 4 * (nseg + 1)); hipMalloc(&dout, 4 * n + 4);
  hipMemcpy(dk, keys.data(), 4 * n, hipMemcpyHostToDevice);
  hipMemcpy(doff, off.data(), 4 * (nseg + 1), hipMemcpyHostToDevice);
  if (argv[2][0] == 's') hipLaunchKernelGGL(sort_shared, dim3(nseg), dim3(BLOCK), 0, 0, dk, doff, dout);
  else hipLaunchKernelGGL(sort_registers, dim3(nseg), dim3(BLOCK), 0, 0, dk, doff, dout);
  if (hipMemcpy(out.data(), dout, 4 * n, hipMemcpyDeviceToHost) != hipSuccess) return 1;
  std::ofstream("sorted.bin", std::ios::binary).write((const char*)out.data(), 4 * n);
  return 0;
}
"""


@pytest.mark.parametrize("warp", [32, 64])
@pytest.mark.parametrize("kernel,most", [("shared", 128), ("registers", 512)])
def test_segmented_sort(tmp_path, rng, warp, kernel, most):
    write(tmp_path, "sort.hip", SORT)
    env = environment(HIPKIT_PLATFORM="cpu", HIPKIT_CPU_WARP_SIZE=str(warp))
    done = subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "cc", "-o", "sort", "sort.hip"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lengths = rng.integers(0, most + 1, 40)
    lengths[:3] = [0, 1, most]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    keys = rng.integers(-1000, 1000, int(offsets[-1])).astype(np.int32)
    data = np.array([len(lengths)], np.int32).tobytes() + offsets.tobytes() + keys.tobytes()
    (tmp_path / "in.bin").write_bytes(data)
    for executor in ("auto", "fiber"):
        env["HIPKIT_CPU_EXEC"] = executor
        ran = subprocess.run(
            [str(tmp_path / "sort"), "in.bin", kernel[0]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert ran.returncode == 0, ran.stderr
        got = np.fromfile(tmp_path / "sorted.bin", np.int32)
        want = np.concatenate([np.sort(keys[a:b]) for a, b in zip(offsets[:-1], offsets[1:], strict=True)])
        np.testing.assert_array_equal(got, want, err_msg=executor)


INLINED = r"""
#include <hip/hip_runtime.h>

template <class T>
__device__ T warp_sum(T v) {
  for (int d = warpSize / 2; d > 0; d /= 2) v += __shfl_xor(v, d);
  return v;
}
__device__ void add_warp_max(int& acc, const int& v, int scale = 2) {
  int m = v;
  for (int d = 1; d < warpSize; d *= 2) m = max(m, __shfl_xor(m, d));
  acc += scale * m;
}

extern "C" __global__ void shapes(const int* in, int* out, float* sums) {
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  int acc = v;  // a parameter's name (v) and the caller's are the same: fresh names keep them apart
  add_warp_max(acc, v);
  float half = float(v) * 0.5f;
  float f = warp_sum(half) + warp_sum(static_cast<float>(0));
  out[blockIdx.x * blockDim.x + t] = acc + warp_sum(v);
  sums[blockIdx.x * blockDim.x + t] = f;
}
"""


@pytest.mark.parametrize("executor", ["auto", "fiber"])
def test_inlined_function_shapes(monkeypatch, rng, executor):
    """Deduced template parameters, references (bound through a pointer), const
    references and defaulted parameters, the caller's names reused, the result in
    an expression: the kernel splits and computes what fibers compute."""
    monkeypatch.setenv("HIPKIT_CPU_EXEC", executor)
    with hipkit.Device(0, platform="cpu") as device:
        mod = hipkit.compile(INLINED, name="inlined.hip")
        warp, blocks, block = device.warp_size, 3, 128
        v = rng.integers(-1000, 1000, blocks * block).astype(np.int32)
        out, sums = hipkit.empty(v.size, np.int32), hipkit.empty(v.size, np.float32)
        mod.get_function("shapes")[blocks, block](hipkit.to_device(v), out, sums)
        groups = v.reshape(-1, warp)
        want = v + 2 * np.repeat(groups.max(axis=1), warp) + np.repeat(groups.sum(axis=1), warp)
        np.testing.assert_array_equal(out.get(), want)
        np.testing.assert_allclose(sums.get(), np.repeat((groups * 0.5).sum(axis=1), warp), rtol=1e-6)
    if executor == "auto":
        assert mod.binary.kernels[0]["mode"] == "split", mod.binary.kernels[0]


# The cause of the segmented sort's wrong keys (HeCBench's segsort, its merge kernel):
# a declaration with a uniform initializer inside a divergent branch was computed
# outside the threads' loops, whether a thread entered or not; the launch's query
# run (no thread, zeroed arguments) divided by zero there, and the launch failed.
DIVERGENT_UNIFORM = r"""
extern "C" __global__ void merge_like(const int* sizes, int* out, int stride, int n) {
  const int size = sizes[blockIdx.x];
  if (stride < size) {  // per-thread (a load): the branch is masked
    __shared__ int s[128];
    int coop = (stride << 1) >> 11;
    int part = blockIdx.y % coop;
    s[threadIdx.x] = part * 1000 + threadIdx.x;
    __syncthreads();
    out[(blockIdx.x * gridDim.y + blockIdx.y) * 128 + threadIdx.x] = s[127 - threadIdx.x];
  }
  if (threadIdx.x >= n) return;
  int q = 1000 / n;  // after a return: never computed when every thread has left (n == 0)
  __syncthreads();
  out[threadIdx.x] += q;
}
"""


@pytest.mark.parametrize("executor", ["auto", "fiber"])
def test_uniform_values_in_divergent_branches(monkeypatch, rng, executor):
    monkeypatch.setenv("HIPKIT_CPU_EXEC", executor)
    with hipkit.Device(0, platform="cpu"):
        mod = hipkit.compile(DIVERGENT_UNIFORM, name="divergent.hip")
        sizes = rng.integers(0, 5000, 4).astype(np.int32)
        sizes[0] = 0  # a block no thread of which enters
        stride = 2048
        out = hipkit.to_device(np.full(4 * 3 * 128, -1, np.int32))
        mod.get_function("merge_like")[(4, 3), 128](
            hipkit.to_device(sizes), out, np.int32(stride), np.int32(0)
        )
        got = out.get().reshape(4, 3, 128)
        for b in range(4):
            for y in range(3):
                want = (y % 2) * 1000 + np.arange(127, -1, -1) if stride < sizes[b] else np.full(128, -1)
                np.testing.assert_array_equal(got[b, y], want)
    if executor == "auto":
        assert mod.binary.kernels[0]["mode"] == "split"
