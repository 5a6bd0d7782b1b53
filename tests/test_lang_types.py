"""Kernel language: vector types, structs, and __half.

``float2``, ``float4``, ``int4``, ``double2`` (``make_*``, element-wise
operators with vectors and scalars, loads through ``reinterpret_cast``); a
``float4``, user structs and mixed scalars passed by value as kernel arguments
(the parameter layout: each at its alignment); arrays of structs in global
memory; ``__half`` and ``__half2`` arithmetic, comparisons and conversions
against NumPy's float16, and ``__half`` kernel arguments (``np.float16``).
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

extern "C" __global__ void float4_ops(const float4* a, const float4* b, float4* out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 x = a[i], y = b[i];
  out[8 * i + 0] = x + y;
  out[8 * i + 1] = x - y * s;
  out[8 * i + 2] = s * x / y;
  out[8 * i + 3] = -x;
  float4 z = x;
  z += y;
  z *= 2.0f;
  z -= make_float4(1.0f, 2.0f, 3.0f, 4.0f);
  out[8 * i + 4] = z;
  out[8 * i + 5] = make_float4(x.w, x.z, y.y, y.x);
  out[8 * i + 6] = make_float4(x == y ? 1.0f : 0.0f, x != y ? 1.0f : 0.0f, x.x + x.y, y.z * y.w);
  out[8 * i + 7] = float4(s);
}

// float2 through a reinterpret_cast of a float array; double2.
extern "C" __global__ void pairs(const float* f, float2* f_out, const double2* d, double2* d_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 v = reinterpret_cast<const float2*>(f)[i];
  f_out[i] = make_float2(v.x * v.y, v.x - v.y) + float2(1.0f, -1.0f);
  double2 w = d[i];
  d_out[2 * i] = w * w - make_double2(1.0, 2.0);
  d_out[2 * i + 1] = make_double2(w.y, w.x) / 4.0;
}

extern "C" __global__ void int4_ops(const int4* a, const int4* b, int4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int4 x = a[i], y = b[i];
  out[6 * i + 0] = x + y;
  out[6 * i + 1] = x * 3 - y;
  out[6 * i + 2] = x % y;
  out[6 * i + 3] = (x & y) | (x ^ 0xff);
  out[6 * i + 4] = x << 2;
  out[6 * i + 5] = make_int4(x.x > y.x, x.y < y.y, x.z == y.z, -x.w);
}

// A float4 by value.
extern "C" __global__ void axpy4(float4 alpha, const float4* x, float4* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

struct Params {
  int n;
  float scale;
  double offset;
  char tag;
  int3 shift;
};

struct Poly {
  float c[4];
  int degree;
  __device__ float operator()(float x) const {
    float r = 0.0f;
    for (int k = degree; k >= 0; --k) r = r * x + c[k];
    return r;
  }
};

struct Particle {
  float3 pos;
  float mass;
};

__device__ Particle moved(Particle p, float3 v, float dt) {
  p.pos = make_float3(p.pos.x + v.x * dt, p.pos.y + v.y * dt, p.pos.z + v.z * dt);
  return p;
}

// Structs and scalars of different alignments by value.
extern "C" __global__ void struct_args(char c, Params p, double d, float4 v, Poly poly, short s,
                                       const float* x, double* out_d, int* out_i, float* out_f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  out_d[i] = x[i] * p.scale + p.offset + d;
  out_i[4 * i + 0] = c + p.tag;
  out_i[4 * i + 1] = p.shift.x + s;
  out_i[4 * i + 2] = p.shift.y;
  out_i[4 * i + 3] = p.shift.z;
  out_f[2 * i] = poly(x[i]);
  out_f[2 * i + 1] = v.x + v.y + v.z + v.w;
}

extern "C" __global__ void particles(const Particle* in, Particle* out, float3 velocity, float dt,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Particle p = moved(in[i], velocity, dt);
    p.mass *= 2.0f;
    out[i] = p;
  }
}

enum Color { RED = 1, GREEN = 2, BLUE = -7 };
enum class Wide : unsigned long long { TOP = 1ull << 63 };

// Scalars of every size and kind; each one lands in out as a double or
// (the 64-bit integers) as its bits.
extern "C" __global__ void scalar_args(bool b, char c, unsigned char uc, short s, unsigned short us,
                                       int i, unsigned u, long l, unsigned long ul, long long ll,
                                       unsigned long long ull, size_t sz, float f, double d,
                                       __half h, Color color, Wide wide, double* out,
                                       unsigned long long* bits) {
  out[0] = b; out[1] = c; out[2] = uc; out[3] = s; out[4] = us; out[5] = i; out[6] = u;
  out[7] = f; out[8] = d; out[9] = __half2float(h); out[10] = color;
  bits[0] = (unsigned long long)l; bits[1] = ul; bits[2] = (unsigned long long)ll; bits[3] = ull;
  bits[4] = sz; bits[5] = (unsigned long long)wide;
}

extern "C" __global__ void half_ops(const __half* a, const __half* b, const __half* c, __half* out,
                                    int* cmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = b[i], z = c[i];
  out[0 * n + i] = __hadd(x, y);
  out[1 * n + i] = __hsub(x, y);
  out[2 * n + i] = __hmul(x, y);
  out[3 * n + i] = __hdiv(x, y);
  out[4 * n + i] = __hfma(x, y, z);
  out[5 * n + i] = x + y * z;  // operators: two roundings
  out[6 * n + i] = __hneg(x);
  out[7 * n + i] = __habs(y);
  cmp[0 * n + i] = __heq(x, y);
  cmp[1 * n + i] = __hne(x, y);
  cmp[2 * n + i] = __hlt(x, y);
  cmp[3 * n + i] = __hle(x, y);
  cmp[4 * n + i] = __hgt(x, y);
  cmp[5 * n + i] = __hge(x, y);
  cmp[6 * n + i] = x < y;
  cmp[7 * n + i] = __hisnan(x);
}

extern "C" __global__ void half_conversions(const float* f, __half* f2h, const __half* h, float* h2f,
                                            int* h2i, const int* k, __half* i2h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  f2h[i] = __float2half(f[i]);
  h2f[i] = __half2float(h[i]);
  h2i[i] = __half2int_rz(h[i]);
  i2h[i] = __int2half_rn(k[i]);
}

extern "C" __global__ void half_scale(__half* x, __half a, __half2 ab, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half2 v = __halves2half2(x[i], x[i]);
    __half2 r = __hmul2(v, ab);
    x[i] = __hadd(__hmul(x[i], a), __hadd(__low2half(r), __high2half(r)));
  }
}
"""

PARAMS = np.dtype(
    [("n", "i4"), ("scale", "f4"), ("offset", "f8"), ("tag", "i1"), ("shift", "i4", 3)], align=True
)
POLY = np.dtype([("c", "f4", 4), ("degree", "i4")], align=True)
PARTICLE = np.dtype([("pos", "f4", 3), ("mass", "f4")], align=True)


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE)
    recover(device)


SIZES = [(1, 1), (1000, 128), (1025, 1024)]


@pytest.mark.parametrize("n,block", SIZES)
def test_float4_operators(mod, rng, n, block):
    a = rng.standard_normal((n, 4)).astype(np.float32)
    b = rng.uniform(0.5, 2, (n, 4)).astype(np.float32)
    b[::3] = a[::3]  # some equal vectors
    s = np.float32(rng.standard_normal())
    out = hipkit.empty((n, 8, 4), np.float32)
    mod.get_function("float4_ops")[cdiv(n, block), block](
        hipkit.to_device(a), hipkit.to_device(b), out, float(s), n
    )
    equal = (a == b).all(axis=1)
    want = np.stack(
        [
            a + b,
            a - b * s,
            s * a / b,
            -a,
            (a + b) * 2 - [1, 2, 3, 4],
            np.stack([a[:, 3], a[:, 2], b[:, 1], b[:, 0]], axis=1),
            np.stack([equal, ~equal, a[:, 0] + a[:, 1], b[:, 2] * b[:, 3]], axis=1),
            np.full((n, 4), s),
        ],
        axis=1,
    ).astype(np.float32)
    np.testing.assert_allclose(out.get(), want, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("n,block", SIZES)
def test_float2_and_double2(mod, rng, n, block):
    f = rng.standard_normal(2 * n).astype(np.float32)
    d = rng.standard_normal((n, 2))
    f_out, d_out = hipkit.empty((n, 2), np.float32), hipkit.empty((n, 2, 2), np.float64)
    mod.get_function("pairs")[cdiv(n, block), block](
        hipkit.to_device(f), f_out, hipkit.to_device(d), d_out, n
    )
    v = f.reshape(n, 2)
    want_f = np.stack([v[:, 0] * v[:, 1] + 1, v[:, 0] - v[:, 1] - 1], axis=1)
    np.testing.assert_allclose(f_out.get(), want_f, rtol=1e-6, atol=1e-6)
    want_d = np.stack([d * d - [1.0, 2.0], d[:, ::-1] / 4], axis=1)
    np.testing.assert_allclose(d_out.get(), want_d, rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("n,block", SIZES)
def test_int4_operators(mod, rng, n, block):
    a = rng.integers(-(10**6), 10**6, (n, 4), dtype=np.int32)
    b = rng.integers(1, 1000, (n, 4), dtype=np.int32) * rng.choice([-1, 1], (n, 4)).astype(np.int32)
    out = hipkit.empty((n, 6, 4), np.int32)
    mod.get_function("int4_ops")[cdiv(n, block), block](hipkit.to_device(a), hipkit.to_device(b), out, n)
    c_rem = np.sign(a) * (np.abs(a) % np.abs(b))  # C's % truncates toward zero
    want = np.stack(
        [
            a + b,
            a * 3 - b,
            c_rem,
            (a & b) | (a ^ 0xFF),
            a << 2,
            np.stack([a[:, 0] > b[:, 0], a[:, 1] < b[:, 1], a[:, 2] == b[:, 2], -a[:, 3]], axis=1),
        ],
        axis=1,
    ).astype(np.int32)
    np.testing.assert_array_equal(out.get(), want)


@pytest.mark.parametrize("n,block", SIZES)
def test_float4_by_value(mod, rng, n, block):
    alpha = rng.standard_normal(4).astype(np.float32)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = rng.standard_normal((n, 4)).astype(np.float32)
    d = hipkit.to_device(y)
    mod.get_function("axpy4")[cdiv(n, block), block](alpha, hipkit.to_device(x), d, n)
    np.testing.assert_allclose(d.get(), alpha * x + y, rtol=1e-6, atol=1e-6)
    # The same value as raw bytes.
    d2 = hipkit.to_device(y)
    mod.get_function("axpy4")[cdiv(n, block), block](alpha.tobytes(), hipkit.to_device(x), d2, n)
    np.testing.assert_array_equal(d2.get(), d.get())


@pytest.mark.parametrize("n,block", SIZES)
def test_structs_by_value(mod, rng, n, block):
    p = np.zeros((), PARAMS)
    p["n"], p["scale"], p["offset"] = n, rng.standard_normal(), rng.standard_normal()
    p["tag"], p["shift"] = rng.integers(0, 100), rng.integers(-1000, 1000, 3)  # char: >= 0 everywhere
    poly = np.zeros((), POLY)
    poly["c"], poly["degree"] = rng.standard_normal(4), 3
    c, d, s = int(rng.integers(0, 100)), float(rng.standard_normal()), int(rng.integers(-999, 999))
    v = rng.standard_normal(4).astype(np.float32)
    x = rng.uniform(-2, 2, n).astype(np.float32)
    out_d, out_i, out_f = (
        hipkit.empty(n, np.float64),
        hipkit.empty((n, 4), np.int32),
        hipkit.empty((n, 2), np.float32),
    )
    mod.get_function("struct_args")[cdiv(n, block), block](
        c, p[()], d, v, poly[()], s, hipkit.to_device(x), out_d, out_i, out_f
    )
    xs = x * np.float32(p["scale"])
    np.testing.assert_allclose(out_d.get(), xs.astype(np.float64) + p["offset"] + d, rtol=1e-6)
    shift = p["shift"]
    np.testing.assert_array_equal(
        out_i.get(), np.tile([c + int(p["tag"]), shift[0] + s, shift[1], shift[2]], (n, 1))
    )
    coef = poly["c"].astype(np.float64)
    np.testing.assert_allclose(out_f.get()[:, 0], np.polyval(coef[::-1], x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out_f.get()[:, 1], v.sum(), rtol=1e-6)


@pytest.mark.parametrize("n,block", SIZES)
def test_array_of_structs(mod, rng, n, block):
    assert PARTICLE.itemsize == 16
    parts = np.zeros(n, PARTICLE)
    parts["pos"] = rng.standard_normal((n, 3))
    parts["mass"] = rng.uniform(1, 2, n)
    vel = rng.standard_normal(3).astype(np.float32)
    dt = np.float32(0.25)
    out = hipkit.empty(n, PARTICLE)
    mod.get_function("particles")[cdiv(n, block), block](hipkit.to_device(parts), out, vel, float(dt), n)
    got = out.get()
    np.testing.assert_allclose(got["pos"], parts["pos"] + vel * dt, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got["mass"], parts["mass"] * 2)


def test_scalar_arguments(mod, rng):
    i32, i64 = np.iinfo(np.int32), np.iinfo(np.int64)
    vals = dict(
        b=True,
        c=int(rng.integers(0, 128)),
        uc=int(rng.integers(0, 256)),
        s=int(rng.integers(-(2**15), 2**15)),
        us=int(rng.integers(0, 2**16)),
        i=int(rng.integers(i32.min, i32.max)),
        u=int(rng.integers(0, 2**32)),
        l=int(rng.integers(i64.min, i64.max)),
        ul=int(rng.integers(0, 2**64, dtype=np.uint64)),
        ll=int(rng.integers(i64.min, i64.max)),
        ull=2**64 - 1,
        sz=int(rng.integers(0, 2**40)),
        f=float(np.float32(rng.standard_normal())),
        d=float(rng.standard_normal()),
        h=np.float16(rng.uniform(-100, 100)),
        color=-7,
        wide=2**63,
    )
    out, bits = hipkit.empty(11, np.float64), hipkit.empty(6, np.uint64)
    mod.get_function("scalar_args")[1, 1](*vals.values(), out, bits)
    v = vals
    np.testing.assert_array_equal(
        out.get(), [1, v["c"], v["uc"], v["s"], v["us"], v["i"], v["u"], v["f"], v["d"], float(v["h"]), -7]
    )
    np.testing.assert_array_equal(
        bits.get(), np.array([v["l"] % 2**64, v["ul"], v["ll"] % 2**64, v["ull"], v["sz"], 2**63], np.uint64)
    )


def half_values(rng, n):
    """Random halves of moderate size (so the float64 reference of fma is exact),
    with zeros, infinities and a NaN among them."""
    x = (rng.choice([-1, 1], n) * rng.uniform(1 / 16, 4, n)).astype(np.float16)
    x[:5] = [0, -0.0, np.inf, -np.inf, np.nan][:n]
    return x


def fp16_bits_equal(got, want, what):
    got, want = np.asarray(got, np.float16), np.asarray(want, np.float16)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg=what)
    np.testing.assert_array_equal(got[~nan].view(np.uint16), want[~nan].view(np.uint16), err_msg=what)


@pytest.mark.parametrize("n,block", SIZES)
def test_half_arithmetic_and_comparisons(mod, rng, n, block):
    a, b, c = half_values(rng, n), half_values(rng, n)[::-1].copy(), half_values(rng, n)
    b[5::4] = a[5::4]  # some equal pairs
    out, cmp = hipkit.empty((8, n), np.float16), hipkit.empty((8, n), np.int32)
    mod.get_function("half_ops")[cdiv(n, block), block](
        hipkit.to_device(a), hipkit.to_device(b), hipkit.to_device(c), out, cmp, n
    )
    got = out.get()
    with np.errstate(all="ignore"):
        a64, b64, c64 = (v.astype(np.float64) for v in (a, b, c))
        want = [a + b, a - b, a * b, a / b, (a64 * b64 + c64).astype(np.float16), a + b * c, -a, np.abs(b)]
    names = ["__hadd", "__hsub", "__hmul", "__hdiv", "__hfma", "x + y * z", "__hneg", "__habs"]
    for k, name in enumerate(names):
        fp16_bits_equal(got[k], want[k], name)
    with np.errstate(invalid="ignore"):
        want_cmp = [a == b, (a < b) | (a > b), a < b, a <= b, a > b, a >= b, a < b, np.isnan(a)]
    names = ["__heq", "__hne", "__hlt", "__hle", "__hgt", "__hge", "operator<", "__hisnan"]
    for k, name in enumerate(names):
        np.testing.assert_array_equal(cmp.get()[k], want_cmp[k], err_msg=name)


@pytest.mark.parametrize("n,block", SIZES)
def test_half_conversions(mod, rng, n, block):
    # Floats over half's whole range: subnormal, normal, overflowing, and specials.
    f = (rng.choice([-1, 1], n) * 2.0 ** rng.uniform(-26, 17, n)).astype(np.float32)
    f[:8] = [0, -0.0, 65504, 65519.99, 65520, 2.0**-25, np.inf, np.nan][:n]
    h = half_values(rng, n)
    h[::2] = (rng.uniform(-60000, 60000, len(h[::2]))).astype(np.float16)
    h[:5] = rng.uniform(-100, 100, min(5, n))  # finite: __half2int_rz of inf/NaN is not checked
    k = rng.integers(-70000, 70000, n, dtype=np.int32)
    f2h, h2f, h2i, i2h = (hipkit.empty(n, t) for t in (np.float16, np.float32, np.int32, np.float16))
    mod.get_function("half_conversions")[cdiv(n, block), block](
        hipkit.to_device(f), f2h, hipkit.to_device(h), h2f, h2i, hipkit.to_device(k), i2h, n
    )
    with np.errstate(over="ignore"):
        fp16_bits_equal(f2h.get(), f.astype(np.float16), "__float2half")
        fp16_bits_equal(i2h.get(), k.astype(np.float16), "__int2half_rn")
    np.testing.assert_array_equal(h2f.get(), h.astype(np.float32))
    np.testing.assert_array_equal(h2i.get(), np.trunc(h.astype(np.float64)).astype(np.int32))


@pytest.mark.parametrize("n,block", SIZES)
def test_half_kernel_arguments(mod, rng, n, block):
    x = rng.uniform(-4, 4, n).astype(np.float16)
    a = np.float16(rng.uniform(-2, 2))
    ab = rng.uniform(-2, 2, 2).astype(np.float16)
    d = hipkit.to_device(x)
    mod.get_function("half_scale")[cdiv(n, block), block](d, a, ab, n)
    want = x * a + (x * ab[0] + x * ab[1])
    fp16_bits_equal(d.get(), want, "x * a + (x * ab.x + x * ab.y)")
