"""Compiling HIP C++ for a GPU at run time: what NVRTC (NVIDIA) and hiprtc
(AMD) compiles have in common.

Kernels are found in the user's source with hipkit's lexer and parser
(:func:`discover`); for each, and for each name expression, a descriptor is
appended to the source (:func:`appendix`, ``__hk::kernel_params`` in
``hipkit_portable/kernel_params.h``) that records each parameter's size,
alignment and kind, and is read back from the compiled image
(:func:`descriptor_params`).  A launch then needs nothing from the driver.
Should what hipkit adds not compile, :func:`compile_described` tries again
without it, so that the user sees the compiler's word on their own source.

Results are cached on disk by content (:func:`cached`), as a module
container that keeps the kernel table with the image (:class:`GpuBinary`).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import ClassVar, TypeVar

from ... import _cache, cxx
from ..._errors import CompileError, CompileOptionError, HipError, hipError_t
from ...cxx.brackets import ParseError
from ...cxx.lexer import DIRECTIVE, LexError, Token, tokenize
from ...cxx.toplevel import param_type, scan_top_level
from ...tables import INCLUDE_DIR as TABLES_INCLUDE_DIR
from ..base.platform import PORTABLE_INCLUDE_DIR, Param, Target

# ---------------------------------------------------------------- the module container


@dataclass(frozen=True)
class KernelEntry:
    """A kernel of a module: how users name it, its symbol, its parameters."""

    lookup: str  # the kernel's name, a name expression ("axpy<float>") or "name(types)" for overloads
    symbol: str  # the lowered (mangled) name in the image, for cuModuleGetFunction/hipModuleGetFunction
    params: tuple[Param, ...]


@dataclass(frozen=True)
class CompileJob:
    """What one compile is given: the source, its target, the name the
    diagnostics give it, the compiler's options, the name expressions to
    lower, the in-memory headers (include name -> text)."""

    source: str
    target: Target
    name: str
    options: list[str]
    name_expressions: tuple[str, ...]
    headers: dict[str, str]


B = TypeVar("B", bound="GpuBinary")


@dataclass(frozen=True)
class GpuBinary:
    """A module compiled for a GPU: the vendor's image and hipkit's kernel
    table.  Each platform's subclass names its container's magic."""

    image: bytes
    target: Target
    kernels: tuple[KernelEntry, ...]
    log: str  # the compiler's warnings

    magic: ClassVar[bytes]  # what :attr:`code` starts with: 8 bytes, one per platform
    vendor: ClassVar[str]  # "NVIDIA", "AMD": for messages

    @property
    def registered(self) -> tuple[tuple[str, str], ...]:
        """(lookup name, how it runs) for each kernel, as Module.kernels lists them."""
        return tuple((k.lookup, "gpu") for k in self.kernels)

    @property
    def code(self) -> bytes:
        """The module as bytes that :meth:`from_bytes` reads back, kernel table
        included, so that a module saved to disk loads with its parameter kinds:
        the magic, the header's size, a JSON header, the image."""
        header = {
            "target": [self.target.platform, self.target.arch, self.target.warp_size],
            "kernels": [
                [k.lookup, k.symbol, [[p.size, p.align, p.kind] for p in k.params]] for k in self.kernels
            ],
            "log": self.log,
        }
        data = json.dumps(header).encode()
        return self.magic + struct.pack("<I", len(data)) + data + self.image

    @classmethod
    def from_bytes(cls: type[B], data: bytes) -> B | None:
        """The module in ``data`` (:attr:`code`); None if ``data`` is not one (an
        image made elsewhere, which the driver loads with its own parameter
        information).  HipError (hipErrorInvalidImage) for a damaged one."""
        if not data.startswith(cls.magic):
            return None
        try:
            (size,) = struct.unpack_from("<I", data, len(cls.magic))
            start = len(cls.magic) + 4
            header = json.loads(data[start : start + size])
            platform, arch, warp_size = header["target"]
            kernels = tuple(
                KernelEntry(lookup, symbol, tuple(Param(*p) for p in params))
                for lookup, symbol, params in header["kernels"]
            )
            return cls(data[start + size :], Target(platform, arch, warp_size), kernels, header["log"])
        except (struct.error, ValueError, KeyError, TypeError) as exc:
            raise HipError(
                hipError_t.hipErrorInvalidImage, f"a damaged hipkit {cls.vendor} module: {exc}"
            ) from None


# ---------------------------------------------------------------- discovery and descriptors

# HIP's keywords as the CPU's parser knows them (its input is preprocessed
# with these spelled as markers).
_MARKERS = {"__global__": "__hk_global", "__launch_bounds__": "__hk_launch_bounds"}
_NOT_A_KERNEL = 0xFFFFFFFF  # a descriptor's count for a name expression that names no kernel


def discover(source: str) -> list[tuple[str, str]]:
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


def appendix(expressions: list[str]) -> str:
    """The descriptor ``__hk_params_N`` of each name expression, after the
    user's source (so that the user's line numbers stay)."""
    lines = ["", "// hipkit: kernel parameter descriptors"]
    for i, expr in enumerate(expressions):
        lines.append(
            f'extern "C" __device__ const ::__hk::kernel_params<decltype(::__hk::decay({expr}))>'
            f" __hk_params_{i}{{}};"
        )
    return "\n".join(lines) + "\n"


def descriptor_params(data: bytes) -> tuple[Param, ...] | None:
    """The parameters a descriptor's initial bytes record (all zeros for a
    kernel without parameters, which a compiler may leave uninitialized);
    None if its name expression names no kernel (a variable, a __device__
    function)."""
    words = struct.unpack_from(f"<{len(data) // 4}I", data) if data else (0,)
    if words[0] == _NOT_A_KERNEL:
        return None
    return tuple(Param(*words[1 + 3 * i : 4 + 3 * i]) for i in range(words[0]))


def compile_described(
    job: CompileJob,
    attempt: Callable[[list[tuple[str, str]], bool], B | str],
    blames_additions: Callable[[str, str, str], bool],
    diagnostics: Callable[[str], str],
) -> B:
    """Compile ``job`` with what hipkit adds: an entry for each kernel
    discovery finds and each name expression, and their descriptors.

    ``attempt(entries, describe)`` compiles once, with a name expression for
    each (lookup name, expression) entry and, if ``describe``, their
    descriptors; it returns the module, or the compiler's log if the source
    did not compile.  If what hipkit adds does not compile
    (``blames_additions(log, name, source)``), discovery misread the source
    (a kernel in an #if branch, a macro) or a name expression is wrong: this
    tries without discovery, then without descriptors, so that the user sees
    the compiler's word on their own source and name expressions.  Raises
    CompileError with the log of the last attempt, as ``diagnostics`` writes it.
    """
    user = [(expr, expr) for expr in dict.fromkeys(job.name_expressions)]
    found = [entry for entry in discover(job.source) if entry[0] not in job.name_expressions]
    log = ""
    for entries, describe in [(found + user, True), (user, True), (user, False)]:
        result = attempt(entries, describe)
        if not isinstance(result, str):
            return result
        log = result
        if not blames_additions(log, job.name, job.source):
            break
    raise CompileError(f"compiling {job.name} for {job.target.arch} failed", diagnostics(log))


# ---------------------------------------------------------------- options

# The target decides the architecture: these are ignored (with their value).
_IGNORED = ("--offload-arch=", "-fgpu-rdc", "--gpu-architecture=", "-arch=")
_IGNORED_WITH_VALUE = ("--offload-arch", "--gpu-architecture", "-arch")
_STD = re.compile(r"--?std=(?:c|gnu)\+\+(\d\d)$")
_CXX_STANDARDS = ("17", "20")  # the headers use C++17
# Other spellings of the options a platform's table names (nvcc's and clang's).
_ALIASES = {
    "--device-debug": "-G",
    "--generate-line-info": "-lineinfo",
    "-use_fast_math": "--use_fast_math",
    "-ffast-math": "--use_fast_math",
}


def normalize_options(
    options: tuple[str, ...] | list[str],
    *,
    vendor: str,
    std: str,
    table: Mapping[str, tuple[str, ...]],
) -> list[str]:
    """The compiler's options for hipkit's compile options; CompileOptionError
    for one the platform does not take.

    -D/-U/-I pass through; -std=/--std= (C++17 or later) become ``std`` and
    the standard ("--std=" for NVRTC); --offload-arch, -fgpu-rdc,
    --gpu-architecture and -arch are ignored: the target decides.  The rest
    are what ``table`` maps them to, by hipcc's spelling (-G, -lineinfo,
    --use_fast_math: nvcc's and clang's others are taken too); both GPU
    platforms take -O, -O0..-O3, -Os, -Og, -Oz, -Ofast, -g, -G, -lineinfo,
    --use_fast_math and -w.
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
                raise CompileOptionError(f"{opt}: hipkit's {vendor} headers need -std=c++17 or c++20")
            out.append(f"{std}c++{m.group(1)}")
        elif _ALIASES.get(opt, opt) in table:
            out += table[_ALIASES.get(opt, opt)]
        else:
            raise CompileOptionError(f"unsupported compile option for the {vendor} platform: {opt!r}")
    return out


# ---------------------------------------------------------------- the build cache


@cache
def sources_key(compiler: Path, include_dir: Path) -> str:
    """What a compile's result depends on besides its inputs: the platform's
    ``compiler`` module, this module, the lexer and parsers that find the
    kernels (:mod:`hipkit.cxx`), and the headers (the platform's ``include_dir``, the shared ones and the
    generated ones)."""
    package = PORTABLE_INCLUDE_DIR.parent.parent
    files = [
        compiler,
        Path(__file__),
        *cxx.source_files(),
        *sorted(p for p in include_dir.rglob("*") if p.is_file()),
        *sorted(PORTABLE_INCLUDE_DIR.rglob("*.h")),
        *sorted(TABLES_INCLUDE_DIR.rglob("*.h")),
    ]
    return _cache.digest(part for f in files for part in (str(f.relative_to(package)), f.read_bytes()))


def cached(binary_class: type[B], job: CompileJob, depends: Iterable[str], build: Callable[[], B]) -> B:
    """``build()``'s module, from the build cache when it has one for ``job``
    and what else the result ``depends`` on (the compiler's version,
    :func:`sources_key`); built and cached otherwise."""
    key = _cache.digest(
        [
            job.source,
            job.name,
            "\0".join(job.options),
            "\0".join(job.name_expressions),
            "\0".join(f"{k}\0{v}" for k, v in sorted(job.headers.items())),
            job.target.arch,
            str(job.target.warp_size),
            *depends,
        ]
    )

    def write(tmp: Path) -> None:
        (tmp / "module").write_bytes(build().code)

    binary = binary_class.from_bytes((_cache.entry(job.target.platform, key, write) / "module").read_bytes())
    assert binary is not None
    return binary
