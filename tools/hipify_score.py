"""Score ``hipkit hipify`` on HIPIFY's own unit tests (the hipify issue, item 6).

Usage::

    python tools/hipify_score.py PATH_TO_HIPIFY [--hipify-perl] [--markdown FILE] [-v]

``PATH_TO_HIPIFY`` is a work tree of github.com/ROCm/HIPIFY (nothing of it is copied into
this repository).  For every file under ``tests/unit_tests`` with a ``RUN:`` line (``.cu``,
``.cuh``, ``.cpp``, ``.c``, ``.h``, ``.hpp``), as HIPIFY's ``tests/run_test.sh`` does with
hipify-clang:

1. the RUN line's hipify-clang options are mapped to ours (``--hip-kernel-execution-syntax``,
   ``--cuda-kernel-execution-syntax``, ``--roc`` or ``-roc``, ``--miopen``, ``--experimental``;
   hipify-clang's preprocessor and data-type options and the clang arguments have no
   counterpart in a translator that does not preprocess, and are listed as ignored);
2. the file is translated (``hipkit.hipify.translate_file``, as ``hipkit hipify -o`` does);
3. ``//`` comments are cut from the output exactly as run_test.sh's ``sed -Ee 's|//.+|// |g'``;
4. LLVM's FileCheck checks the output against the file's ``CHECK`` lines: exit 0 is a
   *strict pass*.

*CHECK-line recall* is the fraction of ``CHECK``/``CHECK-NEXT``/``CHECK-NOT`` lines matched,
by this script's own matcher, which follows FileCheck's semantics (patterns with ``{{regex}}``,
horizontal whitespace matching any horizontal whitespace, each match after the previous one,
CHECK-NEXT on the line after the previous match, CHECK-NOT absent between its neighbours'
matches) but goes on after a miss: a missed line is counted and the next one is searched
from the last match, a CHECK-NEXT after a miss as a CHECK, so one wrong line costs one line.

With ``--hipify-perl`` the same files go through HIPIFY's ``bin/hipify-perl`` (with the
options it has: ``-roc``, ``-hip-kernel-execution-syntax``, ``-experimental``) for the
side-by-side columns.  FileCheck is looked for as ``--filecheck``, ``FileCheck-15``,
``/usr/lib/llvm-15/bin/FileCheck``, ``FileCheck``, then the newest ``/usr/lib/llvm-*/bin``.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

SUFFIXES = (".cu", ".cuh", ".cpp", ".c", ".h", ".hpp")
# hipify-clang options with a hipkit counterpart: option -> Options field.
MAPPED = {
    "--hip-kernel-execution-syntax": "hip_kernel_execution_syntax",
    "--roc": "roc",
    "-roc": "roc",
    "--miopen": "miopen",
    "--experimental": "experimental",
}
KEPT_AS_DEFAULT = {"--cuda-kernel-execution-syntax"}  # our default; the HIP option overrides it
PERL_OPTIONS = {
    "hip_kernel_execution_syntax": "-hip-kernel-execution-syntax",
    "roc": "-roc",
    "experimental": "-experimental",
}
_RUN = re.compile(r"//\s*RUN:\s*(.*)")
_DIRECTIVE = re.compile(r"\b(CHECK(?:-NEXT|-NOT)?):(.*)$")
_COMMENT = re.compile(r"//.+")


@dataclass
class RunLine:
    """A test's RUN line: the options we map, and those we cannot."""

    options: dict[str, bool] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)


def parse_run(text: str) -> RunLine | None:
    """The hipify options of ``text``'s RUN line, as run_test.sh passes them, or None."""
    m = _RUN.search(text)
    if m is None:
        return None
    words = m.group(1).replace('"', "").split()
    run = RunLine()
    if "%hipify_args" not in words:
        return run
    rest = words[words.index("%hipify_args") + 1 :]
    # run_test.sh takes a count and that many options; anything else goes to clang.
    count = int(rest[0]) if rest and rest[0].isdigit() else 0
    hipify_options = rest[1 : 1 + count]
    for option in hipify_options:
        if option in MAPPED:
            run.options[MAPPED[option]] = True
        elif option not in KEPT_AS_DEFAULT:
            run.ignored.append(option)
    clang = rest[1 + count :] if count else rest
    run.ignored += [w for w in clang if w != "%clang_args"]
    return run


def strip_comments(text: str) -> str:
    """run_test.sh's ``sed -Ee 's|//.+|// |g'``: every ``//`` with text after it, to the end
    of its line, becomes ``// `` (inside string literals too, as sed does)."""
    return _COMMENT.sub("// ", text)


# ---- the CHECK-line matcher -------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    kind: str  # CHECK, CHECK-NEXT, CHECK-NOT
    line: int  # in the test file
    text: str
    regex: re.Pattern[str]


def _pattern(text: str) -> re.Pattern[str]:
    """A FileCheck pattern as a Python regex: literal text (horizontal whitespace matching
    any run of it), ``{{regex}}`` parts as they are."""
    parts = []
    for i, piece in enumerate(re.split(r"\{\{(.*?)\}\}", text.strip())):
        if i % 2:
            parts.append(f"(?:{piece})")
        else:
            parts.append(r"[ \t]+".join(re.escape(word) for word in re.split(r"[ \t]+", piece)))
    return re.compile("".join(parts))


def checks(text: str) -> list[Check]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _DIRECTIVE.search(line)
        if m:
            found.append(Check(m.group(1), number, m.group(2).strip(), _pattern(m.group(2))))
    return found


def recall(output: str, directives: list[Check]) -> list[bool]:
    """Which directives the output satisfies (see the module docstring)."""
    hits: list[bool] = []
    pos = 0
    last_line_end = -1  # end of the line of the last match (-1: none yet)
    missed = False
    pending_not: list[int] = []  # CHECK-NOT indices waiting for the next positive match
    for k, check in enumerate(directives):
        if check.kind == "CHECK-NOT":
            hits.append(False)
            pending_not.append(k)
            continue
        m = check.regex.search(output, pos)
        ok = m is not None
        if ok and check.kind == "CHECK-NEXT" and not missed and last_line_end >= 0:
            assert m is not None
            ok = output.count("\n", last_line_end, m.start()) == 1 or (
                output.count("\n", last_line_end, m.start()) == 0 and last_line_end == m.start()
            )
        end = m.start() if ok and m is not None else len(output)
        for n in pending_not:
            hits[n] = directives[n].regex.search(output, pos, end) is None
        pending_not = []
        hits.append(ok)
        if ok and m is not None:
            pos = m.end()
            newline = output.find("\n", pos)
            last_line_end = len(output) if newline < 0 else newline
            missed = False
        else:
            missed = True
    for n in pending_not:
        hits[n] = directives[n].regex.search(output, pos) is None
    return hits


# ---- running ----------------------------------------------------------------------------------


def find_filecheck(explicit: str | None) -> str:
    if explicit:
        return explicit
    for name in ("FileCheck-15", "/usr/lib/llvm-15/bin/FileCheck", "FileCheck"):
        path = shutil.which(name)
        if path:
            return path
    found = sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"), key=lambda p: int(re.findall(r"\d+", p)[0]))
    if found:
        return found[-1]
    sys.exit("hipify_score: FileCheck not found: apt-get install llvm-15 (or pass --filecheck PATH)")


@dataclass
class Score:
    path: str
    passed: bool
    hits: int
    total: int
    misses: list[str] = field(default_factory=list)  # the first missed CHECK lines
    error: str = ""


def score(path: Path, output: str | None, filecheck: str, error: str = "") -> Score:
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    directives = checks(text)
    if output is None:
        return Score(str(path), False, 0, len(directives), [], error)
    output = strip_comments(output)
    with tempfile.NamedTemporaryFile("w", suffix=".hip", encoding="utf-8", errors="surrogateescape") as f:
        f.write(output)
        f.flush()
        done = subprocess.run(
            [filecheck, str(path), "--input-file", f.name], capture_output=True, timeout=120
        )
    hits = recall(output, directives)
    misses = [f"{d.line}: {d.kind}: {d.text}" for d, ok in zip(directives, hits, strict=True) if not ok]
    return Score(str(path), done.returncode == 0, sum(hits), len(directives), misses[:5])


def run_hipkit(job: tuple[str, dict[str, bool], str]) -> Score:
    from hipkit.hipify import Options, translate_file

    path, options, filecheck = job
    result = translate_file(path, options=Options(**options))
    return score(Path(path), result.text, filecheck, result.error or "")


def run_perl(job: tuple[str, dict[str, bool], str, str]) -> Score:
    path, options, filecheck, perl_script = job
    flags = [PERL_OPTIONS[o] for o in options if o in PERL_OPTIONS]
    done = subprocess.run(
        ["perl", perl_script, "-quiet-warnings", *flags, path], capture_output=True, timeout=300
    )
    text = done.stdout.decode("utf-8", "surrogateescape") if done.returncode == 0 else None
    return score(Path(path), text, filecheck, done.stderr.decode(errors="replace")[-200:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hipify", metavar="PATH_TO_HIPIFY", help="a work tree of ROCm/HIPIFY")
    parser.add_argument("--filecheck", metavar="PATH", help="LLVM's FileCheck")
    parser.add_argument(
        "--hipify-perl", action="store_true", help="also score the checkout's bin/hipify-perl"
    )
    parser.add_argument("--markdown", metavar="FILE", help="write the per-file table as Markdown")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("-v", "--verbose", action="store_true", help="list each failing file's first misses")
    args = parser.parse_args(argv)

    root = Path(args.hipify)
    tests = sorted(
        p
        for p in (root / "tests" / "unit_tests").rglob("*")
        if p.suffix in SUFFIXES and _RUN.search(p.read_text(encoding="utf-8", errors="replace"))
    )
    if not tests:
        sys.exit(f"hipify_score: no tests under {root / 'tests' / 'unit_tests'}")
    filecheck = find_filecheck(args.filecheck)
    runs = {p: parse_run(p.read_text(encoding="utf-8", errors="replace")) or RunLine() for p in tests}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        ours = list(pool.map(run_hipkit, [(str(p), runs[p].options, filecheck) for p in tests]))
        perl: list[Score] = []
        if args.hipify_perl:
            script = str(root / "bin" / "hipify-perl")
            perl = list(pool.map(run_perl, [(str(p), runs[p].options, filecheck, script) for p in tests]))

    version = subprocess.run([filecheck, "--version"], capture_output=True, text=True).stdout
    llvm = re.search(r"LLVM version ([\d.]+)", version)
    print(f"FileCheck: {filecheck} (LLVM {llvm.group(1) if llvm else '?'}); {len(tests)} test files")
    rows = []
    for k, (p, s) in enumerate(zip(tests, ours, strict=True)):
        name = str(p.relative_to(root / "tests" / "unit_tests"))
        peer = perl[k] if perl else None
        rows.append((name, s, peer, runs[p]))
        if args.verbose and not s.passed:
            print(f"FAIL {name}: {s.hits}/{s.total} {s.error}")
            for miss in s.misses:
                print(f"    {miss[:160]}")
    _summary("hipkit hipify", ours)
    if perl:
        _summary("hipify-perl", perl)
    if args.markdown:
        Path(args.markdown).write_text(_markdown(rows), encoding="utf-8")
    return 0


def _summary(name: str, scores: list[Score]) -> None:
    passed = sum(s.passed for s in scores)
    hits = sum(s.hits for s in scores)
    total = sum(s.total for s in scores)
    print(f"{name:14} files {passed}/{len(scores)}   CHECK lines {hits}/{total} = {100 * hits / total:.2f} %")


def _markdown(rows: list[tuple[str, Score, Score | None, RunLine]]) -> str:
    perl = rows[0][2] is not None
    head = (
        "| test file | hipkit | lines |" + (" hipify-perl | lines |" if perl else "") + " options we ignore |"
    )
    lines = [head, "|---|---|---|" + ("---|---|" if perl else "") + "---|"]
    for name, s, p, run in rows:
        cells = [name, "pass" if s.passed else "FAIL", f"{s.hits}/{s.total}"]
        if p is not None:
            cells += ["pass" if p.passed else "FAIL", f"{p.hits}/{p.total}"]
        cells.append(" ".join(sorted(set(run.ignored) - {"-ferror-limit=500"})))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
