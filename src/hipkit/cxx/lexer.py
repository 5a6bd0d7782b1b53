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

import re
from typing import NamedTuple

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
    "TYPE_KEYWORDS",
    "STATEMENT_KEYWORDS",
    "ASSIGN_OPS",
]

IDENT = "ident"
NUMBER = "number"
STRING = "string"
CHAR = "char"
PUNCT = "punct"
DIRECTIVE = "directive"  # a whole preprocessor line, continuations included
COMMENT = "comment"
SPACE = "space"

# The keywords and operators the parsers of hipkit.cxx tell apart.
TYPE_KEYWORDS = frozenset(
    """void bool char wchar_t char8_t char16_t char32_t short int long float double signed
    unsigned auto const volatile __restrict __restrict__ static constexpr register extern
    inline mutable thread_local __thread struct class union enum typename""".split()
)
# Statement keywords that can never start a declaration.
STATEMENT_KEYWORDS = frozenset(
    """if else for while do switch case default return break continue goto try catch
    throw new delete this sizeof alignof decltype static_assert co_return co_await
    co_yield asm __asm__ using typedef namespace template""".split()
)
ASSIGN_OPS = frozenset("= += -= *= /= %= &= |= ^= <<= >>=".split())


class LexError(ValueError):
    """An unterminated comment or literal; carries the 1-based line and column."""

    def __init__(self, message: str, line: int, col: int):
        super().__init__(f"{line}:{col}: {message}")
        self.line = line
        self.col = col


class Token(NamedTuple):
    """One token: its kind, its exact text, its offset in the source and its 1-based
    line and column.  A named tuple, so that the lexer makes one in a single C call."""

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

_SPACE = r"(?:[ \t\r\n\f\v]|\\\r?\n)+"
_COMMENT = r"//(?:[^\n\\]|\\.|\\\r?\n)*|/\*.*?\*/"
# Trivia (whitespace and comments) is matched as the prefix of the token after it, so that
# the common case costs one match per token; ``keep_trivia`` splits it again with _TRIVIA.
_TRIVIA = re.compile(rf"(?P<space>{_SPACE})|(?P<comment>{_COMMENT})", re.DOTALL)
# A token: group 1 is the trivia before it, the named group after it says its kind.  A
# directive is taken only at the start of a line: elsewhere its '#' is a punctuator, and
# the lexer goes on after it.
_TOKEN_ALTERNATIVES = (
    r"""
    (?P<ident>(?!(?:u8|u|U|L)?R?["'])[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.]|'(?=[0-9a-zA-Z]))*)
  | (?P<directive>\#(?:[^\n\\/]|\\.|\\\r?\n|/\*.*?\*/|/(?![/*]))*(?://[^\n]*)?)
  | (?P<bad_comment>/\*)
  | (?P<close3>>>>)
  | (?P<punct>"""
    + "|".join(re.escape(p) for p in _PUNCTUATORS)
    + r""")
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")
  | (?P<string>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.|\\\r?\n)*")
  | (?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.|\\\r?\n)+')
  | (?P<bad_literal>(?:u8|u|U|L)?R?["'])
  | (?P<other>.)
  | (?P<eof>\Z)
    """
)
_MASTER = re.compile(rf"((?:{_SPACE}|{_COMMENT})*)(?:{_TOKEN_ALTERNATIVES})", re.VERBOSE | re.DOTALL)
_KINDS = tuple(
    next((k for k, i in _MASTER.groupindex.items() if i == g), "") for g in range(_MASTER.groups + 1)
)
_new_token = tuple.__new__  # Token(...) without a Python-level __new__: the lexer's hot path


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
    tokens: list[Token] = []
    append = tokens.append
    kinds = _KINDS
    count = text.count
    line = 1
    line_start = 0  # offset of the current line's first character
    launch_depth = 0  # open <<< brackets
    pos = 0
    while True:
        # One pass of finditer; it is restarted only where a match must be cut short (a
        # '>>>' closing a launch, a '#' that does not start a line).
        for m in _MASTER.finditer(text, pos):
            index = m.lastindex or 0
            kind = kinds[index]
            start, end = m.span(index)
            before = m.start()
            if before != start:
                if keep_trivia:
                    line, line_start = _trivia(text, before, start, line, line_start, append)
                elif count("\n", before, start):
                    line += count("\n", before, start)
                    line_start = text.rfind("\n", before, start) + 1
            if kind == "ident" or kind == "number":
                append(_new_token(Token, (kind, text[start:end], start, line, start - line_start + 1)))
            elif kind == "punct":
                value = text[start:end]
                if value == "<<<":
                    launch_depth += 1
                append(_new_token(Token, (kind, value, start, line, start - line_start + 1)))
            elif kind == "close3":  # '>>>': a launch's end, else a '>>' and a '>'
                if launch_depth:
                    launch_depth -= 1
                    append(_new_token(Token, (PUNCT, ">>>", start, line, start - line_start + 1)))
                    continue
                append(_new_token(Token, (PUNCT, ">>", start, line, start - line_start + 1)))
                pos = start + 2
                break
            elif kind == "eof":
                return tokens
            elif kind == "other":
                append(_new_token(Token, (PUNCT, text[start:end], start, line, start - line_start + 1)))
            elif kind == "bad_comment" or kind == "bad_literal":
                what = "comment" if kind == "bad_comment" else "literal"
                raise LexError(f"unterminated {what}", line, start - line_start + 1)
            elif kind == "directive" and not _at_line_start(text, before, start):
                value = "##" if text.startswith("##", start) else "#"
                append(_new_token(Token, (PUNCT, value, start, line, start - line_start + 1)))
                pos = start + len(value)
                break
            else:  # directive, string, raw string, char: the kinds whose text may span lines
                value = text[start:end]
                append(
                    _new_token(
                        Token, (STRING if kind == "raw" else kind, value, start, line, start - line_start + 1)
                    )
                )
                if "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rfind("\n") + 1
        else:
            return tokens


def _trivia(text: str, start: int, end: int, line: int, line_start: int, append) -> tuple[int, int]:
    """Append the space and comment tokens of ``text[start:end]``; returns the line and
    line start after them."""
    for m in _TRIVIA.finditer(text, start, end):
        value = m.group()
        offset = m.start()
        append(_new_token(Token, (m.lastgroup, value, offset, line, offset - line_start + 1)))
        if "\n" in value:
            line += value.count("\n")
            line_start = offset + value.rfind("\n") + 1
    return line, line_start


def _at_line_start(text: str, before: int, start: int) -> bool:
    """Whether the ``#`` at ``start``, after the trivia ``text[before:start]``, begins a
    directive: the trivia ends with whitespace holding a newline, or only blanks precede it."""
    if before == 0 and not text[:start].strip(" \t"):
        return True
    pieces = list(_TRIVIA.finditer(text, before, start))
    return bool(pieces) and pieces[-1].lastgroup == SPACE and "\n" in pieces[-1].group()
