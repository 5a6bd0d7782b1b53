"""Brackets in a token list: matching them, and splitting a range at its top level.

Every parser of :mod:`hipkit.cxx` stands on these: expressions are never parsed,
only delimited (a bracketed group is skipped whole), and a structure they cannot
place raises :class:`ParseError`.
"""

from __future__ import annotations

from .lexer import IDENT, PUNCT, Token

OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")", "]", "}"}


class ParseError(Exception):
    """The tokens do not have a structure this parser understands."""


def match_close(toks: list[Token], i: int) -> int:
    """Index of the bracket closing the one at ``toks[i]``."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if toks[j].kind != PUNCT:
            continue
        if t in OPEN:
            depth += 1
        elif t in CLOSE:
            depth -= 1
            if depth == 0:
                return j
    raise ParseError(f"unbalanced {toks[i].text!r} at line {toks[i].line}")


def match_open(toks: list[Token], i: int) -> int:
    """Index of the bracket opening the one that closes at ``toks[i]``."""
    depth = 0
    for j in range(i, -1, -1):
        t = toks[j].text
        if toks[j].kind != PUNCT:
            continue
        if t in CLOSE:
            depth += 1
        elif t in OPEN:
            depth -= 1
            if depth == 0:
                return j
    raise ParseError(f"unbalanced {toks[i].text!r} at line {toks[i].line}")


def match_angle(toks: list[Token], i: int) -> int:
    """Index of the ``>`` closing the template bracket ``<`` at ``toks[i]``."""
    depth = 0
    j = i
    while j < len(toks):
        t = toks[j].text
        if t in OPEN:
            j = match_close(toks, j)
        elif t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
        elif t == ">>":
            depth -= 2
        elif t in (";", "{", "}"):
            break
        if depth <= 0 and t in (">", ">>"):
            return j
        j += 1
    raise ParseError(f"unbalanced template bracket at line {toks[i].line}")


def split_top(
    toks: list[Token], lo: int, hi: int, sep: str = ",", angles: bool = False
) -> list[tuple[int, int]]:
    """Split ``toks[lo:hi]`` at depth-0 separators into ``(start, end)`` ranges."""
    parts = []
    start = lo
    j = lo
    angle = 0
    while j < hi:
        t = toks[j]
        if t.kind == PUNCT and t.text in OPEN:
            j = match_close(toks, j) + 1
            continue
        if angles and t.kind == PUNCT:
            if t.text == "<" and j > lo and toks[j - 1].kind == IDENT:
                angle += 1
            elif t.text == ">" and angle:
                angle -= 1
            elif t.text == ">>" and angle:
                angle = max(0, angle - 2)
        if t.text == sep and t.kind == PUNCT and angle == 0:
            parts.append((start, j))
            start = j + 1
        j += 1
    parts.append((start, hi))
    return parts


def top_indices(toks: list[Token], lo: int, hi: int, texts) -> list[int]:
    """Indices of the depth-0 tokens of ``toks[lo:hi]`` whose text is in ``texts``."""
    found = []
    j = lo
    while j < hi:
        t = toks[j]
        if t.kind == PUNCT and t.text in OPEN:
            j = match_close(toks, j) + 1
            continue
        if t.text in texts:
            found.append(j)
        j += 1
    return found


def find_top(toks: list[Token], lo: int, hi: int, text: str) -> int:
    """Index of the first depth-0 token ``text`` in ``toks[lo:hi]``, or -1."""
    j = lo
    while j < hi:
        t = toks[j]
        if t.kind == PUNCT and t.text in OPEN:
            if t.text == text:
                return j
            j = match_close(toks, j) + 1
            continue
        if t.text == text:
            return j
        j += 1
    return -1
