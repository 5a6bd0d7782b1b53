"""Test parametrization: every test that takes ``device`` runs on each platform of
hipkit's registry (PyOpenCL's pattern), and once more per variant a platform
declares (its ``Faces.variants``: on the CPU "cpu-fiber", every barrier kernel on
fibers).  Absent platforms skip with the reason.  HIPKIT_TEST_PLATFORMS=cpu,nvidia
narrows the set.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import hipkit
from hipkit import platforms


def variants() -> list[str]:
    """The test variants of the registered platforms (present or not: an absent
    one skips with its reason), in the registry's order, narrowed by
    HIPKIT_TEST_PLATFORMS: "name" for each platform, "name-variant" for each
    variant it declares."""
    wanted = os.environ.get("HIPKIT_TEST_PLATFORMS", "").split(",")
    found = []
    for name in platforms.known():
        for variant in (name, *(f"{name}-{v}" for v in platforms.faces(name).variants)):
            if wanted == [""] or variant in wanted or name in wanted:
                found.append(variant)
    return found


def _parametrized_by_the_test(metafunc: pytest.Metafunc, name: str) -> bool:
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if name in ([n.strip() for n in names.split(",")] if isinstance(names, str) else names):
            return True
    return False


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # The registry is read when the tests are collected, so that a platform
    # registered by then (the fake one of test_platforms.py) is parametrized too.
    if "device" in metafunc.fixturenames and not _parametrized_by_the_test(metafunc, "device"):
        metafunc.parametrize("device", variants(), indirect=True)


@pytest.fixture
def device(request, monkeypatch) -> hipkit.Device:
    """A device of each platform present; kernels compiled in the test use it."""
    name, _, variant = request.param.partition("-")
    reason = platforms.status()[name]
    if reason:
        pytest.skip(f"{name} platform absent: {reason}")
    declared = platforms.faces(name).variants
    for other in declared.values():  # the plain variant runs as the platform's default
        for key in other:
            monkeypatch.delenv(key, raising=False)
    for key, value in declared.get(variant, {}).items():
        monkeypatch.setenv(key, value)
    dev = hipkit.Device(0, platform=name)
    with dev:
        yield dev
    dev.synchronize()


@pytest.fixture
def rng(request) -> np.random.Generator:
    """Fresh random data for each test (the seed is printed on failure)."""
    seed = np.random.SeedSequence().entropy % (2**32)
    request.node.user_properties.append(("seed", seed))
    return np.random.default_rng(seed)


@pytest.fixture
def memory_uncached(request):
    """For tests that count the runtime's calls: the device's memory pool caches
    nothing during the test, so that every array's memory is one malloc and one free
    of the platform, whatever earlier tests left in the pool."""
    if "device" not in request.fixturenames:
        yield
        return
    pool = hipkit.get_default_memory_pool(request.getfixturevalue("device"))
    caching = pool.caching
    pool.set_caching(False)
    yield
    pool.set_caching(caching)
