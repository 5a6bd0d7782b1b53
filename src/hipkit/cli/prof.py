"""``hipkit prof``: run a Python program traced from its start, as rocprofv3 runs one.

The program runs in a child process with HIPKIT_PROF_DIR set, so that hipkit's
import starts the tracer there; every process of the command that imports
hipkit is traced and writes its own files (``%pid%`` in the names).  The
records are spooled to a temporary directory in chunks, flushed at the
program's exit (after an uncaught exception, and on SIGTERM, too), then
written as rocprofv3's files.  The exit status is the program's (128 + N when
it died of signal N).

    hipkit prof --kernel-trace --stats -d out -o run -- python script.py ARGS
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from ..profiler._tracer import Domains

# rocprofv3's tracing options: option -> the domain it records.
_DOMAIN_OPTIONS = {
    "kernel_trace": "kernel",
    "hip_trace": "api",
    "memory_copy_trace": "copy",
    "marker_trace": "marker",
    "memory_allocation_trace": "alloc",
}
_FORMATS = ("csv", "json", "pftrace")


def add_parser(commands) -> None:
    p = commands.add_parser(
        "prof",
        help="profile a Python program (rocprofv3's options and files)",
        description="Run COMMAND (python script.py ... or a script path) traced from its start and write "
        "rocprofv3's trace files. With no tracing option, everything is traced (--sys-trace).",
    )
    trace = p.add_argument_group("tracing")
    trace.add_argument("--kernel-trace", action="store_true", help="kernel dispatches (kernel_trace.csv)")
    trace.add_argument("--hip-trace", action="store_true", help="HIP API calls (hip_api_trace.csv)")
    trace.add_argument(
        "--memory-copy-trace", action="store_true", help="memory copies and memsets (memory_copy_trace.csv)"
    )
    trace.add_argument(
        "--marker-trace", action="store_true", help="hipkit.mark/hipkit.range (marker_api_trace.csv)"
    )
    trace.add_argument(
        "--memory-allocation-trace",
        action="store_true",
        help="allocations and frees (memory_allocation_trace.csv)",
    )
    trace.add_argument("--sys-trace", action="store_true", help="all of the above")
    trace.add_argument(
        "--kernel-include-regex", metavar="REGEX", help="trace only kernels whose name matches"
    )
    trace.add_argument(
        "--kernel-exclude-regex", metavar="REGEX", help="do not trace kernels whose name matches"
    )
    out = p.add_argument_group("output")
    out.add_argument("--stats", action="store_true", help="also write each domain's *_stats.csv")
    out.add_argument(
        "-S", "--summary", action="store_true", help="print the top kernels and API calls (stderr)"
    )
    out.add_argument(
        "-d",
        "--output-directory",
        default="%hostname%",
        metavar="DIR",
        help="where to write (default %%hostname%%)",
    )
    out.add_argument(
        "-o", "--output-file", default="%pid%", metavar="NAME", help="file name prefix (default %%pid%%)"
    )
    out.add_argument(
        "-f",
        "--output-format",
        nargs="+",
        default=["csv"],
        choices=_FORMATS,
        metavar="FORMAT",
        help="csv (rocprofv3's CSV files), json (Chrome trace-event JSON for Perfetto: NAME_trace.json)",
    )
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="-- COMMAND ...", help="the program to run")


def _usage(args) -> str:
    try:
        Domains(include=args.kernel_include_regex, exclude=args.kernel_exclude_regex)
    except ValueError as exc:
        return str(exc)
    if "pftrace" in args.output_format:
        return "--output-format pftrace is not supported yet; use json (it opens in Perfetto too)"
    command = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not command:
        return "no command given: hipkit prof [options] -- python script.py ..."
    return ""


def _command(words: list[str]) -> list[str]:
    """``script.py ARGS`` and ``python ARGS`` run under the Python running hipkit
    (so the program sees this hipkit); anything else as given."""
    words = words[1:] if words[:1] == ["--"] else words
    if words[0] in ("python", "python3"):
        return [sys.executable, *words[1:]]
    if words[0].endswith(".py") or (Path(words[0]).is_file() and not os.access(words[0], os.X_OK)):
        return [sys.executable, *words]
    return words


def _expand(text: str, pid: int) -> str:
    return text.replace("%hostname%", socket.gethostname()).replace("%pid%", str(pid))


def run(args) -> int:
    usage = _usage(args)
    if usage:
        print(f"hipkit prof: error: {usage}", file=sys.stderr)
        return 2
    chosen = {option for option in _DOMAIN_OPTIONS if getattr(args, option)}
    if args.sys_trace or not chosen:
        chosen = set(_DOMAIN_OPTIONS)
    options = {domain: option in chosen for option, domain in _DOMAIN_OPTIONS.items()}
    options["include"] = args.kernel_include_regex
    options["exclude"] = args.kernel_exclude_regex
    spool_dir = Path(tempfile.mkdtemp(prefix="hipkit-prof-"))
    try:
        (spool_dir / "options.json").write_text(json.dumps(options))
        status = _run_child(_command(args.program), spool_dir)
        _write_outputs(
            args, spool_dir, {domain for option, domain in _DOMAIN_OPTIONS.items() if option in chosen}
        )
    finally:
        shutil.rmtree(spool_dir, ignore_errors=True)
    return status


def _run_child(command: list[str], spool_dir: Path) -> int:
    env = dict(os.environ, HIPKIT_PROF_DIR=str(spool_dir))
    try:
        child = subprocess.Popen(command, env=env)
    except OSError as exc:
        print(f"hipkit prof: cannot run {command[0]}: {exc}", file=sys.stderr)
        return 127
    # The child gets the terminal's Ctrl-C itself; a SIGTERM to us goes on to it,
    # and we stay to write what it traced.
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
    try:
        code = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - code if code < 0 else code


def _write_outputs(args, spool_dir: Path, domains: set[str]) -> None:
    from ..profiler import from_file

    spools = sorted(spool_dir.glob("*.spool"), key=lambda p: p.stat().st_mtime)
    if not spools:
        print("hipkit prof: the program did not use hipkit: nothing traced", file=sys.stderr)
        return
    for spool in spools:
        pid = int(spool.stem)
        trace = from_file(spool)
        directory = Path(_expand(args.output_directory, pid))
        name = _expand(args.output_file, pid)
        if len(spools) > 1 and "%pid%" not in args.output_file:
            name = f"{name}_{pid}"  # several processes: one set of files each
        written = []
        if "csv" in args.output_format:
            written += trace.save_csv(directory, name, stats=args.stats, domains=domains)
        if "json" in args.output_format:
            written.append(trace.save(directory / f"{name}_trace.json"))
        if args.summary:
            print(trace.summary(), file=sys.stderr)
        shown = ", ".join(p.name for p in written) or "no records"
        print(f"hipkit prof: pid {pid}: {shown} in {directory}", file=sys.stderr)
