"""Compile HIP C++ for the CPU: preprocess, transform, build a shared object.

The steps, each with the system C++ compiler (``HIPKIT_CXX``, default g++):

1. preprocess the source with hipkit_cpu/kernel.h included first;
2. rewrite the user's part with :mod:`.transform` (kernels become block functions);
3. compile the result into ``module.so``, linked against libhipkit_cpu.

The result is cached by content (see :mod:`hipkit._cache`).  If the code of a
kernel split at its barriers does not compile, the unit is built again with
every such kernel on fibers, the general mode.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import platform
import re
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ... import _cache, config
from ..._errors import CompileError, CompileOptionError
from ..base import PORTABLE_INCLUDE_DIR
from . import _lib
from .transform import INCLUDE_DIR, TransformError, transform

_log = logging.getLogger("hipkit")

# Kernel code as GPU compilers treat it: no errno or floating-point traps,
# fused multiply-add (nvcc's default).  -fno-gnu-unique keeps inline statics
# (shared memory in device functions) per module, so that a module really
# unloads and never shares state with another; -Bsymbolic makes the module's
# own names (a kernel called "step") mean its own code, not a library's.
_KERNEL_FLAGS = (
    "-march=native",
    "-fPIC",
    "-shared",
    "-fno-math-errno",
    "-fno-trapping-math",
    "-ffp-contract=fast",
    "-fno-gnu-unique",
    "-Wno-unknown-pragmas",
    "-Wl,-Bsymbolic",
)

# Options a user may pass, by prefix; all others are rejected.
_PASS_THROUGH = ("-D", "-U", "-I", "-std=", "-O", "-g", "-W", "-w", "-f", "-m")
_IGNORED = ("--offload-arch=", "-fgpu-rdc", "--gpu-architecture", "-arch")


@dataclass(frozen=True)
class Binary:
    """A compiled kernel module for the CPU."""

    path: Path  # module.so
    kernels: tuple[dict, ...]  # name, mode, template, reason
    registered: tuple[tuple[str, str], ...]  # (lookup name, mode)
    log: str  # compiler warnings


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


@cache
def compiler_identity() -> str:
    """The compiler's version line and the host CPU (for -march=native)."""
    cxx = config.get("HIPKIT_CXX")
    try:
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    except FileNotFoundError:
        raise CompileError(f"C++ compiler {cxx!r} not found (set HIPKIT_CXX)") from None
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "flags", "Features")):
                cpu += line
                if line.startswith(("flags", "Features")):
                    break
    except OSError:
        pass
    return version + platform.machine() + cpu


@cache
def _sources_key() -> str:
    here = Path(__file__).parent
    package = here.parent.parent  # the lexer and parser the transform uses
    files = [*sorted(here.glob("*.py")), package / "lexer.py", package / "cxxparse.py"]
    files += sorted(INCLUDE_DIR.rglob("*.h")) + sorted(PORTABLE_INCLUDE_DIR.rglob("*.h"))
    return _cache.digest([f.read_bytes() for f in files])


def normalize_options(options: tuple[str, ...] | list[str]) -> list[str]:
    """Check user options; raise CompileError for one the CPU compiler cannot take."""
    out = []
    it = iter(options)
    for opt in it:
        if opt in ("--use_fast_math", "-use_fast_math"):
            out.append("-ffast-math")
        elif opt in ("-I", "-D", "-U"):
            value = next(it, None)
            if value is None:
                raise CompileOptionError(f"option {opt} needs a value")
            out.append(opt + value)
        elif opt.startswith(_IGNORED):
            continue
        elif opt.startswith("--std="):  # hiprtc's and NVRTC's spelling
            out.append(opt[1:])
        elif opt.startswith(_PASS_THROUGH):
            out.append(opt)
        else:
            raise CompileOptionError(f"unsupported compile option for the CPU platform: {opt!r}")
    return out


def compile_source(
    source: str,
    *,
    name: str = "kernel.hip",
    options: tuple[str, ...] | list[str] = (),
    name_expressions: tuple[str, ...] | list[str] = (),
    headers: dict[str, str] | None = None,
    warp_size: int = 64,
) -> Binary:
    """Compile ``source`` into a cached kernel module for the CPU.

    ``headers`` maps include names to contents (as hiprtc's headers): the
    source can ``#include`` them.

    Raises
    ------
    CompileError
        With the compiler's diagnostics (user's file name, lines and columns).
    """
    user_options = normalize_options(options)
    force_fiber = config.get("HIPKIT_CPU_EXEC") == "fiber"
    key = _cache.digest(
        [
            source,
            name,
            "\0".join(user_options),
            "\0".join(name_expressions),
            "\0".join(f"{k}\0{v}" for k, v in sorted((headers or {}).items())),
            str(warp_size),
            str(force_fiber),
            compiler_identity(),
            _sources_key(),
            _lib.build_key(),
        ]
    )

    def build(tmp: Path) -> None:
        _build(tmp, source, name, user_options, list(name_expressions), headers or {}, warp_size, force_fiber)

    entry = _cache.entry("kernels", key, build)
    meta = json.loads((entry / "kernels.json").read_text())
    return Binary(
        entry / "module.so",
        tuple(meta["kernels"]),
        tuple(tuple(r) for r in meta["registered"]),
        meta["log"],
    )


def _build(tmp, source, name, user_options, name_expressions, headers, warp_size, force_fiber) -> None:
    cxx = config.get("HIPKIT_CXX")
    src_name = os.path.basename(name) or "kernel.hip"
    (tmp / src_name).write_text(source)
    common = [
        f"-D__HK_WARP_SIZE={warp_size}",
        "-isystem",
        str(INCLUDE_DIR),
        "-isystem",
        str(PORTABLE_INCLUDE_DIR),
    ]
    if headers:
        for include_name, text in headers.items():
            path = tmp / "include" / include_name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        common += ["-iquote", "include", "-I", "include"]
    std = [] if any(o.startswith("-std=") for o in user_options) else ["-std=c++17"]
    pre = _run(
        [
            cxx,
            "-E",
            "-x",
            "c++",
            *std,
            *common,
            "-include",
            "hipkit_cpu/kernel.h",
            *user_options,
            src_name,
            "-o",
            "unit.ii",
        ],
        tmp,
    )
    if pre.returncode != 0:
        raise CompileError(f"preprocessing {name} failed", _relative(pre.stderr, tmp))
    text = (tmp / "unit.ii").read_text()
    fiber = {"": "HIPKIT_CPU_EXEC=fiber"} if force_fiber else {}
    while True:
        try:
            result = transform(text, name_expressions, fiber=fiber)
        except TransformError as exc:
            raise CompileError(f"{name}: {exc}") from None
        (tmp / "kernel.ii").write_text(result.text)
        lib_dir = _lib.lib_dir()
        opt = [] if any(o.startswith("-O") for o in user_options) else ["-O3"]
        cmd = [
            cxx,
            "-x",
            "c++-cpp-output",
            *std,
            *opt,
            *_KERNEL_FLAGS,
            *common,
            *user_options,
            "kernel.ii",
            "-o",
            "module.so",
            f"-L{lib_dir}",
            "-lhipkit_cpu",
            f"-Wl,-rpath,{lib_dir}",
        ]
        done = _run(cmd, tmp)
        log = _relative(done.stderr, tmp)
        if done.returncode == 0:
            break
        failed = _failed_split_kernels(result.kernels, log)
        if not failed:
            raise CompileError(f"compiling {name} failed", log)
        # A limit of the splitter, not the user's error: say so, and build
        # those kernels on fibers.
        _log.warning(
            "%s: kernels %s run on fibers, their split code did not compile:\n%s",
            name,
            ", ".join(failed),
            log,
        )
        fiber.update((k, "the split code did not compile") for k in failed)
    meta = {
        "kernels": [vars(k) for k in result.kernels],
        "registered": result.registered,
        "log": log,
        "command": shlex.join(cmd),
    }
    (tmp / "kernels.json").write_text(json.dumps(meta, indent=1))


_ERROR_LINE = re.compile(r"^(.*?):(\d+):(?:\d+:)? (?:fatal )?error:", re.M)


def _failed_split_kernels(kernels, log: str) -> list[str]:
    """Split kernels an error of ``log`` points into; all of them if some
    error lies outside every kernel and there are split kernels to blame."""
    split = [k for k in kernels if k.mode == "split"]
    errors = [(m.group(1), int(m.group(2))) for m in _ERROR_LINE.finditer(log)]
    blamed = [
        k.name
        for k in split
        if any(f == k.source[0] and k.source[1] <= line <= k.source[2] for f, line in errors)
    ]
    inside_any = all(
        any(f == k.source[0] and k.source[1] <= line <= k.source[2] for k in kernels) for f, line in errors
    )
    return blamed if inside_any else [k.name for k in split]


def module_file(data: bytes) -> Path:
    """A module's bytes (from Binary.path) as a file the runtime can load,
    kept in the cache under their hash."""

    def write(tmp: Path) -> None:
        (tmp / "module.so").write_bytes(data)

    return _cache.entry("modules", _cache.digest([data]), write) / "module.so"


@contextlib.contextmanager
def private_copy(path: Path):
    """A copy of a module file to load a second instance of it; the file is
    removed when the block ends (a loaded library stays mapped)."""
    fd, name = tempfile.mkstemp(suffix=".so", dir=path.parent.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(path.read_bytes())
        yield Path(name)
    finally:
        os.unlink(name)


def _relative(log: str, tmp: Path) -> str:
    """Compiler output without the private build directory in file names."""
    return log.replace(str(tmp) + os.sep, "")
