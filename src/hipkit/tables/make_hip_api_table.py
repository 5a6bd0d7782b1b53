"""The table of HIP's runtime API: ``python -m hipkit.tables.make_hip_api_table
path/to/hip_runtime_api.h`` reads ROCm's header and writes ``hip_runtime_api.tsv`` beside
this file: every function it declares, its Doxygen group, and whether ROCm marks it
deprecated or it is graphics interop (OpenGL, Vulkan, external memory and semaphores).
``hipkit.cc.api_table`` tables what each platform's program headers declare of it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from . import write_text
from .hip_api import TABLE, Function

_INTEROP = re.compile(r"GL|Vk|Vulkan|Graphics|External")


# ---- ROCm's header -> the table ----------------------------------------------

_DECLARATION = re.compile(
    r"(?:^|[;{}])\s*((?:HIP_DEPRECATED\s*\([^)]*\)\s*)?(?:HIP_PUBLIC_API\s*)?(?:static\s+)?"
    r"(?:inline\s+)?(?:template\s*<[^>]*>\s*)?(?:const\s+)?[A-Za-z_]\w*(?:\s*\*)?\s+(hip[A-Za-z0-9_]+)\s*\()",
    re.M,
)
_MARK = re.compile(r"@(?:defgroup|addtogroup)\s+(\w+)([^\n]*)|@\{|@\}")
_INGROUP = re.compile(r"@ingroup\s+(\w+)")


def _without_comments(text: str) -> str:
    """Comments blanked, offsets kept."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def _sections(header: str) -> tuple[list[tuple[int, str]], dict[str, bool]]:
    """Where each Doxygen group's ``@{ ... @}`` begins and ends, as (offset, group in
    force from there on), and whether each group's title says "[Deprecated]"."""
    titles: dict[str, bool] = {}
    changes, stack, named = [], [""], ""
    for m in _MARK.finditer(header):
        if m.group(1):
            named = m.group(1)
            titles.setdefault(named, "[Deprecated]" in m.group(2))
        elif m.group(0) == "@{":
            stack.append(named or stack[-1])
            named = ""
        elif len(stack) > 1:
            stack.pop()
        changes.append((m.start(), stack[-1]))
    return changes, titles


def extract(header: str) -> list[Function]:
    """Every function ``header`` declares, once, with its Doxygen group: the one its own
    comment names (``@ingroup``), else the ``@{ ... @}`` it is in.  A function is
    deprecated when ROCm marks it so (HIP_DEPRECATED) or its group's title says so."""
    changes, titles = _sections(header)
    placed = [(m.start(), m.group(1)) for m in _INGROUP.finditer(header)]
    code = _without_comments(header)
    functions: dict[str, Function] = {}
    previous = 0
    for m in _DECLARATION.finditer(code):
        name, at = m.group(2), m.start(2)
        # In the comment just before the declaration, with no @{ or @} after it (a
        # group's own @ingroup, which places the group, comes before its @{).
        own = [
            g
            for offset, g in placed
            if previous < offset < at and not any(offset < c < at for c, _ in changes)
        ]
        previous = m.end()
        if name in functions:
            continue
        group = own[-1] if own else next((g for offset, g in reversed(changes) if offset < at), "")
        deprecated = "HIP_DEPRECATED" in m.group(1) or titles.get(group, False)
        functions[name] = Function(name, group, deprecated, bool(_INTEROP.search(name)) or group == "GL")
    return list(functions.values())


def write_table(functions: list[Function], source: str) -> None:
    lines = [
        f"# HIP's runtime API: the functions of {source}",
        "# Made by python -m hipkit.tables.make_hip_api_table; name, Doxygen group, flags.",
    ]
    for f in functions:
        flags = ",".join(flag for flag, on in (("deprecated", f.deprecated), ("interop", f.interop)) if on)
        lines.append(f"{f.name}\t{f.group}\t{flags or '-'}")
    write_text(TABLE, "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hipkit.tables.make_hip_api_table")
    parser.add_argument("header", type=Path, help="ROCm's include/hip/hip_runtime_api.h")
    parser.add_argument("--source", default="ROCm's include/hip/hip_runtime_api.h", help="what the header is")
    args = parser.parse_args(argv)
    write_table(extract(args.header.read_text()), args.source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
