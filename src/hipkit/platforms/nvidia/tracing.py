"""The CUPTI injection library with which ``hipkit prof`` traces NVIDIA programs.

``cupti_inject.cpp``, with the parts it includes (``cupti_*.h`` beside it), is
compiled on first use with the C++ compiler (``HIPKIT_CXX``) against CUPTI's
headers and library — the CUDA toolkit's
(``$CUDA_HOME``, ``$CUDA_PATH``: ``extras/CUPTI`` or the toolkit's own
include and lib folders), else NVIDIA's ``nvidia-cuda-cupti`` wheel in this
Python (``nvidia/cu13``, the CUPTI hipkit's Python profiler loads), else
``/usr/local/cuda`` — into the build cache, keyed by everything
it is made from.  With it come the HIP names of CUDA's functions, taken from
hipify's table (``hipkit/tables/names.tsv``) into ``hip_names.inc``, and the names of
the newest versions of CUPTI's record structs in the headers found.

:func:`environment` gives the variables that make a program load it:
``CUDA_INJECTION64_PATH`` (the library, which the CUDA driver loads at
``cuInit``) and ``NVTX_INJECTION64_PATH`` (libcupti, which records NVTX marks
and ranges, roctx's on NVIDIA).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tempfile
from pathlib import Path

from ... import _cache, config
from ..._errors import CompileError
from ...tables.names import table
from ..base.faces import ProgramTracingUnavailable
from ..base.platform import PORTABLE_INCLUDE_DIR
from .toolkit import Cupti, CuptiUnavailable, find_cupti

SOURCE = Path(__file__).with_name("cupti_inject.cpp")
# The library's other parts, which SOURCE includes (found through -I SOURCE.parent).
PARTS = sorted(SOURCE.parent.glob("cupti_*.h"))
WRITER = PORTABLE_INCLUDE_DIR / "hipkit_trace" / "native_trace.h"
LIBRARY_NAME = "libhipkit_cupti.so"
# Kinds of hipify's table that are not functions.
_NOT_FUNCTIONS = ("numeric_literal", "type", "define", "include", "include_cuda_main_h")
# The record structs the library reads: macro -> CUPTI's struct name without its version.
_RECORDS = {
    "HK_KERNEL_RECORD": "CUpti_ActivityKernel",
    "HK_MEMCPY_RECORD": "CUpti_ActivityMemcpy",
    "HK_MEMCPY_PTOP_RECORD": "CUpti_ActivityMemcpyPtoP",
    "HK_MEMSET_RECORD": "CUpti_ActivityMemset",
    "HK_MARKER_RECORD": "CUpti_ActivityMarker",
}


def hip_names() -> list[tuple[str, str]]:
    """CUDA runtime and driver functions and their HIP names, sorted by CUDA name
    (as strcmp orders them: the library looks names up by bisection)."""
    pairs = {}
    for cuda, entry in table().identifiers.items():
        if entry.library not in ("runtime", "driver") or entry.kind in _NOT_FUNCTIONS:
            continue
        hip = entry.hip.rstrip("_")  # hipify's mark of a name it does not translate as it is
        if re.fullmatch(r"cu[A-Za-z0-9_]+", cuda) and re.fullmatch(r"hip[A-Za-z0-9_]+", hip):
            pairs[cuda] = hip
    return sorted(pairs.items(), key=lambda pair: pair[0].encode())


def _record_defines(header: str) -> list[str]:
    """-D naming the newest version of each record struct the library reads."""
    defines = []
    for macro, base in _RECORDS.items():
        versions = [int(v) for v in re.findall(rf"\}}\s*{base}(\d+)\s*;", header)]
        if not versions:
            raise CompileError(f"CUPTI's cupti_activity.h has no {base}N struct: an unknown CUPTI version")
        defines.append(f"-D{macro}={base}{max(versions)}")
    if "cuptiActivityRegisterTimestampCallback" in header:
        defines.append("-DHK_CUPTI_TIMESTAMP_CALLBACK=1")
    return defines


def _compiler_version(cxx: list[str]) -> str:
    try:
        done = subprocess.run([*cxx, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CompileError(f"cannot run the C++ compiler {shlex.join(cxx)}: {exc}") from None
    return done.stdout


def _command(cupti: Cupti) -> tuple[list[str], list[str]]:
    """The compiler's flags before the source and the link's after it."""
    header = (cupti.include / "cupti_activity.h").read_text(errors="replace")
    compile_flags = [
        *shlex.split(config.get("HIPKIT_CXX")),
        "-O2",
        "-std=c++17",
        "-fPIC",
        "-shared",
        "-pthread",
        "-fvisibility=hidden",  # InitializeInjection alone is the driver's to call
        *_record_defines(header),
        f"-I{cupti.include}",
        f"-I{cupti.cuda_include}",
        f"-I{PORTABLE_INCLUDE_DIR}",
        f"-I{SOURCE.parent}",
    ]
    lib = cupti.library
    return compile_flags, [f"-L{lib.parent}", f"-l:{lib.name}", f"-Wl,-rpath,{lib.parent}", "-ldl"]


def compile_library(cupti: Cupti, source: Path, output: Path) -> None:
    """Compile ``source`` — ``cupti_inject.cpp`` or a file that includes it —
    into the shared library ``output``, with the CUDA -> HIP names.

    Raises
    ------
    CompileError
        With the compiler's diagnostics.
    """
    compile_flags, link = _command(cupti)
    with tempfile.TemporaryDirectory(prefix="hipkit-cupti-") as names_dir:
        (Path(names_dir) / "hip_names.inc").write_text(_names_text())
        command = [*compile_flags, f"-I{names_dir}", str(source), "-o", str(output), *link]
        try:
            done = subprocess.run(command, capture_output=True, text=True)
        except OSError as exc:
            raise CompileError(f"cannot run the C++ compiler {command[0]}: {exc}") from None
    if done.returncode != 0:
        raise CompileError(f"building {output.name} against CUPTI failed", done.stdout + done.stderr)


def _names_text() -> str:
    return "".join(f'{{"{cuda}", "{hip}"}},\n' for cuda, hip in hip_names())


def library(cupti: Cupti | None = None) -> Path:
    """The injection library for ``cupti`` (default: :func:`~.toolkit.find_cupti`), built on first use.

    Raises
    ------
    CuptiUnavailable
        CUPTI is not installed.
    CompileError
        The library does not compile (with the compiler's diagnostics).
    """
    cupti = cupti or find_cupti()
    compile_flags, link = _command(cupti)
    parts: list[str | bytes] = [SOURCE.read_bytes(), *(p.read_bytes() for p in PARTS), WRITER.read_bytes()]
    parts += [_names_text(), str(cupti.library)]
    parts += link
    header = (cupti.include / "cupti_activity.h").read_bytes()
    parts += [*compile_flags, header, _compiler_version(compile_flags[:1])]
    entry = _cache.entry(
        "cupti-inject", _cache.digest(parts), lambda tmp: compile_library(cupti, SOURCE, tmp / LIBRARY_NAME)
    )
    return entry / LIBRARY_NAME


def environment(cupti: Cupti | None = None) -> dict[str, str]:
    """The variables that make a program's CUDA load the tracer (raises as :func:`library`)."""
    cupti = cupti or find_cupti()
    return {"CUDA_INJECTION64_PATH": str(library(cupti)), "NVTX_INJECTION64_PATH": str(cupti.library)}


def program_tracing() -> dict[str, str]:
    """The platform's program tracing face: :func:`environment`, where an NVIDIA
    GPU and nvcc are present (the library is built on first use); nothing where
    there is no NVIDIA program to trace.

    Raises
    ------
    ProgramTracingUnavailable
        CUPTI is missing, or the library does not build (with the diagnostics).
    """
    from .toolchain import NvidiaToolchain

    if not NvidiaToolchain.device_present() or NvidiaToolchain.missing():
        return {}
    try:
        return environment()
    except (CuptiUnavailable, CompileError) as exc:
        log = f"\n{exc.log}" if isinstance(exc, CompileError) and exc.log else ""
        raise ProgramTracingUnavailable(f"NVIDIA programs will not be traced: {exc}{log}") from None
