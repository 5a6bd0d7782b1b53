"""Compile HIP C++ for NVIDIA GPUs with NVRTC: a cubin and its kernel table.

Needs no GPU and no CUDA toolkit: NVRTC comes from the ``nvidia-cuda-nvrtc``
wheel through ``cuda-bindings`` (``pip install 'hipkit[nvidia]'``), and the
headers that map HIP's device dialect onto CUDA ship in ``include/``
(pre-included, so a source need not include ``hip/hip_runtime.h``).

Kernels are found and described as on the AMD platform (see
:mod:`hipkit.platforms._gpu.compiler`): for each kernel hipkit's lexer finds,
and for each name expression, NVRTC gives the lowered (mangled) name, and a
descriptor appended to the source records each parameter's size, alignment
and kind, read back from the cubin's symbol table.  A launch therefore needs
nothing from the driver.  Results are cached on disk by content.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from ..._errors import CompileError, CompileOptionError
from ...tables import INCLUDE_DIR as TABLES_INCLUDE_DIR
from .._gpu import compiler as gpu
from .._gpu.compiler import GpuBinary, KernelEntry
from .._gpu.elf import Elf
from ..base.platform import PORTABLE_INCLUDE_DIR, Param, Target

INCLUDE_DIR = Path(__file__).parent / "include"
WARP_SIZE = 32

# The options every compile gets.  -default-device makes functions and
# namespace-scope variables without __host__/__device__ device code, as
# everything is on the CPU platform (NVRTC rejects host variables otherwise).
_FIXED_OPTIONS = (
    "-default-device",
    "--pre-include=hip/hip_runtime.h",
    f"-I{INCLUDE_DIR}",
    f"-I{PORTABLE_INCLUDE_DIR}",
    f"-I{TABLES_INCLUDE_DIR}",  # generated tables the portable headers read (hipkit_rand/)
    "-D__HIP_PLATFORM_NVIDIA__",
    "-D__HIP_PLATFORM_NVCC__",
)
# hipkit's compile options as NVRTC's (see gpu.normalize_options).
_OPTIONS = {
    **{f"-O{n}": (f"--ptxas-options=-O{n}",) for n in "0123"},
    # NVRTC optimizes by default and has no other levels.
    **dict.fromkeys(("-O", "-Os", "-Og", "-Oz", "-Ofast"), ()),
    "-g": ("--device-debug", "--dopt=on"),  # debug information for optimized code
    "-G": ("--device-debug",),
    "-lineinfo": ("--generate-line-info",),
    "--use_fast_math": ("--use_fast_math",),
    "-w": ("-w",),
}
_ERROR = re.compile(r"^(.*)\((\d+)\): (?:catastrophic )?error", re.M)


class Binary(GpuBinary):
    """A module compiled for an NVIDIA GPU: a cubin (an ELF for target.arch)
    and its kernel table.  :meth:`from_bytes` gives None for a cubin, PTX or
    fatbin from elsewhere, loaded with the driver's own parameter information."""

    magic = b"HKNVBIN1"
    vendor = "NVIDIA"


def looks_like_image(image: bytes) -> bool:
    """A cubin (ELF), a fatbin, or PTX text: what cuModuleLoadData takes."""
    return image[:4] == b"\x7fELF" or image[:4] == b"\x50\xed\x55\xba" or b".version" in image[:4096]


def parse_arch(text: str) -> Target | None:
    """The NVIDIA target named ``text`` ("sm_90", "sm_100a"), or None."""
    if re.fullmatch(r"sm_\d{2,3}[af]?", text):
        return Target("nvidia", text, WARP_SIZE)
    return None


def _nvrtc():
    """NVRTC's bindings, imported on first use: importing this module must
    work where cuda-bindings is absent."""
    from cuda.bindings import nvrtc

    return nvrtc


@cache
def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor) version.  Raises RuntimeError saying why if
    NVRTC cannot be loaded."""
    try:
        nvrtc = _nvrtc()
    except ImportError as exc:
        raise RuntimeError(f"cuda-bindings is not installed (pip install 'hipkit[nvidia]'): {exc}") from None
    try:
        err, major, minor = nvrtc.nvrtcVersion()
    except Exception as exc:  # the library is missing or broken: cuda-bindings' own error types
        raise RuntimeError(f"NVRTC could not be loaded: {exc}") from None
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC could not be loaded: {err.name}")
    return major, minor


def unavailable_reason() -> str:
    """An empty string if NVRTC is usable here, else why not."""
    try:
        nvrtc_version()
    except RuntimeError as exc:
        return str(exc)
    return ""


@cache
def _supported_archs() -> tuple[int, ...]:
    nvrtc = _nvrtc()
    err, archs = nvrtc.nvrtcGetSupportedArchs()
    return tuple(archs) if err == nvrtc.nvrtcResult.NVRTC_SUCCESS else ()


def normalize_options(options: tuple[str, ...] | list[str]) -> list[str]:
    """The NVRTC options for hipkit's compile options; CompileOptionError for
    one the NVIDIA platform does not take.

    -O0..-O3 set ptxas's level (NVRTC has no other levels); -g is debug
    information for optimized code, -G full device debug; the rest as on
    every GPU platform (:func:`hipkit.platforms._gpu.compiler.normalize_options`).
    """
    return gpu.normalize_options(options, vendor="NVIDIA", std="--std=", table=_OPTIONS)


def compile_source(
    source: str,
    target: Target,
    *,
    name: str,
    options: tuple[str, ...],
    name_expressions: tuple[str, ...],
    headers: dict[str, str],
) -> Binary:
    """Platform.compile for an sm_XX target: a cubin and its kernel table,
    compiled by NVRTC and cached (no GPU needed).  CompileError carries
    NVRTC's diagnostics, which name ``name`` and the user's lines;
    CompileOptionError is for an option the NVIDIA platform does not take."""
    if target.platform != "nvidia" or parse_arch(target.arch) is None:
        raise ValueError(f"not an NVIDIA target: {target}")
    job = gpu.CompileJob(source, target, name, normalize_options(options), name_expressions, headers)
    depends = ["{}.{}".format(*nvrtc_version()), gpu.sources_key(Path(__file__), INCLUDE_DIR)]
    return gpu.cached(Binary, job, depends, lambda: _build(job))


def _build(job: gpu.CompileJob) -> Binary:
    digits = int(re.sub(r"\D", "", job.target.arch))
    if digits not in _supported_archs():
        archs = ", ".join(f"sm_{a}" for a in _supported_archs())
        version = "{}.{}".format(*nvrtc_version())
        raise CompileError(f"NVRTC {version} cannot compile for {job.target.arch} (it has {archs})")
    options = [f"--gpu-architecture={job.target.arch}", *_FIXED_OPTIONS, *job.options]
    if not any(o.startswith("--std=") for o in job.options):
        options.append("--std=c++17")

    def attempt(entries: list[tuple[str, str]], describe: bool) -> Binary | str:
        result = _nvrtc_compile(job, options, entries, describe)
        if isinstance(result, str):
            return result
        image, log, lowered = result
        descriptors = _descriptors(image)
        kernels = tuple(
            KernelEntry(lookup, lowered[expr], descriptors[f"__hk_params_{i}"])
            for i, (lookup, expr) in enumerate(entries)
            if f"__hk_params_{i}" in descriptors and expr in lowered
        )
        return Binary(image, job.target, kernels, _gcc_style(log))

    return gpu.compile_described(job, attempt, _blames_additions, _gcc_style)


def _blames_additions(log: str, name: str, source: str) -> bool:
    """Whether an error of ``log`` lies in what hipkit added: a descriptor, or
    a name expression (NVRTC reports those in "__nv_name_map")."""
    last_line = source.count("\n") + 1
    for m in _ERROR.finditer(log):
        if m.group(1) == "__nv_name_map" or (m.group(1) == name and int(m.group(2)) > last_line):
            return True
    return False


# ---------------------------------------------------------------- NVRTC


def _nvrtc_compile(
    job: gpu.CompileJob, options: list[str], entries: list[tuple[str, str]], describe: bool
) -> tuple[bytes, str, dict[str, str]] | str:
    """Compile with ``options``, a name expression for each entry, and a
    descriptor if ``describe``: (cubin, log, lowered name of each
    expression), or the log if the source does not compile."""
    nvrtc = _nvrtc()
    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    expressions = [expr for _, expr in entries]
    text = job.source + gpu.appendix(expressions) if describe else job.source
    err, prog = nvrtc.nvrtcCreateProgram(
        text.encode(),
        job.name.encode(),
        len(job.headers),
        [v.encode() for v in job.headers.values()],
        [k.encode() for k in job.headers],
    )
    if err != ok:
        raise CompileError(f"NVRTC could not create a program: {err.name}")
    try:
        for expr in expressions:
            nvrtc.nvrtcAddNameExpression(prog, expr.encode())
        encoded = [o.encode() for o in options]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(encoded), encoded)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        buffer = _out_buffer(size)
        nvrtc.nvrtcGetProgramLog(prog, buffer)
        log = buffer.rstrip(b"\0").decode(errors="replace").strip()
        if err == nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_OPTION:
            raise CompileOptionError(f"NVRTC rejected an option: {log}")
        if err == nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION:
            return log
        if err != ok:
            raise CompileError(f"NVRTC failed: {err.name}", log)
        _, size = nvrtc.nvrtcGetCUBINSize(prog)
        image = _out_buffer(size)
        nvrtc.nvrtcGetCUBIN(prog, image)
        lowered: dict[str, str] = {}
        for expr in expressions:
            err, symbol = nvrtc.nvrtcGetLoweredName(prog, expr.encode())
            if err == ok:
                lowered[expr] = symbol.decode()
        return image, log, lowered
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _out_buffer(size: int) -> bytes:
    """A new bytes object for NVRTC to write ``size`` bytes into (cuda-bindings
    takes its output buffers as bytes).  CPython shares its bytes objects of
    length 0 and 1 across the process, so none that short is handed out: an
    empty log's one NUL, written into ``b" " * 1``, made every later " " that
    Python encoded a NUL (np.save's headers, print's separators)."""
    return bytes(max(size, 2))


# ---------------------------------------------------------------- cubin


def _descriptors(image: bytes) -> dict[str, tuple[Param, ...]]:
    """The parameter descriptors (``__hk_params_N``) in a cubin, by symbol name,
    read from its symbol table; names that are not kernels are left out."""
    cubin = Elf(image, "ELF64 cubin")
    found = {}
    for symbol, where in cubin.symbols().items():
        if symbol.startswith("__hk_params_"):
            params = gpu.descriptor_params(cubin.symbol_data(where))
            if params is not None:
                found[symbol] = params
    return found


_NVRTC_LOCATION = re.compile(r"^(.+?)\((\d+)\): ", re.M)


def _gcc_style(log: str) -> str:
    """NVRTC's ``file(line): error`` as ``file:line: error``, the form of hipcc,
    g++ and the CPU platform, which editors and tools parse."""
    return _NVRTC_LOCATION.sub(r"\1:\2: ", log)
