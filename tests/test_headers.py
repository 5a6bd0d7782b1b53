"""The platforms' headers share code through the portable headers
(``platforms/include/hipkit_portable``), never by copying it (STYLE.md, habit 9):
no run of six or more lines of code stands in the headers of two platforms, or
in a platform's and the portable ones.

The check reads the headers as text: a line of code is a line with its comments,
white space and line continuation taken out; blank lines and ``#include`` lines
(which name a dependency, not code one header could hold for another) do not
count."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import hipkit.platforms

PLATFORMS = Path(hipkit.platforms.__file__).parent
RUN = 6

_COMMENT_OR_LITERAL = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


def header_folders(root: Path) -> dict[str, Path]:
    """The header folders of each platform under ``root`` (a ``platforms``
    folder), and the shared ones (kernels' and programs')."""
    folders = {p.name: p / "include" for p in sorted(root.iterdir()) if (p / "include").is_dir()}
    shared = {"portable": root / "include" / "hipkit_portable"}
    if (root / "include" / "hipkit_program").is_dir():  # what programs' host code shares
        shared["program"] = root / "include" / "hipkit_program"
    return {**folders, **shared}


def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, code) for each line of ``text`` that has code."""

    def blank_out(match: re.Match) -> str:
        token = match.group(0)
        if token.startswith("//"):
            return ""
        if token.startswith("/*"):
            return "\n" * token.count("\n")  # keeps the line numbers
        return token  # a string or character literal: code

    lines = []
    for number, line in enumerate(_COMMENT_OR_LITERAL.sub(blank_out, text).splitlines(), 1):
        code = re.sub(r"\s+", "", line).removesuffix("\\")
        if code and not code.startswith("#include"):
            lines.append((number, code))
    return lines


def shared_runs(folders: dict[str, Path], run: int = RUN) -> list[str]:
    """Each run of ``run`` or more lines of code that files of two different
    folders both have, as ``"a.h:10-17 ~ b.h:40-47"`` (paths from the folders'
    common parent, line numbers of the first and last line of code)."""
    base = Path(*next(iter(folders.values())).parts[:-2])
    # Where each window of `run` lines stands first, in each folder.
    places: dict[tuple[str, ...], dict[str, tuple[Path, int]]] = defaultdict(dict)
    lines: dict[Path, list[tuple[int, str]]] = {}
    for name, folder in folders.items():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            lines[path] = code_lines(path.read_text())
            for i in range(len(lines[path]) - run + 1):
                window = tuple(code for _, code in lines[path][i : i + run])
                places[window].setdefault(name, (path, i))
    # Windows shared by a pair of files, merged into runs where they follow on in both.
    pairs: dict[tuple[Path, Path], set[tuple[int, int]]] = defaultdict(set)
    for where in places.values():
        found = sorted(where.values())
        for k, (a, i) in enumerate(found):
            for b, j in found[k + 1 :]:
                pairs[a, b].add((i, j))
    runs = []
    for (a, b), windows in sorted(pairs.items()):
        for i, j in sorted(windows):
            if (i - 1, j - 1) in windows:
                continue  # inside a run that starts earlier
            n = 0
            while (i + n + 1, j + n + 1) in windows:
                n += 1
            last = run - 1 + n
            runs.append(
                f"{a.relative_to(base)}:{lines[a][i][0]}-{lines[a][i + last][0]} ~ "
                f"{b.relative_to(base)}:{lines[b][j][0]}-{lines[b][j + last][0]}"
            )
    return runs


def test_no_header_repeats_another_platforms():
    runs = shared_runs(header_folders(PLATFORMS))
    assert not runs, (
        "lines repeated between platforms' headers (share them in hipkit_portable):\n" + "\n".join(runs)
    )


SIX = """\
__HK_FN int twice(int x) {
  return 2 * x;
}
__HK_FN int thrice(int x) {
  return 3 * x;
}
"""


def test_a_run_of_six_is_found_through_comments_and_white_space(tmp_path):
    for name in ("cpu", "nvidia", "amd", "include/hipkit_portable"):
        (tmp_path / "platforms" / name / ("" if "/" in name else "include")).mkdir(parents=True)
    folders = header_folders(tmp_path / "platforms")
    assert set(folders) == {"cpu", "nvidia", "amd", "portable"}
    (folders["cpu"] / "a.h").write_text("#pragma once\n" + SIX)
    spaced = SIX.replace("  return", "\n\treturn  ").replace("{\n", "{  // why\n", 1)
    (folders["amd"] / "b.h").write_text('/* one\n   two */\n#include "x.h"\n' + spaced + "int y;\n")
    (folders["nvidia"] / "c.h").write_text(SIX.split("\n", 1)[1])  # five of the six lines
    assert shared_runs(folders) == ["amd/include/b.h:4-11 ~ cpu/include/a.h:2-7"]
