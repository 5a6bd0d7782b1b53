"""One kernel as its block function: loop, split or fiber.

The function that runs every thread of one block (hipkit_cpu/abi.h): a plain
loop over the threads around the body where the kernel has no barrier or warp
operation, the body split at its barriers (:mod:`.split`) where it can be,
else one fiber per thread.  In a loop or fiber kernel, the statements that
belong to the block rather than to each thread (shared memory, types,
constants) are lifted out of the threads' code.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ....cxx.brackets import ParseError, match_close, split_top
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import IDENT, Token
from ....cxx.statements import local_declarations, parse_compound, walk
from ....cxx.toplevel import Function
from .analysis import SYNC_NAMES, called_names, is_strided_loop, names_block_state, param_modes
from .guards import peel_guards
from .shared import shared_declaration
from .split import Splitter
from .split_regions import thread_loop
from .split_state import Unsupported
from .thread_index import thread_sum_rewrites
from .unit import Unit, c_string


@dataclass
class Kernel:
    """A kernel of the unit, and how it runs."""

    name: str  # qualified, without a leading "::"
    mode: str  # loop | split | fiber
    template: bool
    reason: str = ""  # why the kernel runs on fibers
    source: tuple[str, int, int] = ("", 0, 0)  # file, first and last line


def block_function(
    unit: Unit,
    fn: Function,
    sync_functions,
    needs_tls,
    device_globals,
    fiber: dict[str, str],
    cooperative: frozenset[str] = frozenset(),
):
    """The C++ text that replaces kernel ``fn``'s definition, and how the kernel runs
    (a kernel calling a name of ``cooperative``, cooperative groups', on fibers)."""
    toks = unit.toks
    assert fn.body_open is not None and fn.body_close is not None
    name = "::".join([*filter(None, fn.namespace), fn.name])
    header = unit.emit(fn.decl_start, fn.body_open, {})
    # The body is inlined into the block function: as a function of its own
    # (GCC does not inline one this large), it reads the kernel's parameters
    # from its closure in memory, and a load under a guard keeps a thread loop
    # from vectorizing (`s[t] = i < n ? in[i] : 0`: `in` is loaded only where i < n).
    prologue = [
        "{ ::__hk::specialize([=](auto __hk_small, const hk_index3 blockIdx, const hk_index3 blockDim,"
        " const hk_index3 gridDim) __attribute__((always_inline)) {",
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
    called = called_names(toks, fn.body_open, fn.body_close)
    block_state = names_block_state(toks, fn.decl_start, fn.body_close)
    # Barriers or warp operations, in the kernel or in functions it calls.
    uses_sync = block_state or bool(called & (SYNC_NAMES | sync_functions | cooperative))
    reason = ""  # why the kernel is not split
    if block_state:
        reason = "uses MTGP32 states (hiprandStateMtgp32_t), whose numbers the block makes together"
    elif called & cooperative:
        reason = "uses cooperative groups (" + ", ".join(sorted(called & cooperative)) + ")"
    elif called & sync_functions:
        reason = "calls " + ", ".join(sorted(called & sync_functions)) + ", which synchronize"
    elif name in fiber or (uses_sync and "" in fiber):
        reason = fiber.get(name) or fiber[""]
    try:
        body = parse_compound(toks, fn.body_open)
    except ParseError as exc:
        body = None
        reason = reason or f"not parsed: {exc}"
    strided = body is not None and any(is_strided_loop(toks, s) for s in walk(body))
    params = param_modes(toks, fn)
    unit.default_subs.update(_identity_rewrites(toks, fn, name))
    if body is not None:
        unit.default_subs.update(_local_atomics(toks, fn, body))
        unit.default_subs.update(thread_sum_rewrites(toks, body.start, body.end, unit.default_subs))
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
    tls = "::__hk::set_thread(threadIdx);" if needs_tls else ""
    if mode == "loop":
        run = f"{thread_loop(rest)}{tls}\n[{captures}]() mutable {{ {rest} }}();\n}}"
        peel = peel_guards(splitter, body.children, frozenset(rest_subs)) if body is not None else None
        if peel is not None:  # the block's guards have one value in all its threads: a copy without them
            fast = unit.emit(fn.body_open + 1, fn.body_close, {**rest_subs, **peel.subs})
            copy = f"{thread_loop(fast)}{tls}\n[{captures}]() mutable {{ {fast} }}();\n}}"
            run = f"if (__hk_b.n && {peel.check}) {{\n{copy}\n}} else {{\n{run}\n}}"
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
            subs[j] = (j, c_string(name))
        elif text == "__assert_fail" and toks[j + 1].text == "(":
            subs[j] = (j + 1, "::__hk::kernel_assert_fail(threadIdx, ")
    return subs


def _local_atomics(toks: list[Token], fn: Function, body) -> dict[int, tuple[int, str]]:
    """Atomics on the kernel's own __shared__ arrays: their pointer argument
    wrapped in ::__hk::local(), which selects exec_local_atomics.h's plain versions."""
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


def _lines(unit: Unit, fn: Function) -> tuple[str, int, int]:
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
