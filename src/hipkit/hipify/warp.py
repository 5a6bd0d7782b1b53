"""The warp-size rules: code that assumes 32 lanes per warp, and ``--fix-warp-size``.

AMD Instinct GPUs run 64 lanes per wavefront, and HIP's lane masks are 64-bit.  The rules:

warp-size-arith
    ``x & 31``, ``x % 32``, ``x >> 5``, ``x / 32`` (and ``&=``, ``%=``, ``>>=``, ``/=``) where
    the left operand names ``threadIdx`` or ``blockDim`` (anywhere), or a lane- or thread-id-like
    variable (``lane``, ``laneId``, ``lane_id``, ``tid``, ``ltid``, ``thread_id``, ``threadIdx_x``,
    ...) in device code or a macro.  Other arithmetic by 32 is left alone.
warp-shuffle-loop
    ``for (o = 16; o > 0; o /= 2)`` (or ``>>= 1``) and ``for (o = 1; o < 32; o *= 2)`` (or
    ``<<= 1``) whose body calls a ``__shfl*`` function.
warp-size-constant
    ``#define WARP_SIZE 32``, ``constexpr int kWarpSize = 32`` and the like.
lane-mask-32
    a ballot (``__ballot_sync``, ``__ballot``, ``__activemask``, ``__match_*_sync``) declared
    into a 32-bit integer; ``__popc``/``__ffs``/``__clz``/``__brev`` of a ballot.
mask-32-sync
    ``0xffffffff`` or ``~0u`` as the mask of a ``_sync`` function, or a 32-bit variable,
    parameter or macro holding the mask.

What ``--fix-warp-size`` rewrites (everything else is reported): ``% 32`` → ``% warpSize``,
``/ 32`` → ``/ warpSize``, ``& 31`` → ``& (warpSize - 1)`` (the same value for any power of
two), and ``>> 5`` → ``/ warpSize`` where the operand is a single term and nothing binding
tighter follows (thread indices are never negative, so the shift and the division agree),
in device code or where the operand names ``threadIdx``/``blockDim`` (``warpSize`` exists only
in device code); shuffle loops' ``16`` → ``warpSize / 2`` and ``32`` → ``warpSize`` when no
shuffle in the loop passes its own width; ``unsigned``/``uint32_t`` ballot and mask variables
→ ``unsigned long long``/``uint64_t``; ``__popc(ballot)`` → ``__popcll`` (``__ffsll``,
``__clzll``, ``__brevll``); ``0xffffffff`` masks (literals, initializers of mask variables,
``#define`` values) → ``0xffffffffffffffffull``.  Not rewritten: warp-size constants (they size
arrays and template arguments), signed mask variables, mask parameters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..cxx.brackets import ParseError, match_close, split_top
from ..cxx.launch import open_bracket
from ..cxx.lexer import DIRECTIVE, IDENT, NUMBER, Token

if TYPE_CHECKING:
    from .analysis import Analysis

__all__ = ["HANDLERS", "Declaration", "define", "ballot"]

FULL_MASK_64 = "0xffffffffffffffffull"
SYNC_FUNCTIONS = frozenset(
    "__shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync __ballot_sync __any_sync __all_sync "
    "__uni_sync __match_any_sync __match_all_sync __reduce_add_sync __reduce_min_sync __reduce_max_sync "
    "__reduce_and_sync __reduce_or_sync __reduce_xor_sync __syncwarp".split()
)
BALLOTS = frozenset("__ballot_sync __ballot __activemask __match_any_sync __match_all_sync".split())
BIT_COUNTS = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll"}

_QUALIFIERS = frozenset({"const", "volatile", "static", "register", "constexpr", "__shared__", "__device__"})
_TYPE_WORDS = _QUALIFIERS | frozenset(
    "unsigned signed int long short char auto uint uint32_t int32_t uint64_t int64_t size_t std ::".split()
)
_THIRTY_TWO = {
    ("unsigned",): "unsigned long long",
    ("unsigned", "int"): "unsigned long long",
    ("uint32_t",): "uint64_t",
    ("std", "::", "uint32_t"): "std::uint64_t",
    ("uint",): "",
    ("int",): "",
    ("signed",): "",
    ("signed", "int"): "",
    ("int32_t",): "",
    ("std", "::", "int32_t"): "",
}  # 32-bit integer types, and the 64-bit type a fix writes ("": none; signedness would change)

_STRONG = frozenset({"threadIdx", "blockDim"})
_LANE_LIKE = re.compile(
    r"(?:^|_)(?:lane|LANE)|Lane"
    r"|^(?:l|g|local_?|global_?|my_?)?(?:tid|TID)(?:_?[xyzXYZ])?$|_tid$|^tid_"
    r"|^thread_?(?:[iI]d|[iI]dx|ID|IDX)(?:_?[xyzXYZ])?$|^t_?idx$"
)
_WARP_NAME = re.compile(r"(?i)warp_?size|warpsz|lanes_?per_?warp|threads_?per_?warp")
_ALWAYS_STOP = frozenset("; { } , ? : = += -= *= /= %= &= |= ^= <<= >>= return case && || <<< >>>".split())
_STOPS = {
    "mul": _ALWAYS_STOP | frozenset("+ - << >> < > <= >= == != & ^ |".split()),
    "shift": _ALWAYS_STOP | frozenset("<< >> < > <= >= == != & ^ |".split()),
    "and": _ALWAYS_STOP | frozenset("& == != ^ |".split()),
    "assign": _ALWAYS_STOP,
}
# (operator, value): the operator's precedence class and what --fix-warp-size writes for
# the operator and the literal.
_ARITH = {
    ("%", 32): ("mul", "%", "warpSize"),
    ("/", 32): ("mul", "/", "warpSize"),
    ("&", 31): ("and", "&", "(warpSize - 1)"),
    (">>", 5): ("shift", "/", "warpSize"),
    ("%=", 32): ("assign", "%=", "warpSize"),
    ("/=", 32): ("assign", "/=", "warpSize"),
    ("&=", 31): ("assign", "&=", "(warpSize - 1)"),
    (">>=", 5): ("assign", "/=", "warpSize"),
}
_TIGHTER_THAN_SHIFT = frozenset("+ - * / %".split())
_HALVING = ({"/=": "2"}, {">>=": "1"}, {"/": "2"}, {">>": "1"})
_DOUBLING = ({"*=": "2"}, {"<<=": "1"}, {"*": "2"}, {"<<": "1"})
_MASK_BODY = re.compile(r"\s*\(?\s*(0[xX][fF]{8}[uU]?|~0[uU]?)\s*\)?\s*(?://.*|/\*.*\*/)?\s*$", re.DOTALL)
_THIRTY_TWO_BODY = re.compile(r"\s*\(?\s*(?:32|0[xX]20)[uU]?\s*\)?\s*(?://.*|/\*.*\*/)?\s*$", re.DOTALL)


@dataclass(frozen=True)
class Declaration:
    """A 32-bit integer variable declared with an initializer: where its type and its
    ``0xffffffff`` initializer (if that is what it is) are, and the 64-bit type to write."""

    name: str
    offset: int  # of the name
    type_span: tuple[int, int]
    wide: str  # "" when not to be widened
    full_mask: tuple[int, int] | None  # offsets of a 0xffffffff initializer


def value(text: str) -> int | None:
    """The value of an integer literal token, or None."""
    digits = text.replace("'", "").rstrip("uUlLzZ")
    try:
        return int(digits, 0)
    except ValueError:
        return int(digits) if digits.isdigit() else None


def _src(a: Analysis, toks: list[Token], lo: int, hi: int, base: int) -> str:
    return " ".join(a.text[base + toks[lo].start : base + toks[hi - 1].end].split())


def _operand(toks: list[Token], op: int, stops: frozenset[str]) -> int:
    """Index of the first token of the operand left of the operator at ``toks[op]``."""
    j = op - 1
    while j >= 0:
        t = toks[j]
        if t.text in (")", "]"):
            j = open_bracket(toks, j)
            if j < 0:
                return op
        elif t.text in ("(", "[") or t.text in stops or t.kind == DIRECTIVE:
            break
        j -= 1
    return j + 1


def _names(toks: list[Token], lo: int, hi: int) -> list[str]:
    return [
        t.text
        for k, t in enumerate(toks[lo:hi], lo)
        if t.kind == IDENT and (k == 0 or toks[k - 1].text not in (".", "->"))
    ]


def literal(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    v = value(toks[i].text)
    prev = toks[i - 1].text if i else ""
    arith = _ARITH.get((prev, v))  # type: ignore[arg-type]
    if arith is not None:
        _arith(a, toks, i, base, macro, arith)
    elif prev == "=" and v == 16:
        _loop(a, toks, i, base, down=True)
    elif prev == "<" and v == 32:
        _loop(a, toks, i, base, down=False)
    elif (
        prev == "="
        and v == 32
        and i >= 2
        and toks[i - 2].kind == IDENT
        and _WARP_NAME.search(toks[i - 2].text)
    ):
        name = toks[i - 2].text
        a.report(
            base + toks[i - 2].start, "warp-size-constant", f"'{name} = 32' fixes the warp size at 32 lanes"
        )


def _arith(
    a: Analysis, toks: list[Token], i: int, base: int, macro: bool, arith: tuple[str, str, str]
) -> None:
    kind, new_op, new_value = arith
    op = i - 1
    lo = _operand(toks, op, _STOPS[kind])
    if lo >= op:
        return
    names = _names(toks, lo, op)
    strong = any(n in _STRONG for n in names)
    in_device = macro or bool(a.device_kind(i))
    if not (strong or (in_device and any(_LANE_LIKE.search(n) for n in names))):
        return
    expression = _src(a, toks, lo, i + 1, base)
    message = f"'{expression}' assumes 32 lanes per warp"
    fixable = a.fix and (strong or (in_device and not macro))
    if fixable and toks[op].text in (">>", ">>="):
        after = toks[i + 1].text if i + 1 < len(toks) else ""
        fixable = _single_term(toks, lo, op) and after not in _TIGHTER_THAN_SHIFT
    if not fixable:
        a.report(base + toks[op].start, "warp-size-arith", message)
        return
    if new_op != toks[op].text:
        a.edit(base + toks[op].start, base + toks[op].end, new_op)
    a.edit(base + toks[i].start, base + toks[i].end, new_value)
    message += f": rewritten as '{new_op} {new_value}'"
    a.report(base + toks[op].start, "warp-size-arith", message, fixed=True)


def _single_term(toks: list[Token], lo: int, hi: int) -> bool:
    """Whether ``toks[lo:hi]`` has no operator outside brackets (``(tid + 1)``, ``threadIdx.x``)."""
    depth = 0
    for t in toks[lo:hi]:
        if t.text in ("(", "["):
            depth += 1
        elif t.text in (")", "]"):
            depth -= 1
        elif depth == 0 and t.kind not in (IDENT, NUMBER) and t.text not in (".", "->", "::"):
            return False
    return True


def _loop(a: Analysis, toks: list[Token], i: int, base: int, down: bool) -> None:
    """``for (int o = 16; o > 0; o /= 2)`` or ``for (int o = 1; o < 32; o *= 2)`` with a
    shuffle in its body; ``toks[i]`` is the 16 or the 32."""
    paren = i - 1
    while paren >= 0 and toks[paren].text != "(" and i - paren < 8:
        paren -= 1
    if paren < 1 or toks[paren].text != "(" or toks[paren - 1].text != "for":
        return
    try:
        close = match_close(toks, paren)
        parts = split_top(toks, paren + 1, close, sep=";")
    except ParseError:
        return
    if len(parts) != 3:
        return
    (init_lo, init_hi), (cond_lo, cond_hi), (step_lo, step_hi) = parts
    if down:
        if not init_lo < i < init_hi or toks[i - 2].kind != IDENT:
            return
        var = toks[i - 2].text
        if var not in _names(toks, cond_lo, cond_hi):
            return
    else:
        if not cond_lo < i < cond_hi or toks[i - 2].kind != IDENT:
            return
        var = toks[i - 2].text
    if not _steps(toks, step_lo, step_hi, var, _HALVING if down else _DOUBLING):
        return
    body_lo = close + 1
    try:
        body_hi = match_close(toks, body_lo) if toks[body_lo].text == "{" else _statement_end(toks, body_lo)
    except (ParseError, IndexError):
        return
    shuffles = [
        k for k in range(body_lo, body_hi) if toks[k].text.startswith("__shfl") and toks[k].kind == IDENT
    ]
    if not shuffles:
        return
    literal_text = toks[i].text
    message = (
        f"a shuffle loop from {literal_text} down covers 32 lanes"
        if down
        else f"a shuffle loop up to {literal_text} covers 32 lanes"
    )
    if a.fix and not any(_has_width(toks, k) for k in shuffles):
        new = "warpSize / 2" if down else "warpSize"
        a.edit(base + toks[i].start, base + toks[i].end, new)
        a.report(base + toks[i].start, "warp-shuffle-loop", f"{message}: rewritten as '{new}'", fixed=True)
    else:
        a.report(base + toks[i].start, "warp-shuffle-loop", message)


def _steps(toks: list[Token], lo: int, hi: int, var: str, forms: tuple[dict[str, str], ...]) -> bool:
    """Whether ``toks[lo:hi]`` is ``var OP= N`` or ``var = var OP N`` for one of ``forms``."""
    texts = [t.text for t in toks[lo:hi]]
    if len(texts) == 3 and texts[0] == var:
        return any(form.get(texts[1]) == texts[2] for form in forms)
    if len(texts) == 5 and texts[0] == var and texts[1] == "=" and texts[2] == var:
        return any(form.get(texts[3]) == texts[4] for form in forms)
    return False


def _statement_end(toks: list[Token], lo: int) -> int:
    j = lo
    while toks[j].text != ";":
        j = match_close(toks, j) + 1 if toks[j].text in ("(", "[", "{") else j + 1
    return j


def _has_width(toks: list[Token], k: int) -> bool:
    """Whether the shuffle call at ``toks[k]`` passes its own width."""
    if k + 1 >= len(toks) or toks[k + 1].text != "(":
        return False
    try:
        args = split_top(toks, k + 2, match_close(toks, k + 1))
    except ParseError:
        return True
    return len(args) >= (4 if toks[k].text.endswith("_sync") else 3)


def define(a: Analysis, name: str, body: str, offset: int) -> None:
    """``#define NAME VALUE`` (``offset``: where ``body`` starts in the source)."""
    if _WARP_NAME.search(name) and _THIRTY_TWO_BODY.match(body):
        message = f"'#define {name} 32' fixes the warp size at 32 lanes"
        a.report(offset - len(name), "warp-size-constant", message)
        return
    m = _MASK_BODY.match(body)
    if m:
        a.macros[name] = (offset + m.start(1), m.group(1))


def _declared_type(toks: list[Token], end: int) -> tuple[int, tuple[str, ...]]:
    """The type words before ``toks[end]`` (a declared name): index of the first, the words
    without qualifiers."""
    k = end - 1
    while k >= 0 and toks[k].text in _TYPE_WORDS:
        k -= 1
    words = tuple(t.text for t in toks[k + 1 : end] if t.text not in _QUALIFIERS)
    first = k + 1
    while first < end and toks[first].text in _QUALIFIERS:
        first += 1
    return first, words


def declaration(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    """``TYPE name = init``: remember 32-bit integer variables (``toks[i]`` is the ``=``)."""
    if i < 2 or toks[i - 1].kind != IDENT or toks[i - 2].text not in _TYPE_WORDS:
        return
    first, words = _declared_type(toks, i - 1)
    wide = _THIRTY_TWO.get(words)
    if wide is None:
        return
    mask = None
    if i + 2 < len(toks) and toks[i + 1].kind == NUMBER and toks[i + 2].text in (";", ","):
        if value(toks[i + 1].text) == 0xFFFFFFFF:
            mask = (base + toks[i + 1].start, base + toks[i + 1].end)
    name = toks[i - 1].text
    span = (base + toks[first].start, base + toks[i - 2].end)
    a.decls[name] = Declaration(name, base + toks[i - 1].start, span, wide, mask)


def ballot(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    """A ballot's result declared into a 32-bit integer (``toks[i]`` is the ballot's name)."""
    if i + 1 >= len(toks) or toks[i + 1].text != "(" or i < 3 or toks[i - 1].text != "=":
        return
    if toks[i - 2].kind != IDENT:
        return
    name = toks[i - 2].text
    first, words = _declared_type(toks, i - 2)
    if not words:
        return
    a.ballot_vars.add(name)
    wide = _THIRTY_TWO.get(words)
    if wide is None:
        return
    type_text = " ".join(words).replace(" :: ", "::")
    message = f"'{toks[i].text}' returns a 64-bit mask in HIP; '{name}' is a 32-bit '{type_text}'"
    start, end = base + toks[first].start, base + toks[i - 3].end
    if a.fix and wide:
        a.edit(start, end, wide)
        a.report(start, "lane-mask-32", f"{message}: rewritten as '{wide}'", fixed=True)
    else:
        a.report(start, "lane-mask-32", message)


def bit_count(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    """``__popc(ballot)``: counts the low 32 lanes only."""
    if i + 1 >= len(toks) or toks[i + 1].text != "(" or toks[i - 1].text in (".", "->"):
        return
    try:
        close = match_close(toks, i + 1)
    except ParseError:
        return
    arg = toks[i + 2 : close]
    if len(arg) == 1 and arg[0].text in a.ballot_vars:
        what = f"the ballot '{arg[0].text}'"
    elif (
        len(arg) >= 3
        and arg[0].text in BALLOTS
        and arg[1].text == "("
        and match_close(toks, i + 3) == close - 1
    ):
        what = f"'{arg[0].text}(...)'"
    else:
        return
    new = BIT_COUNTS[toks[i].text]
    message = f"'{toks[i].text}' of {what} sees only 32 of HIP's 64 mask bits"
    start = base + toks[i].start
    if a.fix:
        a.edit(start, start + len(toks[i].text), new)
        a.report(start, "lane-mask-32", f"{message}: rewritten as '{new}'", fixed=True)
    else:
        a.report(start, "lane-mask-32", f"{message}; use '{new}'")


def sync_call(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    """The mask argument of a ``_sync`` function (``toks[i]`` is its name)."""
    if i + 2 >= len(toks) or toks[i + 1].text != "(" or toks[i - 1].text in (".", "->"):
        return
    try:
        lo, hi = split_top(toks, i + 2, match_close(toks, i + 1))[0]
    except ParseError:
        return
    arg = toks[lo:hi]
    func = toks[i].text
    if not arg:
        return
    start = base + arg[0].start
    full = len(arg) == 1 and arg[0].kind == NUMBER and value(arg[0].text) == 0xFFFFFFFF
    complement = len(arg) == 2 and arg[0].text == "~" and arg[1].kind == NUMBER and value(arg[1].text) == 0
    if (full or complement) and "ll" not in arg[-1].text.lower():
        text = _src(a, toks, lo, hi, base)
        message = f"'{func}' is passed the 32-bit mask '{text}'; HIP's masks are 64-bit"
        if a.fix:
            a.edit(start, base + arg[-1].end, FULL_MASK_64)
            a.report(start, "mask-32-sync", f"{message}: rewritten as '{FULL_MASK_64}'", fixed=True)
        else:
            a.report(start, "mask-32-sync", message)
        return
    if len(arg) != 1 or arg[0].kind != IDENT:
        return
    name = arg[0].text
    if name in a.macros:
        at, text = a.macros[name]
        message = f"'{func}' is passed '{name}', the 32-bit mask {text} (#define at line {a.line(at)})"
        if a.fix:
            a.edit(at, at + len(text), FULL_MASK_64)
            a.report(start, "mask-32-sync", f"{message}: its value rewritten as '{FULL_MASK_64}'", fixed=True)
        else:
            a.report(start, "mask-32-sync", message)
        return
    decl = a.decls.get(name)
    if decl is not None:
        if decl.type_span[0] in a.flagged:
            return  # its declaration is reported (a ballot kept in 32 bits)
        message = f"'{func}' is passed '{name}', a 32-bit variable (declared at line {a.line(decl.offset)})"
        if a.fix and decl.wide:
            a.edit(*decl.type_span, decl.wide)
            if decl.full_mask:
                a.edit(*decl.full_mask, FULL_MASK_64)
            a.report(start, "mask-32-sync", f"{message}: declared '{decl.wide}'", fixed=True)
        else:
            a.report(start, "mask-32-sync", message)
        return
    if not macro and _parameter_is_32_bit(a, toks, i, name):
        a.report(start, "mask-32-sync", f"'{func}' is passed '{name}', a 32-bit parameter")


def _parameter_is_32_bit(a: Analysis, toks: list[Token], i: int, name: str) -> bool:
    body = a.function_of(i)
    if body is None:
        return False
    k = body[0] - 1
    while k > 0 and toks[k].text != ")":
        k -= 1
    open_ = open_bracket(toks, k)
    for j in range(open_ + 1, k):
        if toks[j].text == name and toks[j + 1].text in (",", ")", "="):
            return _THIRTY_TWO.get(_declared_type(toks, j)[1]) is not None
    return False


Handler = Callable[["Analysis", list[Token], int, int, bool], None]


def _literal_forms() -> list[str]:
    forms = []
    for v in (5, 16, 31, 32):
        for digits in {str(v), f"0x{v:x}", f"0x{v:X}", f"0X{v:X}", f"0X{v:x}"}:
            forms += [digits + suffix for suffix in ("", "u", "U", "l", "L", "ul", "UL", "lu", "LU")]
    return forms


HANDLERS: dict[str, Handler] = {form: literal for form in _literal_forms()}
HANDLERS["="] = declaration
HANDLERS.update({name: ballot for name in BALLOTS})
HANDLERS.update({name: bit_count for name in BIT_COUNTS})
HANDLERS.update({name: sync_call for name in SYNC_FUNCTIONS - BALLOTS})


def ballot_sync(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    """A ballot that also takes a mask (``__ballot_sync``, ``__match_*_sync``)."""
    ballot(a, toks, i, base, macro)
    sync_call(a, toks, i, base, macro)


HANDLERS.update({name: ballot_sync for name in BALLOTS & SYNC_FUNCTIONS})
