"""Portability analysis: what a renamed CUDA source still needs before it runs well on AMD GPUs.

Works on the token list the translator already has (:mod:`hipkit.cxx.lexer`), so comments and
string literals never match.  One pass dispatches on token text; each rule looks at the few
tokens around its trigger.  What "device code" means here: the body of a function whose
declaration carries ``__global__`` or ``__device__`` (lambdas included), found by matching
braces; macro bodies count as device code for the warp-size rules, whose operands say
what they are.  Warp-size rules live in :mod:`hipkit.hipify.warp`; the rule IDs, severities
and hints in :mod:`hipkit.hipify.rules`.

The result is a list of findings (offset, rule, message, hint, fixed) and, with
``fix_warp_size``, the edits that rewrite the safe warp-size cases.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..cxx.brackets import ParseError, match_close
from ..cxx.lexer import DIRECTIVE, IDENT, NUMBER, STRING, LexError, Token, tokenize
from . import warp
from .rules import DEVICE_PROP_FIELDS, DNN_ARGUMENTS, RULES

__all__ = ["Finding", "analyze"]

Edit = tuple[int, int, str]  # [start, end) in the source, replacement


@dataclass(frozen=True)
class Finding:
    """A rule matched at ``offset`` (in the source); ``fixed`` when an edit rewrote it."""

    offset: int
    rule: str
    message: str
    hint: str = ""
    fixed: bool = False


# The device side of CUDA dynamic parallelism.
_DEVICE_RUNTIME = frozenset(
    "cudaDeviceSynchronize cudaLaunchDevice cudaGetParameterBuffer cudaGetParameterBufferV2".split()
)
_COOPERATIVE_LAUNCHES = frozenset(
    "cudaLaunchCooperativeKernel cudaLaunchCooperativeKernelMultiDevice cuLaunchCooperativeKernel "
    "cuLaunchCooperativeKernelMultiDevice".split()
)
_GRID_TYPES = frozenset({"grid_group", "multi_grid_group"})
_GRID_GETTERS = frozenset({"this_grid", "this_multi_grid"})
_TEXTURE_FETCHES = frozenset(
    "tex1Dfetch tex1D tex2D tex3D tex1DLayered tex2DLayered texCubemap texCubemapLayered tex2Dgather "
    "tex1DLod tex2DLod tex3DLod tex1DGrad tex2DGrad tex3DGrad surf1Dread surf2Dread surf3Dread "
    "surf1Dwrite surf2Dwrite surf3Dwrite".split()
)
_ASM = frozenset({"asm", "__asm__", "__asm"})
_ASM_QUALIFIERS = frozenset({"volatile", "__volatile__", "inline", "goto"})
# PTX in an asm string: instructions with their type suffixes, special registers, .reg/.pred.
_PTX = re.compile(
    r"\b(?:mov|ld|st|add|sub|mul|mad|fma|cvt|shfl|vote|bar|atom|red|prmt|bfe|bfi|lop3|setp|selp|membar|fence"
    r"|cp|mma|wmma|ldmatrix|activemask|brev|popc|clz)\.[a-z0-9]"
    r"|%%?(?:laneid|warpid|nwarpid|smid|nsmid|clock(?:64)?|globaltimer|lanemask_\w+|tid|ntid|ctaid)\b"
    r"|\.(?:reg|pred)\b"
)
_CONDITIONAL = re.compile(r"#\s*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b")
_DEFINE = re.compile(r"#\s*define\s+(\w+)")
_CUDA_ARCH_MESSAGE = "'__CUDA_ARCH__' is not defined for AMD GPUs: device code there takes the other branch"
_COMPARISONS = frozenset("< <= > >= == !=".split())


class Analysis:
    """One file's analysis; :func:`analyze` runs it."""

    def __init__(self, text: str, toks: list[Token], fix_warp_size: bool, to_miopen: bool):
        self.text = text
        self.toks = toks
        self.fix = fix_warp_size
        self.to_miopen = to_miopen
        self.findings: list[Finding] = []
        self.edits: list[Edit] = []
        self.device: list[tuple[int, int, str]] = device_functions(toks) if _has_device_code(text) else []
        self._device_starts = [r[0] for r in self.device]
        self.device_props = "cudaDeviceProp" in text
        self.textures: set[str] = set()  # texture reference names declared so far
        self.grids: set[str] = set()  # grid_group variables
        self.macros: dict[str, tuple[int, str]] = {}  # #define NAME VALUE: offset of VALUE, VALUE
        self.decls: dict[str, warp.Declaration] = {}  # 32-bit integer variables with initializers
        self.ballot_vars: set[str] = set()  # variables holding a ballot result
        self.flagged: set[int] = set()  # offsets already reported (one finding per place)
        self._edited: set[int] = set()

    # ---- results ------------------------------------------------------------------------
    def report(self, offset: int, rule: str, message: str, hint: str = "", fixed: bool = False) -> None:
        if offset in self.flagged:
            return
        self.flagged.add(offset)
        self.findings.append(Finding(offset, rule, message, hint or RULES[rule].hint, fixed))

    def edit(self, start: int, end: int, new: str) -> None:
        if start not in self._edited:  # two rules may fix one place (a mask variable)
            self._edited.add(start)
            self.edits.append((start, end, new))

    def line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    # ---- context ------------------------------------------------------------------------
    def device_kind(self, i: int) -> str:
        """``global``, ``device``, ``host device`` for a token in such a function's body
        (main token list only), else ``""``."""
        k = bisect.bisect_right(self._device_starts, i) - 1
        if k >= 0 and i < self.device[k][1]:
            return self.device[k][2]
        return ""

    def function_of(self, i: int) -> tuple[int, int] | None:
        """The (body start, body end) token range of the device function holding ``toks[i]``."""
        k = bisect.bisect_right(self._device_starts, i) - 1
        if k >= 0 and i < self.device[k][1]:
            return self.device[k][0], self.device[k][1]
        return None

    # ---- driver -------------------------------------------------------------------------
    def run(self) -> None:
        self.scan(self.toks, 0, macro=False)

    def scan(self, toks: list[Token], base: int, macro: bool) -> None:
        handlers = _HANDLERS
        for i in [i for i, t in enumerate(toks) if t.text in handlers or t.kind == DIRECTIVE]:
            t = toks[i]
            handler = handlers.get(t.text)
            if handler is not None:
                handler(self, toks, i, base, macro)
            else:
                self.directive(t, base)

    def directive(self, t: Token, base: int) -> None:
        text = t.text
        start = base + t.start
        if "__CUDA_ARCH__" in text and _CONDITIONAL.match(text):
            for inner in _tokens(text[1:]):
                if inner.text == "__CUDA_ARCH__":
                    self.report(start + 1 + inner.start, "cuda-arch", _CUDA_ARCH_MESSAGE)
                    break
            return
        m = _DEFINE.match(text)
        if not m:
            return
        warp.define(self, m.group(1), text[m.end() :], start + m.end())
        body = _tokens(text[1:])  # few and short: every macro body is scanned
        if body:
            self.scan(body, start + 1, macro=True)


def _tokens(text: str) -> list[Token]:
    try:
        return tokenize(text)
    except LexError:
        return []


def _has_device_code(text: str) -> bool:
    return "__global__" in text or "__device__" in text


def device_functions(toks: list[Token]) -> list[tuple[int, int, str]]:
    """The outermost function bodies declared ``__global__`` or ``__device__``, as sorted
    (index of ``{``, index of ``}``, kind) triples."""
    found = []
    stack: list[tuple[int, str]] = []  # open braces: (index, kind of the device function it opens)
    head = 0  # first token of the current declaration or statement
    inside = 0  # open braces of device functions
    for i in [i for i, t in enumerate(toks) if t.text in _BRACES or t.kind == DIRECTIVE]:
        text = toks[i].text
        if text == "{":
            kind = "" if inside else _function_kind(toks, head, i)
            inside += bool(kind)
            stack.append((i, kind))
            head = i + 1
        elif text == "}":
            if stack:
                start, kind = stack.pop()
                if kind:
                    inside -= 1
                    if not inside:
                        found.append((start, i, kind))
            head = i + 1
        else:  # ";" or a directive
            head = i + 1
    return found


_BRACES = frozenset({"{", "}", ";"})
_AFTER_PARAMETERS = frozenset({"const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&"})


def _function_kind(toks: list[Token], head: int, brace: int) -> str:
    """Whether the ``{`` at ``brace`` opens a device function (or lambda) body: its kind."""
    j = brace - 1
    while j > head and toks[j].text in _AFTER_PARAMETERS:
        j -= 1
    if j <= head or toks[j].text != ")":
        return ""
    depth = 0
    while j >= head:  # back to the parameter list's "("
        text = toks[j].text
        if text == ")":
            depth += 1
        elif text == "(":
            depth -= 1
            if depth == 0:
                break
        j -= 1
    words = set()
    j -= 1
    depth = 0
    while j >= head:
        text = toks[j].text
        if text == ")":
            depth += 1
        elif text == "(":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and text in ("=", ",", "{", "}"):
            break
        words.add(text)
        j -= 1
    if "__global__" in words:
        return "global"
    if "__device__" in words:
        return "host device" if "__host__" in words else "device"
    return ""


# ---- rules (the handlers are called with the token that triggers them) ---------------------
Handler = Callable[[Analysis, list[Token], int, int, bool], None]


def _call_open(toks: list[Token], i: int) -> int:
    """Index of the ``(`` after the name at ``toks[i]`` when it is called, else -1."""
    return i + 1 if i + 1 < len(toks) and toks[i + 1].text == "(" else -1


def _member(toks: list[Token], i: int) -> bool:
    return i > 0 and toks[i - 1].text in (".", "->")


def inline_asm(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    j = i + 1
    while j < len(toks) and toks[j].text in _ASM_QUALIFIERS:
        j += 1
    if j >= len(toks) or toks[j].text != "(":
        return
    try:
        close = match_close(toks, j)
    except ParseError:
        return
    in_device = not macro and a.device_kind(i)
    ptx = any(t.kind == STRING and _PTX.search(t.text) for t in toks[j + 1 : close])
    if in_device or ptx:
        where = "in device code" if in_device else "(PTX)"
        a.report(
            base + toks[i].start, "inline-asm", f"inline assembly {where} does not assemble for AMD GPUs"
        )


def texture_declaration(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    if i + 1 >= len(toks) or toks[i + 1].text != "<" or _member(toks, i):
        return
    depth = 0
    j = i + 1
    while j < len(toks):
        text = toks[j].text
        depth += {"<": 1, ">": -1, ">>": -2}.get(text, 0)
        if depth <= 0 or text in (";", "{", "}", "("):
            break
        j += 1
    if depth > 0 or j + 1 >= len(toks) or toks[j + 1].kind != IDENT:
        return
    name = toks[j + 1].text
    a.textures.add(name)
    kind = toks[i].text
    a.report(base + toks[i].start, "texture-reference", f"{kind} reference '{name}'")


def texture_fetch(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    open_ = _call_open(toks, i)
    if open_ < 0 or _member(toks, i) or not a.textures:
        return
    if open_ + 2 < len(toks) and toks[open_ + 1].text in a.textures and toks[open_ + 2].text in (",", ")"):
        name = toks[open_ + 1].text
        a.report(
            base + toks[i].start, "texture-reference", f"{toks[i].text} on the texture reference '{name}'"
        )


def launch_in_device(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    if not macro and a.device_kind(i):
        a.report(base + toks[i].start, "dynamic-parallelism", "a kernel launch in device code")


def device_runtime(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    if _call_open(toks, i) > 0 and not macro and a.device_kind(i):
        a.report(base + toks[i].start, "dynamic-parallelism", f"'{toks[i].text}' in device code")


def cooperative_launch(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    if _call_open(toks, i) > 0:
        message = f"'{toks[i].text}': a cooperative launch has limits on AMD GPUs"
        a.report(base + toks[i].start, "cooperative-launch", message)


def grid_variable(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    """``grid_group g`` or ``auto g = this_grid()``: remember ``g``; ``this_grid().sync()``."""
    text = toks[i].text
    if text in _GRID_TYPES:
        if i + 1 < len(toks) and toks[i + 1].kind == IDENT:
            a.grids.add(toks[i + 1].text)
        return
    close = i + 2
    if _call_open(toks, i) < 0 or close >= len(toks) or toks[close].text != ")":
        return
    if i >= 2 and toks[i - 1].text in ("=", "::") and toks[i - 2].kind == IDENT:
        k = i - 1
        while k >= 2 and toks[k].text == "::":  # cg::this_grid()
            k -= 2
        if toks[k].text == "=" and toks[k - 1].kind == IDENT:
            a.grids.add(toks[k - 1].text)
    if close + 2 < len(toks) and toks[close + 1].text == "." and toks[close + 2].text == "sync":
        _grid_sync(a, toks, close + 2, base)


def grid_sync(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    if not a.grids or _call_open(toks, i) < 0:
        return
    if i >= 2 and toks[i - 1].text == "." and toks[i - 2].text in a.grids:
        _grid_sync(a, toks, i, base)
    elif i + 3 < len(toks) and toks[i + 2].text in a.grids and toks[i + 3].text == ")":  # cg::sync(grid)
        _grid_sync(a, toks, i, base)


def _grid_sync(a: Analysis, toks: list[Token], i: int, base: int) -> None:
    message = "a grid-wide sync needs a cooperative launch (hipLaunchCooperativeKernel)"
    a.report(base + toks[i].start, "cooperative-launch", message)


def device_prop_field(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    if _member(toks, i):
        name = toks[i].text
        a.report(
            base + toks[i].start,
            "device-prop-field",
            f"cudaDeviceProp has '{name}', hipDeviceProp_t has not",
            DEVICE_PROP_FIELDS[name],
        )


def compute_capability(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    """``prop.major >= 7`` in a file that uses cudaDeviceProp: a compute capability means
    another thing on AMD GPUs."""
    if not _member(toks, i) or i + 2 >= len(toks) or not a.device_props:
        return
    if toks[i + 1].text in _COMPARISONS and toks[i + 2].kind == NUMBER:
        message = f"a compute-capability test ('{toks[i].text} {toks[i + 1].text} {toks[i + 2].text}')"
        hint = (
            "on AMD GPUs major.minor is the GCN/CDNA generation (9.4 for gfx942): test the feature "
            "(hipDeviceGetAttribute) or gcnArchName instead"
        )
        a.report(base + toks[i].start, "device-prop-field", message, hint)


def dnn_call(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    if a.to_miopen and _call_open(toks, i) > 0 and not _member(toks, i):
        name = toks[i].text
        message = f"'{name}' and its MIOpen counterpart take different arguments"
        a.report(base + toks[i].start, "dnn-arguments", message, DNN_ARGUMENTS[name])


def activemask(a: Analysis, toks: list[Token], i: int, base: int, macro: bool) -> None:
    warp.ballot(a, toks, i, base, macro)
    if _call_open(toks, i) > 0 and not _member(toks, i):
        a.report(base + toks[i].start, "activemask", "'__activemask()' returns a 64-bit mask in HIP")


def _handlers() -> dict[str, Handler]:
    table: dict[str, Handler] = {}
    for name in _ASM:
        table[name] = inline_asm
    table["texture"] = table["surface"] = texture_declaration
    for name in _TEXTURE_FETCHES:
        table[name] = texture_fetch
    table["<<<"] = launch_in_device
    for name in _DEVICE_RUNTIME:
        table[name] = device_runtime
    for name in _COOPERATIVE_LAUNCHES:
        table[name] = cooperative_launch
    for name in _GRID_TYPES | _GRID_GETTERS:
        table[name] = grid_variable
    table["sync"] = grid_sync
    for name in DEVICE_PROP_FIELDS:
        table[name] = device_prop_field
    table["major"] = table["minor"] = compute_capability
    for name in DNN_ARGUMENTS:
        table[name] = dnn_call
    table.update(warp.HANDLERS)
    table["__activemask"] = activemask
    return table


_HANDLERS = _handlers()


def analyze(
    text: str, toks: list[Token], *, fix_warp_size: bool = False, to_miopen: bool = False
) -> tuple[list[Finding], list[Edit]]:
    """The portability findings for ``text`` (tokens ``toks``), and the edits of
    ``fix_warp_size``; ``to_miopen``: cuDNN is being translated to MIOpen."""
    analysis = Analysis(text, toks, fix_warp_size, to_miopen)
    analysis.run()
    return analysis.findings, analysis.edits
