"""Function bodies as statements: compound, if, loops, switch, jumps, labels and
simple statements, whose expressions stay token ranges."""

from __future__ import annotations

from dataclasses import dataclass, field

from .brackets import OPEN, ParseError, match_close, split_top
from .declarations import parse_declaration
from .lexer import IDENT, PUNCT, TYPE_KEYWORDS, Token


@dataclass
class Stmt:
    kind: str  # compound if for while do switch return break continue goto label simple empty range_for try
    start: int  # first token
    end: int  # last token (inclusive)
    children: list[Stmt] = field(default_factory=list)
    # if: cond range, then = children[0], else = children[1]
    # for: init/cond/inc ranges, body = children[0]; while/do: cond range, body = children[0]
    cond: tuple[int, int] = (0, 0)  # empty ranges where a statement has no such part
    init: tuple[int, int] = (0, 0)
    inc: tuple[int, int] = (0, 0)


def parse_compound(toks: list[Token], open_index: int) -> Stmt:
    """Parse the compound statement whose "{" is at ``open_index``."""
    close = match_close(toks, open_index)
    children = []
    i = open_index + 1
    while i < close:
        stmt = parse_statement(toks, i, close)
        children.append(stmt)
        i = stmt.end + 1
    return Stmt("compound", open_index, close, children)


def parse_statement(toks: list[Token], i: int, hi: int) -> Stmt:
    t = toks[i]
    text = t.text
    if text == "{":
        return parse_compound(toks, i)
    if text == ";":
        return Stmt("empty", i, i)
    if t.kind == IDENT:
        if text == "if":
            j = i + 1
            if toks[j].text == "constexpr":
                j += 1
            if toks[j].text != "(":
                raise ParseError(f"expected ( after if at line {t.line}")
            close = match_close(toks, j)
            then = parse_statement(toks, close + 1, hi)
            children = [then]
            end = then.end
            if end + 1 < hi and toks[end + 1].text == "else":
                other = parse_statement(toks, end + 2, hi)
                children.append(other)
                end = other.end
            kind = "if_constexpr" if toks[i + 1].text == "constexpr" else "if"
            return Stmt(kind, i, end, children, cond=(j + 1, close))
        if text == "for":
            close = match_close(toks, i + 1)
            body = parse_statement(toks, close + 1, hi)
            parts = split_top(toks, i + 2, close, ";")
            if len(parts) != 3:
                return Stmt("range_for", i, body.end, [body])
            (a, b), (c, d), (e, f) = parts
            return Stmt("for", i, body.end, [body], init=(a, b), cond=(c, d), inc=(e, f))
        if text in ("while", "switch"):
            close = match_close(toks, i + 1)
            body = parse_statement(toks, close + 1, hi)
            return Stmt(text, i, body.end, [body], cond=(i + 2, close))
        if text == "do":
            body = parse_statement(toks, i + 1, hi)
            w = body.end + 1
            if toks[w].text != "while":
                raise ParseError(f"expected while after do body at line {toks[w].line}")
            close = match_close(toks, w + 1)
            return Stmt("do", i, close + 1, [body], cond=(w + 2, close))
        if text in ("return", "goto", "break", "continue"):
            end = _statement_end(toks, i, hi)
            return Stmt(text, i, end)
        if text in ("case", "default"):
            j = i
            while toks[j].text != ":":
                j += 1
            return Stmt("label", i, j)
        if text == "try":
            body = parse_compound(toks, i + 1)
            end = body.end
            while end + 1 < hi and toks[end + 1].text == "catch":
                close = match_close(toks, end + 2)
                end = match_close(toks, close + 1)
            return Stmt("try", i, end)
        if i + 1 < hi and toks[i + 1].text == ":" and text not in TYPE_KEYWORDS:
            return Stmt("label", i, i + 1)
    end = _statement_end(toks, i, hi)
    return Stmt("simple", i, end)


def _statement_end(toks: list[Token], i: int, hi: int) -> int:
    j = i
    while j < hi:
        x = toks[j]
        if x.kind == PUNCT and x.text in OPEN:
            j = match_close(toks, j) + 1
            continue
        if x.text == ";":
            return j
        j += 1
    raise ParseError(f"missing ; after statement at line {toks[i].line}")


def walk(stmt: Stmt):
    """The statement and all statements nested in it, depth first."""
    yield stmt
    for child in stmt.children:
        yield from walk(child)


def local_declarations(toks: list[Token], body: Stmt) -> list[tuple[str, set[str]]]:
    """(name, keywords of its declaration) for every variable declared by a
    statement (or a for-loop header) anywhere in ``body``."""
    found: list[tuple[str, set[str]]] = []
    for stmt in walk(body):
        ranges = [(stmt.start, stmt.end)] if stmt.kind == "simple" else []
        if stmt.kind == "for" and stmt.init[1] > stmt.init[0]:
            ranges.append(stmt.init)
        for lo, hi in ranges:
            decl = parse_declaration(toks, lo, hi)
            if decl is not None:
                found.extend((toks[d.name_index].text, decl.keywords) for d in decl.declarators)
    return found
