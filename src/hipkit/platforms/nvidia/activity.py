"""Device timestamps for the profiler on NVIDIA: CUPTI's activity records.

CUPTI (through NVIDIA's ``cupti-python``) stamps each kernel, copy and memset
on the GPU, and records each driver and runtime call.  Launches are CUPTI's
kernel records joined with their launch calls (:mod:`.launch_records`), so the
platform's launch path does nothing for the profiler, which reads whole
launches here (``ActivityBatch.launches``).  A HIP-named call's id reaches the
launches it makes, and those a vendor library makes inside it, as CUPTI's
external correlation id (``correlate``).

Copies and memsets are still noted by the platform when it enqueues them
(stream, kind, bytes, thread, host time) and paired with the records of their
stream in order, by kind and size (:func:`_pair`).

CUPTI's timestamps are on its own clock; an offset measured when reading puts
them on ``time.perf_counter_ns``.  Its buffers are read with NumPy
(:mod:`.cupti_buffers`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from operator import itemgetter
from typing import Any

import numpy as np

from .cupti_buffers import API, CALL, COPY, EXTERNAL, KERNEL, SET, Buffers
from .launch_records import Launches

log = logging.getLogger("hipkit")

MATCH_WINDOW = 8  # notes looked at past the oldest when a record does not match it

# (kind, bytes, thread id, host ns)
Note = tuple[int, Any, int, int]
_CORRELATION = itemgetter(1)  # of a copy's or memset's record, after its kind


def unavailable_reason() -> str | None:
    """Why CUPTI's activity API cannot be used here, or None."""
    try:
        from cupti import cupti  # noqa: F401
    except ImportError as exc:
        if exc.name == "cupti":
            return f"cupti-python is not installed (pip install 'hipkit[nvidia]'): {exc}"
        return f"cupti-python could not be imported ({exc.name or 'a part of it'} is missing): {exc}"
    except OSError as exc:  # the wheel is there but libcupti is not
        return f"CUPTI could not be loaded: {exc}"
    return None


class Activity:
    """CUPTI activity for one NVIDIA platform while the profiler runs.

    ``context(device)`` gives the device's CUDA context; ``streams`` are the
    stream handles the platform made, by device; ``symbols`` maps the symbol of
    each kernel the platform looked up to the name it was looked up by.
    :meth:`enqueued` is called by the platform after each copy or memset it put
    on a stream; :meth:`read` returns an ``ActivityBatch``'s fields: the copies'
    and memsets' ``(thread_id, enqueue_ns, start_ns, end_ns)``, the launches
    whose kernel has come (and the calls refused), and the names they index."""

    def __init__(self, context: Callable[[int], Any], streams: dict[int, set[int]], symbols: dict[str, str]):
        from cupti import cupti

        self._cupti = cupti
        self._context, self._streams = context, streams
        self._stream_handles: dict[tuple[int, int], int] = {}  # (device, CUPTI's id) -> handle
        self._queues: dict[tuple[int, int], deque[Note]] = {}  # by (device, stream handle)
        self._notes: dict[tuple[int, int], deque[Note]] = {}  # by (device, CUPTI's stream id)
        self._records: dict[int, list[Any]] = {kind: [] for kind in (KERNEL, COPY, SET, CALL, EXTERNAL, API)}
        self.launches = Launches(symbols, self._handles)
        self._waiting = 0  # records taken since the last read
        self._notify: tuple[int, threading.Event] | None = None  # (records, the reader's wake-up)
        self._lock = threading.Lock()
        kinds = cupti.ActivityKind
        # The runtime's calls for the launches of libraries built on it (cuBLAS...), and
        # CUDA's own launches outside any API call where this CUPTI records them.
        wanted: tuple[Any, ...] = (kinds.CONCURRENT_KERNEL, kinds.MEMCPY, kinds.MEMSET, kinds.DRIVER)
        wanted += (kinds.RUNTIME, kinds.EXTERNAL_CORRELATION)
        internal = getattr(kinds, "INTERNAL_LAUNCH_API", None)
        Buffers.register(cupti)
        Buffers.sink = self._take
        cupti.set_thread_id_type(cupti.ActivityThreadIdType.SYSTEM)
        self._kinds: tuple[Any, ...] = ()
        try:
            for kind in wanted:
                cupti.activity_enable(kind)
                self._kinds += (kind,)
        except Exception:
            self.stop()
            raise
        if internal is not None:
            try:
                cupti.activity_enable(internal)
                self._kinds += (internal,)
            except Exception as exc:  # cupti-python's error: an older CUPTI than its bindings
                log.debug("hipkit: CUPTI's launches outside API calls are not recorded: %s", exc)

    def stop(self) -> None:
        cupti = self._cupti
        for kind in self._kinds:
            cupti.activity_disable(kind)
        cupti.activity_flush_all(1)
        Buffers.sink = None
        notify, self._notify = self._notify, None
        if notify is not None:
            notify[1].set()  # the reader thread sees it is over and ends

    def forget_stream(self, device: int, stream: int) -> None:
        """A destroyed stream: the driver may give its handle to the next one."""
        self._queues.pop((device, stream), None)

    def forget_device(self, device: int) -> None:
        """A reset device: its streams are gone, and CUPTI's ids of them."""
        for key in [key for key in self._queues if key[0] == device]:
            del self._queues[key]
        self._stream_handles = {k: h for k, h in self._stream_handles.items() if k[0] != device}

    def enqueued(self, device: int, stream: int, kind: int, shape: Any) -> None:
        """Note a copy or memset the platform has just put on ``stream``."""
        notes = self._queues.get((device, stream))
        if notes is None:
            sid = self._stream_id(device, stream)
            notes = self._queues[device, stream] = self._notes.setdefault((device, sid), deque())
        notes.append((kind, shape, threading.get_native_id(), time.perf_counter_ns()))

    def correlate(self, correlation_id: int) -> None:
        """The launches this thread makes from now on belong to the HIP-named call
        ``correlation_id`` (0: to none)."""
        if correlation_id:
            self._cupti.activity_push_external_correlation_id(Buffers.external_kind, correlation_id)
        else:
            self._cupti.activity_pop_external_correlation_id(Buffers.external_kind)

    def notify(self, waiting: int, read: Callable[[], None]) -> None:
        """Call ``read`` from a thread of its own once ``waiting`` records were
        taken from CUPTI since the last read (CUPTI's own thread, which hands them
        over, must not wait for a read that flushes CUPTI)."""
        wake = threading.Event()
        self._notify = (waiting, wake)

        def reader() -> None:
            while wake.wait() and self._notify is not None and self._notify[1] is wake:
                wake.clear()
                read()

        threading.Thread(target=reader, name="hipkit CUPTI reader", daemon=True).start()

    def _take(self, records: dict[int, list[Any]]) -> None:
        """From CUPTI's thread: a completed buffer's records."""
        with self._lock:
            for kind, taken in records.items():
                self._records[kind].extend(taken)
                self._waiting += len(taken) if kind in (COPY, SET) else sum(len(t) for t in taken)
            notify = self._notify
            if notify is not None and self._waiting >= notify[0]:
                notify[1].set()

    def read(self) -> tuple[list[tuple[int, int, int, int]], np.ndarray, list[str]]:
        now = int(self._cupti.get_timestamp())  # every call returned before is flushed now
        self._cupti.activity_flush_all(1)
        offset = self._offset()
        with self._lock:
            records = self._records
            self._records = {kind: [] for kind in records}
            self._waiting = 0
        launches = self.launches
        joined = launches.join(records[KERNEL], records[CALL], records[EXTERNAL], records[API], offset, now)
        return self._work(records, offset), joined, launches.names

    def _work(self, records: dict[int, list[Any]], offset: int) -> list[tuple[int, int, int, int]]:
        """The copies and memsets, paired with the notes of their streams."""
        work = [(COPY, *r) for r in records[COPY]] + [(SET, *r) for r in records[SET]]
        work.sort(key=_CORRELATION)  # the order the host enqueued them
        out: list[tuple[int, int, int, int]] = []
        for kind, _, device, sid, nbytes, start, end in work:
            notes = self._notes.get((device, sid))
            if not notes:
                continue
            note = _pair(notes, kind, nbytes)
            if note is not None:
                out.append((note[2], note[3], start - offset, end - offset))
        return out

    def _stream_id(self, device: int, stream: int) -> int:
        return int(self._cupti.get_stream_id_ex(int(self._context(device)), stream, 0))

    def _stream_handle(self, device: int, stream_id: int) -> int:
        """The handle of the stream CUPTI calls ``stream_id``: the null stream or one
        the platform made; else (another library's stream) a number no handle is."""
        handle = self._stream_handles.get((device, stream_id))
        if handle is None:
            for known in (0, *self._streams.get(device, ())):
                try:
                    self._stream_handles[device, self._stream_id(device, known)] = known
                except Exception as exc:  # CUPTI does not know it (cupti-python's own error)
                    log.debug("hipkit: CUPTI's id of stream %#x: %s", known, exc)
            handle = self._stream_handles.setdefault((device, stream_id), -stream_id - 1)
        return handle

    def _handles(self, devices: np.ndarray, streams: np.ndarray) -> np.ndarray:
        """The stream handles of CUPTI's (device, stream id) pairs."""
        pairs, at = np.unique(np.stack([devices, streams], axis=1), axis=0, return_inverse=True)
        handles = [self._stream_handle(device, sid) for device, sid in pairs.tolist()]
        return np.array(handles, np.int64)[at.reshape(-1)]

    def _offset(self) -> int:
        """CUPTI's clock minus perf_counter_ns, from the tightest of a few brackets."""
        clock, stamp = time.perf_counter_ns, self._cupti.get_timestamp
        best = None
        for _ in range(9):
            before = clock()
            at = stamp()
            after = clock()
            if best is None or after - before < best[0]:
                best = (after - before, at - (before + after) // 2)
        assert best is not None
        return best[1]


def _pair(notes: deque[Note], kind: int, shape: Any) -> Note | None:
    """The note a record of ``kind`` and ``shape`` answers: the oldest, or one of the
    next few (notes passed over had no record: CUPTI dropped it); None for work
    hipkit did not enqueue."""
    for i, note in enumerate(notes):
        if i > MATCH_WINDOW:
            return None
        if note[0] == kind and note[1] == shape:
            for _ in range(i + 1):
                passed = notes.popleft()
            return passed
    return None
