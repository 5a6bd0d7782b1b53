"""Compile HIP C++ for NVIDIA GPUs with NVRTC: a cubin and its kernel table.

Needs no GPU and no CUDA toolkit: NVRTC comes from the ``nvidia-cuda-nvrtc``
wheel through ``cuda-bindings`` (``pip install 'hipkit[nvidia]'``), and the
headers that map HIP's device dialect onto CUDA ship in ``include/``
(pre-included, so a source need not include ``hip/hip_runtime.h``).

Kernels are found in the user's source with hipkit's lexer; for each, and for
each name expression, NVRTC gives the lowered (mangled) name, and a descriptor
appended to the source (``__hk::kernel_params`` in include/hipkit_nvidia/params.h)
records each parameter's size, alignment and kind, read back from the cubin's
symbol table.  A launch therefore needs nothing from the driver.  Results are
cached on disk by content (see :mod:`hipkit._cache`).
"""

from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ... import _cache
from ..._errors import CompileError, CompileOptionError, HipError
from ...cxxparse import ParseError, param_type, scan_top_level
from ...lexer import DIRECTIVE, LexError, Token, tokenize
from ..base import PORTABLE_INCLUDE_DIR, Param, Target

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
    "-D__HIP_PLATFORM_NVIDIA__",
    "-D__HIP_PLATFORM_NVCC__",
)
# The target decides the architecture: these are ignored (with their value).
_IGNORED = ("--offload-arch=", "-fgpu-rdc", "--gpu-architecture=", "-arch=")
_IGNORED_WITH_VALUE = ("--offload-arch", "--gpu-architecture", "-arch")
_STD = re.compile(r"--?std=(?:c|gnu)\+\+(\d\d)$")
_CXX_STANDARDS = ("17", "20")  # the headers use C++17

_MAGIC = b"HKNVBIN1"  # a hipkit NVIDIA module: magic, header size, JSON header, cubin
_NOT_A_KERNEL = 0xFFFFFFFF
_ERROR = re.compile(r"^(.*)\((\d+)\): (?:catastrophic )?error", re.M)


@dataclass(frozen=True)
class KernelEntry:
    """A kernel of a module: how users name it, its symbol, its parameters."""

    lookup: str  # the kernel's name, a name expression ("axpy<float>") or "name(types)" for overloads
    symbol: str  # the lowered (mangled) name in the image, for cuModuleGetFunction
    params: tuple[Param, ...]


@dataclass(frozen=True)
class Binary:
    """A module compiled for an NVIDIA GPU: a cubin and its kernel table."""

    image: bytes  # cubin (an ELF) for target.arch
    target: Target
    kernels: tuple[KernelEntry, ...]
    log: str  # NVRTC's warnings

    @property
    def registered(self) -> tuple[tuple[str, str], ...]:
        """(lookup name, how it runs) for each kernel, as Module.kernels lists them."""
        return tuple((k.lookup, "gpu") for k in self.kernels)

    @property
    def code(self) -> bytes:
        """The module as bytes that :func:`from_bytes` reads back, kernel table
        included, so that a module saved to disk loads with its parameter kinds."""
        header = {
            "target": [self.target.platform, self.target.arch, self.target.warp_size],
            "kernels": [
                [k.lookup, k.symbol, [[p.size, p.align, p.kind] for p in k.params]] for k in self.kernels
            ],
            "log": self.log,
        }
        data = json.dumps(header).encode()
        return _MAGIC + struct.pack("<I", len(data)) + data + self.image


def from_bytes(data: bytes) -> Binary | None:
    """The module in ``data`` (:attr:`Binary.code`); None if ``data`` is not one
    (a cubin, PTX or fatbin from elsewhere, loaded with the driver's own
    parameter information)."""
    if not data.startswith(_MAGIC):
        return None
    try:
        (size,) = struct.unpack_from("<I", data, len(_MAGIC))
        start = len(_MAGIC) + 4
        header = json.loads(data[start : start + size])
        platform, arch, warp_size = header["target"]
        kernels = tuple(
            KernelEntry(lookup, symbol, tuple(Param(*p) for p in params))
            for lookup, symbol, params in header["kernels"]
        )
        return Binary(data[start + size :], Target(platform, arch, warp_size), kernels, header["log"])
    except (struct.error, ValueError, KeyError, TypeError) as exc:
        raise HipError(200, f"a damaged hipkit NVIDIA module: {exc}") from None


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


@cache
def _sources_key() -> str:
    """What the result depends on besides the inputs: this module, the lexer and
    parser that find the kernels, and the headers (its own and the shared ones)."""
    package = INCLUDE_DIR.parent.parent.parent
    files = [
        Path(__file__),
        package / "lexer.py",
        package / "cxxparse.py",
        *sorted(p for p in INCLUDE_DIR.rglob("*") if p.is_file()),
        *sorted(PORTABLE_INCLUDE_DIR.rglob("*.h")),
    ]
    return _cache.digest(part for f in files for part in (str(f.relative_to(package)), f.read_bytes()))


def normalize_options(options: tuple[str, ...] | list[str]) -> list[str]:
    """The NVRTC options for hipkit's compile options; CompileOptionError for
    one the NVIDIA platform does not take.

    -D/-U/-I pass through; -std=/--std= (C++17 or later); -O0..-O3 set ptxas's
    level; -g is debug information for optimized code, -G full device debug;
    -lineinfo; --use_fast_math/-ffast-math; -w.  --offload-arch, -fgpu-rdc and
    --gpu-architecture are ignored: the target decides.
    """
    out: list[str] = []
    it = iter(options)
    for opt in it:
        if opt in ("-I", "-D", "-U"):
            value = next(it, None)
            if value is None:
                raise CompileOptionError(f"option {opt} needs a value")
            out.append(opt + value)
        elif opt.startswith(("-I", "-D", "-U")):
            out.append(opt)
        elif opt in _IGNORED_WITH_VALUE:
            next(it, None)
        elif opt.startswith(_IGNORED):
            continue
        elif opt.startswith(("-std=", "--std=")):
            m = _STD.match(opt)
            if m is None or m.group(1) not in _CXX_STANDARDS:
                raise CompileOptionError(f"{opt}: hipkit's NVIDIA headers need -std=c++17 or c++20")
            out.append(f"--std=c++{m.group(1)}")
        elif re.fullmatch(r"-O[0-3]", opt):
            out.append(f"--ptxas-options={opt}")
        elif opt in ("-O", "-Os", "-Og", "-Oz", "-Ofast"):
            continue  # NVRTC optimizes by default and has no other levels
        elif opt == "-g":
            out += ["--device-debug", "--dopt=on"]
        elif opt in ("-G", "--device-debug"):
            out.append("--device-debug")
        elif opt in ("-lineinfo", "--generate-line-info"):
            out.append("--generate-line-info")
        elif opt in ("--use_fast_math", "-use_fast_math", "-ffast-math"):
            out.append("--use_fast_math")
        elif opt == "-w":
            out.append("-w")
        else:
            raise CompileOptionError(f"unsupported compile option for the NVIDIA platform: {opt!r}")
    return out


def compile_source(
    source: str,
    target: Target,
    *,
    name: str,
    options: tuple[str, ...],
    name_expressions: tuple[str, ...],
    headers: dict[str, str],
) -> Binary:
    """Compile ``source`` into a cached cubin for ``target`` (no GPU needed).

    ``headers`` maps include names to their text (NVRTC's in-memory headers).

    Raises
    ------
    CompileError
        With NVRTC's diagnostics, which name ``name`` and the user's lines.
    CompileOptionError
        For an option the NVIDIA platform does not take.
    """
    if target.platform != "nvidia" or parse_arch(target.arch) is None:
        raise ValueError(f"not an NVIDIA target: {target}")
    nvrtc_options = normalize_options(options)
    version = nvrtc_version()
    key = _cache.digest(
        [
            source,
            name,
            "\0".join(nvrtc_options),
            "\0".join(name_expressions),
            "\0".join(f"{k}\0{v}" for k, v in sorted(headers.items())),
            target.arch,
            "{}.{}".format(*version),
            _sources_key(),
        ]
    )

    def build(tmp: Path) -> None:
        binary = _build(source, target, name, nvrtc_options, name_expressions, headers)
        (tmp / "module.hknv").write_bytes(binary.code)

    entry = _cache.entry("nvidia", key, build)
    binary = from_bytes((entry / "module.hknv").read_bytes())
    assert binary is not None
    return binary


def _build(
    source: str,
    target: Target,
    name: str,
    nvrtc_options: list[str],
    name_expressions: tuple[str, ...],
    headers: dict[str, str],
) -> Binary:
    digits = int(re.sub(r"\D", "", target.arch))
    if digits not in _supported_archs():
        archs = ", ".join(f"sm_{a}" for a in _supported_archs())
        version = "{}.{}".format(*nvrtc_version())
        raise CompileError(f"NVRTC {version} cannot compile for {target.arch} (it has {archs})")
    options = [f"--gpu-architecture={target.arch}", *_FIXED_OPTIONS, *nvrtc_options]
    if not any(o.startswith("--std=") for o in nvrtc_options):
        options.append("--std=c++17")
    user = [(expr, expr) for expr in dict.fromkeys(name_expressions)]
    found = [entry for entry in _discover(source) if entry[0] not in name_expressions]
    # If what hipkit adds does not compile, discovery misread the source (a
    # kernel in an #if branch, a macro) or a name expression is wrong: try
    # without discovery, then without descriptors, so that the user sees
    # NVRTC's word on their own source and name expressions.
    log = ""
    for entries, describe in [(found + user, True), (user, True), (user, False)]:
        result = _nvrtc_compile(source, name, options, headers, entries, describe)
        if isinstance(result, str):
            log = result
            if _blames_additions(log, name, source):
                continue
            break
        image, log, lowered = result
        descriptors = _descriptors(image)
        kernels = tuple(
            KernelEntry(lookup, lowered[expr], descriptors[f"__hk_params_{i}"])
            for i, (lookup, expr) in enumerate(entries)
            if f"__hk_params_{i}" in descriptors and expr in lowered
        )
        return Binary(image, target, kernels, _gcc_style(log))
    raise CompileError(f"compiling {name} for {target.arch} failed", _gcc_style(log))


# ---------------------------------------------------------------- discovery

# HIP's keywords as the CPU's parser knows them (its input is preprocessed
# with these spelled as markers).
_MARKERS = {"__global__": "__hk_global", "__launch_bounds__": "__hk_launch_bounds"}


def _discover(source: str) -> list[tuple[str, str]]:
    """(lookup name, address expression) for each non-template __global__
    function defined in ``source``, as the CPU platform registers them:
    overloads by "name(types)".  Best effort: kernels made by macros or in
    code the parser cannot read are missed."""
    try:
        toks = [
            Token(t.kind, _MARKERS.get(t.text, t.text), t.start, t.line, t.col)
            for t in tokenize(source)
            if t.kind != DIRECTIVE
        ]
        top = scan_top_level(toks)
    except (LexError, ParseError):
        return []
    kernels = [
        f for f in top.functions if "__hk_global" in f.specifiers and f.body_open is not None and f.name
    ]
    names = ["::".join([*filter(None, f.namespace), f.name]) for f in kernels]
    entries = []
    for fn, qualified in zip(kernels, names, strict=True):
        if fn.template is not None:
            continue  # instantiated by name expressions only
        if names.count(qualified) > 1:
            types = ", ".join(param_type(toks, p) for p in fn.params)
            entries.append((f"{qualified}({types})", f"static_cast<void (*)({types})>(&::{qualified})"))
        else:
            entries.append((qualified, f"&::{qualified}"))
    return entries


def _appendix(expressions: list[str]) -> str:
    """The descriptor of each name expression, after the user's source (so
    that the user's line numbers stay)."""
    lines = ["", "// hipkit: kernel parameter descriptors"]
    for i, expr in enumerate(expressions):
        lines.append(
            f'extern "C" __device__ const ::__hk::kernel_params<decltype(::__hk::decay({expr}))>'
            f" __hk_params_{i}{{}};"
        )
    return "\n".join(lines) + "\n"


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
    source: str,
    name: str,
    options: list[str],
    headers: dict[str, str],
    entries: list[tuple[str, str]],
    describe: bool,
) -> tuple[bytes, str, dict[str, str]] | str:
    """Compile with a name expression for each entry, and a descriptor if
    ``describe``: (cubin, log, lowered name of each expression), or the log if
    the source does not compile."""
    nvrtc = _nvrtc()
    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    expressions = [expr for _, expr in entries]
    text = source + _appendix(expressions) if describe else source
    err, prog = nvrtc.nvrtcCreateProgram(
        text.encode(),
        name.encode(),
        len(headers),
        [v.encode() for v in headers.values()],
        [k.encode() for k in headers],
    )
    if err != ok:
        raise CompileError(f"NVRTC could not create a program: {err.name}")
    try:
        for expr in expressions:
            nvrtc.nvrtcAddNameExpression(prog, expr.encode())
        encoded = [o.encode() for o in options]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(encoded), encoded)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        buffer = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, buffer)
        log = buffer.rstrip(b"\0").decode(errors="replace").strip()
        if err == nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_OPTION:
            raise CompileOptionError(f"NVRTC rejected an option: {log}")
        if err == nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION:
            return log
        if err != ok:
            raise CompileError(f"NVRTC failed: {err.name}", log)
        _, size = nvrtc.nvrtcGetCUBINSize(prog)
        image = b" " * size
        nvrtc.nvrtcGetCUBIN(prog, image)
        lowered: dict[str, str] = {}
        for expr in expressions:
            err, symbol = nvrtc.nvrtcGetLoweredName(prog, expr.encode())
            if err == ok:
                lowered[expr] = symbol.decode()
        return image, log, lowered
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


# ---------------------------------------------------------------- cubin


def _descriptors(image: bytes) -> dict[str, tuple[Param, ...]]:
    """The parameter descriptors (``__hk_params_N``) in a cubin, by symbol name,
    read from its ELF64 symbol table; names that are not kernels are left out."""
    (shoff,) = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize) for i in range(shnum)]
    found: dict[str, tuple[Param, ...]] = {}
    for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        strtab = sections[link][4]
        for pos in range(offset, offset + size, entsize):
            st_name, _, _, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", image, pos)
            symbol = image[strtab + st_name : image.index(b"\0", strtab + st_name)].decode()
            if not symbol.startswith("__hk_params_"):
                continue
            section = sections[st_shndx]
            if section[1] == 8:  # SHT_NOBITS: zero-initialized, a kernel without parameters
                words: tuple[int, ...] = (0,)
            else:
                start = section[4] + st_value
                words = struct.unpack_from(f"<{st_size // 4}I", image, start)
            if words[0] != _NOT_A_KERNEL:
                found[symbol] = tuple(Param(*words[1 + 3 * i : 4 + 3 * i]) for i in range(words[0]))
    return found


_NVRTC_LOCATION = re.compile(r"^(.+?)\((\d+)\): ", re.M)


def _gcc_style(log: str) -> str:
    """NVRTC's ``file(line): error`` as ``file:line: error``, the form of hipcc,
    g++ and the CPU platform, which editors and tools parse."""
    return _NVRTC_LOCATION.sub(r"\1:\2: ", log)
