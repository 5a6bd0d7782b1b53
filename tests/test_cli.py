"""The ``hipkit`` command line, run as ``python -m hipkit.cli`` in a subprocess
(as a user runs it), with hipkit importable as in this process."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import hipkit
from hipkit import config, platforms


def environment(**changes: str | None) -> dict[str, str]:
    """This process's environment with hipkit importable, the same cache, and ``changes``
    (None removes a variable)."""
    env = dict(os.environ)
    package_root = str(Path(hipkit.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["HIPKIT_CACHE_DIR"] = str(config.cache_dir())
    for name in ("HIPKIT_PLATFORM", "HIPKIT_CPU_WARP_SIZE"):
        env.pop(name, None)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def hipkit_cli(*args: str, **env: str | None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", *args],
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def cpu_entry(report: dict) -> dict:
    (entry,) = [p for p in report["platforms"] if p["name"] == "cpu"]
    return entry


def test_info_lists_the_cpu_platform():
    """CPU only: the CPU platform is always present, with rocminfo's facts
    labelled by hipDeviceProp_t's names, and the compiler it runs on."""
    done = hipkit_cli("info")
    assert done.returncode == 0, done.stderr
    assert "Platform: cpu" in done.stdout
    props = hipkit.Device(0, platform="cpu").properties
    rows = {}
    for line in done.stdout.splitlines():
        label, _, value = line.strip().partition("  ")
        rows[label] = value.strip()
    assert rows["Warp size (warpSize)"] == str(props.warpSize)
    assert rows["Compute units (multiProcessorCount)"] == str(props.multiProcessorCount)
    assert rows["Max threads per block (maxThreadsPerBlock)"] == "1024"
    assert rows["Clock (clockRate)"] == f"{props.clockRate / 1000:.0f} MHz"
    assert rows["PCI bus id"].startswith("- ")
    assert rows["ISA"].startswith(platform.machine())
    assert rows["C++ compiler:"].split()[0] in config.get("HIPKIT_CXX")


def test_info_json():
    """CPU only: the CPU device's properties, as the runtime reports them."""
    done = hipkit_cli("info", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["hipkit"] == hipkit.__version__
    cpu = cpu_entry(report)
    assert cpu["available"] is True
    assert cpu["versions"]["hipkit CPU runtime"] == hipkit.__version__
    (dev,) = cpu["devices"]
    props = hipkit.Device(0, platform="cpu").properties
    assert dev["warpSize"] == props.warpSize
    assert dev["maxThreadsPerBlock"] == props.maxThreadsPerBlock == 1024
    assert dev["sharedMemPerBlock"] == props.sharedMemPerBlock
    assert dev["multiProcessorCount"] == props.multiProcessorCount >= 1
    assert dev["pciBusId"] is None
    assert dev["isa"].startswith(f"{platform.machine()}-linux-gnu")
    assert 0 < dev["memFree"] <= dev["totalGlobalMem"]
    assert report["default"] in [p["name"] for p in report["platforms"] if p["available"]]


def test_info_with_an_absent_platform_forced():
    """HIPKIT_PLATFORM naming a platform that is not here: a non-zero exit and a
    message that names it, in both output forms."""
    if not platforms.status().get("nvidia", "absent"):
        pytest.skip("the nvidia platform is present here")
    text = hipkit_cli("info", HIPKIT_PLATFORM="nvidia")
    assert text.returncode != 0
    assert "nvidia" in text.stdout + text.stderr, text.stdout + text.stderr
    assert "Traceback" not in text.stderr
    done = hipkit_cli("info", "--json", HIPKIT_PLATFORM="nvidia")
    assert done.returncode != 0
    report = json.loads(done.stdout)
    assert report["default"] is None
    assert "nvidia" in report["error"]
    assert cpu_entry(report)["available"] is True  # the other platforms are still listed


def test_info_json_with_warp_size_32():
    """CPU only: HIPKIT_CPU_WARP_SIZE=32 changes the CPU device's warpSize."""
    done = hipkit_cli("info", "--json", HIPKIT_CPU_WARP_SIZE="32")
    assert done.returncode == 0, done.stderr
    (dev,) = cpu_entry(json.loads(done.stdout))["devices"]
    assert dev["warpSize"] == 32


WARP_CHILD = r"""
import sys
import numpy as np
import hipkit

SOURCE = '''
extern "C" __global__ void warp_ops(const int* x, unsigned long long* ballots, int* sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    unsigned long long b = __ballot(v > 0);
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down(v, offset);
    int lane = threadIdx.x % warpSize;
    if (lane == 0) {
        ballots[i / warpSize] = b;
        sums[i / warpSize] = v;
    }
}
'''
device = hipkit.Device(0, platform="cpu")
x = np.load(sys.argv[1])
mod = hipkit.compile(SOURCE, device=device)
warps = x.size // device.warp_size
ballots, sums = hipkit.zeros(warps, np.uint64, device=device), hipkit.zeros(warps, np.int32, device=device)
mod.get_function("warp_ops")[x.size // 128, 128](hipkit.to_device(x, device=device), ballots, sums, x.size)
np.savez(sys.argv[2], warp_size=device.warp_size, ballots=ballots.get(), sums=sums.get())
"""


def test_warp_size_32_kernel(rng, tmp_path):
    """CPU only: with HIPKIT_CPU_WARP_SIZE=32 (a fresh process, as the runtime
    reads it once), ``__ballot`` and ``__shfl_down`` act on 32-lane warps."""
    x = rng.integers(-50, 50, 512, dtype=np.int32)
    np.save(tmp_path / "x.npy", x)
    (tmp_path / "child.py").write_text(textwrap.dedent(WARP_CHILD))
    done = subprocess.run(
        [sys.executable, str(tmp_path / "child.py"), str(tmp_path / "x.npy"), str(tmp_path / "out.npz")],
        env=environment(HIPKIT_CPU_WARP_SIZE="32"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = np.load(tmp_path / "out.npz")
    assert result["warp_size"] == 32
    lanes = x.reshape(-1, 32)
    expected_ballots = ((lanes > 0).astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1)
    np.testing.assert_array_equal(result["ballots"], expected_ballots)
    np.testing.assert_array_equal(result["sums"], lanes.sum(axis=1))
