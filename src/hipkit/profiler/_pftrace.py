"""Perfetto's own trace format (``.pftrace``, rocprofv3's ``-f pftrace``), encoded here.

A ``.pftrace`` file is a protobuf ``perfetto.protos.Trace``: a sequence of
``TracePacket`` messages, each written as field 1 of the file.  hipkit writes a
packet at a time, so a trace of millions of records is never in memory, with
a small protobuf writer of its own (varints and length-delimited fields) rather
than a protobuf library.  The field numbers are Perfetto's
(``protos/perfetto/trace/perfetto_trace.proto``, v59), named below.

What a trace holds, as the Chrome JSON (``_export.py``) does:

- a clock snapshot naming CLOCK_MONOTONIC the trace's clock, and every packet
  stamped with that clock, so Perfetto takes hipkit's nanoseconds
  (``time.perf_counter_ns``) as they are instead of converting them from
  BOOTTIME, its default;
- a process track for the host, with a thread track per host thread: API
  calls, ``hipkit.range`` ranges (nested), marks and allocations (instants);
- a process track per device, with a track per stream for its kernels and
  another for its copies and memsets.  Perfetto reads the BEGIN and END events
  of a track as a stack, so its slices must nest or follow each other.  A
  stream's work does follow in order, but device times come from single
  precision elapsed times and can overlap by their rounding: with the two
  kinds apart, and a start before the previous end of its track moved to
  that end, they cannot break the nesting;
- a flow from each launch or copy call to its device work, with the
  correlation id as the flow's id;
- the records' fields as debug annotations (grid, block, bytes, ids, ...);
- a counter track per device of the bytes allocated.

Names, categories and argument names are interned (sent once, then referred
to by number); past :data:`INTERN_LIMIT` distinct names (marks made in a loop
with a counter in their message) names are written in full, so the tables
stay bounded too.
"""

from __future__ import annotations

import functools
import os
import struct
import time
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from .trace import Trace

INTERN_LIMIT = 1 << 16  # strings per interning table

# Field numbers (Perfetto's protos).
TRACE_PACKET = 1  # Trace.packet
# TracePacket
CLOCK_SNAPSHOT, TIMESTAMP, SEQUENCE_ID, TRACK_EVENT, INTERNED_DATA, SEQUENCE_FLAGS = 6, 8, 10, 11, 12, 13
TIMESTAMP_CLOCK_ID, TRACK_DESCRIPTOR = 58, 60
# ClockSnapshot and ClockSnapshot.Clock
CLOCKS, PRIMARY_TRACE_CLOCK, CLOCK_ID, CLOCK_TIMESTAMP = 1, 2, 1, 2
# TrackDescriptor
UUID, NAME, PROCESS, THREAD, PARENT_UUID, COUNTER = 1, 2, 3, 4, 5, 8
CHILD_ORDERING, SIBLING_ORDER_RANK = 11, 12
# ProcessDescriptor and ThreadDescriptor
PID, PROCESS_NAME, TID, THREAD_NAME = 1, 6, 2, 5
# CounterDescriptor
COUNTER_UNIT = 3
# TrackEvent
CATEGORY_IIDS, DEBUG_ANNOTATIONS, TYPE, NAME_IID, TRACK_UUID, EVENT_NAME = 3, 4, 9, 10, 11, 23
COUNTER_VALUE, FLOW_IDS, TERMINATING_FLOW_IDS = 30, 47, 48
# DebugAnnotation
ARG_NAME_IID, BOOL_VALUE, INT_VALUE, DOUBLE_VALUE, STRING_VALUE, ARRAY_VALUES = 1, 2, 4, 5, 6, 12
# InternedData: event_categories, event_names, debug_annotation_names; each entry (iid 1, name 2)
INTERNED_CATEGORIES, INTERNED_NAMES, INTERNED_ARG_NAMES = 1, 2, 3

# Enum values
CLOCK_MONOTONIC, CLOCK_BOOTTIME = 3, 6  # BuiltinClock
SLICE_BEGIN, SLICE_END, INSTANT, COUNTER_EVENT = 1, 2, 3, 4  # TrackEvent.Type
INCREMENTAL_STATE_CLEARED, NEEDS_INCREMENTAL_STATE = 1, 2  # TracePacket.SequenceFlags
UNIT_SIZE_BYTES = 3  # CounterDescriptor.Unit
ORDERING_EXPLICIT = 3  # TrackDescriptor.ChildTracksOrdering

SEQUENCE = 1  # the one packet sequence of the file (interned strings are per sequence)
DEVICE_PID = 1_000_000  # devices are processes 1000001, 1000002, ... as in the JSON


# ---------------------------------------------------------------------- protobuf encoding


_ONE_BYTE = [bytes((b,)) for b in range(0x80)]
_keys: dict[int, bytes] = {}


def varint(value: int) -> bytes:
    """Base-128, low group first; a negative int64 as its 64-bit two's complement (ten bytes)."""
    if 0 <= value < 0x80:
        return _ONE_BYTE[value]  # most: enums, small ids and sizes (the writer's hot path)
    value &= 0xFFFF_FFFF_FFFF_FFFF
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(field: int, wire_type: int) -> bytes:
    """A field's tag (made once per field and wire type)."""
    tag = field << 3 | wire_type
    encoded = _keys.get(tag)
    if encoded is None:
        encoded = _keys[tag] = varint(tag)
    return encoded


def integer(field: int, value: int) -> bytes:
    """A varint field (int32, int64, uint32, uint64, enum, bool)."""
    return key(field, 0) + varint(value)


def fixed64(field: int, value: int) -> bytes:
    return key(field, 1) + struct.pack("<Q", value)


def double(field: int, value: float) -> bytes:
    return key(field, 1) + struct.pack("<d", value)


def message(field: int, payload: bytes) -> bytes:
    """A length-delimited field: a nested message, a string's or bytes' contents."""
    return key(field, 2) + varint(len(payload)) + payload


def string(field: int, text: str) -> bytes:
    return message(field, text.encode("utf-8", "surrogateescape"))


def repeated(field: int, values: Iterable[bytes]) -> bytes:
    return b"".join(message(field, value) for value in values)


# ---------------------------------------------------------------------- the writer

Arg = int | float | str | bool | tuple


class _Interned:
    """One interning table: string -> iid (from 1); a new entry goes to the
    writer's ``pending`` list, for the next packet's InternedData."""

    def __init__(self, field: int, pending: list[bytes]):
        self.field, self.pending = field, pending
        self.ids: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        """The string's iid; 0 when the table is full (the caller writes it in full)."""
        iid = self.ids.get(text)
        if iid is None:
            if len(self.ids) >= INTERN_LIMIT:
                return 0
            iid = self.ids[text] = len(self.ids) + 1
            self.pending.append(message(self.field, integer(1, iid) + string(2, text)))
        return iid


class Writer:
    """Writes TracePackets to a binary file: track descriptors, then events.
    Encoded pieces that repeat (a track's END event, an argument's name) are
    made once; there are as many as tracks and argument names."""

    _SEQUENCE = integer(SEQUENCE_ID, SEQUENCE)
    _EVENT_HEAD = integer(TIMESTAMP_CLOCK_ID, CLOCK_MONOTONIC) + key(TIMESTAMP, 0)
    _NEEDS_STATE = integer(SEQUENCE_FLAGS, NEEDS_INCREMENTAL_STATE)

    def __init__(self, f: IO[bytes], pid: int):
        self.f, self.pid = f, pid
        self.uuids = 0
        self.pending: list[bytes] = []  # interned entries not yet written
        self.names = _Interned(INTERNED_NAMES, self.pending)
        self.categories = _Interned(INTERNED_CATEGORIES, self.pending)
        self.arg_names = _Interned(INTERNED_ARG_NAMES, self.pending)
        self.flags = integer(SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED)  # the sequence's first packet
        self._ends: dict[int, bytes] = {}  # track -> its END event
        self._arg_keys: dict[str, bytes] = {}  # argument name -> its name_iid field

    def packet(self, body: bytes) -> None:
        self.f.write(key(TRACE_PACKET, 2) + varint(len(body)) + body)

    def sequence_packet(self, body: bytes) -> None:
        """A packet of the sequence, carrying the strings interned since the last one."""
        if self.pending:
            body += message(INTERNED_DATA, b"".join(self.pending))
            self.pending.clear()
        self.packet(self._SEQUENCE + self.flags + body)
        self.flags = self._NEEDS_STATE

    def clock_snapshot(self) -> None:
        """The trace's clock is CLOCK_MONOTONIC; BOOTTIME read beside it where
        the system has it, so that Perfetto can put this trace beside others
        (read now, not when traced: the two differ only by time suspended)."""
        clocks = [(CLOCK_MONOTONIC, time.perf_counter_ns())]
        if hasattr(time, "CLOCK_BOOTTIME"):
            clocks.append((CLOCK_BOOTTIME, time.clock_gettime_ns(time.CLOCK_BOOTTIME)))
        readings = repeated(CLOCKS, (integer(CLOCK_ID, c) + integer(CLOCK_TIMESTAMP, t) for c, t in clocks))
        self.packet(message(CLOCK_SNAPSHOT, readings + integer(PRIMARY_TRACE_CLOCK, CLOCK_MONOTONIC)))

    # -------------------------------------------------------------- tracks

    def track(self, descriptor: bytes) -> int:
        """A new track: its uuid (unique in the file, and made of the pid so
        that traces of several processes opened together do not collide)."""
        self.uuids += 1
        uuid = (self.pid & 0xFFFF_FFFF) << 24 | self.uuids
        self.sequence_packet(message(TRACK_DESCRIPTOR, integer(UUID, uuid) + descriptor))
        end = integer(TYPE, SLICE_END) + integer(TRACK_UUID, uuid)
        self._ends[uuid] = key(TRACK_EVENT, 2) + varint(len(end)) + end
        return uuid

    def process(self, pid: int, name: str, ordered: bool = False) -> int:
        """A process's track; ``ordered``: its tracks in the order of their ranks."""
        descriptor = message(PROCESS, integer(PID, pid) + string(PROCESS_NAME, name))
        return self.track(descriptor + (integer(CHILD_ORDERING, ORDERING_EXPLICIT) if ordered else b""))

    def thread(self, pid: int, tid: int, name: str) -> int:
        return self.track(message(THREAD, integer(PID, pid) + integer(TID, tid) + string(THREAD_NAME, name)))

    def child(self, parent: int, name: str, rank: int = 0, counter_unit: int = 0) -> int:
        """A track of a process (a stream's, a counter's), ``rank`` its place
        among its siblings in Perfetto's newer viewers."""
        descriptor = integer(PARENT_UUID, parent) + string(NAME, name) + integer(SIBLING_ORDER_RANK, rank)
        if counter_unit:
            descriptor += message(COUNTER, integer(COUNTER_UNIT, counter_unit))
        return self.track(descriptor)

    # -------------------------------------------------------------- events

    def event(
        self,
        kind: int,
        track: int,
        at: int,
        name: str = "",
        category: str = "",
        args: dict[str, Arg] | None = None,
        flows: tuple[bytes, ...] = (),
        counter: int | None = None,
    ) -> None:
        body = integer(TYPE, kind) + integer(TRACK_UUID, track)
        if name:
            iid = self.names(name)
            body += integer(NAME_IID, iid) if iid else string(EVENT_NAME, name)
        if category:
            body += integer(CATEGORY_IIDS, self.categories(category))
        if args:
            body += b"".join(message(DEBUG_ANNOTATIONS, self.annotation(k, v)) for k, v in args.items())
        body += b"".join(flows)
        if counter is not None:
            body += integer(COUNTER_VALUE, counter)
        self.sequence_packet(self._EVENT_HEAD + varint(at) + message(TRACK_EVENT, body))

    def annotation(self, name: str, value: Arg) -> bytes:
        prefix = self._arg_keys.get(name)
        if prefix is None:
            prefix = self._arg_keys[name] = integer(ARG_NAME_IID, self.arg_names(name))
        return prefix + (_array(value) if isinstance(value, tuple) else _value(value))

    def slice(self, track: int, start: int, end: int, name: str, category: str, args, flows=()) -> None:
        self.event(SLICE_BEGIN, track, start, name, category, args, flows)
        self.sequence_packet(self._EVENT_HEAD + varint(end) + self._ends[track])


def _value(value: Arg) -> bytes:
    if isinstance(value, bool):
        return integer(BOOL_VALUE, value)
    if isinstance(value, int):
        return integer(INT_VALUE, value)
    if isinstance(value, float):
        return double(DOUBLE_VALUE, value)
    if isinstance(value, tuple):
        return _array(value)
    return string(STRING_VALUE, str(value))


@functools.lru_cache(maxsize=1024)
def _array(values: tuple) -> bytes:
    """An array argument (a grid, a block: few distinct ones, so kept encoded)."""
    return repeated(ARRAY_VALUES, (_value(v) for v in values))


def flow_out(flow_id: int) -> bytes:
    return fixed64(FLOW_IDS, flow_id)


def flow_in(flow_id: int) -> bytes:
    return fixed64(TERMINATING_FLOW_IDS, flow_id)


# ---------------------------------------------------------------------- a trace


class _Correlations:
    """The correlation ids that have device work, one bit each (ids count from
    1), so that only the calls that caused work start a flow."""

    def __init__(self):
        self.bits = bytearray()

    def add(self, cid: int) -> None:
        index = cid >> 3
        if index >= len(self.bits):
            self.bits.extend(bytes(index + 1 - len(self.bits) + len(self.bits) // 2))
        self.bits[index] |= 1 << (cid & 7)

    def __contains__(self, cid: int) -> bool:
        index = cid >> 3
        return index < len(self.bits) and bool(self.bits[index] >> (cid & 7) & 1)


def write(trace: Trace, f: IO[bytes]) -> None:
    """The trace as Perfetto packets into ``f``."""
    from ._export import copy_direction

    meta, devices = trace.meta, trace.devices
    host = meta.get("pid", os.getpid())
    flows = meta.get("domains", {}).get("api", True)  # an arrow starts at the API call's slice
    out = Writer(f, host)
    out.clock_snapshot()
    host_track = out.process(host, "Host")
    threads = {tid: out.thread(host, tid, name) for tid, name in trace.threads.items()}

    def thread(tid: int) -> int:
        if tid not in threads:
            threads[tid] = out.thread(host, tid, f"thread {tid}")
        return threads[tid]

    device_tracks: dict[str, int] = {}
    stream_tracks: dict[tuple[str, int, str], int] = {}
    last_end: dict[int, int] = {}

    def stream_track(device: str, stream: int, work: str) -> int:
        """A stream's track for ``work`` ("kernels" or "copies"), its device's process made first."""
        track = stream_tracks.get((device, stream, work))
        if track is None:
            if device not in device_tracks:
                pid = DEVICE_PID + len(device_tracks) + 1
                device_tracks[device] = out.process(pid, f"Device {devices.get(device, device)}", True)
            label = "Stream 0 (null stream)" if stream == 0 else f"Stream {stream}"
            rank = 2 * stream + (work == "copies")
            track = out.child(device_tracks[device], f"{label} {work}", rank)
            stream_tracks[device, stream, work] = track
        return track

    def sequential(track: int, start: int, end: int) -> tuple[int, int]:
        """A stream runs its work in order: a start before the previous end on
        the track (elapsed times are single precision) is moved to that end."""
        start = max(start, last_end.get(track, start))
        end = last_end[track] = max(end, start)
        return start, end

    with_work = _Correlations()
    for r in trace.rows("kernel"):
        track = stream_track(r[3], r[4], "kernels")
        args = {"grid": r[6], "block": r[7], "dynamic_shared": r[8], "static_shared": r[9]}
        args.update(correlation_id=r[1], dispatch_id=r[0])
        with_work.add(r[1])
        start, end = sequential(track, r[11], r[12])
        out.slice(track, start, end, r[5], "kernel", args, (flow_in(r[1]),) if flows else ())
    for r in trace.rows("copy"):
        track = stream_track(r[2], r[3], "copies")
        seconds = (r[10] - r[9]) / 1e9
        args = {"bytes": r[5], "src": r[6], "dst": r[7], "correlation_id": r[0]}
        args["bandwidth_GBps"] = round(r[5] / seconds / 1e9, 3) if seconds > 0 else 0.0
        with_work.add(r[0])
        start, end = sequential(track, r[9], r[10])
        arrow = (flow_in(r[0]),) if flows else ()
        out.slice(track, start, end, copy_direction(r[4]), "memory_copy", args, arrow)
    for r in trace.rows("api"):
        out.slice(
            thread(r[1]),
            r[3],
            r[4],
            r[2],
            "hip_api",
            {"correlation_id": r[0]},
            (flow_out(r[0]),) if r[0] in with_work else (),
        )
    for r in trace.rows("marker"):
        if r[3] == "mark":
            out.event(INSTANT, thread(r[1]), r[5], r[2], "marker")
        else:
            out.slice(thread(r[1]), r[5], r[6], r[2], "marker", {"depth": r[4]})
    counters: dict[str, int] = {}
    allocated: dict[str, int] = {}
    for r in trace.rows("alloc"):
        args = {"size": r[5], "address": hex(r[6]), "correlation_id": r[0]}
        out.event(INSTANT, thread(r[1]), r[7], f"{r[2].lower()} ({r[3]})", "memory_allocation", args)
        if r[4] not in counters:
            name = f"allocated bytes ({r[4]})"
            counters[r[4]] = out.child(host_track, name, len(counters), UNIT_SIZE_BYTES)
        total = allocated[r[4]] = allocated.get(r[4], 0) + (r[5] if r[2] == "ALLOCATE" else -r[5])
        out.event(COUNTER_EVENT, counters[r[4]], r[8], counter=total)
