"""Kernel language: kinds of functions.

``__global__``, ``__device__`` and ``__host__ __device__`` functions,
``__forceinline__``/``__noinline__``, ``__launch_bounds__``, ``extern "C"`` and
C++ (mangled) kernels, templates instantiated through name expressions,
namespaces, device functions calling each other (and themselves), lambdas,
functors and constexpr functions in device code.
"""

import numpy as np
import pytest
from lang_helpers import cdiv, compile_once, recover

import hipkit

SOURCE = r"""
#include <hip/hip_runtime.h>

// ---- device functions calling each other ------------------------------------
__device__ float square(float x) { return x * x; }
__device__ __forceinline__ float cube(float x) { return square(x) * x; }
__host__ __device__ float poly(float x) { return cube(x) - 2.0f * square(x) + 0.5f * x + 1.0f; }
__device__ __noinline__ int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }  // recursion
__device__ int is_even(unsigned n);
__device__ int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }           // mutual recursion
__device__ int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static __device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
constexpr int kTaps = 3;
__host__ __device__ constexpr int tap_weight(int k) { return k == 1 ? 2 : 1; }

template <typename T>
__device__ T triple(T x) { return x + x + x; }

struct Affine {
  float a, b;
  __device__ float operator()(float x) const { return a * x + b; }
};

extern "C" __global__ void poly_c(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = poly(x[i]);
}

__global__ void poly_cpp(const float* x, float* y, int n) {  // a C++ (mangled) name
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = poly(x[i]);
}

extern "C" __global__ void __launch_bounds__(256) gcd_k(const int* a, const int* b, int* g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = gcd(a[i], b[i]);
}

extern "C" __global__ __launch_bounds__(128, 2) void parity(const unsigned* v, int* even, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) even[i] = is_even(v[i]) + 2 * is_odd(v[i]);
}

extern "C" __global__ void stencil(const int* x, int* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int acc = 0;
  for (int k = 0; k < kTaps; ++k) acc += tap_weight(k) * x[clamp_index(i + k - 1, n)];
  y[i] = acc;
}

extern "C" __global__ void lambdas(const float* x, float* y, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Affine f{a, b};
  auto g = [=](float v) { return f(v) * 2.0f; };
  auto h = [&](float v) -> float { return g(v) - a; };
  if (i < n) y[i] = h(x[i]) + triple(1.0f);
}

// A lambda made before a barrier and called after it.
extern "C" __global__ void lambda_across_barrier(const int* x, int* y) {
  __shared__ int s[1024];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int v = x[i];
  auto weigh = [&](int u) { return u * (t % 3) + v; };
  s[t] = v;
  __syncthreads();
  y[i] = weigh(s[blockDim.x - 1 - t]);
}

// Locals shadowing a namespace-scope name: the kernel's own ones count.
constexpr int factor = 100;
extern "C" __global__ void shadowing(const int* x, int* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int factor = threadIdx.x % 7;
  const int twice = 2 * factor;
  if (i < n) y[i] = x[i] * twice + factor + ::factor;
}

// Kernels in an extern "C" block, __restrict__ and unnamed parameters, an
// anonymous namespace.
extern "C" {
__global__ void c_block_a(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
__global__ void c_block_b(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 3;
}
}

namespace {
__device__ float halve(float v) { return 0.5f * v; }
}

__global__ void unnamed(const float* __restrict__ in, float* __restrict__ out, int, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = halve(in[i]) + 1.0f;
}

// ---- templates --------------------------------------------------------------
template <typename T>
__global__ void scale(T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = triple(x[i]) * a;
}

template <typename T, int N>
__global__ void fill(T* x, T value, int n) {  // each thread fills N consecutive items
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * N;
  for (int k = 0; k < N; ++k)
    if (first + k < n) x[first + k] = value + T(k);
}

// ---- namespaces -------------------------------------------------------------
namespace ns {
__device__ int twice(int v) { return 2 * v; }
__global__ void k(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = twice(x[i]) + 1;
}
namespace inner {
template <class T>
__global__ void negate(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}
}  // namespace inner
}  // namespace ns
"""

# C++ overloads of a kernel, told apart by their mangled names.  A unit of
# its own: a CPU build that cannot take overloads fails only this test.
OVERLOADS = r"""
__global__ void over(float* __restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f * x[i];
}
__global__ void over(int* __restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}
"""

NAMES = [
    "scale<float>",
    "scale<double>",
    "scale<int>",
    "fill<int, 3>",
    "fill<float, 1>",
    "fill<double, 5>",
    "ns::inner::negate<int>",
    "ns::inner::negate<double>",
]

SIZES = [1, 255, 256, 1000, 4097]


@pytest.fixture
def mod(device):
    yield compile_once(SOURCE, NAMES)
    recover(device)


def poly_ref(x):
    x = x.astype(np.float64)
    return x**3 - 2 * x**2 + 0.5 * x + 1


@pytest.mark.parametrize("name", ["poly_c", "poly_cpp", "_Z8poly_cppPKfPfi"])
@pytest.mark.parametrize("n,block", [(1, 1), (1000, 256), (1025, 1024), (77, 1)])
def test_device_function_chain(mod, rng, name, n, block):
    x = rng.uniform(-3, 3, n).astype(np.float32)
    y = hipkit.empty(n, np.float32)
    mod.get_function(name)[cdiv(n, block), block](hipkit.to_device(x), y, n)
    np.testing.assert_allclose(y.get(), poly_ref(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", SIZES)
def test_recursive_device_function_with_launch_bounds(mod, rng, n):
    a = rng.integers(0, 10**6, n, dtype=np.int32)
    b = rng.integers(0, 10**6, n, dtype=np.int32)
    g = hipkit.empty(n, np.int32)
    kernel = mod.get_function("gcd_k")
    kernel[cdiv(n, 256), 256](hipkit.to_device(a), hipkit.to_device(b), g, n)
    np.testing.assert_array_equal(g.get(), np.gcd(a, b))
    assert kernel.attributes["maxThreadsPerBlock"] == 256


@pytest.mark.parametrize("n", SIZES)
def test_mutually_recursive_device_functions(mod, rng, n):
    v = rng.integers(0, 200, n, dtype=np.uint32)
    out = hipkit.empty(n, np.int32)
    mod.get_function("parity")[cdiv(n, 128), 128](hipkit.to_device(v), out, n)
    np.testing.assert_array_equal(out.get(), np.where(v % 2 == 0, 1, 2))


@pytest.mark.parametrize("n", SIZES)
def test_static_and_constexpr_device_functions(mod, rng, n):
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    y = hipkit.empty(n, np.int32)
    mod.get_function("stencil")[cdiv(n, 64), 64](hipkit.to_device(x), y, n)
    padded = np.concatenate([x[:1], x, x[-1:]])
    np.testing.assert_array_equal(y.get(), padded[:-2] + 2 * padded[1:-1] + padded[2:])


def test_lambdas_and_functors(mod, rng):
    n = 999
    x = rng.uniform(-10, 10, n).astype(np.float32)
    y = hipkit.empty(n, np.float32)
    a, b = float(rng.uniform(-2, 2)), float(rng.uniform(-2, 2))
    mod.get_function("lambdas")[cdiv(n, 128), 128](hipkit.to_device(x), y, a, b, n)
    a32, b32 = np.float32(a), np.float32(b)
    np.testing.assert_allclose(y.get(), (a32 * x + b32) * 2 - a32 + 3, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("block", [1, 100, 1024])
def test_lambda_across_barrier(mod, rng, block):
    x = rng.integers(-1000, 1000, 2 * block, dtype=np.int32)
    y = hipkit.empty(2 * block, np.int32)
    mod.get_function("lambda_across_barrier")[2, block](hipkit.to_device(x), y)
    v = x.reshape(2, block)
    np.testing.assert_array_equal(y.get(), (v[:, ::-1] * (np.arange(block) % 3) + v).ravel())


@pytest.mark.parametrize("n", [1, 1000])
def test_extern_c_block_and_unnamed_parameters(mod, rng, n):
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    d = hipkit.to_device(x)
    mod.get_function("c_block_a")[cdiv(n, 64), 64](d, n)
    mod.get_function("c_block_b")[cdiv(n, 64), 64](d, n)
    np.testing.assert_array_equal(d.get(), (x + 1) * 3)
    f = rng.standard_normal(n).astype(np.float32)
    out = hipkit.empty(n, np.float32)
    mod.get_function("_Z7unnamedPKfPfii")[cdiv(n, 64), 64](hipkit.to_device(f), out, 12345, n)
    np.testing.assert_array_equal(out.get(), f * np.float32(0.5) + np.float32(1))


@pytest.mark.parametrize("n", [1, 1000])
def test_overloaded_kernels(device, rng, n):
    mod = compile_once(OVERLOADS)
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    d = hipkit.to_device(x)
    mod.get_function("_Z4overPii")[cdiv(n, 64), 64](d, n)
    np.testing.assert_array_equal(d.get(), -x)
    f = rng.standard_normal(n).astype(np.float32)
    fd = hipkit.to_device(f)
    mod.get_function("_Z4overPfi")[cdiv(n, 64), 64](fd, n)
    np.testing.assert_array_equal(fd.get(), f * np.float32(0.5))


@pytest.mark.parametrize("n,block", [(1, 1), (1000, 64)])
def test_locals_shadowing_namespace_scope_names(mod, rng, n, block):
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    y = hipkit.empty(n, np.int32)
    mod.get_function("shadowing")[cdiv(n, block), block](hipkit.to_device(x), y, n)
    local = (np.arange(n) % block) % 7
    np.testing.assert_array_equal(y.get(), x * 2 * local + local + 100)


@pytest.mark.parametrize(
    "expr,dtype", [("scale<float>", np.float32), ("scale<double>", np.float64), ("scale<int>", np.int32)]
)
@pytest.mark.parametrize("n,block", [(1, 1), (333, 64), (2048, 1024)])
def test_template_kernels(mod, rng, expr, dtype, n, block):
    x = (rng.integers(-100, 100, n) if dtype == np.int32 else rng.standard_normal(n)).astype(dtype)
    a = int(rng.integers(-5, 5)) if dtype == np.int32 else float(rng.standard_normal())
    d = hipkit.to_device(x)
    mod.get_function(expr)[cdiv(n, block), block](d, a, n)
    expected = (x + x + x) * dtype(a)
    if dtype == np.int32:
        np.testing.assert_array_equal(d.get(), expected)
    else:
        np.testing.assert_allclose(d.get(), expected, rtol=1e-6 if dtype == np.float32 else 1e-14)


@pytest.mark.parametrize(
    "expr,dtype,per_thread",
    [("fill<int, 3>", np.int32, 3), ("fill<float, 1>", np.float32, 1), ("fill<double, 5>", np.float64, 5)],
)
@pytest.mark.parametrize("n", [1, 100, 3001])
def test_template_value_parameters(mod, rng, expr, dtype, per_thread, n):
    value = int(rng.integers(-50, 50))
    x = hipkit.zeros(n, dtype)
    threads = cdiv(n, per_thread)
    mod.get_function(expr)[cdiv(threads, 32), 32](x, value, n)
    np.testing.assert_array_equal(x.get(), (value + np.arange(n) % per_thread).astype(dtype))


@pytest.mark.parametrize("n", [1, 129, 5000])
def test_namespaced_kernels(mod, rng, n):
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    d = hipkit.to_device(x)
    mod.get_function("ns::k")[cdiv(n, 128), 128](d, n)
    np.testing.assert_array_equal(d.get(), 2 * x + 1)

    mod.get_function("ns::inner::negate<int>")[cdiv(n, 128), 128](d, n)
    np.testing.assert_array_equal(d.get(), -(2 * x + 1))

    f = rng.standard_normal(n)
    fd = hipkit.to_device(f)
    mod.get_function("ns::inner::negate<double>")[cdiv(n, 1024), 1024](fd, n)
    np.testing.assert_array_equal(fd.get(), -f)
