"""Where CUDA's parts are: nvcc, NVRTC, CUPTI and cuBLAS, looked up once for every
face of the NVIDIA platform (programs, hiprtc and hipBLAS in programs, program tracing).

A part is looked for, in order, in the CUDA toolkits the environment names
(``CUDA_HOME``, ``CUDA_PATH``: :mod:`hipkit.config`), in NVIDIA's pip wheels of
one CUDA release in this Python (``nvidia/cu13``: ``nvidia-cuda-nvcc``,
``nvidia-cuda-nvrtc``, ``nvidia-cuda-cupti``, ``nvidia-cublas``...), and in ``/usr/local/cuda``;
nvcc is first looked for on PATH, NVRTC where cuda-pathfinder (which the
platform's cuda-bindings use) finds it.  Each ``find_*`` says where it looked
when it finds nothing.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ... import config
from ..base.toolchain import which

__all__ = [
    "CUBLAS_MISSING",
    "CUFFT_MISSING",
    "DEFAULT_HOME",
    "Cublas",
    "Cupti",
    "CuptiUnavailable",
    "Nvrtc",
    "cuda_homes",
    "find_cublas",
    "find_cufft",
    "find_cupti",
    "find_nvcc",
    "find_nvrtc",
    "wheel_roots",
]

# Where a CUDA toolkit is installed when nothing says otherwise.
DEFAULT_HOME = Path("/usr/local/cuda")


def cuda_homes() -> list[Path]:
    """The CUDA toolkits the environment names: $CUDA_HOME, then $CUDA_PATH."""
    named = (config.get("CUDA_HOME"), config.get("CUDA_PATH"))
    return [Path(home) for home in dict.fromkeys(named) if home]


def _nvidia_folders() -> list[Path]:
    """The folders of the ``nvidia`` namespace package in this Python (NVIDIA's wheels)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    return [Path(loc) for loc in (spec.submodule_search_locations if spec else None) or ()]


def wheel_roots() -> list[Path]:
    """NVIDIA's CUDA wheels in this Python, one folder per CUDA release
    (``nvidia/cu13``, holding ``bin/``, ``include/`` and ``lib/``)."""
    return sorted(
        {p for folder in _nvidia_folders() for p in folder.glob("cu[0-9]*") if p.is_dir()},
        key=lambda p: p.name,
    )


def find_nvcc() -> str | None:
    """nvcc on PATH, else in CUDA_HOME, CUDA_PATH, /usr/local/cuda, or NVIDIA's
    pip wheels in this Python."""
    homes = [*cuda_homes(), DEFAULT_HOME, *wheel_roots()]
    return which("nvcc", *(str(home / "bin") for home in homes))


COMPUTE_SANITIZER_MISSING = (
    "NVIDIA's compute-sanitizer is not here: it comes with the CUDA toolkit (put its bin/ on PATH "
    "or set CUDA_HOME)"
)


def find_compute_sanitizer() -> str | None:
    """compute-sanitizer on PATH, else in CUDA_HOME, CUDA_PATH or /usr/local/cuda (bin/, or
    the toolkit's compute-sanitizer/ folder)."""
    homes = [*cuda_homes(), DEFAULT_HOME]
    folders = [str(home / sub) for home in homes for sub in ("bin", "compute-sanitizer")]
    return which("compute-sanitizer", *folders)


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
    """NVRTC where cuda-pathfinder finds its header (the nvidia-cuda-nvrtc wheel,
    conda, CUDA_HOME); else in CUDA_HOME, CUDA_PATH, nvcc's toolkit,
    /usr/local/cuda; None if nowhere."""
    roots: list[Path] = []
    try:
        from cuda import pathfinder

        header_dir = pathfinder.find_nvidia_header_directory("nvrtc")
        if header_dir:
            roots.append(Path(header_dir).parent)
    except Exception:  # cuda-pathfinder absent or failing: the folders below
        pass
    nvcc = find_nvcc()
    roots += cuda_homes()
    if nvcc:
        roots.append(Path(os.path.realpath(nvcc)).parent.parent)
    roots.append(DEFAULT_HOME)
    for root in roots:
        found = _nvrtc_in(root)
        if found:
            return found
    return None


class CuptiUnavailable(RuntimeError):
    """CUPTI is not installed where hipkit looks (the message says where it looked)."""


@dataclass(frozen=True)
class Cupti:
    """A CUPTI installation: its headers, its library, and CUDA's headers."""

    include: Path  # holds cupti.h
    library: Path  # libcupti.so or libcupti.so.N
    cuda_include: Path  # holds cuda.h, which CUPTI's headers include


def _version_key(path: Path) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", path.name)]


def _library_in(folder: Path) -> Path | None:
    """libcupti.so, else the newest libcupti.so.N, in ``folder``."""
    if (folder / "libcupti.so").is_file():
        return folder / "libcupti.so"
    versioned = sorted(folder.glob("libcupti.so.*"), key=_version_key)
    return versioned[-1] if versioned else None


def _toolkit_folders(home: Path) -> list[tuple[Path, Path]]:
    """A CUDA toolkit's (include, lib) folders."""
    targets = home / "targets" / "x86_64-linux"
    return [(home / "include", home / "lib64"), (targets / "include", targets / "lib")]


def _toolkit_places(home: Path) -> list[tuple[Path, Path]]:
    """Where a CUDA toolkit keeps CUPTI: (include, lib) folders."""
    extras = home / "extras" / "CUPTI"
    return [(extras / "include", extras / "lib64"), *_toolkit_folders(home)]


def find_cupti(homes: Sequence[Path] | None = None, wheels: bool = True) -> Cupti:
    """CUPTI in the CUDA toolkits ``homes`` (default: :func:`cuda_homes`), else
    in NVIDIA's wheels in this Python (``wheels``: the CUPTI that hipkit's Python
    profiler loads too, so that a process holds one), else in /usr/local/cuda
    (when ``homes`` is not given).

    Raises
    ------
    CuptiUnavailable
        Where nothing was found, with the places looked at.
    """
    toolkits = cuda_homes() if homes is None else list(homes)
    last = [DEFAULT_HOME] if homes is None else []
    roots = wheel_roots() if wheels else []
    places = [place for home in toolkits for place in _toolkit_places(home)]
    places += [(root / "include", root / "lib") for root in roots]
    places += [place for home in last for place in _toolkit_places(home)]
    for include, lib in places:
        library = _library_in(lib)
        if not (include / "cupti.h").is_file() or library is None:
            continue
        # CUDA's headers, which CUPTI's include: beside CUPTI's, else a toolkit's, else a wheel's.
        headers = [include, *(inc for inc, _ in places if inc != include)]
        cuda_include = next((d for d in headers if (d / "cuda.h").is_file()), None)
        if cuda_include is None:
            raise CuptiUnavailable(
                f"CUPTI is in {include.parent}, but CUDA's headers (cuda.h) are not in "
                f"{', '.join(map(str, headers))}: install the CUDA toolkit, or set CUDA_HOME"
            )
        return Cupti(include, library, cuda_include)
    looked = ", ".join(str(home) for home in [*toolkits, *last]) or "no CUDA toolkit"
    wheel = ", ".join(str(r) for r in roots) if roots else "no nvidia-cuda-cupti wheel in this Python"
    raise CuptiUnavailable(
        f"CUPTI not found (looked in {looked}; {wheel}): install the CUDA toolkit's CUPTI and set "
        "CUDA_HOME, or pip install nvidia-cuda-cupti"
    )


CUBLAS_MISSING = (
    "cuBLAS not found (hipBLAS and rocBLAS are cuBLAS on NVIDIA): pip install nvidia-cublas, "
    "or install the CUDA toolkit's cuBLAS and set CUDA_HOME"
)


CUFFT_MISSING = (
    "cuFFT not found (hipFFT is cuFFT on NVIDIA): pip install nvidia-cufft, "
    "or install the CUDA toolkit's cuFFT and set CUDA_HOME"
)


@dataclass(frozen=True)
class VendorLibrary:
    """A CUDA library installation (cuBLAS, cuRAND): its headers and its libraries."""

    include: Path  # holds the library's header (cublas_v2.h, curand.h)
    libraries: tuple[Path, ...]  # libcublas.so[.N] and libcublasLt.so[.N]; libcurand.so[.N]

    @property
    def link_flags(self) -> list[str]:
        """nvcc's flags that link it, and find it where the program runs (an rpath)."""
        directory = str(self.libraries[0].parent)
        names = [
            f"-l{lib.name[3:-3]}" if lib.name.endswith(".so") else f"-l:{lib.name}" for lib in self.libraries
        ]
        return [f"-L{directory}", *names, "-Xlinker", f"-rpath,{directory}"]


Cublas = VendorLibrary  # cuBLAS and cuBLASLt, which cuBLAS calls


def _shared_library(folder: Path, stem: str) -> Path | None:
    """``stem``.so, else the newest ``stem``.so.N, in ``folder``."""
    if (folder / f"{stem}.so").is_file():
        return folder / f"{stem}.so"
    versioned = sorted(folder.glob(f"{stem}.so.[0-9]*"), key=_version_key)
    return versioned[-1] if versioned else None


def _vendor_library_in(include: Path, lib: Path, header: str, stems: tuple[str, ...]) -> VendorLibrary | None:
    if not (include / header).is_file():
        return None
    found = [_shared_library(lib, stem) for stem in stems]
    libraries = tuple(p for p in found if p is not None)
    return VendorLibrary(include, libraries) if len(libraries) == len(stems) else None


def _find_library(header: str, stems: tuple[str, ...], cuda12_folder: str) -> VendorLibrary | None:
    """A CUDA library in CUDA_HOME, CUDA_PATH, nvcc's toolkit, NVIDIA's wheels in this
    Python (``nvidia/cu13``, or CUDA 12's own folder, ``nvidia/<cuda12_folder>``), then
    /usr/local/cuda; None if nowhere."""
    homes = cuda_homes()
    nvcc = find_nvcc()
    if nvcc:
        homes.append(Path(os.path.realpath(nvcc)).parent.parent)
    places = [place for home in homes for place in _toolkit_folders(home)]
    roots = [*wheel_roots(), *(folder / cuda12_folder for folder in _nvidia_folders())]
    places += [(root / "include", root / "lib") for root in roots]
    places += _toolkit_folders(DEFAULT_HOME)
    for include, lib in places:
        found = _vendor_library_in(include, lib, header, stems)
        if found:
            return found
    return None


@functools.cache
def find_cublas() -> Cublas | None:
    """cuBLAS (``nvidia-cublas``), where :func:`_find_library` looks; None if nowhere
    (:data:`CUBLAS_MISSING` says what to install)."""
    return _find_library("cublas_v2.h", ("libcublas", "libcublasLt"), "cublas")


CURAND_MISSING = (
    "cuRAND not found (hipRAND is cuRAND on NVIDIA): pip install nvidia-curand, "
    "or install the CUDA toolkit's cuRAND and set CUDA_HOME"
)


@functools.cache
def find_cufft() -> VendorLibrary | None:
    """cuFFT (``nvidia-cufft``), where :func:`_find_library` looks; None if nowhere
    (:data:`CUFFT_MISSING` says what to install)."""
    return _find_library("cufft.h", ("libcufft",), "cufft")


@functools.cache
def find_curand() -> VendorLibrary | None:
    """cuRAND (``nvidia-curand``), where :func:`_find_library` looks; None if nowhere
    (:data:`CURAND_MISSING` says what to install)."""
    return _find_library("curand.h", ("libcurand",), "curand")
