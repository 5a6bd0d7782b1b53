"""A simple statement as a declaration: its specifiers, and each declarator's
name, initializer and whether it declares an array or a reference."""

from __future__ import annotations

from dataclasses import dataclass

from .brackets import ParseError, match_angle, match_close, split_top
from .lexer import IDENT, STATEMENT_KEYWORDS, Token


@dataclass
class Declarator:
    name_index: int
    start: int  # first token after the decl-specifiers (ptr operators included)
    end: int  # exclusive
    init_kind: str  # "" | "=" | "(" | "{"
    init: tuple[int, int] | None  # the initializer's tokens (without = or the brackets)
    is_array: bool
    is_reference: bool


@dataclass
class Declaration:
    specs: tuple[int, int]  # decl-specifier tokens
    declarators: list[Declarator]
    keywords: set[str]  # storage and cv keywords among the specifiers


_SPEC_WORDS = frozenset(
    """const volatile static constexpr register extern inline mutable thread_local __thread
    unsigned signed short long int char float double bool void auto wchar_t char16_t char32_t
    char8_t struct class union enum typename __restrict __restrict__ __hk_shared""".split()
)


def parse_declaration(toks: list[Token], lo: int, hi: int) -> Declaration | None:
    """Parse the simple statement ``toks[lo:hi]`` (no ";") as a declaration, or return None."""
    j = lo
    saw_type = False
    keywords: set[str] = set()
    while j < hi:
        t = toks[j]
        if t.kind != IDENT:
            break
        if t.text in STATEMENT_KEYWORDS:
            return None
        if t.text in _SPEC_WORDS:
            keywords.add(t.text)
            if t.text not in (
                "const",
                "volatile",
                "static",
                "constexpr",
                "register",
                "extern",
                "inline",
                "mutable",
                "__hk_shared",
                "thread_local",
                "__thread",
            ):
                saw_type = True
            j += 1
            if t.text in ("struct", "class", "union", "enum", "typename"):
                saw_type = False
            continue
        if saw_type:
            break  # this identifier is the declarator name
        # A type name, maybe qualified and with template arguments.
        saw_type = True
        j += 1
        while j < hi:
            if toks[j].text == "<":
                try:
                    j = match_angle(toks, j) + 1
                except ParseError:
                    return None
                continue
            if toks[j].text == "::" and j + 1 < hi and toks[j + 1].kind == IDENT:
                j += 2
                continue
            break
    if not saw_type or j >= hi:
        return None
    specs = (lo, j)
    declarators = []
    for a, b in split_top(toks, j, hi, ",", angles=False):
        d = _parse_declarator(toks, a, b)
        if d is None:
            return None
        declarators.append(d)
    return Declaration(specs, declarators, keywords)


def _parse_declarator(toks: list[Token], a: int, b: int) -> Declarator | None:
    k = a
    is_reference = False
    while k < b and toks[k].text in ("*", "&", "&&", "const", "volatile", "__restrict", "__restrict__"):
        is_reference |= toks[k].text in ("&", "&&")
        k += 1
    if k >= b or toks[k].kind != IDENT or toks[k].text in STATEMENT_KEYWORDS:
        return None
    name = k
    k += 1
    is_array = False
    while k < b and toks[k].text == "[":
        is_array = True
        k = match_close(toks, k) + 1
    if k == b:
        return Declarator(name, a, b, "", None, is_array, is_reference)
    t = toks[k].text
    if t == "=":
        return Declarator(name, a, b, "=", (k + 1, b), is_array, is_reference)
    if t in ("(", "{") and match_close(toks, k) == b - 1:
        return Declarator(name, a, b, t, (k + 1, b - 1), is_array, is_reference)
    return None
