"""Device time for the tracer from the platform's own timestamps.

Where a platform stamps its device work itself (``Platform.activity_start``:
the CPU runtime in C++, CUPTI on NVIDIA), it also describes each launch call in
its records, so the tracer leaves its launch method alone: each launch record
becomes the kernel's row and, unless a HIP-named call made it (whose id the
platform was given, ``activity_correlate``), the API row of its call.  The
kernels a vendor library launched inside a HIP-named call carry that call's id:
they are its kernels, under its API row.  The
platform asks for a read when many records wait (``activity_notify``), so memory
stays bounded without any work on the launch path.

Copies and memsets are noted by the tracer as *pending* entries: their thread,
the host times around the call, its correlation id and payload.  Entries are
resolved when many wait, when a device is reset, when the profile is read and
when it ends: the platform's records are read and each is matched to the entry
of its thread whose host interval contains the record's enqueue time (the work
is enqueued inside the call).  An entry with several records spans the first
start to the last end; an entry that never gets one (work that never ran: a
sticky error, a reset) keeps the host times of its call.  Records that match no
entry are counted (``unmatched``) and reported in the profile's meta rows.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np

from .._errors import HipError
from ..platforms.base.platform import LAUNCH_NEVER_RAN, LAUNCH_REFUSED, ActivityBatch, Platform
from ._clock import add_device, copy_fields
from ._domains import KernelFilter
from ._spool import Block

if TYPE_CHECKING:
    from ._domains import Domains
    from ._spool import Spool

log = logging.getLogger("hipkit")

# Entries waiting before the records that came in are read (without waiting for
# the devices), and the most before the tracer waits for them.  An entry is a
# tuple of some 250 bytes; reading is vectorized, and costs less per entry in
# larger batches.
PENDING_HIGH = 16384
PENDING_MAX = 65536

# A pending entry is a tuple (cheap to make on the hot path):
#   (domain, device, stream, thread id, host start, host end, correlation id, *payload)
# domain "copy": payload (the platform method, its arguments)
#        None:   work the trace leaves out (the copy domain turned off), noted so
#                that its records are not taken for unmatched ones
DEVICE, STREAM, THREAD, HOST_START, HOST_END = 1, 2, 3, 4, 5
_HOST_SPAN = itemgetter(THREAD, HOST_START, HOST_END)
# The blocks of launches' rows (_spool.Block): the fields of the kernel and API
# rows of _spool.py's layouts; name and device index the block's strings.
_LAUNCH_KERNEL = np.dtype(
    [(f, np.int64) for f in ("dispatch_id", "correlation_id", "thread_id", "device", "stream", "name")]
    + [("grid", np.int64, 3), ("block", np.int64, 3)]
    + [(f, np.int64) for f in ("dynamic_shared", "static_shared", "host_start", "start", "end")]
)
_LAUNCH_API = np.dtype([(field, np.int64) for field in ("correlation_id", "thread_id", "start", "end")])
_FIRST, _LAST = np.iinfo(np.int64).max, np.iinfo(np.int64).min  # a span before any record

Span = tuple[int, int]


def _array(rows: Iterable[tuple], width: int, count: int | None = None) -> np.ndarray:
    """Tuples of ``width`` ints as an array of that many columns."""
    if count is None:
        rows = list(rows)
        count = len(rows)
    return np.fromiter(itertools.chain.from_iterable(rows), np.int64, count * width).reshape(count, width)


def match(entries: list[tuple], records: list[tuple]) -> tuple[list[Span | None], list[int], list[int]]:
    """Match ``records`` (thread id, enqueue, start, end) to pending ``entries``.

    Returns, for each entry, the (start, end) its records span or None; the
    indices of the unmatched records that are *later* than every entry of their
    thread (their entry may not be pending yet: its thread is just returning from
    the call); and those of the other unmatched records, which no entry will
    ever claim (on one thread, calls and their entries come in order).
    Vectorized: it runs for every kernel."""
    if not records:
        return [None] * len(entries), [], []
    r_thread, r_enqueued, r_start, r_end = _array(records, 4).T
    threads, starts, ends = _array(map(_HOST_SPAN, entries), 3, len(entries)).T
    order = np.lexsort((starts, threads))  # by thread, then host start
    threads, starts, ends = threads[order], starts[order], ends[order]
    owner = np.full(len(r_thread), -1, np.int64)
    later = np.zeros(len(r_thread), bool)
    for thread in np.unique(r_thread).tolist():
        mine = np.flatnonzero(r_thread == thread)
        enqueued = r_enqueued[mine]
        low, high = np.searchsorted(threads, thread, "left"), np.searchsorted(threads, thread, "right")
        if low == high:
            later[mine] = True
            continue
        k = low + np.searchsorted(starts[low:high], enqueued, "right") - 1  # the last call begun before
        inside = (k >= low) & (enqueued <= ends[np.maximum(k, low)])
        owner[mine[inside]] = order[k[inside]]
        later[mine] = ~inside & (enqueued > ends[high - 1])
    matched = owner >= 0
    first = np.full(len(entries), _FIRST, np.int64)
    last = np.full(len(entries), _LAST, np.int64)
    np.minimum.at(first, owner[matched], r_start[matched])
    np.maximum.at(last, owner[matched], r_end[matched])
    spans = [
        None if start == _FIRST else (start, end)
        for start, end in zip(first.tolist(), last.tolist(), strict=True)
    ]
    return spans, np.flatnonzero(later).tolist(), np.flatnonzero(~matched & ~later).tolist()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No garbage collection while rows are made by the thousand: each row is a
    new tuple, which would start collections, and none of them is garbage."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Activity:
    """One platform's timestamps: the entries waiting for their records, the
    records read early, and the devices' names and streams in the trace.
    ``methods`` are the platform's own (untraced) methods."""

    def __init__(
        self,
        platform: Platform,
        methods: Mapping[str, Callable],
        spool: Spool,
        dispatch_ids: itertools.count,
        domains: Domains,
        call_ids: itertools.count,
        note_thread: Callable[[int], None],
    ):
        self.platform = platform
        self.spool, self._dispatch_ids = spool, dispatch_ids
        self._methods = methods
        self.pending: list[tuple] = []
        self.high, self.max = PENDING_HIGH, PENDING_MAX  # the tracer calls overflow() above high
        self._batch = PENDING_HIGH
        self._early: list[tuple] = []  # records read before their entry was pending
        self._devices: dict[int, str] = {}  # native -> name in the trace
        self._streams: dict[int, dict[int, int]] = {}  # native -> handle -> number shown
        self._lock = threading.RLock()
        self.untimed = 0  # entries and launches given host times: no record, or it never ran
        self.unmatched = 0  # records no entry claimed
        # Launches: the domains asked for, the ids of the calls no HIP-named call made.
        self._domains, self._call_ids, self._note_thread = domains, call_ids, note_thread
        self._wanted = KernelFilter(domains)
        pid = os.getpid()

        def read_soon() -> None:
            if os.getpid() == pid:  # not a forked child's: the records are the parent's
                self.drain()

        platform.activity_notify(self.high, read_soon)

    def _launched(self, batch: ActivityBatch) -> None:
        """The platform's launch records, spooled as blocks of kernel and API rows
        (columns: no Python object per launch)."""
        launches = batch.launches
        if not len(launches):
            return
        called = launches["call_ns"]
        if (called[1:] < called[:-1]).any():  # finished out of order (several streams)
            launches = launches[np.argsort(called, kind="stable")]  # shown as called
        for tid in np.unique(launches["thread_id"]).tolist():
            self._note_thread(tid)
        correlation = launches["correlation_id"].copy()
        own = np.flatnonzero(correlation == 0)  # not made by a HIP-named call: an id of its own
        correlation[own] = np.fromiter(itertools.islice(self._call_ids, len(own)), np.int64, len(own))
        if self._domains.api and len(own):
            api = np.empty(len(own), _LAUNCH_API)
            api["correlation_id"], api["thread_id"] = correlation[own], launches["thread_id"][own]
            api["start"], api["end"] = launches["call_ns"][own], launches["return_ns"][own]
            self.spool.add_block("launch_api", Block(api))
        names, name_at = np.unique(launches["name"], return_inverse=True)
        keep = np.array([self._wanted[batch.names[i]] for i in names.tolist()], bool)[name_at]
        keep &= launches["status"] != LAUNCH_REFUSED  # a refused call's API row is all there is
        kept = np.flatnonzero(keep)
        if len(kept):
            self.spool.add_block(
                "launch_kernel", self._kernel_block(launches[kept], correlation[kept], batch)
            )

    def _kernel_block(self, launches: np.ndarray, correlation: np.ndarray, batch: ActivityBatch) -> Block:
        """The kernel rows of ``launches`` (with these correlation ids) as a block."""
        count = len(launches)
        rows = np.empty(count, _LAUNCH_KERNEL)
        rows["dispatch_id"] = np.fromiter(itertools.islice(self._dispatch_ids, count), np.int64, count)
        rows["correlation_id"] = correlation
        for field in ("thread_id", "grid", "block", "dynamic_shared", "static_shared"):
            rows[field] = launches[field]
        rows["host_start"] = launches["call_ns"]
        never_ran = launches["status"] == LAUNCH_NEVER_RAN  # dropped by a sticky error or a reset
        rows["start"] = np.where(never_ran, launches["call_ns"], launches["start_ns"])
        rows["end"] = np.where(never_ran, launches["return_ns"], launches["end_ns"])
        self.untimed += int(never_ran.sum())
        names, rows["name"] = np.unique(launches["name"], return_inverse=True)
        natives, rows["device"] = np.unique(launches["device"], return_inverse=True)
        for index, native in enumerate(natives.tolist()):  # each stream's number in the trace
            self.device(native)
            on_it = rows["device"] == index
            handles, at = np.unique(launches["stream"][on_it], return_inverse=True)
            streams = self._streams[native]
            shown = [streams.setdefault(handle, len(streams)) for handle in handles.tolist()]
            rows["stream"][on_it] = np.array(shown, np.int64)[at]
        return Block(
            rows,
            tuple(batch.names[i] for i in names.tolist()),
            tuple(self._devices[native] for native in natives.tolist()),
        )

    def device(self, native: int) -> str:
        """The device's name in the trace (noted there on first use)."""
        name = self._devices.get(native)
        if name is None:
            with self._lock:
                name = self._devices.get(native)
                if name is None:
                    name = self._devices[native] = add_device(self.platform, native, self.spool)
                    self._streams[native] = {0: 0}
        return name

    def overflow(self) -> None:
        """Many entries wait: resolve those whose records came, or wait for the devices."""
        self.drain()
        if len(self.pending) > self.max:
            self.drain(wait=True)
        # Those still running stay: read again once a batch more has come, not at
        # every call (each read goes over every entry).
        self.high = min(len(self.pending) + self._batch, self.max)

    def drain(self, wait: bool = False, final: bool = False) -> None:
        """Read the records and resolve the entries they match.  ``wait``: wait
        for the devices first, so that every entry pending now is resolved (with
        host times where no record came).  ``final``: no entry will come after."""
        with self._lock, _collector_paused():
            pending = self.pending
            count = len(pending)  # entries appended meanwhile by other threads stay
            items = pending[:count]
            del pending[:count]
            for native in {item[DEVICE] for item in items}:
                self.device(native)
            if wait:
                self._synchronize()
            batch = self._read()
            self._launched(batch)
            early = self._early
            records = early + batch.work
            spans, later, stray = match(items, records)
            if final:
                self.unmatched += len(later) + len(stray)
                self._early = []
            else:
                self.unmatched += len(stray) + sum(1 for index in later if index < len(early))
                self._early = [records[index] for index in later if index >= len(early)]
            pending[0:0] = self._resolve(items, spans, wait)
        self.spool.maybe_flush()

    def _read(self) -> ActivityBatch:
        try:
            return self.platform.activity_read()
        except HipError as exc:  # what waits keeps the host times of its call
            log.warning(
                "profiler: %s activity records could not be read (launches since the last read are "
                "missing): %s",
                self.platform.name,
                exc,
            )
            return Platform.activity_read(self.platform)  # the base platform's: nothing

    def _synchronize(self) -> None:
        synchronize = self._methods["synchronize"]
        for native, name in list(self._devices.items()):
            try:
                synchronize(native)
            except HipError as exc:  # a sticky error: what ran has its records
                log.warning("profiler: %s could not be synchronized: %s", name, exc)

    def _resolve(self, items: list[tuple], spans: list[Span | None], wait: bool) -> list[tuple]:
        """Spool the rows of the entries with a span, and with ``wait`` of the
        others too, with host times; returns the others otherwise."""
        copies, devices, all_streams = self.spool.rows["copy"], self._devices, self._streams
        kept = []
        for item, span in zip(items, spans, strict=True):
            domain, native, handle = item[0], item[DEVICE], item[STREAM]
            if span is not None:
                start, end = span
            elif wait:  # its work is over, and no record came: it never ran
                start, end = item[HOST_START], item[HOST_END]
                self.untimed += domain is not None
            else:
                kept.append(item)
                continue
            if domain is None:
                continue
            streams = all_streams[native]
            stream = streams.get(handle)
            if stream is None:
                stream = streams[handle] = len(streams)
            device = devices[native]
            _, _, _, tid, host_start, _, cid, method, args = item
            fields = copy_fields(self.platform, method, args, device)
            copies.append((cid, tid, device, stream, *fields, host_start, start, end))
        return kept

    def reset(self, reset: Callable[[], None]) -> None:
        """Around a device reset: resolve what ran before it."""
        self.drain(wait=True)
        reset()

    def after_synchronize(self) -> None:
        """Nothing to renew: the platform's timestamps are on the host's clock."""

    def close(self) -> None:
        """The profile ends: resolve everything, stop the platform's stamping."""
        try:
            self.drain(wait=True, final=True)
        finally:
            try:
                self.platform.activity_stop()
            except HipError as exc:
                log.warning("profiler: %s activity could not be stopped: %s", self.platform.name, exc)
        if self.untimed:
            log.warning(
                "profiler: %d record(s) of %s have host times (no device timestamps came)",
                self.untimed,
                self.platform.name,
            )
