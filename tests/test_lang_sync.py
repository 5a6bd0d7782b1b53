"""Kernel language: block synchronization.

``__syncthreads`` in a tree reduction, after threads have returned early, in
loops whose trip count differs between threads, in ``if`` blocks (uniform and
not), in loops left by ``break``/``continue``, in ``while``/``do``/``switch``;
locals (scalars, arrays, structs, references) live across barriers;
``__syncthreads_count/_and/_or``; ``__threadfence()`` in the last-block
reduction and ``__threadfence_block()``.

Every barrier here is reached by all threads of the block that have not
exited, so the expectations hold on a GPU as well.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

// Block sums by a shared-memory tree; blockDim.x a power of two.
template <typename T>
__global__ void tree_sum(const T* x, T* sums, int n) {
  extern __shared__ unsigned char raw[];
  T* s = reinterpret_cast<T*>(raw);
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : T(0);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = s[0];
}

// Threads at or past `active` leave at once; the others still synchronize.
extern "C" __global__ void early_return(const int* x, int* y, int active) {
  __shared__ int s[1024];
  int t = threadIdx.x;
  if (t >= active) return;
  const int base = blockIdx.x * active;
  s[t] = x[base + t];
  __syncthreads();
  int v = s[active - 1 - t];
  __syncthreads();
  s[t] = v * 2;
  __syncthreads();
  y[base + t] = s[(t + 1) % active] + v;
}

// Thread t runs trips[t] iterations, each with two barriers; it reads its
// neighbour's value of this iteration only if the neighbour is still looping.
extern "C" __global__ void ragged_loop(const int* trips, const int* x, int* y) {
  __shared__ int s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  const int nb = (t + 1) % blockDim.x, nb_trips = trips[blockIdx.x * blockDim.x + nb];
  int acc = x[i];
  int k = trips[i];
  for (int it = 0; it < k; ++it) {
    s[t] = acc;
    __syncthreads();
    if (it < nb_trips) acc += s[nb];
    __syncthreads();
  }
  y[i] = acc;
}

// The same with a while loop left by a per-thread break, and a per-thread
// continue, both after the last barrier of an iteration.
extern "C" __global__ void ragged_break_continue(const int* trips, const int* x, int* y) {
  __shared__ int s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  const int nb = (t + blockDim.x - 1) % blockDim.x, nb_trips = trips[blockIdx.x * blockDim.x + nb];
  int acc = x[i], it = 0;
  while (true) {
    s[t] = acc;
    __syncthreads();
    int got = s[nb];
    __syncthreads();
    ++it;
    if (it - 1 >= nb_trips) got = 0;  // past its trip count the neighbour may have left
    if (it % 2 == 0) {
      acc -= got;
    } else {
      acc += got;
    }
    if (it >= trips[i]) break;
    if (it % 3 == 0) continue;
    acc ^= 1;
  }
  y[i] = acc;
}

extern "C" __global__ void ragged_do_while(const int* trips, int* z) {
  __shared__ int s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int count = 0;
  do {
    s[t] = count;
    __syncthreads();
    count += 1;
    __syncthreads();
  } while (count < trips[i]);
  z[i] = count;
}

// Barriers inside if blocks: uniform conditions (a parameter, blockIdx), and a
// thread-dependent one whose other threads do not synchronize again.
extern "C" __global__ void barriers_in_ifs(const int* x, int* y, int mode, int active) {
  __shared__ int s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int v = x[i];
  if (mode == 1) {
    s[t] = v;
    __syncthreads();
    v = s[blockDim.x - 1 - t];
    __syncthreads();
  } else {
    s[t] = v + 1;
    __syncthreads();
    v = s[(t + 1) % blockDim.x];
    __syncthreads();
  }
  if (blockIdx.x % 2 == 0) {
    s[t] = v;
    __syncthreads();
    v += s[(t + 2) % blockDim.x];
    __syncthreads();
  }
  if (t < active) {
    s[t] = v;
    __syncthreads();
    v = s[active - 1 - t] * 10;
  }
  y[i] = v;
}

// A uniform loop with a block-wide exit decided in shared memory, and a
// uniform continue before the barrier.
extern "C" __global__ void uniform_break_continue(const int* x, int* y, int limit, int skip) {
  __shared__ int s[1024];
  __shared__ int done;
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int v = x[i], rounds = 0;
  for (int it = 0; it < 1000; ++it) {
    if (it % skip == skip - 1) continue;
    if (t == 0) done = 0;
    s[t] = v;
    __syncthreads();
    v = s[(t + 1) % blockDim.x] + 1;
    if (v > limit) atomicOr(&done, 1);
    __syncthreads();
    ++rounds;
    if (done) break;
    __syncthreads();  // nobody resets `done` before everyone has read it
  }
  y[i] = v * 10000 + rounds;
}

struct Acc {
  int sum;
  int count;
};

// Locals of several kinds live across barriers.
extern "C" __global__ void locals_across_barriers(const int* x, int* y) {
  __shared__ int s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t, n = blockDim.x;
  int r[4];
  for (int k = 0; k < 4; ++k) r[k] = x[i] + k;
  Acc acc = {0, 0};
  int& slot = s[t];
  slot = r[3];
  __syncthreads();
  for (int k = 0; k < 4; ++k) {
    acc.sum += s[(t + k) % n] * r[k];
    acc.count += 1;
  }
  __syncthreads();
  slot = acc.sum;
  {
    int t = 7;  // shadows the outer t
    r[0] = t;
  }
  __syncthreads();
  y[i] = s[(t + n - 1) % n] + acc.count * 1000 + r[0];
}

// Threads at or past `active` leave between two barriers.
extern "C" __global__ void return_between_barriers(const int* x, int* y, int active) {
  __shared__ int s[1024];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = x[i];
  __syncthreads();
  int v = s[blockDim.x - 1 - t];
  y[i] = v;
  if (t >= active) return;
  __syncthreads();  // the threads that did not return
  s[t] = v + 1;
  __syncthreads();
  y[i] = s[(t + 1) % active];
}

// A 3-D block: barriers order the threads of all three dimensions.
extern "C" __global__ void reverse_3d(const int* x, int* y) {
  __shared__ int s[1024];
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int nt = blockDim.x * blockDim.y * blockDim.z;
  int i = blockIdx.x * nt + t;
  s[t] = x[i];
  __syncthreads();
  int v = s[nt - 1 - t] + (int)(threadIdx.z * 10000 + threadIdx.y * 100 + threadIdx.x);
  __syncthreads();
  s[t] = v;
  __syncthreads();
  y[i] = s[(t + 1) % nt];
}

// An unrolled loop with a barrier; a device function reading threadIdx on
// both sides of barriers.
__device__ int my_tid() { return threadIdx.x + blockDim.x * threadIdx.y; }

extern "C" __global__ void unrolled_loop(const int* x, int* y) {
  __shared__ int s[256];
  int t = my_tid(), i = blockIdx.x * 256 + t;
  int v = x[i];
  s[t] = v;
  __syncthreads();
#pragma unroll
  for (int stride = 1; stride < 256; stride *= 2) {
    int other = s[t ^ stride];
    __syncthreads();
    s[t] += other;
    __syncthreads();
  }
  y[i] = s[t] * (t % 3) + v + 1000000 * (my_tid() == t);
}

// Locals shadowing a namespace-scope name, used after a barrier.
constexpr int width = 1000;
extern "C" __global__ void shadowing_across_barrier(const int* x, int* y) {
  __shared__ int s[1024];
  int width = threadIdx.x % 5;
  int twice = 2 * width;
  s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  y[blockIdx.x * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x] * twice + ::width;
}

// A barrier inside a switch on a uniform value.
extern "C" __global__ void barrier_in_switch(const int* x, int* y, int op) {
  __shared__ int s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = x[i];
  __syncthreads();
  int v;
  switch (op) {
    case 0:
      v = s[blockDim.x - 1 - t];
      break;
    case 1:
      v = s[t] * 2;
      __syncthreads();
      s[t] = v;
      __syncthreads();
      v = s[(t + 1) % blockDim.x];
      break;
    default:
      v = -1;
  }
  y[i] = v;
}

extern "C" __global__ void sync_votes(const int* pred, int* count, int* all, int* any, int n) {
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int nt = blockDim.x * blockDim.y * blockDim.z;
  const int i = blockIdx.x * nt + t;
  const int p = i < n ? pred[i] : 0;
  const int c = __syncthreads_count(p);
  const int a = __syncthreads_and(p);
  int o;
  if (__syncthreads_or(p)) o = 1; else o = 0;
  if (i < n) {
    count[i] = c;
    all[i] = a;
    any[i] = o;
  }
}

// The last block to finish sums the partial sums of all blocks.
__device__ unsigned int blocks_done = 0;

extern "C" __global__ void last_block_sum(const int* x, int* partial, long long* total, int n) {
  __shared__ int s[256];
  __shared__ bool last;
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned ticket = atomicInc(&blocks_done, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t == 0) {
    long long sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += ((volatile int*)partial)[b];
    *total = sum;
    blocks_done = 0;
  }
}

extern "C" __global__ void fence_block(const int* x, int* y) {
  __shared__ int s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = x[i];
  y[i] = -x[i];
  __threadfence_block();
  __syncthreads();
  y[i] = s[blockDim.x - 1 - t] + y[i];
}

// The moving average of ROCm's HIP-Basic examples: a __shared__ array declared
// after a per-thread value, filled by a loop that steps by the block size
// written as a constant.  Launched with blockDim.x == BlockSize.
template <unsigned BlockSize, unsigned Window>
__global__ void moving_average(const unsigned* x, unsigned* y, unsigned n) {
  const unsigned first = blockIdx.x * blockDim.x;
  const unsigned i = first + threadIdx.x;
  constexpr unsigned staged = BlockSize + Window - 1;
  __shared__ unsigned window[staged];
  for (unsigned k = threadIdx.x; k < staged; k += BlockSize)
    if (first + k < n) window[k] = x[first + k];
  __syncthreads();
  if (i + Window <= n) {
    unsigned sum = 0;
    for (unsigned k = 0; k < Window; ++k) sum += window[threadIdx.x + k];
    y[i] = sum / Window;
  }
}

// A value the same for every thread, declared where it shadows a local that
// the statement before it read.
extern "C" __global__ void uniform_shadows_local(const int* x, int* y, int flag) {
  __shared__ int s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int v = x[i];
  s[t] = v;
  __syncthreads();
  if (flag) {
    y[i] = v + s[(t + 1) % blockDim.x];
    const int v = 1000 * flag;
    y[i] += v;
    __syncthreads();
  }
}
"""

# Loops `for (i = threadIdx.x; i < K; i += step)` before and after barriers and
# inside ifs, one kernel per step: constants (smaller and larger than the
# block), the block size, half and twice it, a parameter.  Thread t owns the
# elements t, t + step, ... of its block's K; with a step larger than the
# block some elements have no owner and keep the value -7.
STRIDED = r"""
extern "C" __global__ void strided_NAME(const int* x, int* y, int* sums, int K, int step, int flag) {
  const int t = threadIdx.x;
  const int base = blockIdx.x * K;
  __shared__ int s[2048];
  if (t == 0)
    for (int i = 0; i < 2048; ++i) s[i] = -7;
  __syncthreads();
  int acc = 0;
  for (int i = t; i < K; i += STEP) s[i] = x[base + i];
  __syncthreads();
  if (t % 3 != 1) {
    for (int i = t; i < K; i += STEP) acc += s[K - 1 - i];
  }
  if (flag) {
    for (int i = t; i < K; i += STEP) acc -= 3 * s[i];
    __syncthreads();
    for (int i = t; i < K; i += STEP) s[i] = 5 * i + 1;
    __syncthreads();
  }
  for (int i = t; i < K; i += STEP) y[base + i] = s[i] + s[K - 1 - i];
  sums[blockIdx.x * blockDim.x + t] = acc;
}
"""
STEPS = {
    "c256": ("256", lambda block, param: 256),
    "c64": ("64", lambda block, param: 64),
    "c1": ("1", lambda block, param: 1),
    "block": ("blockDim.x", lambda block, param: block),
    "half": ("(blockDim.x + 1) / 2", lambda block, param: (block + 1) // 2),
    "twice": ("2 * blockDim.x", lambda block, param: 2 * block),
    "param": ("step", lambda block, param: param),
}
SOURCE += "".join(STRIDED.replace("NAME", name).replace("STEP", expr) for name, (expr, _) in STEPS.items())

NAMES = [
    "tree_sum<int>",
    "tree_sum<double>",
    "tree_sum<unsigned long long>",
    "moving_average<256, 97>",
    "moving_average<64, 9>",
    "moving_average<1, 1>",
]


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE, NAMES)
    recover(device)


@pytest.mark.parametrize(
    "expr,dtype",
    [
        ("tree_sum<int>", np.int32),
        ("tree_sum<double>", np.float64),
        ("tree_sum<unsigned long long>", np.uint64),
    ],
)
@pytest.mark.parametrize("n,block", [(1, 1), (1000, 256), (5000, 1024), (100, 2), (70, 64)])
def test_tree_reduction(mod, rng, expr, dtype, n, block):
    if dtype == np.float64:
        x = rng.standard_normal(n)
    else:
        x = rng.integers(0 if dtype == np.uint64 else -(10**6), 10**6, n).astype(dtype)
    nblocks = cdiv(n, block)
    sums = hipkit.empty(nblocks, dtype)
    mod.get_function(expr)[nblocks, block, block * x.itemsize](hipkit.to_device(x), sums, n)
    want = np.add.reduceat(x, np.arange(0, n, block))
    if dtype == np.float64:
        np.testing.assert_allclose(sums.get(), want, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(sums.get(), want)


@pytest.mark.parametrize("block,active", [(256, 100), (1024, 1), (64, 64), (1000, 999), (1, 1)])
def test_early_return_before_barrier(mod, rng, block, active):
    nblocks = 3
    x = rng.integers(-1000, 1000, nblocks * active, dtype=np.int32)
    y = hipkit.zeros(nblocks * active, np.int32)
    mod.get_function("early_return")[nblocks, block](hipkit.to_device(x), y, active)
    chunks = x.reshape(nblocks, active)
    v = chunks[:, ::-1]
    want = np.roll(v * 2, -1, axis=1) + v
    np.testing.assert_array_equal(y.get(), want.ravel())


def ragged_reference(trips, x, block):
    y = x.copy()
    for start in range(0, len(x), block):
        k, acc = trips[start : start + block], y[start : start + block]
        for it in range(k.max(initial=0)):
            s = acc.copy()
            active = k > it
            nb_active = np.roll(active, -1)
            acc = np.where(active & nb_active, acc + np.roll(s, -1), acc)
        y[start : start + block] = acc
    return y


@pytest.mark.parametrize("block", [1, 7, 64, 256, 1024])
def test_barriers_in_loops_with_per_thread_trip_counts(mod, rng, block):
    if hipkit.get_device().platform.name == "nvidia":
        # CUDA counts threads, not waves, at a barrier: threads past their
        # last iteration never arrive, and the block waits forever.
        pytest.skip("barriers in divergent loops hang on NVIDIA GPUs (undefined in CUDA)")
    nblocks = 3
    trips = rng.integers(0, 9, nblocks * block, dtype=np.int32)
    x = rng.integers(-100, 100, nblocks * block, dtype=np.int32)
    y = hipkit.empty(nblocks * block, np.int32)
    mod.get_function("ragged_loop")[nblocks, block](hipkit.to_device(trips), hipkit.to_device(x), y)
    np.testing.assert_array_equal(y.get(), ragged_reference(trips, x, block))


def ragged_break_continue_reference(trips, x, block):
    y = np.empty_like(x)
    for start in range(0, len(x), block):
        k, acc = trips[start : start + block], x[start : start + block].copy()
        looping = np.ones(len(k), bool)
        nb_trips = np.roll(k, 1)
        it = 0
        while looping.any():
            s = acc.copy()
            got = np.roll(s, 1)
            it += 1
            got = np.where(it - 1 >= nb_trips, 0, got)
            new = acc - got if it % 2 == 0 else acc + got
            acc = np.where(looping, new, acc)
            leaving = looping & (it >= k)
            flip = looping & ~leaving & (it % 3 != 0)
            acc = np.where(flip, acc ^ 1, acc)
            looping &= ~leaving
        y[start : start + block] = acc
    return y


@pytest.mark.parametrize("block", [1, 5, 64, 256, 1024])
def test_break_and_continue_in_loops_with_barriers(mod, rng, block):
    nblocks = 2
    trips = rng.integers(0, 10, nblocks * block, dtype=np.int32)
    x = rng.integers(-100, 100, nblocks * block, dtype=np.int32)
    y, z = hipkit.empty(nblocks * block, np.int32), hipkit.empty(nblocks * block, np.int32)
    mod.get_function("ragged_break_continue")[nblocks, block](hipkit.to_device(trips), hipkit.to_device(x), y)
    np.testing.assert_array_equal(y.get(), ragged_break_continue_reference(trips, x, block))
    mod.get_function("ragged_do_while")[nblocks, block](hipkit.to_device(trips), z)
    np.testing.assert_array_equal(z.get(), np.maximum(trips, 1))


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("block,active", [(1, 1), (64, 10), (256, 256), (1024, 513)])
def test_barriers_in_if_blocks(mod, rng, mode, block, active):
    nblocks = 3
    x = rng.integers(-1000, 1000, nblocks * block, dtype=np.int32)
    y = hipkit.empty(nblocks * block, np.int32)
    mod.get_function("barriers_in_ifs")[nblocks, block](hipkit.to_device(x), y, mode, active)
    want = []
    for b, v in enumerate(x.reshape(nblocks, block)):
        v = v[::-1] if mode == 1 else np.roll(v + 1, -1)
        if b % 2 == 0:
            v = v + np.roll(v, -2)
        v = np.concatenate([v[:active][::-1] * 10, v[active:]])
        want.append(v)
    np.testing.assert_array_equal(y.get(), np.concatenate(want))


@pytest.mark.parametrize("block", [1, 32, 1024])
@pytest.mark.parametrize("skip", [1000, 2, 3])
def test_uniform_break_and_continue(mod, rng, block, skip):
    nblocks = 2
    limit = 20
    x = rng.integers(-30, 10, nblocks * block, dtype=np.int32)
    y = hipkit.empty(nblocks * block, np.int32)
    mod.get_function("uniform_break_continue")[nblocks, block](hipkit.to_device(x), y, limit, skip)
    want = []
    for v in x.reshape(nblocks, block):
        rounds = 0
        for it in range(1000):
            if it % skip == skip - 1:
                continue
            v = np.roll(v, -1) + 1
            rounds += 1
            if (v > limit).any():
                break
        want.append(v * 10000 + rounds)
    np.testing.assert_array_equal(y.get(), np.concatenate(want))


@pytest.mark.parametrize("block", [1, 3, 128, 1024])
def test_locals_live_across_barriers(mod, rng, block):
    nblocks = 2
    x = rng.integers(-100, 100, nblocks * block, dtype=np.int32)
    y = hipkit.empty(nblocks * block, np.int32)
    mod.get_function("locals_across_barriers")[nblocks, block](hipkit.to_device(x), y)
    want = []
    for v in x.reshape(nblocks, block):
        r = [v + k for k in range(4)]
        s = r[3]
        acc = sum(np.roll(s, -k) * r[k] for k in range(4))
        want.append(np.roll(acc, 1) + 4 * 1000 + 7)
    np.testing.assert_array_equal(y.get(), np.concatenate(want))


@pytest.mark.parametrize("block,active", [(1, 1), (64, 10), (256, 255), (1024, 1)])
def test_return_between_barriers(mod, rng, block, active):
    x = rng.integers(-1000, 1000, 3 * block, dtype=np.int32)
    y = hipkit.empty(3 * block, np.int32)
    mod.get_function("return_between_barriers")[3, block](hipkit.to_device(x), y, active)
    v = x.reshape(3, block)[:, ::-1]
    want = v.copy()
    want[:, :active] = np.roll(v[:, :active] + 1, -1, axis=1)
    np.testing.assert_array_equal(y.get(), want.ravel())


@pytest.mark.parametrize("block", [(4, 4, 4), (2, 3, 5), (1, 1, 64), (8, 8, 16), (1, 1, 1)])
def test_barriers_in_3d_blocks(mod, rng, block):
    nt = block[0] * block[1] * block[2]
    x = rng.integers(-1000, 1000, 2 * nt, dtype=np.int32)
    y = hipkit.empty(2 * nt, np.int32)
    mod.get_function("reverse_3d")[2, block](hipkit.to_device(x), y)
    tz, ty, tx = np.meshgrid(*(np.arange(d) for d in block[::-1]), indexing="ij")
    ids = (tz * 10000 + ty * 100 + tx).ravel()
    v = x.reshape(2, nt)[:, ::-1] + ids
    np.testing.assert_array_equal(y.get(), np.roll(v, -1, axis=1).ravel())


@pytest.mark.parametrize("block", [(256, 1), (16, 16), (1, 256)])
def test_unrolled_loop_and_device_function_across_barriers(mod, rng, block):
    x = rng.integers(-1000, 1000, 3 * 256, dtype=np.int32)
    y = hipkit.empty(3 * 256, np.int32)
    mod.get_function("unrolled_loop")[3, block](hipkit.to_device(x), y)
    v = x.reshape(3, 256)
    total = v.sum(axis=1, keepdims=True)  # the butterfly leaves every slot with the block's sum
    t = np.arange(256)
    np.testing.assert_array_equal(y.get(), (total * (t % 3) + v + 1000000).ravel())


@pytest.mark.parametrize("block", [1, 64, 1024])
def test_locals_shadowing_namespace_scope_names(mod, rng, block):
    x = rng.integers(-1000, 1000, 2 * block, dtype=np.int32)
    y = hipkit.empty(2 * block, np.int32)
    mod.get_function("shadowing_across_barrier")[2, block](hipkit.to_device(x), y)
    v = x.reshape(2, block)
    twice = 2 * (np.arange(block) % 5)
    np.testing.assert_array_equal(y.get(), (v[:, ::-1] * twice + 1000).ravel())


@pytest.mark.parametrize("op", [0, 1, 2])
@pytest.mark.parametrize("block", [1, 100, 1024])
def test_barrier_in_switch(mod, rng, op, block):
    x = rng.integers(-1000, 1000, 2 * block, dtype=np.int32)
    y = hipkit.empty(2 * block, np.int32)
    mod.get_function("barrier_in_switch")[2, block](hipkit.to_device(x), y, op)
    v = x.reshape(2, block)
    want = {0: v[:, ::-1], 1: np.roll(v * 2, -1, axis=1), 2: np.full_like(v, -1)}[op]
    np.testing.assert_array_equal(y.get(), want.ravel())


@pytest.mark.parametrize("block", [(1, 1, 1), (100, 1, 1), (1024, 1, 1), (8, 4, 3), (2, 16, 32)])
@pytest.mark.parametrize("density", [0.0, 0.02, 0.5, 1.0])
def test_syncthreads_count_and_or(mod, rng, block, density):
    nt = block[0] * block[1] * block[2]
    nblocks = 3
    n = nblocks * nt - nt // 3  # the last block has threads past n (predicate 0)
    pred = (rng.random(n) < density).astype(np.int32) * rng.integers(1, 100, n, dtype=np.int32)
    count, all_, any_ = (hipkit.empty(n, np.int32) for _ in range(3))
    mod.get_function("sync_votes")[nblocks, block](hipkit.to_device(pred), count, all_, any_, n)
    padded = np.zeros(nblocks * nt, np.int32)
    padded[:n] = pred
    per_block = padded.reshape(nblocks, nt) != 0
    np.testing.assert_array_equal(count.get(), np.repeat(per_block.sum(1), nt)[:n])
    np.testing.assert_array_equal(all_.get(), np.repeat(per_block.all(1), nt)[:n])
    np.testing.assert_array_equal(any_.get(), np.repeat(per_block.any(1), nt)[:n])


@pytest.mark.parametrize("n", [1, 256, 10000, 100000])
def test_threadfence_last_block_reduction(mod, rng, n):
    x = rng.integers(-(10**6), 10**6, n, dtype=np.int32)
    nblocks = cdiv(n, 256)
    partial = hipkit.empty(nblocks, np.int32)
    total = hipkit.zeros(1, np.int64)
    kernel = mod.get_function("last_block_sum")
    for _ in range(2):  # the kernel resets its counter: launches repeat
        kernel[nblocks, 256](hipkit.to_device(x), partial, total, n)
        assert total.get()[0] == x.astype(np.int64).sum()
    np.testing.assert_array_equal(partial.get(), np.add.reduceat(x, np.arange(0, n, 256)))


@pytest.mark.parametrize("block", [1, 96, 1024])
def test_threadfence_block(mod, rng, block):
    x = rng.integers(-1000, 1000, 4 * block, dtype=np.int32)
    y = hipkit.empty(4 * block, np.int32)
    mod.get_function("fence_block")[4, block](hipkit.to_device(x), y)
    v = x.reshape(4, block)
    np.testing.assert_array_equal(y.get(), (v[:, ::-1] - v).ravel())


@pytest.mark.parametrize(
    "expr,n",
    [("moving_average<256, 97>", 100000), ("moving_average<64, 9>", 1000), ("moving_average<1, 1>", 5)],
)
def test_shared_array_filled_by_constant_stride_loop(mod, rng, expr, n):
    block, window = (int(v) for v in expr[expr.index("<") + 1 : -1].split(","))
    x = rng.integers(0, 10**6, n, dtype=np.uint32)
    y = hipkit.zeros(n, np.uint32)
    mod.get_function(expr)[cdiv(n, block), block](hipkit.to_device(x), y, n)
    sums = np.lib.stride_tricks.sliding_window_view(x.astype(np.int64), window).sum(axis=1)
    want = np.zeros(n, np.uint32)
    want[: n - window + 1] = sums // window
    np.testing.assert_array_equal(y.get(), want)


@pytest.mark.parametrize("block", [1, 64, 1024])
def test_uniform_declaration_shadowing_a_local(mod, rng, block):
    x = rng.integers(-1000, 1000, 2 * block, dtype=np.int32)
    y = hipkit.empty(2 * block, np.int32)
    mod.get_function("uniform_shadows_local")[2, block](hipkit.to_device(x), y, 3)
    v = x.reshape(2, block)
    np.testing.assert_array_equal(y.get(), (v + np.roll(v, -1, axis=1) + 3000).ravel())


def strided_reference(x, K, block, step, flag):
    owned = [np.arange(t, K, step) for t in range(block)]
    ys, sums = [], []
    for xb in x.reshape(-1, K).astype(np.int64):
        s = np.full(2048, -7, np.int64)
        for i in owned:
            s[i] = xb[i]
        acc = np.array([s[K - 1 - i].sum() if t % 3 != 1 else 0 for t, i in enumerate(owned)])
        if flag:
            acc -= np.array([3 * s[i].sum() for i in owned])
            for i in owned:
                s[i] = 5 * i + 1
        y = np.full(K, -99, np.int64)
        for i in owned:
            y[i] = s[i] + s[K - 1 - i]
        ys.append(y)
        sums.append(acc)
    return np.concatenate(ys), np.concatenate(sums)


@pytest.mark.parametrize("step", list(STEPS))
@pytest.mark.parametrize("block,K", [(1, 5), (64, 1000), (100, 999), (128, 77), (256, 2048), (1024, 1500)])
def test_loops_striding_from_thread_index(mod, rng, step, block, K):
    nblocks, param = 3, 37
    stride = STEPS[step][1](block, param)
    kernel = mod.get_function(f"strided_{step}")
    for flag in (0, 1):
        x = rng.integers(-1000, 1000, nblocks * K, dtype=np.int32)
        y = hipkit.to_device(np.full(nblocks * K, -99, np.int32))
        sums = hipkit.empty(nblocks * block, np.int32)
        kernel[nblocks, block](hipkit.to_device(x), y, sums, K, param, flag)
        want_y, want_sums = strided_reference(x, K, block, stride, flag)
        np.testing.assert_array_equal(y.get(), want_y)
        np.testing.assert_array_equal(sums.get(), want_sums)
