"""The trace files C++ processes write under ``hipkit prof``, read as a spool.

A C++ program traced by ``hipkit prof`` — built by ``hipkit cc`` for the CPU
(libhipkit_cpu's program tracing) or for NVIDIA (CUPTI, through
``cupti_inject.cpp``) — writes ``<HIPKIT_PROF_DIR>/<pid>.native.tsv`` as it
runs (the writer: ``hipkit_trace/native_trace.h``).  One record a line,
tab-separated: the domain, then the fields of that domain's spool row
(``_spool.py``) in order, a grid or block as ``x,y,z``, a meta value as JSON;
in strings ``\\t``, ``\\n`` and ``\\\\`` stand for a tab, a newline and a
backslash.  Times are CLOCK_MONOTONIC nanoseconds, ``time.perf_counter_ns``'s
clock.  Kernel names are as the platform gives them (mangled on NVIDIA).

:func:`convert` moves such a file into a :class:`~._spool.Spool`, keeping the
domains ``hipkit prof`` was asked for and the kernels its regexes keep, so
that the same :class:`~.trace.Trace` reads Python and C++ processes.  A
process that died while writing leaves a last line without its newline: that
line is ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ._domains import Domains
from ._spool import Spool

SUFFIX = ".native.tsv"


class NativeTraceError(ValueError):
    """A native trace file that is not what a hipkit writer writes."""


_ESCAPE = re.compile(r"\\(.)")
_ESCAPED = {"t": "\t", "n": "\n", "\\": "\\"}


def _text(field: str) -> str:
    if "\\" not in field:
        return field
    return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(0)), field)


def _triple(field: str) -> tuple[int, int, int]:
    x, y, z = field.split(",")
    return int(x), int(y), int(z)


# Each domain's fields, in the order of its spool row (_spool.py).
_FIELDS: dict[str, tuple[Callable[[str], Any], ...]] = {
    # dispatch, correlation, thread, device, stream, name, grid, block,
    # dynamic shared, static shared, host start, start, end
    "kernel": (int, int, int, _text, int, _text, _triple, _triple, int, int, int, int, int),
    # correlation, thread, device, stream, kind, bytes, source, destination, host start, start, end
    "copy": (int, int, _text, int, _text, int, _text, _text, int, int, int),
    "api": (int, int, _text, int, int),  # correlation, thread, function, start, end
    # correlation, thread, message, kind, depth, start, end
    "marker": (int, int, _text, _text, int, int, int),
    # correlation, thread, operation, memory, device, size, address, start, end
    "alloc": (int, int, _text, _text, _text, int, int, int, int),
    "device": (_text, _text),  # name, description
    "thread": (int, _text),  # id, name
    "meta": (_text, json.loads),  # key, value
}
# Domains a trace option turns off (the others are always kept).
_OPTIONAL = ("kernel", "copy", "api", "marker", "alloc")


def records(path: Path) -> Iterator[tuple[str, tuple]]:
    """``(domain, row)`` for each complete line of the native trace file ``path``.

    Raises
    ------
    NativeTraceError
        For a line that no writer of hipkit's writes (an unknown domain, a
        wrong number of fields, a field of the wrong kind), with its line number.
    """
    with open(path, encoding="utf-8", errors="replace", newline="\n") as f:
        for number, line in enumerate(f, start=1):
            if not line.endswith("\n"):
                return  # the process died while writing this line
            fields = line[:-1].split("\t")
            parse = _FIELDS.get(fields[0])
            if parse is None:
                raise NativeTraceError(f"{path}:{number}: unknown record kind {fields[0]!r}")
            if len(fields) - 1 != len(parse):
                raise NativeTraceError(
                    f"{path}:{number}: a {fields[0]} record has {len(parse)} fields, not {len(fields) - 1}"
                )
            try:
                row = tuple(convert(field) for convert, field in zip(parse, fields[1:], strict=True))
            except ValueError as exc:
                raise NativeTraceError(f"{path}:{number}: bad {fields[0]} record: {exc}") from None
            yield fields[0], row


def convert(path: Path, spool: Spool, domains: Domains) -> None:
    """Append the records of the native trace file ``path`` that ``domains``
    asks for to ``spool`` (flushed in chunks as it grows), and the domains to
    its meta rows.  Raises NativeTraceError for a malformed file."""
    wanted = {domain: getattr(domains, domain) for domain in _OPTIONAL}
    kernels: dict[str, bool] = {}
    rows = spool.rows
    for domain, row in records(path):
        if not wanted.get(domain, True):
            continue
        if domain == "kernel":
            name = row[5]
            keep = kernels.get(name)
            if keep is None:
                keep = kernels[name] = domains.kernel_wanted(name)
            if not keep:
                continue
        rows[domain].append(row)
        spool.maybe_flush()
    rows["meta"].append(("domains", domains.as_dict()))
    spool.flush()
