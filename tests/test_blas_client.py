"""The issue's real client: ``examples/blas/cublas_client.cu``, a CUDA program that uses
cuBLAS as CUDA programs do, translated with ``hipkit hipify``, built with ``hipkit cc
-lhipblas`` and run.

On the CPU it runs here and checks its own results (GEMMs with transposes, padded leading
dimensions and a kernel between them on one stream, a strided batch, half precision with
float accumulation, a triangular solve, a complex product, level-1 routines in both
pointer modes, a bad size); for NVIDIA the translation is built with nvcc and cuBLAS, and
run where a GPU is.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from test_cc import REPO, hipkit_command
from test_cc_nvidia import no_gpu_reason
from test_rocblas import needs_cpu, nvidia_compile_missing

from hipkit.cxx import lexer

CLIENT = REPO / "examples" / "blas" / "cublas_client.cu"

# What hipify must make of the client's cuBLAS: hipBLAS's names, hipBLAS 2's for the
# complex routines and GemmEx (what HIPIFY writes).
HIP_NAMES = {
    "hipblasCreate",
    "hipblasSetStream",
    "hipblasSetMatrix",
    "hipblasGetMatrix",
    "hipblasSgemm",
    "hipblasSgemmStridedBatched",
    "hipblasGemmEx_v2",
    "HIP_R_16F",
    "HIP_R_32F",
    "HIPBLAS_COMPUTE_32F",
    "HIPBLAS_GEMM_DEFAULT",
    "hipblasStrsm",
    "hipblasZgemm_v2",
    "hipDoubleComplex",
    "make_hipDoubleComplex",
    "hipCmul",
    "hipblasSaxpy",
    "hipblasSnrm2",
    "hipblasSdot",
    "hipblasSetPointerMode",
    "HIPBLAS_POINTER_MODE_DEVICE",
    "hipblasStatus_t",
    "HIPBLAS_STATUS_INVALID_VALUE",
    "__half",
    "__float2half",
}


@pytest.fixture(scope="module")
def hipified(tmp_path_factory) -> Path:
    """The client translated (client.hip), with hipify's report beside it."""
    root = tmp_path_factory.mktemp("blas_client")
    done = hipkit_command("hipify", str(CLIENT), "-o", "client.hip", "--report", "report.json", cwd=root)
    assert done.returncode == 0, done.stderr
    return root / "client.hip"


@pytest.fixture(scope="module")
def client(hipified) -> Path:
    """The translated client built for the CPU."""
    done = hipkit_command("cc", "-O1", "-o", "client", hipified.name, "-lhipblas", cwd=hipified.parent)
    assert done.returncode == 0, done.stderr
    return hipified.parent / "client"


def test_translation_uses_hipblas(hipified):
    """hipBLAS's names and headers, no cuBLAS or CUDA name left in code, nothing
    reported (comments and strings may still say cuBLAS)."""
    tokens = lexer.tokenize(hipified.read_text())
    identifiers = {t.text for t in tokens if t.kind == lexer.IDENT}
    assert HIP_NAMES <= identifiers
    left = sorted(i for i in identifiers if re.match(r"(?i:cublas|cuda)|make_cu|cu[A-Z]", i))
    assert left == []
    includes = [t.text for t in tokens if t.kind == lexer.DIRECTIVE and "include" in t.text]
    assert "#include <hipblas.h>" in includes
    assert "#include <hip/hip_complex.h>" in includes and "#include <hip/hip_fp16.h>" in includes
    assert not [i for i in includes if "cu" in i.split("<")[-1]]
    report = json.loads((hipified.parent / "report.json").read_text())
    assert report["errors"] == [] and report["diagnostics"] == []


@needs_cpu
def test_client_passes_on_the_cpu(client, rng):
    seed = int(rng.integers(1, 2**63))
    done = subprocess.run([str(client), str(seed)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_passed(done.stdout)


def assert_passed(stdout: str) -> None:
    """The client's nine checks passed, and it said so."""
    lines = stdout.splitlines()
    assert lines[-1] == "PASSED", stdout
    checks = [line for line in lines if line.endswith(" ok")]
    assert len(checks) == 9 and not [line for line in lines if "FAILED" in line], stdout


def test_client_on_nvidia(hipified, rng):
    """Compiled with nvcc and linked against cuBLAS (-lhipblas), host-side half
    conversions included; run where an NVIDIA GPU is, checking its own results."""
    missing = nvidia_compile_missing()
    if missing:
        pytest.skip(missing)
    done = hipkit_command(
        "cc", "--platform", "nvidia", "-o", "client-nvidia", hipified.name, "-lhipblas", cwd=hipified.parent
    )
    assert done.returncode == 0, done.stderr
    if no_gpu_reason():
        pytest.skip(f"built, not run: {no_gpu_reason()}")
    seed = int(rng.integers(1, 2**63))
    done = subprocess.run(
        [str(hipified.parent / "client-nvidia"), str(seed)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert_passed(done.stdout)
