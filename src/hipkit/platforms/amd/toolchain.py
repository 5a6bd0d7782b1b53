"""Whole programs for AMD GPUs: ROCm's hipcc with ROCm's own headers.

The program is compiled as ROCm compiles it, for ``--offload-arch=gfx...``
(without one, for the GPUs in the KFD topology; with none there, it is an
error).  ``hip/hip_runtime.h`` is included first, as on the other platforms.

hipcc is driven for AMD explicitly: ``HIP_PLATFORM=amd`` (Debian's hipcc
otherwise picks NVIDIA's path when nvcc is installed), ``HIP_COMPILER=clang``
and ``HIP_RUNTIME=rocclr``; ``ROCM_PATH``, ``HIP_PATH`` and ``HIP_CLANG_PATH``
pass through to it.  On Debian and Ubuntu (``apt-get install hipcc
libamdhip64-dev rocm-device-libs``) hipcc runs ``clang++-15 -x hip
--offload-arch=... --rocm-path=/usr --hip-device-lib-path=...`` and links
``-lamdhip64``; on a ROCm install, ROCm's clang.

hipcc is found on PATH, else in ``$ROCM_PATH/bin`` or ``/opt/rocm/bin``.
"""

from __future__ import annotations

import os
import re
import subprocess

from ..._errors import CompileError
from ..._system import System
from .._gpu.toolchain import GpuToolchain
from ..base.options import OptionError, Options
from ..base.toolchain import Tool, version_line
from .gfx import amd_gpus, gfx_target
from .toolkit import PACKAGES, find_amdclang, find_hipcc, hipcc_parts, rocm_path

__all__ = ["AmdToolchain", "gpu_archs"]

_GFX = re.compile(r"gfx[0-9a-f]+(:[a-z-]+[+-])*$")


def gpu_archs() -> list[str]:
    """The gfx targets of the AMD GPUs in the KFD topology."""
    return [gfx_target(version) for _, version in amd_gpus(System()) if version]


def _environment() -> dict[str, str]:
    return {**os.environ, "HIP_PLATFORM": "amd", "HIP_COMPILER": "clang", "HIP_RUNTIME": "rocclr"}


def _hipcc_version(hipcc: str) -> str:
    """hipcc's HIP version and the clang it runs: "HIP version: 5.2.21153-0 (Debian clang version 15.0.6)"."""
    try:
        done = subprocess.run(
            [hipcc, "--version"], capture_output=True, text=True, timeout=60, env=_environment()
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run: {exc}"
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    hip = next((line for line in lines if line.startswith("HIP version")), None)
    clang = next((line for line in lines if "clang version" in line), None)
    if done.returncode != 0 or hip is None:
        return f"--version failed (exit status {done.returncode})"
    return f"{hip} ({clang})" if clang else hip


class AmdToolchain(GpuToolchain):
    """hipkit cc's AMD platform (``--platform amd``)."""

    name = "amd"
    vendor_headers = True  # ROCm's
    source_language = ("-x", "hip")
    preprocess_only = ("-E", "--cuda-host-only")

    def __init__(self) -> None:
        hipcc = find_hipcc()
        if hipcc is None:
            raise CompileError(self.missing())
        super().__init__(hipcc)

    @classmethod
    def tools(cls) -> list[Tool]:
        hipcc = find_hipcc()
        clang = find_amdclang()
        tools = [
            Tool("hipcc", "amd", hipcc, _hipcc_version(hipcc) if hipcc else "not found"),
            Tool("amdclang++", "amd", clang, version_line([clang]) if clang else "not found", required=False),
        ]
        for role, path, package in hipcc_parts():
            if path is None:
                tools.append(Tool(role, "amd", None, f"not found (package {package})"))
            else:  # the library by its versioned name (the .so is a link to it)
                version = os.path.basename(os.path.realpath(path)) if role == "HIP runtime" else "found"
                tools.append(Tool(role, "amd", path, version))
        return tools

    @classmethod
    def missing(cls) -> str:
        if find_hipcc() is None:
            return f"hipcc not found (ROCm; on Debian and Ubuntu: apt-get install {' '.join(PACKAGES)})"
        absent = [f"{role} (package {package})" for role, path, package in hipcc_parts() if path is None]
        return "hipcc found, but not its " + ", ".join(absent) if absent else ""

    @classmethod
    def device_present(cls) -> bool:
        return bool(gpu_archs())

    def environment(self) -> dict[str, str]:
        return _environment()

    def _targets(self, options: Options) -> list[str]:
        archs = list(dict.fromkeys(options.offload_archs)) or gpu_archs()
        if not archs:
            raise OptionError("--platform amd needs --offload-arch=gfx... (no AMD GPU here to build for)")
        for arch in archs:
            if not _GFX.match(arch):
                raise OptionError(
                    f"--offload-arch={arch}: not an AMD target (gfx..., e.g. gfx90a); "
                    "sm_XX targets are for --platform nvidia"
                )
        return [f"--offload-arch={arch}" for arch in archs]

    def compile_flags(self, options: Options) -> list[str]:
        flags = ["-include", "hip/hip_runtime.h", *self._targets(options)]
        if not any(f.startswith("-std=") for f in options.compile_flags):
            flags.append("-std=c++17")
        if not any(f.startswith("-O") for f in options.compile_flags):
            flags.append("-O3")
        if "-fgpu-rdc" in options.ignored:
            flags.append("-fgpu-rdc")
        # ROCm's ROCTx: <roctx.h> as well as <roctracer/roctx.h>, as on the other platforms.
        roctracer = os.path.join(rocm_path(), "include", "roctracer")
        if os.path.isdir(roctracer):
            flags += ["-isystem", roctracer]
        return flags + list(options.compile_flags)

    def link_flags(self, options: Options) -> list[str]:
        flags = self._targets(options)
        if "-fgpu-rdc" in options.ignored:
            flags += ["-fgpu-rdc", "--hip-link"]
        return flags + list(options.link_flags)
