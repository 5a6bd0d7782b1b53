"""Reading AMDGPU code objects without a GPU: the metadata's MessagePack,
bad input, and the offload bundles ``hipcc --genco`` makes (on Debian and
Ubuntu, ``make amd-toolchain`` installs hipcc)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys

import pytest

from hipkit import HipError, hipError_t
from hipkit.platforms.amd.codeobject import CodeObject, _unpack, bundle_entries
from hipkit.platforms.amd.platform import _code_object
from hipkit.platforms.amd.toolchain import find_hipcc
from hipkit.platforms.base.platform import PARAM_OTHER, PARAM_POINTER, Param

# EF_AMDGPU_MACH_AMDGCN_* (LLVM's ELF.h)
MACH = {"gfx90a": 0x3F, "gfx1030": 0x36}


def _str(text: str) -> bytes:
    raw = text.encode()
    return (bytes([0xA0 | len(raw)]) if len(raw) < 32 else b"\xd9" + bytes([len(raw)])) + raw


@pytest.mark.parametrize(
    "data, value",
    [
        (b"\x05", 5),  # positive fixint
        (b"\xff", -1),  # negative fixint
        (b"\xc0", None),
        (b"\xc2", False),
        (b"\xc3", True),
        (b"\xcc\xc8", 200),  # uint8
        (b"\xcd\x01\x00", 256),  # uint16, big-endian
        (b"\xce\x00\x01\x00\x00", 65536),  # uint32
        (b"\xcf" + struct.pack(">Q", 2**40), 2**40),  # uint64
        (b"\xd0\x80", -128),  # int8
        (b"\xd3" + struct.pack(">q", -(2**40)), -(2**40)),  # int64
        (b"\xca" + struct.pack(">f", 1.5), 1.5),  # float32
        (b"\xcb" + struct.pack(">d", -2.25), -2.25),  # float64
        (_str("gfx90a"), "gfx90a"),  # fixstr
        (_str("x" * 40), "x" * 40),  # str8
        (b"\xda\x00\x03abc", "abc"),  # str16
        (b"\xc4\x02\x00\x01", b"\x00\x01"),  # bin8
        (b"\x92\x01\x02", [1, 2]),  # fixarray
        (b"\xdc\x00\x02\x01\xc3", [1, True]),  # array16
        (b"\x81" + _str(".size") + b"\x08", {".size": 8}),  # fixmap
        (b"\xde\x00\x01" + _str("k") + b"\x90", {"k": []}),  # map16
    ],
)
def test_messagepack(data, value):
    decoded, end = _unpack(data + b"\xc0", 0)  # a value after it: the end is where it stops
    assert decoded == value and type(decoded) is type(value)
    assert end == len(data)


def test_messagepack_type_the_metadata_never_has():
    with pytest.raises(HipError, match="unreadable code object metadata.*0xc7"):
        _unpack(b"\xc7\x01\x05\x00", 0)  # ext8


def test_not_a_code_object():
    with pytest.raises(HipError, match="not an ELF64 code object") as info:
        CodeObject(b"garbage")
    assert info.value.code == hipError_t.hipErrorInvalidImage
    with pytest.raises(HipError, match=r"an ELF for machine \d+, not an AMD GPU"):
        CodeObject(open(sys.executable, "rb").read())  # the host's ELF


def test_neither_code_object_nor_bundle():
    with pytest.raises(HipError, match="not a code object, offload bundle") as info:
        _code_object(b"\x00" * 64, "gfx90a")
    assert info.value.code == hipError_t.hipErrorInvalidImage


def test_damaged_bundle():
    with pytest.raises(HipError, match="damaged offload bundle"):
        bundle_entries(b"__CLANG_OFFLOAD_BUNDLE__\x02\x00")


HIPCC = find_hipcc()


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> bytes:
    """``hipcc --genco`` for two targets: a clang offload bundle."""
    if HIPCC is None:
        pytest.skip("hipcc not found (make amd-toolchain installs it)")
    folder = tmp_path_factory.mktemp("genco")
    (folder / "scale.hip").write_text(
        "#include <hip/hip_runtime.h>\n"
        'extern "C" __global__ void scale(float* x, float a, int n) {\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) x[i] *= a;\n"
        "}\n"
    )
    command = [
        HIPCC,
        "--genco",
        "--offload-arch=gfx90a",
        "--offload-arch=gfx1030",
        "scale.hip",
        "-o",
        "scale.co",
    ]
    done = subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HIP_PLATFORM": "amd"},
    )
    if done.returncode != 0:
        pytest.skip(f"hipcc --genco failed here: {done.stderr[-500:]}")
    return (folder / "scale.co").read_bytes()


def test_bundle_from_hipcc(bundle):
    entries = bundle_entries(bundle)
    devices = {e.triple.rsplit("--", 1)[-1]: e.data for e in entries if "amdgcn" in e.triple}
    assert set(devices) == {"gfx90a", "gfx1030"}
    for arch, image in devices.items():
        code = CodeObject(image)
        assert code.mach == MACH[arch] and code.target() == arch
        assert code.kernel_params() == {
            "scale": (Param(8, 8, PARAM_POINTER), Param(4, 4, PARAM_OTHER), Param(4, 4, PARAM_OTHER))
        }
        assert code.kernel_symbols() == {code.symbols()["scale"].value: "scale"}


def test_the_device_s_code_object_from_a_bundle(bundle):
    assert CodeObject(_code_object(bundle, "gfx1030")).target() == "gfx1030"
    with pytest.raises(HipError, match=r"no code object for gfx906 \(it has .*gfx90a") as info:
        _code_object(bundle, "gfx906")
    assert info.value.code == hipError_t.hipErrorNoBinaryForGpu
