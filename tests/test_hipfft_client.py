"""A cuFFT program of our own, ``examples/fft/cufft_client.cu`` (1-D batched C2C out of
and in place with a kernel between on one stream, 2-D D2Z and Z2D, an advanced layout,
a bad size), translated with ``hipkit hipify``, built with ``hipkit cc -lhipfft`` and
run: on the CPU here, on hipkit's FFT engine; for NVIDIA built with nvcc for sm_90 on
cuFFT through hipkit's hipFFT-on-cuFFT header, and run where a GPU is.  A hipFFT
program of hipfftGetVersion and hipfftGetProperty, their NULL and unknown cases too,
built and run alike."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from test_cc import REPO, build, hipkit_command, program_lines, write
from test_cc_nvidia import no_gpu_reason
from test_rocblas import needs_cpu

from hipkit.cxx import lexer
from hipkit.platforms.base.fft import HIPFFT_VERSION
from hipkit.platforms.nvidia import toolkit
from hipkit.platforms.nvidia.toolchain import NvidiaToolchain

CLIENT = REPO / "examples" / "fft" / "cufft_client.cu"
HIP_NAMES = {
    "hipfftHandle",
    "hipfftPlan1d",
    "hipfftPlan2d",
    "hipfftPlanMany",
    "hipfftSetStream",
    "hipfftExecC2C",
    "hipfftExecD2Z",
    "hipfftExecZ2D",
    "hipfftExecZ2Z",
    "hipfftDestroy",
    "HIPFFT_C2C",
    "HIPFFT_D2Z",
    "HIPFFT_Z2D",
    "HIPFFT_Z2Z",
    "HIPFFT_FORWARD",
    "HIPFFT_BACKWARD",
    "HIPFFT_INVALID_SIZE",
    "hipfftComplex",
    "hipfftDoubleComplex",
    "hipfftResult",
}
CHECKS = 6


@pytest.fixture(scope="module")
def hipified(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fft_client")
    done = hipkit_command("hipify", str(CLIENT), "-o", "client.hip", "--report", "report.json", cwd=root)
    assert done.returncode == 0, done.stderr
    return root / "client.hip"


def test_translation_uses_hipfft(hipified):
    """hipFFT's names and header, no cuFFT or CUDA name left in code, nothing reported."""
    tokens = lexer.tokenize(hipified.read_text())
    identifiers = {t.text for t in tokens if t.kind == lexer.IDENT}
    assert HIP_NAMES <= identifiers
    left = sorted(i for i in identifiers if re.match(r"(?i:cufft|cuda)|make_cu|cu[A-Z]", i))
    assert left == []
    includes = [t.text for t in tokens if t.kind == lexer.DIRECTIVE and "include" in t.text]
    assert "#include <hipfft/hipfft.h>" in includes
    report = json.loads((hipified.parent / "report.json").read_text())
    assert report["errors"] == [] and report["diagnostics"] == []


def assert_passed(stdout: str) -> None:
    lines = stdout.splitlines()
    assert lines[-1] == "PASSED", stdout
    assert len([line for line in lines if line.endswith(" ok")]) == CHECKS, stdout


@needs_cpu
def test_client_passes_on_the_cpu(hipified, rng):
    done = hipkit_command("cc", "-O1", "-o", "client", hipified.name, "-lhipfft", cwd=hipified.parent)
    assert done.returncode == 0, done.stderr
    seed = int(rng.integers(1, 2**63))
    done = subprocess.run(
        [str(hipified.parent / "client"), str(seed)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert_passed(done.stdout)


def test_client_on_nvidia(hipified, rng):
    """Compiled with nvcc for sm_90 and linked against cuFFT (-lhipfft); run where an
    NVIDIA GPU is."""
    missing = NvidiaToolchain.missing() or ("" if toolkit.find_cufft() else toolkit.CUFFT_MISSING)
    if missing:
        pytest.skip(missing)
    flags = ["--platform", "nvidia", "--offload-arch=sm_90", "-o", "client-nvidia", "-lhipfft"]
    done = hipkit_command("cc", *flags, hipified.name, cwd=hipified.parent)
    assert done.returncode == 0, done.stderr
    if no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    seed = int(rng.integers(1, 2**63))
    done = subprocess.run(
        [str(hipified.parent / "client-nvidia"), str(seed)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert_passed(done.stdout)


VERSION = r"""
#include <hipfft/hipfft.h>
#include <cstdio>

int main() {
  int version = -1, major = -1, minor = -1, patch = -1, unused = -1;
  printf("%d %d %d %d\n", hipfftGetVersion(&version), hipfftGetProperty(HIPFFT_MAJOR_VERSION, &major),
         hipfftGetProperty(HIPFFT_MINOR_VERSION, &minor), hipfftGetProperty(HIPFFT_PATCH_LEVEL, &patch));
  printf("%d %d %d %d\n", version, major, minor, patch);
  printf("%d %d %d\n", hipfftGetVersion(nullptr), hipfftGetProperty(HIPFFT_PATCH_LEVEL, nullptr),
         hipfftGetProperty(static_cast<hipfftLibraryPropertyType>(3), &unused));
  printf("%d.%d.%d\n", hipfftVersionMajor, hipfftVersionMinor, hipfftVersionPatch);
  return 0;
}
"""
HEADER_VERSION = ".".join(map(str, HIPFFT_VERSION))


@needs_cpu
def test_version_program_on_the_cpu(tmp_path):
    """The engine answers the hipFFT API hipkit follows, the header's version, in
    hipFFT's encoding (10021 for 1.0.21); NULL and an unknown property:
    HIPFFT_INVALID_VALUE."""
    write(tmp_path, "version.hip", VERSION)
    build(tmp_path, "-o", "version", "version.hip", "-lhipfft")
    major, minor, patch = HIPFFT_VERSION
    number = major * 10000 + minor * 100 + patch
    want = ["0 0 0 0", f"{number} {major} {minor} {patch}", "4 4 4", HEADER_VERSION]
    assert program_lines(tmp_path / "version") == want


def test_version_program_on_nvidia(tmp_path):
    """On cuFFT: cuFFT's version, its number cuFFT's (major * 1000 + minor * 100 +
    patch), the checks ROCm's; built for sm_90, run where an NVIDIA GPU is."""
    missing = NvidiaToolchain.missing() or ("" if toolkit.find_cufft() else toolkit.CUFFT_MISSING)
    if missing:
        pytest.skip(missing)
    write(tmp_path, "version.hip", VERSION)
    flags = ["--platform", "nvidia", "--offload-arch=sm_90", "-o", "version", "-lhipfft"]
    build(tmp_path, *flags, "version.hip")
    if no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    done = subprocess.run([str(tmp_path / "version")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    codes, numbers, bad, header = done.stdout.splitlines()
    version, major, minor, patch = map(int, numbers.split())
    assert (codes, bad, header) == ("0 0 0 0", "4 4 4", HEADER_VERSION)
    assert version == major * 1000 + minor * 100 + patch
