"""The ``hipkit`` command: one entry point, a module per subcommand."""

from __future__ import annotations

import importlib
import sys

_COMMANDS = ("info", "doctor", "hipify", "cc", "run", "prof", "sanitize")


def main(argv: list[str] | None = None) -> int:
    """Run ``hipkit <command> ...``; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:
        # Every argument is hipkit run's own, and argparse (with the locale
        # and terminal lookups it makes) would be a good part of the time a
        # cached program takes to start.
        from .run import main as run_main

        return run_main(argv[1:])
    import argparse

    # Only the command's own module is imported (hipkit run of a cached program
    # starts in milliseconds); all of them for the overview of --help.
    wanted = argv[:1] if argv[:1] and argv[0] in _COMMANDS else _COMMANDS
    modules = {name: importlib.import_module(f".{name}", __name__) for name in wanted}
    parser = argparse.ArgumentParser(prog="hipkit", description="HIP for every platform, from Python.")
    parser.add_argument("--version", action="store_true", help="print hipkit's version")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in modules.values():
        module.add_parser(commands)
    args = parser.parse_args(argv)
    if args.version:
        from .. import __version__

        print(f"hipkit {__version__}")
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    return modules[args.command].run(args)


if __name__ == "__main__":
    sys.exit(main())
