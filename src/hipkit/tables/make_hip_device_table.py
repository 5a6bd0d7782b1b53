"""The table of HIP's device API: ``python -m hipkit.tables.make_hip_device_table
--source TEXT HEADER...`` reads ROCm's device headers and writes ``hip_device_api.tsv``
beside this file: every function of HIP's device API they declare, its group, the
header a program includes for it, and whether ROCm declares it only on request.
``hipkit.cc.api_table`` tables what each platform's headers declare of it.

What is in the table (the rule):

1. Every function a header declares for device code (one of its declaration
   specifiers names the device: ``__device__``, or a header's macro for it such as
   ``__DEVICE__``, ``__HOST_DEVICE__``, ``__BF16_DEVICE__``) at namespace scope: the
   global one, an unnamed namespace, ``extern "C"``.  Not members, operators, nor
   functions in a named namespace (``std::``, HIP's helpers).
2. Less the names reserved to what lies beneath HIP's API (:data:`_RESERVED`): one
   underscore then not another (C reserves them for the implementation); the device
   libraries' and the compiler's prefixes (``__ocml_``, ``__ockl_``, ``__llvm_``,
   ``__builtin_``, ``__amdgcn_``, ``__cxa_``, ``__asan_``); HIP's own helpers, which
   it names ``__hip_…`` and ``hip_…``, and HCC's (``hc_…``).
3. Less :data:`HELPERS`: double-underscore names that CUDA does not have either, that
   the headers define for their own use and HIP does not document.

A name's group comes from the first rule of :data:`_BY_NAME` it matches, else from
its header (``amd_hip_bf16.h``: bf16; ``amd_hip_fp16.h``: half2 where ``half2`` is in
its signature, else half), else from its signature (``double``: math-double;
``float``: math-float; neither: integer).  A name overloaded in several groups is
one row, in the group of its first declaration, the headers read in the order
given.  It is ``optional`` when it is declared only where a macro of :data:`OPT_IN`,
which ROCm leaves undefined, is defined.

The table as checked in was made from ROCm/clr's ``hipamd/include/hip/amd_detail``
and from clang's HIP headers (``__clang_hip_math.h`` and its siblings, where ROCm's
compiler declares the math API); the first line of the table names their versions.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..cxx.brackets import match_close
from ..cxx.lexer import DIRECTIVE, IDENT, LexError, Token, tokenize
from ..cxx.toplevel import scan_top_level
from . import write_text
from .hip_api import DEVICE_TABLE, DeviceFunction

_RESERVED = re.compile(r"_[^_]|__(?:ocml|ockl|llvm|builtin|amdgcn|cxa|asan)_|__hip_|hip_|hc_")
HELPERS = frozenset(
    {
        # __clang_hip_math.h: nan()'s parsing of its tag, and a static_assert for C++98
        "__make_mantissa",
        "__make_mantissa_base8",
        "__make_mantissa_base10",
        "__make_mantissa_base16",
        "__static_assert_equal_size",
        "__suppress_unused_warning",
        # amd_hip_fp16.h: the saturating operations' clamp
        "__clamp_01",
        # amd_device_functions.h: what __syncthreads, the fences, dynamic shared memory
        # and the lane masks are made of (OpenCL's barrier, address spaces, bit scans)
        "__barrier",
        "__work_group_barrier",
        "__local_to_generic",
        "__get_dynamicgroupbaseptr",
        "__lastbit_u32_u64",
    }
)
# What a program includes for a header's functions (the rest come with hip_runtime.h).
_INCLUDE = {"amd_hip_fp16.h": "hip/hip_fp16.h", "amd_hip_bf16.h": "hip/hip_bf16.h"}
# Macros ROCm leaves undefined by default: what only they declare is optional.
OPT_IN = frozenset({"OCML_BASIC_ROUNDED_OPERATIONS", "HIP_ENABLE_WARP_SYNC_BUILTINS"})
_BY_NAME = (
    ("sync", re.compile(r"__syncthreads|__threadfence|__syncwarp|__named_sync$")),
    ("warp", re.compile(r"__(?:shfl|ballot|any|all|activemask|match_|reduce_|lane_id|lanemask_|mbcnt_)")),
    ("atomic", re.compile(r"(?:safe|unsafe)?[Aa]tomic")),
    (
        "other",
        re.compile(
            r"(?:__)?clock|wall_clock|__smid$|(?:printf|malloc|free|memcpy|memset|abort)$|"
            r"__assert|__ld(?:g|cg|ca|cs)$"
        ),
    ),
)
_DIRECTIVE = re.compile(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", re.S)
_DEFINED = re.compile(r"(!?)\s*defined\s*\(?\s*(\w+)")


def _opts_in(kind: str, condition: str) -> bool:
    """Whether a conditional's branch holds only where an OPT_IN macro is defined."""
    if kind == "ifdef":
        return condition.split()[0] in OPT_IN if condition.split() else False
    if kind in ("if", "elif"):
        bare = condition.strip()
        return bare in OPT_IN or any(not bang and m in OPT_IN for bang, m in _DEFINED.findall(condition))
    return False


def _code(toks: list[Token]) -> tuple[list[Token], list[bool]]:
    """The tokens without directives, and for each whether it is in an opt-in branch."""
    code: list[Token] = []
    optional: list[bool] = []
    stack: list[bool] = []
    for t in toks:
        if t.kind != DIRECTIVE:
            code.append(t)
            optional.append(any(stack))
            continue
        m = _DIRECTIVE.match(t.text)
        if not m:
            continue
        kind, condition = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            stack.append(_opts_in(kind, condition))
        elif kind == "endif":
            if stack:
                stack.pop()
        elif stack:  # elif, else: the opt-in branch has ended
            stack[-1] = _opts_in(kind, condition)
    return code, optional


def _group(name: str, header: str, signature: str) -> str:
    for group, pattern in _BY_NAME:
        if pattern.match(name):
            return group
    if header == "amd_hip_bf16.h":
        return "bf16"
    if header == "amd_hip_fp16.h":
        return "half2" if "half2" in signature else "half"
    words = set(re.findall(r"\w+", signature))
    if "double" in words:
        return "math-double"
    return "math-float" if "float" in words else "integer"


def declarations(header: str, text: str) -> list[tuple[str, str, bool]]:
    """Every (name, group, optional) of ``text``'s device functions that is HIP's API
    by the module's rule, in the header's order (a name once per group)."""
    code, optional = _code(tokenize(text))
    found: list[tuple[str, str, bool]] = []
    for fn in scan_top_level(code).functions:
        name = fn.name
        specifiers = code[fn.decl_start : fn.name_index]
        if not name or any(fn.namespace) or _RESERVED.match(name) or name in HELPERS:
            continue
        if not any(t.kind == IDENT and "device" in t.text.lower() for t in specifiers):
            continue
        close = match_close(code, fn.params_open)
        signature = " ".join(t.text for t in code[fn.decl_start : close + 1] if t is not code[fn.name_index])
        found.append((name, _group(name, header, signature), optional[fn.name_index]))
    return found


def extract(headers: list[tuple[str, str]]) -> list[DeviceFunction]:
    """The table made of ``headers`` ((file name, text) in the order to read them)."""
    rows: dict[str, dict] = {}
    for header, text in headers:
        for name, group, optional in declarations(header, text):
            include = _INCLUDE.get(header, "hip/hip_runtime.h")
            row = rows.setdefault(name, {"groups": [], "header": include, "optional": True})
            if group not in row["groups"]:
                row["groups"].append(group)
            row["optional"] = row["optional"] and optional
    return [
        DeviceFunction(
            name,
            row["groups"][0],
            tuple(row["groups"][1:]),
            row["header"],
            row["optional"],
        )
        for name, row in rows.items()
    ]


def write_table(functions: list[DeviceFunction], source: str) -> None:
    lines = [
        f"# HIP's device API: the functions of {source}",
        "# Made by python -m hipkit.tables.make_hip_device_table; name, groups (its own first),"
        " the header to include, flag.",
    ]
    for f in functions:
        flag = "optional" if f.optional else "-"
        lines.append(f"{f.name}\t{','.join((f.group, *f.also))}\t{f.header}\t{flag}")
    write_text(DEVICE_TABLE, "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hipkit.tables.make_hip_device_table")
    parser.add_argument("headers", type=Path, nargs="+", help="ROCm's device headers, in the order to read")
    parser.add_argument("--source", default="ROCm's device headers", help="what the headers are")
    args = parser.parse_args(argv)
    headers = []
    for path in args.headers:
        try:
            text = path.read_text()
            if not declarations(path.name, text):
                parser.error(f"{path} declares no function of HIP's device API")
        except OSError as exc:
            parser.error(f"cannot read {path}: {exc.strerror}")
        except LexError as exc:
            parser.error(f"cannot read {path}: {exc}")
        headers.append((path.name, text))
    write_table(extract(headers), args.source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
