"""Regions that only some threads run: loops over just those threads.

A barrier-free region whose work is one ``if`` that selects threads by their x
index -- ``if (tid < stride) s[tid] += s[tid + stride];``, ``if (lane == 0)
warp_sums[warp] = v;``, ``if (threadIdx.x == 0) ...`` -- otherwise runs as a
loop over every thread of the block that tests the condition in each: masked
loads and stores on AVX-512, a branch per thread on AVX2.  When the
condition's conjuncts each compare the x index (``threadIdx.x``, or a variable
initialized with it) with a value the same in every thread, or compare
``threadIdx.x % C`` with one, the threads that take the branch are a range, or
every C-th thread of one.  The block function finds it at run time
(exec_thread_set.h: a binary search of each comparison, which it first checks
is monotone over the block) and loops over just those threads, the condition
replaced by ``true``; where it cannot (a 2-D block, a narrow variable, a
negative residue), the region runs as written.
"""

from __future__ import annotations

from ....cxx.brackets import match_close, split_top, top_indices
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import IDENT
from ....cxx.statements import Stmt
from .split_state import SplitState, ivdep

_COMPARISON = {
    "<": "::__hk::comparison::less",
    "<=": "::__hk::comparison::less_equal",
    ">": "::__hk::comparison::greater",
    ">=": "::__hk::comparison::greater_equal",
}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}


def thread_set_loop(
    state: SplitState, region: list[Stmt], subs: dict, wrap, loop: str, mask: str | None = None
) -> str | None:
    """The C++ that runs ``region`` over just the threads its last statement's
    ``if`` selects, falling back to ``loop`` (the region over every thread, or
    over those of ``mask``, the enclosing construct's), or None if the region
    does not have that shape.  ``wrap(text)`` is the per-thread code of the
    region around its statements' text."""
    toks = state.toks
    *before, last = region
    if last.kind != "if" or len(last.children) != 1:
        return None
    decls: dict[str, tuple[str, tuple[int, int]]] = {}  # name -> (its own declaration, initializer)
    for stmt in before:
        if not _pure_declarations(state, stmt, decls):
            return None
    conjuncts = []
    for lo, hi in split_top(toks, last.cond[0], last.cond[1], "&&"):
        conjunct = _conjunct(state, lo, hi, decls)
        if conjunct is None:
            return None
        conjuncts.append(conjunct)
    # Residues narrow the range last: their first thread depends on it.
    conjuncts.sort(key=lambda c: c.startswith("::__hk::residue"))
    lo, hi = region[0].start, region[-1].end + 1
    fast = wrap(state.emit_slice(lo, hi, {**subs, last.cond[0]: (last.cond[1] - 1, "true")}))
    s = state._new("s")
    within = f"::__hk::thread_set_in(__hk_b, {mask}, " if mask else "::__hk::thread_set_of(__hk_b, "
    tls = "::__hk::set_thread(threadIdx); " if state.set_tls else ""
    head = f"const hk_index3 threadIdx = {{static_cast<unsigned>(__t), 0, 0}}; {tls}"
    return (
        f"{{ const ::__hk::thread_set {s} = {within}{', '.join(conjuncts)});\n"
        f"if ({s}.step == 1) {{{ivdep(fast)}"
        f"for (int __t = {s}.lo; __t < {s}.hi; ++__t) {{ {head}\n{fast}\n}}\n"
        f"}} else if ({s}.step > 1) {{\n"
        f"for (int __t = {s}.lo; __t < {s}.hi; __t += {s}.step) {{ {head}\n{fast}\n}}\n"
        f"}} else {{\n{loop}\n}} }}"
    )


def _pure_declarations(state: SplitState, stmt: Stmt, decls: dict) -> bool:
    """Whether ``stmt`` declares scalars from thread coordinates and uniform values
    only, so that threads that skip it lose nothing; records its variables."""
    toks = state.toks
    decl = parse_declaration(toks, stmt.start, stmt.end) if stmt.kind == "simple" else None
    if (
        decl is None
        or decl.keywords & {"static", "extern", "__hk_shared"}
        or not state._scalar_with_value(decl)
    ):
        return False
    specs = " ".join(t.text for t in toks[decl.specs[0] : decl.specs[1]])
    for d in decl.declarators:
        assert d.init is not None
        if not state.is_uniform(d.init[0], d.init[1], allow_thread=True) or any(
            toks[k].text in decls for k in range(*d.init)
        ):
            return False
        name = toks[d.name_index].text
        declarator = " ".join(t.text for t in toks[d.start : d.init[0] - 1])
        decls[name] = (f"{specs} {declarator} = {state.emit_slice(d.init[0], d.init[1], {})};", d.init)
    return True


def _conjunct(state: SplitState, lo: int, hi: int, decls: dict) -> str | None:
    """The C++ of one conjunct for thread_set_of, or None."""
    toks = state.toks
    while toks[lo].text == "(" and match_close(toks, lo) == hi - 1:
        lo, hi = lo + 1, hi - 1
    ops = top_indices(toks, lo, hi, (*_COMPARISON, "=="))
    if len(ops) != 1:
        return None
    op = ops[0]
    for x, k, text in (
        ((lo, op), (op + 1, hi), toks[op].text),
        ((op + 1, hi), (lo, op), _FLIPPED[toks[op].text]),
    ):
        if not state.is_uniform(*k, allow_thread=False):
            continue
        index = _index(state, x, decls)
        if index is None:
            continue
        kind, decl, init, modulus = index
        holds = _lambda("bool", decl, state.emit_slice(lo, hi, {}))
        x_at = _lambda("auto", decl, state.emit_slice(*x, {}))
        if kind == "residue":
            if text != "==":
                return None
            return f"::__hk::residue({x_at}, {holds}, ({modulus}), ({state.emit_slice(*k, {})}))"
        init_at = _lambda("auto", "", init)
        value = state.emit_slice(*k, {})
        if text != "==":
            return f"::__hk::compare({x_at}, {init_at}, {holds}, ({value}), {_COMPARISON[text]})"
        # X == K: X <= K (a prefix) and X >= K (a suffix).
        halves = []
        for half in ("<=", ">="):
            swapped = state.emit_slice(lo, hi, {op: (op, half if x[0] == lo else _FLIPPED[half])})
            test = _lambda("bool", decl, swapped)
            halves.append(f"::__hk::compare({x_at}, {init_at}, {test}, ({value}), {_COMPARISON[half]})")
        return ", ".join(halves)
    return None


def _index(state: SplitState, x: tuple[int, int], decls: dict):
    """(kind, declaration, initializer text, modulus) if toks[x] is threadIdx.x,
    a variable initialized with it ("monotone"), or one initialized with
    ``threadIdx.x % C`` ("residue")."""
    toks = state.toks
    lo, hi = x
    if _is_thread_x(toks, lo, hi):
        return "monotone", "", state.emit_slice(lo, hi, {}), ""
    if hi != lo + 1 or toks[lo].kind != IDENT:
        return None
    found = decls.get(toks[lo].text) or _remat_declaration(state, toks[lo].text)
    if found is None:
        return None
    decl, (a, b) = found
    if _is_thread_x(toks, a, b):
        return "monotone", decl, state.emit_slice(a, b, {}), ""
    percent = top_indices(toks, a, b, ("%",))
    if len(percent) == 1 and _is_thread_x(toks, a, percent[0]):
        modulus = (percent[0] + 1, b)
        if state.is_uniform(*modulus, allow_thread=False):
            return "residue", decl, "", state.emit_slice(*modulus, {})
    return None


def _remat_declaration(state: SplitState, name: str):
    """(own declaration, initializer) of a variable of an earlier region that
    each region recomputes, or None."""
    var = state._lookup(name)
    if var is None or var.kind != "remat" or var.decl[0] < 0:
        return None
    found: dict = {}
    if not _pure_declarations(state, Stmt("simple", *var.decl), found):
        return None
    return found.get(name)


def _is_thread_x(toks, lo: int, hi: int) -> bool:
    while hi - lo > 3 and toks[lo].text == "(" and match_close(toks, lo) == hi - 1:
        lo, hi = lo + 1, hi - 1
    return hi - lo == 3 and [t.text for t in toks[lo:hi]] == ["threadIdx", ".", "x"]


def _lambda(result: str, decl: str, expr: str) -> str:
    arrow = " -> bool" if result == "bool" else ""
    return f"[&](const hk_index3 threadIdx){arrow} {{ {decl}\nreturn {expr}; }}"
