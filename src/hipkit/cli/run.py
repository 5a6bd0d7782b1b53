"""``hipkit run``: build a whole HIP program (cached) and run it.

``hipkit run prog.cpp [more.cpp ...] [cc options] [-- program args]`` compiles
as ``hipkit cc`` does, keeps the executable in hipkit's cache under the hash of
everything it is built from, and runs it with the arguments after ``--``.  An
unchanged program is found from the manifest its build left
(:mod:`hipkit.cc.manifest`) without running a compiler, and starts at once.
The program's stdin, stdout and stderr are this process's; its exit status is
hipkit run's (128 + N for a program killed by signal N).  Compile errors exit 1
without running anything; usage errors 2.

The cached path imports nothing it does not use (no compiler driver, no
subprocess, argparse, typing, pathlib or enum): ``python -X importtime
$(which hipkit) run ...`` shows it.
"""

from __future__ import annotations

import _signal  # signal's C half: the signal module imports enum, a tenth of a cached run's time
import os
import sys

from ..cc.manifest import lookup
from ..platforms.base.options import OptionError, Options, parse_args

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

USAGE = """\
usage: hipkit run FILE... [hipkit cc options] [-- ARG...]

Build a whole HIP program (cached by content) and run it with ARGs.
hipkit cc --help lists the options.
"""


def add_parser(commands) -> None:
    import argparse

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
    except OptionError as exc:
        print(f"hipkit run: error: {exc}", file=sys.stderr)
        return 2
    program = lookup(options) or _build(options)
    if isinstance(program, int):
        return program
    name = os.path.splitext(os.path.basename(options.sources[0]))[0] if options.sources else "program"
    sys.stdout.flush()
    sys.stderr.flush()
    return _run(program, [name, *program_args])


def _build(options: Options) -> Path | int:
    """The full path: the program built (or found) by the compiler driver, or
    the exit status of a failed build."""
    from .._errors import CompileError
    from ..cc.driver import cached_program
    from .cc import print_error, warn

    try:
        return cached_program(options, warn=warn)
    except OptionError as exc:
        print(f"hipkit run: error: {exc}", file=sys.stderr)
        return 2
    except CompileError as exc:
        print_error(exc, "run")
        return 1


def _run(program: str | Path, argv: list[str]) -> int:
    """Run ``program`` as ``argv`` and wait for it; its exit status (128 + N when
    killed by signal N).  Spawned without the subprocess module (a part of the
    time a cached run takes), with the signals Python ignores (SIGPIPE, SIGXFSZ)
    back to their defaults, as subprocess does.  Ctrl-C is the program's, as
    under system(3): hipkit run ignores it while the program runs, and waits."""
    interrupt = _signal.getsignal(_signal.SIGINT)
    defaults: tuple[int, ...] = (_signal.SIGPIPE, _signal.SIGXFSZ)
    try:
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
        if interrupt != _signal.SIG_IGN:  # the program gets the default action back
            defaults += (_signal.SIGINT,)
    except ValueError:  # not the main thread: signals are the main thread's business
        interrupt = None
    try:
        try:
            pid = os.posix_spawn(program, argv, os.environ, setsigdef=defaults)
        except OSError as exc:
            print(f"hipkit run: error: cannot run {program}: {exc.strerror}", file=sys.stderr)
            return 126  # the shell's status for a program found but not run
        _, status = os.waitpid(pid, 0)
    finally:
        if interrupt is not None:
            _signal.signal(_signal.SIGINT, interrupt)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code
