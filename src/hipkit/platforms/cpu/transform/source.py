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

This module drives the transform and makes the rewrites that apply everywhere
(markers, shared memory outside kernels); the unit's tokens are :mod:`.unit`'s,
kernels :mod:`.kernels`', launches :mod:`.launches`' and the descriptor
:mod:`.descriptors`'.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ....cxx.brackets import ParseError, match_close
from ....cxx.lexer import IDENT, Token
from ....cxx.toplevel import scan_top_level
from .analysis import cooperative_names, reads_thread_identity, synchronizing_functions
from .descriptors import module_descriptor
from .inline import inline_sync_calls
from .kernels import Kernel, block_function
from .launches import launch_rewrites
from .shared import extern_shared_pointer, extern_shared_type
from .unit import TransformError, Unit


@dataclass
class Result:
    text: str
    kernels: list[Kernel] = field(default_factory=list)
    registered: list[tuple[str, str]] = field(default_factory=list)  # (lookup name, mode)
    user_files: frozenset[str] = frozenset()  # the files whose code was transformed


def transform(
    text: str,
    name_expressions: list[str] | tuple[str, ...] = (),
    fiber: dict[str, str] | None = None,
    program: bool = False,
    thread_identity: bool = False,
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
    thread_identity
        Keep the TLS ``threadIdx`` up to date in every kernel (the sanitizer's
        probes read it), not only where code outside the kernels reads it.
    """
    text = inline_sync_calls(text)  # so that the kernels calling them can be split
    unit = Unit(text)
    toks = unit.toks
    try:
        top = scan_top_level(toks[:-1])
    except ParseError as exc:
        raise TransformError(str(exc)) from None
    _default_rewrites(unit, top)

    cooperative = cooperative_names(text)
    sync_functions = synchronizing_functions(toks, top.functions, cooperative)
    kernels = [f for f in top.functions if "__hk_global" in f.specifiers and f.body_open is not None]
    kernel_ranges = [k.body for k in kernels]
    if program:
        launch_rewrites(unit, kernel_ranges)
    needs_tls = thread_identity or reads_thread_identity(toks, kernel_ranges)
    device_globals = frozenset(
        toks[i].text for v in top.variables if "__hk_device" in v.specifiers for i in v.names
    )

    edits: list[tuple[int, int, str]] = []
    result = Result("", user_files=frozenset(unit.files[:-1]))
    for fn in kernels:
        code, kernel = block_function(
            unit, fn, sync_functions, needs_tls, device_globals, fiber or {}, cooperative
        )
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
    appendix, result.registered = module_descriptor(
        unit, top, result.kernels, kernels, name_expressions, program
    )
    out.append(appendix)
    result.text = "".join(out)
    return result


# ---------------------------------------------------------------- rewrites everywhere


def _default_rewrites(unit: Unit, top) -> None:
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


def _namespace_dynamic_shared(unit: Unit, start: int, end: int) -> str:
    """``extern __shared__ T name[];`` at namespace scope: an object standing
    for the running block's dynamic shared memory."""
    try:
        element, name = extern_shared_type(unit.toks, start, end)
    except ParseError as exc:
        raise TransformError(str(exc)) from None
    return f"static ::__hk::dyn_shared<{element}> {name};"
