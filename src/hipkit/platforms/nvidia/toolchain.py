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

hipBLAS is cuBLAS (``hipblas/hipblas.h``: hipBLAS's API inline over cuBLAS's, as hipBLAS's
own NVIDIA backend does): ``-lhipblas`` and ``-lrocblas`` link cuBLAS and cuBLASLt, from
the CUDA toolkit or NVIDIA's ``nvidia-cublas`` wheel (with an rpath, so that the program
finds them where it runs), and units see cuBLAS's headers after the toolkit's own.
hipRAND is cuRAND likewise (``hiprand/hiprand.h``; ``-lhiprand`` links cuRAND, from the
toolkit or the ``nvidia-curand`` wheel); its device API (``hiprand/hiprand_kernel.h``)
is hipkit's portable one, which gives cuRAND's numbers.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

from ..._errors import CompileError
from ...tables import INCLUDE_DIR as TABLES_INCLUDE_DIR
from .._gpu.toolchain import GpuToolchain
from ..base.options import OptionError, Options
from ..base.platform import PORTABLE_INCLUDE_DIR
from ..base.toolchain import HIP_RUNTIME_LIBRARIES, ROCTX_LIBRARIES, Tool, string_define, version_line
from . import gpu_present
from .compiler import INCLUDE_DIR, parse_arch
from .toolkit import (
    CUBLAS_MISSING,
    CUFFT_MISSING,
    CURAND_MISSING,
    VendorLibrary,
    find_cublas,
    find_cufft,
    find_curand,
    find_nvcc,
    find_nvrtc,
)

__all__ = ["NvidiaToolchain", "native_archs"]

PROGRAM_INCLUDE_DIR = INCLUDE_DIR / "program"
# The libraries programs name for hipBLAS and rocBLAS: cuBLAS serves both here.
BLAS_LIBRARIES = ("-lhipblas", "-lrocblas")
# hipFFT's: cuFFT serves it.
FFT_LIBRARIES = ("-lhipfft",)
# hipRAND's: cuRAND serves it.
RAND_LIBRARIES = ("-lhiprand",)
# Host-compiler options nvcc takes as they are; the rest go through -Xcompiler.
_NVCC_NATIVE = re.compile(r"-(O[0-3]|g|w|std=c\+\+\d\d)$")


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


def _vendor_includes(nvcc: str) -> list[str]:
    """cuBLAS's, cuFFT's and cuRAND's headers where nvcc does not have them: after every other
    folder (``-isystem``), so that a wheel's copies of CUDA's own headers never hide nvcc's."""
    toolkit = Path(os.path.realpath(nvcc)).parent.parent
    own = {os.path.realpath(toolkit / d / "include") for d in (".", "targets/x86_64-linux")}
    folders = {
        os.path.realpath(lib.include)
        for lib in (find_cublas(), find_cufft(), find_curand())
        if lib is not None
    }
    return [flag for folder in sorted(folders - own) for flag in ("-isystem", folder)]


def _vendor_link_flags(
    flags: tuple[str, ...], names: tuple[str, ...], library: VendorLibrary | None, missing: str
) -> list[str]:
    """The flags that link a vendor library where the program names one of ``names``."""
    if not any(flag in names for flag in flags):
        return []
    if library is None:
        raise CompileError(f"{', '.join(names)}: {missing}")
    return library.link_flags


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
        cublas = find_cublas()
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
            Tool(
                "cuBLAS (hipBLAS in programs)",
                "nvidia",
                str(cublas.libraries[0]) if cublas else None,
                f"{cublas.libraries[0].name}, headers {cublas.include}" if cublas else CUBLAS_MISSING,
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
            f"-I{TABLES_INCLUDE_DIR}",  # the generated part of the program headers
            f"-I{PORTABLE_INCLUDE_DIR}",
            "-include",
            "hip/hip_runtime.h",
            # HIP-Clang lets device code call constexpr host functions (std::max,
            # a program's own constexpr helpers): nvcc does with this flag.
            "--expt-relaxed-constexpr",
            *self._targets(options),
            *_rtc_defines(),
            *_vendor_includes(self.compiler),
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
        flags += _vendor_link_flags(options.link_flags, BLAS_LIBRARIES, find_cublas(), CUBLAS_MISSING)
        flags += _vendor_link_flags(options.link_flags, FFT_LIBRARIES, find_cufft(), CUFFT_MISSING)
        flags += _vendor_link_flags(options.link_flags, RAND_LIBRARIES, find_curand(), CURAND_MISSING)
        dropped = ROCTX_LIBRARIES + BLAS_LIBRARIES + FFT_LIBRARIES + RAND_LIBRARIES + HIP_RUNTIME_LIBRARIES
        for flag in options.link_flags:
            if flag in dropped:
                continue  # hipkit's headers are HIP and hiprtc here, over CUDA's and NVRTC's
            if flag.startswith(("-L", "-l")):
                flags.append(flag)
            elif flag.startswith("-Wl,"):
                flags += ["-Xlinker", flag[len("-Wl,") :]]
            else:
                flags += _host(flag)
        return flags
