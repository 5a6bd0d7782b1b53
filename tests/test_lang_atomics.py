"""Kernel language: atomic functions.

``atomicAdd, atomicSub, atomicExch, atomicMin, atomicMax, atomicInc,
atomicDec, atomicAnd, atomicOr, atomicXor, atomicCAS`` on ``int``,
``unsigned int`` and ``unsigned long long`` (``float`` and ``double`` for
Add/Exch/Min/Max/CAS): many blocks hammering a few global addresses (exact
totals, integer-valued floating point so that any order gives the same sum),
in shared memory (histograms), and their return values (the old values).
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

// Thread i applies its operation with v[i] to slots[i % nslots] and keeps
// the old value in old[i].
#define HAMMER(NAME, CALL)                                                        \
  template <typename T>                                                           \
  __global__ void NAME(T* slots, const T* v, T* old, int n, int nslots) {         \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                \
    if (i < n) old[i] = CALL(&slots[i % nslots], v[i]);                           \
  }
HAMMER(add_k, atomicAdd)
HAMMER(sub_k, atomicSub)
HAMMER(exch_k, atomicExch)
HAMMER(min_k, atomicMin)
HAMMER(max_k, atomicMax)
HAMMER(and_k, atomicAnd)
HAMMER(or_k, atomicOr)
HAMMER(xor_k, atomicXor)

// atomicAdd built from atomicCAS.
template <typename T>
__global__ void cas_add_k(T* slots, const T* v, int n, int nslots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T* p = &slots[i % nslots];
  T seen = *p, assumed;
  do {
    assumed = seen;
    seen = atomicCAS(p, assumed, assumed + v[i]);
  } while (seen != assumed);
}

// A single atomicCAS per thread: exactly one thread per slot wins.
template <typename T>
__global__ void cas_once_k(T* slots, T expected, const T* v, T* old, int n, int nslots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicCAS(&slots[i % nslots], expected, v[i]);
}

extern "C" __global__ void inc_k(unsigned* slot, unsigned limit, unsigned* old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicInc(slot, limit);
}

extern "C" __global__ void dec_k(unsigned* slot, unsigned limit, unsigned* old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicDec(slot, limit);
}

// Tickets: the old values of atomicAdd(counter, 1) number the threads.
extern "C" __global__ void tickets(unsigned long long* counter, unsigned long long* ticket,
                                   int* owner, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned long long k = atomicAdd(counter, 1ull);
    ticket[i] = k;
    owner[k] = i;
  }
}

// Histogram in shared memory, then merged into global memory.
extern "C" __global__ void histogram(const unsigned* x, unsigned* hist, int n, int nbins) {
  extern __shared__ unsigned bins[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[x[i] % nbins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    if (bins[b]) atomicAdd(&hist[b], bins[b]);
}

// The same in rounds of a block's width with a barrier in each: every round is one
// pass over the block's threads, where threads of one vector hit the same bin.
extern "C" __global__ void histogram_rounds(const unsigned char* x, unsigned* hist, int n, int nbins) {
  __shared__ unsigned bins[256];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (int base = blockIdx.x * blockDim.x; base < n; base += blockDim.x * gridDim.x) {
    const int i = base + threadIdx.x;
    if (i < n) atomicAdd(&bins[x[i] & (nbins - 1)], 1u);  // nbins a power of 2
    __syncthreads();
  }
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&hist[b], bins[b]);
}

// Per-block min, max, and, or, xor, sub, exch and CAS in shared memory.
extern "C" __global__ void shared_ops(const int* x, int* out, int n) {
  __shared__ int lo, hi, all_bits, any_bits, parity, down, last, first;
  const int t = threadIdx.x;
  if (t == 0) {
    lo = 2147483647;
    hi = -2147483647 - 1;
    all_bits = -1;
    any_bits = 0;
    parity = 0;
    down = 0;
    last = -1;
    first = -1;
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + t;
  if (i < n) {
    int v = x[i];
    atomicMin(&lo, v);
    atomicMax(&hi, v);
    atomicAnd(&all_bits, v);
    atomicOr(&any_bits, v);
    atomicXor(&parity, v);
    atomicSub(&down, v & 0xff);
    atomicExch(&last, t);
    atomicCAS(&first, -1, t);
  }
  __syncthreads();
  if (t == 0) {
    int* o = out + 8 * blockIdx.x;
    o[0] = lo; o[1] = hi; o[2] = all_bits; o[3] = any_bits;
    o[4] = parity; o[5] = down; o[6] = last; o[7] = first;
  }
}

// Float and double atomicAdd on shared memory, then on global memory.
template <typename T>
__global__ void shared_float_sum(const T* x, T* total, int n) {
  __shared__ T s;
  if (threadIdx.x == 0) s = T(0);
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&s, x[i]);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(total, s);
}
"""

INT_TYPES = {"int": np.int32, "unsigned int": np.uint32, "unsigned long long": np.uint64}
FLOAT_TYPES = {"float": np.float32, "double": np.float64}
ALL_TYPES = {**INT_TYPES, **FLOAT_TYPES}

OPS = {
    "add_k": ALL_TYPES,
    "sub_k": {"int": np.int32, "unsigned int": np.uint32},
    "exch_k": ALL_TYPES,
    "min_k": ALL_TYPES,
    "max_k": ALL_TYPES,
    "and_k": INT_TYPES,
    "or_k": INT_TYPES,
    "xor_k": INT_TYPES,
    "cas_add_k": ALL_TYPES,
    "cas_once_k": ALL_TYPES,
    "shared_float_sum": FLOAT_TYPES,
}
NAMES = [f"{op}<{t}>" for op, types in OPS.items() for t in types]

# (n, block, nslots): many blocks on a few addresses, 1-thread blocks, 1024-thread blocks.
LAUNCHES = [(50000, 256, 3), (3000, 1, 2), (20000, 1024, 1), (777, 100, 17)]


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE, NAMES)
    recover(device)


def values(rng, dtype, n, op):
    """Random operands; floating-point ones integer-valued so every order of
    accumulation is exact."""
    if dtype in (np.float32, np.float64):
        return rng.integers(-1000, 1000, n).astype(dtype)
    if op in ("add_k", "sub_k", "cas_add_k"):
        return rng.integers(0, 1000, n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def run_hammer(mod, rng, op, ctype, n, block, nslots):
    dtype = ALL_TYPES[ctype]
    v = values(rng, dtype, n, op)
    init = values(rng, dtype, nslots, op)
    slots, old = hipkit.to_device(init), hipkit.empty(n, dtype)
    mod.get_function(f"{op}<{ctype}>")[cdiv(n, block), block](slots, hipkit.to_device(v), old, n, nslots)
    return init, v, slots.get(), old.get()


def slot_of(n, nslots):
    return np.arange(n) % nslots


def assert_chains(init, final, old, new, nslots):
    """The atomic updates of each slot form a chain init -> ... -> final in
    some order: thread i saw old[i] and left new[i].  Then the values seen
    plus the final one are the initial one plus the values left."""
    s = slot_of(len(old), nslots)
    for k in range(nslots):
        seen = np.sort(np.concatenate([old[s == k], final[k : k + 1]]))
        left = np.sort(np.concatenate([init[k : k + 1], new[s == k]]))
        np.testing.assert_array_equal(seen, left, err_msg=f"slot {k}")


@pytest.mark.parametrize("ctype", list(ALL_TYPES))
@pytest.mark.parametrize("n,block,nslots", LAUNCHES)
def test_atomic_add(mod, rng, ctype, n, block, nslots):
    init, v, final, old = run_hammer(mod, rng, "add_k", ctype, n, block, nslots)
    s = slot_of(n, nslots)
    with np.errstate(over="ignore"):
        want = init + np.array([v[s == k].sum(dtype=v.dtype) for k in range(nslots)], v.dtype)
    np.testing.assert_array_equal(final, want)
    with np.errstate(over="ignore"):
        assert_chains(init, final, old, old + v, nslots)


@pytest.mark.parametrize("ctype", ["int", "unsigned int"])
@pytest.mark.parametrize("n,block,nslots", LAUNCHES)
def test_atomic_sub(mod, rng, ctype, n, block, nslots):
    init, v, final, old = run_hammer(mod, rng, "sub_k", ctype, n, block, nslots)
    s = slot_of(n, nslots)
    with np.errstate(over="ignore"):
        want = init - np.array([v[s == k].sum(dtype=v.dtype) for k in range(nslots)], v.dtype)
        np.testing.assert_array_equal(final, want)
        assert_chains(init, final, old, old - v, nslots)


@pytest.mark.parametrize("ctype", list(ALL_TYPES))
@pytest.mark.parametrize("n,block,nslots", LAUNCHES)
def test_atomic_exch(mod, rng, ctype, n, block, nslots):
    init, v, final, old = run_hammer(mod, rng, "exch_k", ctype, n, block, nslots)
    assert_chains(init, final, old, v, nslots)


@pytest.mark.parametrize("op,reduce", [("min_k", np.minimum), ("max_k", np.maximum)])
@pytest.mark.parametrize("ctype", list(ALL_TYPES))
@pytest.mark.parametrize("n,block,nslots", LAUNCHES)
def test_atomic_min_max(mod, rng, op, reduce, ctype, n, block, nslots):
    init, v, final, old = run_hammer(mod, rng, op, ctype, n, block, nslots)
    s = slot_of(n, nslots)
    want = np.array([reduce(init[k], reduce.reduce(v[s == k])) for k in range(nslots)], v.dtype)
    np.testing.assert_array_equal(final, want)
    assert_chains(init, final, old, reduce(old, v), nslots)


@pytest.mark.parametrize(
    "op,reduce", [("and_k", np.bitwise_and), ("or_k", np.bitwise_or), ("xor_k", np.bitwise_xor)]
)
@pytest.mark.parametrize("ctype", list(INT_TYPES))
@pytest.mark.parametrize("n,block,nslots", LAUNCHES)
def test_atomic_bitwise(mod, rng, op, reduce, ctype, n, block, nslots):
    init, v, final, old = run_hammer(mod, rng, op, ctype, n, block, nslots)
    s = slot_of(n, nslots)
    want = np.array([reduce(init[k], reduce.reduce(v[s == k])) for k in range(nslots)], v.dtype)
    np.testing.assert_array_equal(final, want)
    assert_chains(init, final, old, reduce(old, v), nslots)


@pytest.mark.parametrize("ctype", list(ALL_TYPES))
@pytest.mark.parametrize("n,block,nslots", LAUNCHES)
def test_atomic_cas_loop(mod, rng, ctype, n, block, nslots):
    dtype = ALL_TYPES[ctype]
    v = values(rng, dtype, n, "cas_add_k")
    init = values(rng, dtype, nslots, "cas_add_k")
    slots = hipkit.to_device(init)
    mod.get_function(f"cas_add_k<{ctype}>")[cdiv(n, block), block](slots, hipkit.to_device(v), n, nslots)
    s = slot_of(n, nslots)
    want = init + np.array([v[s == k].sum(dtype=v.dtype) for k in range(nslots)], v.dtype)
    np.testing.assert_array_equal(slots.get(), want)


@pytest.mark.parametrize("ctype", list(ALL_TYPES))
@pytest.mark.parametrize("n,block,nslots", LAUNCHES)
def test_atomic_cas_single_winner(mod, rng, ctype, n, block, nslots):
    dtype = ALL_TYPES[ctype]
    expected = dtype(7)
    v = rng.permutation(n).astype(dtype) + dtype(100)  # distinct, never `expected`
    slots, old = hipkit.to_device(np.full(nslots, expected, dtype)), hipkit.empty(n, dtype)
    mod.get_function(f"cas_once_k<{ctype}>")[cdiv(n, block), block](
        slots, expected, hipkit.to_device(v), old, n, nslots
    )
    final, old = slots.get(), old.get()
    s = slot_of(n, nslots)
    for k in range(nslots):
        won = old[s == k] == expected
        assert won.sum() == 1
        assert final[k] == v[s == k][won][0]
        np.testing.assert_array_equal(old[s == k][~won], final[k])


# atomicInc and atomicDec: the next value from the old one and the limit (CUDA's rules).
WRAPPING = {
    "inc_k": lambda old, limit: 0 if old >= limit else old + 1,
    "dec_k": lambda old, limit: limit if old == 0 or old > limit else old - 1,
}


@pytest.mark.parametrize("kernel", list(WRAPPING))
@pytest.mark.parametrize(
    "n,block,limit", [(10000, 256, 37), (1000, 1, 999), (5000, 1024, 0), (3000, 100, 0xFFFFFFFF)]
)
def test_atomic_inc_dec(mod, rng, kernel, n, block, limit):
    start = int(rng.integers(0, min(limit, 10**6) + 1))
    slot, old = hipkit.to_device(np.array([start], np.uint32)), hipkit.empty(n, np.uint32)
    mod.get_function(kernel)[cdiv(n, block), block](slot, limit, old, n)
    seq = [start]
    for _ in range(n):
        seq.append(WRAPPING[kernel](seq[-1], limit))
    assert slot.get()[0] == seq[-1]
    np.testing.assert_array_equal(np.sort(old.get()), np.sort(np.array(seq[:-1], np.uint32)))


@pytest.mark.parametrize("n,block", [(1, 1), (100000, 256), (4097, 1024), (999, 1)])
def test_atomic_add_old_values_are_a_permutation(mod, n, block):
    counter = hipkit.zeros(1, np.uint64)
    ticket, owner = hipkit.empty(n, np.uint64), hipkit.empty(n, np.int32)
    owner.fill(-1)
    mod.get_function("tickets")[cdiv(n, block), block](counter, ticket, owner, n)
    assert counter.get()[0] == n
    ticket = ticket.get()
    np.testing.assert_array_equal(np.sort(ticket), np.arange(n))
    np.testing.assert_array_equal(owner.get()[ticket.astype(np.int64)], np.arange(n))


@pytest.mark.parametrize(
    "n,nbins,grid,block", [(100000, 256, 20, 256), (1000, 7, 3, 1024), (5000, 1000, 7, 1), (33, 64, 1, 32)]
)
def test_shared_memory_histogram(mod, rng, n, nbins, grid, block):
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    hist = hipkit.zeros(nbins, np.uint32)
    mod.get_function("histogram")[grid, block, 4 * nbins](hipkit.to_device(x), hist, n, nbins)
    np.testing.assert_array_equal(hist.get(), np.bincount(x % nbins, minlength=nbins))


@pytest.mark.parametrize("n,nbins,grid,block", [(100000, 256, 5, 256), (3000, 4, 2, 64), (77, 16, 1, 128)])
def test_shared_memory_histogram_in_rounds(mod, rng, n, nbins, grid, block):
    """Atomics on shared memory from one pass over a block's threads: no update is
    lost where threads next to each other add to the same bin."""
    x = rng.integers(0, 256, n, dtype=np.uint8)
    hist = hipkit.zeros(nbins, np.uint32)
    mod.get_function("histogram_rounds")[grid, block](hipkit.to_device(x), hist, n, nbins)
    np.testing.assert_array_equal(hist.get(), np.bincount(x & (nbins - 1), minlength=nbins))


@pytest.mark.parametrize("n,block", [(1, 1), (1000, 256), (3000, 1024), (100, 7)])
def test_shared_memory_atomics(mod, rng, n, block):
    x = rng.integers(-(2**31), 2**31, n, dtype=np.int32)
    nblocks = cdiv(n, block)
    out = hipkit.empty((nblocks, 8), np.int32)
    mod.get_function("shared_ops")[nblocks, block](hipkit.to_device(x), out, n)
    out = out.get()
    for b in range(nblocks):
        c = x[b * block : (b + 1) * block]
        lo, hi, all_bits, any_bits, parity, down, last, first = out[b]
        assert (lo, hi) == (c.min(), c.max())
        assert all_bits == np.bitwise_and.reduce(c)
        assert any_bits == np.bitwise_or.reduce(c)
        assert parity == np.bitwise_xor.reduce(c)
        assert down == -(c & 0xFF).sum()
        assert 0 <= last < len(c) and 0 <= first < len(c)


@pytest.mark.parametrize("ctype", list(FLOAT_TYPES))
@pytest.mark.parametrize("n,block", [(1, 1), (100000, 256), (5000, 1024)])
def test_shared_memory_float_add(mod, rng, ctype, n, block):
    dtype = FLOAT_TYPES[ctype]
    x = rng.integers(-100, 100, n).astype(dtype)
    total = hipkit.zeros(1, dtype)
    mod.get_function(f"shared_float_sum<{ctype}>")[cdiv(n, block), block](hipkit.to_device(x), total, n)
    assert total.get()[0] == x.sum()
