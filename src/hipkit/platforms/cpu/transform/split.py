"""Split a kernel at its barriers into loops over the block's threads.

The CPU runs a block's threads one after another.  A barrier-free stretch of a
kernel (a *region*) becomes a loop over the threads; a ``__syncthreads()``
is simply the end of one loop and the start of the next (PoCL's work-item
loops, done on source).  Control flow that contains barriers is kept outside
the loops and runs SIMT-style:

* a loop or ``if`` whose condition is the same for every thread (built only
  from kernel parameters, ``blockIdx``/``blockDim``/``gridDim``, constants and
  other such values) runs once, as plain C++;
* otherwise each thread evaluates the condition and a per-thread mask says
  which threads take part, as the active mask does on a GPU;
* ``return``, ``break`` and ``continue`` inside a region set a per-thread exit
  code that later regions honour, so threads that left count as arrived.

Local variables live across barriers in per-thread arrays, except those that
can be recomputed cheaply: a variable never modified whose initializer only
reads ``threadIdx``, uniform values and other such variables is re-declared at
the top of every region that follows (rematerialized), and one whose
initializer is uniform is declared once, outside the loops.

Warp operations (``__shfl*``, ``__ballot``, ``__any``/``__all``,
``__activemask``) and ``__syncthreads_count/and/or`` inside a statement are
evaluated in three steps: a region computes their arguments for every thread,
a helper from exec.h combines them lane by lane, and the statement then runs
as a region reading its own result.

Anything else (a barrier inside ``switch``, a function that synchronizes, a
``goto``, ...) raises :class:`Unsupported`; the kernel then runs on fibers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count, pairwise

from ....cxx.brackets import ParseError, find_top, match_close, split_top
from ....cxx.declarations import Declaration, parse_declaration
from ....cxx.lexer import ASSIGN_OPS, IDENT, NUMBER, PUNCT, TYPE_KEYWORDS, Token
from ....cxx.statements import Stmt, walk

BARRIERS = frozenset({"__syncthreads", "__syncwarp"})
# name -> (helper in exec.h, index of the first argument it uses)
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
    "__ballot_sync": ("ballot", 1),
    "__any": ("any", 0),
    "__any_sync": ("any", 1),
    "__all": ("all", 0),
    "__all_sync": ("all", 1),
    "__activemask": ("activemask", 0),
    "__lanemask_lt": ("lanemask_lt", 0),
    "__lanemask_gt": ("lanemask_gt", 0),
    "__syncthreads_count": ("block_count", 0),
    "__syncthreads_and": ("block_and", 0),
    "__syncthreads_or": ("block_or", 0),
}
SYNC_NAMES = BARRIERS | frozenset(SYNC_OPS)
# Functions whose result depends only on their arguments.
PURE_FUNCTIONS = frozenset(
    """min max abs fabs fabsf sqrt sqrtf rsqrt rsqrtf cbrt cbrtf exp expf exp2 exp2f log logf
    log2 log2f log10 log10f pow powf floor floorf ceil ceilf trunc truncf round roundf fmin
    fminf fmax fmaxf fma fmaf sin sinf cos cosf tan tanf __popc __popcll __clz __clzll __ffs
    __ffsll __brev __brevll __mul24 __umul24 __mulhi __umulhi __float2int_rn __int2float_rn
    __float_as_int __int_as_float __float_as_uint __uint_as_float""".split()
)
THREAD_NAMES = frozenset({"threadIdx", "__lane_id", "__lanemask_eq"})
CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast", "sizeof", "alignof", "decltype"})


# The block's threads, x fastest; __t is the linear thread index.  Between
# barriers the threads of a block are unordered (a race is undefined on a GPU),
# so the innermost loop carries no dependence: ivdep lets the compiler
# vectorize across threads.
THREAD_LOOP = (
    "for (int __hk_tz = 0; __hk_tz < __hk_b.bz; ++__hk_tz)\n"
    "for (int __hk_ty = 0; __hk_ty < __hk_b.by; ++__hk_ty)\n"
    "\n#pragma GCC ivdep\nfor (int __hk_tx = 0; __hk_tx < __hk_b.bx; ++__hk_tx) "
    "{ const int __t = (__hk_tz * __hk_b.by + __hk_ty) * __hk_b.bx + __hk_tx; (void)__t;\n"
    "const hk_index3 threadIdx = {static_cast<unsigned>(__hk_tx), static_cast<unsigned>(__hk_ty),"
    " static_cast<unsigned>(__hk_tz)}; "
)


class Unsupported(Exception):
    """The kernel has a shape the splitter does not handle; run it on fibers."""


@dataclass
class Var:
    name: str
    kind: str  # uniform | remat | storage | pointer (storage of a reference)
    storage: str = ""  # per-thread array for storage/pointer
    text: str = ""  # the declaration, for remat


@dataclass
class Ctx:
    mask: str | None  # current mask array, None: every thread that has not exited
    loop_exits: bool  # inside a masked or uniform loop that tracks break/continue


@dataclass
class Splitter:
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

    # ------------------------------------------------------------ entry point

    def run(self, body: Stmt) -> str:
        """Generate the statements of the block function for ``body`` (a compound)."""
        self.uses_exits = any(s.kind in ("return", "break", "continue") for s in walk(body))
        for name, how in self.params.items():
            if how == "modified":
                self._declare_param_copy(name)
        if self.uses_exits:
            self.out.append("unsigned char* const __hk_x = ::__hk::zeroed_bytes(__hk_b);")
        self._compound(body.children, Ctx(None, False), body.end)
        return "\n".join(self.out)

    # ------------------------------------------------------------ scopes

    def _lookup(self, name: str) -> Var | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def _new(self, prefix: str) -> str:
        return f"__hk_{prefix}{next(self.ids)}"

    def _declare_param_copy(self, name: str) -> None:
        store = self._new("p")
        self.out.append(
            f"auto* const {store} = ::__hk::per_thread<std::remove_cv_t<decltype({name})>>(__hk_b);"
        )
        self.out.append(f"for (int __t = 0; __t < __hk_b.n; ++__t) {store}[__t] = {name};")
        self.scopes[0][name] = Var(name, "storage", store)

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
                if t.text == "*" and (j == lo or _unary_context(toks[j - 1])):
                    return False
            elif t.kind not in (NUMBER, "char"):
                return False
        return True

    # ------------------------------------------------------------ statements

    def _compound(self, stmts: list[Stmt], ctx: Ctx, scope_end: int) -> None:
        region: list[Stmt] = []
        for stmt in stmts:
            if self._is_strided_loop(stmt):
                self._flush(region, ctx, scope_end)
                region = []
                self._lockstep_loop(stmt, ctx)
                continue
            if not self._has_sync(stmt.start, stmt.end + 1):
                if stmt.kind == "simple" and self._hoist_uniform(stmt, region):
                    continue
                region.append(stmt)
                continue
            self._flush(region, ctx, scope_end)
            region = []
            self._sync_statement(stmt, ctx, scope_end)
        self._flush(region, ctx, scope_end)

    def _is_strided_loop(self, stmt: Stmt) -> bool:
        """A barrier-free ``for`` whose variable steps by a multiple of the block
        size (a grid-stride loop): consecutive threads read consecutive
        elements in each iteration, so it runs with the threads in lockstep."""
        return is_strided_loop(self.toks, stmt) and self.is_uniform(
            stmt.inc[0] + 2, stmt.inc[1], allow_thread=False
        )

    def _lockstep_loop(self, stmt: Stmt, ctx: Ctx) -> None:
        """The iterations of a strided loop in waves over the threads (each
        thread's condition, body and increment in one pass), as a GPU's
        threads advance together."""
        self.out.append("{ const ::__hk::scratch_mark __hk_mark(__hk_b);")
        self.scopes.append({})
        self._flush([Stmt("simple", stmt.init[0], stmt.init[1])], ctx, stmt.end)
        wave = self._new("m")
        parent = f"&{ctx.mask}" if ctx.mask else "nullptr"
        exits = "__hk_x" if self.uses_exits else "nullptr"
        self.out.append(f"::__hk::mask {wave} = ::__hk::active_mask(__hk_b, {parent}, {exits});")
        cond = self.emit_slice(stmt.cond[0], stmt.cond[1], {})
        body = stmt.children[0]
        step = f"{self.emit_slice(stmt.inc[0], stmt.inc[1], {})};"
        code = (
            f"{{ {self._prologue()}\nif ({cond}) {{ {self.emit_slice(body.start, body.end + 1, {})}\n"
            f"{step} __hk_more = true; }} else {wave}.clear(__t); }}"
        )
        self.out.append("for (bool __hk_more = true; __hk_more;) { __hk_more = false;")
        self.out.append(self._thread_loop(Ctx(wave, False), code))
        self.out.append("}")
        self.scopes.pop()
        self.out.append("}")

    def _hoist_uniform(self, stmt: Stmt, region: list[Stmt]) -> bool:
        """Emit a declaration outside the thread loops if every thread would
        compute the same value (or it declares shared memory or a type).
        ``region`` holds the statements before it that are not yet emitted:
        it runs ahead of them, so it must not shadow a name they use."""
        toks = self.toks
        first = toks[stmt.start].text
        if first in ("typedef", "using", "static_assert"):
            self.out.append(self.emit_slice(stmt.start, stmt.end + 1, {}))
            return True
        if first in ("struct", "class", "union", "enum") and find_top(toks, stmt.start, stmt.end, "{") >= 0:
            self.out.append(self.emit_slice(stmt.start, stmt.end + 1, {}))
            return True
        decl = parse_declaration(toks, stmt.start, stmt.end)
        if decl is None:
            return False
        if region and any(
            self._used_in(toks[d.name_index].text, region[0].start, region[-1].end + 1)
            for d in decl.declarators
        ):
            if "__hk_shared" in decl.keywords:
                raise Unsupported(f"__shared__ declaration at line {toks[stmt.start].line} shadows a name")
            return False
        if "__hk_shared" in decl.keywords:
            self.out.append(shared_declaration(self, stmt.start, stmt.end))
            return True
        if "static" in decl.keywords or "constexpr" in decl.keywords:
            self.out.append(self.emit_slice(stmt.start, stmt.end + 1, {}))
            for d in decl.declarators:
                self.scopes[-1][toks[d.name_index].text] = Var(toks[d.name_index].text, "uniform")
            return True
        if not self._scalar_with_value(decl):
            return False
        for d in decl.declarators:
            assert d.init is not None
            if not self.is_uniform(d.init[0], d.init[1], allow_thread=False):
                return False
            if self._modified_after(toks[d.name_index].text, stmt.end, False):
                return False
        self.out.append(self.emit_slice(stmt.start, stmt.end + 1, {}))
        for d in decl.declarators:
            self.scopes[-1][toks[d.name_index].text] = Var(toks[d.name_index].text, "uniform")
        return True

    def _scalar_with_value(self, decl: Declaration) -> bool:
        return all(
            d.init_kind == "=" and not d.is_array and not d.is_reference and self.toks[d.init[0]].text != "{"
            for d in decl.declarators
            if d.init is not None
        ) and all(d.init is not None for d in decl.declarators)

    def _sync_statement(self, stmt: Stmt, ctx: Ctx, scope_end: int) -> None:
        toks = self.toks
        kind = stmt.kind
        if kind == "simple":
            first = toks[stmt.start]
            if first.text in BARRIERS and toks[stmt.start + 1].text == "(":
                close = match_close(toks, stmt.start + 1)
                if close + 1 == stmt.end:
                    return  # the end of one region is the barrier
            self._sync_op_statement(stmt, ctx, scope_end)
        elif kind == "compound":
            self._scoped(lambda: self._compound(stmt.children, ctx, stmt.end))
        elif kind == "if":
            self._if(stmt, ctx, scope_end)
        elif kind in ("for", "while", "do"):
            self._loop(stmt, ctx, scope_end)
        else:
            raise Unsupported(f"barrier inside {kind} statement at line {toks[stmt.start].line}")

    def _scoped(self, body) -> None:
        self.out.append("{ const ::__hk::scratch_mark __hk_mark(__hk_b);")
        self.scopes.append({})
        body()
        self.scopes.pop()
        self.out.append("}")

    # ------------------------------------------------------------ regions

    def _active(self, ctx: Ctx) -> str:
        """A C++ condition: thread __t takes part in the current region."""
        parts = []
        if ctx.mask:
            parts.append(f"{ctx.mask}.on[__t]")
        if self.uses_exits:
            parts.append("!__hk_x[__t]")
        return " && ".join(parts)

    def _thread_loop(self, ctx: Ctx, body: str) -> str:
        active = self._active(ctx)
        skip = f"if (!({active})) continue; " if active else ""
        tls = "::threadIdx = threadIdx; " if self.set_tls else ""
        if ctx.mask:  # only the mask's range of threads
            m = ctx.mask
            exits = "if (__hk_x[__t]) continue; " if self.uses_exits else ""
            # A dense range of a 1-D block (a whole warp, say) runs as a plain
            # loop the compiler can vectorize.
            dense = (
                f"if ({m}.dense_1d(__hk_b)) {{\n#pragma GCC ivdep\n"
                f"for (int __t = {m}.lo; __t < {m}.hi; ++__t) {{ {exits}"
                "const hk_index3 threadIdx = {static_cast<unsigned>(__t), 0, 0}; "
                f"{tls}\n{body}\n}} }} else "
            )
            return (
                f"{dense}for (int __t = {m}.lo; __t < {m}.hi; ++__t) {{ {skip}"
                f"const hk_index3 threadIdx = __hk_b.tid(__t); {tls}\n{body}\n}}"
            )
        return f"{THREAD_LOOP}{skip}{tls}\n{body}\n}}"

    def _mask_pointer(self, ctx: Ctx) -> str:
        return f"&{ctx.mask}" if ctx.mask else "nullptr"

    def _prologue(self) -> str:
        """Declarations that make the variables in scope visible to thread __t."""
        seen: dict[str, str] = {}
        for scope in self.scopes:
            for var in scope.values():
                if var.kind == "remat":
                    seen[var.name] = var.text
                elif var.kind == "storage":
                    seen[var.name] = f"auto& {var.name} = {var.storage}[__t];"
                elif var.kind == "pointer":
                    seen[var.name] = f"auto& {var.name} = *{var.storage}[__t];"
                else:
                    seen.pop(var.name, None)
        return "\n".join(dict.fromkeys(seen.values()))

    def _flush(self, region: list[Stmt], ctx: Ctx, scope_end: int, subs: dict | None = None) -> None:
        if not region:
            return
        subs = dict(subs or {})
        lo, hi = region[0].start, region[-1].end + 1
        prologue = self._prologue()
        # The region's declarations, in order (a later one may read an earlier
        # one): remat if cheap to recompute, storage if still read after the
        # region, else plain locals of the region.
        declared: dict[str, Var] = {}
        self.scopes.append(declared)
        for stmt in region:
            if stmt.kind != "simple":
                continue
            decl = parse_declaration(self.toks, stmt.start, stmt.end)
            if decl is None or decl.keywords & {"static", "constexpr", "extern", "__hk_shared"}:
                continue
            names = [self.toks[d.name_index].text for d in decl.declarators]
            if self._rematerializable(decl, stmt):
                text = self.emit_slice(stmt.start, stmt.end + 1, {})
                declared.update((n, Var(n, "remat", text=text)) for n in names)
            elif any(self._used_in(n, hi, scope_end) for n in names):
                declared.update((v.name, v) for v in self._storage(decl, stmt, subs))
        self.scopes.pop()
        jumps = self._jumps(region, subs, ctx)
        # Statements hoisted out of the region (see _hoist_uniform) already ran
        # outside the thread loop; a second copy inside would be a new variable
        # that shadows the hoisted one (a thread-local copy of a __shared__
        # array, say).
        for before, after in pairwise(region):
            if after.start > before.end + 1:
                subs[before.end + 1] = (after.start - 1, "")
        body = self.emit_slice(lo, hi, subs)
        if jumps:
            code = (
                f"const int __hk_s = [&]() -> int {{ {prologue}\n{body}\nreturn 0; }}();"
                " if (__hk_s) __hk_x[__t] = (unsigned char)__hk_s;"
            )
        else:
            code = f"{{ {prologue}\n{{ {body}\n}} }}"
        self.out.append(self._thread_loop(ctx, code))
        self.scopes[-1].update(declared)

    def _used_in(self, name: str, lo: int, hi: int) -> bool:
        return any(t.text == name and t.kind == IDENT for t in self.toks[lo:hi])

    def _rematerializable(self, decl: Declaration, stmt: Stmt) -> bool:
        if not self._scalar_with_value(decl):
            return False
        for d in decl.declarators:
            assert d.init is not None
            if not self.is_uniform(d.init[0], d.init[1], allow_thread=True):
                return False
            if self._modified_after(self.toks[d.name_index].text, stmt.end, False):
                return False
        return True

    def _storage(self, decl: Declaration, stmt: Stmt, subs: dict) -> list[Var]:
        """Per-thread arrays for the variables of ``decl``; rewrites the
        declaration (in ``subs``) to construct them in place."""
        toks = self.toks
        specs = " ".join(
            t.text for t in toks[decl.specs[0] : decl.specs[1]] if t.text not in ("register", "inline")
        )
        is_auto = "auto" in decl.keywords
        made: list[Var] = []
        parts: list[str] = []
        for d in decl.declarators:
            name = toks[d.name_index].text
            store = self._new("v")
            tname = self._new("T")
            if is_auto:
                if d.is_reference or d.init is None or d.is_array:
                    raise Unsupported(f"auto declaration of {name} lives across a barrier")
                if _has_lambda(toks, *d.init):
                    # Its captures may refer to locals of one region only.
                    raise Unsupported(f"lambda {name} lives across a barrier")
                expr = self._text(d.init[0], d.init[1], subs)
                self.out.append(
                    f"auto {tname}_f = [&](int __t, const hk_index3 threadIdx) "
                    f"{{ (void)__t; (void)threadIdx; {self._prologue()}\nreturn ({expr}); }};"
                )
                self.out.append(f"using {tname} = std::decay_t<decltype({tname}_f(0, hk_index3{{}}))>;")
            else:
                declarator = " ".join(
                    tname if k == d.name_index else toks[k].text
                    for k in range(d.start, d.init[0] - 1 if d.init else d.end)
                )
                self.out.append(f"typedef {specs} {declarator};")
            init = ""
            if d.init is not None:
                inner = self._text(d.init[0], d.init[1], subs)
                if d.init_kind == "=":
                    init = inner if inner.startswith("{") else f"({inner})"
                else:
                    init = f"{d.init_kind}{inner}{'}' if d.init_kind == '{' else ')'}"
            if d.is_reference:
                self.out.append(
                    f"auto* const {store} = ::__hk::per_thread<std::remove_reference_t<{tname}>*>(__hk_b);"
                )
                parts.append(f"{store}[__t] = &{init}; auto& {name} = *{store}[__t];")
                made.append(Var(name, "pointer", store))
            else:
                self.out.append(f"auto* const {store} = ::__hk::per_thread<{tname}>(__hk_b);")
                if init.startswith("("):  # `= value` or `(arguments)`
                    construct = f"::__hk::construct({store}[__t], {init[1:-1]});"
                else:
                    construct = f"::new (static_cast<void*>(&{store}[__t])) {tname}{init};"
                parts.append(f"{construct} auto& {name} = {store}[__t];")
                made.append(Var(name, "storage", store))
        subs[stmt.start] = (stmt.end, " ".join(parts))
        return made

    def _jumps(self, region: list[Stmt], subs: dict, ctx: Ctx) -> bool:
        """Rewrite return/break/continue that leave the region into exit codes."""
        found = False

        def visit(stmt: Stmt, in_loop: bool, in_switch: bool) -> None:
            nonlocal found
            kind = stmt.kind
            if kind == "return":
                if stmt.end != stmt.start + 1:
                    raise Unsupported("return with a value in a kernel")
                subs[stmt.start] = (stmt.end, "return 1;")
                found = True
            elif kind in ("break", "continue"):
                leaves = not (in_loop or (kind == "break" and in_switch))
                if leaves:
                    if not ctx.loop_exits:
                        raise Unsupported(f"{kind} outside a loop")
                    subs[stmt.start] = (stmt.end, "return 2;" if kind == "break" else "return 3;")
                    found = True
            for child in stmt.children:
                visit(
                    child,
                    in_loop or kind in ("for", "while", "do", "range_for"),
                    in_switch or kind == "switch",
                )

        for stmt in region:
            visit(stmt, False, False)
        return found

    # ------------------------------------------------------------ warp and block operations

    def _sync_op_statement(self, stmt: Stmt, ctx: Ctx, scope_end: int) -> None:
        toks = self.toks
        calls = []
        j = stmt.start
        while j <= stmt.end:
            t = toks[j]
            if t.kind == IDENT and t.text in SYNC_NAMES and toks[j + 1].text == "(":
                close = match_close(toks, j + 1)
                if t.text in BARRIERS or self._has_sync(j + 2, close):
                    raise Unsupported(f"{t.text} inside an expression at line {t.line}")
                calls.append((j, close))
                j = close + 1
                continue
            j += 1
        decl = parse_declaration(toks, stmt.start, stmt.end)
        if decl is not None and any(
            d.init is None or not (d.init[0] <= calls[0][0] and calls[-1][1] < d.init[1])
            for d in decl.declarators[:1]
        ):
            raise Unsupported(f"warp operation in a declarator at line {toks[stmt.start].line}")
        if decl is None and len(calls) == 1 and self._fused_shift(stmt, *calls[0], ctx):
            return
        subs: dict[int, tuple[int, str]] = {}
        for name_index, close in calls:
            subs[name_index] = (close, self._extract(name_index, close, ctx))
        self._flush([stmt], ctx, scope_end, subs)

    def _fused_shift(self, stmt: Stmt, name_index: int, close: int, ctx: Ctx) -> bool:
        """``v += __shfl_down(v, d)`` and the like in one pass: when d is uniform
        and the value is a variable's own per-thread array, lanes go in the
        order in which each reads its source before that lane's statement
        updates it.  Returns False if the statement does not fit."""
        toks = self.toks
        name = toks[name_index].text
        helper, first = SYNC_OPS[name]
        args = split_top(toks, name_index + 2, close)[first:]
        if helper not in ("shfl_down", "shfl_up") or len(args) != 2:
            return False
        (vlo, vhi), (dlo, dhi) = args
        var = self._lookup(toks[vlo].text) if vhi == vlo + 1 else None
        if var is None or var.kind != "storage" or not self.is_uniform(dlo, dhi, allow_thread=False):
            return False
        delta = f"::__hk::clamp_delta({self._text(dlo, dhi)})"
        if helper == "shfl_up":
            delta = f"-{delta}"
        sample = f"{name}({', '.join(['0ull'] * first + [f'{var.storage}[0]', '0u'])})"
        tls = "::threadIdx = threadIdx; " if self.set_tls else ""
        body = self.emit_slice(stmt.start, stmt.end + 1, {name_index: (close, "__hk_r")})
        exits = "__hk_x" if self.uses_exits else "nullptr"
        self.out.append(
            f"::__hk::split_shift_apply(__hk_b, {self._mask_pointer(ctx)}, {exits}, {var.storage}, {delta}, "
            f"[&](int __t, decltype({sample}) __hk_r) {{ const hk_index3 threadIdx = __hk_b.tid(__t); "
            f"{tls}{self._prologue()}\n{{ {body}\n}} }});"
        )
        return True

    def _extract(self, name_index: int, close: int, ctx: Ctx) -> str:
        """Emit the argument region and the lane computation of one call;
        returns the expression that replaces the call in its statement."""
        toks = self.toks
        name = toks[name_index].text
        helper, first = SYNC_OPS[name]
        args = [] if close == name_index + 2 else split_top(toks, name_index + 2, close)
        k = self._new("w")
        operands = []
        fills = []
        prologue = self._prologue()
        for i, (lo, hi) in enumerate(args):
            expr = self._text(lo, hi)
            var = self._lookup(expr) if hi == lo + 1 else None
            if var is not None and var.kind == "storage":
                operands.append(var.storage)  # read the variable's own per-thread array
            elif self.is_uniform(lo, hi, allow_thread=False):
                operand = f"{k}_a{i}"
                self.out.append(f"const ::__hk::same<std::decay_t<decltype({expr})>> {operand}{{{expr}}};")
                operands.append(operand)
            else:
                fn, operand = f"{k}_f{i}", f"{k}_a{i}"
                self.out.append(
                    f"auto {fn} = [&](int __t, const hk_index3 threadIdx) "
                    f"{{ (void)__t; (void)threadIdx; {prologue}\nreturn ({expr}); }};"
                )
                self.out.append(
                    f"auto* const {operand} = "
                    f"::__hk::per_thread<std::decay_t<decltype({fn}(0, hk_index3{{}}))>>(__hk_b);"
                )
                fills.append(f"{operand}[__t] = {fn}(__t, threadIdx);")
                operands.append(operand)
        if fills:
            self.out.append(self._thread_loop(ctx, " ".join(fills)))
        result = f"{k}_r"
        sample = ", ".join(f"{a}[0]" for a in operands)
        self.out.append(f"auto* const {result} = ::__hk::per_thread<decltype({name}({sample}))>(__hk_b);")
        used = "".join(f", {a}" for a in operands[first:])
        active = f"{self._mask_pointer(ctx)}, {'__hk_x' if self.uses_exits else 'nullptr'}"
        self.out.append(f"::__hk::split_{helper}(__hk_b, {active}, {result}{used});")
        return f"{result}[__t]"

    # ------------------------------------------------------------ if and loops

    def _if(self, stmt: Stmt, ctx: Ctx, scope_end: int) -> None:
        lo, hi = stmt.cond
        if self._has_sync(lo, hi):
            raise Unsupported("warp operation in an if condition")
        then = stmt.children[0]
        other = stmt.children[1] if len(stmt.children) > 1 else None
        if self.is_uniform(lo, hi, allow_thread=False):
            self.out.append(f"if ({self.emit_slice(lo, hi, {})}) {{")
            self._branch(then, ctx, scope_end)
            if other is not None:
                self.out.append("} else {")
                self._branch(other, ctx, scope_end)
            self.out.append("}")
            return
        self.out.append("{ const ::__hk::scratch_mark __hk_mark(__hk_b);")
        yes, no = self._new("m"), self._new("m")
        self.out.append(f"::__hk::mask {yes} = ::__hk::empty_mask(__hk_b), {no} = {yes};")
        self.out.append(f"{no}.on = ::__hk::zeroed_bytes(__hk_b);")
        cond = self.emit_slice(lo, hi, {})
        self.out.append(
            self._thread_loop(
                ctx,
                f"{{ {self._prologue()}\nconst bool __hk_c = ({cond}); "
                f"{yes}.on[__t] = __hk_c; {no}.on[__t] = !__hk_c; }}",
            )
        )
        self.out.append(f"{yes}.finish(__hk_b); {no}.finish(__hk_b);")
        self._branch(then, Ctx(yes, ctx.loop_exits), scope_end)
        if other is not None:
            self._branch(other, Ctx(no, ctx.loop_exits), scope_end)
        self.out.append("}")

    def _branch(self, stmt: Stmt, ctx: Ctx, scope_end: int) -> None:
        children = stmt.children if stmt.kind == "compound" else [stmt]
        end = stmt.end
        self._scoped(lambda: self._compound(children, ctx, end))

    def _loop(self, stmt: Stmt, ctx: Ctx, scope_end: int) -> None:
        toks = self.toks
        body = stmt.children[0]
        init = stmt.init if stmt.kind == "for" and stmt.init[1] > stmt.init[0] else None
        inc = stmt.inc if stmt.kind == "for" and stmt.inc[1] > stmt.inc[0] else None
        cond = stmt.cond if stmt.cond[1] > stmt.cond[0] else None
        for part in (init, cond, inc):
            if part and self._has_sync(*part):
                raise Unsupported("warp operation in a loop header")
        has_jumps = any(True for _ in _jumps_of_loop(body))
        self.out.append("{ const ::__hk::scratch_mark __hk_mark(__hk_b);")
        self.scopes.append({})
        uniform = self._uniform_loop(init, cond, inc, body)
        if init and uniform:
            self.out.append(self.emit_slice(init[0], init[1] + 1, {}))
            decl = parse_declaration(toks, init[0], init[1])
            for d in decl.declarators if decl else ():
                self.scopes[-1][toks[d.name_index].text] = Var(toks[d.name_index].text, "uniform")
        elif init:
            self._flush([Stmt("simple", init[0], init[1])], ctx, stmt.end)
        loop_mask = self._new("m") if (has_jumps or not uniform) else None
        if loop_mask:
            exits = "__hk_x" if self.uses_exits else "nullptr"
            parent = f"&{ctx.mask}" if ctx.mask else "nullptr"
            self.out.append(f"::__hk::mask {loop_mask} = ::__hk::active_mask(__hk_b, {parent}, {exits});")
        cond_text = self.emit_slice(cond[0], cond[1], {}) if cond else "true"
        if uniform:
            self.out.append("do {" if stmt.kind == "do" else f"while ({cond_text}) {{")
        else:
            self.out.append("for (bool __hk_first = true;; __hk_first = false) {")
            if stmt.kind == "do":
                self.out.append("if (!__hk_first) {")
            test = f"{{ {self._prologue()}\nif ({cond_text}) __hk_any = true; else {loop_mask}.clear(__t); }}"
            self.out.append("bool __hk_any = false;")
            self.out.append(self._thread_loop(Ctx(loop_mask, False), test))
            self.out.append("if (!__hk_any) break;")
            if stmt.kind == "do":
                self.out.append("}")
        children = body.children if body.kind == "compound" else [body]
        self._scoped(lambda: self._compound(children, Ctx(loop_mask or ctx.mask, True), body.end))
        if has_jumps:
            self.out.append(f"if (!::__hk::loop_exits(__hk_b, {loop_mask}, __hk_x)) break;")
        if inc and uniform:
            self.out.append(f"{self.emit_slice(inc[0], inc[1], {})};")
        elif inc:
            last = inc[1] - 1
            self._flush(
                [Stmt("simple", inc[0], last)],
                Ctx(loop_mask, False),
                stmt.end,
                {last: (last, toks[last].text + ";")},
            )
        self.out.append(f"}} while ({cond_text});" if uniform and stmt.kind == "do" else "}")
        self.scopes.pop()
        self.out.append("}")

    def _uniform_loop(self, init, cond, inc, body: Stmt) -> bool:
        """Whether every thread runs the loop the same number of times: its
        header reads only uniform values and its variables change only in the
        increment."""
        toks = self.toks
        loop_vars: list[str] = []
        if init:
            decl = parse_declaration(toks, init[0], init[1])
            if decl is None or not self._scalar_with_value(decl):
                return False
            for d in decl.declarators:
                assert d.init is not None  # _scalar_with_value
                if not self.is_uniform(d.init[0], d.init[1], allow_thread=False):
                    return False
                loop_vars.append(toks[d.name_index].text)
        scope = self.scopes[-1]
        for name in loop_vars:
            scope[name] = Var(name, "uniform")
        try:
            if cond and not self.is_uniform(cond[0], cond[1], allow_thread=False):
                return False
            if inc and not self.is_uniform(inc[0], inc[1], allow_thread=False, assignable=loop_vars):
                return False
            header_vars = {
                t.text for part in (cond, inc) if part for t in toks[part[0] : part[1]] if t.kind == IDENT
            }
            return not any(modified(toks, name, body.start, body.end + 1, False) for name in header_vars)
        finally:
            for name in loop_vars:
                scope.pop(name, None)


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
    return not any(True for _ in _jumps_of_loop(body)) and not any(
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
        if prev in ("++", "--") or (prev == "&" and _unary_context(toks[j - 2])):
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


def _jumps_of_loop(body: Stmt):
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


def _has_lambda(toks: list[Token], lo: int, hi: int) -> bool:
    """Whether toks[lo:hi] contains a lambda expression ([captures](...) {...})."""
    for j in range(lo, hi):
        if toks[j].text == "[" and (j == lo or toks[j - 1].text in ("=", "(", ",", "{", "return")):
            close = match_close(toks, j)
            if close + 1 < hi and toks[close + 1].text in ("(", "{", "mutable"):
                return True
    return False


def _unary_context(prev: Token) -> bool:
    """Whether an operator after ``prev`` is unary (prefix)."""
    if prev.kind == PUNCT:
        return prev.text not in (")", "]", "++", "--")
    return prev.kind == IDENT and prev.text in ("return", "case", "sizeof")


def shared_declaration(gen, lo: int, hi: int) -> str:
    """A function-scope ``__shared__`` declaration as a block-function local
    (its size noted for hipFuncGetAttributes), or, for ``extern __shared__``,
    a pointer to the block's dynamic shared memory."""
    toks = gen.toks
    words = [t.text for t in toks[lo:hi]]
    if "extern" in words:
        return extern_shared_pointer(toks, lo, hi)
    subs = {k: (k, "") for k in range(lo, hi) if toks[k].text in ("__hk_shared", "static")}
    text = gen.emit_slice(lo, hi + 1, subs)
    decl = parse_declaration(toks, lo, hi)
    if decl is None:
        raise ParseError(f"cannot parse __shared__ declaration at line {toks[lo].line}")
    notes = " ".join(f"__hk_b.note_shared(sizeof({toks[d.name_index].text}));" for d in decl.declarators)
    return f"{text} {notes}"


def extern_shared_type(toks: list[Token], lo: int, hi: int) -> tuple[str, str]:
    """(element type, name) of ``extern __shared__ T name[];`` in toks[lo:hi]."""
    decl = parse_declaration(toks, lo, hi)
    if decl is None or len(decl.declarators) != 1:
        raise ParseError(f"cannot parse extern __shared__ declaration at line {toks[lo].line}")
    d = decl.declarators[0]
    specs = " ".join(
        t.text for t in toks[decl.specs[0] : decl.specs[1]] if t.text not in ("extern", "__hk_shared")
    )
    ptr_ops = " ".join(t.text for t in toks[d.start : d.name_index])
    return f"{specs} {ptr_ops}".strip(), toks[d.name_index].text


def extern_shared_pointer(toks: list[Token], lo: int, hi: int) -> str:
    """``extern __shared__ T name[];`` inside a function, as a pointer."""
    element, name = extern_shared_type(toks, lo, hi)
    return f"{element}* const {name} = static_cast<{element}*>(__hk_block->dynamic_shared);"
