"""Device library: HIP's overloads that ported programs use and hipkit lacked.

``__half2`` with a scalar operand (HIP's __half2 takes its vector type's splat,
so ``h2 += 1`` and ``h2 *= 0.5f`` act on both halves, the scalar rounded to half
first), ``__ffsll`` on every 64-bit integer type (long, unsigned long, int64_t,
uint64_t, long long, unsigned long long), ``fdivide``, and ``powi``/``powif``
(OCML's pown), against NumPy and Python on fresh random data.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover
from test_lang_types import fp16_bits_equal

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>

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
    names = ["h2 += int", "h2 -= float", "h2 *= double", "h2 /= 4", "h2 + int", "float * h2", "h2 - 1", "h2 = float"]
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
    for j, name in enumerate(["long", "unsigned long", "int64_t", "uint64_t", "long long", "unsigned long long"]):
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
