"""The splitter's state, and the question it asks of every expression.

What the splitter knows of the kernel (its tokens, its parameters, device
globals and locals), the code it has written so far, and the variables it has
placed, scope by scope: recomputed in each region, kept in per-thread arrays,
or uniform (the same in every thread).  :meth:`SplitState.is_uniform` says
whether an expression is uniform, which decides whether a construct runs once
or once per thread.  :mod:`.split_regions`, :mod:`.split_warp` and
:mod:`.split` build the splitter on top of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count

from ....cxx.declarations import Declaration
from ....cxx.lexer import ASSIGN_OPS, IDENT, NUMBER, PUNCT, TYPE_KEYWORDS, Token
from .analysis import CASTS, PURE_FUNCTIONS, SYNC_NAMES, THREAD_NAMES, modified, unary_context


class Unsupported(Exception):
    """The kernel has a shape the splitter does not handle; run it on fibers."""


@dataclass
class Var:
    name: str
    kind: str  # uniform | remat | storage | pointer (storage of a reference)
    storage: str = ""  # per-thread array for storage/pointer
    text: str = ""  # the declaration, for remat
    decl: tuple[int, int] = (-1, -1)  # for remat: its declaration's first and last (;) tokens


@dataclass
class Ctx:
    mask: str | None  # current mask array, None: every thread that has not exited
    loop_exits: bool  # inside a masked or uniform loop that tracks break/continue


@dataclass
class SplitState:
    """The kernel as the splitter sees it, and what it has written and placed so far."""

    toks: list[Token]
    emit_slice: Callable[[int, int, dict[int, tuple[int, str]]], str]  # user text with line markers
    default_subs: dict[int, tuple[int, str]]  # rewrites that apply everywhere (markers, atomics)
    params: dict[str, str]  # name -> "uniform" | "modified"
    device_globals: frozenset[str]
    local_names: frozenset[str]  # every variable declared in the kernel body
    set_tls: bool  # also store threadIdx into the TLS variable (device functions read it)
    kernel_end: int
    out: list[str] = field(default_factory=list)
    scopes: list[dict[str, Var]] = field(default_factory=lambda: [{}])
    ids: count = field(default_factory=count)
    uses_exits: bool = False
    first_exit: int = 1 << 62  # first token of the first return/break/continue

    # ------------------------------------------------------------ scopes

    def _lookup(self, name: str) -> Var | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def _new(self, prefix: str) -> str:
        return f"__hk_{prefix}{next(self.ids)}"

    # ------------------------------------------------------------ analysis helpers

    def _text(self, lo: int, hi: int, subs: dict | None = None) -> str:
        """toks[lo:hi] on one line, with substitutions."""
        parts = []
        j = lo
        while j < hi:
            sub = (subs or {}).get(j) or self.default_subs.get(j)
            if sub is not None:
                last, replacement = sub
                parts.append(replacement)
                j = last + 1
            else:
                parts.append(self.toks[j].text)
                j += 1
        return " ".join(parts)

    def _has_sync(self, lo: int, hi: int) -> bool:
        toks = self.toks
        return any(
            toks[j].kind == IDENT and toks[j].text in SYNC_NAMES and toks[j + 1].text == "("
            for j in range(lo, min(hi, len(toks) - 1))
        )

    def _modified_after(self, name: str, lo: int, is_array: bool = False) -> bool:
        return modified(self.toks, name, lo, self.kernel_end, is_array)

    def is_uniform(self, lo: int, hi: int, allow_thread: bool, assignable=()) -> bool:
        """Whether toks[lo:hi] has the same value in every thread (or, with
        ``allow_thread``, depends only on threadIdx and such values).  Only the
        variables in ``assignable`` may be assigned."""
        toks = self.toks
        for j in range(lo, hi):
            t = toks[j]
            if t.kind == IDENT:
                if j > lo and toks[j - 1].text in (".", "->"):
                    continue
                nxt = toks[j + 1].text if j + 1 < len(toks) else ""
                if t.text in THREAD_NAMES:
                    if not allow_thread:
                        return False
                    continue
                if t.text in CASTS or t.text in TYPE_KEYWORDS:
                    continue
                if nxt == "(":
                    if t.text not in PURE_FUNCTIONS:
                        return False
                    continue
                if t.text in self.device_globals:
                    return False
                if t.text in self.params:
                    if self.params[t.text] != "uniform":
                        return False
                    continue
                var = self._lookup(t.text)
                if var is None:
                    # Not a variable the splitter placed: a local of the
                    # current region (per thread), or a name from outside the
                    # kernel (a constant, an enumerator, a template parameter).
                    if t.text in self.local_names:
                        return False
                    continue
                if var.kind == "uniform" or (var.kind == "remat" and allow_thread):
                    continue
                return False
            elif t.kind == PUNCT:
                if t.text in ("++", "--") or t.text in ASSIGN_OPS:
                    target = (
                        toks[j + 1] if t.text in ("++", "--") and toks[j - 1].kind != IDENT else toks[j - 1]
                    )
                    if target.text not in assignable:
                        return False
                    continue
                if t.text in ("[", "->"):
                    return False
                if t.text == "*" and (j == lo or unary_context(toks[j - 1])):
                    return False
            elif t.kind not in (NUMBER, "char"):
                return False
        return True

    def _scalar_with_value(self, decl: Declaration) -> bool:
        return all(
            d.init_kind == "=" and not d.is_array and not d.is_reference and self.toks[d.init[0]].text != "{"
            for d in decl.declarators
            if d.init is not None
        ) and all(d.init is not None for d in decl.declarators)

    def _used_in(self, name: str, lo: int, hi: int) -> bool:
        return any(t.text == name and t.kind == IDENT for t in self.toks[lo:hi])


def ivdep(body: str) -> str:
    """The pragma that lets the compiler vectorize a loop over threads running
    ``body``: between barriers the threads of a block are unordered (a race is
    undefined on a GPU), so the loop carries no dependence, except through an
    atomic on the block's shared memory (``::__hk::local``, exec_local_atomics.h:
    a plain load and store), where two threads of one vector may update the same
    element (a histogram's bin).  Such a loop keeps the compiler's own analysis."""
    return "" if "::__hk::local(" in body else "\n#pragma GCC ivdep\n"
