"""Guards proved the same for a whole block, and a copy of the thread loop without them.

A kernel that computes its thread's index and tests it against a size
(``int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) ...``, or
``v = i < n ? in[i] : 0``) makes every thread run the test, and GCC turns it
into masked loads and stores.  On AMD Zen 1-3 the AVX2 masked store
(``vmaskmovps``) is microcoded; on the Zen 5 development machine a masked load
streams from memory at less than half the speed of a plain one, with AVX2 and
AVX-512 alike.  Yet only the grid's last block has threads past ``n``.

For a loop kernel's body, and for each region of a split kernel, whose
top-level ``if`` (or ``?:`` in a top-level statement) compares such an index
with a value that is the same for every thread (conjuncts joined by ``&&``,
or, for an early ``return``, by ``||``), the block function evaluates each
comparison at the block's first and last thread (exec_block.h's
``guard_at_ends``, which also checks that the index grows by exactly one per
thread without wrapping, so that the comparison is monotone over the block).
Where every guard is the same at both ends, a copy of the thread loop runs
with the guards replaced by their value, and the compiler drops the masks.
The tail block runs the loop as written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ....cxx.brackets import match_close, match_open, split_top, top_indices
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import ASSIGN_OPS, IDENT
from ....cxx.statements import Stmt
from .analysis import modified
from .split_state import SplitState, Var
from .thread_index import index_form

_COMPARISONS = frozenset({"<", "<=", ">", ">="})
# Tokens before the condition of a `?:` (it binds less tightly than anything but these).
_BEFORE_CONDITION = frozenset({"(", "[", "{", ",", ";", "?", ":", "return"}) | ASSIGN_OPS


@dataclass
class Peel:
    """What a block function needs to run its guard-free copy of a thread loop."""

    check: str  # C++ condition: every guard has the same value in every thread of the block
    subs: dict[int, tuple[int, str]] = field(default_factory=dict)  # the guards as that value


@dataclass
class _Index:
    """A variable ``T v = U + threadIdx.c;``: its coordinate, its own declaration
    (C++ text) and its declaration's last token."""

    coordinate: str
    declaration: str
    end: int


def peel_guards(state: SplitState, stmts: list[Stmt], lifted: frozenset[int] = frozenset()) -> Peel | None:
    """The guards of the top-level ``if`` statements and ``?:`` conditions of
    ``stmts`` (a thread loop's body) that can be proved the same for a whole
    block, or None where there are none.  ``lifted``: the first tokens of the
    statements that run before the thread loop.  Index variables are those the
    statements declare before any statement with an effect, and those that
    every region recomputes (split kernels)."""
    indexes: dict[str, _Index] = {}
    state.scopes.append({})
    try:
        pure = True  # every statement so far declares variables without effects
        checks: list[str] = []
        subs: dict[int, tuple[int, str]] = {}
        for stmt in stmts:
            if stmt.start in lifted:
                _note_lifted(state, stmt)
                continue
            if pure and stmt.kind == "simple" and _pure_declaration(state, stmt, indexes):
                continue
            pure = False
            conditions = []
            if stmt.kind == "if":
                exits = stmt.children[0].kind == "return" and len(stmt.children) == 1
                conditions.append((stmt.cond, exits))
            elif stmt.kind == "simple":
                conditions.extend((c, False) for c in _ternary_conditions(state, stmt))
            for (lo, hi), exits in conditions:
                guard = _guard(state, lo, hi, exits, indexes, stmt.start)
                if guard is not None:
                    checks.append(guard[0])
                    subs[lo] = (hi - 1, guard[1])
        return Peel(" && ".join(checks), subs) if checks else None
    finally:
        state.scopes.pop()


def _pure_declaration(state: SplitState, stmt: Stmt, indexes: dict[str, _Index]) -> bool:
    """Whether ``stmt`` declares scalars from thread coordinates and uniform values
    only (evaluating it has no effect); records the index variables it declares."""
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
    for name, index in _indexes_declared(state, stmt.start, stmt.end).items():
        indexes[name] = index
    for d in decl.declarators:
        name = toks[d.name_index].text
        # Only inside the index's lambda: not outside the thread loop, where U is evaluated.
        state.scopes[-1][name] = Var(name, "remat")
        if name not in _indexes_declared(state, stmt.start, stmt.end):
            indexes.pop(name, None)
    return True


def _indexes_declared(state: SplitState, lo: int, hi: int) -> dict[str, _Index]:
    """The index variables ``T v = U + threadIdx.c`` (U uniform) that the
    declaration toks[lo:hi] declares."""
    toks = state.toks
    decl = parse_declaration(toks, lo, hi)
    found: dict[str, _Index] = {}
    if decl is None:
        return found
    specs = " ".join(t.text for t in toks[decl.specs[0] : decl.specs[1]])
    for d in decl.declarators:
        if d.init is None or d.init_kind != "=" or d.is_array or d.is_reference:
            continue
        form = index_form(toks, *d.init)
        if form is None or not state.is_uniform(*form[1], allow_thread=False):
            continue
        name = toks[d.name_index].text
        declarator = " ".join(t.text for t in toks[d.start : d.init[0] - 1])
        text = f"{specs} {declarator} = {state.emit_slice(d.init[0], d.init[1], {})};"
        found[name] = _Index(form[0], text, hi)
    return found


def _note_lifted(state: SplitState, stmt: Stmt) -> None:
    """The variables of a statement that runs before the thread loop (a const
    with a uniform value) are uniform where a guard's other operand reads them."""
    decl = parse_declaration(state.toks, stmt.start, stmt.end)
    if decl is not None and decl.keywords & {"const", "constexpr"} and "__hk_shared" not in decl.keywords:
        for d in decl.declarators:
            name = state.toks[d.name_index].text
            state.scopes[-1][name] = Var(name, "uniform")


def _ternary_conditions(state: SplitState, stmt: Stmt) -> list[tuple[int, int]]:
    """The conditions of the ``?:`` in a simple statement (token ranges)."""
    toks = state.toks
    found = []
    for q in range(stmt.start, stmt.end):
        if toks[q].text != "?":
            continue
        k = q - 1
        while k > stmt.start and toks[k].text not in _BEFORE_CONDITION:
            if toks[k].text in (")", "]"):
                k = match_open(toks, k)
            k -= 1
        if toks[k].text in _BEFORE_CONDITION and k + 1 < q:
            found.append((k + 1, q))
    return found


def _guard(state: SplitState, lo: int, hi: int, exits: bool, indexes, at: int) -> tuple[str, str] | None:
    """(C++ check, the condition's value in the copy) for a condition that
    compares index variables with uniform values: all of ``&&``-joined
    comparisons true, or, before a ``return``, all of ``||``-joined ones false."""
    value = 0 if exits else 1
    checks = []
    for a, b in split_top(state.toks, lo, hi, "||" if exits else "&&"):
        check = _comparison(state, a, b, indexes, at)
        if check is None:
            return None
        checks.append(f"{check} == {value}")
    return " && ".join(checks), "false" if exits else "true"


def _comparison(state: SplitState, lo: int, hi: int, indexes, at: int) -> str | None:
    """The check for one comparison ``X op U`` (or ``U op X``): a call of guard_at_ends."""
    toks = state.toks
    while toks[lo].text == "(" and match_close(toks, lo) == hi - 1:
        lo, hi = lo + 1, hi - 1
    ops = top_indices(toks, lo, hi, _COMPARISONS)
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
    is an index variable not assigned before ``at``, or an index expression."""
    toks = state.toks
    lo, hi = x
    if hi == lo + 1 and toks[lo].kind == IDENT:
        name = toks[lo].text
        index = indexes.get(name) or _remat_index(state, name)
        if index is None or modified(toks, name, index.end, at, False):
            return None
        return index.coordinate, f"[&](const hk_index3 threadIdx) {{ {index.declaration}\nreturn {name}; }}"
    form = index_form(toks, lo, hi)
    if form is None or not state.is_uniform(*form[1], allow_thread=False):
        return None
    return form[0], f"[&](const hk_index3 threadIdx) {{ return ({state.emit_slice(lo, hi, {})}); }}"


def _remat_index(state: SplitState, name: str) -> _Index | None:
    """An index variable of an earlier region, which every region recomputes."""
    var = state._lookup(name)
    if var is None or var.kind != "remat" or var.decl[0] < 0:
        return None
    return _indexes_declared(state, *var.decl).get(name)
