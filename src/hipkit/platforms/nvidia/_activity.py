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

from ..base import LAUNCH_RAN, LAUNCH_RECORD, LAUNCH_REFUSED

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
    _names: dict[int, str] = {}  # a kernel name's address (CUPTI keeps one per kernel) -> the name
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
        try:
            if valid and cls.sink is not None:
                cls.sink(cls._records(buffer, valid))
        except Exception:  # never raise into CUPTI's thread
            log.exception("hipkit: reading CUPTI's activity records")
        del block

    @classmethod
    def _records(cls, buffer: int, valid: int) -> dict[int, list[tuple]]:
        """A buffer's records, as tuples by kind:
        KERNEL (correlation id, device, stream id, (grid, block), start, end, name,
        dynamic shared bytes, static shared bytes); COPY and SET (correlation id,
        device, stream id, bytes, start, end); CALL, of cuLaunchKernel only
        (correlation id, thread id, start, end, CUresult); EXTERNAL (correlation
        id, external id), of hipkit's kind only."""
        offsets: dict[int, list[int]] = {}
        record = ctypes.c_void_p(None)
        while cls._next(buffer, valid, ctypes.byref(record)) == 0:
            address = record.value or 0
            kind = ctypes.c_uint32.from_address(address).value
            offsets.setdefault(kind, []).append(address - buffer)
        data = np.ctypeslib.as_array((ctypes.c_ubyte * valid).from_address(buffer))
        records: dict[int, list[tuple]] = {}
        for kind, at in offsets.items():
            layout = cls._layouts.get(kind)
            if layout is None:
                continue
            ours, dtype = layout
            rows = data[np.asarray(at)[:, None] + np.arange(dtype.itemsize)].copy().view(dtype).ravel()
            records.setdefault(ours, []).extend(cls._tuples(ours, rows))
        return records

    @classmethod
    def _tuples(cls, ours: int, rows: np.ndarray) -> Iterable[tuple]:
        if ours == CALL:
            rows = rows[rows["cbid"] == cls._launch_cbid]
            columns = ("correlation_id", "thread_id", "start", "end", "return_value")
            return zip(*(rows[c].tolist() for c in columns), strict=True)
        if ours == EXTERNAL:
            rows = rows[rows["external_kind"] == cls.external_kind]
            return zip(rows["correlation_id"].tolist(), rows["external_id"].tolist(), strict=True)
        correlations, devices = rows["correlation_id"].tolist(), rows["device_id"].tolist()
        streams, starts, ends = rows["stream_id"].tolist(), rows["start"].tolist(), rows["end"].tolist()
        if ours != KERNEL:
            return zip(correlations, devices, streams, rows["bytes"].tolist(), starts, ends, strict=True)
        grids = zip(*(rows[f"grid_{axis}"].tolist() for axis in "xyz"), strict=True)
        blocks = zip(*(rows[f"block_{axis}"].tolist() for axis in "xyz"), strict=True)
        names = cls._names
        for address in set(rows["name"].tolist()) - names.keys():
            names[address] = ctypes.string_at(address).decode(errors="replace") if address else ""
        return zip(
            correlations,
            devices,
            streams,
            zip(grids, blocks, strict=True),
            starts,
            ends,
            [names[address] for address in rows["name"].tolist()],
            rows["dynamic_shared_memory"].tolist(),
            rows["static_shared_memory"].tolist(),
            strict=True,
        )


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
        self._records: dict[int, list[tuple]] = {kind: [] for kind in (KERNEL, COPY, SET, CALL, EXTERNAL)}
        self._calls: dict[int, tuple] = {}  # correlation id -> its cuLaunchKernel, kernel not yet come
        self._kernels: dict[int, tuple] = {}  # correlation id -> a kernel whose call has not come
        self._external: dict[int, int] = {}  # correlation id -> the HIP-named call's id
        self.names: list[str] = [""]  # ActivityBatch.names (0: none, a refused call's)
        self._name_index: dict[str, int] = {}  # a kernel's symbol -> its name's index there
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

    def _take(self, records: dict[int, list[tuple]]) -> None:
        """From CUPTI's thread: a completed buffer's records."""
        with self._lock:
            for kind, taken in records.items():
                self._records[kind].extend(taken)
                self._waiting += len(taken)
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
        self._external.update(records[EXTERNAL])
        launches = self._launches(records, offset)
        return self._work(records, offset), np.array(launches, LAUNCH_RECORD), self.names

    def _work(self, records: dict[int, list[tuple]], offset: int) -> list[tuple[int, int, int, int]]:
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

    def _launches(self, records: dict[int, list[tuple]], offset: int) -> list[tuple]:
        """``ActivityBatch.launches``: each of hipkit's kernels with its call, and
        the calls the driver refused (which have no kernel)."""
        calls, kernels, external = self._calls, self._kernels, self._external
        out = []
        for correlation, tid, start, end, result in records[CALL]:
            call = (tid, start - offset, end - offset, external.pop(correlation, 0))
            if result:  # refused: cuLaunchKernel's own error, as the platform reports it
                code, none = self._launch_error(result), (0, 0, 0)
                out.append((*call[:3], 0, 0, 0, 0, 0, none, none, 0, 0, LAUNCH_REFUSED, code, call[3]))
            elif correlation in kernels:
                out.append(self._launch(call, kernels.pop(correlation), offset))
            else:
                calls[correlation] = call
        symbols = self._symbols
        for kernel in records[KERNEL]:
            if kernel[6] not in symbols:
                calls.pop(kernel[0], None)  # not hipkit's (PyTorch's, CuPy's...)
                continue
            waiting = calls.pop(kernel[0], None)
            if waiting is None:
                kernels[kernel[0]] = kernel
            else:
                out.append(self._launch(waiting, kernel, offset))
        return out

    def _launch(self, call: tuple, kernel: tuple, offset: int) -> tuple:
        tid, call_ns, return_ns, correlation_id = call
        _, device, sid, (grid, block), start, end, symbol, dynamic_shared, static_shared = kernel
        name = self._name_index.get(symbol)
        if name is None:
            name = self._name_index[symbol] = len(self.names)
            self.names.append(self._symbols[symbol])
        return (
            tid, call_ns, return_ns, start - offset, end - offset, device, self._stream_handle(device, sid),
            name, grid, block, dynamic_shared, static_shared, LAUNCH_RAN, 0, correlation_id,
        )  # fmt: skip

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
