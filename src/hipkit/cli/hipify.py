"""``hipkit hipify``: translate CUDA sources to HIP (files, or whole trees in parallel).

Output goes to stdout unless ``-o FILE``, ``--inplace`` or ``--output-dir DIR`` says
otherwise; a directory argument means every C, C++ and CUDA source under it (HIPIFY's
suffixes, hidden folders skipped).  Diagnostics (unsupported names, portability rules) go
to stderr as ``file:line:col: warning: ... [rule]`` unless ``--no-warnings``, and to a JSON
file with ``--report FILE``; ``--fix-warp-size`` rewrites the safe warp-size cases;
``--print-stats`` adds hipify-perl's statistics.  Exit status: 0 when every input was
translated, 1 when one could not be (missing, unreadable, an unterminated comment or
literal), 2 for a usage error.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from ..hipify import FileResult, Options, Stats, output_path, translate_files
from ..hipify.files import sources, write_atomic
from ..hipify.rules import RULES

REPORT_VERSION = 1


def add_parser(commands) -> None:
    p = commands.add_parser(
        "hipify",
        help="translate CUDA sources to HIP",
        description="Translate CUDA sources to HIP: to stdout, -o FILE, --inplace or --output-dir DIR.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="CUDA source files or directories")
    where = p.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="FILE", help="write the one input's translation to FILE")
    where.add_argument("--inplace", action="store_true", help="replace each input with its translation")
    where.add_argument(
        "--output-dir", metavar="DIR", help="write translations under DIR (a tree keeps its layout)"
    )
    p.add_argument("--rename-ext", action="store_true", help="with --output-dir: name .cu outputs .hip")
    p.add_argument(
        "--hip-kernel-execution-syntax",
        "-hip-kernel-execution-syntax",
        action="store_true",
        help="write kernel launches as hipLaunchKernelGGL(...) instead of keeping <<<...>>>",
    )
    p.add_argument(
        "--cuda-kernel-execution-syntax",
        "-cuda-kernel-execution-syntax",
        action="store_true",
        help="keep <<<...>>> launches (the default; hipify-clang's option, overridden by the HIP one)",
    )
    # hipify-clang's options also take one dash (LLVM's option parser): -roc, -miopen, ...
    p.add_argument(
        "--roc", "-roc", action="store_true", help="translate to rocBLAS, rocSPARSE, ... instead of hip*"
    )
    p.add_argument("--miopen", "-miopen", action="store_true", help="translate cuDNN to MIOpen")
    p.add_argument(
        "--experimental",
        "-experimental",
        action="store_true",
        help="also translate names HIP marks experimental",
    )
    p.add_argument(
        "--fix-warp-size",
        action="store_true",
        help="rewrite code that assumes 32 lanes per warp where that is safe (the rest is reported)",
    )
    p.add_argument("--report", metavar="FILE", help="write every diagnostic to FILE as JSON")
    p.add_argument("--no-warnings", action="store_true", help="print no diagnostics to stderr")
    p.add_argument("--list-rules", action="store_true", help="print the diagnostic rules and exit")
    p.add_argument(
        "--print-stats", "-print-stats", action="store_true", help="print conversion statistics to stderr"
    )
    p.add_argument("-j", "--jobs", type=int, metavar="N", help="processes for many files (default: cores)")


def run(args) -> int:
    if args.list_rules:
        for rule in RULES.values():
            fix = " (--fix-warp-size)" if rule.fixable else ""
            print(f"{rule.id:20} {rule.severity:8} {rule.summary}{fix}")
        return 0
    usage = _usage_error(args)
    if usage:
        print(f"hipkit hipify: error: {usage}", file=sys.stderr)
        return 2
    options = Options(
        hip_kernel_execution_syntax=args.hip_kernel_execution_syntax,
        roc=args.roc,
        miopen=args.miopen,
        experimental=args.experimental,
        fix_warp_size=args.fix_warp_size,
    )
    jobs, errors = _jobs(args)
    results = translate_files(jobs, options=options, workers=args.jobs)
    total = Stats()
    for result in results:
        _report(result, args.print_stats, not args.no_warnings)
        total.add(result.stats)
        if result.text is not None:
            sys.stdout.buffer.write(result.text.encode("utf-8", "surrogateescape"))
            sys.stdout.flush()
    if args.print_stats and len(results) > 1:
        print(_format_stats(total, "GLOBAL", sum(len(r.diagnostics) for r in results)), file=sys.stderr)
    for error in errors:
        print(f"hipkit hipify: error: {error}", file=sys.stderr)
    failed = errors + [r.error for r in results if r.error]
    if args.report:
        try:
            write_atomic(Path(args.report), json.dumps(report(results, failed), indent=2) + "\n")
        except OSError as e:
            print(f"hipkit hipify: error: {args.report}: cannot write: {e.strerror or e}", file=sys.stderr)
            return 1
    return 1 if failed else 0


def report(results: list[FileResult], errors: list[str]) -> dict[str, object]:
    """The ``--report`` document: every diagnostic, counts by severity and rule, errors."""
    diagnostics = [d.as_dict() for r in results for d in r.diagnostics]
    return {
        "version": REPORT_VERSION,
        "files": [r.source for r in results],
        "summary": {
            "diagnostics": len(diagnostics),
            "by_severity": dict(sorted(Counter(str(d["severity"]) for d in diagnostics).items())),
            "by_rule": dict(sorted(Counter(str(d["rule"]) for d in diagnostics).items())),
            "fixed": sum(1 for d in diagnostics if d["fixed"]),
        },
        "diagnostics": diagnostics,
        "errors": errors,
    }


def _usage_error(args) -> str:
    if not args.paths:
        return "no input: give CUDA source files or directories"
    if args.output and len(args.paths) > 1:
        return "-o FILE takes one input; use --output-dir DIR for several"
    if args.rename_ext and not args.output_dir:
        return "--rename-ext needs --output-dir DIR"
    if args.jobs is not None and args.jobs < 1:
        return "--jobs must be at least 1"
    return ""


def _jobs(args) -> tuple[list[tuple[Path, Path | None]], list[str]]:
    """The (source, output) pairs the arguments ask for, and the arguments that are
    not files to translate."""
    jobs: list[tuple[Path, Path | None]] = []
    errors: list[str] = []
    output_dir = Path(args.output_dir) if args.output_dir else None
    for name in args.paths:
        path = Path(name)
        if path.is_dir():
            if output_dir is None and not args.inplace:
                errors.append(f"{path}: is a directory (translate a tree with --output-dir DIR or --inplace)")
                continue
            for src in sources(path, exclude=output_dir):
                if output_dir is None:
                    jobs.append((src, src))
                else:
                    jobs.append((src, output_path(src, path, output_dir, args.rename_ext)))
        elif output_dir is not None:
            jobs.append((path, output_path(path, path.parent, output_dir, args.rename_ext)))
        elif args.inplace:
            jobs.append((path, path))
        else:
            jobs.append((path, Path(args.output) if args.output else None))
    return jobs, errors


def _report(result: FileResult, print_stats: bool, warnings: bool) -> None:
    for diagnostic in result.diagnostics if warnings else ():
        print(diagnostic, file=sys.stderr)
    if result.error:
        print(f"hipkit hipify: error: {result.error}", file=sys.stderr)
    elif print_stats:
        print(_format_stats(result.stats, result.source, len(result.diagnostics)), file=sys.stderr)


def _format_stats(stats: Stats, name: str, warnings: int) -> str:
    """hipify-perl's statistics block, with the counts by API and by type added."""
    lines = [
        f"[HIPIFY] info: file '{name}' statistics:",
        f"  CONVERTED refs count: {stats.converted}",
        f"  UNSUPPORTED refs count: {len(stats.unsupported)}",
        f"  TOTAL lines of code: {stats.lines}",
        f"  WARNINGS: {warnings}",
    ]
    for title, counts in (("API", stats.libraries), ("type", stats.kinds)):
        if counts:
            lines.append(f"[HIPIFY] info: CONVERTED refs by {title}:")
            lines += [f"  {key}: {count}" for key, count in sorted(counts.items())]
    if stats.names:
        lines.append("[HIPIFY] info: CONVERTED refs by names:")
        lines += [f"  {cuda} => {hip or '(removed)'}: {n}" for (cuda, hip), n in sorted(stats.names.items())]
    return "\n".join(lines)
