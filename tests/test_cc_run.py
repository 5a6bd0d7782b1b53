"""``hipkit run`` as the parent of the program it runs: Ctrl-C is the program's
(hipkit run ignores it and waits, as system(3) does), a broken pipe kills the
program as it would outside hipkit run, and a cached program that cannot be
run is an error that says why."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_cc import write
from test_cli import environment

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
pytestmark = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

# Waits for SIGINT (up to a minute); "handle" catches it and exits 3.
WAITER = r"""
#include <csignal>
#include <cstdio>
#include <cstring>
#include <unistd.h>
static volatile sig_atomic_t interrupted = 0;
static void on_interrupt(int) { interrupted = 1; }
int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "handle") == 0) signal(SIGINT, on_interrupt);
  printf("ready\n");
  fflush(stdout);
  for (int i = 0; i < 6000 && !interrupted; ++i) usleep(10000);
  printf(interrupted ? "interrupted\n" : "timed out\n");
  return interrupted ? 3 : 1;
}
"""

# Writes until its output is closed.
WRITER = r"""
#include <cstdio>
int main() {
  for (long i = 0; i < 100000000; ++i) printf("line %ld\n", i);
  return 0;
}
"""


def hipkit_run(cwd: Path, *args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "hipkit.cli", "run", *args],
        cwd=cwd,
        env=environment(HIPKIT_PLATFORM="cpu"),
        text=True,
        **popen,
    )


def _default_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("how, status, said", [("handle", 3, "interrupted\n"), ("default", 128 + 2, "")])
def test_ctrl_c_is_the_programs(tmp_path, how, status, said):
    """Ctrl-C (SIGINT to the terminal's process group) reaches the program: one
    that handles it goes on and its exit status is hipkit run's; one killed by
    it makes hipkit run exit 128 + 2.  hipkit run itself says nothing."""
    write(tmp_path, "waiter.hip", WAITER)
    run = hipkit_run(
        tmp_path,
        "waiter.hip",
        "--",
        how,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        # As a terminal's foreground job: the tests may run as a background job, whose
        # SIGINT is ignored, and an ignored signal stays ignored in the programs it runs.
        preexec_fn=_default_interrupt,
    )
    assert run.stdout is not None
    assert run.stdout.readline() == "ready\n"
    os.killpg(run.pid, signal.SIGINT)
    rest, err = run.communicate(timeout=120)
    assert (run.returncode, rest, err) == (status, said, "")


def test_a_closed_pipe_ends_the_program(tmp_path):
    """SIGPIPE has its default action in the program (Python ignores it for
    itself): a program writing into a closed pipe dies of it, as under a shell."""
    write(tmp_path, "writer.hip", WRITER)
    run = hipkit_run(tmp_path, "writer.hip", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout is not None and run.stdout.readline() == "line 0\n"
    run.stdout.close()
    assert run.wait(timeout=120) == 128 + signal.SIGPIPE
    assert run.stderr is not None and run.stderr.read() == ""


def test_a_program_that_cannot_be_run_says_why(tmp_path):
    """A cached program that lost its execute permission is not found by the
    manifest; the full path finds it in the cache and cannot start it: exit
    status 126 and the reason, as a shell gives."""
    write(tmp_path, "writer.hip", WRITER.replace("100000000", "1"))
    first = hipkit_run(tmp_path, "writer.hip", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = first.communicate(timeout=300)
    assert (first.returncode, out) == (0, "line 0\n"), err
    code = "import sys; from hipkit.cc import parse_args; from hipkit.cc.driver import cached_program; "
    code += "print(cached_program(parse_args(['writer.hip']), print))"
    located = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=environment(HIPKIT_PLATFORM="cpu"),
        capture_output=True,
        text=True,
        check=True,
    )
    program = Path(located.stdout.strip())
    program.chmod(0o644)
    try:
        run = hipkit_run(tmp_path, "writer.hip", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = run.communicate(timeout=300)
    finally:
        program.chmod(0o755)
    assert (run.returncode, out) == (126, "")
    assert err == f"hipkit run: error: cannot run {program}: Permission denied\n"
