"""The tracer: the tool the profiler installs at the runtime's hook point.

Each runtime call of a platform (``runtime/hooks.py``) comes here, but for the
launches of a platform with timestamps of its own.  Device work — launches,
copies, memsets — is timed by the platform itself where it can (``_activity.py``:
its records describe each launch, whose path the tracer then leaves alone, and
the hot path of a copy only notes the call), else by timing events recorded
around it (``_clock.py``); everything else on the host.  Rows go to a
:class:`~._spool.Spool`.

Correlation: each HIP-named API call (``hipkit.hip``) gets an id, which the
device work it causes carries (given to the platforms with timestamps of their
own as it begins, ``Platform.activity_correlate``); a Python API call that reaches the platform
directly (``kernel[g, b](...)``, ``array.get()``) is recorded as the HIP call it
amounts to, with an id of its own.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

from .._errors import HipError
from ..platforms.base.platform import Platform
from ..runtime import hooks
from ..runtime import module as _module
from ._activity import Activity
from ._clock import DeviceClock, clock, copy_fields, device_name
from ._spool import Spool

log = logging.getLogger("hipkit")

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
_DEVICE_WORK = ("launch", "memcpy", "memset", "memcpy_peer")
_SET_NAMES = {1: "hipMemset", 2: "hipMemsetD16", 4: "hipMemsetD32"}

# Row layouts of the spool (tuples); host_start: when the host asked for the work.
#   kernel: (dispatch_id, correlation_id, thread_id, device, stream, name, grid, block,
#            dynamic_shared, static_shared, host_start, start, end)
#   copy:   (correlation_id, thread_id, device, stream, kind, bytes, src, dst, host_start, start, end)
#   api:    (correlation_id, thread_id, function, start, end)
#   marker: (correlation_id, thread_id, message, kind, depth, start, end)
#   alloc:  (correlation_id, thread_id, operation, memory, device, size, address, start, end)
#   device: (device, description);  thread: (thread_id, name);  meta: (key, value)
# meta keys: pid, started_ns, ended_ns, domains; device_timestamps (per platform: their
# source, "platform" or "events", entries given host times, records matching no call);
# module_unloads_by_finalizer (modules the garbage collector unloaded: no API call).

# The tracer running now (markers and ranges go to it), if any.
active: Tracer | None = None
_life = threading.Lock()  # a profile's start and stop: one at a time, whichever threads run them


class _Thread:
    """A host thread's state in the tracer."""

    __slots__ = ("busy", "cid", "ranges", "tid")

    def __init__(self, tid: int):
        self.tid = tid  # the native id
        self.cid = 0  # the correlation id of the HIP-named API call running on this thread
        self.busy = False  # in a traced platform call: the platform calls it makes pass through
        self.ranges: list | None = None  # open hipkit.range()s: (message, start)


class _Local(threading.local):
    """Each thread's :class:`_Thread`, made (and the thread's name noted) when
    it first calls.  One object in one thread-local field: the hot path reads a
    thread-local field once, which costs more than reading the object's fields."""

    def __init__(self, note_thread: Callable[[int, str], None]):
        tid = threading.get_native_id()
        self.thread = _Thread(tid)
        note_thread(tid, threading.current_thread().name)


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
        keep = self[name] = self.domains.kernel and self.domains.kernel_wanted(name)
        return keep


class Tracer:
    """Records what passes the hook point into ``spool``, for ``domains``."""

    def __init__(self, spool: Spool, domains: Domains | None = None):
        self.spool = spool
        self.domains = domains or Domains()
        self.ids = itertools.count(1)
        self._lock = threading.RLock()
        self._threads: set[int] = set()  # the native ids of the threads in the trace
        # Names of the threads alive at the start or started since (Tracer._thread_started):
        # a thread that only launches on a platform describing launches makes no call here.
        self._thread_names: dict[int, str] = {}
        self._profile_before: Any = None  # threading's profile function for new threads, put back
        self.local = _Local(self._note_thread)
        self.clocks: dict[tuple[int, int], DeviceClock] = {}  # (id(platform), native) -> its clock
        # id(platform) -> its own timestamps, or None where its devices' clocks time the work
        self.activities: dict[int, Activity | None] = {}
        self.finalizer_unloads = 0
        self._dispatch_ids = itertools.count(1)
        self._sizes: dict[int, int] = {}  # allocation sizes, for frees
        # Each platform's activity_correlate, where launches are not wrapped: a
        # HIP-named call's id reaches the launches it makes through the platform.
        self._correlate: tuple[Callable[[int], None], ...] = ()

    def _note_thread(self, tid: int, name: str | None = None) -> None:
        """A thread in the trace: its name noted once (found by its native id if not given)."""
        if tid in self._threads:
            return
        with self._lock:
            if tid in self._threads:
                return
            self._threads.add(tid)
            if name is None:
                name = self._thread_names.get(tid) or next(
                    (t.name for t in threading.enumerate() if t.native_id == tid), f"thread {tid}"
                )
            self.spool.rows["thread"].append((tid, name))

    def _thread_started(self, frame: Any, event: str, arg: Any) -> None:
        """threading's profile function while tracing: a new thread's first event notes
        its name, then gives the thread the profile function it would have had."""
        self._thread_names[threading.get_native_id()] = threading.current_thread().name
        before = self._profile_before
        sys.setprofile(before)
        if before is not None:
            before(frame, event, arg)

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Install at the hook point, over the tools there: one profile at a time."""
        global active
        with _life:
            if active is not None:
                raise RuntimeError("a profile is running: one at a time (a profiler is already installed)")
            hooks.install(self)
            active = self
        meta = [("pid", os.getpid()), ("started_ns", clock()), ("domains", self.domains.as_dict())]
        self.spool.rows["meta"] += meta
        self._thread_names.update((t.native_id, t.name) for t in threading.enumerate() if t.native_id)
        self._profile_before = threading.getprofile()
        threading.setprofile(self._thread_started)

    def stop(self) -> None:
        """Leave the hook point, resolve every record, give the events back."""
        global active
        with _life:
            if active is self:
                active = None
            if self in hooks.installed():  # not in a forked child, where it was left
                hooks.uninstall(self)
        if threading.getprofile() == self._thread_started:
            threading.setprofile(self._profile_before)
        try:
            for timing in self._timings():
                timing.close()
        finally:
            meta = self.spool.rows["meta"]
            timestamps = self._timestamps()
            if timestamps:
                meta.append(("device_timestamps", timestamps))
            if self.finalizer_unloads:
                meta.append(("module_unloads_by_finalizer", self.finalizer_unloads))
            meta.append(("ended_ns", clock()))
            self.spool.flush()

    def resolve(self) -> None:
        """Wait for the devices and resolve every record (to read them now)."""
        for timing in self._timings():
            timing.drain(wait=True)

    def _timings(self) -> list[DeviceClock | Activity]:
        activities = [activity for activity in self.activities.values() if activity is not None]
        return [*activities, *self.clocks.values()]

    def _timestamps(self) -> dict[str, dict[str, Any]]:
        """Per platform: where device times came from, and what lacked them."""
        summary: dict[str, dict[str, Any]] = {}
        for timing in self._timings():
            name = timing.platform.name
            if isinstance(timing, Activity):
                summary[name] = {"source": "platform", "host_times": timing.untimed}
                summary[name]["unmatched_records"] = timing.unmatched
            else:
                summary.setdefault(name, {"source": "events", "host_times": 0})
                summary[name]["host_times"] += timing.untimed
        return summary

    def clock_of(self, platform: Platform, native: int) -> DeviceClock | Activity:
        """What times the device's work: its platform's own timestamps, or else
        its clock (made, with its reference event, on first use)."""
        activity = self.activities.get(id(platform))
        if activity is not None:
            activity.device(native)
            return activity
        return self._device_clock(platform, native)

    def _device_clock(self, platform: Platform, native: int) -> DeviceClock:
        key = (id(platform), native)
        device_clock = self.clocks.get(key)
        if device_clock is None:
            with self._lock:
                device_clock = self.clocks.get(key)
                if device_clock is None:
                    methods = hooks.own_methods(platform)
                    device_clock = DeviceClock(platform, native, methods, self.spool, self._dispatch_ids)
                    self.clocks[key] = device_clock
        return device_clock

    def _api_row(self, cid: int, name: str, start: int) -> None:
        if self.domains.api:
            self.spool.rows["api"].append((cid, self.local.thread.tid, name, start, clock()))

    # ------------------------------------------------------------------ the hook point

    def api_call(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """A ``hipkit.hip`` call: one API record; the work it causes carries its id."""
        thread = self.local.thread
        if thread.cid:  # hipStreamCreate calling hipStreamCreateWithFlags: the outer one counts
            return fn(*args, **kwargs)
        cid = thread.cid = next(self.ids)
        correlate = self._correlate
        for platform_correlate in correlate:
            platform_correlate(cid)
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            thread.cid = 0
            for platform_correlate in correlate:
                platform_correlate(0)
            self._api_row(cid, name, start)
            self.spool.maybe_flush()

    def wrap(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any] | None:
        with self._lock:
            if id(platform) not in self.activities:
                self.activities[id(platform)] = self._start_activity(platform)
        activity = self.activities[id(platform)]
        if activity is not None and name in _DEVICE_WORK:
            if name == "launch":
                return None  # the platform's records describe each launch call (Activity._launched)
            return self._wrap_copy_activity(activity, name, original)
        if name == "unload_module":
            return self._wrap_unload(original)
        if name == "launch" and self.domains.kernel:
            return self._wrap_launch(platform, original)
        if name in ("memcpy", "memset", "memcpy_peer") and self.domains.copy:
            return self._wrap_copy(platform, name, original)
        if name in ("malloc", "free", "host_malloc", "host_free") and self.domains.alloc:
            return self._wrap_alloc(platform, name, original)
        if name in ("synchronize", "reset"):
            return self._wrap_device(platform, name, original)
        return self._wrap_call(name, original)

    def _start_activity(self, platform: Platform) -> Activity | None:
        """The platform's own timestamps, if it has them and device work is traced."""
        if not (self.domains.kernel or self.domains.copy):
            return None
        try:
            started = platform.activity_start()
        except HipError as exc:
            log.warning("profiler: %s cannot time its own work, events will: %s", platform.name, exc)
            return None
        if not started:
            return None
        methods = hooks.own_methods(platform)
        activity = Activity(
            platform, methods, self.spool, self._dispatch_ids, self.domains, self.ids, self._note_thread
        )
        self._correlate += (platform.activity_correlate,)
        return activity

    def _wrap_unload(self, original: Callable[..., Any]) -> Callable[..., Any] | None:
        """hipModuleUnload, unless a module's finalizer unloads it (the garbage
        collector, at a time of its choosing): that is no call of the program's
        and is only counted (meta row module_unloads_by_finalizer)."""
        call = self._wrap_call("unload_module", original)
        if call is None:
            return None
        finalizing = _module.finalizing

        def unload(device, module):
            if finalizing.active:
                self.finalizer_unloads += 1
                return original(device, module)
            return call(device, module)

        return unload

    def _wrap_call(self, method: str, original: Callable[..., Any]) -> Callable[..., Any] | None:
        """A runtime call: an API record, unless a HIP-named call made it."""
        if not self.domains.api:
            return None
        local, rows, ids = self.local, self.spool.rows["api"], self.ids
        hip_name = HIP_NAMES.get(method)

        def call(*args):
            thread = local.thread
            if thread.busy or thread.cid:
                return original(*args)
            start = clock()
            thread.busy = True
            try:
                return original(*args)
            finally:
                thread.busy = False
                name = hip_name or _copy_name(method, args)
                rows.append((next(ids), thread.tid, name, start, clock()))

        return call

    def _wrap_device(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        """hipDeviceSynchronize and hipDeviceReset, around which the device's timing
        acts: events renew an old reference, and are destroyed by a reset."""
        local, hip_name = self.local, HIP_NAMES[name]

        def device_call(device):
            thread = local.thread
            if thread.busy:
                return original(device)
            device_clock = self.clock_of(platform, device)
            cid, start = thread.cid, clock()
            thread.busy = True
            try:
                if name == "reset":
                    device_clock.reset(lambda: original(device))
                else:
                    original(device)
            finally:
                thread.busy = False
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
            thread = local.thread
            cid = thread.cid
            device_clock = clocks.get(device)
            if device_clock is None:
                device_clock = clocks[device] = self._device_clock(platform, device)
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
            tid = thread.tid
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

    def _wrap_copy_activity(
        self, activity: Activity, name: str, original: Callable[..., Any]
    ) -> Callable[..., Any]:
        local, ids, traced = self.local, self.ids, self.domains.copy
        api_rows = self.spool.rows["api"] if self.domains.api else None
        pending = activity.pending

        def copy(*args):
            thread = local.thread
            if thread.busy:  # memcpy_peer's own memcpy: one call, one entry
                return original(*args)
            cid, start_ns = thread.cid, clock()
            thread.busy = True
            try:
                original(*args)
            except BaseException:
                if not cid:
                    self._api_row(next(ids), _copy_name(name, args), start_ns)
                raise
            finally:
                thread.busy = False
            end_ns = clock()
            tid = thread.tid
            if not cid:
                cid = next(ids)
                if api_rows is not None:
                    api_rows.append((cid, tid, _copy_name(name, args), start_ns, end_ns))
            # args[0]: the device (memcpy_peer's destination), args[5]: the stream
            if traced:
                pending.append(("copy", args[0], args[5], tid, start_ns, end_ns, cid, name, args))
            else:
                pending.append((None, args[0], args[5], tid, start_ns, end_ns, cid))
            if len(pending) > activity.high:
                activity.overflow()

        return copy

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
            thread = local.thread
            if thread.busy:
                return original(*args)
            device_clock = self._device_clock(platform, args[0])  # memcpy_peer: the destination
            kind, nbytes, src, dst = copy_fields(platform, name, args, device_clock.name)
            stream = args[5]
            cid, start_ns = thread.cid, clock()
            start, stop = device_clock.begin(stream)
            thread.busy = True
            try:
                original(*args)
            except BaseException:
                if start:
                    device_clock.pool += (start, stop)
                raise
            finally:
                thread.busy = False
                if not cid:
                    cid = next(self.ids)
                    self._api_row(cid, _copy_name(name, args), start_ns)
            start, stop = device_clock.end(stream, start, stop)
            pending = device_clock.pending
            row = ("copy", stream, start, stop, start_ns, clock(), cid, thread.tid, kind, nbytes, src, dst)
            pending.append(row)
            if len(pending) > device_clock.high:
                device_clock.overflow()

        return copy

    def _wrap_alloc(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        local, sizes, hip_name = self.local, self._sizes, HIP_NAMES[name]
        memory = "host" if name.startswith("host_") else "device"
        allocate = name.endswith("malloc")

        def alloc(*args):
            thread = local.thread
            if thread.busy:
                return original(*args)
            cid, start_ns = thread.cid, clock()
            thread.busy = True
            try:
                result = original(*args)
            finally:
                thread.busy = False
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
            row = (
                cid,
                thread.tid,
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
            now, thread = clock(), self.local.thread
            depth = len(thread.ranges) if thread.ranges else 0
            row = (next(self.ids), thread.tid, message, "mark", depth, now, now)
            self.spool.rows["marker"].append(row)

    def range_push(self, message: str) -> None:
        thread = self.local.thread
        if thread.ranges is None:
            thread.ranges = []
        thread.ranges.append((message, clock()))

    def range_pop(self) -> None:
        thread = self.local.thread
        if not thread.ranges:
            return  # opened before the profile started
        message, start = thread.ranges.pop()
        if self.domains.marker:
            row = (next(self.ids), thread.tid, message, "range", len(thread.ranges), start, clock())
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
    global active, _life
    _life = threading.Lock()  # perhaps held by a thread that did not survive the fork
    if active is not None:
        tracer, active = active, None
        hooks.forget(tracer)
        tracer.spool.disown()
        tracer.clocks.clear()  # the devices' events are the parent's too
        tracer.activities.clear()
        tracer._correlate = ()


os.register_at_fork(after_in_child=_forked)
