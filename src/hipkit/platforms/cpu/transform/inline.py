"""Device functions that synchronize, inlined into the kernels that call them.

A kernel that calls a function reaching a warp operation or a barrier cannot be
split (:mod:`.split` sees only the kernel's own statements) and runs on fibers,
one context switch per thread and warp operation: warp-aggregated atomics
(``atomicAggInc`` over ``__ballot``, ``__popc`` and ``__shfl``) ran many times
slower than split code.  This pass copies such a function's body into the
kernel at each call, as a block of its own, so that the splitter sees the warp
operations; it works on the preprocessed text, before the transform proper, and
gives up (the kernel then runs on fibers, as before) on any shape it does not
handle:

* the call is in a simple statement (an expression, a declaration, a return) of
  the kernel, outside ``?:``, ``&&``, ``||`` and lambdas, which may not
  evaluate it;
* the function has one definition, does not call itself, returns ``void``, a
  fundamental type, a pointer or one of its template parameters, and returns
  only at its end;
* its parameters are values, const references (copied) or references (bound
  through a pointer), and its template parameters are given, defaulted or
  deduced from a parameter of type ``T``, ``const T&``, ``T&`` or ``T*`` whose
  argument is a variable of the kernel or a cast (a type written out: the
  splitter cannot declare its variables by a decltype of the caller's locals).

The block declares the parameters under fresh names, the template parameters
as aliases and constants, and assigns the result, which the statement then
reads in place of the call.  Line markers keep the compiler's diagnostics on
the user's lines.
"""

from __future__ import annotations

from ....cxx.brackets import ParseError, match_angle, match_close, split_top
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import IDENT, Token
from ....cxx.statements import Stmt, parse_compound, walk
from ....cxx.toplevel import Function, scan_top_level
from .analysis import synchronizing_functions
from .unit import Unit

__all__ = ["inline_sync_calls"]

ROUNDS = 8  # calls inside inlined bodies, and several calls in one statement
_FUNDAMENTAL = frozenset(
    """void bool char short int long unsigned signed float double size_t int8_t int16_t int32_t
    int64_t uint8_t uint16_t uint32_t uint64_t const volatile""".split()
)
_SPECIFIERS = frozenset("static inline constexpr extern __forceinline__ __inline__".split())


class _Refused(Exception):
    """This call is not inlined."""


def inline_sync_calls(text: str) -> str:
    """``text`` with calls of synchronizing device functions in kernels inlined
    (unchanged where there are none, or none this pass can take)."""
    for round_ in range(ROUNDS):
        changed = _inline_once(text, round_)
        if changed is None:
            break
        text = changed
    return text


def _inline_once(text: str, round_: int) -> str | None:
    unit = Unit(text)
    toks = unit.toks
    try:
        top = scan_top_level(toks[:-1])
    except ParseError:
        return None
    sync = synchronizing_functions(toks, top.functions)
    definitions: dict[str, list[Function]] = {}
    for f in top.functions:
        if f.body_open is not None and "__hk_global" not in f.specifiers and f.name in sync:
            definitions.setdefault(f.name, []).append(f)
    callees = {name: fs[0] for name, fs in definitions.items() if len(fs) == 1}
    if not callees:
        return None
    edits: list[tuple[int, int, str]] = []
    count = 0
    for fn in top.functions:
        if "__hk_global" not in fn.specifiers or fn.body_open is None:
            continue
        try:
            body = parse_compound(toks, fn.body_open)
        except ParseError:
            continue
        for stmt, parent in _statements(body):
            if stmt.kind not in ("simple", "return"):
                continue
            call = _first_call(toks, stmt, callees)
            if call is None:
                continue
            try:
                inliner = _Inliner(unit, callees[call[0]], f"__hk_i{round_}_{count}", fn, body)
                code = inliner.statement(stmt, call[1:], parent)
            except (_Refused, ParseError):
                continue
            count += 1
            edits.append((toks[stmt.start].start, toks[stmt.end].end, code))
    if not edits:
        return None
    out, pos = [], 0
    for start, end, code in sorted(edits):
        out += [text[pos:start], code]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _statements(body: Stmt):
    """(statement, its parent) for every statement in ``body``."""
    for stmt in walk(body):
        for child in stmt.children:
            yield child, stmt


def _first_call(toks: list[Token], stmt: Stmt, callees: dict[str, Function]):
    """(name, name index, index of "(", index of ")") of the statement's first
    call of a callee, or None; None too where the call might not be evaluated."""
    texts = {toks[j].text for j in range(stmt.start, stmt.end + 1)}
    for j in range(stmt.start, stmt.end + 1):
        t = toks[j]
        if t.kind != IDENT or t.text not in callees or (j > 0 and toks[j - 1].text in (".", "->", "::")):
            continue
        k = j + 1
        if toks[k].text == "<":
            k = match_angle(toks, k) + 1
        if toks[k].text != "(":
            continue
        if texts & {"?", "&&", "||", "{"}:
            return None
        return t.text, j, k, match_close(toks, k)
    return None


class _Inliner:
    """One call of ``fn`` inlined, its names starting with ``prefix``."""

    def __init__(self, unit: Unit, fn: Function, prefix: str, kernel: Function, kernel_body: Stmt):
        self.unit, self.toks, self.fn, self.prefix = unit, unit.toks, fn, prefix
        self.kernel, self.kernel_body = kernel, kernel_body
        self.references: set[str] = set()  # parameters bound through a pointer
        self.renamed: dict[str, str] = {}  # template parameters -> their names in the block

    def statement(self, stmt: Stmt, call: tuple[int, int, int], parent: Stmt) -> str:
        toks, fn = self.toks, self.fn
        name_index, open_index, close = call
        assert fn.body_open is not None and fn.body_close is not None
        if any(toks[j].text == fn.name for j in range(fn.body_open, fn.body_close)):
            raise _Refused("recursive")
        args = [] if close == open_index + 1 else split_top(toks, open_index + 1, close)
        explicit = split_top(toks, name_index + 2, open_index - 1) if open_index > name_index + 1 else []
        templates = self._template_params(explicit, args)
        params = self._params(args)
        result = f"{self.prefix}_r"
        ret = self._return_type(templates)
        body_subs, final = self._body_subs(params, result if ret != "void" else None)
        lines = []
        if ret != "void":
            lines.append(f"{ret} {result};")
        lines.append("{")
        lines += [decl for _, decl in templates]
        lines += [decl for decl in params.values() if decl]
        lines.append(self.unit.emit(fn.body_open + 1, final, body_subs))
        lines.append("}")
        replacement = {name_index: (close, result if ret != "void" else "(void)0")}
        code = "\n".join(lines) + self.unit.emit(stmt.start, stmt.end + 1, replacement)
        if parent.kind != "compound":
            code = "{" + code + "}"
        last = toks[stmt.end]
        return code + f'\n# {last.line} "{self.unit.files[stmt.end]}"\n' + " " * last.col

    # ------------------------------------------------------------ the pieces

    def _text(self, lo: int, hi: int) -> str:
        return " ".join(t.text for t in self.toks[lo:hi])

    def _template_params(self, explicit, args) -> list[tuple[str, str]]:
        """(name, declaration) of each template parameter, from the call's
        explicit arguments, the defaults, or a parameter's argument."""
        toks, fn = self.toks, self.fn
        if fn.template is None:
            if explicit:
                raise _Refused("template arguments to a plain function")
            return []
        lo, hi = fn.template
        out = []
        for i, (a, b) in enumerate(split_top(toks, lo + 1, hi, ",", angles=True)):
            eq = next((k for k in range(a, b) if toks[k].text == "="), b)
            idents = [k for k in range(a, eq) if toks[k].kind == IDENT]
            if (
                not idents
                or toks[idents[0]].text == "template"
                or any(toks[k].text == "..." for k in range(a, b))
            ):
                raise _Refused("template parameter")
            name = toks[idents[-1]].text
            is_type = toks[a].text in ("typename", "class")
            if i < len(explicit):
                value = self._text(*explicit[i])
            elif eq < b:  # a default may name the parameters before it
                value = " ".join(self.renamed.get(t.text, t.text) for t in toks[eq + 1 : b])
            elif is_type:
                value = self._deduced(name, args)
            else:
                raise _Refused("non-type template parameter not given")
            kind = self._text(a, idents[-1])
            fresh = self.renamed[name] = f"{self.prefix}_{name}"
            out.append(
                (name, f"using {fresh} = {value};" if is_type else f"constexpr {kind} {fresh} = {value};")
            )
        return out

    def _deduced(self, name: str, args) -> str:
        """The type a parameter of type T, const T&, T& or T* deduces for ``name``,
        written out: the splitter declares the block's variables outside the
        threads' code, where a decltype of the caller's locals would not compile."""
        toks = self.toks
        for p, (a, b) in zip(self.fn.params, args, strict=False):
            shape = [t.text for t in toks[p.start : p.end] if t.text not in ("const", p.name)]
            if shape in ([name], [name, "&"], [name, "*"]):
                words = self._type_of(a, b)
                if shape == [name, "*"]:
                    if not words or words[-1] != "*":
                        break
                    words = words[:-1]
                return " ".join(words)
        raise _Refused(f"cannot deduce {name}")

    def _type_of(self, a: int, b: int) -> list[str]:
        """The type of the argument toks[a:b], decayed (without const), where it is
        plain to see: a variable of the kernel, or a cast; else refused."""
        toks = self.toks
        if b == a + 1 and toks[a].kind == IDENT:
            declared = self._declared_type(toks[a].text)
            if declared is not None:
                return declared
        if toks[a].kind == IDENT and toks[a].text in _FUNDAMENTAL and toks[a + 1].text == "(":
            if match_close(toks, a + 1) == b - 1:  # float(x)
                return [toks[a].text]
        if toks[a].text == "static_cast" and toks[a + 1].text == "<":
            close = match_angle(toks, a + 1)
            if toks[close + 1].text == "(" and match_close(toks, close + 1) == b - 1:
                return [t.text for t in toks[a + 2 : close] if t.text != "const"]
        raise _Refused("argument type")

    def _declared_type(self, name: str) -> list[str] | None:
        toks, kernel = self.toks, self.kernel
        for p in kernel.params:
            if p.name == name:
                return [
                    t.text for t in toks[p.start : p.end] if t.text not in ("const", name, "__restrict__")
                ]
        for stmt in walk(self.kernel_body):
            if stmt.kind != "simple":
                continue
            decl = parse_declaration(toks, stmt.start, stmt.end)
            if decl is None:
                continue
            for d in decl.declarators:
                if toks[d.name_index].text == name and not d.is_array and not d.is_reference:
                    specs = [t.text for t in toks[decl.specs[0] : decl.specs[1]]]
                    ptrs = [t.text for t in toks[d.start : d.name_index] if t.text == "*"]
                    words = [w for w in specs if w not in ("const", "volatile", "static", "constexpr")] + ptrs
                    return None if "auto" in words else words
        return None

    def _params(self, args) -> dict[str, str]:
        """Parameter name -> its declaration in the block (fresh names)."""
        toks, fn = self.toks, self.fn
        if len(args) > len(fn.params):
            raise _Refused("variadic")
        decls = {}
        for i, p in enumerate(fn.params):
            eq = next((k for k in range(p.start, p.end) if toks[k].text == "="), p.end)
            if i < len(args):
                arg = self._text(*args[i])
            elif eq < p.end:
                arg = self._text(eq + 1, p.end)
            else:
                raise _Refused("missing argument")
            words = [self.renamed.get(t.text, t.text) for t in toks[p.start : eq] if t.text != p.name]
            if "..." in words or "[" in words or "&&" in words or p.name is None:
                raise _Refused("parameter shape")
            fresh = f"{self.prefix}_{p.name}"
            if words[-1] == "&" and "const" not in words:
                decls[p.name] = f"{' '.join(words[:-1])}* const {fresh} = &({arg});"
                self.references.add(p.name)
            elif words[-1] == "&":
                decls[p.name] = f"{' '.join(words[:-1])} {fresh} = ({arg});"
            else:
                decls[p.name] = f"{' '.join(words)} {fresh} = ({arg});"
        return decls

    def _return_type(self, templates: list[tuple[str, str]]) -> str:
        toks, fn = self.toks, self.fn
        start = fn.template[1] + 1 if fn.template else fn.decl_start
        words = []
        j = start
        while j < fn.name_index:
            t = toks[j]
            if t.text == "__attribute__":
                j = match_close(toks, j + 1) + 1
                continue
            if not (t.text.startswith("__hk_") or t.text in _SPECIFIERS):
                words.append(t.text)
            j += 1
        aliases = {name: decl.split("=", 1)[1].strip().rstrip(";") for name, decl in templates}
        if len(words) == 1 and words[0] in aliases:
            return aliases[words[0]]
        if not words or not all(w in _FUNDAMENTAL or w == "*" for w in words):
            raise _Refused("return type")
        return " ".join(words)

    def _body_subs(self, params: dict[str, str], result: str | None):
        """The body's renamed parameters and its final return, and where the
        emitted body ends."""
        toks, fn = self.toks, self.fn
        assert fn.body_open is not None and fn.body_close is not None
        body = parse_compound(toks, fn.body_open)
        returns = [s for s in walk(body) if s.kind == "return"]
        final = fn.body_close
        subs: dict[int, tuple[int, str]] = {}
        if returns:
            last = body.children[-1] if body.children else None
            if len(returns) > 1 or returns[0] is not last:
                raise _Refused("return before the end")
            has_value = last.end > last.start + 1
            if has_value != (result is not None):
                raise _Refused("return value")
            if result is not None:
                subs[last.start] = (last.start, f"{result} = (")
                subs[last.end] = (last.end, ");")
            else:
                final = last.start
        for j in range(fn.body_open + 1, final):
            t = toks[j]
            if t.kind != IDENT or toks[j - 1].text in (".", "->", "::"):
                continue
            if t.text in params:
                fresh = f"{self.prefix}_{t.text}"
                subs[j] = (j, f"(*{fresh})" if t.text in self.references else fresh)
            elif t.text in self.renamed:
                subs[j] = (j, self.renamed[t.text])
        return subs, final
