"""The translation unit the CPU transform works on, and the error it raises.

The preprocessor's output with its line markers: only the user's own files are
tokenized (a file is the user's if one of its markers lacks the system flag),
and :meth:`Unit.emit` prints a range of those tokens back, with rewrites,
after a line marker, so the C++ compiler's diagnostics name the user's file,
line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....cxx.lexer import DIRECTIVE, Token, tokenize

_LINE_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"([ 0-9]*)$', re.M)


class TransformError(Exception):
    """The source cannot be turned into CPU code (reported as a compile error)."""


@dataclass
class _Segment:
    start: int
    end: int
    file: str
    line: int
    user: bool


def _segments(text: str) -> list[_Segment]:
    markers = list(_LINE_MARKER.finditer(text))
    # Tokens expanded from a macro of a system header (our __global__ & co.)
    # get a marker with the system flag even in the user's file, so a file is
    # the user's if any of its markers lacks the flag.
    user_files = {
        m.group(2) for m in markers if "3" not in m.group(3).split() and not m.group(2).startswith("<")
    }
    segments = []
    for i, m in enumerate(markers):
        start = m.end() + 1
        end = markers[i + 1].start() if i + 1 < len(markers) else len(text)
        file = m.group(2)
        segments.append(_Segment(start, end, file, int(m.group(1)), file in user_files))
    return segments


class Unit:
    """The user's tokens of one translation unit, and how to print them back."""

    def __init__(self, text: str):
        self.text = text
        self.toks: list[Token] = []
        self.files: list[str] = []
        for seg in _segments(text):
            if not seg.user or seg.start >= seg.end:
                continue
            for t in tokenize(text[seg.start : seg.end]):
                if t.kind == DIRECTIVE:
                    continue
                self.toks.append(Token(t.kind, t.text, t.start + seg.start, seg.line + t.line - 1, t.col))
                self.files.append(seg.file)
        sentinel_at = len(text)
        self.toks.append(Token("end", "", sentinel_at, 0, 0))
        self.files.append("")
        self.default_subs: dict[int, tuple[int, str]] = {}

    def emit(self, lo: int, hi: int, subs: dict[int, tuple[int, str]]) -> str:
        """The user text of toks[lo:hi] with substitutions, after a line marker
        so the C++ compiler reports the user's file, line and column."""
        if lo >= hi:
            return ""
        toks = self.toks
        first = toks[lo]
        out = [f'\n# {first.line} "{self.files[lo]}"\n', " " * (first.col - 1)]
        pos = first.start
        j = lo
        while j < hi:
            sub = subs.get(j) or self.default_subs.get(j)
            if sub is None:
                j += 1
                continue
            last, replacement = sub
            out.append(self.text[pos : toks[j].start])
            out.append(replacement)
            pos = toks[last].start + len(toks[last].text)
            j = last + 1
        end = toks[hi - 1].start + len(toks[hi - 1].text)
        if pos < end:
            out.append(self.text[pos:end])
        out.append("\n")
        return "".join(out)


def c_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
