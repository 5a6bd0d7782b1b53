"""The rest of HIP's memory API in programs built by ``hipkit cc``: memory pools and
stream-ordered allocation (reuse in stream order, across streams only through an event
or the pool's reuse attributes, high-water marks, trim), pitched allocations and 2-D /
3-D copies and sets against NumPy, what is known of every kind of allocation, managed
memory's advice and prefetches, registered host memory and the device limits, with
HIP's error for each misuse (the programs in tests/cc_memory/ check those themselves).
The same programs compile for NVIDIA (nvcc) where it is installed.

Nothing waits on time: the block that must stay in use sits behind a host function
that returns once the main thread opens it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_cc import build
from test_cc_nvidia import NVCC_MISSING

from hipkit import platforms

PROGRAMS = Path(__file__).parent / "cc_memory"
cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("memory")
    for name in ("pools", "mem2d", "attrs"):
        build(directory, "-O1", "-o", name, str(PROGRAMS / f"{name}.hip"))
    return directory


def run(program: Path, *args: str) -> str:
    done = subprocess.run([str(program), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@needs_cpu
def test_pools_reuse_blocks_in_stream_order_and_count_their_memory(programs):
    out = dict(line.split("=") for line in run(programs / "pools").split() if "=" in line)
    # Two blocks of 4,000 bytes (rounded to 4,096) were in use at once; both still
    # reserved (release threshold: all), neither in use after the frees.
    assert int(out["used_high"]) == int(out["used"]) == int(out["reserved"]) == 2 * 4096
    assert int(out["after_free_used_high"]) == 2 * 4096


@needs_cpu
@pytest.mark.parametrize(
    ("shape", "box"),
    [((37, 11, 5), (3, 2, 1, 29, 7, 3)), ((300, 4, 3), (0, 0, 0, 300, 4, 3)), ((1, 9, 2), (0, 5, 1, 1, 4, 1))],
)
def test_pitched_2d_and_3d_copies_and_sets_match_numpy(programs, tmp_path, shape, box):
    width, height, depth = shape
    x, y, z, w, h, d = box
    rng = np.random.default_rng()
    volume = rng.integers(0, 256, size=(depth, height, width), dtype=np.uint8)
    (tmp_path / "in.bin").write_bytes(volume.tobytes())
    run(programs / "mem2d", str(tmp_path / "in.bin"), str(tmp_path / "out.bin"),
        *map(str, (*shape, *box)))
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


@needs_cpu
def test_attributes_of_every_allocation_managed_advice_registration_and_limits(programs):
    assert run(programs / "attrs").strip() == "ok"


# Not yet: the NVIDIA headers lack hipPointerGetAttribute and HIP_POINTER_ATTRIBUTE_*,
# hipDrvPointerGetAttributes, hipMemGetAddressRange, hipMemPtrGetInfo, hipMemAllocPitch,
# hip_Memcpy2D/hipMemcpyParam2D, hipMemoryTypeUnregistered and hipPointerAttribute_t's
# isManaged, and CUDA 13's hipMemAdvise/hipMemPrefetchAsync/hipMemRangeGetAttribute take a
# cudaMemLocation where HIP takes a device: hand-written mappings in host.h are to come.
NVIDIA_GAPS = pytest.mark.xfail(strict=True, reason="NVIDIA mappings of these calls are missing")


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
@pytest.mark.parametrize("name", [pytest.param("pools", marks=NVIDIA_GAPS),
                                  pytest.param("mem2d", marks=NVIDIA_GAPS),
                                  pytest.param("attrs", marks=NVIDIA_GAPS)])
def test_the_programs_compile_for_nvidia(tmp_path, name):
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", name, str(PROGRAMS / f"{name}.hip"))
