"""hipkit.random, on every device, and hipkit's reproducibility rule (README, "Random
numbers"): each method's numbers are the rule's, computed here independently from
rand_reference.py's Philox4x32-10 on fresh seeds, so that the same test on each
platform is the cross-platform bit-identity check; the launch shape changes nothing;
calls continue the stream; the Poisson numbers are the CPU's hipRAND's (two
implementations of the rule); statistics; and every user error."""

from __future__ import annotations

import math

import numpy as np
import pytest
import rand_reference as ref

import hipkit
import hipkit.random
from hipkit import hiprand
from hipkit.random import _generator


def fresh(rng):
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    offset = int(rng.integers(0, 2**40))
    return seed, offset


def test_random_and_uniform_follow_the_rule(device, rng):
    seed, offset = fresh(rng)
    n = int(rng.integers(1000, 5000))
    g = hipkit.random.Generator(seed, offset)
    f32 = g.random(n, dtype=np.float32).get()
    f64 = g.random(n).get()
    low, high = -3.5, 11.25
    u32 = g.uniform(low, high, n, dtype=np.float32).get()
    words = ref.philox_words(seed, 0, offset, 5 * n)
    want32 = (words[:n] >> 8).astype(np.float32) * np.float32(2**-24)
    np.testing.assert_array_equal(f32, want32)
    x, y = words[n : 3 * n : 2].astype(np.uint64), words[n + 1 : 3 * n : 2].astype(np.uint64)
    want64 = ((x >> np.uint64(5)) * np.uint64(2**26) + (y >> np.uint64(6))).astype(np.float64) * 2.0**-53
    np.testing.assert_array_equal(f64, want64)
    u = (words[3 * n : 4 * n] >> 8).astype(np.float32) * np.float32(2**-24)
    # One rounding of (high - low) u + low, as fma: exact in float64, then rounded.
    want_u = (np.float64(np.float32(high) - np.float32(low)) * u.astype(np.float64) + low).astype(np.float32)
    np.testing.assert_array_equal(u32, want_u)
    assert f32.min() >= 0 and f32.max() < 1 and f64.max() < 1 and u32.min() >= low and u32.max() < high
    assert g.offset == offset + 4 * n


def test_integers_follow_the_rule(device, rng):
    seed, offset = fresh(rng)
    n = 3000
    g = hipkit.random.Generator(seed, offset)
    small = g.integers(-7, 1000, n).get()
    big = g.integers(-(2**62), 2**62, n).get()
    full = g.integers(-(2**63), 2**63 - 1, n, endpoint=True).get()
    words = ref.philox_words(seed, 0, offset, 5 * n).astype(np.uint64)
    np.testing.assert_array_equal(
        small, -7 + ((words[:n] * np.uint64(1007)) >> np.uint64(32)).astype(np.int64)
    )
    v = [int(words[n + 2 * i]) | int(words[n + 2 * i + 1]) << 32 for i in range(n)]
    np.testing.assert_array_equal(big, [-(2**62) + (x * 2**63 >> 64) for x in v])
    v = [int(words[3 * n + 2 * i]) | int(words[3 * n + 2 * i + 1]) << 32 for i in range(n)]
    np.testing.assert_array_equal(full, [x - 2**63 for x in v])  # low + v
    assert small.min() >= -7 and small.max() < 1000


def test_normals_are_the_rules_pairs(device, rng):
    seed, offset = fresh(rng)
    n = 2001  # odd: the last is the first of its pair
    g = hipkit.random.Generator(seed, offset)
    z32 = g.standard_normal(n, dtype=np.float32).get()
    z64 = g.normal(2.0, 3.0, n).get()
    words = ref.philox_words(seed, 0, offset, 3 * n + 3)
    s, c = ref.box_muller(words[0 : n + 1 : 2], words[1 : n + 1 : 2])
    # (NVIDIA's float sines are __sincosf's, good to about 2^-21.)
    np.testing.assert_allclose(z32, np.stack([s, c], axis=1).ravel()[:n], rtol=2e-5, atol=1e-4)
    w = words[n : n + 4 * ((n + 1) // 2)]  # the doubles' pairs start where the floats' numbers end
    s, c = ref.box_muller_double(w[0::4], w[1::4], w[2::4], w[3::4])
    np.testing.assert_allclose(z64, 2.0 + 3.0 * np.stack([s, c], axis=1).ravel()[:n], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("grid,block", [(1, 1), (3, 64), (1000, 32), (7, 256)])
def test_the_launch_shape_changes_nothing(device, rng, grid, block):
    seed, offset = fresh(rng)
    n = 1234
    want = hipkit.random.Generator(seed, offset).random(n, dtype=np.float32).get()
    out = hipkit.empty(n, np.float32)
    kernel = _generator._module(device).get_function(f"hk_random<{_generator.FLOAT01}>")
    kernel[grid, block](
        np.uint64(seed), np.uint64(offset), np.uint64(n), 0.0, 1.0, np.int64(0), np.uint64(0), out
    )
    np.testing.assert_array_equal(out.get(), want)


def test_calls_continue_the_stream(device, rng):
    seed, offset = fresh(rng)
    whole = hipkit.random.Generator(seed, offset).random(1000, dtype=np.float32).get()
    g = hipkit.random.Generator(seed, offset)
    parts = [g.random(k, dtype=np.float32).get() for k in (1, 2, 997)]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    out = hipkit.empty((10, 10), np.float32)
    assert hipkit.random.Generator(seed, offset).random(out=out, dtype=np.float32) is out
    np.testing.assert_array_equal(out.get().ravel(), whole[:100])


def test_poisson_is_the_cpu_hiprands(device, rng):
    seed, offset = fresh(rng)
    n, lam = 10_000, 37.5
    got = hipkit.random.Generator(seed, offset).poisson(lam, n).get()
    with hipkit.Device(0, platform="cpu"):
        g = hiprand.hiprandCreateGeneratorHost(hiprand.HIPRAND_RNG_PSEUDO_PHILOX4_32_10)
        hiprand.hiprandSetPseudoRandomGeneratorSeed(g, seed)
        hiprand.hiprandSetGeneratorOffset(g, offset)
        want = np.empty(n, np.uint32)
        hiprand.hiprandGeneratePoisson(g, want, n, lam)
        hiprand.hiprandDestroyGenerator(g)
    np.testing.assert_array_equal(got, want)


def test_statistics_at_fixed_seeds(device):
    g = hipkit.random.default_rng(20261202)
    n = 1 << 16
    u = np.sort(g.random(n).get())
    assert np.abs(np.arange(1, n + 1) / n - u).max() < 1.63 / math.sqrt(n)  # KS, 1%
    z = np.sort(g.standard_normal(n, dtype=np.float32).get().astype(np.float64))
    cdf = 0.5 * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))
    assert np.abs(np.arange(1, n + 1) / n - cdf).max() < 1.63 / math.sqrt(n)
    k = g.integers(0, 6, n).get()
    counts = np.bincount(k, minlength=6)
    assert ((counts - n / 6) ** 2 / (n / 6)).sum() < 20.5  # chi-square, 5 degrees, 0.1%
    p = g.poisson(4.0, n).get().astype(np.float64)
    assert abs(p.mean() - 4.0) < 5 * math.sqrt(4.0 / n) and abs(p.var() / 4.0 - 1) < 0.05


def test_sizes_and_default_rng(device):
    g = hipkit.random.default_rng()
    assert g.random().shape == ()
    assert g.normal(size=(2, 3)).shape == (2, 3)
    assert g.integers(5, size=0).size == 0
    assert hipkit.random.default_rng(7).seed == 7


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda g: g.random(3, dtype=np.int32), TypeError),
        (lambda g: g.uniform(0, 1, 3, dtype=np.float16), TypeError),
        (lambda g: g.uniform(0, np.inf, 3), ValueError),
        (lambda g: g.normal(0, -1, 3), ValueError),
        (lambda g: g.integers(5, 5), ValueError),
        (lambda g: g.integers(0, 2**64), ValueError),
        (lambda g: g.integers(0, 9, dtype=np.int32), TypeError),
        (lambda g: g.poisson(0.0, 3), ValueError),
        (lambda g: g.random(-1), ValueError),
        (lambda g: g.random(out=np.zeros(3)), TypeError),
        (lambda g: hipkit.random.Generator(1, 2**64 - 1).random(2, dtype=np.float32), OverflowError),
    ],
)
def test_user_errors(device, call, error):
    with pytest.raises(error):
        call(hipkit.random.default_rng(1))
