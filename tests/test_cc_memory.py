"""The rest of HIP's memory API in programs built by ``hipkit cc``: memory pools and
stream-ordered allocation (reuse in stream order, across streams only through an event
or the pool's reuse attributes, high-water marks, trim), pitched allocations and 2-D /
3-D copies and sets against NumPy, what is known of every kind of allocation, managed
memory's advice and prefetches, registered host memory and the device limits, with
HIP's error for each misuse (the programs in tests/cc_memory/ check those themselves).
The same programs are built for NVIDIA (nvcc) where it is installed, and run where a
GPU is.

Nothing waits on time: the block that must stay in use sits behind a host function
that returns once the main thread opens it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_cc import build
from test_cc_nvidia import NVCC_MISSING, no_gpu_reason

from hipkit import platforms

PROGRAMS = Path(__file__).parent / "cc_memory"
cpu_absent = platforms.status()["cpu"]


@pytest.fixture(scope="module", params=["cpu", "nvidia"])
def programs(request, tmp_path_factory) -> Path:
    """The three programs, built for the CPU or NVIDIA (run where a GPU is)."""
    platform = request.param
    if platform == "cpu" and cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    if platform == "nvidia" and NVCC_MISSING:
        pytest.skip(NVCC_MISSING)
    directory = tmp_path_factory.mktemp(f"memory-{platform}")
    for name in ("pools", "mem2d", "attrs"):
        build(directory, "--platform", platform, "-O1", "-o", name, str(PROGRAMS / f"{name}.hip"))
    if platform == "nvidia" and no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    directory.joinpath("platform").write_text(platform)
    return directory


def run(program: Path, *args: str) -> str:
    done = subprocess.run([str(program), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_pools_reuse_blocks_in_stream_order_and_count_their_memory(programs):
    if (programs / "platform").read_text() == "nvidia":
        pytest.skip("the counts are the CPU's pool granularity (256 bytes); CUDA's pools count in 2 MiB")
    out = dict(line.split("=") for line in run(programs / "pools").split() if "=" in line)
    # Two blocks of 4,000 bytes (rounded to 4,096) were in use at once; both still
    # reserved (release threshold: all), neither in use after the frees.
    assert int(out["used_high"]) == int(out["used"]) == int(out["reserved"]) == 2 * 4096
    assert int(out["after_free_used_high"]) == 2 * 4096


@pytest.mark.parametrize(
    ("shape", "box"),
    [
        ((37, 11, 5), (3, 2, 1, 29, 7, 3)),
        ((300, 4, 3), (0, 0, 0, 300, 4, 3)),
        ((1, 9, 2), (0, 5, 1, 1, 4, 1)),
    ],
)
def test_pitched_2d_and_3d_copies_and_sets_match_numpy(programs, tmp_path, shape, box):
    width, height, depth = shape
    x, y, z, w, h, d = box
    rng = np.random.default_rng()
    volume = rng.integers(0, 256, size=(depth, height, width), dtype=np.uint8)
    (tmp_path / "in.bin").write_bytes(volume.tobytes())
    run(programs / "mem2d", str(tmp_path / "in.bin"), str(tmp_path / "out.bin"), *map(str, (*shape, *box)))
    out = np.frombuffer((tmp_path / "out.bin").read_bytes(), np.uint8).reshape(3, depth, height, width)
    copied_2d = np.zeros((height, width), np.uint8)
    copied_2d[y : y + h, x : x + w] = volume[0, y : y + h, x : x + w]
    np.testing.assert_array_equal(out[0, 0], copied_2d)
    copied_3d = np.zeros_like(volume)
    copied_3d[z : z + d, y : y + h, x : x + w] = volume[z : z + d, y : y + h, x : x + w]
    np.testing.assert_array_equal(out[1], copied_3d)
    set_3d = copied_3d.copy()
    set_3d[z : z + d, y : y + h, x : x + w] = 0x5A
    np.testing.assert_array_equal(out[2], set_3d)


def test_attributes_of_every_allocation_managed_advice_registration_and_limits(programs):
    if (programs / "platform").read_text() == "nvidia":
        pytest.skip("built, not run: its ranges, limits and errors are the CPU's allocator's, not CUDA's")
    assert run(programs / "attrs").strip() == "ok"
