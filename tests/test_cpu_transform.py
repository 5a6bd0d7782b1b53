"""The CPU source transform: which execution each kernel shape gets, and that
the unusual shapes still compute the right thing (fibers as the fallback)."""

import numpy as np
import pytest

import hipkit

SOURCE = r"""
__device__ void helper_barrier() { __syncthreads(); }

extern "C" __global__ void plain(int* out) { out[threadIdx.x] = threadIdx.x; }

extern "C" __global__ void top_barrier(int* out) {
    __shared__ int s[128];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

extern "C" __global__ void per_thread_loop(int* out, int n) {
    int acc = 0;
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
        acc += k;
        __syncthreads();
        if (acc > 500) break;
    }
    out[threadIdx.x] = acc;
}

extern "C" __global__ void in_device_function(int* out) {
    __shared__ int s[128];
    s[threadIdx.x] = 2 * threadIdx.x;
    helper_barrier();
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

extern "C" __global__ void in_switch(int* out, int mode) {
    __shared__ int s[128];
    s[threadIdx.x] = threadIdx.x + 1;
    switch (mode) {
    case 1: __syncthreads(); out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x]; break;
    default: out[threadIdx.x] = -1;
    }
}

extern "C" __global__ void grid_stride(const int* in, int* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 3 * in[i] + i;
}

extern "C" __global__ void vote_in_condition(int* out) {
    int v = threadIdx.x;
    while (__any(v > 0)) { v -= 16; }
    out[threadIdx.x] = v;
}

extern "C" __global__ void vote_in_stride_condition(int* out, int n) {
    int trips = 0;
    for (int i = threadIdx.x; __any(i < n); i += blockDim.x) ++trips;
    out[threadIdx.x] = trips;
}

// A __shared__ array declared between per-thread statements of one region.
extern "C" __global__ void shared_after_local(const int* in, int* out, int n) {
    const int t = threadIdx.x;
    __shared__ int s[1024];
    for (int i = t; i < n; i += 256) s[i] = in[i];
    __syncthreads();
    out[t] = s[n - 1 - t];
}
"""


@pytest.fixture
def cpu():
    dev = hipkit.Device(0, platform="cpu")
    with dev:
        yield dev


def execution(mod, name):
    return next(k for k in mod.binary.kernels if k["name"] == name)


def test_execution_modes(cpu, monkeypatch):
    monkeypatch.setenv("HIPKIT_CPU_EXEC", "auto")
    mod = hipkit.compile(SOURCE, name="shapes.hip")
    assert execution(mod, "plain")["mode"] == "loop"
    # A grid-stride loop runs with the block's threads in lockstep.
    for name in ("top_barrier", "per_thread_loop", "grid_stride", "shared_after_local"):
        assert execution(mod, name)["mode"] == "split", execution(mod, name)
    # A function that synchronizes is inlined into the kernel, which then splits
    # (transform/inline.py; tests/test_cpu_warp_programs.py has the shapes it refuses).
    assert execution(mod, "in_device_function")["mode"] == "split"
    assert execution(mod, "in_switch")["mode"] == "fiber"
    assert execution(mod, "vote_in_condition")["mode"] == "fiber"
    assert execution(mod, "vote_in_stride_condition")["mode"] == "fiber"
    assert mod.get_function("top_barrier").attributes["execution"] == "split execution"


@pytest.mark.parametrize("executor", ["auto", "fiber"])
def test_every_shape_computes_the_same(cpu, monkeypatch, rng, executor):
    monkeypatch.setenv("HIPKIT_CPU_EXEC", executor)
    mod = hipkit.compile(SOURCE, name="shapes.hip")
    out = hipkit.zeros(128, np.int32)
    t = np.arange(128)

    mod.get_function("top_barrier")[1, 128](out)
    assert np.array_equal(out.get(), t[::-1])

    n = 300
    mod.get_function("per_thread_loop")[1, 128](out, n)
    expect = []
    for thread in t:
        acc = 0
        for k in range(thread, n, 128):
            acc += k
            if acc > 500:
                break
        expect.append(acc)
    assert np.array_equal(out.get(), expect)

    mod.get_function("in_device_function")[1, 128](out)
    assert np.array_equal(out.get(), 2 * ((t + 1) % 128))

    mod.get_function("in_switch")[1, 128](out, 1)
    assert np.array_equal(out.get(), 128 - t)

    n = 1000
    src = rng.integers(-1000, 1000, n, dtype=np.int32)
    dst = hipkit.zeros(n, np.int32)
    mod.get_function("grid_stride")[3, 64](hipkit.to_device(src), dst, n)
    assert np.array_equal(dst.get(), 3 * src + np.arange(n))

    warp = cpu.warp_size
    mod.get_function("vote_in_condition")[1, 128](out)
    # Each warp loops until no lane is positive: as many steps as its largest lane needs.
    steps = [(-(-(w + warp - 1) // 16)) for w in range(0, 128, warp)]
    expect = [thread - 16 * steps[thread // warp] for thread in t]
    assert np.array_equal(out.get(), expect)

    # Each warp loops while any lane is below n: as many trips as its first lane.
    n = 300
    mod.get_function("vote_in_stride_condition")[1, 128](out, n)
    assert np.array_equal(out.get(), -(-(n - t // warp * warp) // 128))

    src = rng.integers(-1000, 1000, 700, dtype=np.int32)
    wide = hipkit.zeros(256, np.int32)
    mod.get_function("shared_after_local")[1, 256](hipkit.to_device(src), wide, 700)
    assert np.array_equal(wide.get(), src[699 - np.arange(256)])


def test_fiber_executor_is_reported(cpu, monkeypatch):
    monkeypatch.setenv("HIPKIT_CPU_EXEC", "fiber")
    mod = hipkit.compile(SOURCE, name="shapes.hip")
    top = execution(mod, "top_barrier")
    assert top["mode"] == "fiber" and top["reason"] == "HIPKIT_CPU_EXEC=fiber"
    assert execution(mod, "plain")["mode"] == "loop"


def test_name_expression_must_name_a_kernel(cpu):
    with pytest.raises(hipkit.CompileError, match="nothing<int>"):
        hipkit.compile(SOURCE, name_expressions=["nothing<int>"])


NOINLINE = r"""
// libstdc++ 13 writes the attribute by its reserved name in its own headers
// (basic_string.h); HIP code writes __noinline__ as a specifier.  Both compile.
__attribute__((__noinline__, __cold__)) static int cold_half(int x) { return x / 2; }
__noinline__ __device__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int thrice(int x) { return 3 * x; }

extern "C" __global__ void uses_noinline(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice(out[i]) + thrice(out[i]) + cold_half(out[i]);
}
"""


def test_noinline_as_specifier_and_inside_attribute_lists(cpu, rng):
    kernel = hipkit.compile(NOINLINE, device=cpu).get_function("uses_noinline")
    host = rng.integers(-1000, 1000, 300, dtype=np.int32)
    x = hipkit.to_device(host, device=cpu)
    kernel[2, 256](x, host.size)
    np.testing.assert_array_equal(x.get(), 5 * host + (host / 2).astype(np.int32))


SUMS = r"""
template <int K> __device__ int scaled(int v) { return K * v; }

extern "C" __global__ void sums(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = threadIdx.y + blockIdx.y * 32;
    if (i < n) out[i] = j + (threadIdx.x + scaled<2>(1) < 5u) + threadIdx.x * 2 + (n - threadIdx.x);
}
"""


def test_thread_sums_are_written_as_contiguous_indices(cpu):
    # transform/thread_index.py: `U + threadIdx.c` becomes a helper that the C++
    # compiler sees as an index growing by one per thread.  A `<` that may open a
    # template's arguments, a product and a difference are left as written.
    mod = hipkit.compile(SUMS, name="sums.hip")
    text = (mod.binary.path.parent / "kernel.ii").read_text()
    body = text[text.index("void sums(") :]
    assert "::__hk::plus_thread(blockIdx.x * blockDim.x , threadIdx.x)" in body
    assert "::__hk::thread_plus(threadIdx.y , blockIdx.y * 32)" in body
    assert "(threadIdx.x + scaled<2>(1) < 5u)" in body
    assert "threadIdx.x * 2 + (n - threadIdx.x)" in body
    out = hipkit.zeros(100, np.int32)
    mod.get_function("sums")[2, 64](out, 100)
    t = np.arange(100) % 64
    np.testing.assert_array_equal(out.get(), (t + 2 < 5) + 2 * t + (100 - t))


GUARDS = r"""
extern "C" __global__ void inside(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

extern "C" __global__ void leaves(const float* x, float* y, int n) {
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n) return;
    y[i] = 2.0f * x[i];
}

extern "C" __global__ void not_an_index(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x * 2;
    if (i < n) y[i] = 2.0f * x[i];
}
"""


def test_guards_proved_for_a_block_get_a_copy_without_them(cpu):
    # transform/guards.py: the block's guards tested at its first and last thread,
    # and a copy of the thread loop with each guard replaced by its value.
    mod = hipkit.compile(GUARDS, name="guards.hip")
    text = (mod.binary.path.parent / "kernel.ii").read_text()
    inside = text[text.index("void inside(") : text.index("void leaves(")]
    leaves = text[text.index("void leaves(") : text.index("void not_an_index(")]
    other = text[text.index("void not_an_index(") :]
    assert inside.count("::__hk::guard_at_ends(") == 1 and "if (true) y[i]" in inside
    assert leaves.count("::__hk::guard_at_ends(") == 1 and "if (false) return;" in leaves
    assert "guard_at_ends" not in other.split("__hk_module")[0]
    n = 1000
    x = np.arange(n, dtype=np.float32)
    # not_an_index: thread t of block b writes element 128 b + 2 t.
    written = np.zeros(n, bool)
    for b in range(-(-n // 128)):
        i = 128 * b + 2 * np.arange(128)
        written[i[i < n]] = True
    for name, expect in (("inside", 2 * x), ("leaves", 2 * x), ("not_an_index", np.where(written, 2 * x, 0))):
        y = hipkit.zeros(n, np.float32)
        mod.get_function(name)[-(-n // 128), 128](hipkit.to_device(x), y, n)
        np.testing.assert_array_equal(y.get(), expect, err_msg=name)
