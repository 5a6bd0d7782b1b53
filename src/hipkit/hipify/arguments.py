"""hipify-clang's argument rewrites, read from ``arguments.tsv`` (generated with names.tsv).

Some HIP (or ROC) functions take other arguments than their CUDA counterparts: a symbol
wrapped in ``HIP_SYMBOL(...)`` (``cudaMemcpyToSymbol``), a kernel cast to ``const void*``, a
flag added (``cudaMallocHost`` → ``hipHostMalloc(..., hipHostMallocDefault)``), arguments
moved or removed (cuDNN → MIOpen, cuSPARSE → rocSPARSE).  hipify-clang holds these as data;
so does hipkit: each rewrite applies where the ``--roc``/``--miopen`` settings match its
row, as in hipify-clang.  A call to a name with overloads in HIP gets the name for its
number of arguments (``cudaEventCreate(&e, flags)`` → ``hipEventCreateWithFlags``).

The rewrites are edits on the source (see :func:`call_edits`); moved and copied arguments
are :class:`Copy` parts, rendered with their own translation.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from ..cxx.brackets import ParseError, match_close, split_top
from ..cxx.lexer import Token
from ..tables import ARGUMENTS_TSV

__all__ = ["Rewrite", "Copy", "rewrites", "overloads", "call_edits"]


class Copy(NamedTuple):
    """The translated text of ``[start, end)`` of the source, as part of a replacement."""

    start: int
    end: int


Part = str | Copy
Edit = tuple[int, int, tuple[Part, ...]]


@dataclass(frozen=True)
class Rewrite:
    """One row of ``arguments.tsv`` (its header documents the columns)."""

    arg: int
    action: str  # wrap, remove, add, copy, move, replace
    value: str
    to: int
    count: int
    warning: str  # "data-loss" or ""


Key = tuple[str, bool, bool]  # function, --roc, --miopen


@functools.cache
def _table() -> tuple[dict[Key, tuple[Rewrite, ...]], dict[Key, dict[int, str]]]:
    text = ARGUMENTS_TSV.read_text(encoding="utf-8")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("function\t")) + 1
    casts: dict[Key, list[Rewrite]] = {}
    named: dict[Key, dict[int, str]] = {}
    for line in lines[start:]:
        function, roc, miopen, arg, action, value, to, count, warning = line.split("\t")
        key = (function, roc == "1", miopen == "1")
        if action == "overload":
            named.setdefault(key, {})[int(arg)] = value
        else:
            rewrite = Rewrite(int(arg), action, value, int(to or 0), int(count or 1), warning)
            casts.setdefault(key, []).append(rewrite)
    return {k: tuple(v) for k, v in casts.items()}, named


def rewrites() -> dict[Key, tuple[Rewrite, ...]]:
    """Argument rewrites by (CUDA function, --roc, --miopen)."""
    return _table()[0]


def overloads() -> dict[Key, dict[int, str]]:
    """HIP names by (CUDA function, --roc, --miopen) and number of arguments."""
    return _table()[1]


def arguments(toks: list[Token], open_: int) -> tuple[list[tuple[int, int]], int] | None:
    """The token ranges of the arguments of the call whose ``(`` is ``toks[open_]``, and the
    index of its ``)``; None when the brackets do not match."""
    try:
        close = match_close(toks, open_)
        parts = split_top(toks, open_ + 1, close)
    except ParseError:
        return None
    return ([] if parts == [(open_ + 1, close)] and close == open_ + 1 else parts), close


def call_edits(
    toks: list[Token], open_: int, base: int, rows: tuple[Rewrite, ...]
) -> tuple[list[Edit], list[Rewrite]]:
    """The edits that apply ``rows`` to the call whose ``(`` is ``toks[open_]`` (offsets plus
    ``base``), and the rows applied; none for a call without arguments."""
    found = arguments(toks, open_)
    if found is None or not found[0]:
        return [], []
    ranges, close = found
    n = len(ranges)
    starts = [base + toks[lo].start for lo, _ in ranges]
    ends = [base + toks[hi - 1].end for _, hi in ranges]
    end_of_call = base + toks[close].start
    edits: list[Edit] = []
    applied = []

    def insert_before(t: int, *parts: Part) -> None:
        if t < n:
            edits.append((starts[t], starts[t], (*parts, ", ")))
        else:
            edits.append((end_of_call, end_of_call, (", ", *parts)))

    def delete(first: int, count: int) -> None:
        if first + count < n:
            edits.append((starts[first], starts[first + count], ("",)))
        elif first > 0:  # the last ones: from the comma before them to the ')'
            comma = base + toks[ranges[first - 1][1]].start
            edits.append((comma, end_of_call, ("",)))
        else:
            edits.append((starts[0], end_of_call, ("",)))

    for row in rows:
        i = row.arg
        if row.action == "add":
            insert_before(i, row.value)
        elif i >= n or (row.action == "move" and i + row.count > n):
            continue
        elif row.action == "wrap":
            edits.append((starts[i], starts[i], (row.value + "(",)))
            edits.append((ends[i], ends[i], (")",)))
        elif row.action == "remove":
            delete(i, 1)
        elif row.action == "replace":
            edits.append((starts[i], ends[i], (row.value,)))
        elif row.action == "copy":
            insert_before(row.to, Copy(starts[i], ends[i]))
        elif row.action == "move":
            insert_before(row.to, Copy(starts[i], ends[i + row.count - 1]))
            delete(i, row.count)
        applied.append(row)
    return edits, applied
