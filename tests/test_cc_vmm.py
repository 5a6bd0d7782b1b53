"""Virtual memory management in programs built by ``hipkit cc``
(tests/native_programs/vmm.cpp): reserve, create, map, set access, export to and
import from another process, and every error users can provoke, with HIP's codes.
On the CPU it runs here; for NVIDIA (the CUDA driver's cuMem* calls) it is built here
and runs where a GPU is."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_cc import build
from test_cc_nvidia import NVCC_MISSING, no_gpu_reason

SOURCE = Path(__file__).with_name("native_programs") / "vmm.cpp"

ERRORS = {
    "error odd size": "hipErrorInvalidValue",
    "error flags": "hipErrorInvalidValue",
    "error map over": "hipErrorInvalidValue",
    "error map outside": "hipErrorInvalidValue",
    "error map past end": "hipErrorInvalidValue",
    "error partial access": "hipErrorInvalidValue",
    "error bad device": "hipErrorInvalidDevice",
    "error win32": "hipErrorNotSupported",
    "error not exportable": "hipErrorInvalidValue",
    "error import junk": "hipErrorInvalidValue",
    "error release twice": "hipErrorInvalidValue",
    "error unmap part": "hipErrorInvalidValue",
    "error stale handle": "hipErrorInvalidValue",
    "error free part": "hipErrorInvalidValue",
    "no access": "hipErrorIllegalAddress",
}

CPU_ONLY = ("error release twice", "error stale handle")
# Where CUDA's driver answers otherwise (seen on the H200): a nonzero offset is not
# supported there, and it words a bad device and a Win32 handle as invalid values.
CUDA = {
    "error map past end": "hipErrorNotSupported",
    "error bad device": "hipErrorInvalidValue",
    "error win32": "hipErrorInvalidValue",
}

PLATFORMS = [
    pytest.param([], id="cpu"),
    pytest.param(
        ["--platform", "nvidia", "--offload-arch=sm_90"],
        id="nvidia",
        marks=pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING)),
    ),
]


@pytest.mark.parametrize("flags", PLATFORMS)
def test_mapped_allocations_across_processes(tmp_path, rng, flags):
    build(tmp_path, *flags, "-o", "vmm", str(SOURCE))
    if flags and no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    # The program reads as many floats as four minimum granules hold: write plenty.
    data = rng.standard_normal(1 << 22).astype(np.float32)
    data.tofile(tmp_path / "in.bin")
    done = subprocess.run([str(tmp_path / "vmm")], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = dict(line.split("|", 1) for line in done.stdout.splitlines())
    minimum, recommended = (int(v) for v in lines["granularity"].split("|"))
    assert minimum > 0 and recommended % minimum == 0 and lines["aligned"] == "1"
    assert (lines["access before"], lines["access after"]) == ("0", "3")
    assert lines["retained"] == "1" and lines["properties"] == "1|1|1|0"
    assert lines["child"] == "0"
    n = 4 * minimum // 4
    expected = data[:n] * 3
    expected[n // 2 :] *= 2  # the second allocation, doubled by the other process
    np.testing.assert_array_equal(np.fromfile(tmp_path / "out.bin", np.float32), expected)
    # CUDA does not check released handles: those two misuses are the CPU's only.
    expected = ERRORS if not flags else {**{k: v for k, v in ERRORS.items() if k not in CPU_ONLY}, **CUDA}
    assert {k: lines.get(k) for k in expected} == expected, done.stdout
    if not flags:  # hipMemMapArrayAsync: the CPU's arrays are not sparse
        assert lines["error arrays"] == "hipErrorNotSupported"
