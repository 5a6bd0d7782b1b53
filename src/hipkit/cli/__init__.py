"""The ``hipkit`` command: one entry point, a module per subcommand."""

from __future__ import annotations

import argparse
import sys

from . import cc, doctor, hipify, info, prof, run

_COMMANDS = {"info": info, "doctor": doctor, "hipify": hipify, "cc": cc, "run": run, "prof": prof}


def main(argv: list[str] | None = None) -> int:
    """Run ``hipkit <command> ...``; returns the exit code."""
    parser = argparse.ArgumentParser(prog="hipkit", description="HIP for every platform, from Python.")
    parser.add_argument("--version", action="store_true", help="print hipkit's version")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _COMMANDS.values():
        module.add_parser(commands)
    args = parser.parse_args(argv)
    if args.version:
        from .. import __version__

        print(f"hipkit {__version__}")
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    return _COMMANDS[args.command].run(args)


if __name__ == "__main__":
    sys.exit(main())
