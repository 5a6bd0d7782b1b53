"""``hipkit cc``: compile whole HIP programs, with hipcc's options.

``hipkit cc [options] FILE...`` compiles HIP C++ sources (host code and
kernels) and links them, with any objects and libraries given, into an
executable (``-o``, default ``a.out``), or only compiles (``-c``).  Diagnostics
go to stderr with the user's file and line.  Exit status: 0 on success, 1 when
compiling or linking failed (nothing is written then), 2 for a usage error.
``hipkit cc --version`` lists the compilers of every platform.
"""

from __future__ import annotations

import argparse
import sys

from .._errors import CompileError
from ..cc import OptionError, build, parse_args, report

USAGE = """\
usage: hipkit cc [options] FILE...

Compile whole HIP programs (host code and kernels) for a platform, as hipcc does.

inputs:
  FILE                  HIP C++ sources (.hip .cu .cpp .cc .cxx), objects (.o),
                        libraries (.a .so)
options:
  -o FILE               the executable (default a.out), or with -c the object
  -c                    compile only: one .o per source
  -I DIR, -D NAME[=V], -U NAME, -include FILE, -isystem DIR
                        preprocessor options
  -O0 -O1 -O2 -O3 -Os   optimization (default -O3)
  -g                    debug information
  -std=c++17|c++20|...  language standard (default c++17)
  -W..., -w, -f..., -m...  warnings and code generation, passed to the compiler
  -L DIR, -l NAME, -Wl,ARG, -pthread
                        linker options
  --offload-arch=ARCH   GPU architecture (GPU platforms; the CPU build ignores it)
  --platform NAME       one of {platforms} (default: HIPKIT_PLATFORM, else the
                        GPU here whose compiler is installed, else cpu)
  --version             the compilers of every platform, found or missing
  -h, --help            this text
"""


def add_parser(commands) -> None:
    p = commands.add_parser(
        "cc",
        help="compile whole HIP programs (hipcc's options)",
        description="Compile whole HIP programs (host code and kernels); hipkit cc --help for options.",
        add_help=False,
        prefix_chars="\0",  # every argument is hipcc's, parsed by hipkit.cc
    )
    p.add_argument("args", nargs=argparse.REMAINDER)


def run(args) -> int:
    return main(args.args)


def print_error(exc: CompileError, command: str) -> None:
    """A compile error as a compiler prints it: the diagnostics, then one line."""
    if exc.log:
        sys.stderr.write(exc.log if exc.log.endswith("\n") else exc.log + "\n")
    message = str(exc).split("\n", 1)[0]
    print(f"hipkit {command}: error: {message}", file=sys.stderr)


def warn(log: str) -> None:
    sys.stderr.write(log if log.endswith("\n") else log + "\n")


def main(argv: list[str]) -> int:
    """Run ``hipkit cc`` with ``argv``; returns the exit status."""
    try:
        options = parse_args(argv)
    except OptionError as exc:
        print(f"hipkit cc: error: {exc}", file=sys.stderr)
        return 2
    if options.help:
        from .. import platforms

        print(USAGE.format(platforms=", ".join(platforms.known())), end="")
        return 0
    if options.version:
        text, usable = report()
        print(text)
        return 0 if usable else 1
    try:
        build(options, warn=warn)
    except OptionError as exc:
        print(f"hipkit cc: error: {exc}", file=sys.stderr)
        return 2
    except CompileError as exc:
        print_error(exc, "cc")
        return 1
    return 0
