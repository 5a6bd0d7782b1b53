"""Namespace scope: the functions (kernels among them) and marked variables a
source defines, found in a token list from :mod:`hipkit.cxx.lexer` (directives
removed).  What cannot be placed is skipped; bodies stay token ranges."""

from __future__ import annotations

from dataclasses import dataclass, field

from .brackets import OPEN, find_top, match_angle, match_close, split_top
from .lexer import IDENT, TYPE_KEYWORDS, Token


@dataclass
class Param:
    start: int
    end: int  # exclusive
    name: str | None


@dataclass
class Function:
    """A function definition (or declaration, if body is None) at namespace scope."""

    decl_start: int  # first token of the declaration (template header included)
    name_index: int  # the token naming the function
    params_open: int  # index of "(" of the parameter list
    params: list[Param]
    body_open: int | None  # index of "{", or None for a declaration
    body_close: int | None
    end: int  # index of the last token ("}" or ";")
    specifiers: set[str]  # markers and keywords before the name
    template: tuple[int, int] | None  # "<" and ">" of a template header
    namespace: tuple[str, ...]
    launch_bounds: tuple[int, int] | None  # "(" and ")" of __launch_bounds__

    @property
    def name(self) -> str:
        return self._name

    @property
    def body(self) -> tuple[int, int]:
        """Indices of the body's braces (a definition's)."""
        assert self.body_open is not None and self.body_close is not None
        return self.body_open, self.body_close

    def __post_init__(self) -> None:
        self._name = ""


@dataclass
class Variable:
    """A namespace-scope variable declaration carrying a marker."""

    start: int
    end: int  # index of ";"
    names: list[int]  # indices of the declared names
    specifiers: set[str]
    namespace: tuple[str, ...]
    template: tuple[int, int] | None = None  # "<" and ">" of a variable template's header


@dataclass
class TopLevel:
    functions: list[Function] = field(default_factory=list)
    variables: list[Variable] = field(default_factory=list)
    in_class: list[tuple[int, int]] = field(default_factory=list)  # class bodies


# GCC and Clang take ``__attribute`` for ``__attribute__`` (ROCm's headers use both).
_SKIP_PARENS_AFTER = frozenset(
    "__attribute__ __attribute __declspec alignas decltype sizeof alignof noexcept __hk_launch_bounds "
    "static_assert throw __asm__ asm".split()
)


def _declarator_paren(toks: list[Token], lo: int, hi: int) -> int:
    """Index of the "(" opening a function's parameter list in a declaration, or -1."""
    j = lo
    while j < hi:
        t = toks[j]
        if t.text == "<" and j > lo and toks[j - 1].text == "template":
            j = match_angle(toks, j) + 1
            continue
        if t.text == "(":
            prev = toks[j - 1] if j > lo else None
            if prev is not None and prev.text in _SKIP_PARENS_AFTER:
                j = match_close(toks, j) + 1
                continue
            if prev is not None and (prev.kind == IDENT or prev.text in (">", "]")):
                return j
            j = match_close(toks, j) + 1
            continue
        if t.text in ("[", "{"):
            j = match_close(toks, j) + 1
            continue
        if t.text == "=":
            return -1
        j += 1
    return -1


def _param_name(toks: list[Token], lo: int, hi: int) -> str | None:
    """The name of the parameter declared by ``toks[lo:hi]``, or None if unnamed."""
    eq = find_top(toks, lo, hi, "=")
    end = eq if eq >= 0 else hi
    bracket = find_top(toks, lo, end, "[")
    if bracket >= 0:
        end = bracket
    names = []
    angle = 0
    for j in range(lo, end):
        t = toks[j]
        if t.text == "<" and j > lo and toks[j - 1].kind == IDENT:
            angle += 1
        elif t.text in (">", ">>") and angle:
            angle = max(0, angle - len(t.text))
        elif t.kind == IDENT and angle == 0:
            names.append(t)
    if len(names) < 2:
        return None
    last = names[-1]
    if last.text in TYPE_KEYWORDS or toks[end - 1] is not last:
        return None
    return last.text


def parse_params(toks: list[Token], open_index: int) -> list[Param]:
    close = match_close(toks, open_index)
    if close == open_index + 1:
        return []
    params = []
    for lo, hi in split_top(toks, open_index + 1, close, ",", angles=True):
        if hi - lo == 1 and toks[lo].text == "void":
            continue
        params.append(Param(lo, hi, _param_name(toks, lo, hi)))
    return params


def scan_top_level(toks: list[Token]) -> TopLevel:
    """Find function definitions and marked variables at namespace scope."""
    out = TopLevel()
    _scan_scope(toks, 0, len(toks), (), out)
    return out


def _scan_scope(toks: list[Token], lo: int, hi: int, ns: tuple[str, ...], out: TopLevel) -> None:
    i = lo
    while i < hi:
        start = i
        t = toks[i]
        if t.text == ";":
            i += 1
            continue
        if t.text == "namespace" or (t.text == "inline" and i + 1 < hi and toks[i + 1].text == "namespace"):
            j = i
            while j < hi and toks[j].text not in ("{", ";", "="):
                j += 1
            if j < hi and toks[j].text == "{":
                name = "".join(x.text for x in toks[i + 1 : j] if x.text != "namespace")
                close = match_close(toks, j)
                _scan_scope(toks, j + 1, close, ns + (name,), out)
                i = close + 1
                continue
            i = _skip_to_semicolon(toks, i, hi) + 1
            continue
        if t.text == "extern" and i + 2 < hi and toks[i + 1].kind == "string" and toks[i + 2].text == "{":
            close = match_close(toks, i + 2)
            _scan_scope(toks, i + 3, close, ns, out)
            i = close + 1
            continue
        # One declaration: up to ";" or a body.
        j = i
        template = None
        specifiers: set[str] = set()
        launch_bounds = None
        while j < hi:
            x = toks[j]
            if x.text == "template" and j + 1 < hi and toks[j + 1].text == "<":
                close = match_angle(toks, j + 1)
                if template is None:
                    template = (j + 1, close)
                j = close + 1
                continue
            if x.text == "__hk_launch_bounds" and j + 1 < hi and toks[j + 1].text == "(":
                launch_bounds = (j + 1, match_close(toks, j + 1))
                specifiers.add(x.text)
                j = launch_bounds[1] + 1
                continue
            if x.kind == IDENT and x.text.startswith("__hk_"):
                specifiers.add(x.text)
            elif x.text in ("extern", "static", "inline", "constexpr") or x.kind == "string":
                specifiers.add(x.text)
            if x.text in ("(", "["):
                j = match_close(toks, j) + 1
                continue
            if x.text in (";", "{", "}"):
                break
            if x.text == "=":
                j = _skip_to_semicolon(toks, j, hi)
                break
            j += 1
        if j >= hi:
            break
        end_tok = toks[j]
        if end_tok.text == "}":  # stray closer: skip it
            i = j + 1
            continue
        paren = _declarator_paren(toks, start, j)
        is_class = (
            any(toks[k].text in ("class", "struct", "union", "enum") for k in range(start, j)) and paren < 0
        )
        if end_tok.text == "{":
            close = match_close(toks, j)
            if paren >= 0 and not is_class:
                fn = _make_function(toks, start, paren, j, close, specifiers, template, ns, launch_bounds)
                out.functions.append(fn)
                i = close + 1
                continue
            if is_class:
                out.in_class.append((j, close))
            i = _skip_to_semicolon(toks, close, hi) + 1 if is_class else close + 1
            continue
        # A declaration ending in ";".
        if paren >= 0 and not is_class:
            fn = _make_function(toks, start, paren, None, None, specifiers, template, ns, launch_bounds)
            fn.end = j
            out.functions.append(fn)
        elif specifiers & {"__hk_device", "__hk_shared"}:
            out.variables.append(
                Variable(start, j, _declared_names(toks, start, j), specifiers, ns, template)
            )
        i = j + 1


def _skip_to_semicolon(toks: list[Token], i: int, hi: int) -> int:
    while i < hi and toks[i].text != ";":
        if toks[i].text in OPEN:
            i = match_close(toks, i)
        i += 1
    return i


def _make_function(
    toks, start, paren, body_open, body_close, specifiers, template, ns, launch_bounds
) -> Function:
    fn = Function(
        decl_start=start,
        name_index=paren - 1,
        params_open=paren,
        params=parse_params(toks, paren),
        body_open=body_open,
        body_close=body_close,
        end=body_close if body_close is not None else paren,
        specifiers=specifiers,
        template=template,
        namespace=ns,
        launch_bounds=launch_bounds,
    )
    name = toks[paren - 1].text
    if toks[paren - 1].text == ">":  # operator> or a template-id: not a kernel
        name = ""
    fn._name = name
    return fn


def _declared_names(toks: list[Token], lo: int, hi: int) -> list[int]:
    """Indices of the declarator names in the declaration ``toks[lo:hi]``."""
    names = []
    for a, b in split_top(toks, lo, hi, ",", angles=True):
        eq = find_top(toks, a, b, "=")
        end = eq if eq >= 0 else b
        br = find_top(toks, a, end, "[")
        if br >= 0:
            end = br
        idents = [k for k in range(a, end) if toks[k].kind == IDENT and not toks[k].text.startswith("__hk_")]
        if idents:
            names.append(idents[-1])
    return names


def param_type(toks: list[Token], param) -> str:
    """A parameter's type: its declaration without the name and default value
    (how overloaded kernels are told apart: "name(types)")."""
    end = find_top(toks, param.start, param.end, "=")
    end = param.end if end < 0 else end
    return " ".join(
        t.text
        for t in toks[param.start : end]
        if not (t.text == param.name and t.kind == IDENT) and not t.text.startswith("__hk_")
    )
