"""Benchmark gate of the CPU platform: the five kernels against their last recorded ratios.

Runs benchmarks/cpu_kernels.py's five kernels --runs times and takes, for each,
the median of its ratios hipkit / OpenMP (OpenMP compiled with the same -march,
in the same run), then compares them with the ratios recorded for this
machine's class (the highest level it executes: avx512, avx2, sse4.2, ...),
processor and usable cores, and ISA in benchmarks/cpu_gate.json: two AVX-512
machines (a shared VM, a quiet Xeon) keep records of their own.  A ratio more than 25 % above its record is a
regression once confirmed: the kernels are measured --runs more times (up to
--confirm times) and the median of all runs must stay above.  Then the script
prints the table and exits 1.  Run it before and after every change to the
transform or the executor.

    python benchmarks/cpu_gate.py [--isa native[,x86-64-v3]] [--runs 5] [--confirm 2]
    python benchmarks/cpu_gate.py --record [--note TEXT]   # write this run as the record

Exit status: 0 no regression, 1 a regression, 2 no record for this machine
and ISA (record one with --record).  A record names its machine, cores,
compiler and date.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

import cpu_kernels

import hipkit
from hipkit.platforms.cpu import _lib
from hipkit.platforms.cpu import isa as cpu_isa

BASELINES = Path(__file__).with_name("cpu_gate.json")
THRESHOLD = 1.25  # a ratio this much above its record fails
# Machine classes by the highest level a machine executes.
CLASSES = {"x86-64-v4": "avx512", "x86-64-v3": "avx2", "x86-64-v2": "sse4.2", "x86-64": "sse2"}


def machine_class() -> str:
    """This machine's key in the records: avx512, avx2, ... (the highest
    level of cpu_isa.LEVELS it executes), or the architecture."""
    levels = cpu_isa.executable_levels()
    top = levels[-1] if levels else platform.machine()
    return CLASSES.get(top, top)


def measure(isa: str, work: cpu_kernels.Workload, runs: int, repeat: int) -> list[list[cpu_kernels.Row]]:
    """``runs`` runs of the five kernels compiled for ``isa``."""
    mod = work.compile(isa)
    return [work.run(mod, isa, repeat) for _ in range(runs)]


def summary(per_run: list[list[cpu_kernels.Row]]) -> dict[str, dict[str, float]]:
    """Per kernel: the median over the runs of hipkit / OpenMP (same -march)
    and of hipkit / OpenMP (-march=native)."""
    ratios: dict[str, dict[str, float]] = {"ratios": {}, "ratios_native": {}}
    for i, name in enumerate(cpu_kernels.LABELS):
        rows = [run[i] for run in per_run]
        ratios["ratios"][name] = round(statistics.median(r.hipkit / r.openmp for r in rows), 3)
        ratios["ratios_native"][name] = round(statistics.median(r.hipkit / r.openmp_native for r in rows), 3)
    return ratios


def regressions(recorded: dict[str, float], now: dict[str, float]) -> list[str]:
    """The kernels whose ratio rose more than THRESHOLD over its record."""
    return [name for name, ratio in now.items() if name in recorded and ratio > recorded[name] * THRESHOLD]


def write_atomically(path: Path, data: dict) -> None:
    """``data`` as JSON at ``path``: a reader sees the old file or the new one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(data, out, indent=1, sort_keys=True)
            out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def report(isa: str, record: dict, now: dict[str, dict[str, float]], runs: int) -> bool:
    """Print ``now`` (the medians of ``runs`` runs) beside ``record``; True
    when a kernel regressed."""
    bad = regressions(record["ratios"], now["ratios"])
    print(
        f"\n-march={isa}, median of {runs} runs, against the record of {record['date']} ({record['machine']})"
    )
    print(f"{'kernel':<42} {'recorded':>9} {'now':>8} {'change':>8}")
    for name, label in cpu_kernels.LABELS.items():
        was, ratio = record["ratios"][name], now["ratios"][name]
        flag = "  REGRESSION" if name in bad else ""
        print(f"{label:<42} {was:>8.2f}x {ratio:>7.2f}x {ratio / was - 1:>+7.0%}{flag}")
    return bool(bad)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isa", default="native", help="a list such as native,x86-64-v3, or all")
    parser.add_argument(
        "--runs", type=int, default=5, help="runs of the five kernels; the median ratio counts"
    )
    parser.add_argument(
        "--confirm", type=int, default=2, help="times to measure again before calling a regression"
    )
    parser.add_argument("--repeat", type=int, default=15, help="timings per kernel and run (their median)")
    parser.add_argument("--size-log2", type=int, default=24)
    parser.add_argument("--record", action="store_true", help="write the ratios measured as the record")
    parser.add_argument("--note", default="", help="with --record: what to say about the machine or run")
    parser.add_argument("--baselines", type=Path, default=BASELINES, help="the records' file")
    args = parser.parse_args()
    isas = cpu_kernels.isa_list(args.isa)
    key = machine_class()
    records = json.loads(args.baselines.read_text()) if args.baselines.exists() else {}
    cores = len(os.sched_getaffinity(0))
    machine = f"{hipkit.get_device().name}, {cores} cores"
    mine = records.setdefault(key, {}).setdefault(machine, {})
    print(f"{machine}, class {key}; {args.runs} runs of {args.repeat} timings each, medians")
    if not args.record:
        absent = [isa for isa in isas if mine.get(isa, {}).get("size_log2") != args.size_log2]
        if absent:
            print(
                f"no record for {machine} (class {key}), 2^{args.size_log2} elements and "
                f"-march={', '.join(absent)} in {args.baselines}: run with --record"
            )
            return 2
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        work = cpu_kernels.Workload(args.size_log2, Path(tmp))
        for isa in isas:
            per_run = measure(isa, work, args.runs, args.repeat)
            now = summary(per_run)
            if not args.record:
                # A burst of other work can pass for a regression: measure
                # again, and fail only if the median of all runs stays above.
                for _ in range(args.confirm):
                    bad = regressions(mine[isa]["ratios"], now["ratios"])
                    if not bad:
                        break
                    print(f"-march={isa}: {', '.join(bad)} above the threshold, {args.runs} more runs")
                    per_run += measure(isa, work, args.runs, args.repeat)
                    now = summary(per_run)
                failed |= report(isa, mine[isa], now, len(per_run))
                continue
            mine[isa] = {
                "machine": machine,
                "cores": cores,
                "compiler": _lib.compiler_version().splitlines()[0],
                "date": datetime.date.today().isoformat(),
                "command": " ".join(["python", "benchmarks/cpu_gate.py", *sys.argv[1:]]),
                "note": args.note,
                "runs": args.runs,
                "repeat": args.repeat,
                "size_log2": args.size_log2,
                **now,
            }
            print(f"-march={isa}: recorded " + ", ".join(f"{k} {v}x" for k, v in now["ratios"].items()))
    if args.record:
        write_atomically(args.baselines, records)
        print(f"wrote {args.baselines}")
    elif failed:
        print(f"\nFAILED: a ratio rose more than {THRESHOLD - 1:.0%} over its record (REGRESSION above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
