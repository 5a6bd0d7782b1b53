"""The CPU runtime's activity records (``runtime/activity.h``), as the profiler reads them.

libhipkit_cpu stamps each kernel, copy and memset it runs, and describes each launch
call in full (its thread, when it entered and returned, grid, block, shared memory,
stream, status): the platform's launch path then does nothing for the profiler.
Records are read in batches straight into a NumPy array of :data:`ACTIVITY_RECORD`;
launches become the seam's :data:`~hipkit.platforms.base.platform.LAUNCH_RECORD`,
their names an index into a list that only grows.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable

import numpy as np

from ..base.platform import LAUNCH_RAN, LAUNCH_RECORD, ActivityBatch

log = logging.getLogger("hipkit")

# runtime/activity.h's hk_activity_record, read in batches straight into a NumPy array.
ACTIVITY_RECORD = np.dtype(
    [
        ("kind", np.uint32),
        ("copy_kind", np.uint32),
        ("device", np.int32),
        ("thread_id", np.int32),
        ("stream", np.uint64),
        ("correlation_id", np.uint64),
        ("enqueue_ns", np.int64),
        ("start_ns", np.int64),
        ("end_ns", np.int64),
        ("call_ns", np.int64),
        ("name", np.uintp),  # const char*, valid for the life of the process
        ("grid", np.uint32, 3),
        ("block", np.uint32, 3),
        ("dynamic_shared", np.uint32),
        ("static_shared", np.uint32),
        ("bytes", np.uint64),
        ("status", np.uint32),  # HK_ACTIVITY_RAN, _NEVER_RAN, _REFUSED: base.LAUNCH_*
        ("error", np.int32),
        ("src_device", np.int32),  # a copy's sides: the device whose memory each is, -1 the host's
        ("dst_device", np.int32),
    ],
    align=True,
)
# Records kept unread at most (30 MiB): far more than the profiler lets wait (it
# reads them once 16,384 wait), so that none is dropped unless something else
# floods the runtime.
ACTIVITY_CAPACITY = 1 << 18
_ACTIVITY_BATCH = 4096
_KERNEL_RECORD = 1  # HK_ACTIVITY_KERNEL
# The fields a kernel's record and base.LAUNCH_RECORD share.
_LAUNCH_FIELDS: tuple[str, ...] = ("thread_id", "call_ns", "start_ns", "end_ns", "grid", "block")
_LAUNCH_FIELDS += ("dynamic_shared", "static_shared", "status", "error", "correlation_id")


class Activity:
    """The records of one runtime: started, read in batches, their kernel names
    known by the name each was looked up with."""

    def __init__(self, lib: ctypes.CDLL, check: Callable[[int], None]) -> None:
        self._lib, self._check = lib, check
        self._dropped = 0  # records the runtime dropped, as last reported
        self._names: dict[int, str] = {}  # a record's name pointer -> FunctionInfo.name
        self._launch_names: list[str] = []  # ActivityBatch.names: grows, never reordered
        self._launch_indices: dict[int, int] = {}  # a record's name pointer -> its index there

    def name(self, pointer: int, name: str) -> None:
        """Records whose name is at ``pointer`` are of the kernel looked up as ``name``."""
        self._names[pointer] = name

    def start(self) -> None:
        self._check(self._lib.hk_activity_enable(ACTIVITY_CAPACITY))
        self._dropped = 0

    def read(self) -> ActivityBatch:
        """The records of the work that finished since the last read."""
        batches = []
        while True:
            batch = np.empty(_ACTIVITY_BATCH, ACTIVITY_RECORD)
            count = self._lib.hk_activity_read(batch.ctypes.data, _ACTIVITY_BATCH)
            batches.append(batch[:count])
            if count < _ACTIVITY_BATCH:
                break
        records = np.concatenate(batches) if len(batches) > 1 else batches[0]
        dropped = self._lib.hk_activity_dropped()
        if dropped > self._dropped:
            log.warning(
                "cpu: %d activity record(s) dropped, the runtime's buffer full: that work has host times",
                dropped - self._dropped,
            )
            self._dropped = dropped
        kernels = records["kind"] == _KERNEL_RECORD
        work, launches = records[~kernels], records[kernels]
        work = work[work["status"] == LAUNCH_RAN]  # a copy that never ran keeps its call's times
        columns = ("thread_id", "enqueue_ns", "start_ns", "end_ns")
        return ActivityBatch(
            list(zip(*(work[column].tolist() for column in columns), strict=True)),
            self._launches(launches),
            self._launch_names,
        )

    def _launches(self, records: np.ndarray) -> np.ndarray:
        """ActivityBatch.launches from the runtime's kernel records."""
        out = np.empty(len(records), LAUNCH_RECORD)
        for field in _LAUNCH_FIELDS:
            out[field] = records[field]
        out["return_ns"], out["device"] = records["enqueue_ns"], records["device"]
        out["stream"] = records["stream"].astype(np.int64)
        pointers, at = np.unique(records["name"], return_inverse=True)
        out["name"] = np.array([self._launch_name(p) for p in pointers.tolist()], np.int64)[at]
        return out

    def _launch_name(self, pointer: int) -> int:
        """The index in the names of the kernel whose record name is at ``pointer``: the
        name get_function was given, else (a launch from elsewhere) the record's."""
        index = self._launch_indices.get(pointer)
        if index is None:
            name = self._names.get(pointer)
            if name is None:
                name = ctypes.string_at(pointer).decode(errors="replace") if pointer else "?"
            index = self._launch_indices[pointer] = len(self._launch_names)
            self._launch_names.append(name)
        return index
