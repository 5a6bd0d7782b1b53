"""``__half`` in a program's host code: the conversions CUDA and HIP declare
``__host__ __device__`` (a program fills its half inputs on the host), on the CPU and
on NVIDIA, where host code converts in software and device code with the GPU's
instructions.

The program reads float32 values on stdin and writes, for each, ``__float2half``,
``__float2half_rz``/``_ru``/``_rd`` and ``__double2half`` of it as a double, then
``__half2float`` of every half bit pattern; NumPy's float16 is the reference, and the
directed roundings are the neighbours of NumPy's nearest-even result.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from test_cc import build, write
from test_cc_nvidia import NVCC_MISSING, no_gpu_reason

PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <cstdio>
#include <vector>

static unsigned short bits(__half h) { return static_cast<__half_raw>(h).x; }

int main() {
  std::vector<float> in;
  float f;
  while (std::fread(&f, sizeof f, 1, stdin) == 1) in.push_back(f);
  std::vector<unsigned short> out;
  for (float v : in) {
    out.push_back(bits(__float2half(v)));
    out.push_back(bits(__float2half_rz(v)));
    out.push_back(bits(__float2half_ru(v)));
    out.push_back(bits(__float2half_rd(v)));
    out.push_back(bits(__double2half(static_cast<double>(v))));
  }
  std::fwrite(out.data(), sizeof out[0], out.size(), stdout);
  std::vector<float> floats;
  for (unsigned p = 0; p < 65536; ++p)
    floats.push_back(__half2float(__half_raw{static_cast<unsigned short>(p)}));
  __half2 pair = __floats2half2_rn(1.5f, -2.25f);
  floats.push_back(__low2float(pair) + __high2float(pair) + __half2float(__half(3)));
  std::fwrite(floats.data(), sizeof floats[0], floats.size(), stdout);
  return 0;
}
"""

PLATFORMS = [
    pytest.param([], id="cpu"),
    pytest.param(
        ["--platform", "nvidia", "--offload-arch=sm_90"],
        id="nvidia",
        marks=pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING)),
    ),
]


def directed(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Toward zero, up and down, from NumPy's nearest even and its neighbours."""
    with np.errstate(over="ignore"):
        near = values.astype(np.float16)
        above, below = np.nextafter(near, np.float16(np.inf)), np.nextafter(near, np.float16(-np.inf))
    wide = near.astype(np.float32)
    finite = np.isfinite(values)
    up = np.where(finite & (wide < values), above, near)
    down = np.where(finite & (wide > values), below, near)
    # Past the largest half, directed rounding stops at it where it rounds inward.
    top = np.float16(65504)
    up = np.where(finite & (values < -65504), -top, up)
    down = np.where(finite & (values > 65504), top, down)
    zero = np.where(values > 0, down, np.where(values < 0, up, near))
    return zero, up, down


def test_directed_reference_is_sane():
    """The reference itself: 1 + 2^-12 lies between two halves."""
    zero, up, down = directed(np.array([1 + 2**-12, -(1 + 2**-12)], np.float32))
    assert zero.tolist() == [1.0, -1.0] and up.tolist() == [1.0009765625, -1.0]
    assert down.tolist() == [1.0, -1.0009765625]


@pytest.mark.parametrize("flags", PLATFORMS)
def test_host_conversions_match_numpy(tmp_path, rng, flags):
    write(tmp_path, "half.hip", PROGRAM)
    build(tmp_path, *flags, "-o", "half", "half.hip")
    if flags and no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    # Half's whole range and past it, subnormals, exact halves, ties, and specials.
    values = np.concatenate(
        [
            rng.uniform(-7e4, 7e4, 2000),
            np.sign(rng.standard_normal(2000)) * np.exp2(rng.uniform(-27, 17, 2000)),
            np.arange(-2048, 2049) + 0.5,
            [0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65520, 2**-24, 2**-25, 3 * 2**-26],
        ]
    ).astype(np.float32)
    done = subprocess.run([str(tmp_path / "half")], input=values.tobytes(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    halves = np.frombuffer(done.stdout[: values.size * 10], np.uint16).reshape(-1, 5)
    floats = np.frombuffer(done.stdout[values.size * 10 :], np.float32)
    finite = ~np.isnan(values)
    with np.errstate(over="ignore"):
        near = values.astype(np.float16).view(np.uint16)
    for column, want, name in zip(
        range(5),
        (near, *(r.view(np.uint16) for r in directed(values)), near),
        ("rn", "rz", "ru", "rd", "double"),
        strict=True,
    ):
        got = halves[:, column]
        assert np.array_equal(got[finite], want[finite]), name
        assert np.all((got[~finite] & 0x7E00) == 0x7E00), name  # quiet NaN
    patterns = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
    number = ~np.isnan(patterns)
    assert np.array_equal(floats[:65536][number].view(np.uint32), patterns[number].view(np.uint32))
    assert np.isnan(floats[:65536][~number]).all()
    assert floats[65536] == 1.5 - 2.25 + 3
