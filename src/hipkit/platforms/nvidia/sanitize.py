"""The NVIDIA platform's face for ``hipkit sanitize``: NVIDIA's compute-sanitizer, which
the program runs under with the same tool and options (it checks the GPU's kernels and
prints its own report).  It watches a whole process from its start, so it has no checks
inside a running Python process."""

from __future__ import annotations

from ..base.faces import SanitizeOptions, SanitizerUnavailable
from . import toolkit


class NvidiaSanitizer:
    """compute-sanitizer (the platform's ``sanitizer`` face)."""

    @staticmethod
    def command(options: SanitizeOptions) -> tuple[list[str], dict[str, str]]:
        found = toolkit.find_compute_sanitizer()
        if found is None:
            raise SanitizerUnavailable(toolkit.COMPUTE_SANITIZER_MISSING)
        prefix = [found, "--tool", options.tool, "--leak-check", options.leak_check]
        prefix += ["--print-limit", str(options.print_limit), "--error-exitcode", str(options.error_exitcode)]
        # Every array its own cudaMalloc, so that compute-sanitizer knows its exact size.
        return prefix, {"HIPKIT_MEMORY_POOL": "off"}

    @staticmethod
    def start(tool: str, print_limit: int) -> None:
        raise SanitizerUnavailable(
            "compute-sanitizer checks a process from its start: run it under hipkit sanitize"
        )

    @staticmethod
    def stop() -> int:
        raise SanitizerUnavailable("no compute-sanitizer checks run in this process")
