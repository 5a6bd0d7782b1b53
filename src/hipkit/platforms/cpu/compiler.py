"""Compile HIP C++ for the CPU: preprocess, transform, build a shared object.

The steps, each with the system C++ compiler (``HIPKIT_CXX``, default g++):

1. preprocess the source with hipkit_cpu/kernel.h included first;
2. rewrite the user's part with :mod:`.transform` (kernels become block functions);
3. compile the result into ``module.so``, linked against libhipkit_cpu.

The result is cached by content (see :mod:`hipkit._cache`).  If the code of a
kernel split at its barriers does not compile, the unit is built again with
every such kernel on fibers, the general mode.

A translation unit of a whole program (``hipkit cc``) takes the same steps
with hip/hip_runtime.h (and so the host API) included first, the transform's
program mode, and an object file as the result: see
:func:`preprocess_program_unit` and :func:`compile_program_unit`.
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

from ... import _cache, config, cxx
from ..._errors import CompileError, CompileOptionError
from ...tables import INCLUDE_DIR as TABLES_INCLUDE_DIR
from ..base.platform import PORTABLE_INCLUDE_DIR
from . import _lib, isa
from .transform import INCLUDE_DIR, TransformError, transform

_log = logging.getLogger("hipkit")

# Kernel code as GPU compilers treat it: no errno or floating-point traps,
# fused multiply-add (nvcc's default); the target ISA is isa.march_flag().  A
# loop over a block's threads that copies or clears is no call of memcpy or
# memset: for a block's thousand
# elements glibc's takes longer than the loop (a tree reduction's first
# stretch, `s[t] = in[i]`, spent a third of its time there).
_CODE_FLAGS = (
    "-fno-math-errno",
    "-fno-trapping-math",
    "-ffp-contract=fast",
    "-fno-tree-loop-distribute-patterns",
    "-Wno-unknown-pragmas",
)
# -fno-gnu-unique keeps inline statics (shared memory in device functions)
# per module, so that a module really unloads and never shares state with
# another; -Bsymbolic makes the module's own names (a kernel called "step")
# mean its own code, not a library's.
_KERNEL_FLAGS = (*_CODE_FLAGS, "-fPIC", "-shared", "-fno-gnu-unique", "-Wl,-Bsymbolic")

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
    """The compiler's version line and the host CPU (for -march=native; the
    target ISA itself is in each key, through :func:`isa.march_flag`)."""
    cxx = config.get("HIPKIT_CXX")
    try:
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    except FileNotFoundError:
        raise CompileError(f"C++ compiler {cxx!r} not found (set HIPKIT_CXX)") from None
    return version + platform.machine() + _cache.host_cpu()


@cache
def _sources_key() -> str:
    here = Path(__file__).parent
    # This module, the ISA's marker, the transform and what it parses with.
    files = [Path(__file__), here / "isa.py", *sorted((here / "transform").glob("*.py")), *cxx.source_files()]
    for folder in (INCLUDE_DIR, PORTABLE_INCLUDE_DIR, TABLES_INCLUDE_DIR):
        files += sorted(folder.rglob("*.h"))
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
            "\0".join(probe_flags()),
            isa.march_flag(),
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


# hipkit sanitize's probes (platforms/cpu/runtime/sanitize.cpp): GCC's address
# sanitizer in its callback form, each load and store of kernel code a call into the
# runtime (no shadow memory, no stack or global instrumentation), and lines for its
# reports.  Built when HIPKIT_SANITIZE names a tool, as a build of its own (the key).
_PROBE_FLAGS = (
    "-fsanitize=kernel-address",
    "--param=asan-instrumentation-with-call-threshold=0",
    "--param=asan-stack=0",
    "--param=asan-globals=0",
    "-g",
)


def probe_flags() -> list[str]:
    """The flags of an instrumented build, or none (HIPKIT_SANITIZE off)."""
    return list(_PROBE_FLAGS) if config.get("HIPKIT_SANITIZE") != "off" else []


def probe_defines() -> list[str]:
    """What an instrumented build's preprocessing defines (hipkit_cpu/abi.h reads it)."""
    return ["-D__HK_PROBES"] if config.get("HIPKIT_SANITIZE") != "off" else []


def _common_flags(warp_size: int) -> list[str]:
    # The target ISA in preprocessing too, so that the source sees its macros (__AVX2__).
    return [
        isa.march_flag(),
        f"-D__HK_WARP_SIZE={warp_size}",
        "-isystem",
        str(INCLUDE_DIR),
        "-isystem",
        str(PORTABLE_INCLUDE_DIR),
        "-isystem",
        str(TABLES_INCLUDE_DIR),  # hipError_t's table (program headers)
    ]


def _std_flags(user_options: list[str]) -> list[str]:
    return [] if any(o.startswith("-std=") for o in user_options) else ["-std=c++17"]


def _opt_flags(user_options: list[str]) -> list[str]:
    return [] if any(o.startswith("-O") for o in user_options) else ["-O3"]


def _build(tmp, source, name, user_options, name_expressions, headers, warp_size, force_fiber) -> None:
    cxx = config.get("HIPKIT_CXX")
    src_name = os.path.basename(name) or "kernel.hip"
    (tmp / src_name).write_text(source)
    common = _common_flags(warp_size)
    if headers:
        for include_name, text in headers.items():
            path = tmp / "include" / include_name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        common += ["-iquote", "include", "-I", "include"]
    std = _std_flags(user_options)
    pre = _run(
        [
            cxx,
            "-E",
            "-x",
            "c++",
            *std,
            *common,
            isa.marker_define(user_options),
            *probe_defines(),
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
    lib_dir = _lib.lib_dir()
    cmd = [
        cxx,
        "-x",
        "c++-cpp-output",
        *std,
        *_opt_flags(user_options),
        *_KERNEL_FLAGS,
        *probe_flags(),
        *([f"-fdebug-prefix-map={tmp}=."] if probe_flags() else []),  # lines name the source as given
        *common,
        *user_options,
        "kernel.ii",
        "-o",
        "module.so",
        f"-L{lib_dir}",
        "-lhipkit_cpu",
        f"-Wl,-rpath,{lib_dir}",
    ]
    result, log = _transform_and_compile(text, name, tmp, cmd, name_expressions, force_fiber, program=False)
    meta = {
        "kernels": [vars(k) for k in result.kernels],
        "registered": result.registered,
        "log": log,
        "command": shlex.join(cmd),
    }
    (tmp / "kernels.json").write_text(json.dumps(meta, indent=1))


def _transform_and_compile(
    text: str,
    name: str,
    tmp: Path,
    cmd: list[str],
    name_expressions: list[str],
    force_fiber: bool,
    program: bool,
):
    """Transform the preprocessed ``text`` into ``tmp/kernel.ii`` and run ``cmd``
    (which compiles it) in ``tmp`` (a program's: in the working directory);
    returns the transform's result and the compiler's log.  Split kernels whose
    code fails to compile are built on fibers, with a warning."""
    fiber = {"": "HIPKIT_CPU_EXEC=fiber"} if force_fiber else {}
    probed = bool(probe_flags())  # the probes' reports name the thread: threadIdx kept in TLS
    while True:
        try:
            result = transform(text, name_expressions, fiber=fiber, program=program, thread_identity=probed)
        except TransformError as exc:
            if program:  # the message names the user's file and line already
                raise CompileError(f"compiling {name} failed", f"{exc}\n") from None
            raise CompileError(f"{name}: {exc}") from None
        (tmp / "kernel.ii").write_text(result.text)
        # A program is compiled where the user ran hipkit cc, so that the
        # compiler finds the user's files and quotes their lines.
        done = _run(cmd, Path.cwd() if program else tmp)
        log = _relative(done.stderr, tmp)
        if done.returncode == 0:
            return result, log
        failed = _failed_split_kernels(result, log, program)
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


# ---------------------------------------------------------------- whole programs


def program_flags(user_options: list[str], warp_size: int) -> list[str]:
    """The flags a program unit is compiled with (its cache key includes them)."""
    return [
        *_std_flags(user_options),
        *_opt_flags(user_options),
        *_CODE_FLAGS,
        *probe_flags(),
        *_common_flags(warp_size),
    ]


def preprocess_program_unit(
    source: str, out: Path, user_options: list[str], warp_size: int, depfile: Path | None = None
) -> None:
    """Preprocess the program source file ``source`` (a path as the user gave
    it, relative to the working directory) into ``out``, with
    hip/hip_runtime.h and the host API included first; with ``depfile``, the
    compiler also lists there every file it read (``-MD``, make's syntax).

    Raises
    ------
    CompileError
        With the preprocessor's diagnostics (a missing header, an #error).
    """
    cxx = config.get("HIPKIT_CXX")
    cmd = [
        cxx,
        "-E",
        "-x",
        "c++",
        *_std_flags(user_options),
        *_common_flags(warp_size),
        "-D__HIPKIT_PROGRAM__=1",
        isa.marker_define(user_options),  # hipkit run's check of the executable
        *probe_defines(),
        "-include",
        "hip/hip_runtime.h",
        *user_options,
        source,
        "-o",
        str(out),
        *(["-MD", "-MF", str(depfile)] if depfile else []),
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise CompileError(f"C++ compiler {cxx!r} not found (set HIPKIT_CXX)") from None
    if done.returncode != 0:
        raise CompileError(f"preprocessing {source} failed", done.stderr)


def program_unit_key(preprocessed: bytes, user_options: list[str], warp_size: int) -> str:
    """The cache key of a program unit's object: its preprocessed text, the
    flags, HIPKIT_CPU_EXEC, the compiler and hipkit's transform and headers."""
    return _cache.digest(
        [
            preprocessed,
            "\0".join(program_flags(user_options, warp_size)),
            "\0".join(user_options),
            config.get("HIPKIT_CPU_EXEC"),
            compiler_identity(),
            _sources_key(),  # the transform, the C++ parsing (the launch parser too), the headers
        ]
    )


def compile_program_unit(
    preprocessed: Path, name: str, tmp: Path, user_options: list[str], warp_size: int
) -> str:
    """Transform and compile a preprocessed program unit into ``tmp/unit.o``;
    returns the compiler's warnings.

    Raises
    ------
    CompileError
        With the diagnostics, which name the user's files and lines.
    """
    cmd = [
        config.get("HIPKIT_CXX"),
        "-x",
        "c++-cpp-output",
        *program_flags(user_options, warp_size),
        *user_options,
        "-c",
        str(tmp / "kernel.ii"),
        "-o",
        str(tmp / "unit.o"),
    ]
    force_fiber = config.get("HIPKIT_CPU_EXEC") == "fiber"
    _, log = _transform_and_compile(preprocessed.read_text(), name, tmp, cmd, [], force_fiber, program=True)
    return log


_ERROR_LINE = re.compile(r"^(.*?):(\d+):(?:\d+:)? (?:fatal )?error:", re.M)


def _failed_split_kernels(result, log: str, program: bool = False) -> list[str]:
    """Split kernels an error of ``log`` points into; all of them if some
    error lies outside every kernel and there are split kernels to blame.
    In a program, an error in the user's code outside every kernel (host
    code) is the user's: then none."""
    kernels = result.kernels
    split = [k for k in kernels if k.mode == "split"]
    errors = [(m.group(1), int(m.group(2))) for m in _ERROR_LINE.finditer(log)]
    if program and any(
        f in result.user_files
        and not any(f == k.source[0] and k.source[1] <= line <= k.source[2] for k in kernels)
        for f, line in errors
    ):
        return []
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
