"""Regions: the barrier-free stretches of a split kernel, as loops over the block's threads.

A region's loop runs the threads that take part (a construct's mask, less
those that have left through ``return``, ``break`` or ``continue``); each
thread first sees the variables in scope through a prologue.  A variable
declared in a region and read after it moves into a per-thread array; one that
is cheap to recompute is re-declared in every later region instead.
"""

from __future__ import annotations

from itertools import pairwise

from ....cxx.declarations import Declaration, parse_declaration
from ....cxx.statements import Stmt
from .analysis import has_lambda
from .guards import peel_guards
from .split_state import Ctx, SplitState, Unsupported, Var, ivdep
from .thread_sets import thread_set_loop


def thread_loop(body: str) -> str:
    """The block's threads around ``body``, x fastest; __t is the linear thread
    index.  The loop's braces close after the body: ``{thread_loop(b)}{b}}}``."""
    return (
        "for (int __hk_tz = 0; __hk_tz < __hk_b.bz; ++__hk_tz)\n"
        "for (int __hk_ty = 0; __hk_ty < __hk_b.by; ++__hk_ty)\n"
        f"{ivdep(body)}for (int __hk_tx = 0; __hk_tx < __hk_b.bx; ++__hk_tx) "
        "{ const int __t = (__hk_tz * __hk_b.by + __hk_ty) * __hk_b.bx + __hk_tx; (void)__t;\n"
        "const hk_index3 threadIdx = {static_cast<unsigned>(__hk_tx), static_cast<unsigned>(__hk_ty),"
        " static_cast<unsigned>(__hk_tz)}; "
    )


class Regions(SplitState):
    """Writes regions: the thread loops and the variables that outlive them."""

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
        tls = "::__hk::set_thread(threadIdx); " if self.set_tls else ""
        if ctx.mask:  # only the mask's range of threads
            m = ctx.mask
            exits = "if (__hk_x[__t]) continue; " if self.uses_exits else ""
            # A dense range of a 1-D block (a whole warp, say) runs as a plain
            # loop the compiler can vectorize.
            dense = (
                f"if ({m}.dense_1d(__hk_b)) {{{ivdep(body)}"
                f"for (int __t = {m}.lo; __t < {m}.hi; ++__t) {{ {exits}"
                "const hk_index3 threadIdx = {static_cast<unsigned>(__t), 0, 0}; "
                f"{tls}\n{body}\n}} }} else "
            )
            return (
                f"{dense}for (int __t = {m}.lo; __t < {m}.hi; ++__t) {{ {skip}"
                f"const hk_index3 threadIdx = __hk_b.tid(__t); {tls}\n{body}\n}}"
            )
        return f"{thread_loop(body)}{skip}{tls}\n{body}\n}}"

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
        # Guards of a thread's index that hold for the whole block: a copy of
        # the loop without them (guards.py), its rewrites in `fast`.
        peel = peel_guards(self, region)
        fast = {**subs, **peel.subs} if peel else None
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
                declared.update((n, Var(n, "remat", text=text, decl=(stmt.start, stmt.end))) for n in names)
            elif any(self._used_in(n, hi, scope_end) for n in names):
                declared.update((v.name, v) for v in self._storage(decl, stmt, subs, fast))
        self.scopes.pop()
        jumps = self._jumps(region, subs, ctx)
        if fast is not None:
            self._jumps(region, fast, ctx)
        # Statements hoisted out of the region (see _hoist_uniform) already ran
        # outside the thread loop; a second copy inside would be a new variable
        # that shadows the hoisted one (a thread-local copy of a __shared__
        # array, say).
        for before, after in pairwise(region):
            if after.start > before.end + 1:
                for rewrites in (subs, fast or {}):
                    rewrites[before.end + 1] = (after.start - 1, "")

        def code(rewrites: dict) -> str:
            body = self.emit_slice(lo, hi, rewrites)
            if jumps:
                return (
                    f"const int __hk_s = [&]() -> int {{ {prologue}\n{body}\nreturn 0; }}();"
                    " if (__hk_s) __hk_x[__t] = (unsigned char)__hk_s;"
                )
            return f"{{ {prologue}\n{{ {body}\n}} }}"

        loop = self._thread_loop(ctx, code(subs))
        # A region of one `if` that selects threads by their x index, none of
        # whose variables outlives it: over just those threads (thread_sets.py).
        restricted = None
        if not (jumps or self.uses_exits or any(v.kind != "remat" for v in declared.values())):
            restricted = thread_set_loop(
                self, region, subs, lambda text: f"{{ {prologue}\n{{ {text}\n}} }}", loop, ctx.mask
            )
        if restricted is not None:
            loop = restricted
        elif peel is not None and fast is not None:
            copy = self._thread_loop(ctx, code(fast))
            loop = f"if (__hk_b.n && {peel.check}) {{\n{copy}\n}} else {{\n{loop}\n}}"
        self.out.append(loop)
        self.scopes[-1].update(declared)

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

    def _storage(self, decl: Declaration, stmt: Stmt, subs: dict, fast: dict | None = None) -> list[Var]:
        """Per-thread arrays for the variables of ``decl``; rewrites the
        declaration (in ``subs``, and in ``fast``, the rewrites of a copy of
        the region without its guards) to construct them in place."""
        toks = self.toks
        specs = " ".join(
            t.text for t in toks[decl.specs[0] : decl.specs[1]] if t.text not in ("register", "inline")
        )
        is_auto = "auto" in decl.keywords
        made: list[Var] = []
        slots = []
        for d in decl.declarators:
            name = toks[d.name_index].text
            store = self._new("v")
            tname = self._new("T")
            if is_auto:
                if d.is_reference or d.init is None or d.is_array:
                    raise Unsupported(f"auto declaration of {name} lives across a barrier")
                if has_lambda(toks, *d.init):
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
            if d.is_reference:
                self.out.append(
                    f"auto* const {store} = ::__hk::per_thread<std::remove_reference_t<{tname}>*>(__hk_b);"
                )
                made.append(Var(name, "pointer", store))
            else:
                self.out.append(f"auto* const {store} = ::__hk::per_thread<{tname}>(__hk_b);")
                made.append(Var(name, "storage", store))
            slots.append((d, store, tname))
        for rewrites in (subs, fast) if fast is not None else (subs,):
            parts = [self._construct(d, store, tname, rewrites) for d, store, tname in slots]
            rewrites[stmt.start] = (stmt.end, " ".join(parts))
        return made

    def _construct(self, d, store: str, tname: str, rewrites: dict) -> str:
        """Thread __t's slot of a variable in per-thread storage, made as its
        declarator would make it, and the name bound to it."""
        name = self.toks[d.name_index].text
        init = ""
        if d.init is not None:
            inner = self._text(d.init[0], d.init[1], rewrites)
            if d.init_kind == "=":
                init = inner if inner.startswith("{") else f"({inner})"
            else:
                init = f"{d.init_kind}{inner}{'}' if d.init_kind == '{' else ')'}"
        if d.is_reference:
            return f"{store}[__t] = &{init}; auto& {name} = *{store}[__t];"
        if init.startswith("("):  # `= value` or `(arguments)`
            construct = f"::__hk::construct({store}[__t], {init[1:-1]});"
        else:
            construct = f"::new (static_cast<void*>(&{store}[__t])) {tname}{init};"
        return f"{construct} auto& {name} = {store}[__t];"

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
