"""Build a selection of ROCm's HIP API tests (github.com/ROCm/hip-tests) with ``hipkit cc``
and run them (the HIP runtime issue: an external check).

Usage::

    python tools/hip_tests.py [PATH_TO_HIP_TESTS] [--platform cpu] [--compile-only]
        [--timeout 120] [-j N] [--only FILE ...] [--report FILE] [--commit SHA]

``PATH_TO_HIP_TESTS`` (or the environment variable ``HIPKIT_HIP_TESTS``) is a checkout of
hip-tests, the folder holding ``catch/``; nothing of it is copied into this repository.

hip-tests builds each folder of ``catch/unit`` into one Catch2 executable with its harness
(``hip_add_exe_to_target`` in ``catch/external/Catch2/cmake/Catch2/Catch.cmake``): the
folder's sources, ``hipTestMain``'s ``main.cc``, ``hip_test_context.cc`` and
``hip_test_features.cc``, and ``kernels/Set.cpp``, with ``catch/external/Catch2``,
``catch/include``, ``catch/kernels`` and ``catch/external/picojson`` on the include path,
``KERNELS_PATH`` defined, ``-std=c++17``, and ``stdc++fs``, ``dl``, ``pthread`` and ``rt``
linked.  This script does the same for one test file at a time (its ``STANDALONE_TESTS``
mode), adding the sources of its folder that the file needs (``DriverContext.cc``,
``streamCommon.cc``, ...; :data:`TESTS` names them):

1. The harness is compiled once into objects with ``hipkit cc -c --platform PLATFORM``.
2. Each test file is compiled and linked with them; a file that does not build is
   recorded with the compiler's first error.
3. Unless ``--compile-only``, each test case the executable lists
   (``--list-test-names-only``) runs in a process of its own, as ``ctest`` runs them
   (``catch_discover_tests``): passed on exit status 0, skipped when it prints
   ``HIP_SKIP_THIS_TEST`` (ctest's skip pattern), failed otherwise, with Catch2's first
   failure (``-r compact``), the signal or the timeout.

The harness asks for a platform (``hip_test_context.hh``: ``__HIP_PLATFORM_AMD__`` or
``__HIP_PLATFORM_NVIDIA__``).  On the NVIDIA platform hipkit's headers define the latter.
The CPU platform follows HIP on AMD (ROCm's error codes and attributes, warp size 64), so
the CPU build defines ``__HIP_PLATFORM_AMD__`` and the tests take their AMD branches.

A table test file x (built, test cases passed, failed, skipped) is printed; ``--report FILE``
writes it as Markdown with every failing test case, the date, machine, command and the
hip-tests commit (``git rev-parse HEAD`` of the checkout, or ``--commit`` for an exported
tree).
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rocm_examples import checkout_commit, hipkit_version, machine


@dataclass(frozen=True)
class TestFile:
    """One test file of ``catch/unit``, the other sources of its folder that it needs, and
    what it needs that hipkit leaves out (docs/HIP_API.md, README), if anything."""

    path: str
    support: tuple[str, ...] = ()
    lacks: str = ""


def _family(folder: str, support: tuple[str, ...], names: str, lacks: dict[str, str] | None = None):
    lacks = lacks or {}
    return [
        TestFile(f"{folder}/{name}", tuple(f"{folder}/{s}" for s in support), lacks.get(name, ""))
        for name in names.split()
    ]


_CU_MASKS = "AMD's CU masks (hipExtStreamCreateWithCUMask), in its AMD branch"


# The folders' shared sources are those of their CMakeLists.txt (COMMON_SHARED_SRC, or
# the common .cc listed first in TEST_SRC).
TESTS: list[TestFile] = [
    *_family(
        "memory",
        ("DriverContext.cc",),
        "hipMalloc.cc hipFree.cc hipMemset.cc hipMemsetAsync.cc hipMemsetFunctional.cc "
        "hipMallocPitch.cc hipMemcpy2D.cc hipMemcpy3D.cc hipMalloc3D.cc hipMallocManaged.cc "
        "hipMemGetAddressRange.cc hipPointerGetAttributes.cc hipHostMalloc.cc hipHostRegister.cc "
        "hipMemGetInfo.cc hipMemcpyAsync.cc hipMemcpyFromSymbol.cc hipMallocArray.cc",
        {
            "hipMemcpyAsync.cc": "AMD's hipMemcpyDeviceToDeviceNoCU copy kind",
            "hipMemcpy2D.cc": "hipDrvMemcpy2DUnaligned",
            "hipMemcpy3D.cc": "the driver's 3-D copies (hipDrvMemcpy3D, HIP_MEMCPY3D)",
        },
    ),
    *_family(
        "memory",
        ("DriverContext.cc",),
        "hipMallocAsync.cc hipFreeAsync.cc hipMemPoolApi.cc hipMemPoolCreate.cc "
        "hipMallocFromPoolAsync.cc hipMemPoolSetGetAttribute.cc",
    ),
    *_family(
        "stream",
        ("streamCommon.cc",),
        "hipStreamCreate.cc hipStreamCreateWithFlags.cc hipStreamCreateWithPriority.cc "
        "hipStreamQuery.cc hipStreamSynchronize.cc hipStreamAddCallback.cc hipLaunchHostFunc.cc "
        "hipStreamWaitEvent.cc hipStreamGetFlags.cc hipStreamGetPriority.cc "
        "hipDeviceGetStreamPriorityRange.cc",
        {"hipStreamGetFlags.cc": _CU_MASKS, "hipStreamGetPriority.cc": _CU_MASKS},
    ),
    *_family(
        "event",
        (),
        "hipEventCreate.cc hipEventCreateWithFlags.cc Unit_hipEventElapsedTime.cc "
        "Unit_hipEventQuery.cc Unit_hipEventRecord.cc hipEventSynchronize.cc hipEventDestroy.cc",
    ),
    *_family(
        "graph",
        (),
        "hipGraph.cc hipStreamBeginCapture.cc hipStreamIsCapturing.cc hipGraphAddKernelNode.cc "
        "hipGraphAddMemcpyNode.cc hipGraphAddHostNode.cc hipGraphExecUpdate.cc hipGraphClone.cc "
        "hipGraphGetNodes.cc hipGraphAddMemAllocNode.cc",
        {"hipGraphAddMemcpyNode.cc": "the driver's 3-D copies (HIP_MEMCPY3D, in memcpy3d_tests_common.hh)"},
    ),
    *_family(
        "occupancy",
        (),
        "hipOccupancyMaxActiveBlocksPerMultiprocessor.cc hipOccupancyMaxPotentialBlockSize.cc",
    ),
    *_family(
        "device",
        (),
        "hipGetDeviceAttribute.cc hipGetDeviceProperties.cc hipDeviceGetPCIBusId.cc "
        "hipDeviceGetByPCIBusId.cc hipChooseDevice.cc hipGetDeviceCount.cc hipSetGetDevice.cc "
        "hipDeviceSynchronize.cc hipDeviceGetName.cc hipIpcGetMemHandle.cc hipIpcOpenMemHandle.cc",
    ),
    *_family(
        "cooperativeGrps",
        (),
        "thread_block.cc thread_block_tile.cc grid_group.cc",
        {"grid_group.cc": "clang's scoped atomics (__hip_atomic_fetch_add, __HIP_MEMORY_SCOPE_AGENT)"},
    ),
    *_family(
        "texture",
        (),
        "hipCreateTextureObject_Array.cc hipCreateTextureObject_Linear.cc hipTextureObj2D.cc "
        "hipTextureObj1DFetch.cc hipTexObjPitch.cc hipBindTexRef1DFetch.cc",
        # Texture references, which hipkit leaves out; hip-tests compiles the file's tests
        # only where CUDA_VERSION < CUDA_12000 holds with both defined (not on AMD either).
        {"hipBindTexRef1DFetch.cc": "texture references (texture<T>, hipBindTexture)"},
    ),
    *_family(
        "errorHandling",
        ("error_handling_common.cc",),
        "hipGetErrorName.cc hipGetErrorString.cc hipGetLastError.cc hipPeekAtLastError.cc",
        {"hipGetLastError.cc": "the driver's 3-D copies (hipDrvMemcpy3DAsync)"},
    ),
    *_family(
        "executionControl",
        ("execution_control_common.cc",),
        "hipLaunchKernel.cc hipFuncGetAttributes.cc hipLaunchCooperativeKernel.cc",
    ),
]

HARNESS = ("hipTestMain/main.cc", "hipTestMain/hip_test_context.cc", "hipTestMain/hip_test_features.cc")
KERNELS = ("kernels/Set.cpp",)
INCLUDES = ("external/Catch2", "include", "kernels", "external/picojson")
LIBRARIES = ("-lstdc++fs", "-ldl", "-lpthread", "-lrt")
# What the harness needs told on each platform (the module's docstring says why).
PLATFORM_DEFINES = {"cpu": ("-D__HIP_PLATFORM_AMD__",), "nvidia": ()}
SKIP_MARK = "HIP_SKIP_THIS_TEST"


def compile_flags(catch: Path, platform_name: str) -> list[str]:
    """hipkit cc's flags for every source: the harness's include path and defines."""
    return [
        "--platform",
        platform_name,
        "-std=c++17",
        *PLATFORM_DEFINES.get(platform_name, ()),
        *(f"-I{catch / d}" for d in INCLUDES),
        f'-DKERNELS_PATH="{catch / "kernels"}/"',
    ]


def hipkit_cc(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "cc", *args], cwd=cwd, capture_output=True, text=True
    )


def first_error(log: str) -> str:
    """The compiler's first error line (with its file's name only), else the last line."""
    for line in log.splitlines():
        if re.search(r"\berror\b", line):
            return re.sub(r"^\S*/([^/\s]+:\d+:\d+:)", r"\1", line.strip())
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def short(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- build


def build_harness(catch: Path, platform_name: str, out: Path) -> tuple[list[Path], str]:
    """The harness's objects, or the error that stopped them."""
    objects = []
    for source in (*HARNESS, *KERNELS):
        obj = out / (Path(source).stem + ".o")
        done = hipkit_cc(
            [*compile_flags(catch, platform_name), "-c", str(catch / source), "-o", str(obj)], out
        )
        if done.returncode != 0:
            return [], f"{source}: {first_error(done.stderr + done.stdout)}"
        objects.append(obj)
    return objects, ""


# ---------------------------------------------------------------- run


@dataclass
class Case:
    name: str
    status: str  # passed, failed, skipped
    detail: str = ""


@dataclass
class Outcome:
    test: TestFile
    built: bool = False
    build_s: float = 0.0
    run_s: float = 0.0
    cases: list[Case] = field(default_factory=list)
    notes: str = ""

    def count(self, status: str) -> int:
        return sum(c.status == status for c in self.cases)


def catch_spec(name: str) -> str:
    """A test case's name as a Catch2 test spec matches it alone (CatchAddTests.cmake's
    escapes)."""
    return re.sub(r"([,\[\]])", r"\\\1", name)


def catch_failure(text: str) -> str:
    """The first failure in Catch2's compact report."""
    for line in text.splitlines():
        if re.search(r": (failed|FAILED)\b", line):
            rest = text[text.index(line) :]
            return short(re.sub(r"^\S*/([^/\s]+:\d+:)", r"\1", rest.strip()))
    lines = [line for line in text.splitlines() if line.strip()]
    return short(lines[-1] if lines else "no output")


def run_case(exe: Path, name: str, timeout: float) -> Case:
    try:
        ran = subprocess.run(
            [str(exe), catch_spec(name), "-r", "compact"],
            cwd=exe.parent,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return Case(name, "failed", f"timed out after {timeout:g} s")
    text = ran.stdout + ran.stderr
    if SKIP_MARK in text:
        reason = re.search(r"Skipping test\. Reason: (.*)", text)
        return Case(name, "skipped", short(reason.group(1)) if reason else "")
    if ran.returncode < 0:
        return Case(name, "failed", f"signal {-ran.returncode}: {catch_failure(text)}")
    if ran.returncode != 0:
        return Case(name, "failed", catch_failure(text))
    if "No test cases matched" in text or not re.search(r"Passed \d+ test case", text):
        return Case(name, "failed", "no test case ran: " + short(text))
    return Case(name, "passed")


def try_test(
    test: TestFile,
    catch: Path,
    platform_name: str,
    harness: list[Path],
    timeout: float,
    out: Path,
    compile_only: bool,
) -> Outcome:
    """Build ``test`` with the harness and, unless ``compile_only``, run its test cases."""
    outcome = Outcome(test)
    exe = out / test.path.replace("/", "_").removesuffix(".cc")
    sources = [str(catch / "unit" / s) for s in (test.path, *test.support)]
    start = time.perf_counter()
    done = hipkit_cc(
        [*compile_flags(catch, platform_name), *sources, *map(str, harness), *LIBRARIES, "-o", str(exe)], out
    )
    outcome.build_s = time.perf_counter() - start
    if done.returncode != 0:
        outcome.notes = "build: " + short(first_error(done.stderr + done.stdout))
        return outcome
    outcome.built = True
    if compile_only:
        return outcome
    start = time.perf_counter()
    listed = subprocess.run([str(exe), "--list-test-names-only"], capture_output=True, text=True, cwd=out)
    names = [line.strip() for line in listed.stdout.splitlines() if line.strip()]
    if listed.returncode < 0 or not names:
        outcome.notes = "no test cases listed: " + short(listed.stdout + listed.stderr)
    outcome.cases = [run_case(exe, name, timeout) for name in names]
    outcome.run_s = time.perf_counter() - start
    failed = [c for c in outcome.cases if c.status == "failed"]
    if failed:
        outcome.notes = f"{failed[0].name}: {failed[0].detail}"
    return outcome


def progress(outcome: Outcome) -> Outcome:
    """A line on stderr as each test file is done: the run is long."""
    state = "built" if outcome.built else "not built"
    if outcome.cases:
        state = ", ".join(f"{outcome.count(s)} {s}" for s in ("passed", "failed", "skipped"))
    print(f"{outcome.test.path}: {state}", file=sys.stderr, flush=True)
    return outcome


# ---------------------------------------------------------------- report


def _mark(ok: bool) -> str:
    return "yes" if ok else "**no**"


def table(outcomes: list[Outcome], compile_only: bool) -> str:
    if compile_only:
        rows = ["| test file | built | build s | notes |", "|---|---|---:|---|"]
    else:
        rows = [
            "| test file | built | cases | passed | failed | skipped | build s | run s | notes |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|",
        ]
    for o in outcomes:
        notes = "; ".join(x for x in (o.notes, o.test.lacks and f"hipkit lacks {o.test.lacks}") if x)
        notes = notes.replace("|", "\\|")
        if compile_only:
            rows.append(f"| {o.test.path} | {_mark(o.built)} | {o.build_s:.1f} | {notes} |")
            continue
        counts = (
            f"{len(o.cases)} | {o.count('passed')} | {o.count('failed')} | {o.count('skipped')}"
            if o.built
            else " | | |"
        )
        run_s = f"{o.run_s:.1f}" if o.built else ""
        rows.append(f"| {o.test.path} | {_mark(o.built)} | {counts} | {o.build_s:.1f} | {run_s} | {notes} |")
    rows.append("\n" + summary(outcomes, compile_only))
    return "\n".join(rows)


def summary(outcomes: list[Outcome], compile_only: bool) -> str:
    built = sum(o.built for o in outcomes)
    line = f"{len(outcomes)} test files: {built} built"
    if compile_only:
        return line + "."
    cases = [c for o in outcomes for c in o.cases]
    clean = sum(o.built and o.count("failed") == 0 and bool(o.cases) for o in outcomes)
    counts = {s: sum(c.status == s for c in cases) for s in ("passed", "failed", "skipped")}
    return (
        f"{line}, {clean} with every test case passed or skipped; {len(cases)} test cases: "
        f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped."
    )


def failures(outcomes: list[Outcome]) -> str:
    rows = ["| test file | test case | failure |", "|---|---|---|"]
    for o in outcomes:
        for c in o.cases:
            if c.status == "failed":
                detail = c.detail.replace("|", "\\|")
                rows.append(f"| {o.test.path} | {c.name} | {detail} |")
    return "\n".join(rows) if len(rows) > 2 else "None."


def markdown(
    outcomes: list[Outcome],
    root: Path,
    platform_name: str,
    commit: str,
    argv: list[str],
    compile_only: bool,
    hipkit: str,
) -> str:
    """The record: where, when and with what it ran, the table, and the failing test cases
    (``hipkit``: the hipkit that built them, as :func:`hipkit_version` said at the start)."""
    flags = " ".join(shlex.quote(f) for f in compile_flags(root / "catch", platform_name))
    text = (
        f"## hip-tests with hipkit cc, platform {platform_name}"
        f"{' (compile only)' if compile_only else ''}\n\n"
        f"- date: {datetime.date.today().isoformat()}\n"
        f"- machine: {machine()}\n"
        f"- command: `python tools/hip_tests.py {' '.join(shlex.quote(a) for a in argv)}`\n"
        f"- hip-tests: {commit} ({root})\n"
        f"- hipkit: {hipkit}\n"
        f"- each source compiled with `hipkit cc {flags.replace(str(root), 'CHECKOUT')}`\n\n"
        f"{table(outcomes, compile_only)}\n"
    )
    if not compile_only:
        text += f"\nFailing test cases (Catch2's first failure):\n\n{failures(outcomes)}\n"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "checkout",
        type=Path,
        nargs="?",
        default=os.environ.get("HIPKIT_HIP_TESTS"),
        help="a checkout of github.com/ROCm/hip-tests (default: $HIPKIT_HIP_TESTS)",
    )
    parser.add_argument("--platform", default="cpu", help="hipkit cc's platform (default: cpu)")
    parser.add_argument("--compile-only", action="store_true", help="build, do not run")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds each test case may run")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="test files at once")
    parser.add_argument(
        "--only", nargs="+", metavar="FILE", help="these test files only (memory/hipMalloc.cc, ...)"
    )
    parser.add_argument("--report", type=Path, help="write the table as Markdown to this file")
    parser.add_argument("--commit", help="the checkout's commit, for a tree without .git")
    args = parser.parse_args(argv)
    if args.checkout is None:
        parser.error("no hip-tests checkout: pass its path or set HIPKIT_HIP_TESTS")
    root = args.checkout.resolve()
    catch = root / "catch"
    if not (catch / "include" / "hip_test_common.hh").is_file():
        parser.error(f"{root} is not a hip-tests checkout (no catch/include/hip_test_common.hh)")
    tests = [t for t in TESTS if not args.only or t.path in args.only]
    if args.only and len(tests) != len(set(args.only)):
        parser.error(f"unknown test files: {sorted(set(args.only) - {t.path for t in TESTS})}")

    version = hipkit_version()  # before the builds: the tree may change during a long run
    with tempfile.TemporaryDirectory(prefix="hip-tests-") as tmp:
        out = Path(tmp)
        harness, error = build_harness(catch, args.platform, out)
        if error:
            print(f"the harness does not build: {error}", file=sys.stderr)
            return 1
        with ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(
                pool.map(
                    lambda t: progress(
                        try_test(t, catch, args.platform, harness, args.timeout, out, args.compile_only)
                    ),
                    tests,
                )
            )
    print(table(outcomes, args.compile_only))
    if args.report:
        commit = args.commit or checkout_commit(root)
        given = sys.argv[1:] if argv is None else argv
        text = markdown(outcomes, root, args.platform, commit, given, args.compile_only, version)
        partial = args.report.with_name(args.report.name + ".tmp")
        partial.write_text(text)
        os.replace(partial, args.report)  # never half a record
    ok = all(o.built and o.count("failed") == 0 for o in outcomes)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
