"""Device timestamps for the profiler on NVIDIA: CUPTI's activity records.

CUPTI (through NVIDIA's ``cupti-python``) stamps each kernel, copy and memset
on the GPU, and records each driver call.  A launch is described by two
records with one correlation id of CUPTI's: the ``cuLaunchKernel`` call (its
thread, host times and result) and the kernel (name, grid, block, shared
memory, stream, device times); so the platform's launch path does nothing for
the profiler, which reads whole launches here (``ActivityBatch.launches``).
Kernels are hipkit's when their symbol is one the platform looked up
(``get_function``): PyTorch's or CuPy's kernels in the same process are left
out.  A HIP-named call's id reaches the launches it makes as CUPTI's external
correlation id (``correlate``).

Copies and memsets are still noted by the platform when it enqueues them
(stream, kind, bytes, thread, host time) and paired with the records of their
stream in order, by kind and size (:func:`_pair`).

CUPTI's timestamps are on its own clock; an offset measured when reading puts
them on ``time.perf_counter_ns``.

Buffers: cupti-python's own buffer callback makes a Python object of every
record, which measured 65 us per kernel on the H200, more than ten launches.
So the two buffer callbacks are registered here through ctypes, and a completed
buffer is read with NumPy: CUPTI's ``cuptiActivityGetNextRecord`` walks it,
and the fields are gathered at the offsets of cupti-python's record dtypes
(the fields read here sit at the same offsets in every record version).
"""

from __future__ import annotations

import ctypes
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any

import numpy as np

from ..base.platform import LAUNCH_RAN, LAUNCH_RECORD, LAUNCH_REFUSED

log = logging.getLogger("hipkit")

KERNEL, COPY, SET, CALL, EXTERNAL = 1, 2, 3, 4, 5  # the records read (CALL: a cuLaunchKernel)
BUFFER_BYTES = 32 << 20  # CUPTI's buffers: few completions while a program runs
MATCH_WINDOW = 8  # notes looked at past the oldest when a record does not match it

# (kind, bytes, thread id, host ns)
Note = tuple[int, Any, int, int]
_CORRELATION = itemgetter(1)  # of a copy's or memset's record, after its kind


def unavailable_reason() -> str | None:
    """Why CUPTI's activity API cannot be used here, or None."""
    try:
        from cupti import cupti  # noqa: F401
    except ImportError as exc:
        return f"cupti-python is not installed (pip install 'hipkit[nvidia]'): {exc}"
    except OSError as exc:  # the wheel is there but libcupti is not
        return f"CUPTI could not be loaded: {exc}"
    return None


_REQUEST = ctypes.CFUNCTYPE(
    None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)
)
_COMPLETE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t
)
# The fields read, per record kind; the same offsets in every version of the records.
_KERNEL_FIELDS: tuple[str, ...] = ("start", "end", "device_id", "stream_id", "grid_x", "grid_y", "grid_z")
_KERNEL_FIELDS += ("block_x", "block_y", "block_z", "correlation_id", "name")
_KERNEL_FIELDS += ("dynamic_shared_memory", "static_shared_memory")
_BYTES_FIELDS = ("bytes", "start", "end", "device_id", "stream_id", "correlation_id")
_CALL_FIELDS = ("cbid", "start", "end", "thread_id", "correlation_id", "return_value")
_EXTERNAL_FIELDS = ("external_kind", "external_id", "correlation_id")

# The records of launches, as read (times on CUPTI's clock): a kernel's name
# indexes _Buffers.symbols; result: cuLaunchKernel's CUresult.
KERNELS = np.dtype(
    [(f, np.int64) for f in ("correlation_id", "device", "stream", "start", "end", "name")]
    + [
        ("grid", np.int64, 3),
        ("block", np.int64, 3),
        ("dynamic_shared", np.int64),
        ("static_shared", np.int64),
    ]
)
CALLS = np.dtype([(f, np.int64) for f in ("correlation_id", "thread_id", "start", "end", "result")])
EXTERNALS = np.dtype([(f, np.int64) for f in ("correlation_id", "external_id")])


def _libcupti() -> ctypes.CDLL:
    """The libcupti cupti-python loaded (the one whose activity it enables)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/libcupti.so" in path:
                return ctypes.CDLL(path)
    raise OSError("libcupti is not loaded in this process")


def _prefix(dtype: np.dtype, names: tuple[str, ...]) -> np.dtype:
    """``dtype`` cut to ``names``, at their offsets."""
    known: Any = dtype.fields or {}
    fields = [(name, known[name][0], known[name][1]) for name in names]
    size = max(offset + kind.itemsize for _, kind, offset in fields)
    return np.dtype(
        {
            "names": names,
            "formats": [f[1] for f in fields],
            "offsets": [f[2] for f in fields],
            "itemsize": size,
        }
    )


def _latest(cupti, stem: str) -> np.dtype:
    """The newest version of a record's dtype (activity_kernel13_dtype...)."""
    versions = {
        int(m[1] or 0): m[0] for m in (re.fullmatch(stem + r"(\d*)_dtype", n) for n in dir(cupti)) if m
    }
    return getattr(cupti, versions[max(versions)])


class _Buffers:
    """The process's one registration of buffer callbacks with CUPTI (CUPTI takes
    one): buffers lent to CUPTI, and each completed one's records, by kind
    (KERNEL, COPY, SET, CALL, EXTERNAL: see :meth:`_records`), handed to the
    activity reading now."""

    registered = False
    sink: Callable[[dict[int, list[tuple]]], None] | None = None
    lent: dict[int, ctypes.Array] = {}
    _next: Any = None  # cuptiActivityGetNextRecord
    _layouts: dict[int, tuple[int, np.dtype]] = {}
    _launch_cbid = 0  # CUPTI's id of cuLaunchKernel among the driver's calls
    external_kind = 0  # the kind of the external correlation ids hipkit pushes (CUSTOM0)
    _sizes: dict[int, int] = {}  # a record kind -> its records' size in a buffer, as learned
    _names: dict[int, int] = {}  # a kernel name's address (CUPTI keeps one per kernel) -> its index
    symbols: list[str] = []  # the kernel names (symbols) CUPTI's records named, in KERNELS' "name"
    _callbacks: tuple[Any, ...] = ()

    @classmethod
    def register(cls, cupti) -> None:
        if cls.registered:
            return
        cupti.get_timestamp()  # cupti-python loads libcupti on its first call
        lib = _libcupti()
        cls._next = lib.cuptiActivityGetNextRecord
        cls._next.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
        kinds = cupti.ActivityKind
        cls._layouts = {
            int(kinds.CONCURRENT_KERNEL): (
                KERNEL,
                _prefix(_latest(cupti, "activity_kernel"), _KERNEL_FIELDS),
            ),
            int(kinds.MEMCPY): (COPY, _prefix(_latest(cupti, "activity_memcpy"), _BYTES_FIELDS)),
            int(kinds.MEMSET): (SET, _prefix(_latest(cupti, "activity_memset"), _BYTES_FIELDS)),
            int(kinds.DRIVER): (CALL, _prefix(cupti.activity_api_dtype, _CALL_FIELDS)),
            int(kinds.EXTERNAL_CORRELATION): (
                EXTERNAL,
                _prefix(_latest(cupti, "activity_external_correlation"), _EXTERNAL_FIELDS),
            ),
        }
        cls._launch_cbid = int(cupti.driver_api_trace_cbid.cuLaunchKernel)
        cls.external_kind = int(cupti.ExternalCorrelationKind.CUSTOM0)
        cls._callbacks = (_REQUEST(cls._request), _COMPLETE(cls._completed))  # kept alive
        register = lib.cuptiActivityRegisterCallbacks
        register.argtypes = [_REQUEST, _COMPLETE]
        result = register(*cls._callbacks)
        if result:
            raise OSError(f"cuptiActivityRegisterCallbacks returned {result}")
        cls.registered = True

    @classmethod
    def _request(cls, buffer, size, max_records) -> None:
        block = ctypes.create_string_buffer(BUFFER_BYTES)  # malloc'd: aligned for CUPTI's 8 bytes
        address = ctypes.addressof(block)
        cls.lent[address] = block
        buffer[0], size[0], max_records[0] = address, BUFFER_BYTES, 0

    @classmethod
    def _completed(cls, _context, _stream, buffer, _size, valid) -> None:
        block = cls.lent.pop(buffer, None)
        if block is None:  # not lent here (another tool's registration): not ours to read
            log.warning("hipkit: CUPTI completed a buffer hipkit did not lend; its records are skipped")
            return
        try:
            if valid and cls.sink is not None:
                cls.sink(cls._records(buffer, valid))
        except Exception:  # never raise into CUPTI's thread
            log.exception("hipkit: reading CUPTI's activity records")
        del block

    @classmethod
    def _records(cls, buffer: int, valid: int) -> dict[int, list[Any]]:
        """A buffer's records by kind: arrays of KERNELS, CALLS (of cuLaunchKernel
        only) and EXTERNALS (of hipkit's kind only); tuples of COPY and SET
        (correlation id, device, stream id, bytes, start, end)."""
        offsets = cls._offsets(buffer, valid)
        data = np.ctypeslib.as_array((ctypes.c_ubyte * valid).from_address(buffer))
        records: dict[int, list[Any]] = {}
        for kind, at in offsets.items():
            layout = cls._layouts.get(kind)
            if layout is None:
                continue
            ours, dtype = layout
            rows = data[np.asarray(at)[:, None] + np.arange(dtype.itemsize)].copy().view(dtype).ravel()
            if ours in (COPY, SET):
                records.setdefault(ours, []).extend(_bytes_records(rows))
            else:
                records.setdefault(ours, []).append(cls._columns(ours, rows))
        return records

    @classmethod
    def _offsets(cls, buffer: int, valid: int) -> dict[int, list[int]]:
        """Where each record of a buffer begins, by kind.  CUPTI's way to walk a
        buffer, a call per record, costs microseconds each through ctypes; so a
        kind's record size is learned from it once (the distance to the next
        record), and records of known kinds are stepped over in Python.  A walk
        that goes wrong (CUPTI finds no record where one should begin, or the
        walk does not end exactly at the end of the buffer) is redone by CUPTI."""
        sizes = cls._sizes
        kinds = memoryview((ctypes.c_ubyte * valid).from_address(buffer)).cast("B").cast("I")
        offsets: dict[int, list[int]] = {}
        at = 0
        while at < valid:
            kind = kinds[at >> 2]
            size = sizes.get(kind)
            if size is None:
                following = cls._following(buffer, valid, at)
                if following is None:  # the last record, or no record here: CUPTI walks it all
                    break
                size = sizes[kind] = following - at
            offsets.setdefault(kind, []).append(at)
            at += size
        if at == valid:
            return offsets
        offsets = {}
        following = cls._following(buffer, valid, None)
        while following is not None:
            at, following = following, cls._following(buffer, valid, following)
            offsets.setdefault(kinds[at >> 2], []).append(at)
        return offsets

    @classmethod
    def _following(cls, buffer: int, valid: int, at: int | None) -> int | None:
        """The offset of the record after the one at ``at`` (the first with None), or None."""
        record = ctypes.c_void_p(None if at is None else buffer + at)
        if cls._next(buffer, valid, ctypes.byref(record)) != 0:
            return None
        return (record.value or 0) - buffer

    @classmethod
    def _columns(cls, ours: int, rows: np.ndarray) -> np.ndarray:
        """CUPTI's records of a kind as an array of KERNELS, CALLS or EXTERNALS."""
        if ours == CALL:
            rows = rows[rows["cbid"] == cls._launch_cbid]
            out = np.empty(len(rows), CALLS)
            out["result"] = rows["return_value"]
            fields: tuple[str, ...] = ("correlation_id", "thread_id", "start", "end")
        elif ours == EXTERNAL:
            rows = rows[rows["external_kind"] == cls.external_kind]
            out = np.empty(len(rows), EXTERNALS)
            fields = ("correlation_id", "external_id")
        else:
            out = np.empty(len(rows), KERNELS)
            out["device"], out["stream"] = rows["device_id"], rows["stream_id"]
            out["dynamic_shared"], out["static_shared"] = (
                rows["dynamic_shared_memory"],
                rows["static_shared_memory"],
            )
            for axis, i in zip("xyz", range(3), strict=True):
                out["grid"][:, i], out["block"][:, i] = rows[f"grid_{axis}"], rows[f"block_{axis}"]
            addresses, at = np.unique(rows["name"], return_inverse=True)
            out["name"] = np.array([cls._name(a) for a in addresses.tolist()], np.int64)[at]
            fields = ("correlation_id", "start", "end")
        for field in fields:
            out[field] = rows[field]
        return out

    @classmethod
    def _name(cls, address: int) -> int:
        """The index in ``symbols`` of the kernel name CUPTI keeps at ``address``
        (one copy per kernel, read while the record is)."""
        index = cls._names.get(address)
        if index is None:
            index = cls._names[address] = len(cls.symbols)
            cls.symbols.append(ctypes.string_at(address).decode(errors="replace") if address else "")
        return index


def _bytes_records(rows: np.ndarray) -> Iterable[tuple]:
    columns = ("correlation_id", "device_id", "stream_id", "bytes", "start", "end")
    return zip(*(rows[c].tolist() for c in columns), strict=True)


class Activity:
    """CUPTI activity for one NVIDIA platform while the profiler runs.

    ``stream_handle(device, stream_id)`` gives the handle of a stream CUPTI
    names by its id (or the id itself where no handle of the platform's has it);
    ``symbols`` maps the symbol of each kernel the platform looked up to the name
    it was looked up by.  :meth:`enqueued` is called by the platform after each
    copy or memset it put on a stream; :meth:`read` returns an
    ``ActivityBatch``'s fields: the copies' and memsets' ``(thread_id,
    enqueue_ns, start_ns, end_ns)``, the launches whose kernel has come (and
    the calls refused), and the names they index."""

    def __init__(
        self,
        stream_id: Callable[[int, int], int],
        stream_handle: Callable[[int, int], int],
        symbols: dict[str, str],
        launch_error: Callable[[int], int],
    ):
        from cupti import cupti

        self._cupti = cupti
        self._stream_id, self._stream_handle, self._symbols = stream_id, stream_handle, symbols
        self._launch_error = launch_error  # a CUresult of cuLaunchKernel -> its hipError_t
        self._queues: dict[tuple[int, int], deque[Note]] = {}  # by (device, stream handle)
        self._notes: dict[tuple[int, int], deque[Note]] = {}  # by (device, CUPTI's stream id)
        self._records: dict[int, list[Any]] = {kind: [] for kind in (KERNEL, COPY, SET, CALL, EXTERNAL)}
        self._calls = np.empty(0, CALLS)  # calls whose kernel has not come (yet)
        self._kernels = np.empty(0, KERNELS)  # hipkit's kernels whose call has not come
        self._external: dict[int, int] = {}  # correlation id -> the HIP-named call's id
        self.names: list[str] = [""]  # ActivityBatch.names (0: none, a refused call's)
        self._name_index: dict[int, int] = {}  # index in _Buffers.symbols -> in names; -1: not hipkit's
        self._waiting = 0  # records taken since the last read
        self._notify: tuple[int, threading.Event] | None = None  # (records, the reader's wake-up)
        self._lock = threading.Lock()
        kinds = cupti.ActivityKind
        self._kinds: tuple[Any, ...] = (kinds.CONCURRENT_KERNEL, kinds.MEMCPY, kinds.MEMSET)
        self._kinds += (kinds.DRIVER, kinds.EXTERNAL_CORRELATION)
        _Buffers.register(cupti)
        _Buffers.sink = self._take
        cupti.set_thread_id_type(cupti.ActivityThreadIdType.SYSTEM)
        for kind in self._kinds:
            cupti.activity_enable(kind)

    def stop(self) -> None:
        cupti = self._cupti
        for kind in self._kinds:
            cupti.activity_disable(kind)
        cupti.activity_flush_all(1)
        _Buffers.sink = None
        notify, self._notify = self._notify, None
        if notify is not None:
            notify[1].set()  # the reader thread sees it is over and ends

    def forget_stream(self, device: int, stream: int) -> None:
        """A destroyed stream: the driver may give its handle to the next one."""
        self._queues.pop((device, stream), None)

    def forget_device(self, device: int) -> None:
        for key in [key for key in self._queues if key[0] == device]:
            del self._queues[key]

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
            self._cupti.activity_push_external_correlation_id(_Buffers.external_kind, correlation_id)
        else:
            self._cupti.activity_pop_external_correlation_id(_Buffers.external_kind)

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
                self._waiting += sum(len(t) for t in taken) if kind in (KERNEL, CALL) else len(taken)
            notify = self._notify
            if notify is not None and self._waiting >= notify[0]:
                notify[1].set()

    def read(self) -> tuple[list[tuple[int, int, int, int]], np.ndarray, list[str]]:
        self._cupti.activity_flush_all(1)
        offset = self._offset()
        with self._lock:
            records = self._records
            self._records = {kind: [] for kind in records}
            self._waiting = 0
        for externals in records[EXTERNAL]:
            pairs = zip(externals["correlation_id"].tolist(), externals["external_id"].tolist(), strict=True)
            self._external.update(pairs)
        kernels = np.concatenate([self._kernels, *records[KERNEL]])
        calls = np.concatenate([self._calls, *records[CALL]])
        return self._work(records, offset), self._launches(kernels, calls, offset), self.names

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

    def _launches(self, kernels: np.ndarray, calls: np.ndarray, offset: int) -> np.ndarray:
        """``ActivityBatch.launches``: each of hipkit's kernels joined with its call
        by correlation id, and the calls the driver refused (which have no kernel);
        what waits for the other half stays for the next read."""
        names, at = np.unique(kernels["name"], return_inverse=True)
        name = np.array([self._launch_name(n) for n in names.tolist()], np.int64)[at]
        foreign = kernels["correlation_id"][name < 0]  # PyTorch's, CuPy's...: their calls go too
        kernels, name = kernels[name >= 0], name[name >= 0]
        refused = calls[calls["result"] != 0]
        calls = calls[(calls["result"] == 0) & ~np.isin(calls["correlation_id"], foreign)]
        _, k, c = np.intersect1d(kernels["correlation_id"], calls["correlation_id"], return_indices=True)
        self._kernels, self._calls = np.delete(kernels, k), np.delete(calls, c)
        kernels, name, calls = kernels[k], name[k], calls[c]
        out = np.zeros(len(kernels) + len(refused), LAUNCH_RECORD)
        ran, failed = out[: len(kernels)], out[len(kernels) :]
        for part, call in ((ran, calls), (failed, refused)):
            part["thread_id"] = call["thread_id"]
            part["call_ns"], part["return_ns"] = call["start"] - offset, call["end"] - offset
            part["correlation_id"] = self._correlation_ids(call["correlation_id"])
        ran["start_ns"], ran["end_ns"] = kernels["start"] - offset, kernels["end"] - offset
        ran["name"], ran["device"] = name, kernels["device"]
        for field in ("grid", "block", "dynamic_shared", "static_shared"):
            ran[field] = kernels[field]
        ran["stream"] = self._handles(kernels["device"], kernels["stream"])
        ran["status"] = LAUNCH_RAN
        failed["status"] = LAUNCH_REFUSED
        failed["error"] = [self._launch_error(result) for result in refused["result"].tolist()]
        return out

    def _launch_name(self, symbol: int) -> int:
        """The index in ``names`` of the kernel ``symbols[symbol]`` names, or -1
        for a kernel the platform never looked up (not hipkit's)."""
        index = self._name_index.get(symbol)
        if index is None:
            name = self._symbols.get(_Buffers.symbols[symbol])
            index = self._name_index[symbol] = -1 if name is None else len(self.names)
            if name is not None:
                self.names.append(name)
        return index

    def _correlation_ids(self, correlations: np.ndarray) -> np.ndarray | int:
        """The HIP-named calls' ids of the launches with these CUPTI correlation ids (0: none)."""
        external = self._external
        if not external:
            return 0
        return np.array([external.pop(c, 0) for c in correlations.tolist()], np.int64)

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
