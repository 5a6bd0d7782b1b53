"""Compiling for AMD GPUs with hiprtc: no GPU needed, so these run wherever
ROCm's HIP runtime is installed (on Debian and Ubuntu, ``make amd-toolchain``
installs it: libamdhip64-dev brings hiprtc and comgr).

What only AMD's compile has: the code object (an AMDGPU ELF for the target)
and its metadata, the gfx targets and their wavefront sizes, clang's
options and diagnostics; every kernel-language source of the suite and every
name of the kernel language, checked against the CPU platform's.  What it
shares with the NVIDIA platform (the kernel table, the module container,
the dialect, errors, the cache) is tested for both in test_gpu_compile.py."""

from __future__ import annotations

import importlib
import re
import struct
from pathlib import Path

import pytest
from gpu_helpers import AMD, BROKEN, MADE_BY_A_MACRO, PARAMS, SCALE, TEMPLATES, cpu_compile, cpu_only

import hipkit
from hipkit import CompileError
from hipkit.platforms.amd.codeobject import EM_AMDGPU, CodeObject
from hipkit.platforms.amd.compiler import normalize_options, parse_arch, unavailable_reason
from hipkit.platforms.base.platform import PARAM_POINTER, Param, Target

REASON = unavailable_reason()
pytestmark = pytest.mark.skipif(bool(REASON), reason=f"hiprtc is not usable here: {REASON}")
GFX90A = AMD.target
# EF_AMDGPU_MACH_AMDGCN_* (LLVM's ELF.h): the processor in a code object's e_flags.
MACH = {"gfx906": 0x2F, "gfx90a": 0x3F, "gfx1030": 0x36}


@pytest.mark.parametrize("target", [GFX90A, Target("amd", "gfx906", 64), Target("amd", "gfx1030", 32)])
def test_code_object_for_the_target(target):
    binary = AMD(SCALE, target)
    assert binary.target == target
    image = binary.image
    assert image[:4] == b"\x7fELF" and image[4] == 2  # ELF64
    assert struct.unpack_from("<H", image, 0x12)[0] == EM_AMDGPU == 224
    code = CodeObject(image)
    assert code.mach == MACH[target.arch]  # the processor in e_flags
    assert code.target() == target.arch  # and in the metadata
    (meta,) = code.metadata()["amdhsa.kernels"]
    assert meta[".name"] == "scale" and meta[".wavefront_size"] == target.warp_size
    assert {"scale", "scale.kd"} <= set(code.symbols())
    assert binary.registered == (("scale", "gpu"),)


def test_parse_arch():
    assert parse_arch("gfx90a") == GFX90A
    assert parse_arch("gfx90a:sramecc+:xnack-") == Target("amd", "gfx90a:sramecc+:xnack-", 64)
    assert parse_arch("gfx1100") == Target("amd", "gfx1100", 32)  # RDNA: wave32 by default
    for other in ("sm_90", "cpu", "gfx90a:foo+", "gfx", "GFX90A"):
        assert parse_arch(other) is None


def test_target_hiprtc_does_not_know_is_an_error_not_a_crash():
    """hiprtc aborts the process on a target its comgr does not know; hipkit asks comgr first."""
    with pytest.raises(CompileError, match=r"cannot compile for gfx9999 \(it has .*gfx90a"):
        AMD(SCALE, Target("amd", "gfx9999", 32))
    with pytest.raises(CompileError, match="cannot compile for gfx1030:xnack"):
        AMD(SCALE, Target("amd", "gfx1030:xnack+", 32))  # a feature the processor lacks


def test_wavefront_size_of_the_target():
    wave64 = AMD(SCALE, Target("amd", "gfx1030", 64))
    (meta,) = CodeObject(wave64.image).metadata()["amdhsa.kernels"]
    assert meta[".wavefront_size"] == 64
    with pytest.raises(ValueError, match="no wavefront size 32"):
        AMD(SCALE, Target("amd", "gfx90a", 32))


def test_metadata_agrees_with_the_descriptors():
    """The code object's own argument list (sizes, pointers) against hipkit's descriptors."""
    binary = AMD(PARAMS + TEMPLATES, names=["axpy<float>"])
    from_metadata = CodeObject(binary.image).kernel_params()
    assert len(binary.kernels) == 8
    for entry in binary.kernels:
        described = from_metadata[entry.symbol]
        assert [p.size for p in described] == [p.size for p in entry.params]
        assert [p.kind == PARAM_POINTER for p in described] == [p.kind == PARAM_POINTER for p in entry.params]


def test_a_device_function_is_not_a_kernel():
    """A name expression of a __device__ function has a kernel's type: the
    code object's kernel descriptors tell them apart."""
    source = SCALE + "__device__ void helper(int* x) { *x = 1; }\n"
    assert [k.lookup for k in AMD(source, names=["&helper"]).kernels] == ["scale"]


def test_kernels_discovery_cannot_read_take_the_metadata():
    """Without a kernel table, the runtime takes the code object's metadata
    for a kernel's parameters (sizes, pointers)."""
    binary = AMD(MADE_BY_A_MACRO)
    assert CodeObject(binary.image).kernel_params()["made_by_a_macro"] == (Param(8, 8, PARAM_POINTER),)


def test_compile_error_in_clang_words():
    """clang's diagnostics, naming the user's file (not comgr's temporary one)."""
    with pytest.raises(CompileError) as info:
        AMD(BROKEN, name="my_kernel.hip")
    assert "my_kernel.hip:4:8: error: use of undeclared identifier 'undeclared_name'" in info.value.log
    assert "CompileSource" not in info.value.log


def test_option_mapping():
    given = ["-DX=1", "-D", "Y", "-UZ", "-I", "inc", "-std=c++20", "-O2", "-O", "-Ofast", "-g", "-G"]
    given += ["-lineinfo", "--use_fast_math", "-ffast-math", "-w", "--offload-arch=gfx90a", "-fgpu-rdc"]
    given += ["-arch", "sm_80"]
    assert normalize_options(given) == [
        "-DX=1",
        "-DY",
        "-UZ",
        "-Iinc",
        "-std=c++20",
        "-O2",
        "-O",
        "-O3",
        "-ffast-math",
        "-g",
        "-g",
        "-O0",
        "-gline-tables-only",
        "-ffast-math",
        "-ffast-math",
        "-w",
    ]


def _language_sources() -> list:
    """Each kernel source the kernel-language tests (tests/test_lang_*.py)
    compile, with its name expressions: what they pass to compile_once."""
    found = []
    for path in sorted(Path(__file__).parent.glob("test_lang_*.py")):
        module = importlib.import_module(path.stem)
        for source, names in re.findall(r"compile_once\((\w+)(?:, (\w+))?\)", path.read_text()):
            where = f"{path.stem}.{source}"
            names = tuple(getattr(module, names)) if names else ()
            found.append(pytest.param(where, getattr(module, source), names, id=where))
    return found


@cpu_only
@pytest.mark.parametrize("where, source, names", _language_sources())
def test_language_sources_compile_as_on_the_cpu(where, source, names):
    """Every kernel source of the kernel-language suite compiles for gfx90a,
    with the CPU platform's kernels and parameter kinds."""
    binary = AMD(source, name=f"{where}.hip", names=names)
    cpu = cpu_compile(source, names)
    assert sorted(lookup for lookup, _ in binary.registered) == sorted(cpu.kernels)
    for entry in binary.kernels:
        assert entry.params == cpu.get_function(entry.lookup).info.params, entry.lookup


def _language_names() -> tuple[list[str], list[str]]:
    """The functions and macros hipkit's CPU platform headers declare for
    kernels (the language's reference), found by their declarations: some
    are helpers or macro parameters, which the CPU compile weeds out."""
    include = Path(hipkit.__file__).parent / "platforms"
    headers = [
        *(include / "cpu" / "include" / "hipkit_cpu").glob("device*.h"),
        include / "cpu" / "include" / "hipkit_cpu" / "half.h",
        include / "cpu" / "include" / "hipkit_cpu" / "vector_types.h",
        *(include / "include" / "hipkit_portable").glob("*.h"),
    ]
    functions, macros = set(), set()
    for header in headers:
        text = header.read_text()
        functions.update(re.findall(r"__HK_FN\s+(?:constexpr\s+)?[\w:<>, ]*?\b(\w+)\s*\(", text))
        for scoped in re.findall(r"__HK_ATOMIC_SCOPES\((\w+)\)", text):
            functions.update({f"{scoped}_system", f"{scoped}_block"})
        functions.update(re.findall(r"__HK_ATOMIC_ALIAS\((\w+),", text))
        for name in re.findall(r"__HK_HALF_CMP\((\w+),", text):
            functions.update({f"__h{name}", f"__h{name}2", f"__hb{name}2"})
        defined = re.findall(r"^#define\s+(\w+)", text, re.M)
        macros.update(m for m in defined if not m.startswith("__H") and not m.endswith("_H"))  # nor guards
    return sorted(f for f in functions if not f.startswith("__hk")), sorted(macros)


def _undeclared(log: str) -> set[str]:
    """Names a compiler (g++ or clang) says are not declared, and macros #error names."""
    names = re.findall(r"(?:undeclared identifier|error:) ['\u2018](\w+)['\u2019]", log)
    return set(names) | set(re.findall(r"#error missing (\w+)", log))


@cpu_only
def test_every_name_of_the_kernel_language():
    """Each function and macro of hipkit's kernel language (the CPU platform's
    headers) exists on AMD: HIP's own, or hipkit's where HIP lacks it."""
    functions, macros = _language_names()
    calls = 'extern "C" __global__ void names() {\n'
    calls += "".join(f"  (void)&{f};\n" for f in functions) + "}\n"
    # The macros apart: a missing one stops a compile before it reaches the functions.
    defines = "".join(f"#ifndef {m}\n#error missing {m}\n#endif\n" for m in macros)
    logs = []
    for compile_for in (cpu_compile, AMD):
        log = ""
        for source in (calls, defines):
            try:
                compile_for(source)
            except CompileError as failed:  # taking an overloaded name's address is an error
                log += failed.log
        logs.append(log)
    cpu_lacks, amd_lacks = (_undeclared(log) for log in logs)
    assert len(set(functions) - cpu_lacks) > 150
    assert amd_lacks - cpu_lacks == set()
