"""Every header of ROCm's include/hip/ is in each platform's header set (CPU kernels
and programs, NVIDIA programs under nvcc, NVIDIA kernels under NVRTC): each compiles
alone, or stops at hipkit's own #error saying what hipkit lacks, and none is taken
from a system ROCm install in /usr/include (whose headers stop at "Must define
exactly one of __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_cc_nvidia import NVCC_MISSING

import hipkit
from hipkit import platforms
from hipkit.platforms.base.options import parse_args

# ROCm 5.2's include/hip/ (Debian's /usr/include/hip) and what current ROCm adds.
# hip_cooperative_groups.h comes with cooperative groups.
HEADERS = (
    "channel_descriptor.h",
    "device_functions.h",
    "driver_types.h",
    "hip_bf16.h",
    "hip_bfloat16.h",
    "hip_common.h",
    "hip_complex.h",
    "hip_deprecated.h",
    "hip_ext.h",
    "hip_fp16.h",
    "hip_fp8.h",
    "hip_hcc.h",
    "hip_math_constants.h",
    "hip_profile.h",
    "hip_runtime.h",
    "hip_runtime_api.h",
    "hip_texture_types.h",
    "hip_vector_types.h",
    "hip_version.h",
    "hiprtc.h",
    "library_types.h",
    "math_functions.h",
    "surface_types.h",
    "texture_types.h",
)
ROCM_HEADERS = "/usr/include/hip/"
PROGRAM = "#include <hip/{}>\nint main() {{ return 0; }}\n"
KERNEL = '#include <hip/{}>\nextern "C" __global__ void k(int* p) {{ p[threadIdx.x] = 1; }}\n'

cpu_absent = platforms.status()["cpu"]


def nvrtc_missing() -> str:
    from hipkit.platforms.nvidia import compiler

    return compiler.unavailable_reason() or ""


def hipkits_own_error(message: str) -> None:
    """A header hipkit lacks stops with hipkit's #error, not ROCm's or a missing file."""
    assert "hipkit" in message and "#error" in message, message
    assert "__HIP_PLATFORM_AMD__" not in message and "No such file" not in message, message


def test_rocm_list_is_covered():
    """The list above holds every header of the system's ROCm include/hip/, where one is."""
    if not Path(ROCM_HEADERS).is_dir():
        pytest.skip("no ROCm headers in /usr/include/hip")
    system = {p.name for p in Path(ROCM_HEADERS).glob("*.h")} - {"hip_cooperative_groups.h"}
    assert system <= set(HEADERS), system - set(HEADERS)


@pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")
@pytest.mark.parametrize("header", HEADERS)
def test_cpu_program_headers(tmp_path, header):
    """hipkit cc's CPU compile step: the unit reads hipkit's header, never ROCm's."""
    from hipkit.platforms.cpu.toolchain import CpuToolchain

    source = tmp_path / "unit.hip"
    source.write_text(PROGRAM.format(header))
    options = parse_args(["-c", str(source)])
    try:
        unit = CpuToolchain().compile(str(source), options)
    except hipkit.CompileError as error:
        hipkits_own_error(str(error))
        return
    read = [path for path in unit.dependencies if f"/hip/{header}" in path]
    assert read and all("/hipkit/platforms/cpu/include/hip/" in path for path in read), read
    assert not [path for path in unit.dependencies if path.startswith(ROCM_HEADERS)]


@pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")
@pytest.mark.parametrize("header", HEADERS)
def test_cpu_kernel_headers(header):
    """Kernel sources compiled from Python for the CPU (the same folder as programs:
    the program test above checks which file each name finds)."""
    try:
        hipkit.compile(KERNEL.format(header), target="cpu")
    except hipkit.CompileError as error:
        hipkits_own_error(str(error))


@pytest.mark.skipif(bool(NVCC_MISSING), reason=NVCC_MISSING or "")
@pytest.mark.parametrize("header", HEADERS)
def test_nvidia_program_headers(tmp_path, header):
    """hipkit cc --platform nvidia: nvcc preprocesses hipkit's header, never ROCm's
    (the line markers name every file read)."""
    from hipkit.platforms.nvidia.toolchain import NvidiaToolchain

    source = tmp_path / "unit.hip"
    source.write_text(PROGRAM.format(header))
    toolchain = NvidiaToolchain()
    flags = toolchain.compile_flags(parse_args(["--offload-arch=sm_90", "-c", str(source)]))
    done = subprocess.run(
        [toolchain.compiler, *flags, *toolchain.preprocess_only, *toolchain.source_language, str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        hipkits_own_error(done.stderr)
        return
    assert f"/program/hip/{header}" in done.stdout
    assert f'"{ROCM_HEADERS}' not in done.stdout


@pytest.mark.skipif(bool(nvrtc_missing()), reason=nvrtc_missing())
@pytest.mark.parametrize("header", HEADERS)
def test_nvidia_kernel_headers(header):
    """Kernel sources compiled by NVRTC (which searches no system folder: a header
    hipkit lacked would not be found at all)."""
    try:
        hipkit.compile(KERNEL.format(header), target="sm_90")
    except hipkit.CompileError as error:
        hipkits_own_error(str(error))
