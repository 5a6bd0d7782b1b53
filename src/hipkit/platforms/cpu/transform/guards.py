"""Guards proved the same for a whole block, and a copy of the thread loop without them.

A kernel that computes its thread's index and tests it against a size
(``int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) ...``) makes
every thread run the test, and GCC turns it into masked loads and stores.  On
AVX-512 those cost what plain ones do; on AVX2 the masked store
(``vmaskmovps``) is microcoded on AMD Zen 1-3.  Yet only the grid's last block
has threads past ``n``.

For a loop kernel whose top-level ``if`` compares such an index with a value
that is the same for every thread (conjuncts joined by ``&&``, or, for an
early ``return``, by ``||``), the block function evaluates each comparison at
the block's first and last thread (exec_block.h's ``guard_at_ends``, which
also checks that the index grows by exactly one per thread without wrapping,
so that the comparison is monotone over the block).  Where every guard is the
same at both ends, a copy of the loop runs with the guards replaced by their
value; the compiler then drops the masks.  The tail block runs the loop as
written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ....cxx.brackets import match_close, split_top
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import IDENT
from ....cxx.statements import Stmt
from .analysis import modified
from .split_state import SplitState, Var
from .thread_index import index_form

_COMPARISONS = frozenset({"<", "<=", ">", ">="})


@dataclass
class Peel:
    """What a block function needs to run its guard-free copy of the thread loop."""

    check: str  # C++ condition: every guard has the same value in every thread of the block
    subs: dict[int, tuple[int, str]] = field(default_factory=dict)  # the guards as that value


@dataclass
class _Index:
    """A top-level variable ``T v = U + threadIdx.c;``: its coordinate, and the
    pure declarations from the top of the body up to its own (token ranges)."""

    coordinate: str
    declarations: list[tuple[int, int]]


def peel_guards(state: SplitState, body: Stmt, lifted: set[int]) -> Peel | None:
    """The guards of ``body``'s top-level ``if`` statements that can be proved the
    same for a whole block, or None where there are none.  ``lifted``: the first
    tokens of the statements that run before the thread loop."""
    indexes: dict[str, _Index] = {}
    declarations: list[tuple[int, int]] = []
    state.scopes.append({})
    try:
        pure = True  # every statement so far is a declaration without effects
        checks: list[str] = []
        subs: dict[int, tuple[int, str]] = {}
        for stmt in body.children:
            if stmt.start in lifted:
                _note_lifted(state, stmt)
                continue
            if pure and stmt.kind == "simple" and _pure_declaration(state, stmt, declarations, indexes):
                continue
            pure = False
            if stmt.kind == "if":
                guard = _guard(state, stmt, indexes)
                if guard is not None:
                    checks.append(guard[0])
                    subs[stmt.cond[0]] = (stmt.cond[1] - 1, guard[1])
        return Peel(" && ".join(checks), subs) if checks else None
    finally:
        state.scopes.pop()


def _pure_declaration(
    state: SplitState, stmt: Stmt, declarations: list[tuple[int, int]], indexes: dict[str, _Index]
) -> bool:
    """Whether ``stmt`` declares scalars from thread coordinates and uniform values
    only (evaluating it has no effect); records it, and the index variables it declares."""
    toks = state.toks
    decl = parse_declaration(toks, stmt.start, stmt.end)
    if decl is None or decl.keywords & {"static", "extern", "__hk_shared"}:
        return False
    if not state._scalar_with_value(decl):
        return False
    for d in decl.declarators:
        assert d.init is not None
        if not state.is_uniform(d.init[0], d.init[1], allow_thread=True):
            return False
    declarations.append((stmt.start, stmt.end + 1))
    scope = state.scopes[-1]
    for d in decl.declarators:
        assert d.init is not None
        name = toks[d.name_index].text
        # Only inside the index's lambda: not outside the thread loop, where U is evaluated.
        scope[name] = Var(name, "remat")
        form = index_form(toks, *d.init)
        if form is not None and state.is_uniform(*form[1], allow_thread=False):
            indexes[name] = _Index(form[0], list(declarations))
        else:
            indexes.pop(name, None)
    return True


def _note_lifted(state: SplitState, stmt: Stmt) -> None:
    """The variables of a statement that runs before the thread loop (a const
    with a uniform value) are uniform where a guard's other operand reads them."""
    decl = parse_declaration(state.toks, stmt.start, stmt.end)
    if decl is not None and decl.keywords & {"const", "constexpr"} and "__hk_shared" not in decl.keywords:
        for d in decl.declarators:
            name = state.toks[d.name_index].text
            state.scopes[-1][name] = Var(name, "uniform")


def _guard(state: SplitState, stmt: Stmt, indexes: dict[str, _Index]) -> tuple[str, str] | None:
    """(C++ check, the condition's value in the copy) for an ``if`` whose condition
    compares index variables with uniform values: all of ``&&``-joined
    comparisons true, or, before a ``return``, all of ``||``-joined ones false."""
    lo, hi = stmt.cond
    exits = stmt.children[0].kind == "return" and len(stmt.children) == 1
    value = 0 if exits else 1
    parts = split_top(state.toks, lo, hi, "||" if exits else "&&")
    checks = []
    for a, b in parts:
        check = _comparison(state, a, b, indexes, stmt.start)
        if check is None:
            return None
        checks.append(f"{check} == {value}")
    return " && ".join(checks), "false" if exits else "true"


def _comparison(state: SplitState, lo: int, hi: int, indexes: dict[str, _Index], at: int) -> str | None:
    """The check for one comparison ``X op U`` (or ``U op X``): a call of guard_at_ends."""
    toks = state.toks
    while toks[lo].text == "(" and match_close(toks, lo) == hi - 1:
        lo, hi = lo + 1, hi - 1
    ops = [j for j in range(lo, hi) if toks[j].text in _COMPARISONS and _depth0(toks, lo, j)]
    if len(ops) != 1:
        return None
    op = ops[0]
    left, right = (lo, op), (op + 1, hi)
    for x, u, template in ((left, right, "__hk_x {} __hk_u"), (right, left, "__hk_u {} __hk_x")):
        if not state.is_uniform(*u, allow_thread=False):
            continue
        index = _index_of(state, x, indexes, at)
        if index is None:
            continue
        coordinate, probe = index
        test = template.format(toks[op].text)
        compare = f"[](const auto& __hk_x, const auto& __hk_u) {{ return {test}; }}"
        u_text = state.emit_slice(u[0], u[1], {})
        return f"::__hk::guard_at_ends(__hk_b, {'xyz'.index(coordinate)}, {probe}, ({u_text}), {compare})"
    return None


def _index_of(state: SplitState, x: tuple[int, int], indexes: dict[str, _Index], at: int):
    """(coordinate, C++ lambda computing the index at a given thread) if toks[x]
    is an index variable not assigned before ``at`` or an index expression."""
    toks = state.toks
    lo, hi = x
    if hi == lo + 1 and toks[lo].kind == IDENT and toks[lo].text in indexes:
        index = indexes[toks[lo].text]
        if modified(toks, toks[lo].text, index.declarations[-1][1], at, False):
            return None
        decls = "".join(state.emit_slice(a, b, {}) for a, b in index.declarations)
        return index.coordinate, f"[&](const hk_index3 threadIdx) {{ {decls}\nreturn {toks[lo].text}; }}"
    form = index_form(toks, lo, hi)
    if form is None or not state.is_uniform(*form[1], allow_thread=False):
        return None
    return form[0], f"[&](const hk_index3 threadIdx) {{ return ({state.emit_slice(lo, hi, {})}); }}"


def _depth0(toks, lo: int, j: int) -> bool:
    depth = 0
    for k in range(lo, j):
        if toks[k].text in ("(", "[", "{"):
            depth += 1
        elif toks[k].text in (")", "]", "}"):
            depth -= 1
    return depth == 0
