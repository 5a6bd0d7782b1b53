"""hipRAND's device API in kernels (hiprand/hiprand_kernel.h), on every device.

Each thread starts a state at its own (seed, subsequence, offset), fresh random ones,
and writes what the call under test gives; the numbers are compared bit for bit with
the independent references of rand_reference.py (Philox4x32-10 in NumPy, XORWOW and
MRG32k3a in Python integers), checked first against Random123's known answers.
Normals and log-normals are compared to the references' Box-Muller pairs to the
rounding of the math library; their pairing and the Poisson numbers by statistics.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import rand_reference as ref
from lang_helpers import compile_once, recover

import hipkit
from hipkit.tables import make_sobol_tables

STATES = {
    "philox": "hiprandStatePhilox4_32_10_t",
    "xorwow": "hiprandState_t",
    "mrg": "hiprandStateMRG32k3a_t",
}
# (name, C type of one output, outputs a call gives, the call)
CALLS = (
    ("bits", "unsigned int", 1, "hiprand(&s)"),
    ("uniform", "float", 1, "hiprand_uniform(&s)"),
    ("uniform_double", "double", 1, "hiprand_uniform_double(&s)"),
    ("normal", "float", 1, "hiprand_normal(&s)"),
    ("normal_double", "double", 1, "hiprand_normal_double(&s)"),
    ("normal2", "float2", 2, "hiprand_normal2(&s)"),
    ("normal2_double", "double2", 2, "hiprand_normal2_double(&s)"),
    ("log_normal", "float", 1, "hiprand_log_normal(&s, 0.5f, 0.25f)"),
    ("log_normal_double", "double", 1, "hiprand_log_normal_double(&s, 0.5, 0.25)"),
    ("poisson", "unsigned int", 1, "hiprand_poisson(&s, lambda)"),
)
PHILOX_CALLS = (
    ("bits4", "uint4", 4, "hiprand4(&s)"),
    ("uniform4", "float4", 4, "hiprand_uniform4(&s)"),
    ("uniform2_double", "double2", 2, "hiprand_uniform2_double(&s)"),
    ("normal4", "float4", 4, "hiprand_normal4(&s)"),
    ("poisson4", "uint4", 4, "hiprand_poisson4(&s, lambda)"),
)
DTYPES = {"unsigned int": np.uint32, "float": np.float32, "double": np.float64}


def _kernel(engine: str, name: str, ctype: str, per: int, call: str) -> str:
    scalar = ctype.rstrip("24") if ctype[-1] in "24" else ctype
    scalar = {"uint": "unsigned int"}.get(scalar, scalar)
    return f"""
extern "C" __global__ void {engine}_{name}(unsigned long long seed, const unsigned long long* sub,
    const unsigned long long* off, int calls, double lambda, {scalar}* out) {{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  {STATES[engine]} s;
  hiprand_init(seed, sub[t], off[t], &s);
  {ctype}* o = reinterpret_cast<{ctype}*>(out) + (size_t)t * calls;
  for (int i = 0; i < calls; ++i) o[i] = {call};
}}
"""


SOURCE = (
    "#include <hiprand/hiprand_kernel.h>\n"
    + "".join(_kernel(e, *c) for e in STATES for c in CALLS)
    + "".join(_kernel("philox", *c) for c in PHILOX_CALLS)
    + r"""
// Philox's block function at any counter: subsequence = its high half; the low half
// reached in four equal jumps and the rest (offsets are 64-bit numbers of words).
extern "C" __global__ void philox_at(unsigned long long seed, unsigned long long high,
                                     unsigned long long quarter, unsigned long long rest, unsigned int* out) {
  hiprandStatePhilox4_32_10_t s;
  hiprand_init(seed, high, 0, &s);
  for (int i = 0; i < 4; ++i) skipahead(quarter, &s);
  skipahead(rest, &s);
  for (int i = 0; i < 4; ++i) out[i] = hiprand(&s);
}
// skipahead and skipahead_sequence after hiprand_init are hiprand_init's arguments.
extern "C" __global__ void skips(unsigned long long seed, unsigned long long sub, unsigned long long off,
                                 unsigned int* out) {
  hiprandStatePhilox4_32_10_t p;
  hiprandState_t x;
  hiprandStateMRG32k3a_t m;
  hiprand_init(seed, 0, 0, &p);
  hiprand_init(seed, 0, 0, &x);
  hiprand_init(seed, 0, 0, &m);
  skipahead_sequence(sub, &p);
  skipahead_sequence(sub, &x);
  skipahead_subsequence(sub, &m);
  skipahead(off, &p);
  skipahead(off, &x);
  skipahead(off, &m);
  for (int i = 0; i < 3; ++i) {
    out[3 * i] = hiprand(&p);
    out[3 * i + 1] = hiprand(&x);
    out[3 * i + 2] = hiprand(&m);
  }
}
// SOBOL32: thread t's dimension has the 32 direction numbers at vectors + 32 t; it
// makes `calls` points from point off[t] + skip[t] (a skip ahead after init), each as
// bits, a uniform, a normal double and a log-normal float.
extern "C" __global__ void sobol(const unsigned int* vectors, const unsigned int* off,
                                 const unsigned int* skip, int calls, unsigned int* bits, float* uniform,
                                 double* normal, float* log_normal) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  hiprandStateSobol32_t s[4];
  for (int k = 0; k < 4; ++k) {
    hiprand_init(vectors + 32 * t, off[t], &s[k]);
    skipahead(skip[t], &s[k]);
  }
  for (int i = 0; i < calls; ++i) {
    const size_t at = (size_t)t * calls + i;
    bits[at] = hiprand(&s[0]);
    uniform[at] = hiprand_uniform(&s[1]);
    normal[at] = hiprand_normal_double(&s[2]);
    log_normal[at] = hiprand_log_normal(&s[3], 0.5f, 0.25f);
  }
}
"""
)

THREADS = 64


@pytest.fixture
def mod(device):
    return compile_once(SOURCE)


def run(mod, engine, name, seed, sub, off, calls, per, dtype, lam=10.0, grid=(1, THREADS)):
    out = hipkit.empty(len(sub) * calls * per, dtype)
    fn = mod.get_function(f"{engine}_{name}")
    fn[grid](np.uint64(seed), hipkit.to_device(sub), hipkit.to_device(off), np.int32(calls), lam, out)
    return out.get().reshape(len(sub), calls * per)


def starts(rng, engine, n=THREADS):
    """Fresh (seed, subsequences, offsets): small ones, which the references step through,
    and, for Philox, any 64-bit subsequence and offsets up to 2^60."""
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    if engine == "philox":
        sub = rng.integers(0, 2**64, n, dtype=np.uint64)
        off = rng.integers(0, 2**60, n, dtype=np.uint64)
    else:
        sub = rng.integers(0, 4, n, dtype=np.uint64)
        off = rng.integers(0, 3000, n, dtype=np.uint64)
    return seed, sub, off


def reference_words(engine, seed, sub, off, n):
    make = {"philox": ref.philox_words, "xorwow": ref.xorwow_words, "mrg": ref.mrg_values}[engine]
    rows = [make(seed, int(s), int(o), n) for s, o in zip(sub, off, strict=True)]
    return np.array(rows, np.uint64 if engine == "mrg" else np.uint32)


def test_philox_known_answers(mod, device):
    # Random123's known-answer vectors for Philox4x32-10 (counter, key -> output).
    cases = (
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((2**32 - 1,) * 4, (2**32 - 1,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        (
            (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
            (0xA4093822, 0x299F31D0),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
        ),
    )
    for counter, key, want in cases:
        assert list(ref.philox_block(np.array([counter], np.uint32), key)[0]) == list(want)
        low, high = counter[0] | counter[1] << 32, counter[2] | counter[3] << 32
        out = hipkit.empty(4, np.uint32)
        quarter, rest = 4 * (low // 4), 4 * (low % 4)
        mod.get_function("philox_at")[1, 1](key[0] | key[1] << 32, high, quarter, rest, out)
        assert [int(x) for x in out.get()] == list(want), f"counter {counter}"
    recover(device)


@pytest.mark.parametrize("engine", list(STATES))
def test_bits_match_the_reference(mod, device, rng, engine):
    seed, sub, off = starts(rng, engine)
    calls = 9
    got = run(mod, engine, "bits", seed, sub, off, calls, 1, np.uint32)
    want = reference_words(engine, seed, sub, off, calls)
    if engine == "mrg":
        want = (want.astype(np.float64) * 1.000000048662).astype(np.uint32)
    recover(device)
    np.testing.assert_array_equal(got, want)


def test_xorwow_and_mrg_jump_far(mod, device, rng):
    # Subsequences beyond the brute-force range, against the references' matrix powers.
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    sub = rng.integers(2**40, 2**51, 2, dtype=np.uint64)
    off = rng.integers(2**40, 2**62, 2, dtype=np.uint64)
    for engine in ("xorwow", "mrg"):
        got = run(mod, engine, "bits", seed, sub, off, 3, 1, np.uint32, grid=(1, 2))
        want = reference_words(engine, seed, sub, off, 3)
        if engine == "mrg":
            want = (want.astype(np.float64) * 1.000000048662).astype(np.uint32)
        np.testing.assert_array_equal(got, want, err_msg=engine)
    recover(device)


def test_skipahead_is_init_with_offsets(mod, device, rng):
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    sub, off = int(rng.integers(0, 2**20)), int(rng.integers(0, 2**40))
    out = hipkit.empty(9, np.uint32)
    mod.get_function("skips")[1, 1](seed, sub, off, out)
    got = out.get().reshape(3, 3).T
    want_p = ref.philox_words(seed, sub, off, 3)
    want_x = ref.xorwow_words(seed, sub, off, 3)
    want_m = (np.array(ref.mrg_values(seed, sub, off, 3), np.float64) * 1.000000048662).astype(np.uint32)
    recover(device)
    np.testing.assert_array_equal(got, [want_p, want_x, want_m])


def test_sobol_points_in_kernels(mod, device, rng):
    """Each thread's dimension, offset and skip fresh; the points are SciPy's."""
    n, calls = 16, 9
    dims = rng.integers(0, 64, n)
    # SciPy's fast_forward takes time in proportion to the points skipped.
    off = rng.integers(0, 2**20, n, dtype=np.uint32)
    skip = rng.integers(0, 2**12, n, dtype=np.uint32)
    vectors = np.array([make_sobol_tables.direction_vectors(int(d)) for d in dims], np.uint32)
    outs = [hipkit.empty(n * calls, t) for t in (np.uint32, np.float32, np.float64, np.float32)]
    mod.get_function("sobol")[1, n](
        hipkit.to_device(vectors), hipkit.to_device(off), hipkit.to_device(skip), np.int32(calls), *outs
    )
    bits, uniform, normal, log_normal = (o.get().reshape(n, calls) for o in outs)
    recover(device)
    want = np.array(
        [ref.sobol_points(64, int(o + k), calls)[d] for d, o, k in zip(dims, off, skip, strict=True)]
    )
    np.testing.assert_array_equal(bits, want)
    np.testing.assert_array_equal(uniform, ref.uniform(want))
    np.testing.assert_allclose(normal, ref.sobol_normal(want), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(log_normal, np.exp(0.5 + 0.25 * ref.sobol_normal(want)), rtol=2e-6)


MTGP_SOURCE = r"""
#include <hiprand/hiprand_kernel.h>
// Each block draws with its state: `rounds` times a number, a uniform, a normal double,
// a log-normal and a uniform double, a round each.
extern "C" __global__ void mtgp(hiprandStateMtgp32_t* states, int rounds, unsigned int* bits, float* uniform,
                                double* normal, float* log_normal, double* uniform_double) {
  const unsigned int threads = blockDim.x * blockDim.y, t = threadIdx.x + blockDim.x * threadIdx.y;
  hiprandStateMtgp32_t* state = &states[blockIdx.x];
  for (int r = 0; r < rounds; ++r) {
    const size_t at = ((size_t)blockIdx.x * rounds + r) * threads + t;
    bits[at] = hiprand(state);
    uniform[at] = hiprand_uniform(state);
    normal[at] = hiprand_normal_double(state);
    log_normal[at] = hiprand_log_normal(state, 0.5f, 0.25f);
    uniform_double[at] = hiprand_uniform_double(state);
  }
}
"""
# hiprandStateMtgp32_t and mtgp32_kernel_params_t as C lays them out.
MTGP_STATE = np.dtype([("s", np.uint32, 1024), ("offset", np.int32), ("pIdx", np.int32), ("k", np.uint64)])


def mtgp_states(seed: int, count: int):
    """States 0 .. count - 1 as hiprandMakeMTGP32KernelState makes them, built here from
    the reference, and the kernel tables they point to (kept alive with them)."""
    sets = ref.mtgp32_sets()
    tables = np.concatenate(
        [
            [p.pos for p in sets],
            *(np.ravel([getattr(p, f) for p in sets]) for f in ("tbl", "tmp_tbl", "flt_tmp_tbl")),
            [p.sh1 for p in sets],
            [p.sh2 for p in sets],
            [sets[0].mask],
        ]
    ).astype(np.uint32)
    assert tables.size == 200 + 3 * 200 * 16 + 2 * 200 + 1
    params = hipkit.to_device(tables)
    states = np.zeros(count, MTGP_STATE)
    for i in range(count):
        states[i]["s"] = ref.mtgp32_seeded(i, ref.mtgp32_kernel_seed(seed, i))
        states[i]["pIdx"] = i
        states[i]["k"] = params.ptr
    return hipkit.to_device(states.view(np.uint8)), params


@pytest.mark.parametrize("block", [(256, 1), (32, 5)])
def test_mtgp32_in_kernels(device, rng, block):
    """Fresh seed; the blocks' rounds are the reference's (cuRAND's), for a full block and
    a two-dimensional one."""
    seed, blocks, rounds = int(rng.integers(0, 2**64, dtype=np.uint64)), 3, 4
    threads = block[0] * block[1]
    states, params = mtgp_states(seed, blocks)
    n = blocks * rounds * threads
    outs = [hipkit.empty(n, t) for t in (np.uint32, np.float32, np.float64, np.float32, np.float64)]
    compile_once(MTGP_SOURCE).get_function("mtgp")[blocks, block](states, np.int32(rounds), *outs)
    bits, uniform, normal, log_normal, uniform_double = (
        o.get().reshape(blocks, rounds, threads) for o in outs
    )
    recover(device)
    want = np.array(
        [ref.mtgp32_rounds(b, ref.mtgp32_kernel_seed(seed, b), threads, 5 * rounds) for b in range(blocks)]
    ).reshape(blocks, rounds, 5, threads)
    np.testing.assert_array_equal(bits, want[:, :, 0])
    np.testing.assert_array_equal(uniform, ref.uniform(want[:, :, 1]))
    np.testing.assert_allclose(normal, ref.sobol_normal(want[:, :, 2]), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(log_normal, np.exp(0.5 + 0.25 * ref.sobol_normal(want[:, :, 3])), rtol=2e-6)
    np.testing.assert_array_equal(uniform_double, want[:, :, 4] * 2.0**-32 + 2.0**-32)
    # The states moved on: a round of `threads` numbers a call.
    after = states.get().view(MTGP_STATE)
    assert list(after["offset"]) == [5 * rounds * threads % 1024] * blocks


def test_mtgp32_kernels_run_on_fibers_on_the_cpu(device):
    if device.platform != "cpu":
        pytest.skip("the CPU transform's choice")
    kernel = next(k for k in compile_once(MTGP_SOURCE).binary.kernels if k["name"] == "mtgp")
    assert kernel["mode"] == "fiber" and "MTGP32" in kernel["reason"]


def test_mtgp32_refuses_blocks_of_more_than_256_threads(device):
    if device.platform != "cpu":
        pytest.skip("on a GPU it traps, which ends the context")
    states, params = mtgp_states(1, 1)
    outs = [hipkit.empty(512, t) for t in (np.uint32, np.float32, np.float64, np.float32, np.float64)]
    with pytest.raises(hipkit.HipError, match="more than 256 threads"):
        compile_once(MTGP_SOURCE).get_function("mtgp")[1, 512](states, np.int32(1), *outs)
        recover(device)


@pytest.mark.parametrize("engine", list(STATES))
def test_uniforms_are_exact(mod, device, rng, engine):
    seed, sub, off = starts(rng, engine)
    f = run(mod, engine, "uniform", seed, sub, off, 6, 1, np.float32)
    d = run(mod, engine, "uniform_double", seed, sub, off, 3, 1, np.float64)
    if engine == "mrg":
        values = reference_words(engine, seed, sub, off, 6).astype(np.float64)
        want_f = (values * 2.3283065498378288e-10).astype(np.float32)
        want_d = values[:, :3] * 2.3283065498378288e-10
    else:
        words = reference_words(engine, seed, sub, off, 6)
        want_f = ref.uniform(words)
        if engine == "philox":
            want_d = words[:, :3].astype(np.float64) * 2.0**-32 + 2.0**-32
        else:
            want_d = ref.uniform_double2(words[:, 0:6:2], words[:, 1:6:2])
    recover(device)
    np.testing.assert_array_equal(f, want_f)
    np.testing.assert_array_equal(d, want_d)
    assert f.min() > 0 and f.max() <= 1


def test_philox_vector_calls(mod, device, rng):
    seed, sub, off = starts(rng, "philox")
    words = reference_words("philox", seed, sub, off, 16)
    bits4 = run(mod, "philox", "bits4", seed, sub, off, 4, 4, np.uint32)
    uniform4 = run(mod, "philox", "uniform4", seed, sub, off, 4, 4, np.float32)
    double2 = run(mod, "philox", "uniform2_double", seed, sub, off, 4, 2, np.float64)
    recover(device)
    np.testing.assert_array_equal(bits4, words)
    np.testing.assert_array_equal(uniform4, ref.uniform(words))
    np.testing.assert_array_equal(double2, ref.uniform_double2(words[:, 0::2], words[:, 1::2]))


@pytest.mark.parametrize("engine", ["philox", "xorwow"])
def test_normals_are_box_muller_pairs(mod, device, rng, engine):
    seed, sub, off = starts(rng, engine)
    words = reference_words(engine, seed, sub, off, 8)
    s, c = ref.box_muller(words[:, 0::2], words[:, 1::2])
    pairs = np.stack([s, c], axis=2).reshape(len(sub), 8)
    sd, cd = ref.box_muller_double(words[:, 0::4], words[:, 1::4], words[:, 2::4], words[:, 3::4])
    pairs_double = np.stack([sd, cd], axis=2).reshape(len(sub), 4)
    normal = run(mod, engine, "normal", seed, sub, off, 8, 1, np.float32)
    normal2 = run(mod, engine, "normal2", seed, sub, off, 4, 2, np.float32)
    normal_double = run(mod, engine, "normal_double", seed, sub, off, 4, 1, np.float64)
    normal2_double = run(mod, engine, "normal2_double", seed, sub, off, 2, 2, np.float64)
    log_normal = run(mod, engine, "log_normal", seed, sub, off, 8, 1, np.float32)
    log_normal_double = run(mod, engine, "log_normal_double", seed, sub, off, 4, 1, np.float64)
    recover(device)
    # NVIDIA's float normals take __sincosf, an approximation good to about 2^-21 of 1.
    for got in (normal, normal2):
        np.testing.assert_allclose(got, pairs, rtol=2e-5, atol=1e-4)
    for got in (normal_double, normal2_double):
        np.testing.assert_allclose(got, pairs_double, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(log_normal, np.exp(0.5 + 0.25 * pairs), rtol=1e-4)
    np.testing.assert_allclose(log_normal_double, np.exp(0.5 + 0.25 * pairs_double), rtol=1e-12)
    if engine == "philox":
        normal4 = run(mod, engine, "normal4", seed, sub, off, 2, 4, np.float32)
        np.testing.assert_allclose(normal4, pairs, rtol=2e-5, atol=1e-4)


def _ks_normal(x: np.ndarray) -> float:
    x = np.sort(x.astype(np.float64).ravel())
    cdf = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    n = x.size
    return float(max((np.arange(1, n + 1) / n - cdf).max(), (cdf - np.arange(n) / n).max()))


@pytest.mark.parametrize("engine", list(STATES))
def test_normal_distribution(mod, device, engine):
    # Fixed seeds: a Kolmogorov-Smirnov distance below the 1% critical value.
    sub = np.arange(THREADS, dtype=np.uint64)
    off = np.zeros(THREADS, np.uint64)
    for name, dtype in (("normal", np.float32), ("normal_double", np.float64)):
        x = run(mod, engine, name, 20261202, sub, off, 64, 1, dtype)
        assert _ks_normal(x) < 1.63 / math.sqrt(x.size), name
        u = run(mod, engine, "uniform", 20261202, sub, off, 64, 1, np.float32).astype(np.float64).ravel()
        u.sort()
        d = max((np.arange(1, u.size + 1) / u.size - u).max(), (u - np.arange(u.size) / u.size).max())
        assert d < 1.63 / math.sqrt(u.size)
    recover(device)


@pytest.mark.parametrize("engine", list(STATES))
@pytest.mark.parametrize("lam", [3.5, 200.0, 6000.0])
def test_poisson_mean_and_variance(mod, device, engine, lam):
    sub = np.arange(THREADS, dtype=np.uint64)
    off = np.zeros(THREADS, np.uint64)
    x = run(mod, engine, "poisson", 7, sub, off, 128, 1, np.uint32, lam=lam).astype(np.float64)
    n = x.size
    assert abs(x.mean() - lam) < 5 * math.sqrt(lam / n)
    assert abs(x.var() / lam - 1) < 5 * math.sqrt(2 / n) + 0.02
    if engine == "philox":
        x4 = run(mod, engine, "poisson4", 7, sub, off, 32, 4, np.uint32, lam=lam).astype(np.float64)
        assert abs(x4.mean() - lam) < 5 * math.sqrt(lam / n)
    recover(device)


ROC_SOURCE = r"""
#include <rocrand/rocrand_kernel.h>
extern "C" __global__ void roc(unsigned long long seed, float* out) {
  const int t = threadIdx.x;
  rocrand_state_philox4x32_10 p;
  rocrand_state_xorwow x;
  rocrand_state_mrg32k3a m;
  rocrand_state_sobol32 q;
  rocrand_init(seed, t, 0, &p);
  rocrand_init(seed, t, 0, &x);
  rocrand_init(seed, t, 0, &m);
  unsigned int van_der_corput[32];  // SOBOL32's dimension 0
  for (int k = 0; k < 32; ++k) van_der_corput[k] = 1u << (31 - k);
  rocrand_init(van_der_corput, t, &q);
  out[4 * t] = rocrand_uniform(&p);
  out[4 * t + 1] = rocrand_uniform(&x);
  out[4 * t + 2] = rocrand_uniform(&m);
  out[4 * t + 3] = rocrand_uniform(&q);
}
"""


def test_rocrand_names_are_the_same_numbers(mod, device, rng):
    roc = compile_once(ROC_SOURCE)
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    n = 8
    out = hipkit.empty(4 * n, np.float32)
    roc.get_function("roc")[1, n](seed, out)
    got = out.get().reshape(n, 4)
    sub, off = np.arange(n, dtype=np.uint64), np.zeros(n, np.uint64)
    for k, engine in enumerate(STATES):
        np.testing.assert_array_equal(
            got[:, k], run(mod, engine, "uniform", seed, sub, off, 1, 1, np.float32, grid=(1, n))[:, 0]
        )
    recover(device)
    np.testing.assert_array_equal(got[:, 3], ref.uniform(ref.sobol_points(1, 0, n)[0]))


@pytest.mark.parametrize("target", ["sm_90", "gfx90a"])
def test_compiles_for_the_gpus(target):
    # The same header set on NVIDIA (NVRTC) and AMD (hiprtc), with no GPU needed.
    from hipkit.platforms.amd import compiler as amd
    from hipkit.platforms.nvidia import compiler as nvidia

    reason = (nvidia if target.startswith("sm") else amd).unavailable_reason()
    if reason:
        pytest.skip(f"cannot compile for {target} here: {reason}")
    for source in (SOURCE, ROC_SOURCE, MTGP_SOURCE):
        assert hipkit.compile(source, target=target).target.arch == target
