"""Translate one CUDA source text to HIP, token by token.

Built on :mod:`hipkit.cxx.lexer`: identifiers are renamed by the name table; comments and
string and character literals are never touched; preprocessor lines are re-lexed so that
names in ``#define`` and ``#if`` lines are renamed too (but not their comments or
strings); ``#include`` lines of CUDA headers get the HIP header, as hipify-clang writes
them.  Everything else is copied, so a text with nothing to translate comes back
byte for byte.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from ..cxx.launch import Launch, parse_launch, template_kernels
from ..cxx.lexer import DIRECTIVE, IDENT, STATEMENT_KEYWORDS, LexError, Token, tokenize
from ..tables.names import Entry, table
from .analysis import analyze
from .arguments import Copy, arguments, call_edits, overloads, rewrites
from .report import Diagnostic, Location, Result, Stats
from .rules import RULES

__all__ = ["Options", "Diagnostic", "Location", "Stats", "Result", "translate", "LexError"]

RUNTIME_HEADER = "hip/hip_runtime.h"
# Tokens that make a file CUDA source even where no API name is used.
_CUDA_WORDS = frozenset(
    "__global__ __device__ __host__ __shared__ __constant__ __managed__ threadIdx blockIdx "
    "blockDim gridDim".split()
)
_INCLUDE = re.compile(r'#\s*include(?:_next)?\s*([<"])([^>"\n]*)([>"])')
_PRAGMA_ONCE = re.compile(r"#\s*pragma\s+once\b")
_IFNDEF = re.compile(r"#\s*ifndef\s+(\w+)")
_CONDITIONAL = re.compile(r"#\s*(if|ifdef|ifndef|endif)\b")
_NO_NAMES = re.compile(r"#\s*(error|warning)\b")  # free text, quotes need not pair
_WORD = re.compile(r"[A-Za-z_]\w*")
_TEMPLATE_MACRO = re.compile(r"#\s*define\s+(\w+)\s+(?:::)?\w+(?:::\w+)*\s*<[^<>]*>\s*$")


@dataclass(frozen=True)
class Options:
    """How to translate; the fields are hipify-clang's options of the same names.

    hip_kernel_execution_syntax
        Write launches as ``hipLaunchKernelGGL(...)`` instead of keeping ``<<<...>>>``.
    roc
        Translate to the ROC libraries (rocBLAS, rocSPARSE, rocSOLVER, rocRAND, MIOpen)
        instead of the hip* wrappers.
    miopen
        Translate cuDNN to MIOpen (and, as hipify-clang does, the others as with ``roc``).
    experimental
        Also translate names whose HIP equivalent is marked experimental.
    fix_warp_size
        Rewrite the safe cases of code that assumes 32 lanes per warp to ``warpSize``-based
        code (:mod:`hipkit.hipify.warp` lists them); the rest is reported.
    """

    hip_kernel_execution_syntax: bool = False
    roc: bool = False
    miopen: bool = False
    experimental: bool = False
    fix_warp_size: bool = False


def translate(text: str, *, filename: str = "<string>", options: Options | None = None) -> Result:
    """Translate CUDA source ``text`` to HIP.

    ``filename`` is used in diagnostics, and a ``.cu``/``.cuh`` name marks the text as
    CUDA source (which gets ``#include <hip/hip_runtime.h>`` even where it includes
    nothing, as hipify-clang does).

    Raises
    ------
    hipkit.cxx.lexer.LexError
        On an unterminated comment or literal (with its line and column).

    Example
    -------
    >>> r = translate('#include <cuda_runtime.h>\\ncudaMalloc(&p, n);  // cudaMalloc\\n')
    >>> print(r.text, end="")
    #include <hip/hip_runtime.h>
    hipMalloc(&p, n);  // cudaMalloc
    >>> r.stats.names[("cudaMalloc", "hipMalloc")], r.diagnostics
    (1, [])
    """
    return _Translation(text, filename, options or Options()).run()


class _Translation:
    def __init__(self, text: str, filename: str, options: Options):
        self.text = text
        self.filename = filename
        self.options = options
        names = table()
        self.identifiers = names.identifiers
        self.includes = names.includes
        self.stats = Stats(lines=text.count("\n"))
        self.diagnostics: list[Diagnostic] = []
        self.edits: list[tuple[int, int, str | Launch | tuple[str | Copy, ...]]] = []
        self._starts: list[int] = []  # the sorted edits' start offsets
        self.inserted: set[str] = set()  # main headers already included ("runtime", "blas", ...)
        self.cuda_source = filename.endswith((".cu", ".cuh"))
        self.first_include = -1
        self.template_macros: set[str] = set()
        self.pragma_once = -1
        self.blas_v2 = False
        self.toks: list[Token] = []
        self._newlines: list[int] | None = None

    @functools.cached_property
    def declared(self) -> frozenset[str]:
        """Names the file declares as functions (``type name(``): its own, not CUDA's."""
        toks = self.toks
        return frozenset(
            t.text
            for i, t in enumerate(toks[1:-1], 1)
            if t.kind == IDENT
            and toks[i + 1].text == "("
            and toks[i - 1].kind == IDENT
            and toks[i - 1].text not in STATEMENT_KEYWORDS
        )

    @functools.cached_property
    def kernels(self) -> frozenset[str]:
        """Names a launch writes as ``HIP_KERNEL_NAME(...)``: kernel templates, and macros
        that name a template instance (``#define KERNEL axpy<float>``)."""
        return template_kernels(self.toks) | frozenset(self.template_macros)

    # ---- driver -------------------------------------------------------------------
    def run(self) -> Result:
        toks = self.toks = tokenize(self.text)
        self.blas_v2 = "cublas_v2.h" in self.text and any(
            t.kind == DIRECTIVE and (m := _INCLUDE.match(t.text)) and m.group(2) == "cublas_v2.h"
            for t in toks
        )
        self.walk(toks, 0)
        self.analyze(toks)
        if "runtime" not in self.inserted and (self.cuda_source or self.edits or self.diagnostics):
            self.insert_runtime_header(toks)
        self.diagnostics.sort(key=lambda d: (d.line, d.col))
        return Result(self.assemble(), self.stats, self.diagnostics)

    def analyze(self, toks: list[Token]) -> None:
        """The portability rules (:mod:`hipkit.hipify.analysis`), and their fixes."""
        options = self.options
        findings, edits = analyze(
            self.text, toks, fix_warp_size=options.fix_warp_size, to_miopen=options.roc or options.miopen
        )
        for f in findings:
            line, col = self.position(f.offset)
            severity = "note" if f.fixed else RULES[f.rule].severity
            self.diagnostics.append(
                Diagnostic(self.filename, line, col, f.rule, severity, f.message, f.hint, f.fixed)
            )
        self.edits += edits

    def walk(self, toks: list[Token], base: int) -> None:
        """Translate ``toks``, whose offsets are relative to ``base`` in the source."""
        lookup = self.identifiers.get
        hip_launch = self.options.hip_kernel_execution_syntax
        for i, t in enumerate(toks):
            kind = t.kind
            if kind == IDENT:
                entry = lookup(t.text)
                if entry is not None:
                    self.name(entry, toks, i, base)
                elif t.text in _CUDA_WORDS:
                    self.cuda_source = True
            elif kind == DIRECTIVE:
                self.directive(t, base)
            elif t.text == "<<<":
                self.cuda_source = True
                if hip_launch and (found := parse_launch(toks, i, base)):
                    launch = found[0]
                    self.edits.append((launch.span[0], launch.span[1], launch))
                    self.stats.count("<<<>>>", "hipLaunchKernelGGL", "runtime", "kernel_launch")

    # ---- identifiers ----------------------------------------------------------------
    def name(self, entry: Entry, toks: list[Token], i: int, base: int) -> None:
        before = toks[i - 1].text if i else ""
        after = toks[i + 1].text if i + 1 < len(toks) else ""
        if entry.kind == "namespace" and after != "::" and before != "namespace":
            return
        if entry.kind == "device_func":
            # Checked only where called, and not where the file declares its own.
            if after == "(" and before not in (".", "->", "::") and entry.cuda not in self.declared:
                if entry.target(self.options.roc, self.options.miopen)[1] == "unsupported":
                    message = f"'{entry.cuda}' is an unsupported device function in HIP"
                    self.unsupported(entry, base + toks[i].start, message, "no equivalent: rewrite this call")
            return
        roc, miopen = self.options.roc, self.options.miopen
        new, status = entry.target(roc, miopen)
        start = base + toks[i].start
        library = "ROC" if entry.uses_roc(roc, miopen) else "HIP"
        if entry.cuda_status.startswith("deprecated"):
            message = f"'{entry.cuda}' is deprecated in CUDA {entry.cuda_status.partition(':')[2]}"
            self.diagnose(start, "deprecated-api", message.strip(), "")
        if status == "experimental" and not self.options.experimental:
            self.diagnose(
                start,
                "experimental-api",
                f"'{entry.cuda}' is experimental in {library}",
                "translate it with --experimental",
            )
            return
        if "v2-only" in entry.notes and entry.library == "blas" and not self.blas_v2:
            self.diagnose(
                start,
                "v2-only-api",
                f"only '{entry.cuda}_v2' version of '{entry.cuda}' is supported in {library}",
                "include 'cublas_v2.h' in the source",
            )
            return
        if status.startswith("deprecated"):
            version = status.partition(":")[2]
            message = f"'{entry.cuda}' becomes '{new}', which {library} deprecates" + (
                f" since {version}" if version else ""
            )
            self.diagnose(start, "hip-deprecated-api", message, RULES["hip-deprecated-api"].hint)
        if status == "unsupported":
            hint = (
                "try without --roc"
                if library == "ROC" and entry.hip_status != "unsupported"
                else ("no equivalent: rewrite this use by hand")
            )
            self.unsupported(entry, start, f"'{entry.cuda}' is unsupported in {library}", hint)
            return
        if after == "(" and before not in (".", "->"):
            new = self.call(entry, new, toks, i, base)
        if new != entry.cuda:
            self.edits.append((start, start + len(entry.cuda), new))
            self.stats.count(entry.cuda, new, entry.library, entry.kind)

    def call(self, entry: Entry, new: str, toks: list[Token], i: int, base: int) -> str:
        """hipify-clang's argument rewrites for a call of ``entry`` (``toks[i + 1]`` is its
        ``(``); returns the name to call, which may depend on the number of arguments."""
        key = (entry.cuda, self.options.roc, self.options.miopen)
        by_count = overloads().get(key)
        if by_count:
            found = arguments(toks, i + 1)
            if found is not None and len(found[0]) in by_count:
                new = by_count[len(found[0])]
        rows = rewrites().get(key)
        if rows:
            edits, applied = call_edits(toks, i + 1, base, rows)
            self.edits += edits
            for row in applied:
                if row.warning == "data-loss":
                    message = (
                        f"argument {row.arg + 1} of '{entry.cuda}' is dropped: '{new}' has no such parameter"
                    )
                    self.diagnose(
                        base + toks[i].start, "dropped-argument", message, RULES["dropped-argument"].hint
                    )
        return new

    def unsupported(self, entry: Entry, offset: int, message: str, hint: str) -> None:
        line, col = self.position(offset)
        self.stats.unsupported.append(Location(entry.cuda, line, col))
        self.diagnose(offset, "unsupported-api", message, hint)

    def diagnose(self, offset: int, rule: str, message: str, hint: str) -> None:
        line, col = self.position(offset)
        self.diagnostics.append(Diagnostic(self.filename, line, col, rule, "warning", message, hint))

    def position(self, offset: int) -> tuple[int, int]:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_left(self._newlines, offset)
        return line + 1, offset - (self._newlines[line - 1] + 1 if line else 0) + 1

    # ---- preprocessor lines -------------------------------------------------------
    def directive(self, t: Token, base: int) -> None:
        text = t.text
        start = base + t.start
        m = _INCLUDE.match(text)
        if m:
            self.include(m, start)
            return
        m = _PRAGMA_ONCE.match(text)
        if m and self.pragma_once < 0:
            self.pragma_once = start + m.end()
            return
        m = _TEMPLATE_MACRO.match(text)
        if m:
            self.template_macros.add(m.group(1))
        if _NO_NAMES.match(text):
            return
        body = text[1:]
        if "<<<" not in body and not any(w in self.identifiers for w in _WORD.findall(body)):
            return
        try:
            inner = tokenize(body)
        except LexError:
            return  # not C++ tokens (the compiler would complain): leave the line alone
        self.walk(inner, start + 1)

    def include(self, m: re.Match[str], start: int) -> None:
        path = m.group(2)
        if self.first_include < 0:
            self.first_include = start
        if path == RUNTIME_HEADER:
            # The source's own HIP include counts as the one runtime header.
            if "runtime" in self.inserted:
                self.edits.append((start, start + m.end(3), ""))
            self.inserted.add("runtime")
            return
        entry = self.includes.get(path)
        if entry is None:
            return
        new, status = entry.target(self.options.roc, self.options.miopen)
        if status == "unsupported":
            message = f"'{path}' is an unsupported header"
            self.diagnose(start + m.start(1), "unsupported-header", message, "no equivalent: rewrite by hand")
            return
        if self._excluded(entry, new, entry.uses_roc(self.options.roc, self.options.miopen)):
            # hipify-clang deletes from '#' to the end of the header name.
            self.edits.append((start, start + m.end(3), ""))
            self.stats.count(path, "", entry.library, entry.kind)
            return
        self.edits.append((start + m.start(1), start + m.end(3), f"{m.group(1)}{new}{m.group(3)}"))
        self.stats.count(path, new, entry.library, entry.kind)

    def _excluded(self, entry: Entry, new: str, to_roc: bool) -> bool:
        """hipify-clang's rule: one include per main header; removed headers go."""
        library = entry.library
        key = ""
        if entry.kind == "include_cuda_main_h":
            if library in ("driver", "runtime"):
                key = "runtime"
            elif library == "rand":
                key = {"hiprand/hiprand_kernel.h": "rand_kernel", "hiprand/hiprand.h": "rand"}.get(new, "")
                key = "" if to_roc else key
            elif library in ("blas", "dnn", "fft", "complex", "sparse", "solver"):
                key = library
        elif entry.kind == "include_cuda_main_v2_h":
            if library in ("blas", "sparse"):
                if library + "_v2" in self.inserted:
                    return True
                self.inserted.add(library + "_v2")
                return library in self.inserted
            return False
        else:
            if not new:
                return True
            if library == "rand":
                if to_roc:
                    key = new if new.rsplit("/", 1)[-1] in _ROCRAND_ONCE else ""
                elif new == "hiprand/hiprand_kernel.h":
                    key = "rand_kernel"
        if not key:
            return False
        if key in self.inserted:
            return True
        self.inserted.add(key)
        return False

    def insert_runtime_header(self, toks: list[Token]) -> None:
        """Add ``#include <hip/hip_runtime.h>`` where hipify-clang does: after
        ``#pragma once`` or the include guard's ``#ifndef``, else before the first
        include, else at the top."""
        places = [p for p in (self.pragma_once, self._guard_end(toks)) if p >= 0]
        if places:
            at = min(places)
        else:
            at = max(self.first_include, 0)
        newline = "\r\n" if "\r\n" in self.text[:4096] else "\n"
        self.edits.append((at, at, f"{newline}#include <{RUNTIME_HEADER}>{newline}"))

    @staticmethod
    def _guard_end(toks: list[Token]) -> int:
        """Offset after the macro name of an include guard wrapping the whole file, or -1."""
        if len(toks) < 2 or toks[0].kind != DIRECTIVE or toks[-1].kind != DIRECTIVE:
            return -1
        m = _IFNDEF.match(toks[0].text)
        if not m:
            return -1
        depth = 0
        for i, t in enumerate(toks):
            c = _CONDITIONAL.match(t.text) if t.kind == DIRECTIVE else None
            if c:
                depth += -1 if c.group(1) == "endif" else 1
                if depth == 0:
                    return toks[0].start + m.end() if i == len(toks) - 1 else -1
        return -1

    # ---- output -------------------------------------------------------------------
    def assemble(self) -> str:
        if not self.edits:
            return self.text
        self.edits.sort(key=lambda e: (e[0], e[1] > e[0], -e[1]))  # insertions first
        self._starts = [e[0] for e in self.edits]
        return self.render(0, len(self.text), 0)[0]

    def render(self, start: int, end: int, k: int, rewrites: bool = True) -> tuple[str, int]:
        """The text of ``[start, end)`` with the edits from index ``k`` on that lie in it;
        returns it and the index of the first edit after it.  ``rewrites=False`` leaves out
        argument rewrites (a copied argument gets its names translated, as it was written)."""
        edits, text = self.edits, self.text
        out = []
        pos = start
        while k < len(edits) and edits[k][0] < end:
            a, b, new = edits[k]
            k += 1
            if a < pos or b > end or (not rewrites and isinstance(new, tuple)):
                continue  # overlaps one already applied, or left out
            out.append(text[pos:a])
            if isinstance(new, Launch):
                out.append(new.render(functools.partial(self._span, k), self.kernels))
                while k < len(edits) and edits[k][0] < b:
                    k += 1
            elif isinstance(new, tuple):  # an argument rewrite: text and copies of arguments
                for part in new:
                    if isinstance(part, Copy):
                        first = bisect.bisect_left(self._starts, part.start)
                        out.append(self.render(part.start, part.end, first, rewrites=False)[0])
                    else:
                        out.append(part)
            else:
                out.append(new)
            pos = b
        out.append(text[pos:end])
        return "".join(out), k

    def _span(self, k: int, span: tuple[int, int]) -> str:
        return self.render(span[0], span[1], k)[0]


_ROCRAND_ONCE = frozenset({"rocrand_discrete.h", "rocrand_mtgp32.h", "rocrand_normal.h"})
