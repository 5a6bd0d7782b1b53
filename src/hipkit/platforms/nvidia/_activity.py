"""Device timestamps for the profiler on NVIDIA: CUPTI's activity records.

CUPTI (through NVIDIA's ``cupti-python``) stamps each kernel, copy and memset
on the GPU, at no cost to the launch beyond writing the record.  Its records
name a stream and carry a correlation id of CUPTI's own, which nothing in the
launch path returns; so the platform notes each operation it enqueues (stream,
kind, shape, thread, host time) and :meth:`Activity.read` pairs them with the
records of the same stream in order.  Records of work hipkit did not enqueue
(PyTorch or CuPy kernels on a shared stream) match no note and are skipped,
since each note names its kind and the kernel's grid and block or the bytes.

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
from collections.abc import Callable
from typing import Any

import numpy as np

log = logging.getLogger("hipkit")

KERNEL, COPY, SET = 1, 2, 3
BUFFER_BYTES = 32 << 20  # CUPTI's buffers: few completions while a program runs
MATCH_WINDOW = 8  # notes looked at past the oldest when a record does not match it

# (kind, shape, thread id, host ns); shape: (grid, block) of a kernel, bytes otherwise
Note = tuple[int, Any, int, int]


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
_KERNEL_FIELDS += ("block_x", "block_y", "block_z", "correlation_id")
_BYTES_FIELDS = ("bytes", "start", "end", "device_id", "stream_id", "correlation_id")


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
    one): buffers lent to CUPTI, and each completed one's records, as tuples
    (correlation id, device, stream id, kind, shape, start, end), handed to the
    activity reading now."""

    registered = False
    sink: Callable[[list], None] | None = None
    lent: dict[int, ctypes.Array] = {}
    _next: Any = None  # cuptiActivityGetNextRecord
    _layouts: dict[int, tuple[int, np.dtype]] = {}
    _callbacks: tuple[Any, ...] = ()

    @classmethod
    def register(cls, cupti) -> None:
        if cls.registered:
            return
        cupti.get_timestamp()  # cupti-python loads libcupti on its first call
        lib = _libcupti()
        cls._next = lib.cuptiActivityGetNextRecord
        cls._next.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
        cls._layouts = {
            int(cupti.ActivityKind.CONCURRENT_KERNEL): (
                KERNEL,
                _prefix(_latest(cupti, "activity_kernel"), _KERNEL_FIELDS),
            ),
            int(cupti.ActivityKind.MEMCPY): (COPY, _prefix(_latest(cupti, "activity_memcpy"), _BYTES_FIELDS)),
            int(cupti.ActivityKind.MEMSET): (SET, _prefix(_latest(cupti, "activity_memset"), _BYTES_FIELDS)),
        }
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
    def _records(cls, buffer: int, valid: int) -> list[tuple]:
        offsets: dict[int, list[int]] = {}
        record = ctypes.c_void_p(None)
        while cls._next(buffer, valid, ctypes.byref(record)) == 0:
            address = record.value or 0
            kind = ctypes.c_uint32.from_address(address).value
            offsets.setdefault(kind, []).append(address - buffer)
        data = np.ctypeslib.as_array((ctypes.c_ubyte * valid).from_address(buffer))
        records: list[tuple] = []
        for kind, at in offsets.items():
            layout = cls._layouts.get(kind)
            if layout is None:
                continue
            ours, dtype = layout
            rows = data[np.asarray(at)[:, None] + np.arange(dtype.itemsize)].copy().view(dtype).ravel()
            starts, ends = rows["start"].tolist(), rows["end"].tolist()
            devices, streams = rows["device_id"].tolist(), rows["stream_id"].tolist()
            correlations = rows["correlation_id"].tolist()
            if ours == KERNEL:
                grids = zip(
                    rows["grid_x"].tolist(), rows["grid_y"].tolist(), rows["grid_z"].tolist(), strict=True
                )
                blocks = zip(
                    rows["block_x"].tolist(), rows["block_y"].tolist(), rows["block_z"].tolist(), strict=True
                )
                shapes: Any = zip(grids, blocks, strict=True)
            else:
                shapes = rows["bytes"].tolist()
            records.extend(
                zip(correlations, devices, streams, [ours] * len(starts), shapes, starts, ends, strict=True)
            )
        return records


class Activity:
    """CUPTI activity for one NVIDIA platform while the profiler runs.

    ``stream_id(device, stream)`` gives CUPTI's id of a stream handle;
    :meth:`enqueued` is called by the platform after each operation it put on a
    stream, :meth:`read` returns ``(thread_id, enqueue_ns, start_ns, end_ns)``
    for each operation whose record has come."""

    def __init__(self, stream_id: Callable[[int, int], int]):
        from cupti import cupti

        self._cupti = cupti
        self._stream_id = stream_id
        self._queues: dict[tuple[int, int], deque[Note]] = {}  # by (device, stream handle)
        self._notes: dict[tuple[int, int], deque[Note]] = {}  # by (device, CUPTI's stream id)
        self._records: list[tuple] = []
        self._lock = threading.Lock()
        kinds = cupti.ActivityKind
        self._kinds = (kinds.CONCURRENT_KERNEL, kinds.MEMCPY, kinds.MEMSET)
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

    def forget_stream(self, device: int, stream: int) -> None:
        """A destroyed stream: the driver may give its handle to the next one."""
        self._queues.pop((device, stream), None)

    def forget_device(self, device: int) -> None:
        for key in [key for key in self._queues if key[0] == device]:
            del self._queues[key]

    def enqueued(self, device: int, stream: int, kind: int, shape: Any) -> None:
        """Note an operation the platform has just put on ``stream`` (on the launch
        path: one lookup in the common case)."""
        notes = self._queues.get((device, stream))
        if notes is None:
            sid = self._stream_id(device, stream)
            notes = self._queues[device, stream] = self._notes.setdefault((device, sid), deque())
        notes.append((kind, shape, threading.get_native_id(), time.perf_counter_ns()))

    def _take(self, records: list[tuple]) -> None:
        """From CUPTI's thread: a completed buffer's records."""
        with self._lock:
            self._records.extend(records)

    def read(self) -> list[tuple[int, int, int, int]]:
        self._cupti.activity_flush_all(1)
        offset = self._offset()
        with self._lock:
            records, self._records = self._records, []
        records.sort()  # by correlation id: the order the host enqueued them
        out = []
        for _, device, sid, kind, shape, start, end in records:
            notes = self._notes.get((device, sid))
            if not notes:
                continue
            note = _pair(notes, kind, shape)
            if note is not None:
                out.append((note[2], note[3], start - offset, end - offset))
        return out

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
