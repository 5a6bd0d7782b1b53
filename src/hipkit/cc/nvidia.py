"""Whole programs for NVIDIA GPUs: nvcc with hipkit's HIP-on-CUDA headers.

HIP C++ compiles as CUDA C++ (``-x cu``) with hipkit's program headers first on
the include path (``platforms/nvidia/include/program``): ``hip/hip_runtime.h``
maps HIP's host API onto the CUDA runtime by names generated from hipify's
table, keeps HIP's error numbers, and brings the device dialect kernels get
from NVRTC (warpSize 32 as a constant, mask-free shuffles, 64-bit ballots).
It is included first, as on the CPU.

hipcc's options become nvcc's: ``--offload-arch=sm_90`` (or ``-arch``) is
``--generate-code=arch=compute_90,code=[compute_90,sm_90]``, a cubin and its
PTX; without one, the targets of the GPUs present (from nvidia-smi, else
``-arch=native``), else nvcc's default.
Options for the host compiler (``-Wall``, ``-fopenmp``, ``-march=...``) go
through ``-Xcompiler``; ``-ffast-math`` is also ``--use_fast_math``;
``-fgpu-rdc`` is ``-rdc=true``.  nvcc links the CUDA runtime statically, so
programs need only the driver (``libcuda.so``) where they run.

nvcc is found on PATH, else in ``$CUDA_HOME/bin``, ``$CUDA_PATH/bin``,
``/usr/local/cuda/bin``, or NVIDIA's pip wheels of one CUDA release in this
Python (``nvidia-cuda-nvcc``, ``nvidia-cuda-runtime``, ``nvidia-cuda-crt``,
``nvidia-nvvm``: ``nvidia/cu13/bin/nvcc``).

hiprtc is NVRTC (``hip/hiprtc.h``): NVRTC is found as the NVIDIA platform's
cuda-bindings find it (cuda-pathfinder: the ``nvidia-cuda-nvrtc`` wheel, then
``CUDA_HOME``), else beside nvcc; units are compiled with its header's path and
hipkit's device headers' as macros (the kernels a program compiles at run time
get the headers kernels from Python get), and programs link it where it is
(``--as-needed``: only programs that call it depend on it).  The module API is
the driver's, found at run time through the CUDA runtime: no ``-lcuda``.
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .._errors import CompileError
from ..platforms.base import PORTABLE_INCLUDE_DIR
from ..platforms.nvidia.compiler import INCLUDE_DIR, parse_arch
from .gpu import GpuToolchain
from .options import OptionError, Options
from .rtc import string_define
from .toolchains import ROCTX_LIBRARIES, Tool, version_line, which

__all__ = ["Nvrtc", "NvidiaToolchain", "find_nvcc", "find_nvrtc", "gpu_present"]

PROGRAM_INCLUDE_DIR = INCLUDE_DIR / "program"
# Host-compiler options nvcc takes as they are; the rest go through -Xcompiler.
_NVCC_NATIVE = re.compile(r"-(O[0-3]|g|w|std=c\+\+\d\d)$")


def _wheel_bins() -> list[str]:
    """The bin folders of NVIDIA's CUDA wheels in this Python (nvidia/cu13/bin:
    pip install nvidia-cuda-nvcc nvidia-cuda-runtime nvidia-cuda-crt nvidia-nvvm)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    locations = spec.submodule_search_locations if spec else None
    return sorted(
        {os.path.dirname(p) for loc in locations or () for p in glob.glob(f"{loc}/cu[0-9]*/bin/nvcc")}
    )


def find_nvcc() -> str | None:
    """nvcc on PATH, else in CUDA_HOME, CUDA_PATH, /usr/local/cuda, or NVIDIA's
    pip wheels in this Python."""
    homes = [os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    return which("nvcc", *(os.path.join(h, "bin") for h in homes), "/usr/local/cuda/bin", *_wheel_bins())


@dataclass(frozen=True)
class Nvrtc:
    """Where NVRTC is: its header and its shared library."""

    header: Path  # nvrtc.h
    library: Path  # libnvrtc.so or libnvrtc.so.13

    @property
    def link_flags(self) -> list[str]:
        """nvcc's flags that link it, for the programs that call it only."""
        name = self.library.name
        lib = "-lnvrtc" if name == "libnvrtc.so" else f"-l:{name}"
        directory = str(self.library.parent)
        as_needed = f"--push-state,--as-needed,{lib},--pop-state"
        return [f"-L{directory}", "-Xlinker", as_needed, "-Xlinker", f"-rpath,{directory}"]


def _nvrtc_in(root: Path) -> Nvrtc | None:
    """NVRTC in a CUDA toolkit or wheel folder (include/ and lib64/ or lib/)."""
    header = root / "include" / "nvrtc.h"
    if not header.is_file():
        return None
    for lib in ("lib64", "lib"):
        found = sorted((root / lib).glob("libnvrtc.so*"), key=lambda p: len(p.name))
        if found:
            return Nvrtc(header, found[0])
    return None


@functools.cache
def find_nvrtc() -> Nvrtc | None:
    """NVRTC where cuda-pathfinder (which the NVIDIA platform's cuda-bindings use)
    finds its header: the nvidia-cuda-nvrtc wheel, conda, CUDA_HOME; else in
    CUDA_HOME, CUDA_PATH, nvcc's toolkit, /usr/local/cuda; None if nowhere."""
    roots: list[Path] = []
    try:
        from cuda import pathfinder

        header_dir = pathfinder.find_nvidia_header_directory("nvrtc")
        if header_dir:
            roots.append(Path(header_dir).parent)
    except Exception:  # noqa: BLE001 - cuda-pathfinder absent or failing: the folders below
        pass
    nvcc = find_nvcc()
    homes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    homes += [os.path.dirname(os.path.dirname(os.path.realpath(nvcc))) if nvcc else None, "/usr/local/cuda"]
    roots += [Path(h) for h in homes if h]
    for root in roots:
        found = _nvrtc_in(root)
        if found:
            return found
    return None


def gpu_present() -> bool:
    """Whether the NVIDIA driver shows a GPU (its device files or /proc entries)."""
    return bool(glob.glob("/dev/nvidia[0-9]*") or glob.glob("/proc/driver/nvidia/gpus/*"))


@functools.cache
def native_archs() -> tuple[str, ...]:
    """The targets of the GPUs here, as nvidia-smi reports their compute
    capabilities ("9.0" -> sm_90); empty where it cannot say."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ()
    try:
        done = subprocess.run(
            [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    caps = re.findall(r"^\s*(\d+)\.(\d+)\s*$", done.stdout, re.M) if done.returncode == 0 else []
    return tuple(dict.fromkeys(f"sm_{major}{minor}" for major, minor in caps))


def _gencode(arch: str) -> str:
    if parse_arch(arch) is None:
        raise OptionError(
            f"--offload-arch={arch}: not an NVIDIA target (sm_XX, e.g. sm_90); "
            "gfx targets are for --platform amd"
        )
    compute = "compute_" + arch[3:]
    return f"--generate-code=arch={compute},code=[{compute},{arch}]"


def _gpu_names() -> str:
    names = []
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        with open(info) as f:
            names += [line.split(":", 1)[1].strip() for line in f if line.startswith("Model:")]
    return ", ".join(names)


def _rtc_defines() -> list[str]:
    """What hiprtc in a program needs to know (hipkit_nvidia_program/rtc.h): where
    nvrtc.h is, and the folders of the headers NVRTC gives kernels."""
    nvrtc = find_nvrtc()
    defines = [
        string_define("__HIPKIT_NVIDIA_INCLUDE_DIR", str(INCLUDE_DIR)),
        string_define("__HIPKIT_PORTABLE_INCLUDE_DIR", str(PORTABLE_INCLUDE_DIR)),
    ]
    return defines + ([string_define("__HIPKIT_NVRTC_H", str(nvrtc.header))] if nvrtc else [])


def _host(flag: str) -> list[str]:
    return ["-Xcompiler", flag]


class NvidiaToolchain(GpuToolchain):
    """hipkit cc's NVIDIA platform (``--platform nvidia``)."""

    name = "nvidia"
    source_language = ("-x", "cu")

    def __init__(self) -> None:
        nvcc = find_nvcc()
        if nvcc is None:
            raise CompileError(self.missing())
        super().__init__(nvcc)

    @classmethod
    def tools(cls) -> list[Tool]:
        nvcc = find_nvcc()
        nvrtc = find_nvrtc()
        return [
            Tool("nvcc", "nvidia", nvcc, version_line([nvcc], "release") if nvcc else "not found"),
            Tool(
                "NVRTC (hiprtc in programs)",
                "nvidia",
                str(nvrtc.library) if nvrtc else None,
                f"{nvrtc.library.name}, header {nvrtc.header}"
                if nvrtc
                else "not found (pip install nvidia-cuda-nvrtc, or a CUDA toolkit with it)",
                required=False,
            ),
        ]

    @classmethod
    def missing(cls) -> str:
        if find_nvcc() is None:
            return "nvcc not found (install the CUDA toolkit; nvcc on PATH, or set CUDA_HOME)"
        return ""

    @classmethod
    def device_present(cls) -> bool:
        return gpu_present()

    def _targets(self, options: Options) -> list[str]:
        archs = options.offload_archs or (native_archs() if gpu_present() else ())
        if archs:
            return [_gencode(arch) for arch in dict.fromkeys(archs)]
        return ["-arch=native"] if gpu_present() else []

    def target_note(self, options: Options) -> str:
        # With -arch=native nvcc asks the driver: the flags do not say which
        # GPUs, so their names go in the cache key (a cache may be shared).
        return _gpu_names() if "-arch=native" in self._targets(options) else ""

    def compile_flags(self, options: Options) -> list[str]:
        flags = [
            f"-I{PROGRAM_INCLUDE_DIR}",
            f"-I{PORTABLE_INCLUDE_DIR}",
            "-include",
            "hip/hip_runtime.h",
            *self._targets(options),
            *_rtc_defines(),
        ]
        if not any(f.startswith("-std=") for f in options.compile_flags):
            flags.append("-std=c++17")
        if not any(f.startswith("-O") for f in options.compile_flags):
            flags.append("-O3")
        if "-fgpu-rdc" in options.ignored:
            flags.append("-rdc=true")
        it = iter(options.compile_flags)
        for flag in it:
            if flag in ("-isystem", "-include"):
                flags += [flag, next(it)]
            elif flag == "-iquote":
                flags += _host(f"-iquote,{next(it)}")
            elif flag.startswith(("-I", "-D", "-U")) or _NVCC_NATIVE.match(flag):
                flags.append(flag)
            elif flag.startswith("-std=gnu++"):
                flags.append("-std=c++" + flag[len("-std=gnu++") :])
            elif flag == "-ffast-math":
                flags += ["--use_fast_math", *_host(flag)]
            else:  # -W..., -f..., -m..., -pthread, -Os, -ggdb: the host compiler's
                flags += _host(flag)
        return flags

    def link_flags(self, options: Options) -> list[str]:
        flags = self._targets(options)
        # The wheels keep the CUDA runtime in lib/, where nvcc.profile does not look.
        wheel_lib = os.path.join(os.path.dirname(os.path.dirname(self.compiler)), "lib")
        if os.path.isfile(os.path.join(wheel_lib, "libcudart_static.a")):
            flags.append(f"-L{wheel_lib}")
        if "-fgpu-rdc" in options.ignored:
            flags.append("-rdc=true")
        nvrtc = find_nvrtc()
        if nvrtc is not None:
            flags += nvrtc.link_flags
        for flag in options.link_flags:
            if flag in ROCTX_LIBRARIES:
                continue
            if flag.startswith(("-L", "-l")):
                flags.append(flag)
            elif flag.startswith("-Wl,"):
                flags += ["-Xlinker", flag[len("-Wl,") :]]
            else:
                flags += _host(flag)
        return flags
