"""What the commands that run a program under a tool share (``hipkit prof``,
``hipkit sanitize``): the command as the user gave it, and the child that runs it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path


def command(words: list[str]) -> list[str]:
    """``script.py ARGS``, ``python ARGS`` and ``hipkit ARGS`` run under the Python
    running hipkit (so the program sees this hipkit); anything else as given."""
    words = words[1:] if words[:1] == ["--"] else words
    if words[0] in ("python", "python3"):
        return [sys.executable, *words[1:]]
    if words[0] == "hipkit":
        return [sys.executable, "-m", "hipkit.cli", *words[1:]]
    if words[0].endswith(".py") or (Path(words[0]).is_file() and not os.access(words[0], os.X_OK)):
        return [sys.executable, *words]
    return words


def run(tool: str, words: list[str], environment: dict[str, str]) -> int:
    """Run the command with ``environment`` added to ours; its exit status (128 + N when
    it died of signal N, 127 when it cannot start).  The child gets the terminal's
    Ctrl-C itself; a SIGTERM to us goes on to it, and we stay for what comes after."""
    env = dict(os.environ, **environment)
    try:
        child = subprocess.Popen(words, env=env)
    except OSError as exc:
        print(f"hipkit {tool}: cannot run {words[0]}: {exc}", file=sys.stderr)
        return 127
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
    try:
        code = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - code if code < 0 else code
