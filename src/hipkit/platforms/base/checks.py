"""What every doctor check shares: the :class:`Check` it returns, version parsing, and the
checks every platform runs the same way (its device files; which of its devices the
visibility variables leave)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..._system import System

EXIT_CODES = {"ok": 0, "skip": 0, "warn": 1, "fail": 2}


@dataclass
class Check:
    """One check's outcome: status is "ok", "warn", "fail" or "skip"."""

    name: str
    status: str
    summary: str
    evidence: list[str] = field(default_factory=list)
    fix: str = ""
    platform: str = ""


def parse_version(text: str | None, parts: int = 2) -> tuple[int, ...] | None:
    """The first ``parts`` numbers of a dotted version in ``text``: "6.2.0-66" -> (6, 2)."""
    match = re.search(rf"\d+(?:\.\d+){{{parts - 1}}}", text or "")
    return tuple(int(n) for n in match.group().split(".")) if match else None


def dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def visible_count(
    present: int, filters: list[tuple[str, str]], noun: str = "GPUs", uuids: bool = True
) -> tuple[int, list[str]]:
    """How many of ``present`` devices (``noun``) the visibility variables leave, applied in
    order, and what each did.  As in HIP and CUDA a list ends at its first invalid entry, and
    "" hides all; with ``uuids`` (GPUs) a UUID (GPU-..., MIG-...) is taken as valid, since
    only the driver can resolve it."""
    count, evidence = present, []
    for name, value in filters:
        kept: list[str] = []
        for token in [t.strip() for t in value.split(",")] if value.strip() else []:
            valid_index = token.isdigit() and int(token) < count and token not in kept
            uuid = uuids and token.startswith(("GPU-", "MIG-"))
            if not (valid_index or uuid) or len(kept) == count:
                break
            kept.append(token)
        evidence.append(f"{name}={value!r}: {len(kept)} of {count} {noun} left")
        count = len(kept)
    return count, evidence


def device_files(system: System, name: str, paths: list[str], fix_missing: str, fix_denied: str) -> Check:
    if not paths:
        return Check(name, "fail", "no device file", [], fix_missing)
    missing = [p for p in paths if not system.exists(p)]
    denied = [p for p in paths if p not in missing and not system.access(p, os.R_OK | os.W_OK)]
    state = {p: "absent" if p in missing else "no read/write" if p in denied else "read/write" for p in paths}
    evidence = [f"{p}: {s}" for p, s in state.items()]
    if missing:
        return Check(name, "fail", f"missing: {', '.join(missing)}", evidence, fix_missing)
    if denied:
        return Check(name, "fail", f"not read/write for you: {', '.join(denied)}", evidence, fix_denied)
    return Check(name, "ok", "present, read/write", evidence)


def visibility(filters: list[tuple[str, str]], present: int, gpus: bool = True) -> Check:
    """Whether the visibility variables ``filters`` leave any of ``present`` devices (GPUs,
    or not: the CPU's); a failure when they hide every one (hipErrorNoDevice)."""
    noun = "GPUs" if gpus else "devices"
    name = f"visible {noun}"
    if not filters:
        return Check(name, "ok", "no visibility variable set")
    count, evidence = visible_count(present, filters, noun, uuids=gpus)
    if count == 0 and present:
        names = " ".join(n for n, _ in filters)
        return Check(
            name,
            "fail",
            f"the visibility variables hide all {present} {noun} (hipErrorNoDevice)",
            evidence,
            f"unset them (unset {names}) or list indices from 0 to {present - 1}, e.g. {filters[-1][0]}=0",
        )
    return Check(name, "ok", f"{count} of {present} {noun} visible", evidence)
