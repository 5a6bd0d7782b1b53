"""Device library: HIP's overloads that ported programs use and hipkit lacked.

``__half2`` with a scalar operand (HIP's __half2 takes its vector type's splat,
so ``h2 += 1`` and ``h2 *= 0.5f`` act on both halves, the scalar rounded to half
first), ``__ffsll`` on every 64-bit integer type (long, unsigned long, int64_t,
uint64_t, long long, unsigned long long), ``fdivide``, and ``powi``/``powif``
(OCML's pown); the warp match and reduce functions (``__match_any_sync``,
``__match_all_sync``, ``__reduce_{add,min,max,and,or,xor}_sync``) over each warp's
live lanes, in a divergent branch too; AMD's ``__ballot64`` and masked bit counts
(``__mbcnt_lo``, ``__mbcnt_hi``); against NumPy and Python on fresh random data.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover
from test_lang_types import fp16_bits_equal

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_math_constants.h>
#include <stdint.h>

extern "C" __global__ void constants(float* f, double* d) {
  f[0] = HIP_PI_F, f[1] = HIP_INF_F, f[2] = HIP_NAN_F, f[3] = HIP_SQRT_TWO_F, f[4] = HIP_L2E_F;
  f[5] = HIP_MAX_NORMAL_F, f[6] = HIP_MIN_DENORM_F, f[7] = HIP_TWO_TO_23_F;
  d[0] = HIP_PI, d[1] = HIP_INF, d[2] = HIP_NAN, d[3] = HIP_SQRT_TWO, d[4] = HIP_L2E;
  d[5] = HIP_LN2, d[6] = HIP_MIN_DENORM, d[7] = HIP_TWO_TO_53;
}

extern "C" __global__ void half2_scalars(const __half2* a, __half2* out, int k, float s, double d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i];
  __half2 y = x;
  y += k;
  out[8 * i + 0] = y;
  y = x;
  y -= s;
  out[8 * i + 1] = y;
  y = x;
  y *= d;
  out[8 * i + 2] = y;
  y = x;
  y /= 4;
  out[8 * i + 3] = y;
  out[8 * i + 4] = x + k;
  out[8 * i + 5] = s * x;
  out[8 * i + 6] = x - 1;
  __half2 z = s;
  out[8 * i + 7] = z;
}

extern "C" __global__ void ffs64(const unsigned long long* v, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long u = v[i];
  out[6 * i + 0] = __ffsll(static_cast<long>(u));
  out[6 * i + 1] = __ffsll(static_cast<unsigned long>(u));
  out[6 * i + 2] = __ffsll(static_cast<int64_t>(u));
  out[6 * i + 3] = __ffsll(static_cast<uint64_t>(u));
  out[6 * i + 4] = __ffsll(static_cast<long long>(u));
  out[6 * i + 5] = __ffsll(u);
}

extern "C" __global__ void division_powers(const double* a, const double* b, const int* e, double* q,
                                           double* p, float* pf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  q[i] = fdivide(a[i], b[i]);
  p[i] = powi(a[i], e[i]);
  pf[i] = powif(static_cast<float>(a[i]), e[i]);
}

extern "C" __global__ void match_reduce(const int* v, unsigned long long* any, unsigned long long* all,
                                        int* pred, int* sum, unsigned* low, int* odd_max, unsigned* bits,
                                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // The masks name the lanes present (CUDA requires it; hipkit counts live lanes anyway).
  const unsigned long long live = __activemask();
  int key = v[i];
  any[i] = __match_any_sync(live, key);
  int p = -1;
  all[i] = __match_all_sync(live, key / 1000, &p);
  pred[i] = p;
  sum[i] = __reduce_add_sync(live, key);
  low[i] = __reduce_min_sync(live, (unsigned)key);
  if (key % 2) odd_max[i] = __reduce_max_sync(__activemask(), key);  // the odd lanes alone
  unsigned u = (unsigned)key * 2654435761u;
  bits[3 * i + 0] = __reduce_and_sync(live, u);
  bits[3 * i + 1] = __reduce_or_sync(live, u);
  bits[3 * i + 2] = __reduce_xor_sync(live, u);
}

// AMD's masked bit counts alone (a kernel with no warp operation), and with
// __ballot64: each lane's rank among the lanes that vote yes.
extern "C" __global__ void mbcnt(const unsigned long long* m, unsigned* lo, unsigned* hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  lo[i] = __mbcnt_lo(unsigned(m[i]), 7u);
  hi[i] = __mbcnt_hi(unsigned(m[i] >> 32), 0u);
}

extern "C" __global__ void ballot_ranks(const int* v, unsigned long long* ballot, unsigned* rank, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long b = __ballot64(v[i] > 0);
  ballot[i] = b;
  rank[i] = __mbcnt_hi(unsigned(b >> 32), __mbcnt_lo(unsigned(b), 0u));
}

// amd_mixed_dot, each form, without and with saturation.
extern "C" __global__ void mixed_dot(const int* a, const int* b, const int* c, const __half2* h,
                                     long long* out, float* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i], z = c[i];
  short2 s2a = make_short2(short(x), short(x >> 16)), s2b = make_short2(short(y), short(y >> 16));
  ushort2 u2a = make_ushort2((unsigned short)x, (unsigned short)(x >> 16));
  ushort2 u2b = make_ushort2((unsigned short)y, (unsigned short)(y >> 16));
  char4 c4a = make_char4(char(x), char(x >> 8), char(x >> 16), char(x >> 24));
  char4 c4b = make_char4(char(y), char(y >> 8), char(y >> 16), char(y >> 24));
  uchar4 u4a = make_uchar4(x, x >> 8, x >> 16, x >> 24), u4b = make_uchar4(y, y >> 8, y >> 16, y >> 24);
  for (int sat = 0; sat < 2; ++sat) {
    long long* o = out + 12 * i + 6 * sat;
    o[0] = amd_mixed_dot(s2a, s2b, z, sat);
    o[1] = amd_mixed_dot(u2a, u2b, (unsigned)z, sat);
    o[2] = amd_mixed_dot(c4a, c4b, z, sat);
    o[3] = amd_mixed_dot(u4a, u4b, (unsigned)z, sat);
    o[4] = amd_mixed_dot(x, y, z, sat);
    o[5] = amd_mixed_dot((unsigned)x, (unsigned)y, (unsigned)z, sat);
    fout[2 * i + sat] = amd_mixed_dot(h[2 * i], h[2 * i + 1], 0.25f, sat);
  }
}
"""

SIZES = [(1, 1), (1000, 128), (1025, 1024)]


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE)
    recover(device)


@pytest.mark.parametrize("n,block", SIZES)
def test_half2_with_scalar_operands(mod, rng, n, block):
    a = rng.uniform(-8, 8, (n, 2)).astype(np.float16)
    k = int(rng.integers(-20, 20))
    s = np.float32(rng.uniform(-3, 3))
    d = float(rng.uniform(-3, 3))
    out = hipkit.empty((n, 8, 2), np.float16)
    mod.get_function("half2_scalars")[cdiv(n, block), block](hipkit.to_device(a), out, k, s, d, n)
    got = out.get()
    hk, hs, hd = np.float16(k), np.float16(s), np.float16(d)
    want = [a + hk, a - hs, a * hd, a / np.float16(4), a + hk, hs * a, a - np.float16(1), np.full_like(a, hs)]
    names = [
        "h2 += int",
        "h2 -= float",
        "h2 *= double",
        "h2 /= 4",
        "h2 + int",
        "float * h2",
        "h2 - 1",
        "h2 = float",
    ]
    for j, name in enumerate(names):
        fp16_bits_equal(got[:, j], want[j], name)


def python_ffs(v: int) -> int:
    return (v & -v).bit_length()


@pytest.mark.parametrize("n,block", SIZES)
def test_ffsll_on_every_64_bit_type(mod, rng, n, block):
    shifts = rng.integers(0, 64, n, dtype=np.uint64)
    v = (rng.integers(0, 2**63, n, dtype=np.uint64) | np.uint64(1)) << shifts
    v[: min(n, 3)] = [0, 1 << 63, 2**64 - 1][: min(n, 3)]
    out = hipkit.empty((n, 6), np.uint32)
    mod.get_function("ffs64")[cdiv(n, block), block](hipkit.to_device(v), out, n)
    want = np.array([python_ffs(int(x)) for x in v], np.uint32)
    for j, name in enumerate(
        ["long", "unsigned long", "int64_t", "uint64_t", "long long", "unsigned long long"]
    ):
        np.testing.assert_array_equal(out.get()[:, j], want, err_msg=f"__ffsll({name})")


@pytest.mark.parametrize("n,block", SIZES)
def test_fdivide_and_integer_powers(mod, rng, n, block):
    a = rng.uniform(-4, 4, n)
    b = rng.uniform(0.25, 4, n) * rng.choice([-1, 1], n)
    e = rng.integers(-8, 9, n, dtype=np.int32)
    a[: min(n, 2)] = [0.0, np.nan][: min(n, 2)]
    e[: min(n, 2)] = [0, 0][: min(n, 2)]  # pown(x, 0) is 1 for every x, NaN too
    q, p, pf = hipkit.empty(n, np.float64), hipkit.empty(n, np.float64), hipkit.empty(n, np.float32)
    mod.get_function("division_powers")[cdiv(n, block), block](
        hipkit.to_device(a), hipkit.to_device(b), hipkit.to_device(e), q, p, pf, n
    )
    np.testing.assert_array_equal(q.get(), a / b)
    with np.errstate(divide="ignore"):
        want = np.power(a, e.astype(np.float64))
        want_f = np.power(a.astype(np.float32).astype(np.float64), e.astype(np.float64))
    np.testing.assert_allclose(p.get(), want, rtol=1e-15)
    np.testing.assert_allclose(pf.get(), want_f.astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("n,block", [(1, 1), (200, 64), (1000, 256)])
def test_warp_match_and_reduce(device, mod, rng, n, block):
    warp = device.warp_size
    v = rng.integers(0, 5, n).astype(np.int32) * rng.choice([1, 1000], n).astype(np.int32)
    v[warp : 2 * warp] = int(rng.integers(0, 999))  # a warp of one value
    outs = [hipkit.empty(n, t) for t in (np.uint64, np.uint64, np.int32, np.int32, np.uint32)]
    odd_max = hipkit.to_device(np.full(n, -5, np.int32))
    bits = hipkit.empty((n, 3), np.uint32)
    mod.get_function("match_reduce")[cdiv(n, block), block](hipkit.to_device(v), *outs, odd_max, bits, n)
    any_, all_, pred, total, low = (o.get() for o in outs)
    u = v.astype(np.uint32) * np.uint32(2654435761)
    for first in range(0, n, block):  # warps do not cross blocks
        for w0 in range(first, min(n, first + block), warp):
            lanes = np.arange(w0, min(n, w0 + warp, first + block))
            vals = v[lanes]
            for t in lanes:
                assert any_[t] == sum(1 << int(s - w0) for s in lanes if v[s] == v[t]), t
            same = len(set(vals // 1000)) == 1
            live = sum(1 << int(s - w0) for s in lanes)
            assert (all_[lanes] == (live if same else 0)).all() and (pred[lanes] == same).all()
            assert (total[lanes] == vals.sum()).all() and (low[lanes] == vals.min()).all()
            odd = lanes[vals % 2 == 1]
            np.testing.assert_array_equal(odd_max.get()[odd], vals[vals % 2 == 1].max() if len(odd) else [])
            assert (odd_max.get()[lanes[vals % 2 == 0]] == -5).all()
            got = bits.get()[lanes]
            want = [
                np.bitwise_and.reduce(u[lanes]),
                np.bitwise_or.reduce(u[lanes]),
                np.bitwise_xor.reduce(u[lanes]),
            ]
            np.testing.assert_array_equal(got, np.tile(want, (len(lanes), 1)))


@pytest.mark.parametrize("n,block", [(1, 1), (200, 64), (1000, 256)])
def test_mbcnt_and_ballot64(device, mod, rng, n, block):
    warp = device.warp_size
    lane = np.arange(n) % block % warp
    m = rng.integers(0, 2**64, n, dtype=np.uint64)
    lo, hi = hipkit.empty(n, np.uint32), hipkit.empty(n, np.uint32)
    mod.get_function("mbcnt")[cdiv(n, block), block](hipkit.to_device(m), lo, hi, n)

    def below(bits: int, count: int) -> int:  # the set bits of bits below bit count
        return bin(bits & ((1 << count) - 1)).count("1")

    want_lo = [below(int(x) & 0xFFFFFFFF, min(int(k), 32)) + 7 for x, k in zip(m, lane, strict=True)]
    want_hi = [below(int(x) >> 32, max(int(k) - 32, 0)) for x, k in zip(m, lane, strict=True)]
    np.testing.assert_array_equal(lo.get(), want_lo)
    np.testing.assert_array_equal(hi.get(), want_hi)

    v = rng.integers(-3, 3, n).astype(np.int32)
    ballot, rank = hipkit.empty(n, np.uint64), hipkit.empty(n, np.uint32)
    mod.get_function("ballot_ranks")[cdiv(n, block), block](hipkit.to_device(v), ballot, rank, n)
    for first in range(0, n, block):  # warps do not cross blocks
        for w0 in range(first, min(n, first + block), warp):
            lanes = range(w0, min(n, w0 + warp, first + block))
            votes = sum(1 << (s - w0) for s in lanes if v[s] > 0)
            for t in lanes:
                assert int(ballot.get()[t]) == votes, t
                assert int(rank.get()[t]) == below(votes, t - w0), t


def mixed_dot_reference(x: int, y: int, z: int) -> list[int]:
    def parts(v: int, bits: int, count: int, signed: bool) -> list[int]:
        out = [(v >> (bits * k)) & ((1 << bits) - 1) for k in range(count)]
        return [p - (1 << bits) if signed and p >> (bits - 1) else p for p in out]

    u, uy, uz = x & 0xFFFFFFFF, y & 0xFFFFFFFF, z & 0xFFFFFFFF
    exact = [
        (sum(p * q for p, q in zip(parts(u, 16, 2, True), parts(uy, 16, 2, True), strict=True)) + z, True),
        (
            sum(p * q for p, q in zip(parts(u, 16, 2, False), parts(uy, 16, 2, False), strict=True)) + uz,
            False,
        ),
        (sum(p * q for p, q in zip(parts(u, 8, 4, True), parts(uy, 8, 4, True), strict=True)) + z, True),
        (sum(p * q for p, q in zip(parts(u, 8, 4, False), parts(uy, 8, 4, False), strict=True)) + uz, False),
        (sum(p * q for p, q in zip(parts(u, 4, 8, True), parts(uy, 4, 8, True), strict=True)) + z, True),
        (sum(p * q for p, q in zip(parts(u, 4, 8, False), parts(uy, 4, 8, False), strict=True)) + uz, False),
    ]
    wrapped = [((v + 2**31) % 2**32 - 2**31) if signed else v % 2**32 for v, signed in exact]
    saturated = [min(max(v, -(2**31)), 2**31 - 1) if signed else min(v, 2**32 - 1) for v, signed in exact]
    return wrapped + saturated


@pytest.mark.parametrize("n,block", [(1, 1), (300, 128)])
def test_amd_mixed_dot(mod, rng, n, block):
    a = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    c = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    c[::3] = 2**31 - 1  # saturation upwards for the signed forms
    h = rng.uniform(-1, 1, (2 * n, 2)).astype(np.float16)
    out, fout = hipkit.empty((n, 12), np.int64), hipkit.empty((n, 2), np.float32)
    mod.get_function("mixed_dot")[cdiv(n, block), block](
        hipkit.to_device(a), hipkit.to_device(b), hipkit.to_device(c), hipkit.to_device(h), out, fout, n
    )
    got = out.get()
    for i in range(n):
        want = mixed_dot_reference(int(a[i]), int(b[i]), int(c[i]))
        # The unsigned results went out as unsigned int in a long long.
        assert [int(v) for v in got[i]] == want, i
    hf = h.astype(np.float32).reshape(n, 2, 2)
    dot = (hf[:, 0] * hf[:, 1]).sum(axis=1) + np.float32(0.25)
    np.testing.assert_allclose(fout.get()[:, 0], dot, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fout.get()[:, 1], np.clip(dot, 0, 1), rtol=1e-6, atol=1e-6)


def test_the_same_kernels_in_an_nvidia_program(tmp_path):
    """The kernels above, in a program built by hipkit cc for NVIDIA (nvcc, whose
    headers differ from NVRTC's): compiled here, run by the NVRTC tests where a GPU is."""
    from test_cc import build, write
    from test_cc_nvidia import NVCC_MISSING

    if NVCC_MISSING:
        pytest.skip(NVCC_MISSING)
    write(tmp_path, "library.hip", SOURCE)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-c", "library.hip")
    assert (tmp_path / "library.o").stat().st_size > 0


def test_math_constants(mod):
    f, d = hipkit.empty(8, np.float32), hipkit.empty(8, np.float64)
    mod.get_function("constants")[1, 1](f, d)
    want_f = np.array(
        [np.pi, np.inf, np.nan, np.sqrt(2), np.log2(np.e), np.finfo(np.float32).max, 2.0**-149, 2.0**23],
        np.float32,
    )
    want_d = np.array([np.pi, np.inf, np.nan, np.sqrt(2), np.log2(np.e), np.log(2), 2.0**-1074, 2.0**53])
    np.testing.assert_array_equal(f.get(), want_f)
    np.testing.assert_array_equal(d.get(), want_d)
