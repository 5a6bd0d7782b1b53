"""``hipkit doctor``: ROCm's installation troubleshooting table, checked on this machine.

Every check reads the machine through one :class:`~hipkit._system.System` and returns
a :class:`Check`: its status, what it saw (evidence) and, when something is wrong, the
fix in plain words with the command to run.  A vendor with nothing present (no driver,
no device file) is skipped, so a CPU-only machine passes.

Example
-------
>>> from hipkit._system import System
>>> from hipkit.doctor import exit_code, run_checks
>>> exit_code(run_checks(System())) in (0, 1, 2)
True

The checks live by concern: :mod:`.common` (what they share), :mod:`.gfx` (AMD GPUs as the machine
describes them), :mod:`.amd`, :mod:`.nvidia` and :mod:`.host` (the CPU platform and the frameworks).
"""

from __future__ import annotations

from dataclasses import replace

from .._system import System
from .amd import amd_checks
from .common import EXIT_CODES, Check, visible_count
from .gfx import ROCM_TARGETS, amd_filters, amd_gpus, gfx_override, gfx_target, gfx_version, rocm_version
from .host import FRAMEWORKS, cpu_checks, framework_checks
from .nvidia import DRIVER_FOR_CUDA, nvidia_checks, nvidia_driver, nvidia_filters, nvidia_gpu_count

__all__ = [
    "DRIVER_FOR_CUDA",
    "EXIT_CODES",
    "FRAMEWORKS",
    "ROCM_TARGETS",
    "SECTIONS",
    "Check",
    "amd_checks",
    "amd_filters",
    "amd_gpus",
    "cpu_checks",
    "exit_code",
    "format_text",
    "framework_checks",
    "gfx_override",
    "gfx_target",
    "gfx_version",
    "nvidia_checks",
    "nvidia_driver",
    "nvidia_filters",
    "nvidia_gpu_count",
    "rocm_version",
    "run_checks",
    "visible_count",
]

SECTIONS = {"AMD": amd_checks, "NVIDIA": nvidia_checks, "CPU": cpu_checks, "Frameworks": framework_checks}


def run_checks(system: System) -> list[Check]:
    """Every check, in the order printed, each tagged with its platform."""
    return [replace(c, platform=platform) for platform, section in SECTIONS.items() for c in section(system)]


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
