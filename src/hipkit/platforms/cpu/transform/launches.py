"""A program's kernel launches (``k<<<g, b, s, st>>>(args)``) as calls into the CPU runtime.

Program mode only (``hipkit cc``): each launch becomes a call of
hipkit_cpu/program_launch.h's ``::__hk::launch``, written in place so that
every other token keeps its line.
"""

from __future__ import annotations

import bisect
import re

from ....cxx.lexer import Token
from .unit import TransformError, Unit, c_string

# The kernel of a launch, for hipkit_cpu/program_launch.h's launch(): named
# exactly if it can be (a kernel, a template instance named in full), else
# called with the arguments (a template whose arguments are deduced, an overload).
_PICK = "[&](auto __hk_k) -> decltype(__hk_k.pick({k})) {{ return __hk_k.pick({k}); }}"
_CALL = "[&](auto... __hk_a) {{ {k}(__hk_a...); }}"


def launch_rewrites(unit: Unit, kernel_ranges: list[tuple[int, int]]) -> None:
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
        unit.default_subs[start] = (i, f"::__hk::launch({pick}, {call}, {c_string(name)}, " + tail)
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
