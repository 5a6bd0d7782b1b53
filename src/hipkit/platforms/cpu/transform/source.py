"""HIP C++ to CPU C++: the source transform of the CPU platform.

Input is the preprocessed translation unit (``g++ -E`` with hipkit_cpu/kernel.h
included first, so HIP's keywords appear as ``__hk_*`` markers).  Only the
user's own parts are tokenized; system headers pass through untouched.

Each ``__global__`` function becomes a *block function* with the same name and
signature that runs every thread of one block (see hipkit_cpu/abi.h):

* **loop**: no barriers or warp operations: the threads run as a plain
  ``for`` loop around the kernel body, which the C++ compiler can vectorize;
* **split**: barriers and warp operations at structured places: loops over the
  threads, split at the barriers (:mod:`.split`);
* **fiber**: anything else: one user-space fiber per thread.

Shared memory declared at the top of a kernel becomes a local of the block
function; elsewhere (device functions, nested scopes) a per-worker static.
At the end of the unit the transform appends the module descriptor that the
runtime reads (kernels, their parameters and execution mode, device globals).

A translation unit of a whole program (``program=True``, for ``hipkit cc``) is
transformed the same way, and further: its launches ``k<<<g, b, s, st>>>(args)``
(``hipLaunchKernelGGL`` expands to one) become calls into hipkit_cpu/program.h,
and its descriptor registers itself with the runtime when the program starts.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ....cxx.brackets import ParseError, find_top, match_close, split_top
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import DIRECTIVE, IDENT, Token, tokenize
from ....cxx.statements import local_declarations, parse_compound, walk
from ....cxx.toplevel import Function, param_type, scan_top_level
from .analysis import SYNC_NAMES, is_strided_loop, modified
from .shared import extern_shared_pointer, extern_shared_type, shared_declaration
from .split import Splitter
from .split_regions import THREAD_LOOP
from .split_state import Unsupported

INCLUDE_DIR = Path(__file__).parents[1] / "include"
_ABI = re.search(r"#define HK_ABI_VERSION (\d+)", (INCLUDE_DIR / "hipkit_cpu" / "abi.h").read_text())
assert _ABI is not None
ABI_VERSION = int(_ABI.group(1))
MODES = {"loop": "HK_EXEC_LOOP", "split": "HK_EXEC_SPLIT", "fiber": "HK_EXEC_FIBER"}

_LINE_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"([ 0-9]*)$', re.M)


class TransformError(Exception):
    """The source cannot be turned into CPU code (reported as a compile error)."""


@dataclass
class Kernel:
    name: str  # qualified, without a leading "::"
    mode: str  # loop | split | fiber
    template: bool
    reason: str = ""  # why the kernel runs on fibers
    source: tuple[str, int, int] = ("", 0, 0)  # file, first and last line


@dataclass
class Result:
    text: str
    kernels: list[Kernel] = field(default_factory=list)
    registered: list[tuple[str, str]] = field(default_factory=list)  # (lookup name, mode)
    user_files: frozenset[str] = frozenset()  # the files whose code was transformed


@dataclass
class _Segment:
    start: int
    end: int
    file: str
    line: int
    user: bool


def _segments(text: str) -> list[_Segment]:
    markers = list(_LINE_MARKER.finditer(text))
    # Tokens expanded from a macro of a system header (our __global__ & co.)
    # get a marker with the system flag even in the user's file, so a file is
    # the user's if any of its markers lacks the flag.
    user_files = {
        m.group(2) for m in markers if "3" not in m.group(3).split() and not m.group(2).startswith("<")
    }
    segments = []
    for i, m in enumerate(markers):
        start = m.end() + 1
        end = markers[i + 1].start() if i + 1 < len(markers) else len(text)
        file = m.group(2)
        segments.append(_Segment(start, end, file, int(m.group(1)), file in user_files))
    return segments


class _Unit:
    """The user's tokens of one translation unit, and how to print them back."""

    def __init__(self, text: str):
        self.text = text
        self.toks: list[Token] = []
        self.files: list[str] = []
        for seg in _segments(text):
            if not seg.user or seg.start >= seg.end:
                continue
            for t in tokenize(text[seg.start : seg.end]):
                if t.kind == DIRECTIVE:
                    continue
                self.toks.append(Token(t.kind, t.text, t.start + seg.start, seg.line + t.line - 1, t.col))
                self.files.append(seg.file)
        sentinel_at = len(text)
        self.toks.append(Token("end", "", sentinel_at, 0, 0))
        self.files.append("")
        self.default_subs: dict[int, tuple[int, str]] = {}

    def emit(self, lo: int, hi: int, subs: dict[int, tuple[int, str]]) -> str:
        """The user text of toks[lo:hi] with substitutions, after a line marker
        so the C++ compiler reports the user's file, line and column."""
        if lo >= hi:
            return ""
        toks = self.toks
        first = toks[lo]
        out = [f'\n# {first.line} "{self.files[lo]}"\n', " " * (first.col - 1)]
        pos = first.start
        j = lo
        while j < hi:
            sub = subs.get(j) or self.default_subs.get(j)
            if sub is None:
                j += 1
                continue
            last, replacement = sub
            out.append(self.text[pos : toks[j].start])
            out.append(replacement)
            pos = toks[last].start + len(toks[last].text)
            j = last + 1
        end = toks[hi - 1].start + len(toks[hi - 1].text)
        if pos < end:
            out.append(self.text[pos:end])
        out.append("\n")
        return "".join(out)


def transform(
    text: str,
    name_expressions: list[str] | tuple[str, ...] = (),
    fiber: dict[str, str] | None = None,
    program: bool = False,
) -> Result:
    """Transform a preprocessed HIP translation unit for the CPU.

    Parameters
    ----------
    text
        Output of the preprocessor, line markers included.
    name_expressions
        Template kernel instantiations to export, as in hiprtcAddNameExpression.
    fiber
        Kernels to run on fibers rather than split, by qualified name (the
        key "" means every kernel), each with the reason.
    program
        The unit belongs to a whole program: rewrite its kernel launches and
        register its kernels and globals at start-up instead of exporting
        ``__hk_module``.
    """
    unit = _Unit(text)
    toks = unit.toks
    try:
        top = scan_top_level(toks[:-1])
    except ParseError as exc:
        raise TransformError(str(exc)) from None
    _default_rewrites(unit, top)

    sync_functions = _synchronizing_functions(toks, top.functions)
    kernels = [f for f in top.functions if "__hk_global" in f.specifiers and f.body_open is not None]
    kernel_ranges = [k.body for k in kernels]
    if program:
        _launch_rewrites(unit, kernel_ranges)
    needs_tls = _reads_thread_identity(toks, kernel_ranges)
    device_globals = frozenset(
        toks[i].text for v in top.variables if "__hk_device" in v.specifiers for i in v.names
    )

    edits: list[tuple[int, int, str]] = []
    result = Result("", user_files=frozenset(unit.files[:-1]))
    for fn in kernels:
        code, kernel = _kernel(unit, fn, sync_functions, needs_tls, device_globals, fiber or {})
        close = fn.body[1]
        # The generated code has lines of its own: say where the user's text goes on.
        resume = f'\n# {toks[close].line} "{unit.files[close]}"\n' + " " * toks[close].col
        edits.append((toks[fn.decl_start].start, toks[close].start + 1, code + resume))
        result.kernels.append(kernel)
    # Everything outside kernels: the default rewrites, token by token.
    covered = [(k.decl_start, k.body[1]) for k in kernels]
    for j, (last, replacement) in sorted(unit.default_subs.items()):
        if any(a <= j <= b for a, b in covered):
            continue
        edits.append((toks[j].start, toks[last].start + len(toks[last].text), replacement))

    out = []
    pos = 0
    for start, end, replacement in sorted(edits):
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    appendix, result.registered = _appendix(unit, top, result.kernels, kernels, name_expressions, program)
    out.append(appendix)
    result.text = "".join(out)
    return result


# ---------------------------------------------------------------- rewrites everywhere


def _default_rewrites(unit: _Unit, top) -> None:
    """Marker removal and shared memory outside kernel bodies' top level."""
    toks = unit.toks
    subs = unit.default_subs
    namespace_shared = {v.start: v for v in top.variables if "__hk_shared" in v.specifiers}
    j = 0
    n = len(toks) - 1
    while j < n:
        t = toks[j]
        if t.kind != IDENT:
            j += 1
            continue
        if t.text in ("__hk_global", "__hk_device"):
            subs[j] = (j, "")
        elif t.text == "__hk_launch_bounds" and toks[j + 1].text == "(":
            close = match_close(toks, j + 1)
            subs[j] = (close, "")
            j = close
        elif t.text == "__assert_fail":
            subs[j] = (j, "__hk_assert_fail")
        elif t.text == "__hk_noinline":
            subs[j] = (j, "noinline" if _in_attribute_list(toks, j) else "__attribute__((noinline))")
        elif t.text == "__hk_shared":
            start = j
            while start > 0 and toks[start - 1].text in ("extern", "static", "const", "volatile"):
                start -= 1
            end = _statement_end(toks, j)
            extern = any(toks[k].text == "extern" for k in range(start, j))
            at_namespace = any(v.start <= j <= v.end for v in namespace_shared.values())
            if extern and at_namespace:
                subs[start] = (end, _namespace_dynamic_shared(unit, start, end))
                j = end
            elif extern:
                subs[start] = (end, extern_shared_pointer(toks, start, end))
                j = end
            else:
                subs[j] = (j, "__thread" if at_namespace else "static __thread")
        j += 1


def _in_attribute_list(toks: list[Token], j: int) -> bool:
    """Whether token ``j`` is a name in an ``__attribute__((...))`` list."""
    depth = 0
    for k in range(j - 1, max(j - 64, 0) - 1, -1):
        text = toks[k].text
        if text == ")":
            depth += 1
        elif text == "(":
            if depth == 0:
                opener = [t.text for t in toks[max(k - 2, 0) : k]]
                return opener in (["__attribute__", "("], ["__attribute", "("])
            depth -= 1
        elif text in (";", "{", "}"):
            return False
    return False


def _statement_end(toks: list[Token], j: int) -> int:
    while toks[j].text != ";":
        j += 1
    return j


def _namespace_dynamic_shared(unit: _Unit, start: int, end: int) -> str:
    """``extern __shared__ T name[];`` at namespace scope: an object standing
    for the running block's dynamic shared memory."""
    try:
        element, name = extern_shared_type(unit.toks, start, end)
    except ParseError as exc:
        raise TransformError(str(exc)) from None
    return f"static ::__hk::dyn_shared<{element}> {name};"


# ---------------------------------------------------------------- launches (programs)

# The kernel of a launch, for hipkit_cpu/program_launch.h's launch(): named
# exactly if it can be (a kernel, a template instance named in full), else
# called with the arguments (a template whose arguments are deduced, an overload).
_PICK = "[&](auto __hk_k) -> decltype(__hk_k.pick({k})) {{ return __hk_k.pick({k}); }}"
_CALL = "[&](auto... __hk_a) {{ {k}(__hk_a...); }}"


def _launch_rewrites(unit: _Unit, kernel_ranges: list[tuple[int, int]]) -> None:
    """``k<<<g, b, s, st>>>(args)`` -> ``::__hk::launch(pick k, call k, "k", g, b, s, st)(args)``.

    Only the brackets and the kernel expression are replaced, in place: every
    other token keeps its line, so diagnostics still point at the user's text,
    and the arguments are converted to the kernel's parameter types by a real
    call (a literal 0 is a null pointer, as in CUDA).
    """
    # hipify's launch parser; imported here so that kernels compiled from
    # Python do not pay for importing hipify.
    from ....cxx.launch import parse_launch

    toks = unit.toks
    view, origin = _launch_view(toks)
    starts = [t.start for t in toks]
    for v, t in enumerate(view):
        if t.text != "<<<":
            continue
        i = origin[v][0]
        where = f"{unit.files[i]}:{t.line}:{t.col}"
        if any(a < i < b for a, b in kernel_ranges):
            raise TransformError(
                f"{where}: error: a kernel launch inside a kernel (dynamic parallelism) "
                "is not supported on the CPU"
            )
        found = parse_launch(view, v, 0)
        if found is None:
            raise TransformError(
                f"{where}: error: cannot read this kernel launch "
                "(expected kernel<<<grid, block[, shared[, stream]]>>>(args))"
            )
        launch, _ = found
        start = bisect.bisect_left(starts, launch.kernel[0])
        kernel = " ".join(x.text for x in toks[start:i])
        name = kernel
        while name.startswith("(") and name.endswith(")"):
            name = name[1:-1].strip()
        # Line markers among the replaced tokens (parts of the launch written
        # by a macro) are kept, and so are the lines of the text that follows.
        replaced = unit.text[toks[start].start : t.start]
        markers = _LINE_MARKER_TEXT.findall(replaced)
        tail = "".join("\n" + m for m in markers) + "\n" if markers else "\n" * replaced.count("\n")
        pick, call = _PICK.format(k=kernel), _CALL.format(k=kernel)
        unit.default_subs[start] = (i, f"::__hk::launch({pick}, {call}, {_c_string(name)}, " + tail)
        close = next(w for w in range(v + 1, len(view)) if view[w].text == ">>>")
        first, last = origin[close]
        unit.default_subs[first] = (first, ")")
        for j in range(first + 1, last + 1):  # the rest of a ">>>" lexed in pieces
            unit.default_subs[j] = (j, "")


_LINE_MARKER_TEXT = re.compile(r'^# \d+ "(?:[^"\\\n]|\\.)*"[ 0-9]*$', re.M)


def _launch_view(toks: list[Token]) -> tuple[list[Token], list[tuple[int, int]]]:
    """The tokens with every ``>>>`` that closes a launch as one token, and for
    each the range of ``toks`` it stands for.  A launch written partly by a
    macro of a system header (``hipStreamDefault``, ``hipLaunchKernelGGL``) is
    lexed in pieces, one per line-marker segment, so its ``>>>`` may arrive as
    ``>>`` and ``>``."""
    view: list[Token] = []
    origin: list[tuple[int, int]] = []
    open_launches = 0
    j = 0
    n = len(toks)
    while j < n:
        t = toks[j]
        if t.text == "<<<":
            open_launches += 1
        elif t.text == ">>>":
            open_launches = max(0, open_launches - 1)
        elif open_launches and t.text in (">", ">>"):
            k, width = j, 0
            while k < n and toks[k].text in (">", ">>") and width < 3:
                width += len(toks[k].text)
                k += 1
            if width == 3 and (k >= n or toks[k].text == "("):
                view.append(Token(t.kind, ">>>", t.start, t.line, t.col))
                origin.append((j, k - 1))
                open_launches -= 1
                j = k
                continue
        view.append(t)
        origin.append((j, j))
        j += 1
    return view, origin


# ---------------------------------------------------------------- analyses


def _calls(toks: list[Token], lo: int, hi: int) -> set[str]:
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


def _synchronizing_functions(toks: list[Token], functions: list[Function]) -> set[str]:
    """Names of non-kernel functions that (may) reach a barrier or warp operation."""
    calls: dict[str, set[str]] = {}
    for f in functions:
        if f.body_open is None or "__hk_global" in f.specifiers:
            continue
        calls.setdefault(f.name, set()).update(_calls(toks, *f.body))
    sync = {name for name, called in calls.items() if called & SYNC_NAMES}
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in sync and called & sync:
                sync.add(name)
                changed = True
    return sync


def _reads_thread_identity(toks: list[Token], kernel_ranges: list[tuple[int, int]]) -> bool:
    """Whether code other than kernel bodies reads threadIdx, or reports it in a
    failed assert (then the thread loops keep the TLS variable up to date)."""
    for j, t in enumerate(toks):
        if t.kind != IDENT:
            continue
        if t.text in ("__lane_id", "__lanemask_eq"):
            return True
        if t.text in ("threadIdx", "__assert_fail") and not any(a < j < b for a, b in kernel_ranges):
            return True
    return False


def _param_modes(toks: list[Token], fn: Function) -> dict[str, str]:
    assert fn.body_open is not None and fn.body_close is not None
    modes = {}
    for p in fn.params:
        if p.name is None:
            continue
        is_array = find_top(toks, p.start, p.end, "[") >= 0
        changed = modified(toks, p.name, fn.body_open, fn.body_close, is_array)
        modes[p.name] = "modified" if changed else "uniform"
    return modes


# ---------------------------------------------------------------- kernels


def _kernel(unit: _Unit, fn: Function, sync_functions, needs_tls, device_globals, fiber: dict[str, str]):
    toks = unit.toks
    assert fn.body_open is not None and fn.body_close is not None
    name = "::".join([*filter(None, fn.namespace), fn.name])
    header = unit.emit(fn.decl_start, fn.body_open, {})
    prologue = [
        "{ ::__hk::specialize([=](auto __hk_small, const hk_index3 blockIdx, const hk_index3 blockDim,"
        " const hk_index3 gridDim) {",
        "if constexpr (decltype(__hk_small)::value) {",
        "  if (blockIdx.x >= (1u << 21)) __builtin_unreachable();",
        "}",
        "::__hk::assume_launch_limits(blockIdx, blockDim, gridDim);",
        "[[maybe_unused]] const ::__hk::block __hk_b;",
    ]
    if fn.launch_bounds:
        lo, hi = fn.launch_bounds
        first = split_top(toks, lo + 1, hi)[0]
        bound = " ".join(t.text for t in toks[first[0] : first[1]])
        prologue.append(f"__hk_b.note_launch_bounds({bound});")
    called = _calls(toks, fn.body_open, fn.body_close)
    # Barriers or warp operations, in the kernel or in functions it calls.
    uses_sync = bool(called & (SYNC_NAMES | sync_functions))
    reason = ""  # why the kernel is not split
    if called & sync_functions:
        reason = "calls " + ", ".join(sorted(called & sync_functions)) + ", which synchronize"
    elif name in fiber or (uses_sync and "" in fiber):
        reason = fiber.get(name) or fiber[""]
    try:
        body = parse_compound(toks, fn.body_open)
    except ParseError as exc:
        body = None
        reason = reason or f"not parsed: {exc}"
    strided = body is not None and any(is_strided_loop(toks, s) for s in walk(body))
    params = _param_modes(toks, fn)
    unit.default_subs.update(_identity_rewrites(toks, fn, name))
    if body is not None:
        unit.default_subs.update(_local_atomics(toks, fn, body))
    local_names = frozenset(name for name, _ in local_declarations(toks, body)) if body else frozenset()
    splitter = Splitter(
        toks, unit.emit, unit.default_subs, params, device_globals, local_names, needs_tls, fn.body_close
    )
    if body is not None and not reason and (uses_sync or strided):
        try:
            generated = splitter.run(body)
        except (Unsupported, ParseError) as exc:
            reason = str(exc)
        else:
            code = "\n".join([header, *prologue, generated, "}); }"])
            return code, Kernel(name, "split", fn.template is not None, source=_lines(unit, fn))
    mode = "fiber" if uses_sync else "loop"
    if mode == "loop":
        reason = ""
    lifted, shared_names, rest_subs = _lift(splitter, body) if body is not None else ([], [], {})
    captures = ", ".join(["=", *(f"&{s}" for s in shared_names)])
    rest = unit.emit(fn.body_open + 1, fn.body_close, rest_subs)
    tls = "::threadIdx = threadIdx;" if needs_tls else ""
    if mode == "loop":
        run = f"{THREAD_LOOP}{tls}\n[{captures}]() mutable {{ {rest} }}();\n}}"
    else:
        run = (
            f"auto __hk_thread = [{captures}](unsigned __t) mutable {{\n"
            f"const hk_index3 threadIdx = __hk_b.tid(__t);\n{rest} }};\n"
            "::__hk::run_fibers(__hk_thread);"
        )
    code = "\n".join([header, *prologue, *lifted, run, "}); }"])
    return code, Kernel(name, mode, fn.template is not None, reason, _lines(unit, fn))


ATOMICS = frozenset(
    f"{name}{scope}"
    for name in (
        "atomicAdd",
        "atomicSub",
        "atomicExch",
        "atomicMin",
        "atomicMax",
        "atomicInc",
        "atomicDec",
        "atomicAnd",
        "atomicOr",
        "atomicXor",
        "atomicCAS",
        "safeAtomicAdd",
        "unsafeAtomicAdd",
        "safeAtomicMin",
        "unsafeAtomicMin",
        "safeAtomicMax",
        "unsafeAtomicMax",
    )
    for scope in ("", "_block", "_system")
)


def _identity_rewrites(toks: list[Token], fn: Function, name: str) -> dict[int, tuple[int, str]]:
    """In a kernel body: the function's name is the kernel's (not that of the
    lambdas around the body), and a failing assert reports its own thread."""
    subs = {}
    assert fn.body_open is not None and fn.body_close is not None
    for j in range(fn.body_open, fn.body_close):
        text = toks[j].text
        if text in ("__PRETTY_FUNCTION__", "__func__", "__FUNCTION__"):
            subs[j] = (j, _c_string(name))
        elif text == "__assert_fail" and toks[j + 1].text == "(":
            subs[j] = (j + 1, "::__hk::kernel_assert_fail(threadIdx, ")
    return subs


def _local_atomics(toks: list[Token], fn: Function, body) -> dict[int, tuple[int, str]]:
    """Atomics on the kernel's own __shared__ arrays: their pointer argument
    wrapped in ::__hk::local(), which selects exec.h's non-atomic versions."""
    declared = Counter(p.name for p in fn.params if p.name)
    shared = set()
    for name, keywords in local_declarations(toks, body):
        declared[name] += 1
        if "__hk_shared" in keywords:
            shared.add(name)
    private = {name for name in shared if declared[name] == 1}
    subs = {}
    for j in range(body.start, body.end):
        t = toks[j]
        if t.kind != IDENT or t.text not in ATOMICS or toks[j + 1].text != "(":
            continue
        close = match_close(toks, j + 1)
        lo, hi = split_top(toks, j + 2, close)[0]
        first = lo + 1 if toks[lo].text == "&" else lo
        if hi > first and toks[first].kind == IDENT and toks[first].text in private:
            text = " ".join(x.text for x in toks[lo:hi])
            subs[lo] = (hi - 1, f"::__hk::local({text})")
    return subs


def _lines(unit: _Unit, fn: Function) -> tuple[str, int, int]:
    close = fn.body[1]
    return unit.files[close], unit.toks[fn.decl_start].line, unit.toks[close].line


def _lift(splitter: Splitter, body) -> tuple[list[str], list[str], dict[int, tuple[int, str]]]:
    """Top-level statements of a loop/fiber kernel that belong to the block
    rather than to each thread: shared memory, types, compile-time constants."""
    toks = splitter.toks
    lifted: list[str] = []
    shared: list[str] = []
    subs: dict[int, tuple[int, str]] = {}
    for stmt in body.children:
        if stmt.kind != "simple":
            continue
        first = toks[stmt.start].text
        decl = parse_declaration(toks, stmt.start, stmt.end)
        if decl is not None and "__hk_shared" in decl.keywords:
            lifted.append(shared_declaration(splitter, stmt.start, stmt.end))
            if "extern" not in decl.keywords:
                shared.extend(toks[d.name_index].text for d in decl.declarators)
        elif first in ("typedef", "using", "static_assert") or (
            decl is not None and decl.keywords & {"constexpr", "static"}
        ):
            lifted.append(splitter.emit_slice(stmt.start, stmt.end + 1, {}))
        elif (
            decl is not None
            and "const" in decl.keywords
            and all(
                d.init_kind == "="
                and d.init is not None
                and not d.is_array
                and splitter.is_uniform(d.init[0], d.init[1], allow_thread=False)
                for d in decl.declarators
            )
        ):
            lifted.append(splitter.emit_slice(stmt.start, stmt.end + 1, {}))
        else:
            continue
        subs[stmt.start] = (stmt.end, "")
    return lifted, shared, subs


# ---------------------------------------------------------------- descriptors


def _appendix(
    unit: _Unit, top, kernels: list[Kernel], functions: list[Function], name_expressions, program: bool
):
    toks = unit.toks
    entries: list[tuple[str, str, str]] = []  # (lookup name, C++ expression, mode)
    by_name: dict[str, Kernel] = {}
    overloaded = {k.name for k in kernels if sum(j.name == k.name for j in kernels) > 1}
    for kernel, fn in zip(kernels, functions, strict=True):
        by_name.setdefault(fn.name, kernel)
        if kernel.template:
            continue
        if kernel.name in overloaded:
            # Overloads are told apart by their parameter types (and found by
            # their mangled names, as in HIP).
            types = ", ".join(param_type(toks, p) for p in fn.params)
            entries.append(
                (f"{kernel.name}({types})", f"static_cast<void (*)({types})>(&::{kernel.name})", kernel.mode)
            )
        else:
            entries.append((kernel.name, "&::" + kernel.name, kernel.mode))
    for expr in name_expressions:
        base = expr.split("<", 1)[0].strip()
        short = base.split("::")[-1].strip()
        named = by_name.get(short)
        if named is None:
            raise TransformError(f"name expression {expr!r} does not name a __global__ function")
        entries.append((expr, "&" + expr, named.mode))
    lines = ["", "namespace {"]
    registered = []
    for i, (lookup, cxx, mode) in enumerate(entries):
        lines.append(
            f"const hk_kernel_desc __hk_kernel_{i} = ::__hk::kernel_entry<{cxx}>::describe("
            f"{_c_string(lookup)}, {MODES[mode]});"
        )
        registered.append((lookup, mode))
    kernel_list = ", ".join(f"&__hk_kernel_{i}" for i in range(len(entries))) or "nullptr"
    lines.append(f"const hk_kernel_desc* const __hk_kernels[] = {{{kernel_list}}};")
    globals_ = []
    for v in top.variables:
        if "__hk_device" not in v.specifiers or "extern" in v.specifiers:
            continue
        for i in v.names:
            qualified = "::".join([*filter(None, v.namespace), toks[i].text])
            globals_.append(f"{{{_c_string(qualified)}, (void*)&::{qualified}, sizeof(::{qualified})}}")
    lines.append(
        "const hk_global_desc __hk_globals[] = {" + (", ".join(globals_) or "{nullptr, nullptr, 0}") + "};"
    )
    if program:
        lines.append(
            f"const hk_module_desc __hk_unit = {{{ABI_VERSION}u, warpSize, {len(entries)}u,"
            f" __hk_kernels, {len(globals_)}u, __hk_globals}};"
        )
        lines.append("const int __hk_unit_registered = ::__hk::register_unit(&__hk_unit);")
        lines.append("}\n")
        return "\n".join(lines), registered
    lines.append("}")
    lines.append(
        'extern "C" __attribute__((visibility("default"))) const hk_module_desc* __hk_module(void) {'
    )
    lines.append(
        f"  static const hk_module_desc module = {{{ABI_VERSION}u, warpSize, {len(entries)}u,"
        f" __hk_kernels, {len(globals_)}u, __hk_globals}};"
    )
    lines.append("  return &module;\n}\n")
    return "\n".join(lines), registered


def _c_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
