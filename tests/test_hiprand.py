"""hipkit.hiprand: hipRAND's host API from Python, on every device whose platform serves
it.  Each call's numbers against the rand_reference.py streams by the rule README
states (element i takes the numbers at offset + i * k of the stream (seed, subsequence
0)); calls continue where the last one stopped; offsets and seeds restart it; host
generators give the same numbers; SOBOL32's points are SciPy's; MTGP32's numbers
cuRAND's layout of the reference's states; and every status a user can provoke."""

from __future__ import annotations

import numpy as np
import pytest
import rand_reference as ref

import hipkit
from hipkit import hiprand as hr

ENGINES = {
    "philox": hr.HIPRAND_RNG_PSEUDO_PHILOX4_32_10,
    "xorwow": hr.HIPRAND_RNG_PSEUDO_XORWOW,
    "mrg": hr.HIPRAND_RNG_PSEUDO_MRG32K3A,
}
MRG_NORM, MRG_BITS = 2.3283065498378288e-10, 1.000000048662


@pytest.fixture
def served(device):
    try:
        hr.provider(device)
    except hr.HiprandError as exc:
        pytest.skip(f"no hipRAND on {device.platform.name}: {exc}")
    return device


@pytest.fixture
def rule(served):
    """The platform's generators make the rule's numbers (hipkit's own hipRAND); where
    the vendor's library serves hipRAND its own order is tested by its vendor."""
    if not hr.follows_rule(served):
        pytest.skip(f"{hr.provider(served)} makes its numbers in its own order, not hipkit's rule")
    return served


def destroy_live(generators):
    for g in generators:
        if g in hr._generators.live:
            hr.hiprandDestroyGenerator(g)


@pytest.fixture
def generator(served, request):
    made = []

    def make(engine="philox", seed=0, offset=0, host=False):
        create = hr.hiprandCreateGeneratorHost if host else hr.hiprandCreateGenerator
        g = create(ENGINES[engine])
        made.append(g)
        hr.hiprandSetPseudoRandomGeneratorSeed(g, seed)
        if offset:
            hr.hiprandSetGeneratorOffset(g, offset)
        return g

    yield make
    destroy_live(made)


def words(engine, seed, offset, n):
    """The engine's stream (seed, subsequence 0) from offset: 32-bit numbers, or
    MRG32k3a's values."""
    if engine == "philox":
        return ref.philox_words(seed, 0, offset, n)
    if engine == "xorwow":
        return np.array(ref.xorwow_words(seed, 0, offset, n), np.uint32)
    return np.array(ref.mrg_values(seed, 0, offset, n), np.float64)


def sizes(engine, rng):
    # Philox's streams are cheap to reproduce: sizes that split among threads.
    return int(rng.integers(300_000, 400_000)) if engine == "philox" else int(rng.integers(500, 900))


def fresh(rng, engine):
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    offset = int(rng.integers(0, 2**40)) if engine == "philox" else int(rng.integers(0, 500))
    return seed, offset


@pytest.mark.parametrize("engine", list(ENGINES))
def test_bits_and_uniforms_follow_the_rule(rule, generator, rng, engine):
    seed, offset = fresh(rng, engine)
    n = sizes(engine, rng)
    stream = words(engine, seed, offset, 4 * n)
    g = generator(engine, seed, offset)
    bits, uniform, double = (
        hipkit.empty(n, np.uint32),
        hipkit.empty(n, np.float32),
        hipkit.empty(n, np.float64),
    )
    hr.hiprandGenerate(g, bits, n)
    hr.hiprandGenerateUniform(g, uniform, n)
    hr.hiprandGenerateUniformDouble(g, double, n)
    if engine == "mrg":
        want_bits = (stream[:n] * MRG_BITS).astype(np.uint32)
        want_uniform = (stream[n : 2 * n] * MRG_NORM).astype(np.float32)
        want_double = stream[2 * n : 3 * n] * MRG_NORM
    else:
        want_bits, want_uniform = stream[:n], ref.uniform(stream[n : 2 * n])
        want_double = ref.uniform_double2(stream[2 * n : 4 * n : 2], stream[2 * n + 1 : 4 * n : 2])
    np.testing.assert_array_equal(bits.get(), want_bits)
    np.testing.assert_array_equal(uniform.get(), want_uniform)
    np.testing.assert_array_equal(double.get(), want_double)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_normals_follow_the_rule(rule, generator, rng, engine):
    seed, offset = fresh(rng, engine)
    n = 2 * (sizes(engine, rng) // 2)
    mean, stddev = float(rng.normal()), float(rng.uniform(0.5, 2))
    g = generator(engine, seed, offset)
    out = hipkit.empty(n, np.float32)
    out_double = hipkit.empty(n, np.float64)
    log = hipkit.empty(n, np.float32)
    hr.hiprandGenerateNormal(g, out, n, mean, stddev)
    hr.hiprandGenerateNormalDouble(g, out_double, n, mean, stddev)
    hr.hiprandGenerateLogNormal(g, log, n, mean, 0.25)
    double_words = n if engine == "mrg" else 2 * n
    stream = words(engine, seed, offset, 2 * n + double_words)
    if engine == "mrg":
        u = stream.copy()
        s = (u[0:n:2] * MRG_NORM).astype(np.float32).astype(np.float64)
        t = (u[1:n:2] * MRG_NORM).astype(np.float32) * np.float32(6.2831855)
        r = np.sqrt(-2 * np.log(s))
        pairs = (r * np.sin(t.astype(np.float64)), r * np.cos(t.astype(np.float64)))
        ud = u[n : 2 * n] * MRG_NORM
        rd = np.sqrt(-2 * np.log(ud[0::2]))
        pairs_double = (rd * np.sin(np.pi * 2 * ud[1::2]), rd * np.cos(np.pi * 2 * ud[1::2]))
        log_pairs = None
    else:
        pairs = ref.box_muller(stream[0:n:2], stream[1:n:2])
        w = stream[n : 3 * n]
        pairs_double = ref.box_muller_double(w[0::4], w[1::4], w[2::4], w[3::4])
        log_pairs = ref.box_muller(stream[3 * n : 4 * n : 2], stream[3 * n + 1 : 4 * n : 2])
    want = mean + stddev * np.stack(pairs, axis=1).ravel()
    np.testing.assert_allclose(out.get(), want, rtol=1e-5, atol=1e-5 * stddev)
    want_double = mean + stddev * np.stack(pairs_double, axis=1).ravel()
    np.testing.assert_allclose(out_double.get(), want_double, rtol=1e-11, atol=1e-12)
    if log_pairs is not None:
        np.testing.assert_allclose(
            log.get(), np.exp(mean + 0.25 * np.stack(log_pairs, axis=1).ravel()), rtol=2e-5
        )
    assert np.all(log.get() > 0)


def test_calls_continue_and_restart(rule, generator, rng):
    seed, offset = fresh(rng, "philox")
    n = 1000
    whole = hipkit.empty(2 * n, np.uint32)
    g = generator("philox", seed, offset)
    hr.hiprandGenerate(g, whole, 2 * n)
    halves = hipkit.empty(2 * n, np.uint32)
    h = generator("philox", seed, offset)
    hr.hiprandGenerate(h, halves, n - 3)
    hr.hiprandGenerate(h, int(halves.ptr) + 4 * (n - 3), n + 3)
    np.testing.assert_array_equal(halves.get(), whole.get())
    # A new seed starts over at the generator's offset; a new offset moves it.
    again = hipkit.empty(n, np.uint32)
    hr.hiprandSetPseudoRandomGeneratorSeed(h, seed)
    hr.hiprandGenerate(h, again, n)
    np.testing.assert_array_equal(again.get(), whole.get()[:n])
    hr.hiprandSetGeneratorOffset(h, offset + 7)
    hr.hiprandGenerate(h, again, n)
    np.testing.assert_array_equal(again.get(), whole.get()[7 : n + 7])


@pytest.mark.parametrize("engine", list(ENGINES))
def test_host_generators_give_the_same_numbers(rule, generator, rng, engine):
    seed, offset = fresh(rng, engine)
    n = 4096
    device_out = hipkit.empty(n, np.float32)
    hr.hiprandGenerateNormal(generator(engine, seed, offset), device_out, n, 1.0, 2.0)
    host_out = np.empty(n, np.float32)
    hr.hiprandGenerateNormal(generator(engine, seed, offset, host=True), host_out, n, 1.0, 2.0)
    np.testing.assert_array_equal(host_out, device_out.get())


def test_work_is_ordered_on_the_generators_stream(rule, generator, rng):
    stream = hipkit.Stream()
    g = generator("philox", 5)
    hr.hiprandSetStream(g, stream)
    out = hipkit.empty(1 << 18, np.uint32)
    hr.hiprandGenerate(g, out, out.size)
    stream.synchronize()
    np.testing.assert_array_equal(out.get(), ref.philox_words(5, 0, 0, out.size))


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("lam", [0.7, 25.0, 900.0, 12000.0])
def test_poisson_statistics(generator, engine, lam):
    n = 1 << 15
    out = hipkit.empty(n, np.uint32)
    hr.hiprandGeneratePoisson(generator(engine, 99), out, n, lam)
    x = out.get().astype(np.float64)
    assert abs(x.mean() - lam) < 5 * np.sqrt(lam / n)
    assert abs(x.var() / lam - 1) < 5 * np.sqrt(2 / n) + 0.02


# ---------------------------------------------------------------- SOBOL32


@pytest.fixture
def sobol(served):
    """A SOBOL32 generator of ``dimensions`` from point ``offset`` (host memory where
    asked); the CPU's and cuRAND's alike are checked against SciPy's points."""
    made = []

    def make(dimensions=1, offset=0, host=False):
        create = hr.hiprandCreateGeneratorHost if host else hr.hiprandCreateGenerator
        g = create(hr.HIPRAND_RNG_QUASI_SOBOL32)
        made.append(g)
        hr.hiprandSetQuasiRandomGeneratorDimensions(g, dimensions)
        if offset:
            hr.hiprandSetGeneratorOffset(g, offset)
        return g

    yield make
    destroy_live(made)


def test_sobol_points_are_scipys(sobol, rng):
    dimensions, offset, m = int(rng.integers(2, 40)), int(rng.integers(0, 2**20)), int(rng.integers(100, 300))
    g = sobol(dimensions, offset)
    first, second = hipkit.empty(dimensions * m, np.uint32), hipkit.empty(dimensions * 3, np.uint32)
    hr.hiprandGenerate(g, first, dimensions * m)
    hr.hiprandGenerate(g, second, dimensions * 3)  # continues: m points on, dimension-major again
    want = ref.sobol_points(dimensions, offset, m + 3)
    np.testing.assert_array_equal(first.get().reshape(dimensions, m), want[:, :m])
    np.testing.assert_array_equal(second.get().reshape(dimensions, 3), want[:, m:])


def test_sobol_at_its_last_dimensions(sobol):
    g = sobol(20000, 5)
    out = hipkit.empty(20000 * 4, np.uint32)
    hr.hiprandGenerate(g, out, out.size)
    np.testing.assert_array_equal(out.get().reshape(20000, 4)[-300:], ref.sobol_points(20000, 5, 4)[-300:])


def test_sobol_distributions(sobol, rng):
    dimensions, offset, m = 3, int(rng.integers(0, 2**16)), 512
    n = dimensions * m
    x = ref.sobol_points(dimensions, offset, 7 * m).reshape(dimensions, 7, m).transpose(1, 0, 2)
    calls = []
    for kind, dtype, args in (
        ("Uniform", np.float32, ()),
        ("UniformDouble", np.float64, ()),
        ("Normal", np.float32, (1.5, 0.5)),
        ("NormalDouble", np.float64, (-1.0, 2.0)),
        ("LogNormal", np.float32, (0.25, 0.5)),
        ("LogNormalDouble", np.float64, (0.25, 0.5)),
    ):
        out = hipkit.empty(n, dtype)
        g = sobol(dimensions, offset + m * len(calls))
        getattr(hr, f"hiprandGenerate{kind}")(g, out, n, *args)
        calls.append(out.get().reshape(dimensions, m))
    uniform, double, normal, normal_double, log, log_double = calls
    np.testing.assert_array_equal(uniform, ref.uniform(x[0]))
    np.testing.assert_array_equal(double, x[1] * 2.0**-32 + 2.0**-32)
    np.testing.assert_allclose(normal, 1.5 + 0.5 * ref.sobol_normal(x[2]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(normal_double, -1.0 + 2.0 * ref.sobol_normal(x[3]), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(log, np.exp(0.25 + 0.5 * ref.sobol_normal(x[4])), rtol=1e-5)
    np.testing.assert_allclose(log_double, np.exp(0.25 + 0.5 * ref.sobol_normal(x[5])), rtol=1e-13)


def test_sobol_normals_of_the_first_points(sobol):
    """Point 0 is 0 in every dimension: the lowest normal, finite (cuRAND's order, seen
    on the H200)."""
    out = hipkit.empty(4, np.float64)
    hr.hiprandGenerateNormalDouble(sobol(4), out, 4, 0.0, 1.0)
    np.testing.assert_allclose(out.get(), ref.sobol_normal(np.zeros(4, np.uint32)), rtol=1e-13)
    assert np.all(np.isfinite(out.get())) and out.get()[0] < -6


@pytest.mark.parametrize("lam", [0.7, 25.0, 900.0, 12000.0])
def test_sobol_poisson_statistics(sobol, lam):
    m = 1 << 13
    out = hipkit.empty(2 * m, np.uint32)
    hr.hiprandGeneratePoisson(sobol(2), out, 2 * m, lam)
    for x in out.get().reshape(2, m).astype(np.float64):
        # Quasi-random points are even: the moments are closer than independent numbers'.
        assert abs(x.mean() - lam) < 3 * np.sqrt(lam / m)
        assert abs(x.var() / lam - 1) < 3 * np.sqrt(2 / m) + 0.02


def test_sobol_host_generators_give_the_same_points(sobol, rng):
    offset = int(rng.integers(0, 2**24))
    device_out, host_out = hipkit.empty(600, np.float32), np.empty(600, np.float32)
    hr.hiprandGenerateUniform(sobol(6, offset), device_out, 600)
    hr.hiprandGenerateUniform(sobol(6, offset, host=True), host_out, 600)
    np.testing.assert_array_equal(host_out, device_out.get())


def test_sobol_statuses(served, sobol):
    g = sobol(3)
    out = hipkit.empty(64, np.uint32)
    assert status_of(hr.hiprandSetPseudoRandomGeneratorSeed, g, 5) == hr.HIPRAND_STATUS_TYPE_ERROR
    assert status_of(hr.hiprandGenerate, g, out, 10) == hr.HIPRAND_STATUS_LENGTH_NOT_MULTIPLE
    for dimensions in (0, 20001):
        assert (
            status_of(hr.hiprandSetQuasiRandomGeneratorDimensions, g, dimensions)
            == hr.HIPRAND_STATUS_OUT_OF_RANGE
        )
    hr.hiprandGenerate(g, out, 63)  # whole points of the dimensions it has
    if hr.follows_rule(served):  # hipkit's provider; cuRAND's wraps its own way
        hr.hiprandSetGeneratorOffset(g, 2**32 - 4)  # SOBOL32 has 2^32 points
        assert status_of(hr.hiprandGenerate, g, out, 15) == hr.HIPRAND_STATUS_OUT_OF_RANGE
        hr.hiprandGenerate(g, out, 12)
        for kind in (hr.HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL32, hr.HIPRAND_RNG_QUASI_SOBOL64):
            assert status_of(hr.hiprandCreateGenerator, kind) == hr.HIPRAND_STATUS_NOT_IMPLEMENTED


def test_quasi_default_is_sobol32(served, rng):
    g = hr.hiprandCreateGenerator(hr.HIPRAND_RNG_QUASI_DEFAULT)
    try:
        out = hipkit.empty(50, np.uint32)
        hr.hiprandGenerate(g, out, 50)
        np.testing.assert_array_equal(out.get(), ref.sobol_points(1, 0, 50)[0])
    finally:
        hr.hiprandDestroyGenerator(g)


# ---------------------------------------------------------------- MTGP32


@pytest.fixture
def mtgp(served):
    """An MTGP32 generator from ``seed`` (host memory where asked); the CPU's and cuRAND's
    alike are checked against the reference's layout of cuRAND's 192 states."""
    made = []

    def make(seed, host=False):
        create = hr.hiprandCreateGeneratorHost if host else hr.hiprandCreateGenerator
        g = create(hr.HIPRAND_RNG_PSEUDO_MTGP32)
        made.append(g)
        hr.hiprandSetPseudoRandomGeneratorSeed(g, seed)
        return g

    yield make
    destroy_live(made)


def test_mtgp32_numbers_are_curands(mtgp, rng):
    """Calls of fresh sizes continue one another, across rounds and states, and past the
    192 states' first rounds."""
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    counts = [1, 255, int(rng.integers(1, 600)), 256, int(rng.integers(40_000, 60_000)), 7]
    g = mtgp(seed)
    got = []
    for n in counts:
        out = hipkit.empty(n, np.uint32)
        hr.hiprandGenerate(g, out, n)
        got.append(out.get())
    np.testing.assert_array_equal(np.concatenate(got), ref.mtgp32_host(seed, sum(counts)))


def test_mtgp32_distributions(mtgp, rng):
    """A number each, odd counts too: uniforms and doubles exact, normals and log-normals
    the inverse normal distribution's."""
    seed, n = int(rng.integers(0, 2**64, dtype=np.uint64)), 2001
    g = mtgp(seed)
    outs = {}
    for kind, dtype, args in (
        ("Uniform", np.float32, ()),
        ("UniformDouble", np.float64, ()),
        ("Normal", np.float32, (1.5, 0.5)),
        ("NormalDouble", np.float64, (-1.0, 2.0)),
        ("LogNormal", np.float32, (0.25, 0.5)),
        ("LogNormalDouble", np.float64, (0.25, 0.5)),
    ):
        out = hipkit.empty(n, dtype)
        getattr(hr, f"hiprandGenerate{kind}")(g, out, n, *args)
        outs[kind] = out.get()
    x = ref.mtgp32_host(seed, 6 * n).reshape(6, n)
    np.testing.assert_array_equal(outs["Uniform"], ref.uniform(x[0]))
    np.testing.assert_array_equal(outs["UniformDouble"], x[1] * 2.0**-32 + 2.0**-32)
    np.testing.assert_allclose(outs["Normal"], 1.5 + 0.5 * ref.sobol_normal(x[2]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs["NormalDouble"], -1 + 2 * ref.sobol_normal(x[3]), rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(outs["LogNormal"], np.exp(0.25 + 0.5 * ref.sobol_normal(x[4])), rtol=1e-5)
    np.testing.assert_allclose(
        outs["LogNormalDouble"], np.exp(0.25 + 0.5 * ref.sobol_normal(x[5])), rtol=1e-12
    )


@pytest.mark.parametrize("lam", [3.0, 700.0, 9000.0])
def test_mtgp32_poisson_statistics(mtgp, lam):
    n = 1 << 15
    out = hipkit.empty(n, np.uint32)
    hr.hiprandGeneratePoisson(mtgp(77), out, n, lam)
    x = out.get().astype(np.float64)
    assert abs(x.mean() - lam) < 5 * np.sqrt(lam / n)
    assert abs(x.var() / lam - 1) < 5 * np.sqrt(2 / n) + 0.02


def test_mtgp32_host_generators_and_new_seeds(served, mtgp, rng):
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    g = mtgp(seed)
    first, again = hipkit.empty(3000, np.uint32), hipkit.empty(3000, np.uint32)
    hr.hiprandGenerate(g, first, 3000)
    host = np.empty(3000, np.uint32)
    hr.hiprandGenerate(mtgp(seed, host=True), host, 3000)
    np.testing.assert_array_equal(host, first.get())
    if hr.follows_rule(served):  # cuRAND keeps its states' stream (seen on the H200)
        hr.hiprandSetPseudoRandomGeneratorSeed(g, seed + 1)
        hr.hiprandGenerate(g, again, 3000)
        np.testing.assert_array_equal(again.get(), ref.mtgp32_host(seed + 1, 3000))
        hr.hiprandSetPseudoRandomGeneratorSeed(g, seed)  # the seed's stream from its start
        hr.hiprandGenerate(g, again, 3000)
        np.testing.assert_array_equal(again.get(), first.get())


def test_mtgp32_has_no_offset(mtgp):
    g = mtgp(5)
    assert status_of(hr.hiprandSetGeneratorOffset, g, 100) == hr.HIPRAND_STATUS_TYPE_ERROR
    out = hipkit.empty(4, np.float32)
    assert status_of(hr.hiprandGeneratePoisson, g, out, 4, 0.0) == hr.HIPRAND_STATUS_OUT_OF_RANGE


# ---------------------------------------------------------------- statuses


def status_of(call, *args):
    with pytest.raises(hr.HiprandError) as caught:
        call(*args)
    return caught.value.status


def test_bad_and_unserved_generator_types(served):
    assert status_of(hr.hiprandCreateGenerator, 12345) == hr.HIPRAND_STATUS_TYPE_ERROR
    assert status_of(hr.hiprandCreateGeneratorHost, hr.HIPRAND_RNG_TEST) == hr.HIPRAND_STATUS_TYPE_ERROR
    if hr.follows_rule(served):  # hipkit's own hipRAND makes no MT19937
        assert status_of(hr.hiprandCreateGenerator, hr.HIPRAND_RNG_PSEUDO_MT19937) == (
            hr.HIPRAND_STATUS_NOT_IMPLEMENTED
        )


def test_a_generator_that_is_not_live(generator):
    g = generator()
    hr.hiprandDestroyGenerator(g)
    out = hipkit.empty(4, np.float32)
    for call, args in (
        (hr.hiprandGenerateUniform, (g, out, 4)),
        (hr.hiprandSetPseudoRandomGeneratorSeed, (g, 1)),
        (hr.hiprandDestroyGenerator, (g,)),
        (hr.hiprandSetStream, (12345, None)),
    ):
        assert status_of(call, *args) == hr.HIPRAND_STATUS_NOT_INITIALIZED


def test_normals_need_even_counts_and_aligned_pairs(served, generator):
    g = generator()
    out = hipkit.empty(16, np.float64)
    if not hr.follows_rule(served):
        # cuRAND's checks are its own: its Philox takes an odd count of normals (the
        # H200's cuRAND 10.4 made 5), its XORWOW does not.
        g = generator("xorwow")
    aligned = hr.follows_rule(served)  # hipRAND's documented check (rocRAND's)
    for call in (hr.hiprandGenerateNormal, hr.hiprandGenerateLogNormal):
        assert status_of(call, g, out, 5, 0.0, 1.0) == hr.HIPRAND_STATUS_LENGTH_NOT_MULTIPLE
        if aligned:
            assert status_of(call, g, out.ptr + 4, 4, 0.0, 1.0) == hr.HIPRAND_STATUS_LENGTH_NOT_MULTIPLE
    for call in (hr.hiprandGenerateNormalDouble, hr.hiprandGenerateLogNormalDouble):
        assert status_of(call, g, out, 7, 0.0, 1.0) == hr.HIPRAND_STATUS_LENGTH_NOT_MULTIPLE
        if aligned:
            assert status_of(call, g, out.ptr + 8, 4, 0.0, 1.0) == hr.HIPRAND_STATUS_LENGTH_NOT_MULTIPLE
    hr.hiprandGenerateNormal(g, out.ptr + 8, 4, 0.0, 1.0)  # aligned to a pair of floats


def test_out_of_range(served, generator):
    g = generator()
    out = hipkit.empty(64, np.uint32)
    for lam in (0.0, -2.0):
        assert status_of(hr.hiprandGeneratePoisson, g, out, 64, lam) == hr.HIPRAND_STATUS_OUT_OF_RANGE
    if not hr.follows_rule(served):
        return  # the rule's positions; a vendor's generator wraps its own way
    hr.hiprandSetGeneratorOffset(g, 2**64 - 10)  # positions past 2^64 do not exist
    assert status_of(hr.hiprandGenerate, g, out, 64) == hr.HIPRAND_STATUS_OUT_OF_RANGE
    hr.hiprandGenerate(g, out, 10)


def test_dimensions_are_for_quasi_random_generators(generator):
    assert (
        status_of(hr.hiprandSetQuasiRandomGeneratorDimensions, generator(), 3) == hr.HIPRAND_STATUS_TYPE_ERROR
    )


def test_version(served):
    assert hr.hiprandGetVersion() > 0
