"""Warp and block operations inside a statement of a split kernel, in three steps.

A region computes the call's arguments for every thread, a helper of the
CPU's executor (``::__hk::split_*``, hipkit_cpu/exec_warp_ops.h) combines them
lane by lane, and the statement then runs as a region reading its own result.
``v += __shfl_down(v, d)`` and its kin, with ``d`` uniform, are fused into
one pass, and a uniform loop of nothing but such a statement (the warp
reduction's idiom) into rounds over each warp in vector registers.
"""

from __future__ import annotations

from ....cxx.brackets import match_close, split_top
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import IDENT
from ....cxx.statements import Stmt
from .analysis import BARRIERS, SYNC_NAMES, SYNC_OPS
from .split_regions import Regions
from .split_state import Ctx, Unsupported, Var


class WarpOps(Regions):
    """Writes the statements that hold a warp or block operation."""

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
        shift = self._shift(stmt, name_index, close, ctx, ("shfl_down", "shfl_up"))
        if shift is None:
            return False
        storage, delta, apply = shift
        self.out.append(
            f"::__hk::split_shift_apply(__hk_b, {self._mask_pointer(ctx)}, {self._exits()}, {storage}, "
            f"{delta}, {apply});"
        )
        return True

    def _shift_rounds(self, stmt: Stmt, ctx: Ctx) -> bool:
        """A uniform ``for`` loop whose body is only ``v OP= __shfl_down(v, d)``
        (OP one of + - * & | ^), the warp reduction's idiom: its rounds over each
        warp in vector registers (exec_warp_rounds.h), the loop's header run once
        a warp.  Returns False, having emitted nothing, if the loop does not fit."""
        toks = self.toks
        body = stmt.children[0]
        inner = body.children if body.kind == "compound" else [body]
        init, (clo, chi), (ilo, ihi) = stmt.init, stmt.cond, stmt.inc
        if stmt.kind != "for" or init[1] <= init[0] or len(inner) != 1 or inner[0].kind != "simple":
            return False
        s = inner[0]
        name_index = s.start + 2
        op = toks[s.start + 1].text
        if op not in ("+=", "-=", "*=", "&=", "|=", "^=") or toks[name_index + 1].text != "(":
            return False
        close = match_close(toks, name_index + 1)
        if close + 1 != s.end or toks[name_index].text not in SYNC_OPS:
            return False
        decl = parse_declaration(toks, init[0], init[1])
        if decl is None:
            return False
        self.scopes.append(
            {toks[d.name_index].text: Var(toks[d.name_index].text, "uniform") for d in decl.declarators}
        )
        try:
            shift = self._shift(s, name_index, close, ctx, ("shfl_down",))
            value = split_top(toks, name_index + 2, close)[SYNC_OPS[toks[name_index].text][1]]
            if shift is None or toks[value[0]].text != toks[s.start].text:  # v folds itself
                return False
            storage, delta, apply = shift
            header = self.emit_slice(init[0], init[1] + 1, {})
            cond = self.emit_slice(clo, chi, {}) if chi > clo else "true"
            step = f"{self.emit_slice(ilo, ihi, {})};" if ihi > ilo else ""
        finally:
            self.scopes.pop()
        self.out.append(
            f"::__hk::split_shift_rounds(__hk_b, {self._mask_pointer(ctx)}, {self._exits()}, {storage}, "
            f"[&](auto&& __hk_round) __attribute__((always_inline)) {{ {header} while ({cond}) {{ "
            f"__hk_round({delta}); {step} }} }}, "
            f"{apply}, [](auto __hk_p, auto __hk_q) {{ return __hk_p {op[0]} __hk_q; }});"
        )
        return True

    def _shift(
        self, stmt: Stmt, name_index: int, close: int, ctx: Ctx, helpers: tuple[str, ...]
    ) -> tuple[str, str, str] | None:
        """For a statement whose one warp operation, at ``name_index``, shifts a
        per-thread variable by a uniform delta: the variable's storage, the delta
        (negative up) and the statement as a function of the thread and its
        shifted value.  None if it is not such a statement."""
        toks = self.toks
        name = toks[name_index].text
        helper, first = SYNC_OPS[name]
        args = split_top(toks, name_index + 2, close)[first:]
        if helper not in helpers or len(args) != 2:
            return None
        (vlo, vhi), (dlo, dhi) = args
        var = self._lookup(toks[vlo].text) if vhi == vlo + 1 else None
        if var is None or var.kind != "storage" or not self.is_uniform(dlo, dhi, allow_thread=False):
            return None
        delta = f"::__hk::clamp_delta({self._text(dlo, dhi)})"
        if helper == "shfl_up":
            delta = f"-{delta}"
        sample = f"{name}({', '.join(['0ull'] * first + [f'{var.storage}[0]', '0u'])})"
        tls = "::__hk::set_thread(threadIdx); " if self.set_tls else ""
        body = self.emit_slice(stmt.start, stmt.end + 1, {name_index: (close, "__hk_r")})
        apply = (
            f"[&](int __t, decltype({sample}) __hk_r) {{ const hk_index3 threadIdx = __hk_b.tid(__t); "
            f"{tls}{self._prologue()}\n{{ {body}\n}} }}"
        )
        return var.storage, delta, apply

    def _exits(self) -> str:
        return "__hk_x" if self.uses_exits else "nullptr"

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
        active = f"{self._mask_pointer(ctx)}, {self._exits()}"
        self.out.append(f"::__hk::split_{helper}(__hk_b, {active}, {result}{used});")
        return f"{result}[__t]"
