"""``U + threadIdx.x`` written so that the C++ compiler sees a contiguous index.

HIP's built-in coordinates are ``unsigned``: ``blockIdx.x * blockDim.x +
threadIdx.x`` is a 32-bit unsigned sum, and once converted to ``int`` and used
as an index GCC cannot prove it does not wrap inside the loop over the
block's threads, so it does not see an index that grows by one per thread: a
contiguous access becomes a gather (AVX-512) or stays scalar (AVX2, which has
no masked gather).  Each sum of a thread coordinate and another operand
becomes ``::__hk::plus_thread(U, threadIdx.x)`` (or ``thread_plus``, the
operands the other way round; exec_block.h): the same type and value, computed
in ``int`` arithmetic where it cannot wrap.

Expressions are not parsed, only delimited: the other operand is the run of
tokens that binds at least as tightly as ``+``; where a ``<`` or ``>`` might be
a template bracket, or anything else is unclear, the sum is left alone.
"""

from __future__ import annotations

from ....cxx.brackets import match_close, match_open
from ....cxx.lexer import ASSIGN_OPS, CHAR, IDENT, NUMBER, PUNCT, Token
from .analysis import SYNC_NAMES, unary_context

PLUS_THREAD = "::__hk::plus_thread("  # (U, threadIdx.c)
THREAD_PLUS = "::__hk::thread_plus("  # (threadIdx.c, U)
# Tokens that end an operand of a binary + on either side (operators that bind
# less tightly, and what cannot be inside an expression).
_BOUNDS = (
    frozenset("( ) [ ] { } ; , ? : && || | ^ == != <= >= << ...".split())
    | ASSIGN_OPS
    | frozenset({"return", "case", "else", "do", "throw", "co_return", "co_yield"})
)
# Keywords whose parenthesis belongs to a statement, not to an expression.
_STATEMENT_PARENS = frozenset({"if", "while", "for", "switch", "catch"})
_ANGLES = frozenset({"<", ">", ">>"})
_OPERAND_PUNCT = frozenset({".", "->", "::", "*", "/", "%", "+", "-", "!", "~"})


def thread_sum_rewrites(toks: list[Token], lo: int, hi: int, taken: dict[int, tuple[int, str]]):
    """Rewrites (token -> (last token, text)) of the sums ``U + threadIdx.c`` and
    ``threadIdx.c + U`` in ``toks[lo:hi]``; none that would touch a token a rewrite
    of ``taken`` covers."""
    covered = {k for j, (last, _) in taken.items() for k in range(j, last + 1)}
    subs: dict[int, tuple[int, str]] = {}
    for j in range(lo, hi - 2):
        if toks[j].text != "threadIdx" or toks[j + 1].text != "." or toks[j + 2].text not in ("x", "y", "z"):
            continue
        first, last = _parenthesized(toks, j, j + 2)
        sum_ = _sum_around(toks, first, last, lo, hi)
        if sum_ is None:
            continue
        start, plus, end = sum_
        if covered & {start, plus, end} or any(k in subs for k in (start, plus, end)):
            continue
        if any(toks[k].text in SYNC_NAMES for k in range(start, end + 1)):
            continue  # the splitter rewrites warp operations itself
        helper = PLUS_THREAD if plus == first - 1 else THREAD_PLUS
        subs[start] = (start, helper + toks[start].text)
        subs[plus] = (plus, ",")
        subs[end] = (end, toks[end].text + ")")
    return subs


def index_form(toks: list[Token], lo: int, hi: int) -> tuple[str, tuple[int, int]] | None:
    """If toks[lo:hi] is exactly ``U + threadIdx.c``, ``threadIdx.c + U`` or
    ``threadIdx.c``: the coordinate c and the range of U (empty for the bare
    coordinate), else None.  No other token of the range names threadIdx."""
    found = [j for j in range(lo, hi) if toks[j].text == "threadIdx"]
    if len(found) != 1:
        return None
    j = found[0]
    if j + 2 >= hi or toks[j + 1].text != "." or toks[j + 2].text not in ("x", "y", "z"):
        return None
    first, last = _parenthesized(toks, j, j + 2)
    if (first, last) == (lo, hi - 1):
        return toks[j + 2].text, (lo, lo)
    # The operand scans stop at the tokens around the range (`=`, `;`, `&&`, ...).
    sum_ = _sum_around(toks, first, last, lo - 1, hi + 1)
    if sum_ is None or (sum_[0], sum_[2]) != (lo, hi - 1):
        return None
    start, plus, end = sum_
    return toks[j + 2].text, ((start, plus) if plus == first - 1 else (plus + 1, end + 1))


def _parenthesized(toks: list[Token], first: int, last: int) -> tuple[int, int]:
    """``(threadIdx.x)`` (hipThreadIdx_x's expansion) as a whole, unless it is a call's argument."""
    while toks[first - 1].text == "(" and toks[last + 1].text == ")":
        before = toks[first - 2]
        if (before.kind == IDENT and before.text not in _BOUNDS) or before.text in (")", "]", ">"):
            break
        first, last = first - 1, last + 1
    return first, last


def _sum_around(toks: list[Token], first: int, last: int, lo: int, hi: int):
    """(first token, the +, last token) of the sum whose operand is the thread
    coordinate toks[first..last], or None."""
    after = toks[last + 1].text
    if after not in _BOUNDS and after not in ("+", "-", "<", ">", "&", ">>", "}"):
        return None  # something binds more tightly: `threadIdx.x * 4`
    before = toks[first - 1]
    if before.text == "+" and not unary_context(toks[first - 2]):
        start = _left_operand(toks, first - 2, lo)
        return None if start is None or start >= first - 1 else (start, first - 1, last)
    binary_and = before.text == "&" and not unary_context(toks[first - 2])
    if after == "+" and (before.text in _BOUNDS or binary_and):
        end = _right_operand(toks, last + 2, hi)
        return None if end is None or end < last + 2 else (first, last + 1, end)
    return None


def _left_operand(toks: list[Token], k: int, lo: int) -> int | None:
    """First token of the left operand of a binary + that ends at toks[k]."""
    while k >= lo:
        t = toks[k]
        if t.text in (")", "]"):
            open_ = match_open(toks, k)
            before = toks[open_ - 1]
            if before.text in _STATEMENT_PARENS:
                return k + 1
            if before.text == "}" or before.text in _ANGLES:
                return None  # a lambda's call, or a template's
            k = open_ - 1
        elif t.kind in (IDENT, NUMBER, CHAR) and t.text not in _BOUNDS:
            k -= 1
        elif t.text in _OPERAND_PUNCT or (t.text == "&" and unary_context(toks[k - 1])):
            k -= 1
        elif t.text in _BOUNDS or t.text == "&":
            return k + 1
        else:
            return None  # < > (a template?), ++, a string, ...
    return None


def _right_operand(toks: list[Token], k: int, hi: int) -> int | None:
    """Last token of the right operand of a binary + that starts at toks[k]."""
    while k < hi:
        t = toks[k]
        prev = toks[k - 1]
        operand_before = not unary_context(prev)
        if t.kind == PUNCT and t.text in ("(", "["):
            k = match_close(toks, k) + 1
        elif t.kind in (IDENT, NUMBER, CHAR) and t.text not in _BOUNDS:
            k += 1
        elif t.text in ("+", "-", "&") and operand_before:
            return k - 1  # binds less tightly than the + (or as tightly, on its right)
        elif t.text in _OPERAND_PUNCT or t.text == "&":
            k += 1
        elif t.text in _ANGLES:
            # A comparison after a member, a call or a literal; after a plain name, maybe a template.
            member = prev.kind == IDENT and toks[k - 2].text in (".", "->")
            return k - 1 if member or prev.text in (")", "]") or prev.kind == NUMBER else None
        elif t.text in _BOUNDS:
            return k - 1
        else:
            return None
    return None
