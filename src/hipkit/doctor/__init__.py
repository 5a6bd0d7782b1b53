"""``hipkit doctor``: ROCm's installation troubleshooting table, checked on this machine.

Every check reads the machine through one :class:`~hipkit._system.System` and returns
a :class:`~hipkit.platforms.base.checks.Check`: its status, what it saw (evidence) and,
when something is wrong, the fix in plain words with the command to run.

The report has a section per platform, in the registry's order: the checks of the
platform's own folder (its checks face: ``hipkit/platforms/<name>/checks.py``), then,
where the platform's devices face finds it here, whether the visibility variables
leave any of its devices (the seed's hipErrorNoDevice row, the CPU's included) and,
where it has devices and serves BLAS, whether its BLAS library loads (the provider
and its version, or what to install).  A
vendor with nothing present (no driver, no device file) is skipped, so a CPU-only
machine passes.  The frameworks' section comes last (:mod:`.frameworks`).

Example
-------
>>> from hipkit._system import System
>>> from hipkit.doctor import exit_code, run_checks
>>> exit_code(run_checks(System())) in (0, 1, 2)
True
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .. import platforms
from .._system import System
from ..platforms.base.blas import BlasUnavailable
from ..platforms.base.checks import EXIT_CODES, Check, visibility
from .frameworks import FRAMEWORKS, framework_checks

__all__ = ["EXIT_CODES", "FRAMEWORKS", "Check", "exit_code", "format_text", "run_checks"]


def run_checks(system: System) -> list[Check]:
    """Every check, in the order printed, each tagged with its section (its platform's
    title, or "Frameworks")."""
    found: list[Check] = []
    gpus = []
    for name in platforms.known():
        faces = platforms.faces(name)
        section = faces.load("checks")
        checks = list(section(system)) if section is not None else []
        devices_face = faces.load("devices")
        counted = devices_face(system) if devices_face is not None else None
        if counted is not None:
            present, filters = counted
            checks.append(visibility(filters, present, gpus=faces.gpu))
            if faces.gpu:
                gpus.append((faces.title, present, filters))
            # The library is loaded from this process: only the real machine's.
            if present and faces.blas is not None and system.root == Path("/"):
                checks.append(_blas(faces.load("blas")))
        found += [replace(c, platform=faces.title) for c in checks]
    return found + [replace(c, platform="Frameworks") for c in framework_checks(system, gpus)]


def _blas(library) -> Check:
    """Whether the platform's BLAS provider loads, and which library it is."""
    try:
        described = library().description
    except BlasUnavailable as exc:
        return Check("BLAS", "warn", "no BLAS library: hipBLAS calls will fail", [str(exc)], fix=str(exc))
    return Check("BLAS", "ok", described)


def exit_code(checks: list[Check]) -> int:
    """0 when every check is ok or skipped, 1 when one warns, 2 when one fails."""
    return max((EXIT_CODES[c.status] for c in checks), default=0)


def format_text(checks: list[Check], verbose: bool = False) -> str:
    """The report, grouped by platform: one line a check, the fix under warnings and failures."""
    lines: list[str] = []
    platform = None
    for check in checks:
        if check.platform != platform:
            platform = check.platform
            lines.append(platform)
        lines.append(f"  {check.status:<4}  {check.name}: {check.summary}")
        if verbose:
            lines += [f"          {e}" for e in check.evidence]
        if check.status in ("warn", "fail") and check.fix:
            lines.append(f"          fix: {check.fix}")
    return "\n".join(lines)
