"""Which platform a program is built for, and the compilers each platform uses.

A *toolchain* builds whole programs for one platform (seam 2 of DESIGN.md, for
programs): ``compile`` turns one source file into an object, ``link`` makes an
executable.  This hipkit has the CPU's; NVIDIA's (nvcc with hipkit's
HIP-on-CUDA headers) and AMD's (ROCm's hipcc/amdclang++ with
``--offload-arch=gfx...``) join :data:`_TOOLCHAINS` by name.

``hipkit cc --version`` reports every compiler found, for every platform, and
what is missing (:func:`report`).
"""

from __future__ import annotations

import importlib
import os
import shlex
import shutil
import subprocess
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from .. import __version__, config
from .options import OptionError, Options

__all__ = ["Tool", "Toolchain", "Unit", "find_tools", "report", "select"]

# Preference order for the default platform (as the Python API's).
PLATFORMS = ("nvidia", "amd", "cpu")
# name -> "module:class" of the platforms whose programs hipkit can build.
_TOOLCHAINS = {"cpu": "hipkit.cc.cpu:CpuToolchain"}


@dataclass(frozen=True)
class Unit:
    """A compiled source file: its object, and the compiler's warnings."""

    source: str
    object: Path
    log: str


class Toolchain(ABC):
    """Builds whole HIP programs for one platform."""

    name: str

    @abstractmethod
    def compile(self, source: str, options: Options) -> Unit:
        """Compile ``source`` (a path relative to the working directory);
        raises CompileError with the diagnostics."""

    @abstractmethod
    def link(self, units: list[Unit], options: Options, output: Path) -> None:
        """Link the units and the other inputs of ``options`` into ``output``
        (written whole or not at all); raises CompileError."""

    @abstractmethod
    def program_key(self, units: list[Unit], options: Options) -> str:
        """What determines the executable linked from ``units`` (for caching it)."""


@dataclass(frozen=True)
class Tool:
    """A compiler the platforms use: where it is and its version line."""

    role: str  # "C++ compiler", "nvcc", "hipcc", "amdclang++"
    platform: str
    path: str | None
    version: str  # first informative line of --version, or why it is missing


def select(options: Options) -> Toolchain:
    """The toolchain of ``--platform``, else ``HIPKIT_PLATFORM``, else the
    first of nvidia, amd, cpu that this hipkit builds programs for."""
    name = options.platform or config.get("HIPKIT_PLATFORM")
    if name:
        if name not in PLATFORMS:
            raise OptionError(f"unknown platform {name!r}; platforms: {', '.join(PLATFORMS)}")
        if name not in _TOOLCHAINS:
            raise OptionError(
                f"hipkit cc cannot build programs for the {name} platform yet (it builds for: "
                f"{', '.join(_TOOLCHAINS)}); use --platform cpu"
            )
    else:
        name = next(p for p in PLATFORMS if p in _TOOLCHAINS)
    module_name, class_name = _TOOLCHAINS[name].split(":")
    toolchain: Toolchain = getattr(importlib.import_module(module_name), class_name)()
    return toolchain


def _version_line(command: list[str], pick: str = "") -> str:
    try:
        done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run: {exc}"
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    if done.returncode != 0 or not lines:
        return f"--version failed (exit status {done.returncode})"
    chosen = [line for line in lines if pick in line] if pick else lines
    return (chosen or lines)[0]


def _which(name: str, *dirs: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for d in dirs:
        candidate = Path(d) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def find_tools() -> list[Tool]:
    """Every compiler hipkit's platforms use, found or not."""
    tools = []
    cxx = shlex.split(config.get("HIPKIT_CXX"))
    cxx_path = _which(cxx[0]) if cxx else None
    tools.append(
        Tool(
            f"C++ compiler (HIPKIT_CXX={' '.join(cxx)})",
            "cpu",
            cxx_path,
            _version_line([cxx_path, *cxx[1:]]) if cxx_path else "not found",
        )
    )
    cuda = [os.path.join(os.environ[v], "bin") for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    nvcc = _which("nvcc", *cuda, "/usr/local/cuda/bin")
    tools.append(Tool("nvcc", "nvidia", nvcc, _version_line([nvcc], "release") if nvcc else "not found"))
    rocm = os.environ.get("ROCM_PATH", "/opt/rocm")
    hipcc = _which("hipcc", os.path.join(rocm, "bin"))
    tools.append(Tool("hipcc", "amd", hipcc, _version_line([hipcc], "HIP version") if hipcc else "not found"))
    clang = _which("amdclang++", os.path.join(rocm, "llvm", "bin"), os.path.join(rocm, "bin"))
    tools.append(Tool("amdclang++", "amd", clang, _version_line([clang]) if clang else "not found"))
    return tools


def report() -> tuple[str, bool]:
    """``hipkit cc --version``'s text, and whether some platform can build programs."""
    tools = find_tools()
    usable = {t.platform for t in tools if t.path} & set(_TOOLCHAINS)
    try:
        default = select(Options()).name
    except OptionError as exc:
        default = f"none ({exc})"
    lines = [
        f"hipkit cc {__version__} (HIP compiler driver, hipcc's options)",
        f"Default platform: {default}",
    ]
    for platform in PLATFORMS:
        if platform not in _TOOLCHAINS:
            state = "not supported by hipkit cc yet"
        elif platform in usable:
            state = "ready"
        else:
            state = "missing its compiler"
        lines.append(f"Platform {platform}: {state}")
        for tool in (t for t in tools if t.platform == platform):
            where = f" [{tool.path}]" if tool.path else ""
            lines.append(f"  {tool.role}: {tool.version}{where}")
        if platform == "cpu":
            lines.append(f"  hipkit CPU runtime: {__version__} (libhipkit_cpu.so, built on first use)")
            lines.append(f"  warp size: {config.get('HIPKIT_CPU_WARP_SIZE')} (HIPKIT_CPU_WARP_SIZE)")
    return "\n".join(lines), bool(usable)
