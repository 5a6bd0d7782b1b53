"""``hipkit cc --platform amd``: whole HIP programs through ROCm's hipcc.

Compiling needs hipcc, the HIP runtime's headers and library, and ROCm's device
libraries (on Debian and Ubuntu: ``apt-get install hipcc libamdhip64-dev
rocm-device-libs``, which ``make test`` does as root); without them these tests
skip with what is missing.  Programs run only where an AMD GPU is present.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from test_cc import FEATURES, REPO, build, hipkit_command, write
from test_cc_nvidia import elf_sections, run

from hipkit.platforms.amd.toolchain import AmdToolchain, gpu_archs

MISSING = AmdToolchain.missing()
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"hipkit cc cannot build for AMD here: {MISSING}")
EM_AMDGPU = 224


def code_objects(path: Path) -> dict[str, bytes]:
    """The code objects in the .hip_fatbin section of an object or executable, by
    bundle entry id ("hipv4-amdgcn-amd-amdhsa--gfx90a"): clang's offload bundle,
    a magic string, the entry count, then (offset, size, id length, id) each."""
    bundle = elf_sections(path)[".hip_fatbin"]
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    assert bundle.startswith(magic)
    (count,) = struct.unpack_from("<Q", bundle, len(magic))
    at, entries = len(magic) + 8, {}
    for _ in range(count):
        offset, size, id_size = struct.unpack_from("<QQQ", bundle, at)
        name = bundle[at + 24 : at + 24 + id_size].decode()
        entries[name] = bundle[offset : offset + size]
        at += 24 + id_size
    return entries


def gpu_code(path: Path) -> dict[str, int]:
    """gfx target -> ELF machine of each device code object in ``path``."""
    found = {}
    for name, data in code_objects(path).items():
        if name.startswith("hip"):
            assert data[:4] == b"\x7fELF", name
            found[name.rsplit("--", 1)[1]] = struct.unpack_from("<H", data, 18)[0]
    return found


def test_seed_program(tmp_path):
    """The seed's vector_add.cpp, unchanged, with --offload-arch=gfx90a: an
    executable carrying the gfx90a code object; run where an AMD GPU is (built
    for that GPU's target), PASSED."""
    exe = tmp_path / "vector_add"
    build(REPO, "--platform", "amd", "--offload-arch=gfx90a", "-o", str(exe), "examples/vector_add.cpp")
    assert gpu_code(exe) == {"gfx90a": EM_AMDGPU}
    if not gpu_archs():
        pytest.skip("built, not run: no AMD GPU here (KFD topology)")
    native = tmp_path / "vector_add_native"
    build(REPO, "--platform", "amd", "-o", str(native), "examples/vector_add.cpp")
    done = run(native)
    assert (done.returncode, done.stdout) == (0, "Vector add test PASSED!\n"), done.stderr


def test_object_holds_each_target(tmp_path):
    """-c: the object's .hip_fatbin holds a code object for each --offload-arch."""
    write(tmp_path, "k.hip", "__global__ void k(float* x) { x[threadIdx.x] *= 2; }\n")
    build(tmp_path, "--platform", "amd", "-c", "--offload-arch=gfx90a", "--offload-arch=gfx1030", "k.hip")
    assert gpu_code(tmp_path / "k.o") == {"gfx90a": EM_AMDGPU, "gfx1030": EM_AMDGPU}


def test_program_features_compile(tmp_path):
    """test_cc's feature program (ROCm's own headers: symbols, templates, dynamic
    shared memory, shuffles, streams, events, occupancy) builds for gfx90a."""
    write(tmp_path, "features.hip", FEATURES)
    build(tmp_path, "--platform", "amd", "--offload-arch=gfx90a", "-O2", "-o", "features", "features.hip")
    assert gpu_code(tmp_path / "features") == {"gfx90a": EM_AMDGPU}


def test_targets_are_checked(tmp_path):
    """An sm_XX target is refused; without --offload-arch and no AMD GPU to take
    it from, hipkit cc says what it needs (exit status 2)."""
    write(tmp_path, "k.hip", "__global__ void k(float* x) { x[threadIdx.x] *= 2; }\n")
    wrong = hipkit_command("cc", "--platform", "amd", "-c", "--offload-arch=sm_90", "k.hip", cwd=tmp_path)
    assert wrong.returncode == 2 and "not an AMD target" in wrong.stderr
    if gpu_archs():
        return
    none = hipkit_command("cc", "--platform", "amd", "-c", "k.hip", cwd=tmp_path)
    assert none.returncode == 2 and "needs --offload-arch=gfx" in none.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.hip"]


def test_compile_errors(tmp_path):
    """clang's diagnostics name the user's file, line and column; exit status 1,
    nothing written."""
    write(
        tmp_path,
        "bad.hip",
        """
        #include <hip/hip_runtime.h>
        __global__ void k(int* p) {
          __syncthreads();
          p[threadIdx.x] = missing_value;
        }
        int main() { return 0; }
        """,
    )
    done = hipkit_command(
        "cc", "--platform", "amd", "--offload-arch=gfx90a", "-o", "bad", "bad.hip", cwd=tmp_path
    )
    assert done.returncode == 1
    assert "bad.hip:4:20: error" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.hip"]


def test_version_lists_hipcc():
    done = hipkit_command("cc", "--version", cwd=REPO)
    lines = done.stdout.splitlines()
    (hipcc,) = [line for line in lines if line.strip().startswith("hipcc:")]
    assert "HIP version" in hipcc and "[" in hipcc
    assert any(line.startswith("Platform amd: ready") for line in lines)
