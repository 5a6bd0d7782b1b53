"""The tracer: the tool the profiler installs at the runtime's hook point.

Each runtime call of a platform (``runtime/hooks.py``) comes here, through the
wrappers of ``_wrappers.py``, but for the launches of a platform with
timestamps of its own.  Device work — launches, copies, memsets — is timed by
the platform itself where it can (``_activity.py``: its records describe each
launch, whose path the tracer then leaves alone, and the hot path of a copy
only notes the call), else by timing events recorded around it
(``_clock.py``); everything else on the host.  Rows go to a
:class:`~._spool.Spool`, in its layouts.  This module holds the tracer's life
(start, stop, a forked child), its threads' state, the HIP-named API's calls,
and markers and ranges.

Correlation: each HIP-named API call (``hipkit.hip``) gets an id, which the
device work it causes carries (given to the platforms with timestamps of their
own as it begins, ``Platform.activity_correlate``); a Python API call that reaches the platform
directly (``kernel[g, b](...)``, ``array.get()``) is recorded as the HIP call it
amounts to, with an id of its own.
"""

from __future__ import annotations

import itertools
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from .._errors import HipError
from ..platforms.base.platform import Platform
from ..runtime import hooks
from ._activity import Activity
from ._clock import DeviceClock, clock
from ._domains import Domains
from ._spool import Spool
from ._wrappers import wrapper

log = logging.getLogger("hipkit")

# The tracer running now (markers and ranges go to it), if any.
active: Tracer | None = None
_life = threading.Lock()  # a profile's start and stop: one at a time, whichever threads run them


class _Thread:
    """A host thread's state in the tracer."""

    __slots__ = ("busy", "cid", "ranges", "tid")

    def __init__(self, tid: int):
        self.tid = tid  # the native id
        self.cid = 0  # the correlation id of the HIP-named API call running on this thread
        self.busy = False  # in a traced platform call: the platform calls it makes pass through
        self.ranges: list | None = None  # open hipkit.range()s: (message, start)


class _Local(threading.local):
    """Each thread's :class:`_Thread`, made (and the thread's name noted) when
    it first calls.  One object in one thread-local field: the hot path reads a
    thread-local field once, which costs more than reading the object's fields."""

    def __init__(self, note_thread: Callable[[int, str], None]):
        tid = threading.get_native_id()
        self.thread = _Thread(tid)
        note_thread(tid, threading.current_thread().name)


class Tracer:
    """Records what passes the hook point into ``spool``, for ``domains``."""

    def __init__(self, spool: Spool, domains: Domains | None = None):
        self.spool = spool
        self.domains = domains or Domains()
        self.ids = itertools.count(1)
        self._lock = threading.RLock()
        self._threads: set[int] = set()  # the native ids of the threads in the trace
        # Names of the threads alive at the start or started since (Tracer._thread_started):
        # a thread that only launches on a platform describing launches makes no call here.
        self._thread_names: dict[int, str] = {}
        self._profile_before: Any = None  # threading's profile function for new threads, put back
        self.local = _Local(self._note_thread)
        self.clocks: dict[tuple[int, int], DeviceClock] = {}  # (id(platform), native) -> its clock
        # id(platform) -> its own timestamps, or None where its devices' clocks time the work
        self.activities: dict[int, Activity | None] = {}
        self.finalizer_unloads = 0
        self._dispatch_ids = itertools.count(1)
        self.sizes: dict[int, int] = {}  # allocation sizes, for frees
        # Each platform's activity_correlate, where launches are not wrapped: a
        # HIP-named call's id reaches the launches it makes through the platform.
        self._correlate: tuple[Callable[[int], None], ...] = ()

    def _note_thread(self, tid: int, name: str | None = None) -> None:
        """A thread in the trace: its name noted once (found by its native id if not given)."""
        if tid in self._threads:
            return
        with self._lock:
            if tid in self._threads:
                return
            self._threads.add(tid)
            if name is None:
                name = self._thread_names.get(tid) or next(
                    (t.name for t in threading.enumerate() if t.native_id == tid), f"thread {tid}"
                )
            self.spool.rows["thread"].append((tid, name))

    def _thread_started(self, frame: Any, event: str, arg: Any) -> None:
        """threading's profile function while tracing: a new thread's first event notes
        its name, then gives the thread the profile function it would have had."""
        self._thread_names[threading.get_native_id()] = threading.current_thread().name
        before = self._profile_before
        sys.setprofile(before)
        if before is not None:
            before(frame, event, arg)

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Install at the hook point, over the tools there: one profile at a time."""
        global active
        with _life:
            if active is not None:
                raise RuntimeError("a profile is running: one at a time (a profiler is already installed)")
            hooks.install(self)
            active = self
        meta = [("pid", os.getpid()), ("started_ns", clock()), ("domains", self.domains.as_dict())]
        self.spool.rows["meta"] += meta
        self._thread_names.update((t.native_id, t.name) for t in threading.enumerate() if t.native_id)
        self._profile_before = threading.getprofile()
        threading.setprofile(self._thread_started)

    def stop(self) -> None:
        """Leave the hook point, resolve every record, give the events back."""
        global active
        with _life:
            if active is self:
                active = None
            if self in hooks.installed():  # not in a forked child, where it was left
                hooks.uninstall(self)
        if threading.getprofile() == self._thread_started:
            threading.setprofile(self._profile_before)
        try:
            for timing in self._timings():
                timing.close()
        finally:
            meta = self.spool.rows["meta"]
            timestamps = self._timestamps()
            if timestamps:
                meta.append(("device_timestamps", timestamps))
            if self.finalizer_unloads:
                meta.append(("module_unloads_by_finalizer", self.finalizer_unloads))
            meta.append(("ended_ns", clock()))
            self.spool.flush()

    def resolve(self) -> None:
        """Wait for the devices and resolve every record (to read them now)."""
        for timing in self._timings():
            timing.drain(wait=True)

    def _timings(self) -> list[DeviceClock | Activity]:
        activities = [activity for activity in self.activities.values() if activity is not None]
        return [*activities, *self.clocks.values()]

    def _timestamps(self) -> dict[str, dict[str, Any]]:
        """Per platform: where device times came from, and what lacked them."""
        summary: dict[str, dict[str, Any]] = {}
        for timing in self._timings():
            name = timing.platform.name
            if isinstance(timing, Activity):
                summary[name] = {"source": "platform", "host_times": timing.untimed}
                summary[name]["unmatched_records"] = timing.unmatched
            else:
                summary.setdefault(name, {"source": "events", "host_times": 0})
                summary[name]["host_times"] += timing.untimed
        return summary

    def clock_of(self, platform: Platform, native: int) -> DeviceClock | Activity:
        """What times the device's work: its platform's own timestamps, or else
        its clock (made, with its reference event, on first use)."""
        activity = self.activities.get(id(platform))
        if activity is not None:
            activity.device(native)
            return activity
        return self.device_clock(platform, native)

    def device_clock(self, platform: Platform, native: int) -> DeviceClock:
        key = (id(platform), native)
        device_clock = self.clocks.get(key)
        if device_clock is None:
            with self._lock:
                device_clock = self.clocks.get(key)
                if device_clock is None:
                    methods = hooks.own_methods(platform)
                    device_clock = DeviceClock(platform, native, methods, self.spool, self._dispatch_ids)
                    self.clocks[key] = device_clock
        return device_clock

    def api_row(self, cid: int, name: str, start: int) -> None:
        if self.domains.api:
            self.spool.rows["api"].append((cid, self.local.thread.tid, name, start, clock()))

    # ------------------------------------------------------------------ the hook point

    def api_call(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """A ``hipkit.hip`` call: one API record; the work it causes carries its id."""
        thread = self.local.thread
        if thread.cid:  # hipStreamCreate calling hipStreamCreateWithFlags: the outer one counts
            return fn(*args, **kwargs)
        cid = thread.cid = next(self.ids)
        correlate = self._correlate
        for platform_correlate in correlate:
            platform_correlate(cid)
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            thread.cid = 0
            for platform_correlate in correlate:
                platform_correlate(0)
            self.api_row(cid, name, start)
            self.spool.maybe_flush()

    def wrap(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any] | None:
        """The hook point's: what traces ``platform.<name>`` for the domains (``_wrappers.py``).
        The platform's own timestamps start with its first method wrapped."""
        with self._lock:
            if id(platform) not in self.activities:
                self.activities[id(platform)] = self._start_activity(platform)
        return wrapper(self, platform, self.activities[id(platform)], name, original)

    def _start_activity(self, platform: Platform) -> Activity | None:
        """The platform's own timestamps, if it has them and device work is traced."""
        if not (self.domains.kernel or self.domains.copy):
            return None
        try:
            started = platform.activity_start()
        except HipError as exc:
            log.warning("profiler: %s cannot time its own work, events will: %s", platform.name, exc)
            return None
        if not started:
            return None
        methods = hooks.own_methods(platform)
        activity = Activity(
            platform, methods, self.spool, self._dispatch_ids, self.domains, self.ids, self._note_thread
        )
        self._correlate += (platform.activity_correlate,)
        return activity

    # ------------------------------------------------------------------ markers

    def mark(self, message: str) -> None:
        if self.domains.marker:
            now, thread = clock(), self.local.thread
            depth = len(thread.ranges) if thread.ranges else 0
            row = (next(self.ids), thread.tid, message, "mark", depth, now, now)
            self.spool.rows["marker"].append(row)

    def range_push(self, message: str) -> None:
        thread = self.local.thread
        if thread.ranges is None:
            thread.ranges = []
        thread.ranges.append((message, clock()))

    def range_pop(self) -> None:
        thread = self.local.thread
        if not thread.ranges:
            return  # opened before the profile started
        message, start = thread.ranges.pop()
        if self.domains.marker:
            row = (next(self.ids), thread.tid, message, "range", len(thread.ranges), start, clock())
            self.spool.rows["marker"].append(row)


def _forked() -> None:
    """In a child made by fork(): the running tracer's records and spool are the parent's."""
    global active, _life
    _life = threading.Lock()  # perhaps held by a thread that did not survive the fork
    if active is not None:
        tracer, active = active, None
        hooks.forget(tracer)
        tracer.spool.disown()
        tracer.clocks.clear()  # the devices' events are the parent's too
        tracer.activities.clear()
        tracer._correlate = ()


os.register_at_fork(after_in_child=_forked)
