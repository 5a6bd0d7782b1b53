"""``hipkit run``: build a whole HIP program (cached) and run it.

``hipkit run prog.cpp [more.cpp ...] [cc options] [-- program args]`` compiles
as ``hipkit cc`` does, keeps the executable in hipkit's cache under the hash of
everything it is built from (an unchanged program starts at once), and runs it
with the arguments after ``--``.  The program's stdin, stdout and stderr are
this process's; its exit status is hipkit run's (128 + N for a program killed
by signal N).  Compile errors exit 1 without running anything; usage errors 2.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import PurePath

from .._errors import CompileError
from ..cc import OptionError, cached_program, parse_args
from .cc import print_error, warn

USAGE = """\
usage: hipkit run FILE... [hipkit cc options] [-- ARG...]

Build a whole HIP program (cached by content) and run it with ARGs.
hipkit cc --help lists the options.
"""


def add_parser(commands) -> None:
    p = commands.add_parser(
        "run",
        help="build (cached) and run a whole HIP program",
        description="Build a whole HIP program (cached) and run it; hipkit run --help for usage.",
        add_help=False,
        prefix_chars="\0",
    )
    p.add_argument("args", nargs=argparse.REMAINDER)


def run(args) -> int:
    return main(args.args)


def main(argv: list[str]) -> int:
    """Run ``hipkit run`` with ``argv``; returns the program's exit status."""
    cut = argv.index("--") if "--" in argv else len(argv)
    cc_args, program_args = argv[:cut], argv[cut + 1 :]
    try:
        options = parse_args(cc_args)
        if options.help or options.version:
            print(USAGE, end="")
            return 0
        if options.compile_only or options.output is not None:
            raise OptionError("-c and -o are hipkit cc's: hipkit run keeps the program in the cache")
        program = cached_program(options, warn=warn)
    except OptionError as exc:
        print(f"hipkit run: error: {exc}", file=sys.stderr)
        return 2
    except CompileError as exc:
        print_error(exc, "run")
        return 1
    name = PurePath(options.sources[0]).stem if options.sources else "program"
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        done = subprocess.run([name, *program_args], executable=program)
    except KeyboardInterrupt:
        return 130
    return done.returncode if done.returncode >= 0 else 128 - done.returncode
