"""Warp and block operations inside a statement of a split kernel, in three steps.

A region computes the call's arguments for every thread, a helper of the
CPU's executor (``::__hk::split_*``, hipkit_cpu/exec_warp_ops.h) combines them
lane by lane, and the statement then runs as a region reading its own result.
``v += __shfl_down(v, d)`` and its kin, with ``d`` uniform, are fused into
one pass.
"""

from __future__ import annotations

from ....cxx.brackets import match_close, split_top
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import IDENT
from ....cxx.statements import Stmt
from .analysis import BARRIERS, SYNC_NAMES, SYNC_OPS
from .split_regions import Regions
from .split_state import Ctx, Unsupported


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
