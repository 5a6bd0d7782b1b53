"""``with hipkit.sanitize("memcheck") as checks:``: hipkit sanitize's checks of the CPU
platform's kernels over a part of a Python program (README, "Finding bugs in kernels").

Inside the block, kernels compiled by the CPU platform are built with probes
(HIPKIT_SANITIZE is set for the block), the runtime checks their accesses against every
allocation and prints each error, the memory pools do not cache, and freed memory stays
mapped.  On leaving, the CPU devices' work is waited for, the checks end, and
``checks.errors`` is their count; a summary line is printed.  Kernels compiled before
the block have no probes, and are not checked.  Kernels on GPUs are not checked (run
the script under ``hipkit sanitize``, which runs compute-sanitizer on NVIDIA).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from . import config

if TYPE_CHECKING:
    from .runtime.pool import MemoryPool

TOOLS = ("memcheck",)


class Sanitizer:
    """The checks of one ``with`` block; ``errors`` once it has ended."""

    def __init__(self, tool: str = "memcheck", print_limit: int = 100) -> None:
        if tool not in TOOLS:
            raise ValueError(f"unknown sanitizer tool {tool!r}: expected one of {', '.join(TOOLS)}")
        if print_limit < 0:
            raise ValueError(f"print_limit={print_limit}: expected 0 (every error) or more")
        self.tool, self.print_limit = tool, print_limit
        self.errors: int | None = None
        self._pools: list[tuple[MemoryPool, bool]] = []
        self._started: list[tuple[str, Any]] = []  # (platform, its sanitizer face) checking the block

    def __enter__(self) -> Sanitizer:
        if config.get("HIPKIT_SANITIZE") != "off":
            raise RuntimeError("HIPKIT_SANITIZE already checks this process (hipkit sanitize)")
        from . import platforms
        from .platforms.base.faces import SanitizerUnavailable
        from .runtime import pool

        for name in platforms.having("sanitizer"):
            if platforms.status()[name]:
                continue  # not usable here
            face = platforms.faces(name).load("sanitizer")
            try:
                face.start(self.tool, self.print_limit)
            except SanitizerUnavailable:
                continue  # checks whole processes only (hipkit sanitize)
            self._started.append((name, face))
        os.environ["HIPKIT_SANITIZE"] = self.tool
        for existing in list(pool._pools.values()):
            self._pools.append((existing, existing.caching))
            existing.set_caching(False)
        return self

    def __exit__(self, *exc_info: object) -> None:
        from ._errors import HipError
        from .runtime.device import devices

        try:
            for name, _ in self._started:
                for device in devices(name):
                    try:
                        device.synchronize()
                    except HipError:  # a kernel that failed: its error stays the device's (sticky)
                        pass
        finally:
            del os.environ["HIPKIT_SANITIZE"]
            for existing, caching in self._pools:
                existing.set_caching(caching)
            self.errors = sum(face.stop() for _, face in self._started)
            plural = "" if self.errors == 1 else "s"
            print(f"========= ERROR SUMMARY: {self.errors} error{plural}", file=sys.stderr)


def sanitize(tool: str = "memcheck", *, print_limit: int = 100) -> Sanitizer:
    """Check the CPU kernels compiled and run inside the ``with`` block (module doc)."""
    return Sanitizer(tool, print_limit)
