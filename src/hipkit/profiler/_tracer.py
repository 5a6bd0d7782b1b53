"""The tracer: the tool the profiler installs at the runtime's hook point.

Each runtime call of a platform (``runtime/hooks.py``) comes here.  Device work
— launches, copies, memsets — is timed by the device (``_clock.py``); everything
else on the host.  Rows go to a :class:`~._spool.Spool`.

Correlation: each HIP-named API call (``hipkit.hip``) gets an id, which the
device work it causes carries; a Python API call that reaches the platform
directly (``kernel[g, b](...)``, ``array.get()``) is recorded as the HIP call it
amounts to, with an id of its own.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
from collections.abc import Callable
from typing import Any

from .._errors import HipError
from ..platforms.base import DEFAULT, DEVICE_TO_DEVICE, DEVICE_TO_HOST, HOST_TO_DEVICE, HOST_TO_HOST, Platform
from ..runtime import hooks
from ._clock import DeviceClock, clock, device_name
from ._spool import Spool

# The HIP call each runtime call of the platform interface amounts to (memcpy,
# memset and memcpy_peer: by their arguments, see _wrap_copy).
HIP_NAMES = {
    "malloc": "hipMalloc",
    "free": "hipFree",
    "host_malloc": "hipHostMalloc",
    "host_free": "hipHostFree",
    "mem_info": "hipMemGetInfo",
    "stream_create": "hipStreamCreateWithFlags",
    "stream_destroy": "hipStreamDestroy",
    "stream_synchronize": "hipStreamSynchronize",
    "stream_query": "hipStreamQuery",
    "stream_wait_event": "hipStreamWaitEvent",
    "event_create": "hipEventCreateWithFlags",
    "event_destroy": "hipEventDestroy",
    "event_record": "hipEventRecord",
    "event_synchronize": "hipEventSynchronize",
    "event_query": "hipEventQuery",
    "event_elapsed": "hipEventElapsedTime",
    "synchronize": "hipDeviceSynchronize",
    "can_access_peer": "hipDeviceCanAccessPeer",
    "enable_peer_access": "hipDeviceEnablePeerAccess",
    "disable_peer_access": "hipDeviceDisablePeerAccess",
    "reset": "hipDeviceReset",
    "load_module": "hipModuleLoadData",
    "unload_module": "hipModuleUnload",
    "get_function": "hipModuleGetFunction",
    "get_global": "hipModuleGetGlobal",
    "set_max_dynamic_shared": "hipFuncSetAttribute",
    "launch": "hipModuleLaunchKernel",
}
COPY_KINDS = {
    HOST_TO_HOST: "HOST_TO_HOST",
    HOST_TO_DEVICE: "HOST_TO_DEVICE",
    DEVICE_TO_HOST: "DEVICE_TO_HOST",
    DEVICE_TO_DEVICE: "DEVICE_TO_DEVICE",
    DEFAULT: "DEFAULT",
}
_SET_NAMES = {1: "hipMemset", 2: "hipMemsetD16", 4: "hipMemsetD32"}

# Row layouts of the spool (tuples); host_start: when the host asked for the work.
#   kernel: (dispatch_id, correlation_id, thread_id, device, stream, name, grid, block,
#            dynamic_shared, static_shared, host_start, start, end)
#   copy:   (correlation_id, thread_id, device, stream, kind, bytes, src, dst, host_start, start, end)
#   api:    (correlation_id, thread_id, function, start, end)
#   marker: (correlation_id, thread_id, message, kind, depth, start, end)
#   alloc:  (correlation_id, thread_id, operation, memory, device, size, address, start, end)
#   device: (device, description);  thread: (thread_id, name);  meta: (key, value)

# The tracer running now (markers and ranges go to it), if any.
active: Tracer | None = None


class _Local(threading.local):
    cid = 0  # the correlation id of the HIP-named API call running on this thread
    busy = False  # in a traced platform call: the platform calls it makes pass through
    tid = 0  # this thread's native id, once known
    ranges: list | None = None  # open hipkit.range()s: (message, start)


class Domains:
    """What to trace: rocprofv3's domains, and which kernels (``re.search``)."""

    def __init__(
        self,
        kernel: bool = True,
        api: bool = True,
        copy: bool = True,
        marker: bool = True,
        alloc: bool = True,
        include: str | None = None,
        exclude: str | None = None,
    ):
        self.kernel, self.api, self.copy, self.marker, self.alloc = kernel, api, copy, marker, alloc
        self.include, self.exclude = _regex("include", include), _regex("exclude", exclude)

    def as_dict(self) -> dict[str, bool]:
        return {
            "kernel": self.kernel,
            "api": self.api,
            "copy": self.copy,
            "marker": self.marker,
            "alloc": self.alloc,
        }

    def kernel_wanted(self, name: str) -> bool:
        if self.include is not None and not self.include.search(name):
            return False
        return self.exclude is None or not self.exclude.search(name)


def _regex(which: str, pattern: str | None) -> re.Pattern | None:
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"kernel {which} regex {pattern!r}: {exc}") from None


class _KernelFilter(dict):
    """Kernel name -> whether the domains' regexes keep it, decided once per name."""

    def __init__(self, domains: Domains):
        super().__init__()
        self.domains = domains

    def __missing__(self, name: str) -> bool:
        keep = self[name] = self.domains.kernel_wanted(name)
        return keep


class Tracer:
    """Records what passes the hook point into ``spool``, for ``domains``."""

    def __init__(self, spool: Spool, domains: Domains | None = None):
        self.spool = spool
        self.domains = domains or Domains()
        self.ids = itertools.count(1)
        self.local = _Local()
        self.clocks: dict[tuple[int, int], DeviceClock] = {}  # (id(platform), native) -> its clock
        self._methods: dict[int, dict[str, Callable]] = {}  # id(platform) -> its own methods
        self._dispatch_ids = itertools.count(1)
        self._sizes: dict[int, int] = {}  # allocation sizes, for frees
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        global active
        hooks.install(self)
        meta = [("pid", os.getpid()), ("started_ns", clock()), ("domains", self.domains.as_dict())]
        self.spool.rows["meta"] += meta
        active = self

    def stop(self) -> None:
        """Leave the hook point, resolve every record, give the events back."""
        global active
        if active is self:
            active = None
        if hooks.installed() is self:  # not in a forked child, where it was left
            hooks.uninstall(self)
        try:
            for device_clock in list(self.clocks.values()):
                device_clock.close()
        finally:
            self.spool.rows["meta"].append(("ended_ns", clock()))
            self.spool.flush()

    def resolve(self) -> None:
        """Wait for the devices and resolve every record (to read them now)."""
        for device_clock in list(self.clocks.values()):
            device_clock.drain(wait=True)

    def thread_id(self) -> int:
        """This thread's id, noting its name the first time."""
        tid = self.local.tid = threading.get_native_id()
        self.spool.rows["thread"].append((tid, threading.current_thread().name))
        return tid

    def clock_of(self, platform: Platform, native: int) -> DeviceClock:
        """The device's clock (made, with its reference event, on first use)."""
        key = (id(platform), native)
        device_clock = self.clocks.get(key)
        if device_clock is None:
            with self._lock:
                device_clock = self.clocks.get(key)
                if device_clock is None:
                    methods = self._methods[id(platform)]
                    device_clock = DeviceClock(platform, native, methods, self.spool, self._dispatch_ids)
                    self.clocks[key] = device_clock
        return device_clock

    def _api_row(self, cid: int, name: str, start: int) -> None:
        if self.domains.api:
            self.spool.rows["api"].append((cid, self.local.tid or self.thread_id(), name, start, clock()))

    # ------------------------------------------------------------------ the hook point

    def api_call(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """A ``hipkit.hip`` call: one API record; the work it causes carries its id."""
        local = self.local
        if local.cid:  # hipStreamCreate calling hipStreamCreateWithFlags: the outer one counts
            return fn(*args, **kwargs)
        cid = local.cid = next(self.ids)
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            local.cid = 0
            self._api_row(cid, name, start)
            self.spool.maybe_flush()

    def wrap(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any] | None:
        with self._lock:
            self._methods.setdefault(id(platform), {})[name] = original
        if name == "launch" and self.domains.kernel:
            return self._wrap_launch(platform, original)
        if name in ("memcpy", "memset", "memcpy_peer") and self.domains.copy:
            return self._wrap_copy(platform, name, original)
        if name in ("malloc", "free", "host_malloc", "host_free") and self.domains.alloc:
            return self._wrap_alloc(platform, name, original)
        if name in ("synchronize", "reset"):
            return self._wrap_device(platform, name, original)
        return self._wrap_call(name, original)

    def _wrap_call(self, method: str, original: Callable[..., Any]) -> Callable[..., Any] | None:
        """A runtime call: an API record, unless a HIP-named call made it."""
        if not self.domains.api:
            return None
        local, rows, ids = self.local, self.spool.rows["api"], self.ids
        hip_name = HIP_NAMES.get(method)

        def call(*args):
            if local.busy or local.cid:
                return original(*args)
            start = clock()
            local.busy = True
            try:
                return original(*args)
            finally:
                local.busy = False
                name = hip_name or _copy_name(method, args)
                rows.append((next(ids), local.tid or self.thread_id(), name, start, clock()))

        return call

    def _wrap_device(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        """hipDeviceSynchronize renews an old reference; hipDeviceReset destroys the events."""
        local, hip_name = self.local, HIP_NAMES[name]

        def device_call(device):
            if local.busy:
                return original(device)
            device_clock = self.clock_of(platform, device)
            cid, start = local.cid, clock()
            local.busy = True
            try:
                if name == "reset":
                    device_clock.reset(lambda: original(device))
                else:
                    original(device)
            finally:
                local.busy = False
                if not cid:
                    self._api_row(next(self.ids), hip_name, start)
            if name == "synchronize":
                device_clock.after_synchronize()

        return device_call

    def _wrap_launch(self, platform: Platform, original: Callable[..., Any]) -> Callable[..., Any]:
        domains, local, ids = self.domains, self.local, self.ids
        api_rows = self.spool.rows["api"] if domains.api else None
        filtered = domains.include is not None or domains.exclude is not None
        wanted = _KernelFilter(domains)
        clocks: dict[int, DeviceClock] = {}

        def launch(device, function, grid, block, shared_mem, stream, args):
            # The hot path: the common case inline (DeviceClock.begin and end do the same).
            start_ns = clock()
            cid = local.cid
            device_clock = clocks.get(device)
            if device_clock is None:
                device_clock = clocks[device] = self.clock_of(platform, device)
            name = function.name
            if filtered and not wanted[name]:
                return self._untraced_launch(
                    original, cid, start_ns, device, function, grid, block, shared_mem, stream, args
                )
            pool = device_clock.pool
            try:
                start, stop = pool.pop(), pool.pop()
            except IndexError:  # the pool is empty (or the device has no timestamps)
                start, stop = device_clock.begin(stream)
            else:
                try:
                    device_clock.record(device, start, stream)
                except HipError:  # a sticky error: the launch reports it, untimed
                    pool += (start, stop)
                    start = stop = 0
            try:
                original(device, function, grid, block, shared_mem, stream, args)
            except BaseException:
                if start:
                    pool += (start, stop)
                if not cid:
                    self._api_row(next(ids), "hipModuleLaunchKernel", start_ns)
                raise
            if start:
                try:
                    device_clock.record(device, stop, stream)
                except HipError:  # the kernel faulted already: that surfaces at the next synchronize
                    pool += (start, stop)
                    start = stop = 0
            end_ns = clock()
            tid = local.tid or self.thread_id()
            if not cid:
                cid = next(ids)
                if api_rows is not None:
                    api_rows.append((cid, tid, "hipModuleLaunchKernel", start_ns, end_ns))
            pending = device_clock.pending
            pending.append(
                (
                    "kernel", stream, start, stop, start_ns, end_ns, cid, tid,
                    name, grid, block, shared_mem, function.static_shared_bytes,
                )
            )  # fmt: skip
            if len(pending) > device_clock.high:
                device_clock.overflow()

        return launch

    def _untraced_launch(self, original: Callable[..., Any], cid: int, start_ns: int, *args) -> None:
        """A launch of a kernel the filters leave out: only its API call is recorded."""
        try:
            original(*args)
        finally:
            if not cid:
                self._api_row(next(self.ids), "hipModuleLaunchKernel", start_ns)

    def _wrap_copy(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        local = self.local

        def copy(*args):
            if local.busy:
                return original(*args)
            if name == "memcpy_peer":
                dst_device, _, src_device, _, nbytes, stream, _ = args
                device_clock = self.clock_of(platform, dst_device)
                kind, src, dst = "DEVICE_TO_DEVICE", device_name(platform, src_device), device_clock.name
            else:
                device, _, _, size, unit_or_kind, stream, _ = args
                device_clock = self.clock_of(platform, device)
                here = device_clock.name
                if name == "memset":
                    kind, nbytes, src, dst = "MEMSET", size * unit_or_kind, here, here
                else:
                    kind, nbytes = COPY_KINDS.get(unit_or_kind, "DEFAULT"), size
                    src = "host" if kind in ("HOST_TO_DEVICE", "HOST_TO_HOST") else here
                    dst = "host" if kind in ("DEVICE_TO_HOST", "HOST_TO_HOST") else here
            cid, start_ns = local.cid, clock()
            start, stop = device_clock.begin(stream)
            local.busy = True
            try:
                original(*args)
            except BaseException:
                if start:
                    device_clock.pool += (start, stop)
                raise
            finally:
                local.busy = False
                if not cid:
                    cid = next(self.ids)
                    self._api_row(cid, _copy_name(name, args), start_ns)
            start, stop = device_clock.end(stream, start, stop)
            tid = local.tid or self.thread_id()
            pending = device_clock.pending
            pending.append(("copy", stream, start, stop, start_ns, clock(), cid, tid, kind, nbytes, src, dst))
            if len(pending) > device_clock.high:
                device_clock.overflow()

        return copy

    def _wrap_alloc(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        local, sizes, hip_name = self.local, self._sizes, HIP_NAMES[name]
        memory = "host" if name.startswith("host_") else "device"
        allocate = name.endswith("malloc")

        def alloc(*args):
            if local.busy:
                return original(*args)
            cid, start_ns = local.cid, clock()
            local.busy = True
            try:
                result = original(*args)
            finally:
                local.busy = False
                if not cid:
                    cid = next(self.ids)
                    self._api_row(cid, hip_name, start_ns)
            if memory == "device":
                device, address = device_name(platform, args[0]), result if allocate else args[1]
            else:
                device, address = "host", result if allocate else args[0]
            if allocate:
                size = sizes[address] = args[-1]
            else:
                size = sizes.pop(address, 0)
            tid = local.tid or self.thread_id()
            row = (
                cid,
                tid,
                "ALLOCATE" if allocate else "FREE",
                memory,
                device,
                size,
                address,
                start_ns,
                clock(),
            )
            self.spool.rows["alloc"].append(row)
            return result

        return alloc

    # ------------------------------------------------------------------ markers

    def mark(self, message: str) -> None:
        if self.domains.marker:
            now, local = clock(), self.local
            depth = len(local.ranges) if local.ranges else 0
            row = (next(self.ids), local.tid or self.thread_id(), message, "mark", depth, now, now)
            self.spool.rows["marker"].append(row)

    def range_push(self, message: str) -> None:
        local = self.local
        if local.ranges is None:
            local.ranges = []
        local.ranges.append((message, clock()))

    def range_pop(self) -> None:
        local = self.local
        if not local.ranges:
            return  # opened before the profile started
        message, start = local.ranges.pop()
        if self.domains.marker:
            tid = local.tid or self.thread_id()
            row = (next(self.ids), tid, message, "range", len(local.ranges), start, clock())
            self.spool.rows["marker"].append(row)


def _copy_name(method: str, args: tuple) -> str:
    """The HIP call a memcpy, memset or memcpy_peer of the platform amounts to."""
    asynchronous = "Async" if args[-1] else ""
    if method == "memcpy_peer":
        return f"hipMemcpyPeer{asynchronous}"
    if method == "memset":
        return _SET_NAMES.get(args[4], "hipMemset") + asynchronous
    return f"hipMemcpy{asynchronous}"


def _forked() -> None:
    """In a child made by fork(): the running tracer's records and spool are the parent's."""
    global active
    if active is not None:
        tracer, active = active, None
        hooks.forget(tracer)
        tracer.spool.disown()
        tracer.clocks.clear()  # the devices' events are the parent's too


os.register_at_fork(after_in_child=_forked)
