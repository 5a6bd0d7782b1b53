"""What the CPU transform reads from a kernel's tokens, before it writes anything.

The names that synchronize (barriers, and the warp and block operations the
splitter evaluates lane by lane), the functions whose result depends only on
their arguments, whether a variable may be assigned in a range of tokens, and
the shape of a grid-stride loop.
"""

from __future__ import annotations

from ....cxx.brackets import find_top, match_close
from ....cxx.lexer import ASSIGN_OPS, IDENT, PUNCT, Token
from ....cxx.statements import Stmt, walk
from ....cxx.toplevel import Function

BARRIERS = frozenset({"__syncthreads", "__syncwarp"})
# name -> (helper in hipkit_cpu/exec_warp_ops.h, index of the first argument it uses)
SYNC_OPS = {
    "__shfl": ("shfl", 0),
    "__shfl_up": ("shfl_up", 0),
    "__shfl_down": ("shfl_down", 0),
    "__shfl_xor": ("shfl_xor", 0),
    "__shfl_sync": ("shfl", 1),
    "__shfl_up_sync": ("shfl_up", 1),
    "__shfl_down_sync": ("shfl_down", 1),
    "__shfl_xor_sync": ("shfl_xor", 1),
    "__ballot": ("ballot", 0),
    "__ballot64": ("ballot", 0),
    "__ballot_sync": ("ballot", 1),
    "__any": ("any", 0),
    "__any_sync": ("any", 1),
    "__all": ("all", 0),
    "__all_sync": ("all", 1),
    "__activemask": ("activemask", 0),
    "__lanemask_lt": ("lanemask_lt", 0),
    "__lanemask_gt": ("lanemask_gt", 0),
    "__match_any_sync": ("match_any", 0),
    "__match_all_sync": ("match_all", 0),
    "__reduce_add_sync": ("reduce_add", 0),
    "__reduce_min_sync": ("reduce_min", 0),
    "__reduce_max_sync": ("reduce_max", 0),
    "__reduce_and_sync": ("reduce_and", 0),
    "__reduce_or_sync": ("reduce_or", 0),
    "__reduce_xor_sync": ("reduce_xor", 0),
    "__syncthreads_count": ("block_count", 0),
    "__syncthreads_and": ("block_and", 0),
    "__syncthreads_or": ("block_or", 0),
}
SYNC_NAMES = BARRIERS | frozenset(SYNC_OPS)
# Cooperative groups (hip/hip_cooperative_groups.h): the functions that make groups or
# synchronize them.  In a unit that includes the header, a kernel calling one runs on
# fibers, where they work anywhere.
COOPERATIVE_NAMES = frozenset(
    """this_thread_block this_grid coalesced_threads tiled_partition sync reduce inclusive_scan
    exclusive_scan shfl shfl_up shfl_down shfl_xor ballot any all match_any match_all""".split()
)
# Types whose device functions every thread of the block calls together, with barriers
# inside (hipRAND's MTGP32 state: hipkit_portable/rand_mtgp32.h).  A kernel or function
# that names one synchronizes: its kernel runs on fibers, where those barriers work.
BLOCK_STATE_TYPES = frozenset({"hiprandStateMtgp32_t", "hiprandStateMtgp32"})
# Functions whose result depends only on their arguments.
PURE_FUNCTIONS = frozenset(
    """min max abs fabs fabsf sqrt sqrtf rsqrt rsqrtf cbrt cbrtf exp expf exp2 exp2f log logf
    log2 log2f log10 log10f pow powf floor floorf ceil ceilf trunc truncf round roundf fmin
    fminf fmax fmaxf fma fmaf sin sinf cos cosf tan tanf __popc __popcll __clz __clzll __ffs
    __ffsll __brev __brevll __mul24 __umul24 __mulhi __umulhi __float2int_rn __int2float_rn
    __float_as_int __int_as_float __float_as_uint __uint_as_float""".split()
)
# The headers' functions of the calling thread's lane: they read threadIdx.
LANE_FUNCTIONS = frozenset({"__lane_id", "__lanemask_eq", "__mbcnt_lo", "__mbcnt_hi"})
THREAD_NAMES = frozenset({"threadIdx"}) | LANE_FUNCTIONS
CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast", "sizeof", "alignof", "decltype"})


def is_strided_loop(toks: list[Token], stmt: Stmt) -> bool:
    """The shape of a grid-stride loop: ``for (init; cond; v += step)`` with
    the block size in the step, no barrier or warp operation in its header or
    body, and no break, continue or return leaving its body."""
    if stmt.kind != "for" or stmt.init[1] <= stmt.init[0] or stmt.cond[1] <= stmt.cond[0]:
        return False
    lo, hi = stmt.inc
    if hi - lo < 3 or toks[lo].kind != IDENT or toks[lo + 1].text != "+=":
        return False
    if not any(t.text in ("blockDim", "hipBlockDim_x") for t in toks[lo + 2 : hi]):
        return False
    body = stmt.children[0]
    if any(toks[j].kind == IDENT and toks[j].text in SYNC_NAMES for j in range(stmt.start, stmt.end + 1)):
        return False
    return not any(True for _ in jumps_of_loop(body)) and not any(
        s.kind in ("return", "goto") for s in walk(body)
    )


def modified(toks: list[Token], name: str, lo: int, hi: int, is_array: bool) -> bool:
    """Whether variable ``name`` may be assigned in ``toks[lo:hi]``: assignment,
    increment, or its address taken (element assignment too, for arrays)."""
    for j in range(lo, hi):
        t = toks[j]
        if t.text != name or t.kind != IDENT:
            continue
        prev = toks[j - 1].text
        if prev in (".", "->", "::"):
            continue
        if prev in ("++", "--") or (prev == "&" and unary_context(toks[j - 2])):
            return True
        k = j + 1
        through_member = False
        while k < hi and toks[k].text in (".", "[", "->"):
            if toks[k].text == "[":
                if not is_array:
                    break
                k = match_close(toks, k) + 1
            elif toks[k].text == "->":
                break
            else:
                through_member = True
                k += 2
        if k < hi and (toks[k].text in ASSIGN_OPS or toks[k].text in ("++", "--")):
            if k == j + 1 or through_member or is_array:
                return True
    return False


def jumps_of_loop(body: Stmt):
    """break/continue statements that belong to the loop whose body is ``body``."""

    def visit(stmt: Stmt):
        if stmt.kind in ("break", "continue"):
            yield stmt
            return
        if stmt.kind in ("for", "while", "do", "range_for"):
            return
        for child in stmt.children:
            if stmt.kind == "switch":
                yield from (s for s in visit(child) if s.kind == "continue")
            else:
                yield from visit(child)

    yield from visit(body)


def has_lambda(toks: list[Token], lo: int, hi: int) -> bool:
    """Whether toks[lo:hi] contains a lambda expression ([captures](...) {...})."""
    for j in range(lo, hi):
        if toks[j].text == "[" and (j == lo or toks[j - 1].text in ("=", "(", ",", "{", "return")):
            close = match_close(toks, j)
            if close + 1 < hi and toks[close + 1].text in ("(", "{", "mutable"):
                return True
    return False


def unary_context(prev: Token) -> bool:
    """Whether an operator after ``prev`` is unary (prefix)."""
    if prev.kind == PUNCT:
        return prev.text not in (")", "]", "++", "--")
    return prev.kind == IDENT and prev.text in ("return", "case", "sizeof")


def cooperative_names(text: str) -> frozenset[str]:
    """The names of cooperative groups if the preprocessed unit includes them."""
    return COOPERATIVE_NAMES if "namespace cooperative_groups" in text else frozenset()


def called_names(toks: list[Token], lo: int, hi: int) -> set[str]:
    names = set()
    for j in range(lo, hi):
        if toks[j].kind != IDENT:
            continue
        nxt = toks[j + 1].text
        if nxt == "(":
            names.add(toks[j].text)
        elif nxt == "<":
            k = j + 1
            depth = 0
            while k < hi:
                if toks[k].text == "<":
                    depth += 1
                elif toks[k].text == ">":
                    depth -= 1
                    if depth == 0:
                        break
                elif toks[k].text in (";", "{", "}"):
                    break
                k += 1
            if k + 1 < hi and toks[k + 1].text == "(":
                names.add(toks[j].text)
    return names


def names_block_state(toks: list[Token], lo: int, hi: int) -> bool:
    """Whether toks[lo:hi] name a type of BLOCK_STATE_TYPES."""
    return any(toks[j].kind == IDENT and toks[j].text in BLOCK_STATE_TYPES for j in range(lo, hi))


def synchronizing_functions(
    toks: list[Token], functions: list[Function], extra: frozenset[str] = frozenset()
) -> set[str]:
    """Names of non-kernel functions that (may) reach a barrier or warp operation (or
    call a name of ``extra``, or name a type of BLOCK_STATE_TYPES)."""
    calls: dict[str, set[str]] = {}
    sync = set()
    for f in functions:
        if f.body_open is None or "__hk_global" in f.specifiers:
            continue
        calls.setdefault(f.name, set()).update(called_names(toks, *f.body))
        if names_block_state(toks, f.decl_start, f.end):
            sync.add(f.name)
    sync |= {name for name, called in calls.items() if called & (SYNC_NAMES | extra)}
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in sync and called & sync:
                sync.add(name)
                changed = True
    return sync


def reads_thread_identity(toks: list[Token], kernel_ranges: list[tuple[int, int]]) -> bool:
    """Whether code other than kernel bodies reads threadIdx, or reports it in a
    failed assert (then the thread loops keep the TLS variable up to date)."""
    for j, t in enumerate(toks):
        if t.kind != IDENT:
            continue
        if t.text in LANE_FUNCTIONS:
            return True
        if t.text in ("threadIdx", "__assert_fail") and not any(a < j < b for a, b in kernel_ranges):
            return True
    return False


def param_modes(toks: list[Token], fn: Function) -> dict[str, str]:
    assert fn.body_open is not None and fn.body_close is not None
    modes = {}
    for p in fn.params:
        if p.name is None:
            continue
        is_array = find_top(toks, p.start, p.end, "[") >= 0
        changed = modified(toks, p.name, fn.body_open, fn.body_close, is_array)
        modes[p.name] = "modified" if changed else "uniform"
    return modes
