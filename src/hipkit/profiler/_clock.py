"""Device time for the tracer: timing events around device work, resolved late.

The fallback for platforms that cannot stamp their work themselves (see
``_activity.py`` and Platform.activity_start).  For each launch, copy or
memset the tracer records an event of the device's pool on the work's stream
before and after it, and keeps a *pending* entry.
Entries are resolved — their events' times read, the events returned to the
pool — when many wait, when the device is reset, when the profile is read and
when it ends.  A *reference* event, recorded on the idle device at a known host
time, puts device times on the host's clock (``time.perf_counter_ns``); it is
taken again at a device synchronization once a second, since elapsed times are
single precision (about 0.1 us of rounding per second from the reference).
Should the events fail (a sticky error), entries get the host times of their call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .._errors import HipError
from ..platforms.base.platform import (
    DEFAULT,
    DEVICE_TO_DEVICE,
    DEVICE_TO_HOST,
    HOST_TO_DEVICE,
    HOST_TO_HOST,
    Platform,
)

if TYPE_CHECKING:
    from ._spool import Spool

log = logging.getLogger("hipkit")
clock = time.perf_counter_ns

# Entries waiting before those done are resolved (each holds two events of the
# pool), and the most before the tracer waits for the device.
PENDING_HIGH = 1024
PENDING_MAX = 16384
POOL_START = 128  # events made with the reference, before the program's work
REANCHOR_NS = 1_000_000_000

# A pending entry is a tuple (cheap to make on the hot path):
#   (domain, stream, start event, stop event, host start, host end, correlation id, thread id, *payload)
# payload, kernel: (name, grid, block, dynamic shared bytes, static shared bytes)
#          copy:   (kind, bytes, source, destination)
# (no objects but numbers, strings and tuples of them: the garbage collector skips such tuples)
STREAM, STOP = 1, 3
Pending = tuple


COPY_KINDS = {
    HOST_TO_HOST: "HOST_TO_HOST",
    HOST_TO_DEVICE: "HOST_TO_DEVICE",
    DEVICE_TO_HOST: "DEVICE_TO_HOST",
    DEVICE_TO_DEVICE: "DEVICE_TO_DEVICE",
    DEFAULT: "DEFAULT",
}


def device_name(platform: Platform, native: int) -> str:
    """The device's name in a trace: its platform and hipkit's index ("cpu:0", "nvidia:1")."""
    visible = platform.visible_devices()
    return f"{platform.name}:{visible.index(native) if native in visible else native}"


def add_device(platform: Platform, native: int, spool: Spool) -> str:
    """Note the device (its name and description) in the trace; returns its name."""
    name = device_name(platform, native)
    try:
        description = f"{name} {platform.properties(native).name}"
    except HipError:
        description = name
    spool.rows["device"].append((name, description))
    return name


def copy_fields(platform: Platform, method: str, args: tuple, here: str) -> tuple[str, int, str, str]:
    """(kind, bytes, source, destination) of a memcpy, memset or memcpy_peer
    call of the platform with ``args``, on the device named ``here``."""
    if method == "memcpy_peer":
        return "DEVICE_TO_DEVICE", args[4], device_name(platform, args[2]), here
    _, _, _, size, unit_or_kind, _, _ = args
    if method == "memset":
        return "MEMSET", size * unit_or_kind, here, here
    kind = COPY_KINDS.get(unit_or_kind, "DEFAULT")
    src = "host" if kind in ("HOST_TO_DEVICE", "HOST_TO_HOST") else here
    dst = "host" if kind in ("DEVICE_TO_HOST", "HOST_TO_HOST") else here
    return kind, size, src, dst


class DeviceClock:
    """One device's timing events: the pool, the entries waiting for theirs,
    and the reference event that puts device times on the host's clock.
    ``methods`` are the platform's own (untraced) methods."""

    def __init__(self, platform: Platform, native: int, methods: Mapping[str, Callable], spool: Spool, ids):
        self.platform, self.native = platform, native
        self.name = add_device(platform, native, spool)
        self.spool, self._dispatch_ids = spool, ids
        self._create = methods["event_create"]
        self._destroy = methods["event_destroy"]
        self.record = methods["event_record"]
        self._query = methods["event_query"]
        self._elapsed = methods["event_elapsed"]
        self._event_synchronize = methods["event_synchronize"]
        self._synchronize = methods["synchronize"]
        self.pool: list[int] = []
        self.pending: deque[Pending] = deque()
        self.high, self.max = PENDING_HIGH, PENDING_MAX  # the tracer calls overflow() above high
        self._streams: dict[int, int] = {0: 0}  # handle -> number shown, in order of first use
        self._lock = threading.RLock()
        self.untimed = 0  # entries given host times: the device's events failed
        self.anchor = 0  # the reference event (0: no device times)
        self.anchor_ns = 0
        self.reanchor()
        if self.anchor:
            self.pool += [self._create(native, True, False) for _ in range(POOL_START)]

    def begin(self, stream: int) -> tuple[int, int]:
        """Before device work on ``stream``: two events of the pool, the first
        recorded.  (0, 0) where events fail: the work is then timed on the host,
        and the error, a sticky one, is the work's own to raise."""
        if not self.anchor:
            return 0, 0
        pool = self.pool
        start = stop = 0
        try:
            start = pool.pop() if pool else self._create(self.native, True, False)
            stop = pool.pop() if pool else self._create(self.native, True, False)
            self.record(self.native, start, stream)
        except (HipError, IndexError):  # IndexError: another thread emptied the pool
            pool += [event for event in (start, stop) if event]
            return 0, 0
        return start, stop

    def end(self, stream: int, start: int, stop: int) -> tuple[int, int]:
        """After the work: the second event recorded; (0, 0) if it failed (a
        kernel's fault surfaces at the next synchronization, not here)."""
        if start:
            try:
                self.record(self.native, stop, stream)
            except HipError:
                self.pool += (start, stop)
                return 0, 0
        return start, stop

    def reanchor(self) -> None:
        """Take the reference: wait for the device, record an event, note the host time."""
        try:
            self._synchronize(self.native)
            if not self.anchor:
                self.anchor = self._create(self.native, True, False)
            before = clock()
            self.record(self.native, self.anchor, 0)
            self._event_synchronize(self.native, self.anchor)
            self.anchor_ns = (before + clock()) // 2
        except HipError as exc:
            log.warning("profiler: no device timestamps on %s: %s", self.name, exc)
            self.anchor = 0

    def drain(self, wait: bool = False) -> None:
        """Resolve the entries whose work is done; ``wait``: wait for the device
        first.  A stream's work completes in order, so the done entries of each
        stream are found by asking for a few (a binary search)."""
        with self._lock:
            pending = self.pending
            everything = False
            if wait and pending:
                try:
                    self._synchronize(self.native)
                    everything = True
                except HipError as exc:
                    log.warning("profiler: %s could not be synchronized: %s", self.name, exc)
            # Entries appended meanwhile by other threads stay, after those kept.
            items = [pending.popleft() for _ in range(len(pending))]
            done = [everything or not item[STOP] for item in items]  # untimed: nothing to wait for
            if not everything:
                streams: dict[int, list[int]] = {}
                for index, item in enumerate(items):
                    if item[STOP]:
                        streams.setdefault(item[STREAM], []).append(index)
                for indices in streams.values():
                    low, high = 0, len(indices)  # entries before low are done, from high on not
                    while low < high:
                        middle = high - 1 if high == len(indices) else (low + high) // 2
                        if self._done(items[indices[middle]]):
                            low = middle + 1
                        else:
                            high = middle
                    for index in indices[:low]:
                        done[index] = True
            self._resolve([item for item, finished in zip(items, done, strict=True) if finished])
            pending.extendleft(
                reversed([item for item, finished in zip(items, done, strict=True) if not finished])
            )
        self.spool.maybe_flush()

    def _done(self, item: Pending) -> bool:
        try:
            return self._query(self.native, item[STOP])
        except HipError:
            return True  # a sticky error: resolved with host times

    def _resolve(self, items: list[Pending]) -> None:
        """Read the events of entries whose work is done, give them back to the
        pool and spool the rows.  (A loop over local names: it runs for every kernel.)"""
        native, anchor, anchor_ns, elapsed, pool = (
            self.native,
            self.anchor,
            self.anchor_ns,
            self._elapsed,
            self.pool,
        )
        streams, name, dispatch_ids = self._streams, self.name, self._dispatch_ids
        kernels, copies = self.spool.rows["kernel"], self.spool.rows["copy"]
        for domain, handle, start_event, stop_event, host_start, host_end, cid, tid, *payload in items:
            start = end = 0
            if start_event:
                if anchor:
                    try:
                        start = anchor_ns + round(elapsed(native, anchor, start_event) * 1e6)
                        end = start + max(round(elapsed(native, start_event, stop_event) * 1e6), 0)
                    except HipError:
                        start = 0
                pool += (start_event, stop_event)
            if not start:
                start, end = host_start, host_end
                self.untimed += 1
            stream = streams.get(handle)
            if stream is None:
                stream = streams[handle] = len(streams)
            if domain == "kernel":
                kernels.append((next(dispatch_ids), cid, tid, name, stream, *payload, host_start, start, end))
            else:
                copies.append((cid, tid, name, stream, *payload, host_start, start, end))

    def after_synchronize(self) -> None:
        """The device was synchronized: renew an old reference (all is done)."""
        if clock() - self.anchor_ns > REANCHOR_NS and self.anchor:
            self.drain()
            if not self.pending:
                self.reanchor()

    def overflow(self) -> None:
        """Too many entries wait: resolve those done, or wait for the device."""
        self.drain()
        if len(self.pending) > self.max:
            self.drain(wait=True)

    def reset(self, reset: Callable[[], None]) -> None:
        """Around a device reset (which destroys every event): resolve first,
        forget the events, take a new reference after."""
        self.drain(wait=True)
        self.pool.clear()
        self.anchor = 0
        try:
            reset()
        finally:
            self.reanchor()

    def close(self) -> None:
        """The profile ends: resolve everything and give the events back."""
        self.drain(wait=True)
        for event in self.pool + ([self.anchor] if self.anchor else []):
            try:
                self._destroy(self.native, event)
            except HipError:
                pass  # a sticky error: the next reset frees them
        self.pool.clear()
        self.anchor = 0
        if self.untimed:
            log.warning(
                "profiler: %d record(s) of %s have host times (its events failed)", self.untimed, self.name
            )
