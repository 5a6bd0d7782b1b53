"""Profiling from Python: ``hipkit.profile()``, ``hipkit.mark()``, ``hipkit.range()``,
and the start-up of a process that ``hipkit prof`` runs.

Example
-------
>>> with hipkit.profile() as p:
...     with hipkit.range("step"):
...         vector_add[grid, 256](a, b, c, n)
...         hipkit.mark("launched")
...     c.get()
>>> print(p.stats())                    # per kernel: calls, total, average, ...
>>> p.save("trace.json")                # open in https://ui.perfetto.dev
>>> p.save("trace.pftrace")             # Perfetto's own format, by the suffix
>>> p.save_csv("prof")                  # rocprofv3's kernel_trace.csv, ...
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import signal
import sys
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from .. import config
from ..runtime.device import current_device
from . import _tracer
from ._domains import Domains
from ._spool import Spool
from ._tracer import Tracer
from .trace import Trace

F = TypeVar("F", bound=Callable[..., Any])


class Profile(Trace):
    """A profiling session: what runs between :meth:`start` and :meth:`stop`
    (or inside ``with``) is traced.  Records are kept in a temporary file in
    chunks, so memory stays small however long the session runs.

    Parameters
    ----------
    kernel_trace, hip_trace, memory_copy_trace, marker_trace, memory_allocation_trace
        The domains to record (rocprofv3's options), all by default.
    kernel_include_regex, kernel_exclude_regex
        Trace only kernels whose name matches (``re.search``) the first and not
        the second.
    kernel_names
        "demangled" (the default), "mangled" or "truncated" (the bare function name).
    """

    def __init__(
        self,
        *,
        kernel_trace: bool = True,
        hip_trace: bool = True,
        memory_copy_trace: bool = True,
        marker_trace: bool = True,
        memory_allocation_trace: bool = True,
        kernel_include_regex: str | None = None,
        kernel_exclude_regex: str | None = None,
        kernel_names: str = "demangled",
    ):
        self._domains = Domains(
            kernel=kernel_trace,
            api=hip_trace,
            copy=memory_copy_trace,
            marker=marker_trace,
            alloc=memory_allocation_trace,
            include=kernel_include_regex,
            exclude=kernel_exclude_regex,
        )
        fd, name = tempfile.mkstemp(prefix="hipkit-profile-", suffix=".spool")
        os.close(fd)
        self._spool = Spool(Path(name))
        self._tracer: Tracer | None = None
        self._ran = False
        self._finalizer = weakref.finalize(self, _remove, Path(name))
        super().__init__(self._spool.read, kernel_names)

    @property
    def running(self) -> bool:
        return self._tracer is not None

    def start(self) -> Profile:
        """Start tracing (a session runs once; one session at a time)."""
        if self._ran:
            raise RuntimeError("this profile has already run; make a new one with hipkit.profile()")
        tracer = Tracer(self._spool, self._domains)
        tracer.start()
        device = current_device()
        if device is not None:
            # Its timing events and reference now, not inside the first traced
            # launch: making them takes a while on a GPU, which the program's own
            # timing of that launch would otherwise include.
            tracer.clock_of(device.platform, device._native)
        self._tracer, self._ran = tracer, True
        return self

    def stop(self) -> None:
        """Stop tracing: wait for the traced device work and resolve its times."""
        if self._tracer is None:
            raise RuntimeError("this profile is not running")
        tracer, self._tracer = self._tracer, None
        tracer.stop()

    def _resolved(self) -> None:
        if self._tracer is not None:
            self._tracer.resolve()

    def __enter__(self) -> Profile:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<hipkit.Profile {state}, spooled to {self._spool.path}>"


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)


def profile(**options: Any) -> Profile:
    """A profiling session for ``with``: ``with hipkit.profile() as p: ...``,
    then ``p.stats()``, ``p.kernels``, ``p.save("trace.json")``.  Options: see
    :class:`Profile`."""
    return Profile(**options)


def mark(message: str) -> None:
    """An instant marker in the trace (roctxMark); nothing when not profiling."""
    tracer = _tracer.active
    if tracer is not None:
        tracer.mark(str(message))


class range:  # hipkit.range, after roctx's ranges
    """A named range of host time in the trace (roctxRangePush/Pop), nested
    per thread: ``with hipkit.range("step"):`` or, on a function,
    ``@hipkit.range("step")``.  Costs one test when not profiling."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = str(message)

    def __enter__(self) -> range:
        tracer = _tracer.active
        if tracer is not None:
            tracer.range_push(self.message)
        return self

    def __exit__(self, *exc: object) -> None:
        tracer = _tracer.active
        if tracer is not None:
            tracer.range_pop()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def ranged(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return ranged  # type: ignore[return-value]


# ---------------------------------------------------------------------- hipkit prof's child

OPTIONS_FILE = "options.json"


def start_from_environment() -> None:
    """Trace this process from now to its exit into HIPKIT_PROF_DIR, as ``hipkit
    prof`` asked (its options in the directory's options.json).  The records are
    flushed at exit, after an uncaught exception too, and on SIGTERM.  The spool,
    ``<pid>.spool``, is made now: its presence tells hipkit's CUPTI library,
    which CUDA loads into every process of an NVIDIA run, that this process is
    traced here (``cupti_inject.cpp``)."""
    directory = Path(config.get("HIPKIT_PROF_DIR"))
    try:
        domains = Domains(**json.loads((directory / OPTIONS_FILE).read_text()))
    except (OSError, ValueError, TypeError) as exc:
        print(f"hipkit: HIPKIT_PROF_DIR={directory}: not profiling: {exc}", file=sys.stderr)
        return
    tracer = Tracer(Spool(directory / f"{os.getpid()}.spool"), domains)
    tracer.start()
    finished = False

    def finish() -> None:
        nonlocal finished
        if finished:
            return
        finished = True
        try:
            tracer.stop()
        except Exception as exc:  # the program's own exit status must stay
            print(f"hipkit prof: the trace may be incomplete: {exc}", file=sys.stderr)

    atexit.register(finish)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:

        def terminated(signum: int, frame: object) -> None:
            finish()
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

        try:
            signal.signal(signal.SIGTERM, terminated)
        except ValueError:
            pass  # not the main thread: atexit still flushes
