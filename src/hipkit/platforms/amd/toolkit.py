"""Where ROCm's parts are, looked up once for every face of the AMD platform: its
install directory (``ROCM_PATH``, else ``/opt/rocm``), hipcc and what it needs
(the HIP runtime, its headers, the device libraries: on Debian and Ubuntu, the
packages of :data:`PACKAGES`), and ROCm's libraries.
"""

from __future__ import annotations

import ctypes
import glob
import os

from ... import config
from ..base.toolchain import which

__all__ = [
    "DEFAULT_ROCM",
    "PACKAGES",
    "PARTS",
    "find_amdclang",
    "find_hipcc",
    "hipcc_parts",
    "open_rocm_library",
    "rocm_lib",
    "rocm_path",
]

# Where ROCm is installed when ROCM_PATH does not say.
DEFAULT_ROCM = "/opt/rocm"
# Debian's and Ubuntu's packages of ROCm's compiler, runtime headers and device libraries.
PACKAGES = ("hipcc", "libamdhip64-dev", "rocm-device-libs")
# What hipcc needs besides itself: (role, file patterns, the package that has it on Debian).
PARTS = (
    (
        "HIP runtime",
        ("{rocm}/lib/libamdhip64.so", "/usr/lib/*/libamdhip64.so", "/usr/lib/libamdhip64.so"),
        "libamdhip64-dev",
    ),
    (
        "HIP headers",
        ("{rocm}/include/hip/hip_runtime.h", "/usr/include/hip/hip_runtime.h"),
        "libamdhip64-dev",
    ),
    (
        "device libraries",
        (
            "{rocm}/amdgcn/bitcode/ockl.bc",
            "{rocm}/lib/amdgcn/bitcode/ockl.bc",
            "{rocm}/lib/llvm/lib/clang/*/lib/amdgcn/bitcode/ockl.bc",
            "{rocm}/llvm/lib/clang/*/lib/amdgcn/bitcode/ockl.bc",
            "/usr/lib/*/amdgcn/bitcode/ockl.bc",
        ),
        "rocm-device-libs",
    ),
)


def rocm_path() -> str:
    """ROCm's install directory: ROCM_PATH, else /opt/rocm."""
    return config.get("ROCM_PATH") or DEFAULT_ROCM


def rocm_lib(name: str) -> str:
    """The path of the library ``name`` in ROCm's lib folder."""
    return os.path.join(rocm_path(), "lib", name)


def open_rocm_library(
    names: tuple[str, ...], what: str, install: str, unavailable: type[Exception]
) -> tuple[ctypes.CDLL, str]:
    """One of ROCm's libraries (hipBLAS, hipFFT, hipRAND): ``names[0]`` in ROCm's lib
    folder, else each of ``names`` as the loader finds it; the library and the name it
    loaded by.  ``unavailable`` (the face's error) says why not and what to install."""
    failures = []
    for candidate in (rocm_lib(names[0]), *names):
        if os.sep in candidate and not os.path.exists(candidate):
            failures.append(f"{candidate}: no such file")
            continue
        try:
            return ctypes.CDLL(candidate), candidate
        except OSError as exc:
            failures.append(str(exc))
    raise unavailable(
        f"ROCm's {what} ({names[0]}) was not found ({'; '.join(failures)}): install ROCm's "
        f"{install}, or set ROCM_PATH (now {rocm_path()})"
    )


def find_hipcc() -> str | None:
    """hipcc on PATH, else in ROCM_PATH or /opt/rocm."""
    return which("hipcc", os.path.join(rocm_path(), "bin"))


def find_amdclang() -> str | None:
    """ROCm's clang by its ROCm name (hipcc finds its clang itself: Debian's is clang++-15)."""
    rocm = rocm_path()
    return which("amdclang++", os.path.join(rocm, "llvm", "bin"), os.path.join(rocm, "bin"))


def hipcc_parts() -> list[tuple[str, str | None, str]]:
    """(role, path or None, Debian package) of each part hipcc needs besides itself."""
    rocm = rocm_path()
    found = []
    for role, patterns, package in PARTS:
        paths = [p for pattern in patterns for p in sorted(glob.glob(pattern.format(rocm=rocm)))]
        found.append((role, paths[0] if paths else None, package))
    return found
