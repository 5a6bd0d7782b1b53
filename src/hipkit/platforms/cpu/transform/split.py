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
a helper from exec_warp_ops.h combines them lane by lane, and the statement then runs
as a region reading its own result.

Anything else (a barrier inside ``switch``, a function that synchronizes, a
``goto``, ...) raises :class:`Unsupported`; the kernel then runs on fibers.

The splitter is built in layers, each a class over the one before:
:mod:`.split_state` (what it knows, and which expressions are uniform),
:mod:`.split_regions` (regions as thread loops), :mod:`.split_warp` (warp and
block operations) and this module, which walks the kernel's statements.
"""

from __future__ import annotations

from ....cxx.brackets import find_top, match_close
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import IDENT
from ....cxx.statements import Stmt, walk
from .analysis import BARRIERS, is_strided_loop, jumps_of_loop, modified
from .shared import shared_declaration
from .split_state import Ctx, Unsupported, Var
from .split_warp import WarpOps


class Splitter(WarpOps):
    """Writes a barrier kernel's body as the statements of its block function:
    the kernel's statements walked in order, control flow that contains
    barriers kept outside the thread loops."""

    # ------------------------------------------------------------ entry point

    def run(self, body: Stmt) -> str:
        """Generate the statements of the block function for ``body`` (a compound)."""
        exits = [s.start for s in walk(body) if s.kind in ("return", "break", "continue")]
        self.uses_exits = bool(exits)
        self.first_exit = min(exits, default=body.end)
        for name, how in self.params.items():
            if how == "modified":
                self._declare_param_copy(name)
        if self.uses_exits:
            self.out.append("unsigned char* const __hk_x = ::__hk::zeroed_bytes(__hk_b);")
        self._compound(body.children, Ctx(None, False), body.end)
        return "\n".join(self.out)

    def _declare_param_copy(self, name: str) -> None:
        store = self._new("p")
        self.out.append(
            f"auto* const {store} = ::__hk::per_thread<std::remove_cv_t<decltype({name})>>(__hk_b);"
        )
        self.out.append(f"for (int __t = 0; __t < __hk_b.n; ++__t) {store}[__t] = {name};")
        self.scopes[0][name] = Var(name, "storage", store)

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
                if stmt.kind == "simple" and self._hoist_uniform(stmt, region, ctx):
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

    def _hoist_uniform(self, stmt: Stmt, region: list[Stmt], ctx: Ctx) -> bool:
        """Emit a declaration outside the thread loops if every thread would
        compute the same value (or it declares shared memory or a type).
        ``region`` holds the statements before it that are not yet emitted:
        it runs ahead of them, so it must not shadow a name they use.  A value
        is computed outside the loops only where every thread reaches it: in a
        divergent branch, or after a thread may have left, no thread might, and
        the initializer must not run (``if (stride < n) { int c = i % stride; }``
        would divide by zero for the blocks no thread of which enters; and the
        launch's query run, with no thread and zeroed arguments, enters none)."""
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
        if not self._scalar_with_value(decl) or ctx.mask is not None or stmt.start > self.first_exit:
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
        # The threads that take the branch and, if there is an else, those that do not.
        masks = [self._new("m")] + ([self._new("m")] if other is not None else [])
        self.out.append(f"::__hk::mask {masks[0]} = ::__hk::empty_mask(__hk_b);")
        for no in masks[1:]:
            self.out.append(f"::__hk::mask {no} = ::__hk::empty_mask(__hk_b);")
        cond = self.emit_slice(lo, hi, {})
        stores = " ".join(f"{m}.on[__t] = {neg}__hk_c;" for m, neg in zip(masks, ("", "!"), strict=False))
        self.out.append(
            self._thread_loop(ctx, f"{{ {self._prologue()}\nconst bool __hk_c = ({cond}); {stores} }}")
        )
        self.out.append(" ".join(f"{m}.finish(__hk_b);" for m in masks))
        self._branch(then, Ctx(masks[0], ctx.loop_exits), scope_end)
        if other is not None:
            self._branch(other, Ctx(masks[1], ctx.loop_exits), scope_end)
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
        has_jumps = any(True for _ in jumps_of_loop(body))
        if not has_jumps and self._uniform_loop(init, cond, inc, body) and self._shift_rounds(stmt, ctx):
            return
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
