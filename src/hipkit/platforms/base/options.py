"""hipcc's command line: which inputs, which outputs, which flags.

The options are hipcc's (clang's) spelling; each is sorted into what the
compile step, the link step or the driver needs.  An option hipkit does not
know is an error rather than silently passed on.

Example
-------
>>> o = parse_args(["-O2", "-DN=4", "-Iinc", "-o", "app", "main.hip", "util.cpp", "-lm"])
>>> o.sources, o.output, o.compile_flags, o.link_flags
(('main.hip', 'util.cpp'), 'app', ('-O2', '-DN=4', '-Iinc'), ('-lm',))
"""

from __future__ import annotations

import os

__all__ = ["OptionError", "Options", "SOURCE_SUFFIXES", "parse_args"]

# Inputs compiled as HIP C++ (hipcc's, nvcc's and the usual C++ suffixes).
SOURCE_SUFFIXES = (".hip", ".cu", ".cpp", ".cc", ".cxx", ".c++", ".C")
# Inputs handed to the linker as they are.
_LINK_SUFFIXES = (".o", ".a", ".so")

# Options with a value, which may be glued ("-Iinc") or separate ("-I inc").
_COMPILE_VALUED = ("-I", "-D", "-U")
_LINK_VALUED = ("-L", "-l")
# Options that go to the compile step as they are (by prefix).
_COMPILE_PREFIXES = ("-std=", "-O", "-g", "-W", "-w", "-ffast-math", "-ffp-contract=", "-fno-")
# Options both steps need (-fopenmp, -fsanitize=..., -march=... and the like).
_BOTH_PREFIXES = ("-f", "-m", "-pthread")
# Accepted and without effect on the CPU: GPU code objects and linking modes.
_IGNORED = ("-fgpu-rdc", "-fno-gpu-rdc", "--hip-link", "-use_fast_math", "--use_fast_math")
_LANGUAGES = ("hip", "cu", "cuda", "c++", "cpp", "none")


class OptionError(ValueError):
    """A command line the driver cannot act on (exit status 2)."""


class Options:
    """One ``hipkit cc`` command line, sorted.

    ``inputs`` keeps the order of sources and objects (it is the link order);
    ``sources`` are the inputs compiled as HIP C++.  (A plain class, not a
    dataclass: hipkit run of a cached program starts without importing
    dataclasses.)
    """

    __slots__ = (
        "inputs",
        "output",
        "compile_only",
        "compile_flags",
        "link_flags",
        "platform",
        "offload_archs",
        "fast_math",
        "version",
        "help",
        "ignored",
    )

    def __init__(
        self,
        *,
        inputs: tuple[str, ...] = (),
        output: str | None = None,
        compile_only: bool = False,  # -c
        compile_flags: tuple[str, ...] = (),
        link_flags: tuple[str, ...] = (),
        platform: str | None = None,  # --platform
        offload_archs: tuple[str, ...] = (),  # --offload-arch, -arch (GPU platforms)
        fast_math: bool = False,
        version: bool = False,
        help: bool = False,
        ignored: tuple[str, ...] = (),  # accepted, no effect on the CPU (-fgpu-rdc, ...)
    ) -> None:
        self.inputs = inputs
        self.output = output
        self.compile_only = compile_only
        self.compile_flags = compile_flags
        self.link_flags = link_flags
        self.platform = platform
        self.offload_archs = offload_archs
        self.fast_math = fast_math
        self.version = version
        self.help = help
        self.ignored = ignored

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Options({fields})"

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(i for i in self.inputs if is_source(i))


def _suffix(path: str) -> str:
    """``path``'s suffix (".cpp"; "" for ".hidden", as PurePath's)."""
    return os.path.splitext(os.path.basename(path))[1]


def is_source(path: str) -> bool:
    """Whether ``path`` is compiled as HIP C++ (by its suffix)."""
    return _suffix(path) in SOURCE_SUFFIXES


def _is_link_input(path: str) -> bool:
    return _suffix(path) in _LINK_SUFFIXES or ".so." in os.path.basename(path)


def parse_args(args: list[str] | tuple[str, ...]) -> Options:
    """Sort a hipcc-style command line into :class:`Options`.

    Raises
    ------
    OptionError
        For an unknown option, a missing value, an input of unknown kind, or
        options that contradict each other.
    """
    inputs: list[str] = []
    compile_flags: list[str] = []
    link_flags: list[str] = []
    archs: list[str] = []
    ignored: list[str] = []
    found: dict[str, object] = {}
    it = iter(args)

    def value(opt: str) -> str:
        v = next(it, None)
        if v is None:
            raise OptionError(f"option {opt} needs a value")
        return v

    for arg in it:
        if arg == "-o":
            found["output"] = value(arg)
        elif arg.startswith("-o") and len(arg) > 2 and not arg.startswith("-offload"):
            found["output"] = arg[2:]
        elif arg == "-c":
            found["compile_only"] = True
        elif arg in ("--version", "-version"):
            found["version"] = True
        elif arg in ("-h", "--help"):
            found["help"] = True
        elif arg == "--platform":
            found["platform"] = value(arg)
        elif arg.startswith("--platform="):
            found["platform"] = arg.split("=", 1)[1]
        elif arg in ("--offload-arch", "--amdgpu-target", "--gpu-architecture", "-arch"):
            archs.append(value(arg))
        elif arg.startswith(("--offload-arch=", "--amdgpu-target=", "--gpu-architecture=", "-arch=")):
            archs.append(arg.split("=", 1)[1])
        elif arg in _COMPILE_VALUED:
            compile_flags.append(arg + value(arg))
        elif arg in _LINK_VALUED:
            link_flags.append(arg + value(arg))
        elif arg in ("-isystem", "-include", "-iquote"):
            compile_flags += [arg, value(arg)]
        elif arg == "-x":
            language = value(arg)
            if language not in _LANGUAGES:
                raise OptionError(f"-x {language}: hipkit cc compiles HIP C++ (-x hip)")
        elif arg.startswith("--std="):  # nvcc's and hiprtc's spelling
            compile_flags.append(arg[1:])
        elif arg in _IGNORED:
            ignored.append(arg)
            if "fast_math" in arg:
                found["fast_math"] = True
                compile_flags.append("-ffast-math")
        elif arg.startswith(_COMPILE_VALUED):
            compile_flags.append(arg)
        elif arg.startswith(_LINK_VALUED) or arg.startswith("-Wl,"):
            link_flags.append(arg)
        elif arg.startswith(_COMPILE_PREFIXES):
            compile_flags.append(arg)
        elif arg.startswith(_BOTH_PREFIXES):
            compile_flags.append(arg)
            link_flags.append(arg)
        elif arg.startswith("-"):
            raise OptionError(f"unsupported option {arg!r}")
        elif is_source(arg) or _is_link_input(arg):
            inputs.append(arg)
        else:
            raise OptionError(
                f"{arg}: unknown kind of input (sources: {' '.join(SOURCE_SUFFIXES)}; objects and libraries:"
                " .o .a .so)"
            )
    options = Options(
        inputs=tuple(inputs),
        output=found.get("output"),  # type: ignore[arg-type]
        compile_only=bool(found.get("compile_only")),
        compile_flags=tuple(compile_flags),
        link_flags=tuple(link_flags),
        platform=found.get("platform"),  # type: ignore[arg-type]
        offload_archs=tuple(archs),
        fast_math=bool(found.get("fast_math")),
        version=bool(found.get("version")),
        help=bool(found.get("help")),
        ignored=tuple(ignored),
    )
    _check(options)
    return options


def _check(o: Options) -> None:
    if o.version or o.help:
        return
    if not o.inputs:
        raise OptionError("no input files")
    if o.compile_only:
        if not o.sources:
            raise OptionError("-c needs a source file")
        if o.output is not None and len(o.sources) > 1:
            raise OptionError("-o with -c takes one source file (it names that file's object)")
        if len(o.sources) != len(o.inputs):
            raise OptionError("-c compiles sources; objects and libraries are for linking")
