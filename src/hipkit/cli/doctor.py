"""``hipkit doctor``: the command; the checks themselves are in :mod:`hipkit.doctor`."""

from __future__ import annotations

import json
from dataclasses import asdict

from .._system import System
from ..doctor import exit_code, format_text, run_checks


def add_parser(commands) -> None:
    p = commands.add_parser("doctor", help="check this machine's GPU setup (ROCm's troubleshooting list)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--verbose", action="store_true", help="also print what each check saw")


def run(args) -> int:
    checks = run_checks(System())
    code = exit_code(checks)
    if args.json:
        print(json.dumps({"exit_code": code, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        print(format_text(checks, args.verbose))
    return code
