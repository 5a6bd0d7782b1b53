"""A C++ tokenizer for HIP and CUDA sources (DESIGN.md, seam 5).

One lexer serves the CPU platform's source transform, kernel discovery and
hipify.  It knows comments, string / character / raw-string literals with
their prefixes, line continuations, preprocessor directives (one token per
logical line), and tells CUDA's launch brackets ``<<<`` / ``>>>`` from shifts
and nested template closers: ``>>>`` is one token only while a ``<<<`` is open.

Tokens keep their exact text and offsets, so joining every token of
``tokenize(text, keep_trivia=True)`` gives ``text`` back byte for byte.

Example
-------
>>> [t.text for t in tokenize('k<<<g, b>>>(x); // go')]
['k', '<<<', 'g', ',', 'b', '>>>', '(', 'x', ')', ';']
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

__all__ = [
    "Token",
    "tokenize",
    "LexError",
    "IDENT",
    "NUMBER",
    "STRING",
    "CHAR",
    "PUNCT",
    "DIRECTIVE",
    "COMMENT",
    "SPACE",
]

IDENT = "ident"
NUMBER = "number"
STRING = "string"
CHAR = "char"
PUNCT = "punct"
DIRECTIVE = "directive"  # a whole preprocessor line, continuations included
COMMENT = "comment"
SPACE = "space"


class LexError(ValueError):
    """An unterminated comment or literal; carries the 1-based line and column."""

    def __init__(self, message: str, line: int, col: int):
        super().__init__(f"{line}:{col}: {message}")
        self.line = line
        self.col = col


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    start: int  # offset in the source
    line: int  # 1-based
    col: int  # 1-based

    @property
    def end(self) -> int:
        return self.start + len(self.text)


_PUNCTUATORS = sorted(
    """<<<  >>= <<= <=> ->* ... :: ## ++ -- -> << >> <= >= == != && || += -= *= /= %= &= |= ^=
    .* # { } [ ] ( ) ; : ? . + - * / % ^ & | ~ ! = < > ,""".split(),
    key=len,
    reverse=True,
)

_MASTER = re.compile(
    r"""
    (?P<space>(?:[ \t\r\n\f\v]|\\\r?\n)+)
  | (?P<comment>//(?:[^\n\\]|\\.|\\\r?\n)*|/\*.*?\*/)
  | (?P<bad_comment>/\*)
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")
  | (?P<string>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.|\\\r?\n)*")
  | (?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.|\\\r?\n)+')
  | (?P<bad_literal>(?:u8|u|U|L)?R?["'])
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.]|'(?=[0-9a-zA-Z]))*)
  | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<punct>"""
    + "|".join(re.escape(p) for p in _PUNCTUATORS)
    + r""")
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_DIRECTIVE = re.compile(r"[ \t]*#(?:[^\n\\/]|\\.|\\\r?\n|/\*.*?\*/|/(?![/*]))*(?://[^\n]*)?", re.DOTALL)


def tokenize(text: str, keep_trivia: bool = False) -> list[Token]:
    """Split C++ source into tokens.

    Parameters
    ----------
    text
        The source.
    keep_trivia
        Keep whitespace and comment tokens, so that the tokens join to ``text``.

    Raises
    ------
    LexError
        On an unterminated block comment, string or character literal.
    """
    newlines = [m.start() for m in re.finditer("\n", text)]

    def position(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(newlines, offset - 1)
        line_start = newlines[line - 1] + 1 if line else 0
        return line + 1, offset - line_start + 1

    tokens: list[Token] = []
    append = tokens.append
    pos = 0
    at_line_start = True
    launch_depth = 0  # open <<< brackets
    n = len(text)
    while pos < n:
        if at_line_start:
            m = _DIRECTIVE.match(text, pos)
            if m:
                line, col = position(pos)
                stripped = m.group().lstrip(" \t")
                lead = len(m.group()) - len(stripped)
                if lead and keep_trivia:
                    append(Token(SPACE, m.group()[:lead], pos, line, col))
                append(Token(DIRECTIVE, stripped, pos + lead, line, col + lead))
                pos = m.end()
                continue
        m = _MASTER.match(text, pos)
        assert m is not None  # (?P<other>.) matches any character
        kind = m.lastgroup or "other"
        value = m.group()
        if kind in ("bad_comment", "bad_literal"):
            line, col = position(pos)
            what = "comment" if kind == "bad_comment" else "literal"
            raise LexError(f"unterminated {what}", line, col)
        if kind == "space":
            at_line_start = "\n" in value
            if keep_trivia:
                line, col = position(pos)
                append(Token(SPACE, value, pos, line, col))
            pos = m.end()
            continue
        at_line_start = False
        if kind == "comment":
            if keep_trivia:
                line, col = position(pos)
                append(Token(COMMENT, value, pos, line, col))
            pos = m.end()
            continue
        if kind == "raw":
            kind = STRING
        elif kind == "other":
            kind = PUNCT
        elif kind == "punct":
            if value == "<<<":
                launch_depth += 1
            elif value.startswith(">>") and launch_depth and text.startswith(">>>", pos):
                value = ">>>"
                launch_depth -= 1
        line, col = position(pos)
        append(Token(kind, value, pos, line, col))
        pos += len(value)
    return tokens
