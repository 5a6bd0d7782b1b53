"""Build and run ROCm's public HIP examples with ``hipkit cc`` (the hipkit cc issue:
external conformance).

Usage::

    python tools/rocm_examples.py PATH_TO_ROCM_EXAMPLES [--platform cpu] [--timeout 300]
        [-j N] [--only NAME ...] [--report FILE] [--commit SHA]

``PATH_TO_ROCM_EXAMPLES`` is a checkout of github.com/ROCm/rocm-examples (nothing of it
is copied into this repository).  For each example of :data:`EXAMPLES`:

1. The command that the example's own ``Makefile`` runs for the HIP runtime is worked
   out (its variables, the ``GPU_RUNTIME == HIP`` branch, and the recipe of the
   ``$(EXAMPLE)`` rule with ``$@``, ``$<`` and ``$^``): the sources, ``-std``, ``-I``
   (``Common/`` for ``example_utils.hpp``), ``-D`` and the warning flags.  The compiler
   (``hipcc``, or the C++ compiler for host-only examples) becomes ``hipkit cc
   --platform PLATFORM``; arguments naming the ROCm installation (``-isystem
   /opt/rocm/include``, ``-L /opt/rocm/lib``) and ``-lamdhip64`` are dropped, since hipkit
   cc brings HIP's headers and runtime.  The sources are not modified; the executable is
   written to a temporary folder.
2. The executable runs in the example's folder with a timeout.
3. *Validated* is decided from the program's own check where it has one (exit status 0,
   "Validation passed." and no "failed" or "mismatch" in its output).  Examples without a
   check of their own (saxpy, streams, occupancy, device_query, hello_world, convolution,
   runtime_compilation) are validated by exit status 0 and the output their code implies,
   which the notes state.

A table program x (built, validated, seconds, notes) is printed; ``--report FILE`` writes
it as Markdown with the date, machine, command and the rocm-examples commit (``git
rev-parse HEAD`` of the checkout, or ``--commit`` for an exported tree).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# A check reads the program's combined stdout and stderr and returns why it is not
# validated, or None.
Check = Callable[[str], "str | None"]


def passed(text: str) -> str | None:
    """The examples' own validation (``report_validation_result`` and its copies)."""
    return None if "Validation passed." in text else "no 'Validation passed.'"


def contains(*patterns: str) -> Check:
    """Every regular expression in ``patterns`` matches the output."""

    def check(text: str) -> str | None:
        missing = [p for p in patterns if not re.search(p, text, re.MULTILINE)]
        return f"output lacks {missing[0]!r}" if missing else None

    return check


def rms_below(limit: float) -> Check:
    """convolution prints the RMS difference from its CPU reference, and judges nothing."""

    def check(text: str) -> str | None:
        m = re.search(r"gpu result is (\S+)", text)
        if m is None:
            return "no RMS error printed"
        return None if float(m.group(1)) <= limit else f"RMS error {m.group(1)} > {limit:g}"

    return check


def hello_lines(text: str) -> str | None:
    """hello_world launches 2 blocks of 2 threads; each thread and the host print."""
    expected = [f"Hello world from device kernel block {b} thread {t}!" for b in (0, 1) for t in (0, 1)]
    lines = text.splitlines()
    if any(lines.count(e) != 1 for e in expected) or "Hello world from host!" not in lines:
        return "not one line from the host and from each of the 4 threads"
    if lines.count("Hello world from device or host!") != 5:
        return "not 5 lines from print_hello (host once, 4 threads)"
    return None


@dataclass(frozen=True)
class Example:
    """One example: its folder in the checkout, the check, and what the check proves
    when the example has none of its own."""

    name: str
    folder: str
    check: Check = passed
    criterion: str = ""


_SAXPY_2 = r"\[ 3, 5, 7, 9, 11, 13, 15, 17, 19, 21 \]"  # 2 * (i + 1) + 1
_SAXPY_51 = r"\[ 7\.1, 14\.2, 21\.3, 28\.4, 35\.5, 42\.6, 49\.7, 56\.8, 63\.9, 71 \]"  # 5.1 x + 2 x

EXAMPLES = [
    Example("bit_extract", "HIP-Basic/bit_extract"),
    Example("device_globals", "HIP-Basic/device_globals"),
    Example("dynamic_shared", "HIP-Basic/dynamic_shared"),
    Example("events", "HIP-Basic/events"),
    Example("gpu_arch", "HIP-Basic/gpu_arch"),
    Example("matrix_multiplication", "HIP-Basic/matrix_multiplication"),
    Example("moving_average", "HIP-Basic/moving_average"),
    Example("shared_memory", "HIP-Basic/shared_memory"),
    Example("warp_shuffle", "HIP-Basic/warp_shuffle"),
    Example("saxpy", "HIP-Basic/saxpy", contains(_SAXPY_2), "no check of its own: the 10 results printed"),
    Example(
        "streams",
        "HIP-Basic/streams",
        contains("^streams completed!$"),
        "no check of its own: runs to its end",
    ),
    Example(
        "occupancy",
        "HIP-Basic/occupancy",
        contains(r"Theoretical Occupancy is [\d.]+%(.|\n)*Theoretical Occupancy is [\d.]+%"),
        "no check of its own: both occupancies printed",
    ),
    Example(
        "device_query",
        "HIP-Basic/device_query",
        contains(r"Device ID\s+0", r"warpSize:\s+\d+", r"memInfo\.free:"),
        "no check of its own: a device listed with its properties",
    ),
    Example(
        "runtime_compilation",
        "HIP-Basic/runtime_compilation",
        contains(_SAXPY_51),
        "no check of its own: the 10 results printed",
    ),
    Example("hello_world", "HIP-Basic/hello_world", hello_lines, "no check of its own: every thread's line"),
    Example("bitonic_sort", "Applications/bitonic_sort"),
    Example("histogram", "Applications/histogram"),
    Example("prefix_sum", "Applications/prefix_sum"),
    Example("floyd_warshall", "Applications/floyd_warshall"),
    # Its outputs reach 256, where float's step is 3e-5: a GPU's fused multiply-adds
    # differ from the CPU reference by a few steps (RMS 1.3e-4 on an H200).
    Example(
        "convolution",
        "Applications/convolution",
        rms_below(1e-3),
        "no check of its own: RMS error against its CPU reference <= 1e-3",
    ),
]

_FAILURE = re.compile(r"\b(failed|mismatch)\b", re.IGNORECASE)


# ---------------------------------------------------------------- the Makefile's command


def _logical_lines(text: str) -> list[str]:
    return text.replace("\\\n", " ").splitlines()


def makefile_command(folder: Path) -> tuple[list[str], str]:
    """The command the example's Makefile runs to build it for the HIP runtime (variables
    with ``:=``, ``=``, ``?=`` and ``+=``, ``ifeq``/``else ifeq``/``else``/``endif``, and
    the first recipe line of the ``$(EXAMPLE)`` rule), and its ``ROCM_INSTALL_DIR``."""
    variables: dict[str, str] = {"CXX": "c++", "RM": "rm -f"}

    def expand(text: str) -> str:
        for _ in range(20):
            new = re.sub(r"\$\((\w+)\)", lambda m: variables.get(m.group(1), ""), text)
            if new == text:
                break
            text = new
        return text

    def condition(line: str) -> bool:
        m = re.match(r"ifeq\s*\(\s*(.*?)\s*,\s*(.*?)\s*\)", line)
        if m is None:
            raise ValueError(f"{folder}/Makefile: cannot read {line!r}")
        return expand(m.group(1)) == expand(m.group(2))

    # Each open conditional: (this branch is taken, an earlier branch was taken).
    stack: list[tuple[bool, bool]] = []
    rules: dict[str, tuple[list[str], list[str]]] = {}
    recipe: list[str] | None = None
    for line in _logical_lines((folder / "Makefile").read_text()):
        if line.startswith("\t") and recipe is not None:  # a recipe line of the last rule
            if all(taken for taken, _ in stack):
                recipe.append(line.strip())
            continue
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        recipe = None
        if line.startswith("ifeq"):
            taken = condition(line)
            stack.append((taken, taken))
        elif line.startswith("else ifeq"):
            done = stack.pop()[1]
            taken = not done and condition(line[len("else ") :])
            stack.append((taken, done or taken))
        elif line == "else":
            done = stack.pop()[1]
            stack.append((not done, True))
        elif line == "endif":
            stack.pop()
        elif not all(taken for taken, _ in stack):
            continue
        elif m := re.match(r"([A-Za-z_]\w*)\s*(:=|\?=|\+=|=)\s*(.*)$", line):
            name, op, value = m.groups()
            if op == "?=" and name in variables:
                continue
            if op == "+=":
                variables[name] = f"{variables.get(name, '')} {expand(value)}".strip()
            else:
                variables[name] = expand(value)
        elif line.startswith("$(error"):
            raise ValueError(f"{folder}/Makefile: {expand(line)}")
        elif m := re.match(r"([^:=]+):(?!=)\s*(.*)$", line):
            target = expand(m.group(1).strip())
            recipe = []
            rules[target] = (expand(m.group(2)).split(), recipe)

    example = variables.get("EXAMPLE", "")
    if example not in rules or not rules[example][1]:
        raise ValueError(f"{folder}/Makefile: no recipe for $(EXAMPLE)")
    prerequisites, lines = rules[example]
    automatic = {
        "$@": example,
        "$<": prerequisites[0] if prerequisites else "",
        "$^": " ".join(prerequisites),
    }
    command = expand(lines[0])
    command = re.sub(r"\$[@<^]", lambda m: automatic[m.group(0)], command)
    return shlex.split(command), variables.get("ROCM_INSTALL_DIR", "")


def hipkit_arguments(command: list[str], rocm: str, output: Path) -> list[str]:
    """hipkit cc's arguments for the Makefile's ``command`` (without the compiler):
    ``-o`` goes to ``output``; the ROCm installation's folders and ``-lamdhip64`` go."""
    args: list[str] = []
    words = iter(command[1:])
    for word in words:
        if word in ("-isystem", "-L", "-I", "-o"):
            value = next(words)
            if word == "-o":
                args += ["-o", str(output)]
            elif not (rocm and value.startswith(rocm)):
                args += [word, value]
        elif word == "-lamdhip64" or (rocm and re.match(rf"-(isystem|L|I){re.escape(rocm)}", word)):
            continue
        else:
            args.append(word)
    return args


# ---------------------------------------------------------------- build, run, check


@dataclass
class Outcome:
    name: str
    built: bool = False
    validated: bool = False
    build_s: float = 0.0
    run_s: float = 0.0
    notes: str = ""
    command: str = ""


def _first_error(log: str) -> str:
    for line in log.splitlines():
        if re.search(r"\berror\b", line):
            return line.strip()
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def try_example(example: Example, root: Path, platform_name: str, timeout: float, out_dir: Path) -> Outcome:
    """Build ``example`` with hipkit cc, run it and check its output."""
    outcome = Outcome(example.name)
    folder = root / example.folder
    exe = out_dir / example.name
    try:
        command, rocm = makefile_command(folder)
        args = hipkit_arguments(command, rocm, exe)
    except (OSError, ValueError, StopIteration) as e:
        outcome.notes = f"Makefile not understood: {e}"
        return outcome
    outcome.command = "hipkit cc " + " ".join(shlex.quote(a) for a in args).replace(str(exe), example.name)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "cc", "--platform", platform_name, *args],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    outcome.build_s = time.perf_counter() - start
    if done.returncode != 0:
        outcome.notes = "build: " + _short(_first_error(done.stderr + done.stdout))
        return outcome
    outcome.built = True
    start = time.perf_counter()
    try:
        ran = subprocess.run([str(exe)], cwd=folder, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        outcome.run_s = time.perf_counter() - start
        outcome.notes = f"timed out after {timeout:g} s"
        return outcome
    outcome.run_s = time.perf_counter() - start
    text = ran.stdout + ran.stderr
    failure = _FAILURE.search(text)
    if ran.returncode != 0:
        status = ran.returncode if ran.returncode >= 0 else f"signal {-ran.returncode}"
        last = [line for line in text.splitlines() if line.strip()]
        outcome.notes = f"exit status {status}: " + _short(last[-1] if last else "no output")
    elif failure:
        line = next(x for x in text.splitlines() if _FAILURE.search(x))
        outcome.notes = "output: " + _short(line)
    elif reason := example.check(text):
        outcome.notes = reason
    else:
        outcome.validated = True
        outcome.notes = example.criterion or "its own check: Validation passed."
    return outcome


# ---------------------------------------------------------------- report


def _mark(ok: bool) -> str:
    return "yes" if ok else "**no**"


def table(outcomes: list[Outcome]) -> str:
    rows = ["| program | built | validated | build s | run s | notes |", "|---|---|---|---:|---:|---|"]
    for o in outcomes:
        notes = o.notes.replace("|", "\\|")
        run_s = f"{o.run_s:.2f}" if o.built else ""
        rows.append(
            f"| {o.name} | {_mark(o.built)} | {_mark(o.validated)} | {o.build_s:.1f} | {run_s} | {notes} |"
        )
    built = sum(o.built for o in outcomes)
    validated = sum(o.validated for o in outcomes)
    rows.append(f"\n{len(outcomes)} examples: {built} built, {validated} validated.")
    return "\n".join(rows)


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def checkout_commit(root: Path) -> str:
    """The commit of a git work tree of rocm-examples at ``root`` (not of a repository
    that merely contains it)."""
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--show-toplevel", "HEAD"], capture_output=True, text=True
    )
    lines = done.stdout.split()
    if done.returncode == 0 and len(lines) == 2 and Path(lines[0]).resolve() == root:
        return lines[1]
    return "unknown (not a git work tree; pass --commit)"


def hipkit_version() -> str:
    """Where the hipkit that ``python -m hipkit.cli`` imports lives, and its commit."""
    done = subprocess.run(
        [sys.executable, "-c", "import hipkit; print(hipkit.__file__)"], capture_output=True, text=True
    )
    package = Path(done.stdout.strip()).parent
    git = subprocess.run(
        ["git", "-C", str(package), "describe", "--always", "--dirty"], capture_output=True, text=True
    )
    return f"{package}" + (f", commit {git.stdout.strip()}" if git.returncode == 0 else "")


def markdown(outcomes: list[Outcome], root: Path, platform_name: str, commit: str, argv: list[str]) -> str:
    commands = "\n".join(f"    {o.name}: {o.command}" for o in outcomes if o.command)
    return (
        f"## rocm-examples with hipkit cc, platform {platform_name}\n\n"
        f"- date: {datetime.date.today().isoformat()}\n"
        f"- machine: {machine()}\n"
        f"- command: `python tools/rocm_examples.py {' '.join(shlex.quote(a) for a in argv)}`\n"
        f"- rocm-examples: {commit} ({root})\n"
        f"- hipkit: {hipkit_version()}\n\n"
        f"{table(outcomes)}\n\n"
        "Build commands, from each example's Makefile (run in its folder):\n\n"
        f"{commands}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of github.com/ROCm/rocm-examples")
    parser.add_argument("--platform", default="cpu", help="hipkit cc's platform (default: cpu)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds each program may run")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="examples at once")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these examples only")
    parser.add_argument("--report", type=Path, help="write the table as Markdown to this file")
    parser.add_argument("--commit", help="the checkout's commit, for a tree without .git")
    args = parser.parse_args(argv)
    root = args.checkout.resolve()
    if not (root / "HIP-Basic").is_dir():
        parser.error(f"{root} is not a rocm-examples checkout (no HIP-Basic/)")
    examples = [e for e in EXAMPLES if not args.only or e.name in args.only]
    if args.only and len(examples) != len(args.only):
        parser.error(f"unknown examples: {sorted(set(args.only) - {e.name for e in EXAMPLES})}")

    with tempfile.TemporaryDirectory(prefix="rocm-examples-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(
            pool.map(lambda e: try_example(e, root, args.platform, args.timeout, Path(tmp)), examples)
        )
    print(table(outcomes))
    if args.report:
        commit = args.commit or checkout_commit(root)
        args.report.write_text(
            markdown(outcomes, root, args.platform, commit, sys.argv[1:] if argv is None else argv)
        )
    return 0 if all(o.validated for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
