"""The tracer's wrappers of the platform's methods, which it puts at the hook point.

Each wrapper records its call as the HIP call it amounts to (:data:`HIP_NAMES`,
:func:`copy_name`), unless a HIP-named call made it (whose API row counts) or
another traced call did (``memcpy_peer``'s own ``memcpy``: one call, one row).
Device work is timed by timing events around it (``_clock.py``) or, on a
platform with timestamps of its own, only noted for its records to be matched
later (``_activity.py``); its launches are not wrapped at all.  Allocations and
frees are rows of their own.  Launches are the hot path: the common case is
written inline there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._errors import HipError
from ..platforms.base.platform import Platform
from ..runtime import module as _module
from ._activity import Activity
from ._clock import DeviceClock, clock, copy_fields, device_name
from ._domains import KernelFilter

if TYPE_CHECKING:
    from ._tracer import Tracer

# The HIP call each runtime call of the platform interface amounts to (memcpy,
# memset and memcpy_peer: by their arguments, see copy_name).
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


def wrapper(
    tracer: Tracer, platform: Platform, activity: Activity | None, name: str, original: Callable[..., Any]
) -> Callable[..., Any] | None:
    """What ``tracer`` puts in place of ``platform.<name>`` (which is ``original``), or
    None to leave it alone; ``activity``: the platform's own timestamps, if it has them."""
    if activity is not None and name in _DEVICE_WORK:
        if name == "launch":
            return None  # the platform's records describe each launch call (Activity._launched)
        return _copy_noted(tracer, activity, name, original)
    if name == "unload_module":
        return _unload(tracer, original)
    if name == "launch" and tracer.domains.kernel:
        return _launch(tracer, platform, original)
    if name in ("memcpy", "memset", "memcpy_peer") and tracer.domains.copy:
        return _copy_timed(tracer, platform, name, original)
    if name in ("malloc", "free", "host_malloc", "host_free") and tracer.domains.alloc:
        return _alloc(tracer, platform, name, original)
    if name in ("synchronize", "reset"):
        return _device_call(tracer, platform, name, original)
    return _call(tracer, name, original)


def _unload(tracer: Tracer, original: Callable[..., Any]) -> Callable[..., Any] | None:
    """hipModuleUnload, unless a module's finalizer unloads it (the garbage
    collector, at a time of its choosing): that is no call of the program's
    and is only counted (meta row module_unloads_by_finalizer)."""
    call = _call(tracer, "unload_module", original)
    if call is None:
        return None
    finalizing = _module.finalizing

    def unload(device, module):
        if finalizing.active:
            tracer.finalizer_unloads += 1
            return original(device, module)
        return call(device, module)

    return unload


def _call(tracer: Tracer, method: str, original: Callable[..., Any]) -> Callable[..., Any] | None:
    """A runtime call: an API record, unless a HIP-named call made it."""
    if not tracer.domains.api:
        return None
    local, rows, ids = tracer.local, tracer.spool.rows["api"], tracer.ids
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
            name = hip_name or copy_name(method, args)
            rows.append((next(ids), thread.tid, name, start, clock()))

    return call


def _device_call(
    tracer: Tracer, platform: Platform, name: str, original: Callable[..., Any]
) -> Callable[..., Any]:
    """hipDeviceSynchronize and hipDeviceReset, around which the device's timing
    acts: events renew an old reference, and are destroyed by a reset."""
    local, hip_name = tracer.local, HIP_NAMES[name]

    def device_call(device):
        thread = local.thread
        if thread.busy:
            return original(device)
        device_clock = tracer.clock_of(platform, device)
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
                tracer.api_row(next(tracer.ids), hip_name, start)
        if name == "synchronize":
            device_clock.after_synchronize()

    return device_call


def _launch(tracer: Tracer, platform: Platform, original: Callable[..., Any]) -> Callable[..., Any]:
    """A launch between two timing events of its device's pool: a kernel row, and its API row."""
    domains, local, ids = tracer.domains, tracer.local, tracer.ids
    api_rows = tracer.spool.rows["api"] if domains.api else None
    filtered = domains.include is not None or domains.exclude is not None
    wanted = KernelFilter(domains)
    clocks: dict[int, DeviceClock] = {}

    def launch(device, function, grid, block, shared_mem, stream, args):
        # The hot path: the common case inline (DeviceClock.begin and end do the same).
        start_ns = clock()
        thread = local.thread
        cid = thread.cid
        device_clock = clocks.get(device)
        if device_clock is None:
            device_clock = clocks[device] = tracer.device_clock(platform, device)
        name = function.name
        if filtered and not wanted[name]:
            return _untraced_launch(
                tracer, original, cid, start_ns, device, function, grid, block, shared_mem, stream, args
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
                tracer.api_row(next(ids), "hipModuleLaunchKernel", start_ns)
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


def _copy_noted(
    tracer: Tracer, activity: Activity, name: str, original: Callable[..., Any]
) -> Callable[..., Any]:
    """A copy or memset on a platform with timestamps of its own: only noted, for its records."""
    local, ids, traced = tracer.local, tracer.ids, tracer.domains.copy
    api_rows = tracer.spool.rows["api"] if tracer.domains.api else None
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
                tracer.api_row(next(ids), copy_name(name, args), start_ns)
            raise
        finally:
            thread.busy = False
        end_ns = clock()
        tid = thread.tid
        if not cid:
            cid = next(ids)
            if api_rows is not None:
                api_rows.append((cid, tid, copy_name(name, args), start_ns, end_ns))
        # args[0]: the device (memcpy_peer's destination), args[5]: the stream
        if traced:
            pending.append(("copy", args[0], args[5], tid, start_ns, end_ns, cid, name, args))
        else:
            pending.append((None, args[0], args[5], tid, start_ns, end_ns, cid))
        if len(pending) > activity.high:
            activity.overflow()

    return copy


def _untraced_launch(tracer: Tracer, original: Callable[..., Any], cid: int, start_ns: int, *args) -> None:
    """A launch of a kernel the filters leave out: only its API call is recorded."""
    try:
        original(*args)
    finally:
        if not cid:
            tracer.api_row(next(tracer.ids), "hipModuleLaunchKernel", start_ns)


def _copy_timed(
    tracer: Tracer, platform: Platform, name: str, original: Callable[..., Any]
) -> Callable[..., Any]:
    """A copy or memset between two timing events: a copy row (a memset's too), and its API row."""
    local = tracer.local

    def copy(*args):
        thread = local.thread
        if thread.busy:
            return original(*args)
        device_clock = tracer.device_clock(platform, args[0])  # memcpy_peer: the destination
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
                cid = next(tracer.ids)
                tracer.api_row(cid, copy_name(name, args), start_ns)
        start, stop = device_clock.end(stream, start, stop)
        pending = device_clock.pending
        row = ("copy", stream, start, stop, start_ns, clock(), cid, thread.tid, kind, nbytes, src, dst)
        pending.append(row)
        if len(pending) > device_clock.high:
            device_clock.overflow()

    return copy


def _alloc(tracer: Tracer, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    local, sizes, hip_name = tracer.local, tracer.sizes, HIP_NAMES[name]
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
                cid = next(tracer.ids)
                tracer.api_row(cid, hip_name, start_ns)
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
        tracer.spool.rows["alloc"].append(row)
        return result

    return alloc


def copy_name(method: str, args: tuple) -> str:
    """The HIP call a memcpy, memset or memcpy_peer of the platform amounts to."""
    asynchronous = "Async" if args[-1] else ""
    if method == "memcpy_peer":
        return f"hipMemcpyPeer{asynchronous}"
    if method == "memset":
        return _SET_NAMES.get(args[4], "hipMemset") + asynchronous
    return f"hipMemcpy{asynchronous}"
