"""Kernel language: integer intrinsics and device math.

``__popc, __popcll, __clz, __clzll, __ffs, __ffsll, __brev, __brevll`` on
random values with 0 and all-ones among them (references computed bit by
bit); the float and double math functions against NumPy (in float64) within
a few ulp; the fast intrinsics (``__expf, __logf, __sinf, __cosf,
__fdividef, __powf``) with looser tolerances on their documented ranges; the
``min``/``max`` overloads (mixed signed/unsigned compares as unsigned, float
ones ignore a NaN).
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

extern "C" __global__ void bits32(const unsigned* x, unsigned* popc, int* clz, unsigned* ffs,
                                  unsigned* brev, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  popc[i] = __popc(x[i]);
  clz[i] = __clz((int)x[i]);
  ffs[i] = __ffs((int)x[i]);
  brev[i] = __brev(x[i]);
}

extern "C" __global__ void bits64(const unsigned long long* x, unsigned* popc, int* clz,
                                  unsigned* ffs, unsigned long long* brev, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  popc[i] = __popcll(x[i]);
  clz[i] = __clzll((long long)x[i]);
  ffs[i] = __ffsll((long long)x[i]);
  brev[i] = __brevll(x[i]);
}

extern "C" __global__ void fast_math(const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i];
  out[i] = __expf(a);
  out[n + i] = __logf(b);
  out[2 * n + i] = __sinf(a);
  out[3 * n + i] = __cosf(a);
  out[4 * n + i] = __fdividef(a, b);
  out[5 * n + i] = __powf(b, a * 0.5f);
}

extern "C" __global__ void min_max(const int* a, const int* b, const unsigned* ua, const unsigned* ub,
                                   const long long* la, const long long* lb, const float* fa,
                                   const float* fb, const double* da, const double* db, int* io,
                                   unsigned* uo, unsigned* mixed, long long* lo, float* fo,
                                   double* dbl, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  io[i] = min(a[i], b[i]);
  io[n + i] = max(a[i], b[i]);
  uo[i] = min(ua[i], ub[i]);
  uo[n + i] = max(ua[i], ub[i]);
  mixed[i] = min(a[i], ub[i]);
  mixed[n + i] = max(ua[i], b[i]);
  lo[i] = min(la[i], lb[i]);
  lo[n + i] = max(la[i], lb[i]);
  fo[i] = min(fa[i], fb[i]);
  fo[n + i] = max(fa[i], fb[i]);
  dbl[i] = min(da[i], db[i]);
  dbl[n + i] = max(da[i], db[i]);
}
"""


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE)
    recover(device)


def special_bits(rng, bits, n):
    """Random values of every bit length, with 0, 1, all-ones and the top bit."""
    dtype = np.uint32 if bits == 32 else np.uint64
    x = (
        rng.integers(0, 2**bits, n, dtype=dtype, endpoint=False)
        if bits == 32
        else rng.integers(0, np.iinfo(np.uint64).max, n, dtype=np.uint64, endpoint=True)
    )
    x >>= rng.integers(0, bits, n).astype(dtype)  # spread the leading-zero counts
    x[::7] <<= rng.integers(0, bits, len(x[::7])).astype(dtype)  # and the trailing ones
    top = 1 << (bits - 1)
    x[:6] = [0, 1, 2**bits - 1, top, top | 1, 0x5555555555555555 & (2**bits - 1)]
    return x


def bit_reference(x, bits):
    v = [int(a) for a in x]
    popc = [bin(a).count("1") for a in v]
    clz = [bits - a.bit_length() for a in v]
    ffs = [(a & -a).bit_length() for a in v]
    brev = [int(format(a, f"0{bits}b")[::-1], 2) for a in v]
    return popc, clz, ffs, brev


@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("n,block", [(1000, 256), (7, 1), (3000, 1024)])
def test_bit_intrinsics(mod, rng, bits, n, block):
    x = special_bits(rng, bits, n)
    popc, clz, ffs = hipkit.empty(n, np.uint32), hipkit.empty(n, np.int32), hipkit.empty(n, np.uint32)
    brev = hipkit.empty(n, x.dtype)
    mod.get_function(f"bits{bits}")[cdiv(n, block), block](hipkit.to_device(x), popc, clz, ffs, brev, n)
    want = bit_reference(x, bits)
    for name, got, ref in zip(("popc", "clz", "ffs", "brev"), (popc, clz, ffs, brev), want, strict=True):
        np.testing.assert_array_equal(got.get(), np.array(ref, dtype=got.dtype), err_msg=name)


# Device math: C expression (float spelling) over a, b, c, p = |a| + 0.5 and
# q = a / 4, and the NumPy reference.  The double kernel uses the same list
# without the f suffixes.
MATH = [
    ("sinf(a)", lambda a, b, c, p, q: np.sin(a)),
    ("cosf(a)", lambda a, b, c, p, q: np.cos(a)),
    ("tanf(q)", lambda a, b, c, p, q: np.tan(q)),
    ("expf(q)", lambda a, b, c, p, q: np.exp(q)),
    ("exp2f(q)", lambda a, b, c, p, q: np.exp2(q)),
    ("expm1f(q)", lambda a, b, c, p, q: np.expm1(q)),
    ("logf(p)", lambda a, b, c, p, q: np.log(p)),
    ("log2f(p)", lambda a, b, c, p, q: np.log2(p)),
    ("log10f(p)", lambda a, b, c, p, q: np.log10(p)),
    ("log1pf(p)", lambda a, b, c, p, q: np.log1p(p)),
    ("sqrtf(p)", lambda a, b, c, p, q: np.sqrt(p)),
    ("cbrtf(a)", lambda a, b, c, p, q: np.cbrt(a)),
    ("rsqrtf(p)", lambda a, b, c, p, q: 1 / np.sqrt(p)),
    ("powf(p, b)", lambda a, b, c, p, q: p**b),
    ("fmaf(a, b, c)", lambda a, b, c, p, q: exact_fma(a, b, c)),
    ("erff(q)", lambda a, b, c, p, q: np.vectorize(math.erf)(q)),
    ("erfcf(q)", lambda a, b, c, p, q: np.vectorize(math.erfc)(q)),
    ("tanhf(q)", lambda a, b, c, p, q: np.tanh(q)),
    ("sinhf(q)", lambda a, b, c, p, q: np.sinh(q)),
    ("coshf(q)", lambda a, b, c, p, q: np.cosh(q)),
    ("asinf(b / 4)", lambda a, b, c, p, q: np.arcsin(b / 4)),
    ("acosf(b / 4)", lambda a, b, c, p, q: np.arccos(b / 4)),
    ("atanf(a)", lambda a, b, c, p, q: np.arctan(a)),
    ("atan2f(a, b)", lambda a, b, c, p, q: np.arctan2(a, b)),
    ("hypotf(a, b)", lambda a, b, c, p, q: np.hypot(a, b)),
    ("floorf(a)", lambda a, b, c, p, q: np.floor(a)),
    ("ceilf(a)", lambda a, b, c, p, q: np.ceil(a)),
    ("truncf(a)", lambda a, b, c, p, q: np.trunc(a)),
    ("roundf(q)", lambda a, b, c, p, q: np.sign(q) * np.floor(np.abs(q) + 0.5)),  # half away
    ("rintf(q)", lambda a, b, c, p, q: np.rint(q)),  # half to even
    ("fabsf(c)", lambda a, b, c, p, q: np.abs(c)),
    ("fminf(a, b)", lambda a, b, c, p, q: np.fmin(a, b)),
    ("fmaxf(a, b)", lambda a, b, c, p, q: np.fmax(a, b)),
    ("fmodf(c, b)", lambda a, b, c, p, q: np.fmod(c, b)),
    ("copysignf(a, b)", lambda a, b, c, p, q: np.copysign(a, b)),
    ("sqrt(p)", lambda a, b, c, p, q: np.sqrt(p)),  # C++ overloads on float
    ("exp(q)", lambda a, b, c, p, q: np.exp(q)),
    ("fabs(c)", lambda a, b, c, p, q: np.abs(c)),
]


def exact_fma(a, b, c):
    """a * b + c rounded once (to float64)."""
    exact = [
        Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)) for x, y, z in zip(a, b, c, strict=True)
    ]
    return np.array([float(v) for v in exact])


def _double_spelling(expr):
    name, rest = expr.split("(", 1)
    return (name[:-1] if name.endswith("f") and name != "erf" else name) + "(" + rest


def _math_kernel(name, ctype, exprs):
    body = "\n".join(f"  out[{k} * n + i] = {e};" for k, e in enumerate(exprs))
    return f"""
extern "C" __global__ void {name}(const {ctype}* x, const {ctype}* y, const {ctype}* z,
                                  {ctype}* out, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  {ctype} a = x[i], b = y[i], c = z[i], p = fabs(a) + {ctype}(0.5), q = a / {ctype}(4);
{body}
}}
"""


SOURCE += _math_kernel("math_float", "float", [e for e, _ in MATH])
SOURCE += _math_kernel("math_double", "double", [_double_spelling(e) for e, _ in MATH])


def math_inputs(rng, dtype, n):
    a = rng.uniform(-20, 20, n).astype(dtype)
    b = rng.uniform(-3, 3, n).astype(dtype)
    c = rng.uniform(-100, 100, n).astype(dtype)
    a[:6] = [0, -0.0, 2, -2, 6, 10][:n]  # q = a / 4 on halves, for round and rint
    return a, b, c


@pytest.mark.parametrize("ctype,rtol", [("float", 1e-6), ("double", 4e-15)])
@pytest.mark.parametrize("n,block", [(1000, 128), (1, 1), (2049, 1024)])
def test_device_math(mod, rng, ctype, rtol, n, block):
    dtype = np.float32 if ctype == "float" else np.float64
    a, b, c = math_inputs(rng, dtype, n)
    out = hipkit.empty((len(MATH), n), dtype)
    mod.get_function(f"math_{ctype}")[cdiv(n, block), block](
        hipkit.to_device(a), hipkit.to_device(b), hipkit.to_device(c), out, n
    )
    got = out.get()
    p = (np.abs(a) + dtype(0.5)).astype(np.float64)  # rounded as in the kernel
    a, b, c = (v.astype(np.float64) for v in (a, b, c))
    q = a / 4
    for k, (expr, reference) in enumerate(MATH):
        # A few ulp of the result (correctly rounded in float64 here).
        want = reference(a, b, c, p, q)
        np.testing.assert_allclose(
            got[k], want, rtol=rtol, atol=1e-300, err_msg=expr if ctype == "float" else _double_spelling(expr)
        )


def test_fmaf_rounds_once(mod, rng):
    # a*b + c where a*b needs more than float's 24 bits: only a fused
    # multiply-add gets the low bits right.
    n = 1000
    a = (1 + rng.integers(1, 2**12, n) * 2.0**-12).astype(np.float32)
    b = (1 + rng.integers(1, 2**12, n) * 2.0**-12).astype(np.float32)
    c = -(a.astype(np.float64) * b).astype(np.float32)
    out = hipkit.empty((len(MATH), n), np.float32)
    mod.get_function("math_float")[cdiv(n, 64), 64](
        hipkit.to_device(a), hipkit.to_device(b), hipkit.to_device(c), out, n
    )
    k = [e for e, _ in MATH].index("fmaf(a, b, c)")
    np.testing.assert_array_equal(out.get()[k], exact_fma(a, b, c).astype(np.float32))


def test_fast_intrinsics(mod, rng):
    n = 4000
    x = rng.uniform(-np.pi, np.pi, n).astype(np.float32)
    y = rng.uniform(0.01, 100, n).astype(np.float32)
    y[:3] = [0.5, 1.0, 2.0]
    out = hipkit.empty((6, n), np.float32)
    mod.get_function("fast_math")[cdiv(n, 256), 256](hipkit.to_device(x), hipkit.to_device(y), out, n)
    got = out.get()
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    # CUDA's documented bounds: __expf 2 + 1.16|x| ulp; __logf, __sinf, __cosf
    # 2**-21.41 absolute on their ranges; __fdividef 2 ulp; __powf from exp2 and log2.
    np.testing.assert_allclose(got[0], np.exp(xd), rtol=2e-6)
    np.testing.assert_allclose(got[1], np.log(yd), rtol=1e-5, atol=2**-21)
    np.testing.assert_allclose(got[2], np.sin(xd), rtol=0, atol=2**-20)
    np.testing.assert_allclose(got[3], np.cos(xd), rtol=0, atol=2**-20)
    np.testing.assert_allclose(got[4], xd / yd, rtol=3e-7)
    np.testing.assert_allclose(got[5], yd ** (xd * 0.5), rtol=1e-5)


def test_min_max_overloads(mod, rng):
    n = 3001
    i32 = np.iinfo(np.int32)
    a, b = (rng.integers(i32.min, i32.max, n, dtype=np.int32, endpoint=True) for _ in range(2))
    ua, ub = (rng.integers(0, 2**32, n, dtype=np.uint32) for _ in range(2))
    la, lb = (rng.integers(-(2**62), 2**62, n, dtype=np.int64) for _ in range(2))
    fa, fb = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    da, db = rng.standard_normal(n), rng.standard_normal(n)
    fa[::5], db[::7] = np.nan, np.nan
    a[:3], b[:3] = [-1, 0, i32.min], [1, -1, i32.max]
    outs = [
        hipkit.empty(2 * n, t) for t in (np.int32, np.uint32, np.uint32, np.int64, np.float32, np.float64)
    ]
    ins = [hipkit.to_device(v) for v in (a, b, ua, ub, la, lb, fa, fb, da, db)]
    mod.get_function("min_max")[cdiv(n, 256), 256](*ins, *outs, n)
    io, uo, mixed, lo, fo, dbl = (o.get().reshape(2, n) for o in outs)
    np.testing.assert_array_equal(io, [np.minimum(a, b), np.maximum(a, b)])
    np.testing.assert_array_equal(uo, [np.minimum(ua, ub), np.maximum(ua, ub)])
    # int with unsigned: the int converts to unsigned (CUDA's overloads).
    np.testing.assert_array_equal(
        mixed, [np.minimum(a.view(np.uint32), ub), np.maximum(ua, b.view(np.uint32))]
    )
    np.testing.assert_array_equal(lo, [np.minimum(la, lb), np.maximum(la, lb)])
    np.testing.assert_array_equal(fo, [np.fmin(fa, fb), np.fmax(fa, fb)])
    np.testing.assert_array_equal(dbl, [np.fmin(da, db), np.fmax(da, db)])
