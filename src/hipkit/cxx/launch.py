"""CUDA's launch syntax ``k<<<g, b, s, st>>>(args)`` as HIP's ``hipLaunchKernelGGL``.

Finds the parts of a launch in a token list (the kernel expression, the two to four
configuration arguments, the call's parentheses) and writes the call the way hipify-clang
does: ``hipLaunchKernelGGL(k, dim3(g), dim3(b), s, st, args)`` with ``dim3(...)`` added
unless the argument already starts with ``dim3(``, ``0`` for an omitted shared-memory
size or stream, and ``HIP_KERNEL_NAME(k<T>)`` around a template kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .brackets import ParseError, match_close, split_top
from .lexer import IDENT, PUNCT, Token

__all__ = ["Launch", "parse_launch", "template_kernels", "open_bracket"]

Span = tuple[int, int]  # offsets in the source: [start, end)


@dataclass(frozen=True)
class Launch:
    """A launch's source spans: the whole of it, the kernel, each config argument, the
    call arguments (None when the call has none)."""

    span: Span
    kernel: Span
    kernel_name: str  # the last identifier of the kernel expression
    has_template_args: bool
    config: tuple[Span, ...]
    args: Span | None

    def render(self, text: Callable[[Span], str], template_kernels: frozenset[str]) -> str:
        """The ``hipLaunchKernelGGL`` call, with ``text(span)`` giving each part's text."""
        kernel = text(self.kernel)
        if self.has_template_args or self.kernel_name in template_kernels:
            kernel = f"HIP_KERNEL_NAME({kernel})"
        parts = [kernel]
        for i in range(4):
            value = text(self.config[i]) if i < len(self.config) else "0"
            if i < 2 and not value.startswith("dim3("):
                value = f"dim3({value})"
            parts.append(value)
        if self.args is not None:
            parts.append(text(self.args))
        return f"hipLaunchKernelGGL({', '.join(parts)})"


def _kernel_start(toks: list[Token], i: int) -> tuple[int, bool] | None:
    """Index of the first token of the kernel expression ending at ``toks[i]`` (just
    before ``<<<``), and whether it has template arguments; None if it is not a name."""
    j = i
    templated = False
    if toks[j].text in (">", ">>"):
        depth = 0
        while j >= 0:
            t = toks[j].text
            if t in (")", "]"):
                j = open_bracket(toks, j)
            elif t == ">":
                depth += 1
            elif t == ">>":
                depth += 2
            elif t == "<":
                depth -= 1
                if depth == 0:
                    break
            elif t in (";", "{", "}"):
                return None
            j -= 1
        if j <= 0:
            return None
        j -= 1
        templated = True
    elif toks[j].text == ")":
        return (open_bracket(toks, j), False) if open_bracket(toks, j) >= 0 else None
    if toks[j].kind != IDENT:
        return None
    while j >= 2 and toks[j - 1].text == "::" and toks[j - 2].kind == IDENT:
        j -= 2
    if j >= 1 and toks[j - 1].text == "::":
        j -= 1
    return j, templated


def open_bracket(toks: list[Token], j: int) -> int:
    """Index of the bracket opening the ``)`` or ``]`` at ``toks[j]``, or -1."""
    pair = {")": "(", "]": "["}[toks[j].text]
    close = toks[j].text
    depth = 0
    while j >= 0:
        if toks[j].kind == PUNCT:
            if toks[j].text == close:
                depth += 1
            elif toks[j].text == pair:
                depth -= 1
                if depth == 0:
                    return j
        j -= 1
    return -1


def parse_launch(toks: list[Token], i: int, base: int) -> tuple[Launch, int] | None:
    """The launch whose ``<<<`` is ``toks[i]``, and the index of its closing ``)``.

    Offsets in the result are ``base`` plus the tokens' offsets.  Returns None for
    anything that is not a whole launch this function understands (it is then kept).
    """
    if i == 0:
        return None
    found = _kernel_start(toks, i - 1)
    if found is None:
        return None
    start, templated = found
    close = next((j for j in range(i + 1, len(toks)) if toks[j].text == ">>>"), -1)
    if close < 0 or close + 1 >= len(toks) or toks[close + 1].text != "(":
        return None
    try:
        end = match_close(toks, close + 1)
        config = split_top(toks, i + 1, close, angles=True)
    except ParseError:
        return None
    if not 2 <= len(config) <= 4 or any(a == b for a, b in config):
        return None

    def span(a: int, b: int) -> Span:  # tokens a..b-1
        return base + toks[a].start, base + toks[b - 1].end

    if templated:
        name = _name_before_angle(toks, start, i)
    else:
        name = next((t.text for t in reversed(toks[start:i]) if t.kind == IDENT), "")
    launch = Launch(
        span=span(start, end + 1),
        kernel=span(start, i),
        kernel_name=name,
        has_template_args=templated,
        config=tuple(span(a, b) for a, b in config),
        args=span(close + 2, end) if end > close + 2 else None,
    )
    return launch, end


def _name_before_angle(toks: list[Token], start: int, stop: int) -> str:
    """The kernel's name in ``ns::k<T>``: the identifier before the first ``<``."""
    for j in range(start, stop):
        if toks[j].text == "<":
            return toks[j - 1].text
    return toks[start].text


def template_kernels(toks: list[Token]) -> frozenset[str]:
    """Names of the ``__global__`` function templates declared in ``toks``.

    A launch of one of these, even without template arguments, is written with
    ``HIP_KERNEL_NAME``, as hipify-clang writes every launch of a template instance.
    """
    names = set()
    for i, t in enumerate(toks):
        if t.text != "template" or t.kind != IDENT or i + 1 >= len(toks) or toks[i + 1].text != "<":
            continue
        depth = 0
        j = i + 1
        while j < len(toks):
            text = toks[j].text
            depth += {"<": 1, ">": -1, ">>": -2}.get(text, 0)
            if depth <= 0 or text in (";", "{"):
                break
            j += 1
        is_kernel = False
        while j < len(toks) and toks[j].text not in ("(", ";", "{", "}", "="):
            is_kernel = is_kernel or toks[j].text == "__global__"
            j += 1
        if is_kernel and j < len(toks) and toks[j].text == "(" and toks[j - 1].kind == IDENT:
            names.add(toks[j - 1].text)
    return frozenset(names)
