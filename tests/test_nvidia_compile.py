"""Compiling for NVIDIA GPUs with NVRTC: no GPU needed, so these run anywhere
NVRTC is installed (``pip install 'hipkit[nvidia]'``).

What only NVIDIA's compile has: the cubin, the sm_XX targets, NVRTC's
options and diagnostics.  What it shares with the AMD platform (the kernel
table, the module container, the dialect, errors, the cache) is tested for
both in test_gpu_compile.py."""

from __future__ import annotations

import struct
import uuid

import pytest
from gpu_helpers import BROKEN, NVIDIA, SCALE

from hipkit import CompileError
from hipkit.platforms.base.platform import Target
from hipkit.platforms.nvidia.compiler import normalize_options, parse_arch, unavailable_reason

REASON = unavailable_reason()
pytestmark = pytest.mark.skipif(bool(REASON), reason=f"NVRTC is not usable here: {REASON}")
SM90 = NVIDIA.target


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cubin_for_the_target(arch):
    binary = NVIDIA(SCALE, Target("nvidia", arch, 32))
    assert binary.target == Target("nvidia", arch, 32)
    image = binary.image
    assert image[:4] == b"\x7fELF" and image[4] == 2  # ELF64
    assert struct.unpack_from("<H", image, 0x12)[0] == 190  # EM_CUDA
    assert (struct.unpack_from("<I", image, 0x30)[0] >> 8) & 0xFF == int(arch[3:])  # the SM in e_flags
    assert binary.registered == (("scale", "gpu"),)


def test_an_empty_log_leaves_the_bytes_python_shares_alone():
    """NVRTC writes an empty log as one NUL.  Written into ``b" " * 1``, which is
    CPython's one shared b" ", it made every " " that Python encoded later a NUL."""
    NVIDIA(SCALE + f"\n__device__ int unique_{uuid.uuid4().hex};\n")  # compiled anew, not from the cache
    # By value: every one-byte bytes object is the shared one, compared to itself.
    assert list(b" ") == [32] and list(b" " * 1) == [32] and list(bytes(1)) == [0]


def test_parse_arch():
    assert parse_arch("sm_90") == SM90
    assert parse_arch("sm_100a") == Target("nvidia", "sm_100a", 32)
    assert parse_arch("gfx90a") is None and parse_arch("cpu") is None


def test_unsupported_arch_says_which_nvrtc_has():
    with pytest.raises(CompileError, match=r"cannot compile for sm_35 .*sm_90"):
        NVIDIA(SCALE, Target("nvidia", "sm_35", 32))


def test_compile_error_in_nvrtc_words():
    """NVRTC's ``file(line): error`` comes as ``file:line: error``."""
    with pytest.raises(CompileError) as info:
        NVIDIA(BROKEN, name="my_kernel.hip")
    assert 'my_kernel.hip:4: error: identifier "undeclared_name" is undefined' in info.value.log


def test_option_mapping():
    given = ["-DX=1", "-D", "Y", "-UZ", "-I", "inc", "-std=c++20", "-O2", "-O", "-g", "-G", "-lineinfo"]
    given += ["--use_fast_math", "-ffast-math", "-w", "--offload-arch=gfx90a", "-fgpu-rdc", "-arch", "sm_80"]
    assert normalize_options(given) == [
        "-DX=1",
        "-DY",
        "-UZ",
        "-Iinc",
        "--std=c++20",
        "--ptxas-options=-O2",
        "--device-debug",
        "--dopt=on",
        "--device-debug",
        "--generate-line-info",
        "--use_fast_math",
        "--use_fast_math",
        "-w",
    ]
