"""Just enough C++ structure for hipkit's source transforms and kernel discovery.

Works on a token list from :mod:`hipkit.lexer` (directives removed): finds
function definitions and variable declarations at namespace scope, and parses
function bodies into statements (compound, if, loops, switch, jumps, simple
statements).  Expressions are never parsed; they stay token ranges.  Anything
this module cannot place is reported as "opaque", and the transform then
falls back to the most general execution mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .lexer import IDENT, PUNCT, Token

OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")", "]", "}"}

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


# ---------------------------------------------------------------- namespace scope


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


@dataclass
class TopLevel:
    functions: list[Function] = field(default_factory=list)
    variables: list[Variable] = field(default_factory=list)
    in_class: list[tuple[int, int]] = field(default_factory=list)  # class bodies


_SKIP_PARENS_AFTER = frozenset(
    "__attribute__ __declspec alignas decltype sizeof alignof noexcept __hk_launch_bounds "
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
            out.variables.append(Variable(start, j, _declared_names(toks, start, j), specifiers, ns))
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


# ---------------------------------------------------------------- statements


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


# ---------------------------------------------------------------- declarations


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
