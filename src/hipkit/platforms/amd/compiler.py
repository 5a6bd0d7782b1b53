"""Compile HIP C++ for AMD GPUs with hiprtc: a code object and its kernel table.

Needs no GPU: hiprtc and comgr come with ROCm's HIP runtime (on Debian and
Ubuntu, ``apt-get install libamdhip64-dev``).  hiprtc has HIP's device API
built in; hipkit pre-includes ``include/hipkit_amd/device.h`` for the rest of
hipkit's kernel language, and compiles with ``-nostdinc``: the C library
headers a kernel includes are hipkit's (``include/``), not the host's.

Kernels are found and described as on the NVIDIA platform (hipkit's lexer
finds them, a descriptor per kernel is appended, read back from the code
object's symbol table; see :mod:`hipkit.platforms._gpu.compiler`), so a
launch needs nothing from the runtime.  A kernel's symbol comes from a
variable appended beside its descriptor and initialized with its address:
the code object's relocation of that variable names the kernel.  (hiprtc's
own hiprtcGetLoweredName finds no name for ``&::k`` or a ``static_cast`` in
ROCm 5, and name expressions need nothing else from hiprtc.)  Results are
cached on disk by content.
"""

from __future__ import annotations

import ctypes
import re
import threading
from pathlib import Path

from ..._errors import CompileError, CompileOptionError
from ...tables import INCLUDE_DIR as TABLES_INCLUDE_DIR
from .._gpu import compiler as gpu
from .._gpu.compiler import GpuBinary, KernelEntry
from ..base.platform import PORTABLE_INCLUDE_DIR, PlatformUnavailable, Target
from . import _hip
from .codeobject import CodeObject

INCLUDE_DIR = Path(__file__).parent / "include"

_FIXED_OPTIONS = (
    "-nostdinc",
    f"-I{INCLUDE_DIR}",
    f"-I{PORTABLE_INCLUDE_DIR}",
    f"-I{TABLES_INCLUDE_DIR}",  # generated tables the portable headers read (hipkit_rand/)
    "-include",
    "hipkit_amd/device.h",
    # hipkit's _sync warp functions (hipkit_amd/warp.h), not HIP's, which differ by ROCm release
    # (ROCm 7 has them unless this is defined, where its hiprtc headers still read it).
    "-DHIP_DISABLE_WARP_SYNC_BUILTINS",
)
# hipkit's compile options as clang's (see gpu.normalize_options).
_OPTIONS = {
    **{level: (level,) for level in ("-O", "-O0", "-O1", "-O2", "-O3", "-Os", "-Og", "-Oz")},
    "-Ofast": ("-O3", "-ffast-math"),
    "-g": ("-g",),
    "-G": ("-g", "-O0"),  # full device debug
    "-lineinfo": ("-gline-tables-only",),
    "--use_fast_math": ("-ffast-math",),
    "-w": ("-w",),
}
_ARCH = re.compile(r"gfx([0-9]+)[0-9a-f]{2}(?::(?:sramecc|xnack)[+-])*")
_ERROR = re.compile(r"^(.*?):(\d+):\d+: (?:fatal )?error", re.M)
# hiprtc names the source after comgr's temporary file (ROCm 5), or puts the
# program's name in comgr's temporary directory (later releases).
_COMGR_SOURCE = re.compile(r"\S*/input/CompileSource\b")
_COMGR_DIRECTORY = re.compile(r"(?<!\S)\S*/comgr-[0-9A-Za-z]+/input/")
# hiprtc (ROCm 5) reports an option clang rejects as a compile error.
_BAD_OPTION = re.compile(r"^error: (?:unsupported option|unknown argument)", re.M)
# comgr and LLVM keep global state that was not thread-safe in every ROCm release.
_HIPRTC_LOCK = threading.Lock()


class Binary(GpuBinary):
    """A module compiled for an AMD GPU: an AMDGPU code object (an ELF for
    target.arch) and its kernel table.  :meth:`from_bytes` gives None for a
    code object or offload bundle from elsewhere."""

    magic = b"HKAMDBIN"
    vendor = "AMD"


def wavefront_sizes(arch: str) -> tuple[int, ...]:
    """The wavefront sizes of a gfx target, its default first: GCN and CDNA
    (gfx9 and older) run 64 lanes; RDNA (gfx10 and later) 32, or 64."""
    match = _ARCH.fullmatch(arch)
    if match is None:
        raise ValueError(f"not an AMD target: {arch}")
    return (64,) if int(match.group(1)) < 10 else (32, 64)


def parse_arch(text: str) -> Target | None:
    """The AMD target named ``text`` ("gfx90a", "gfx90a:xnack+", "gfx1100"), or None."""
    if _ARCH.fullmatch(text) is None:
        return None
    return Target("amd", text, wavefront_sizes(text)[0])


def unavailable_reason() -> str:
    """An empty string if hiprtc can compile here, else why not."""
    try:
        rocm = _hip.load()
    except PlatformUnavailable as exc:
        return str(exc)
    if rocm.hiprtc is None:
        return f"ROCm's runtime compiler is missing: {rocm.hiprtc_reason}"
    if rocm.comgr is None:
        return f"ROCm's code object manager is missing: {rocm.comgr_reason}"
    return ""


def versions() -> dict[str, str]:
    """What compiles: the HIP runtime that has hiprtc, and comgr."""
    rocm = _hip.load()
    return {"hiprtc": "{}.{}.{}".format(*rocm.version), "comgr": rocm.comgr_version()}


def normalize_options(options: tuple[str, ...] | list[str]) -> list[str]:
    """The hiprtc options for hipkit's compile options; CompileOptionError for
    one the AMD platform does not take.

    The optimization levels pass through (-Ofast is -O3 -ffast-math); -G
    is full device debug (-g -O0), -lineinfo line tables only; the rest as
    on every GPU platform (:func:`hipkit.platforms._gpu.compiler.normalize_options`).
    """
    return gpu.normalize_options(options, vendor="AMD", std="-std=", table=_OPTIONS)


def compile_source(
    source: str,
    target: Target,
    *,
    name: str,
    options: tuple[str, ...],
    name_expressions: tuple[str, ...],
    headers: dict[str, str],
) -> Binary:
    """Platform.compile for a gfx target: a code object and its kernel
    table, compiled by hiprtc and cached (no GPU needed).  CompileError
    carries hiprtc's diagnostics, which name ``name`` and the user's lines,
    or says why hiprtc cannot compile for ``target`` here; CompileOptionError
    is for an option the AMD platform does not take."""
    if target.platform != "amd" or parse_arch(target.arch) is None:
        raise ValueError(f"not an AMD target: {target}")
    if target.warp_size not in wavefront_sizes(target.arch):
        raise ValueError(f"{target.arch} has no wavefront size {target.warp_size}")
    job = gpu.CompileJob(source, target, name, normalize_options(options), name_expressions, headers)
    reason = unavailable_reason()
    if reason:
        raise CompileError(f"cannot compile for {target.arch}: {reason}")
    depends = [*versions().values(), gpu.sources_key(Path(__file__), INCLUDE_DIR)]
    return gpu.cached(Binary, job, depends, lambda: _build(job))


def _build(job: gpu.CompileJob) -> Binary:
    rocm, target = _hip.load(), job.target
    if not rocm.knows_isa(target.arch):
        version = "{}.{}".format(*rocm.version)
        known = ", ".join(rocm.isa_names())
        raise CompileError(f"hiprtc of ROCm {version} cannot compile for {target.arch} (it has {known})")
    wave64 = "-mwavefrontsize64" if target.warp_size == 64 else "-mno-wavefrontsize64"
    options = [f"--offload-arch={target.arch}", *_FIXED_OPTIONS, f"-D__HK_WARP_SIZE={target.warp_size}"]
    if len(wavefront_sizes(target.arch)) > 1:
        options.append(wave64)
    options += job.options
    if not any(o.startswith("-std=") for o in job.options):
        options.append("-std=c++17")

    def attempt(entries: list[tuple[str, str]], describe: bool) -> Binary | str:
        # The address variables hold the name expressions (and instantiate
        # them) even without descriptors.
        expressions = [expr for _, expr in entries]
        text = job.source + (gpu.appendix(expressions) if describe else "") + _addresses(expressions)
        result = _hiprtc_compile(rocm, text, job.name, options, job.headers)
        if isinstance(result, str):
            return result
        image, log = result
        kernels = _kernel_table(CodeObject(image), entries) if describe else ()
        return Binary(image, target, kernels, log)

    return gpu.compile_described(job, attempt, _blames_additions, lambda log: log)


def _addresses(expressions: list[str]) -> str:
    """A variable holding the address of each name expression, after the
    source (and the descriptors): the code object's relocations of these
    name the kernels, and they instantiate the templates the expressions name."""
    lines = ["// hipkit: kernel addresses"]
    lines += [
        f'extern "C" __device__ constexpr auto __hk_kernel_{i} = {e};' for i, e in enumerate(expressions)
    ]
    return "\n".join(lines) + "\n"


def _kernel_table(code: CodeObject, entries: list[tuple[str, str]]) -> tuple[KernelEntry, ...]:
    """The kernels among ``entries``, with their symbols and parameters; names
    that are not kernels (a variable's, a __device__ function's) are left out."""
    symbols = code.symbols()
    pointers = code.pointers()
    kernels = code.kernel_symbols()
    table = []
    for i, (lookup, _) in enumerate(entries):
        descriptor, address = symbols.get(f"__hk_params_{i}"), symbols.get(f"__hk_kernel_{i}")
        if descriptor is None or address is None or pointers.get(address.value) not in kernels:
            continue
        params = gpu.descriptor_params(code.symbol_data(descriptor))
        if params is not None:
            table.append(KernelEntry(lookup, kernels[pointers[address.value]], params))
    return tuple(table)


def _blames_additions(log: str, name: str, source: str) -> bool:
    """Whether an error of ``log`` lies after the user's source: in a
    descriptor, or in an address variable (a name expression)."""
    last_line = source.count("\n") + 1
    return any(m.group(1) == name and int(m.group(2)) > last_line for m in _ERROR.finditer(log))


def _hiprtc_compile(
    rocm: _hip.Rocm, text: str, name: str, options: list[str], headers: dict[str, str]
) -> tuple[bytes, str] | str:
    """Compile ``text``: (code object, log), or the log if it does not compile."""
    hiprtc = rocm.hiprtc
    assert hiprtc is not None  # unavailable_reason() was checked
    strings = ctypes.c_char_p * max(len(headers), 1)
    contents = strings(*(v.encode() for v in headers.values()))
    include_names = strings(*(k.encode() for k in headers))
    encoded = [o.encode() for o in options]
    with _HIPRTC_LOCK:
        prog = ctypes.c_void_p()
        err = hiprtc.hiprtcCreateProgram(
            ctypes.byref(prog), text.encode(), name.encode(), len(headers), contents, include_names
        )
        if err != _hip.HIPRTC_SUCCESS:
            raise CompileError(f"hiprtc could not create a program (hiprtcResult {err})")
        try:
            err = hiprtc.hiprtcCompileProgram(prog, len(encoded), (ctypes.c_char_p * len(encoded))(*encoded))
            size = ctypes.c_size_t()
            hiprtc.hiprtcGetProgramLogSize(prog, ctypes.byref(size))
            buffer = ctypes.create_string_buffer(size.value + 1)
            hiprtc.hiprtcGetProgramLog(prog, buffer)
            log = _COMGR_SOURCE.sub(lambda _: name, buffer.value.decode(errors="replace"))
            log = _COMGR_DIRECTORY.sub("", log).strip()
            if err == _hip.HIPRTC_ERROR_INVALID_OPTION or _BAD_OPTION.search(log):
                raise CompileOptionError(f"hiprtc rejected an option: {log}")
            if err == _hip.HIPRTC_ERROR_COMPILATION:
                return log
            if err != _hip.HIPRTC_SUCCESS:
                raise CompileError(f"hiprtc failed (hiprtcResult {err})", log)
            hiprtc.hiprtcGetCodeSize(prog, ctypes.byref(size))
            code = ctypes.create_string_buffer(size.value)
            hiprtc.hiprtcGetCode(prog, code)
            return code.raw, log
        finally:
            hiprtc.hiprtcDestroyProgram(ctypes.byref(prog))
