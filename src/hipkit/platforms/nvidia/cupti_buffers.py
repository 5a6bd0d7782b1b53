"""CUPTI's activity buffers, read with NumPy.

cupti-python's own buffer callback makes a Python object of every record,
which measured 65 us per kernel on the H200, more than ten launches.  So the
two buffer callbacks are registered here through ctypes, and a completed
buffer is read with NumPy: CUPTI's ``cuptiActivityGetNextRecord`` walks it,
and the fields are gathered at the offsets of cupti-python's record dtypes
(the fields read here sit at the same offsets in every record version).
"""

from __future__ import annotations

import ctypes
import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

log = logging.getLogger("hipkit")

# The records read.  CALL: a launch call (the driver's, the runtime's, or one of CUDA's own
# outside any API call); API: the correlation id of every API call, a launch or not.
KERNEL, COPY, SET, CALL, EXTERNAL, API = 1, 2, 3, 4, 5, 6
BUFFER_BYTES = 32 << 20  # CUPTI's buffers: few completions while a program runs

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
# indexes Buffers.symbols; result: the launch call's CUresult or cudaError_t, kept only for
# the driver's cuLaunchKernel (hipkit's launch call); external_id: the HIP-named call's id
# CUPTI correlated the call with (0: none), filled once the call's records are joined.
KERNELS = np.dtype(
    [(f, np.int64) for f in ("correlation_id", "device", "stream", "start", "end", "name")]
    + [
        ("grid", np.int64, 3),
        ("block", np.int64, 3),
        ("dynamic_shared", np.int64),
        ("static_shared", np.int64),
    ]
)
CALLS = np.dtype(
    [(f, np.int64) for f in ("correlation_id", "thread_id", "start", "end", "result", "external_id")]
)
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


def _launch_cbids(cbids: Any, prefix: str) -> np.ndarray:
    """CUPTI's ids of the API's calls that launch one kernel (cuLaunchKernel,
    cuLaunchKernelEx, cudaLaunchKernel, their per-thread-stream forms...): not
    host functions, nor the multi-device and graph launches, several kernels
    of one correlation id."""
    names = [n for n in cbids.__members__ if n.startswith(prefix)]
    names = [n for n in names if "HostFunc" not in n and "MultiDevice" not in n]
    return np.array(sorted(int(cbids[n]) for n in names), np.int64)


class Buffers:
    """The process's one registration of buffer callbacks with CUPTI (CUPTI takes
    one): buffers lent to CUPTI, and each completed one's records, by kind
    (KERNEL, COPY, SET, CALL, EXTERNAL, API: see :meth:`_records`), handed to
    the activity reading now."""

    registered = False
    sink: Callable[[dict[int, list[tuple]]], None] | None = None
    lent: dict[int, ctypes.Array] = {}
    _next: Any = None  # cuptiActivityGetNextRecord
    _layouts: dict[int, tuple[int, np.dtype]] = {}
    # Per kind of CUPTI's API records: the ids of its launch calls (None: every record is
    # one), and the one whose refusals are hipkit's (-1: none is).
    _launch_calls: dict[int, tuple[np.ndarray | None, int]] = {}
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
        cls.learn_layouts(cupti)
        cls._callbacks = (_REQUEST(cls._request), _COMPLETE(cls._completed))  # kept alive
        register = lib.cuptiActivityRegisterCallbacks
        register.argtypes = [_REQUEST, _COMPLETE]
        result = register(*cls._callbacks)
        if result:
            raise OSError(f"cuptiActivityRegisterCallbacks returned {result}")
        cls.registered = True

    @classmethod
    def learn_layouts(cls, cupti) -> None:
        """Where the fields read sit in this CUPTI's records, and its ids of calls."""
        kinds = cupti.ActivityKind
        cls._layouts = {
            int(kinds.CONCURRENT_KERNEL): (
                KERNEL,
                _prefix(_latest(cupti, "activity_kernel"), _KERNEL_FIELDS),
            ),
            int(kinds.MEMCPY): (COPY, _prefix(_latest(cupti, "activity_memcpy"), _BYTES_FIELDS)),
            int(kinds.MEMSET): (SET, _prefix(_latest(cupti, "activity_memset"), _BYTES_FIELDS)),
            int(kinds.EXTERNAL_CORRELATION): (
                EXTERNAL,
                _prefix(_latest(cupti, "activity_external_correlation"), _EXTERNAL_FIELDS),
            ),
        }
        calls = _prefix(cupti.activity_api_dtype, _CALL_FIELDS)
        driver, runtime = cupti.driver_api_trace_cbid, cupti.runtime_api_trace_cbid
        cls._launch_calls = {
            int(kinds.DRIVER): (_launch_cbids(driver, "cuLaunch"), int(driver.cuLaunchKernel)),
            int(kinds.RUNTIME): (_launch_cbids(runtime, "cudaLaunch"), -1),
        }
        internal = getattr(kinds, "INTERNAL_LAUNCH_API", None)  # not in every cupti-python
        if internal is not None:
            cls._launch_calls[int(internal)] = (None, -1)
        cls._layouts.update((kind, (CALL, calls)) for kind in cls._launch_calls)
        cls.external_kind = int(cupti.ExternalCorrelationKind.CUSTOM0)

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
        """A buffer's records by kind: arrays of KERNELS, CALLS (launch calls only),
        API (every API call's correlation id) and EXTERNALS (of hipkit's kind only);
        tuples of COPY and SET (correlation id, device, stream id, bytes, start, end)."""
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
            elif ours == CALL:
                records.setdefault(API, []).append(rows["correlation_id"].astype(np.int64))
                records.setdefault(CALL, []).append(cls._calls(kind, rows))
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
    def _calls(cls, kind: int, rows: np.ndarray) -> np.ndarray:
        """The launch calls among CUPTI's API records of ``kind``, as CALLS.  A
        refused one has no kernel to tell whose it was: only a refused
        cuLaunchKernel, the call hipkit launches with, is kept."""
        launches, own = cls._launch_calls[kind]
        if launches is not None:
            rows = rows[np.isin(rows["cbid"], launches)]
        rows = rows[(rows["return_value"] == 0) | (rows["cbid"] == own)]
        out = np.zeros(len(rows), CALLS)
        out["result"] = rows["return_value"]
        for field in ("correlation_id", "thread_id", "start", "end"):
            out[field] = rows[field]
        return out

    @classmethod
    def _columns(cls, ours: int, rows: np.ndarray) -> np.ndarray:
        """CUPTI's records of a kind as an array of KERNELS or EXTERNALS."""
        if ours == EXTERNAL:
            rows = rows[rows["external_kind"] == cls.external_kind]
            out = np.empty(len(rows), EXTERNALS)
            fields: tuple[str, ...] = ("correlation_id", "external_id")
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
