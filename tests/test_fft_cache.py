"""hipkit.fft's plan cache (hits, misses, eviction by count and by memory, clearing,
one cache per device) and hipkit.fft's errors, on every platform present."""

from __future__ import annotations

import numpy as np
import pytest
from test_fft import _provider, close, random  # noqa: F401  (_provider: autouse)

import hipkit
from hipkit import fft


@pytest.fixture
def cache(device):
    cache = fft.get_plan_cache()
    size, memsize = cache.size, cache.memsize
    cache.clear()
    yield cache
    cache.set_size(size)
    cache.set_memsize(memsize)
    cache.clear()


def test_hits_and_misses(cache, rng):
    """A plan is made once for a shape, type, layout, scale and stream; the same call
    again is a hit, with the same result."""
    x = hipkit.to_device(random(rng, (4, 64), np.complex64))
    first = fft.fft(x).get()
    assert (cache.info()["misses"], cache.info()["hits"], len(cache)) == (1, 0, 1)
    for _ in range(3):
        assert np.array_equal(fft.fft(x).get(), first)
    assert (cache.info()["misses"], cache.info()["hits"]) == (1, 3)
    fft.ifft(x)  # another scale factor: another plan
    fft.fft(hipkit.to_device(random(rng, (4, 64), np.complex128)))  # another type
    fft.fft(x[:, :32])  # another layout (a slice read in place)
    fft.fft(x, stream=hipkit.Stream())  # another stream
    info = cache.info()
    assert info["misses"] == 5 and info["plans"] == 5 and len(info["keys"]) == 5


def test_eviction_by_count(cache, rng):
    """With room for two plans, the least recently used goes first."""
    cache.set_size(2)
    a, b, c = (hipkit.to_device(random(rng, (2, n), np.complex128)) for n in (16, 24, 40))
    fft.fft(a)
    fft.fft(b)
    fft.fft(a)  # a is now the most recently used
    fft.fft(c)  # evicts b
    assert len(cache) == 2
    fft.fft(a)
    assert cache.info()["hits"] == 2
    fft.fft(b)  # made again
    assert cache.info()["misses"] == 4
    close(fft.fft(b), np.fft.fft(b.get()))
    cache.set_size(0)  # no cache: every call makes its plan and destroys it
    assert len(cache) == 0
    close(fft.fft(c), np.fft.fft(c.get()))
    assert len(cache) == 0


def test_eviction_by_memory(cache, rng, device):
    """Plans are kept up to memsize bytes of work areas; one larger alone is used and
    destroyed."""
    x = hipkit.to_device(random(rng, (64, 1024), np.complex64))
    fft.fft(x)
    work = cache.info()["memory"]
    if work == 0:
        cache.set_memsize(0)  # plans without a work area always fit
        fft.ifft(x)
        assert len(cache) == 2
        pytest.skip(f"{device.platform.name}'s plans take no work area: nothing to evict by memory")
    cache.set_memsize(work)
    assert len(cache) == 1
    y = hipkit.to_device(random(rng, (64, 1024), np.complex128))
    fft.fft(y)  # its work area does not fit beside x's plan: that goes
    assert len(cache) <= 1 and cache.memory <= work
    cache.set_memsize(1)
    assert len(cache) == 0
    close(fft.fft(x), np.fft.fft(x.get()))
    assert len(cache) == 0


def test_clear_info_and_settings(cache, rng, capsys):
    x = hipkit.to_device(random(rng, (3, 30), np.float64))
    fft.rfft(x)
    fft.irfft(fft.rfft(x))
    assert len(cache) == 2
    cache.show_info()
    assert "plans=2" in capsys.readouterr().out
    cache.clear()
    assert len(cache) == 0 and cache.info()["hits"] == 0
    with pytest.raises(ValueError, match="size"):
        cache.set_size(-1)
    with pytest.raises(ValueError, match="memsize"):
        cache.set_memsize(-2)
    assert fft.get_plan_cache() is cache


# ------------------------------------------------------------------ errors


def test_errors(device, rng):
    """NumPy's errors: ValueError for a bad axis, repeated axes, len(s) != len(axes),
    a length below 1, an unknown norm; TypeError for a dtype not served or what is no
    array."""
    x = hipkit.to_device(random(rng, (4, 8), np.complex64))
    with pytest.raises(ValueError, match="out of bounds"):
        fft.fft(x, axis=2)
    with pytest.raises(ValueError, match="out of bounds"):
        fft.fftn(x, axes=(0, -3))
    with pytest.raises(ValueError, match="repeated"):
        fft.fftn(x, axes=(1, 1))
    with pytest.raises(ValueError, match="s has 1"):
        fft.fftn(x, s=(4,), axes=(0, 1))
    with pytest.raises(ValueError, match="invalid number of data points"):
        fft.fft(x, n=0)
    with pytest.raises(ValueError, match="invalid number of data points"):
        fft.irfft(hipkit.to_device(random(rng, (1,), np.complex64)))  # 2 * (1 - 1) points
    with pytest.raises(ValueError, match="norm"):
        fft.fft(x, norm="unitary")
    with pytest.raises(TypeError, match="int32"):
        fft.fft(hipkit.to_device(np.arange(8, dtype=np.int32)))
    with pytest.raises(TypeError, match="complex64"):
        fft.rfft(x)  # rfft of complex input
    with pytest.raises(TypeError, match="DeviceArray"):
        fft.fft([1.0, 2.0])
    with pytest.raises(ValueError, match="out of bounds"):
        fft.fftshift(x, axes=5)
    with pytest.raises(ValueError, match="n must be"):
        fft.fftfreq(0)


def test_a_device_reset_remakes_the_plan(cache, rng, device):
    """A device reset takes the plans (and hipkit.fft's kernels) with it: the next call
    makes them again, and the cache counts a miss."""
    x = random(rng, (4, 48), np.complex128)
    fft.fft(hipkit.to_device(x))
    fft.fft(hipkit.to_device(x), n=64)  # padding: the gather kernel
    device.reset()
    close(fft.fft(hipkit.to_device(x)), np.fft.fft(x))
    close(fft.fft(hipkit.to_device(x), n=64), np.fft.fft(x, n=64))
    assert cache.info()["misses"] == 4 and len(cache) == 2
