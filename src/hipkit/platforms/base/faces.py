"""What a platform's folder declares: the faces it has, found by the registry.

Each platform package (``hipkit/platforms/<name>/__init__.py``) defines ``FACES``,
a :class:`Faces`.  Every face but the probe is named as ``"module:attribute"``,
the module relative to the platform's package, and imported only when a tool
asks for it: listing the platforms imports no runtime, compiler or toolkit.

Example
-------
>>> from hipkit import platforms
>>> platforms.faces("cpu").title
'CPU'
"""

from __future__ import annotations

import importlib

# This module is read on hipkit run's fast path: it imports neither typing nor
# dataclasses (see hipkit.config).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["FACE_NAMES", "Faces", "ProgramTracingUnavailable", "SanitizeOptions", "SanitizerUnavailable"]

# The faces a platform may have, "module:attribute" each (see Faces).
FACE_NAMES = (
    "runtime",
    "toolchain",
    "checks",
    "devices",
    "program_tracing",
    "blas",
    "fft",
    "rand",
    "sanitizer",
)


def _always() -> bool:
    return True


class Faces:
    """The faces of one platform.

    Parameters
    ----------
    package
        The platform's package, which the faces' modules are relative to
        (``__name__`` of its ``__init__``).
    title
        How reports head its section ("CPU", "NVIDIA").
    gpu
        Whether its devices are GPUs (the doctor counts GPUs across platforms).
    runtime
        Its :class:`~hipkit.platforms.base.platform.Platform` subclass.
    toolchain
        Its :class:`~hipkit.platforms.base.toolchain.Toolchain` subclass, or None
        where ``hipkit cc`` cannot build programs for it.
    checks
        ``checks(system) -> list[Check]``: its section of ``hipkit doctor``.
    devices
        ``devices(system) -> (present, filters)``: how many devices the machine
        has and the visibility variables that choose among them, as
        ``(name, value)`` pairs in the order they apply (the doctor's visibility
        checks); None where the platform's driver is not there at all.
    program_tracing
        ``program_tracing() -> dict[str, str]``: the environment that makes a
        program built by ``hipkit cc`` trace itself for ``hipkit prof``, where it
        cannot do so by itself (raises :class:`ProgramTracingUnavailable` with
        the reason); None where nothing is needed.
    blas
        ``blas() -> BlasLibrary``: the platform's hipBLAS provider for Python
        (:mod:`hipkit.platforms.base.blas`), loaded once; raises ``BlasUnavailable``
        saying what to install.  None where the platform serves no BLAS.
    fft
        ``fft() -> FftLibrary``: the platform's hipFFT provider for Python
        (:mod:`hipkit.platforms.base.fft`), loaded once; raises ``FftUnavailable``
        saying what to install.  None where the platform serves no FFT.
    rand
        ``rand() -> RandLibrary``: the platform's hipRAND provider for Python
        (:mod:`hipkit.platforms.base.rand`), loaded once; raises ``RandUnavailable``
        saying what to install.  None where the platform serves no hipRAND.
    sanitizer
        How ``hipkit sanitize`` checks the platform's kernels: an object with
        ``command(options) -> (prefix, environment)``, the command line to run a
        program under (a vendor's tool: compute-sanitizer) and the environment to
        add, for the :class:`SanitizeOptions` given; and ``start(tool, print_limit)``
        / ``stop() -> errors`` for checks inside a Python process
        (``hipkit.sanitize``).  Each raises :class:`SanitizerUnavailable` saying what
        is missing.  None where the platform checks nothing yet.
    probe
        A cheap test, with no import, of whether the machine may have a device of
        the platform (its driver's device files): where no earlier platform's
        probe answers True, a later platform is certain to be the default
        (``hipkit run`` then finds a cached program without asking compilers).
    build_variables
        The environment variables, besides the compiler's own, that change what
        its toolchain builds (part of ``hipkit run``'s manifest key).
    variants
        Other ways the platform runs the same kernels, each an environment:
        the test suite runs every device test under each (the CPU's fiber
        executor).
    """

    __slots__ = (
        "package",
        "title",
        "gpu",
        "runtime",
        "toolchain",
        "checks",
        "devices",
        "program_tracing",
        "blas",
        "fft",
        "rand",
        "sanitizer",
        "probe",
        "build_variables",
        "variants",
    )

    def __init__(
        self,
        package: str,
        *,
        title: str,
        gpu: bool,
        runtime: str,
        toolchain: str | None = None,
        checks: str | None = None,
        devices: str | None = None,
        program_tracing: str | None = None,
        blas: str | None = None,
        fft: str | None = None,
        rand: str | None = None,
        sanitizer: str | None = None,
        probe: Callable[[], bool] = _always,
        build_variables: tuple[str, ...] = (),
        variants: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        self.package = package
        self.title = title
        self.gpu = gpu
        self.runtime = runtime
        self.toolchain = toolchain
        self.checks = checks
        self.devices = devices
        self.program_tracing = program_tracing
        self.blas = blas
        self.fft = fft
        self.rand = rand
        self.sanitizer = sanitizer
        self.probe = probe
        self.build_variables = build_variables
        self.variants = dict(variants or {})

    def load(self, face: str) -> Any:
        """The object ``face`` (one of :data:`FACE_NAMES`) names, imported now;
        None where the platform does not have it."""
        if face not in FACE_NAMES:
            raise ValueError(f"no face {face!r}; faces: {', '.join(FACE_NAMES)}")
        where = getattr(self, face)
        if where is None:
            return None
        module, _, attribute = where.partition(":")
        return getattr(importlib.import_module(module, self.package), attribute)

    def __repr__(self) -> str:
        return f"<Faces of {self.package}>"


class ProgramTracingUnavailable(RuntimeError):
    """A platform's programs cannot be traced here (the message says why)."""


class SanitizerUnavailable(RuntimeError):
    """A platform's kernels cannot be checked here, or not that way (the message says why)."""


class SanitizeOptions:
    """What ``hipkit sanitize`` was asked for: the tool, how many errors to print (0: all),
    the leak check ("full" or "no"), the exit status on errors (0: the program's), and the
    file the CPU runtime writes its error count to."""

    __slots__ = ("tool", "print_limit", "leak_check", "error_exitcode", "report")

    def __init__(
        self, tool: str, print_limit: int, leak_check: str, error_exitcode: int, report: str
    ) -> None:
        self.tool = tool
        self.print_limit = print_limit
        self.leak_check = leak_check
        self.error_exitcode = error_exitcode
        self.report = report
