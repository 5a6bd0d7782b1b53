"""The CPU platform's face for ``hipkit sanitize``: its kernels built with probes and
checked by its runtime (``runtime/sanitize.cpp``; README, "Finding bugs in kernels").

For a program run by the command, the environment: HIPKIT_SANITIZE (which the
compiler and the runtime read) and the options.  Inside a Python process
(``hipkit.sanitize``), the runtime's checks started and stopped.
"""

from __future__ import annotations

import ctypes

from ..._errors import HipError
from ..base.faces import SanitizeOptions
from . import _lib


class CpuSanitizer:
    """memcheck of CPU kernels (the platform's ``sanitizer`` face)."""

    @staticmethod
    def command(options: SanitizeOptions) -> tuple[list[str], dict[str, str]]:
        return [], {
            "HIPKIT_SANITIZE": options.tool,
            "HIPKIT_SANITIZE_PRINT_LIMIT": str(options.print_limit),
            "HIPKIT_SANITIZE_LEAK_CHECK": options.leak_check,
            "HIPKIT_SANITIZE_ERROR_EXITCODE": str(options.error_exitcode),
            "HIPKIT_SANITIZE_REPORT": options.report,
        }

    @staticmethod
    def start(tool: str, print_limit: int) -> None:
        _call(_lib.load().hkrt_sanitize_start(tool.encode(), print_limit))

    @staticmethod
    def stop() -> int:
        count = ctypes.c_uint64()
        _call(_lib.load().hkrt_sanitize_stop(ctypes.byref(count)))
        return count.value


def _call(code: int) -> None:
    if code != 0:
        detail = _lib.load().hkrt_last_error_detail()
        raise HipError(code, detail.decode(errors="replace") if detail else "")
