"""hipkit run of an unchanged program: what it adds to the program's own time.

Issue 4, item 7: a cached ``hipkit run`` starts in at most 50 ms plus the
program's own time.  examples/vector_add.cpp is built for the CPU once (by
hipkit run, which leaves the manifest of hipkit.cc.manifest), then, in
alternating rounds, each timed --repeat times (wall clock around the whole
process, its output to /dev/null):

- the cached executable, run directly;
- ``hipkit run --platform cpu examples/vector_add.cpp``, with the ``hipkit``
  command beside this Python (else ``python -m hipkit.cli``);
- the parts of the difference: the interpreter's start (``python -c pass``),
  the imports of the cached path (``python -c "import hipkit.cli.run"``, less
  the start) and the manifest lookup (hipkit.cc.manifest.lookup in this process);
  the rest is the hipkit script itself, parsing the command line, spawning the
  program and waiting for it;
- for comparison, the full path (what hipkit run did before the manifest):
  every source preprocessed to find the cached objects and program.

The children run with bytecode written and read (PYTHONDONTWRITEBYTECODE
unset), as an installed hipkit has it.  The difference of the medians is the
figure against the target.

    python benchmarks/cc_run_speed.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from hipkit import config
from hipkit.cc import manifest, parse_args

REPO = Path(__file__).resolve().parents[1]
SOURCE = "examples/vector_add.cpp"
ARGS = ["--platform", "cpu", SOURCE]


def hipkit_command() -> list[str]:
    script = Path(sys.executable).with_name("hipkit")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "hipkit.cli"]


def elapsed_ms(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL)
    took = (time.perf_counter() - start) * 1e3
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed (exit status {done.returncode})")
    return took


def cached_program(env: dict[str, str]) -> str:
    """The program, built if needed, once its manifest is there: a build less
    than manifest.MARGIN_NS after a file it read changed leaves none, so wait and
    run again."""
    options = parse_args(ARGS)
    cwd = os.getcwd()
    os.chdir(REPO)  # the key has the working directory
    try:
        for _ in range(4):
            program = manifest.lookup(options)
            if program is not None:
                return program
            subprocess.run([*hipkit_command(), "run", *ARGS], cwd=REPO, env=env, check=True)
            time.sleep(manifest.MARGIN_NS / 1e9)
    finally:
        os.chdir(cwd)
    raise SystemExit("no manifest was written: are hipkit's files or the example being edited?")


def lookup_ms(repeat: int) -> float:
    options = parse_args(ARGS)
    cwd = os.getcwd()
    os.chdir(REPO)
    times = []
    try:
        for _ in range(repeat):
            start = time.perf_counter()
            found = manifest.lookup(options)
            times.append((time.perf_counter() - start) * 1e3)
            assert found is not None
    finally:
        os.chdir(cwd)
    return statistics.median(times)


FULL_PATH = """
import sys
from hipkit.cc.driver import cached_program
from hipkit.platforms.base.options import parse_args
from hipkit.cli.run import _run
sys.exit(_run(cached_program(parse_args(sys.argv[1:]), print), ["vector_add"]))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="runs of each, alternating (default 30)")
    args = parser.parse_args()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["HIPKIT_CACHE_DIR"] = config.cache_path()
    program = cached_program(env)
    hipkit_run = [*hipkit_command(), "run", *ARGS]
    commands = {
        "program": [program],
        "hipkit run": hipkit_run,
        "interpreter": [sys.executable, "-c", "pass"],
        "imports": [sys.executable, "-c", "import hipkit.cli.run"],
    }
    for command in commands.values():  # warm-up: caches, bytecode
        elapsed_ms(command, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            times[name].append(elapsed_ms(command, env))
    full_path = [sys.executable, "-c", FULL_PATH, *ARGS]
    full = [elapsed_ms(full_path, env) for _ in range(max(3, args.repeat // 5))]
    median = {name: statistics.median(values) for name, values in times.items()}
    lookup = lookup_ms(args.repeat)

    print(f"hipkit run of {SOURCE} (--platform cpu), {args.repeat} runs each, medians:")
    print(f"  the program run directly        {median['program']:7.1f} ms")
    print(f"  hipkit run, cached              {median['hipkit run']:7.1f} ms")
    overhead = median["hipkit run"] - median["program"]
    verdict = "met" if overhead <= 50 else "not met"
    print(f"  hipkit run's part               {overhead:7.1f} ms  (target <= 50 ms: {verdict})")
    start = median["interpreter"]
    imports = median["imports"] - start
    rest = overhead - start - imports - lookup
    print(f"    interpreter start             {start:7.1f} ms")
    print(f"    imports (hipkit.cli.run)      {imports:7.1f} ms")
    print(f"    manifest lookup               {lookup:7.1f} ms")
    print(f"    the rest (script, spawn, wait){rest:7.1f} ms")
    print(f"  the full path, for comparison   {statistics.median(full):7.1f} ms  (every source preprocessed)")
    spread = {name: (min(v), max(v)) for name, v in times.items()}
    print("  min..max: " + ", ".join(f"{name} {lo:.1f}..{hi:.1f}" for name, (lo, hi) in spread.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
