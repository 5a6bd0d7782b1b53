"""``hipkit prof``: run a program traced from its start, as rocprofv3 runs one.

The program runs in a child process with HIPKIT_PROF_DIR set.  A Python
process that imports hipkit starts the tracer there; a C++ program built by
``hipkit cc`` writes its own trace, with what its platform's program tracing
face puts in its environment (on the CPU libhipkit_cpu traces by itself; on
NVIDIA the CUPTI library hipkit builds is named in CUDA_INJECTION64_PATH).
Every traced process writes its own files (``%pid%`` in the names); with
several processes and no ``%pid%``, one timeline holds them all.  The records
are spooled to a temporary directory in chunks, flushed at the program's exit
(after an uncaught exception, a fatal signal and SIGTERM, too), then written as
rocprofv3's files.  The exit status
is the program's (128 + N when it died of signal N).

    hipkit prof --kernel-trace --stats -d out -o run -- python script.py ARGS
    hipkit prof --sys-trace --stats -- ./vector_add
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..profiler import Domains
from ..profiler.programs import read_traces, write_timeline
from . import _child

if TYPE_CHECKING:
    from ..profiler.trace import Trace

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
        help="profile a program: Python, or C++ built by hipkit cc (rocprofv3's options and files)",
        description="Run COMMAND (python script.py ..., a script path, or a program built by hipkit cc) "
        "traced from its start and write rocprofv3's trace files. With no tracing option, everything is "
        "traced (--sys-trace).",
    )
    trace = p.add_argument_group("tracing")
    trace.add_argument("--kernel-trace", action="store_true", help="kernel dispatches (kernel_trace.csv)")
    trace.add_argument("--hip-trace", action="store_true", help="HIP API calls (hip_api_trace.csv)")
    trace.add_argument(
        "--memory-copy-trace", action="store_true", help="memory copies and memsets (memory_copy_trace.csv)"
    )
    trace.add_argument(
        "--marker-trace",
        action="store_true",
        help="hipkit.mark/hipkit.range, roctx marks and ranges (marker_api_trace.csv)",
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
    names = p.add_argument_group("kernel names (demangled by default)")
    names.add_argument(
        "-M", "--mangled-kernels", action="store_true", help="show kernel names as compiled (mangled)"
    )
    names.add_argument(
        "-T", "--truncate-kernels", action="store_true", help="show the bare function name of each kernel"
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
        help="csv (rocprofv3's CSV files), json (Chrome trace-event JSON: NAME_trace.json), pftrace "
        "(Perfetto's format: NAME_results.pftrace); several at once: -f csv json pftrace",
    )
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="-- COMMAND ...", help="the program to run")


def _usage(args) -> str:
    try:
        Domains(include=args.kernel_include_regex, exclude=args.kernel_exclude_regex)
    except ValueError as exc:
        return str(exc)
    if args.mangled_kernels and args.truncate_kernels:
        return "-M (--mangled-kernels) and -T (--truncate-kernels): choose one"
    command = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not command:
        return "no command given: hipkit prof [options] -- python script.py ... (or -- ./program ...)"
    return ""


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
    options: dict[str, Any] = {domain: option in chosen for option, domain in _DOMAIN_OPTIONS.items()}
    options["include"] = args.kernel_include_regex
    options["exclude"] = args.kernel_exclude_regex
    spool_dir = Path(tempfile.mkdtemp(prefix="hipkit-prof-"))
    try:
        (spool_dir / "options.json").write_text(json.dumps(options))
        environment = {"HIPKIT_PROF_DIR": str(spool_dir), **_program_tracing()}
        status = _child.run("prof", _child.command(args.program), environment)
        traces = read_traces(spool_dir, Domains(**options), _kernel_names(args), _warn)
        _write_outputs(
            args, traces, {domain for option, domain in _DOMAIN_OPTIONS.items() if option in chosen}
        )
    finally:
        shutil.rmtree(spool_dir, ignore_errors=True)
    return status


def _program_tracing() -> dict[str, str]:
    """What the platforms need in a program's environment so that it traces itself
    (their program tracing faces: on NVIDIA, CUPTI's injection); where a platform
    cannot have it here, a warning and nothing."""
    from .. import platforms
    from ..platforms.base.faces import ProgramTracingUnavailable

    environment: dict[str, str] = {}
    for name in platforms.having("program_tracing"):
        face = platforms.faces(name).load("program_tracing")
        try:
            environment.update(face())
        except ProgramTracingUnavailable as exc:
            print(f"hipkit prof: {exc}", file=sys.stderr)
    return environment


def _warn(message: str) -> None:
    print(f"hipkit prof: {message}", file=sys.stderr)


def _kernel_names(args) -> str:
    return "truncated" if args.truncate_kernels else "mangled" if args.mangled_kernels else "demangled"


def _write_outputs(args, traces: list[tuple[int, Trace]], domains: set[str]) -> None:
    if not traces:
        print("hipkit prof: the program did not use hipkit: nothing traced", file=sys.stderr)
        return
    named_by_pid = "%pid%" in args.output_file or "%pid%" in args.output_directory
    # Several processes and one name: one timeline for them all, each process its own tracks.
    one_timeline = len(traces) > 1 and not named_by_pid and "json" in args.output_format
    for pid, trace in traces:
        directory = Path(_expand(args.output_directory, pid))
        name = _expand(args.output_file, pid)
        if len(traces) > 1 and "%pid%" not in args.output_file:
            name = f"{name}_{pid}"  # several processes: one set of files each
        written = []
        if "csv" in args.output_format:
            written += trace.save_csv(directory, name, stats=args.stats, domains=domains)
        if "json" in args.output_format and not one_timeline:
            written.append(trace.save(directory / f"{name}_trace.json"))
        if "pftrace" in args.output_format:
            written.append(trace.save(directory / f"{name}_results.pftrace"))
        if args.summary:
            print(trace.summary(), file=sys.stderr)
        shown = ", ".join(p.name for p in written) or "no records"
        print(f"hipkit prof: pid {pid}: {shown} in {directory}", file=sys.stderr)
    if one_timeline:
        directory = Path(_expand(args.output_directory, 0))
        path = directory / f"{_expand(args.output_file, 0)}_trace.json"
        write_timeline([trace for _, trace in traces], path)
        print(
            f"hipkit prof: the {len(traces)} processes' timeline: {path.name} in {directory}", file=sys.stderr
        )
