"""Environment variables hipkit reads: one typed registry, documented in README.

Each variable is read when asked for (not at import), so tests and programs may
set them at run time.  A malformed value raises ``ValueError`` naming the variable.

Example
-------
>>> from hipkit import config
>>> config.get("HIPKIT_CPU_WARP_SIZE")
64
"""

from __future__ import annotations

import os

# Every hipkit command imports this module: it imports no more than os, so
# that hipkit run of a cached program starts at once (no dataclasses, typing
# or pathlib, a good part of its time).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

__all__ = ["Variable", "VARIABLES", "get", "cache_dir", "cache_path"]


class Variable:
    """One environment variable: its name, parser, default and documentation."""

    __slots__ = ("name", "parse", "default", "doc")

    def __init__(self, name: str, parse: Callable[[str], Any], default: Any, doc: str) -> None:
        self.name = name
        self.parse = parse
        self.default = default
        self.doc = doc

    def read(self) -> Any:
        raw = os.environ.get(self.name)
        if raw is None or raw.strip() == "":
            return self.default
        try:
            return self.parse(raw.strip())
        except ValueError as exc:
            raise ValueError(f"{self.name}={raw!r}: {exc}") from None


def _choice(*allowed: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        value = value.lower()
        if value not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}")
        return value

    return parse


def _int_in(*allowed: int) -> Callable[[str], int]:
    def parse(value: str) -> int:
        number = int(value)
        if number not in allowed:
            raise ValueError(f"expected one of {', '.join(map(str, allowed))}")
        return number

    return parse


def _name(value: str) -> str:
    value = value.lower()
    if not value.isidentifier():
        raise ValueError("expected a name")
    return value


def _int_between(low: int, high: int | None) -> Callable[[str], int]:
    expected = f"an integer from {low} to {high}" if high is not None else "a positive integer"

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"expected {expected}") from None
        if number < low or (high is not None and number > high):
            raise ValueError(f"expected {expected}")
        return number

    return parse


def _flag(value: str) -> bool:
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected 0 or 1")


def _march(value: str) -> str:
    # The compiler checks the value itself (hipkit.platforms.cpu.isa); this
    # keeps out what would be another option ("-O0") or no name at all.
    if not value.isascii() or not value[0].isalnum() or not all(c.isalnum() or c in ".+_-" for c in value):
        raise ValueError("expected native or a -march value such as x86-64-v3")
    return value


def _device_list(value: str) -> tuple[int, ...]:
    return tuple(int(part) for part in value.split(",") if part.strip())


VARIABLES: dict[str, Variable] = {
    v.name: v
    for v in (
        Variable(
            "HIPKIT_PLATFORM",
            _name,  # one of the registry's, which hipkit.platforms.forced() checks
            "",
            "Force a platform; default: the first usable of nvidia, amd, cpu.",
        ),
        Variable(
            "HIP_VISIBLE_DEVICES",
            _device_list,
            tuple[int, ...](),
            "Comma-separated device indices visible to hipkit (as in HIP).",
        ),
        Variable(
            "CUDA_VISIBLE_DEVICES",
            str,
            "",
            "NVIDIA GPUs the CUDA driver shows (indices or UUIDs); HIP_VISIBLE_DEVICES picks among them.",
        ),
        Variable(
            "ROCR_VISIBLE_DEVICES",
            str,
            "",
            "AMD GPUs ROCm's runtime shows, before HIP_VISIBLE_DEVICES; on the CPU, as the other two.",
        ),
        Variable(
            "HIPKIT_AMD_LIBRARY",
            str,
            "",
            "ROCm's HIP runtime for the amd platform (a path, or a name for the dynamic loader); "
            "default: $ROCM_PATH/lib or /opt/rocm/lib, then the system's libamdhip64.",
        ),
        Variable(
            "ROCM_PATH",
            str,
            "",
            "ROCm's install directory (its hipcc, libraries and headers); default: /opt/rocm.",
        ),
        Variable(
            "CUDA_HOME",
            str,
            "",
            "A CUDA toolkit where nvcc, NVRTC and CUPTI are looked for first (before NVIDIA's "
            "pip wheels and /usr/local/cuda).",
        ),
        Variable(
            "CUDA_PATH",
            str,
            "",
            "Another name for a CUDA toolkit, looked in after CUDA_HOME.",
        ),
        Variable(
            "HIPKIT_CACHE_DIR",
            str,
            "",
            "Where compiled kernels and the CPU runtime are cached; "
            "default: $XDG_CACHE_HOME/hipkit or ~/.cache/hipkit.",
        ),
        Variable(
            "HIPKIT_CPU_WARP_SIZE",
            _int_in(32, 64),
            64,
            "Warp size of the CPU devices: 64 (as AMD Instinct) or 32.",
        ),
        Variable(
            "HIPKIT_CPU_THREADS",
            _int_between(1, None),
            0,
            "Worker threads of the CPU devices together; default: one per core.",
        ),
        Variable(
            "HIPKIT_CPU_DEVICES",
            _int_between(1, 64),
            1,
            "How many devices the CPU platform has (1 to 64): the worker threads are divided "
            "among them, each getting at least one, and so is the host's memory.",
        ),
        Variable(
            "HIPKIT_CPU_EXEC",
            _choice("auto", "fiber"),
            "auto",
            "How CPU kernels with barriers run: auto (loops split at barriers "
            "where possible) or fiber (one user-space context per thread).",
        ),
        Variable(
            "HIPKIT_CPU_ISA",
            _march,
            "native",
            "The instruction set of CPU kernels and programs: native (this CPU) or a -march value "
            "of the C++ compiler, such as x86-64-v2, x86-64-v3 (AVX2), x86-64-v4 (AVX-512), armv8.2-a.",
        ),
        Variable(
            "HIPKIT_CXX",
            str,
            "g++",
            "The C++ compiler the CPU platform uses; a cross compiler (aarch64-linux-gnu-g++) "
            "makes hipkit cc build programs for its architecture.",
        ),
        Variable(
            "HIPKIT_GPU_LAUNCH",
            _choice("compiled", "bindings"),
            "compiled",
            "How the NVIDIA platform launches kernels: compiled (a small extension built "
            "with HIPKIT_CXX on first use, the fastest) or bindings (cuda-bindings' call).",
        ),
        Variable(
            "HIPKIT_MEMORY_POOL",
            _flag,
            True,
            "on: device arrays' memory is cached by a pool per device and reused (as CuPy's); "
            "off: every array's memory is the platform's malloc and is freed with the array.",
        ),
        Variable(
            "HIPKIT_OPENBLAS",
            str,
            "",
            "The OpenBLAS library file the CPU platform's hipBLAS uses; default: the "
            "scipy-openblas32 wheel's, then the system's libopenblas.so.0.",
        ),
        Variable(
            "HIPKIT_RTC_PYTHON",
            str,
            "",
            "Read by programs built by `hipkit cc` for the CPU: the Python (with hipkit installed) "
            "that their hiprtc runs hipkit's compiler with; default: the one that built the program.",
        ),
        Variable(
            "HIP_LAUNCH_BLOCKING",
            _flag,
            False,
            "1: every kernel launch waits for the kernel to finish.",
        ),
        Variable(
            "HIPKIT_SANITIZE",
            _choice("off", "memcheck"),
            "off",
            "Set by `hipkit sanitize` (or by hand): the tool that checks CPU kernels. memcheck: "
            "kernels are built with probes on every access, and the runtime reports accesses out "
            "of bounds or to freed memory; off: kernels as always.",
        ),
        Variable(
            "HIPKIT_SANITIZE_PRINT_LIMIT",
            _int_between(0, None),
            100,
            "How many errors the sanitizer prints (0: all); the summary counts every one.",
        ),
        Variable(
            "HIPKIT_SANITIZE_LEAK_CHECK",
            _choice("no", "full"),
            "no",
            "full: at exit the sanitizer reports every allocation never freed, each an error.",
        ),
        Variable(
            "HIPKIT_SANITIZE_ERROR_EXITCODE",
            _int_between(0, 255),
            0,
            "The exit status of a process in which the sanitizer found errors (0: its own).",
        ),
        Variable(
            "HIPKIT_PROF_DIR",
            str,
            "",
            "Set by `hipkit prof` for the program it runs: trace the process from hipkit's "
            "import to its exit, spooling records into this directory.",
        ),
        Variable(
            "HIPKIT_LOG_LEVEL",
            _choice("debug", "info", "warning", "error"),
            "warning",
            "Level of hipkit's log messages (logger 'hipkit').",
        ),
    )
}


def get(name: str):
    """Return the parsed value of a registered environment variable."""
    return VARIABLES[name].read()


def cache_dir() -> Path:
    """The directory of hipkit's on-disk caches (created on demand)."""
    from pathlib import Path

    return Path(cache_path())


def cache_path() -> str:
    """:func:`cache_dir` as a string (what hipkit run's cached path needs)."""
    configured = get("HIPKIT_CACHE_DIR")
    if configured:
        return os.path.expanduser(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hipkit")
