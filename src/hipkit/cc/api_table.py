"""docs/HIP_API.md: which functions of HIP's API each platform's headers declare, in two
halves: the runtime API of ROCm's ``hip_runtime_api.h`` (hipkit/tables/hip_runtime_api.tsv)
in programs' host code, and the device API of ROCm's device headers
(hipkit/tables/hip_device_api.tsv) in their device code.

``python -m hipkit.cc.api_table`` (``--check`` to compare, writing nothing) probes every
platform whose programs get HIP's API from hipkit's own headers (not the vendor's, as
AMD's do), and writes the document: for each half the coverage, then one row per function.

A name is declared when the compiler knows it: a function, an overload set, a template
or a macro (NVIDIA's headers map most names onto CUDA's with macros).  The probe compiles
a reference to each name with ``hipkit cc -c``, a file of names at a time, and reads the
compiler's diagnostics: "not declared" says a name is missing, any other error on its
line (an overload set's address) that it is there.  Device code takes each name's
address in a ``__device__`` function; nvcc tells a host function's there ("undefined in
device code") only of a file whose front end passed, so the names that raised no error
are probed again, alone.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import platforms
from ..tables import write_text
from ..tables.hip_api import DEVICE_GROUPS, DeviceFunction, Function, load, load_device
from .toolchains import toolchain_class

DOC = Path(__file__).resolve().parents[3] / "docs" / "HIP_API.md"
# The compilers' words for an undeclared name (LC_ALL=C): g++'s, nvcc's (also for a
# host function in device code: "identifier "f" is undefined in device code").
_UNDECLARED = (
    re.compile(r"'(\w+)' was not declared in this scope"),
    re.compile(r'identifier "(\w+)" is undefined'),
)
# A compiler's error line: g++'s (file:line:column), nvcc's (file(line)).
_DIAGNOSTIC = re.compile(r":\d+:\d+: error: |\(\d+\): error: ")
_PROBE_LINE = re.compile(r"probe(\d+)\.cpp(?::|\()(\d+)(?::\d+:|\):) error: ")
# nvcc stops reporting a file's errors at 100 (g++ reports them all).
_ERROR_LIMIT = re.compile(
    r'Error limit reached\.\s+\d+ errors detected in the compilation of "probe(\d+)\.cpp"'
)


@dataclass(frozen=True)
class Probe:
    """How a name is referenced: ``reference`` with ``{name}`` in it, one line of a file
    that includes HIP's runtime header.  ``device``: in device code, where a reference
    may compile as host code only, which the compiler may tell late."""

    reference: str
    device: bool


HOST = Probe("void hk_probe_{name}() {{ (void){name}; }}", device=False)
DEVICE = Probe("__device__ void hk_probe_{name}() {{ (void)&{name}; }}", device=True)
RUNTIME_HEADER = "hip/hip_runtime.h"


class _HeaderFailed(Exception):
    """The probe's files fail outside the lines that probe names."""


def tabled_platforms() -> list[str]:
    """The platforms whose programs get HIP's API from hipkit's headers, in the registry's order."""
    return [p for p in platforms.having("toolchain") if not toolchain_class(p).vendor_headers]


def _includes(header: str) -> list[str]:
    return [f"#include <{h}>" for h in dict.fromkeys((RUNTIME_HEADER, header))]


def _probe_source(names: list[str], probe: Probe, header: str) -> tuple[str, dict[int, str]]:
    """A probe file's text, and the name each line of a reference probes."""
    lines = _includes(header)
    at: dict[int, str] = {}
    for name in names:
        lines += [f"#ifndef {name}", probe.reference.format(name=name), "#endif"]
        at[len(lines) - 1] = name
    return "\n".join(lines) + "\n", at


def _cc(platform: str, texts: list[str]) -> subprocess.CompletedProcess:
    """``hipkit cc -c`` of ``texts`` as probe0.cpp, probe1.cpp, ... at once."""
    with tempfile.TemporaryDirectory(prefix="hipkit-api-") as folder:
        sources = []
        for i, text in enumerate(texts):
            (Path(folder) / f"probe{i}.cpp").write_text(text)
            sources.append(f"probe{i}.cpp")
        command = [sys.executable, "-m", "hipkit", "cc", "--platform", platform, "-c", *sources]
        env = dict(os.environ, LC_ALL="C")
        return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)


def _chunks(names: list[str], parts: int) -> list[list[str]]:
    size = max(1, -(-len(names) // parts))
    return [names[i : i + size] for i in range(0, len(names), size)]


def _compile(platform: str, names: list[str], probe: Probe, header: str) -> tuple[set[str], set[str]]:
    """One round: the names found missing, and those that raised no error in a file
    where others did.  The names go in a file per core; a file whose errors the
    compiler stopped reporting at its limit is probed again in halves."""
    missing: set[str] = set()
    erred: set[str] = set()
    failed: set[str] = set()  # names in the files with an error
    pending = _chunks(names, os.cpu_count() or 1)
    while pending:
        texts: list[str] = []
        lines: dict[tuple[int, int], str] = {}
        for i, chunk in enumerate(pending):
            text, at = _probe_source(chunk, probe, header)
            texts.append(text)
            lines.update(((i, line), name) for line, name in at.items())
        done = _cc(platform, texts)
        stopped = {int(i) for i in _ERROR_LIMIT.findall(done.stderr)}
        errors = [line for line in done.stderr.splitlines() if _DIAGNOSTIC.search(line)]
        for line in errors:
            m = _PROBE_LINE.match(line)
            name = lines.get((int(m.group(1)), int(m.group(2)))) if m else None
            if m is None or name is None:  # in a header, or a line that probes nothing
                raise _HeaderFailed(done.stderr[-4000:])
            if int(m.group(1)) in stopped:
                continue
            erred.add(name)
            failed.update(pending[int(m.group(1))])
            if name in {found for pattern in _UNDECLARED for found in pattern.findall(line)}:
                missing.add(name)
        if done.returncode and (not errors or any(len(pending[i]) == 1 for i in stopped)):
            raise _HeaderFailed(done.stderr[-4000:])
        pending = [half for i in sorted(stopped) for half in _chunks(pending[i], 2)]
    return missing, failed - erred


def declared(
    platform: str, names: list[str], probe: Probe = HOST, headers: Mapping[str, str] | None = None
) -> set[str]:
    """The names ``platform``'s program headers declare, by compiling references.

    ``headers``: the header a name needs beyond HIP's runtime header (``hip/hip_fp16.h``,
    ``hip/hip_bf16.h``).  Where such a header does not compile on the platform (hipkit's
    ``#error`` saying it lacks it, or a fault), the platform has none of its names.
    Raises RuntimeError when the probe cannot tell (the runtime header fails, or the
    probe's files fail where each header alone compiles)."""
    by_header: dict[str, list[str]] = {}
    for name in names:
        by_header.setdefault((headers or {}).get(name, RUNTIME_HEADER), []).append(name)
    missing: set[str] = set()
    for header, group in by_header.items():
        try:
            gone, unerring = _compile(platform, group, probe, header)
            if probe.device and unerring:
                gone |= _compile(platform, [n for n in group if n in unerring], probe, header)[0]
        except _HeaderFailed as failure:
            if (
                header == RUNTIME_HEADER
                or not _cc(platform, ["\n".join(_includes(header)) + "\n"]).returncode
            ):
                raise RuntimeError(f"probing {platform}'s headers failed:\n{failure}") from None
            gone = set(group)
        missing |= gone
    return set(names) - missing


def _share(have: int, total: int) -> str:
    return f"{have} of {total} ({100 * have / total:.1f} %)" if total else "-"


def _host_half(functions: list[Function], status: dict[str, set[str]]) -> list[str]:
    counted = [f for f in functions if f.counted]
    columns = list(status)
    lines = [
        "## The runtime API",
        "",
        "Every function of ROCm's `hip_runtime_api.h` (`src/hipkit/tables/hip_runtime_api.tsv`), and",
        "whether the headers of programs built by `hipkit cc` declare it on each platform whose",
        "programs use hipkit's headers (AMD's use ROCm's own).",
        "",
        f"Coverage of the {len(counted)} functions that are neither deprecated nor graphics interop:",
        "",
        "| platform | declared | share |",
        "|---|---|---|",
    ]
    for platform in columns:
        have = sum(f.name in status[platform] for f in counted)
        lines.append(f"| {platform} | {have} of {len(counted)} | {100 * have / len(counted):.1f} % |")
    lines += [
        "",
        "| group | function | notes | " + " | ".join(columns) + " |",
        "|---|---|---|" + "---|" * len(columns),
    ]
    for f in functions:
        notes = ", ".join(n for n, on in (("deprecated", f.deprecated), ("interop", f.interop)) if on)
        marks = " | ".join("yes" if f.name in status[p] else "no" for p in columns)
        lines.append(f"| {f.group} | `{f.name}` | {notes} | {marks} |")
    return lines


def _device_half(functions: list[DeviceFunction], status: dict[str, set[str]]) -> list[str]:
    columns = list(status)
    lines = [
        "## The device API",
        "",
        "Every function of HIP's device API that ROCm's device headers declare",
        "(`src/hipkit/tables/hip_device_api.tsv`, made by `python -m hipkit.tables.make_hip_device_table`",
        "from ROCm's and clang's HIP headers, whose versions its first line names), and whether its",
        "address can be taken in a `__device__` function of a program built by `hipkit cc` on each",
        "platform.  A name is one row however many overloads it has (`__hadd` for `int`, `__half`",
        "and `__hip_bfloat16`), in the group that declares it first, and it is declared when any of",
        "its overloads is.  *optional*: ROCm declares it only where its program defines",
        "`OCML_BASIC_ROUNDED_OPERATIONS` (the rounded arithmetic) or `HIP_ENABLE_WARP_SYNC_BUILTINS`",
        "(the warp functions with a mask).",
        "",
        "Coverage by group:",
        "",
        "| group | functions | " + " | ".join(columns) + " |",
        "|---|---|" + "---|" * len(columns),
    ]
    for group in [*DEVICE_GROUPS, ""]:
        members = [f for f in functions if f.group == group or not group]
        shares = [_share(sum(f.name in status[p] for f in members), len(members)) for p in columns]
        lines.append(f"| {group or 'all'} | {len(members)} | " + " | ".join(shares) + " |")
    lines += [
        "",
        "| group | function | notes | " + " | ".join(columns) + " |",
        "|---|---|---|" + "---|" * len(columns),
    ]
    for f in functions:
        notes = ", ".join(
            [*(["optional"] if f.optional else []), *(["also " + ", ".join(f.also)] if f.also else [])]
        )
        marks = " | ".join("yes" if f.name in status[p] else "no" for p in columns)
        lines.append(f"| {f.group} | `{f.name}` | {notes} | {marks} |")
    return lines


def document(
    functions: list[Function],
    status: dict[str, set[str]],
    device_functions: list[DeviceFunction],
    device_status: dict[str, set[str]],
) -> str:
    """The document for ``status`` and ``device_status``: platform -> the names its
    headers declare, of the runtime API and of the device API."""
    lines = [
        "# HIP's API on each platform",
        "",
        "What the headers of programs built by `hipkit cc` declare of HIP's API, on each platform",
        "whose programs use hipkit's headers: the runtime API in host code, the device API in",
        "device code.  Generated by `python -m hipkit.cc.api_table`; `tests/test_hip_api_table.py`",
        "checks it.",
        "",
        *_host_half(functions, status),
        "",
        *_device_half(device_functions, device_status),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hipkit.cc.api_table")
    parser.add_argument("--check", action="store_true", help="compare docs/HIP_API.md, write nothing")
    args = parser.parse_args(argv)
    functions, device_functions = load(), load_device()
    status = {p: declared(p, [f.name for f in functions]) for p in tabled_platforms()}
    headers = {f.name: f.header for f in device_functions}
    device_status = {
        p: declared(p, [f.name for f in device_functions], DEVICE, headers) for p in tabled_platforms()
    }
    text = document(functions, status, device_functions, device_status)
    if args.check:
        if DOC.read_text() != text:
            print(f"{DOC} is stale: run python -m hipkit.cc.api_table", file=sys.stderr)
            return 1
        return 0
    write_text(DOC, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
