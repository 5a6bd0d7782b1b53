"""Test parametrization: every test that takes ``device`` runs on each platform
present (PyOpenCL's pattern), and on the CPU once per executor: "cpu" (loops,
split at barriers) and "cpu-fiber" (every barrier kernel on fibers).  Absent
platforms skip with the reason.  HIPKIT_TEST_PLATFORMS=cpu,nvidia narrows the set.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import hipkit
from hipkit import platforms

VARIANTS = ("cpu", "cpu-fiber", "nvidia", "amd")


def _selected() -> list[str]:
    """The variants of the platforms this hipkit has (present or not: an absent
    one skips with its reason), narrowed by HIPKIT_TEST_PLATFORMS."""
    wanted = os.environ.get("HIPKIT_TEST_PLATFORMS", "").split(",")
    known = platforms.known()
    return [
        v
        for v in VARIANTS
        if v.split("-")[0] in known and (wanted == [""] or v in wanted or v.split("-")[0] in wanted)
    ]


@pytest.fixture(params=_selected())
def device(request, monkeypatch) -> hipkit.Device:
    """A device of each platform present; kernels compiled in the test use it."""
    variant = request.param
    name = variant.split("-")[0]
    reason = platforms.status()[name]
    if reason:
        pytest.skip(f"{name} platform absent: {reason}")
    monkeypatch.setenv("HIPKIT_CPU_EXEC", "fiber" if variant == "cpu-fiber" else "auto")
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
