"""``hipkit sanitize``: run a program with its kernels checked, as compute-sanitizer runs
one.

The program runs in a child process with HIPKIT_SANITIZE set to the tool: the CPU
platform then builds its kernels with probes on every access (a build of their own in
the cache, made on first use), and its runtime checks each access and reports the
errors in compute-sanitizer's shape (platforms/cpu/runtime/sanitize.cpp).  The program
is not rebuilt by hand: a Python script's kernels are compiled when it runs, and
``hipkit run prog.hip`` builds the program's instrumented copy itself.  The runtime
writes its error count where HIPKIT_SANITIZE_REPORT says and prints the summary; a
process that never started the CPU runtime ran no checked kernel, and the summary
here says so.  The exit status is the program's (with errors and ``--error-exitcode``,
that code).

Where the program's platform may be NVIDIA (HIPKIT_PLATFORM, else a GPU's driver here),
the command runs under NVIDIA's compute-sanitizer with the same tool and options, which
checks the GPU's kernels and prints its own report; without compute-sanitizer, a
message says what to install and only CPU kernels are checked.  On AMD GPUs nothing is
checked yet, and a message says so.

    hipkit sanitize -- python script.py ARGS
    hipkit sanitize --tool memcheck --print-limit 10 --error-exitcode 3 -- hipkit run prog.hip
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from . import _child

_TOOLS = ("memcheck",)


def add_parser(commands) -> None:
    p = commands.add_parser(
        "sanitize",
        help="check a program's kernels: out-of-bounds and freed-memory accesses, leaks (compute-sanitizer's "
        "memcheck)",
        description="Run COMMAND (python script.py ..., a script path, or hipkit run prog.hip) with the CPU "
        "platform's kernels built with probes, and report every invalid access with its kernel, thread, "
        "block, source line, address and allocation; on NVIDIA under compute-sanitizer.",
    )
    p.add_argument("--tool", choices=_TOOLS, default="memcheck", help="the checker (default memcheck)")
    p.add_argument(
        "--print-limit",
        type=int,
        default=100,
        metavar="N",
        help="print at most N errors (default 100; 0: all); the summary counts every one",
    )
    p.add_argument(
        "--leak-check",
        choices=("full", "no"),
        default="no",
        help="full: report every allocation still live at exit, each an error (default no)",
    )
    p.add_argument(
        "--error-exitcode",
        type=int,
        default=0,
        metavar="N",
        help="exit with N (1 to 255) when errors were found (default: the program's own status)",
    )
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="-- COMMAND ...", help="the program to run")


def _usage(args) -> str:
    if args.print_limit < 0:
        return f"--print-limit {args.print_limit}: expected 0 or more"
    if not 0 <= args.error_exitcode <= 255:
        return f"--error-exitcode {args.error_exitcode}: expected 0 to 255"
    words = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not words:
        return (
            "no command given: hipkit sanitize [options] -- python script.py ... (or -- hipkit run prog.hip)"
        )
    return ""


def _platforms() -> list[str]:
    """The platforms whose kernels the program may run: those that are not GPUs (any
    program may use them), and the GPU platform HIPKIT_PLATFORM names or, without it,
    those whose probe (their driver's device files) says a GPU may be here."""
    from .. import platforms

    forced = platforms.forced()
    chosen = []
    for name in platforms.known():
        faces = platforms.faces(name)
        if not faces.gpu or name == forced or (not forced and faces.probe()):
            chosen.append(name)
    return chosen


def _under(options) -> tuple[list[str], dict[str, str]]:
    """The command prefix and the environment of every platform's checks (a message for
    a platform that has none, or lacks what they need)."""
    from .. import platforms
    from ..platforms.base.faces import SanitizerUnavailable

    prefix: list[str] = []
    environment: dict[str, str] = {}
    for name in _platforms():
        faces = platforms.faces(name)
        face = faces.load("sanitizer")
        if face is None:
            print(f"hipkit sanitize: {faces.title} kernels are not checked yet", file=sys.stderr)
            continue
        try:
            more, env = face.command(options)
        except SanitizerUnavailable as exc:
            print(f"hipkit sanitize: {exc}; {faces.title} kernels are not checked", file=sys.stderr)
            continue
        prefix = prefix or more  # one vendor's tool around the program
        environment.update(env)
    return prefix, environment


def run(args) -> int:
    usage = _usage(args)
    if usage:
        print(f"hipkit sanitize: error: {usage}", file=sys.stderr)
        return 2
    from ..platforms.base.faces import SanitizeOptions

    descriptor, report = tempfile.mkstemp(prefix="hipkit-sanitize-")
    os.close(descriptor)
    os.unlink(report)  # the CPU runtime writes it at exit: none means no runtime ran
    try:
        options = SanitizeOptions(args.tool, args.print_limit, args.leak_check, args.error_exitcode, report)
        prefix, environment = _under(options)
        print("========= HIPKIT-SANITIZER", file=sys.stderr, flush=True)
        status = _child.run("sanitize", [*prefix, *_child.command(args.program)], environment)
        if not os.path.exists(report):
            print("========= ERROR SUMMARY: 0 errors (no CPU kernel ran)", file=sys.stderr)
    finally:
        if os.path.exists(report):
            os.unlink(report)
    return status
