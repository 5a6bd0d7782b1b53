"""The plan cache: per device, least recently used first out, by count and by memory.

A plan is kept under its key: the transform's type, rank, lengths, both layouts,
batch, scale factor and stream, which is everything a hipFFT plan is made from.  A hit
is a dictionary lookup and a move to the end (about a microsecond); a miss makes the
plan (hipfftCreate, hipfftExtPlanScaleFactor, hipfftMakePlanMany, hipfftSetStream)
and keeps it, evicting the least recently used plans until the cache holds at most
``size`` plans and ``memsize`` bytes of work areas.  A plan larger than ``memsize``
alone is used once and destroyed; one that a device reset took is made again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from .. import hipfft
from ..hipfft.plans import HipfftError, state_of
from ..runtime.device import Device, get_device

__all__ = ["CachedPlan", "PlanCache", "get_plan_cache"]

DEFAULT_SIZE = 16  # plans, as CuPy's default
DEFAULT_MEMSIZE = -1  # bytes of work areas: no limit

Key = tuple[Any, ...]


class CachedPlan:
    """A made plan: its handle, its exec function (``name``, the provider's ``run``),
    its work size, and the factor hipkit must scale its results by itself (1.0: none;
    else the library has no scale factor)."""

    __slots__ = ("handle", "key", "name", "post_scale", "run", "state", "work")

    def __init__(self, key: Key, device: Device, name: str) -> None:
        kind, rank, n, inembed, istride, idist, onembed, ostride, odist, batch, scale, stream = key
        self.key = key
        with device:
            self.handle = plan = hipfft.hipfftCreate()
        try:
            self.post_scale = 1.0
            if scale != 1.0:
                try:
                    hipfft.hipfftExtPlanScaleFactor(plan, scale)
                except HipfftError as exc:
                    if exc.result != hipfft.HIPFFT_NOT_IMPLEMENTED:
                        raise
                    self.post_scale = scale
            with device:
                self.work = hipfft.hipfftMakePlanMany(
                    plan, rank, n, inembed, istride, idist, onembed, ostride, odist, kind, batch
                )
            if stream:
                hipfft.hipfftSetStream(plan, stream)
        except BaseException:
            hipfft.hipfftDestroy(plan)
            raise
        self.name = name
        self.state = state_of(plan, name)
        self.run = self.state.function(name)

    def stale(self) -> bool:
        """Whether a device reset took the plan since it was made."""
        device = self.state.device
        return device.platform.reset_generation(device._native) != self.state.generation

    def destroy(self) -> None:
        try:
            hipfft.hipfftDestroy(self.handle)
        except HipfftError:
            pass  # a device reset took it


class PlanCache:
    """One device's plans (module doc).

    Example
    -------
    >>> cache = hipkit.fft.get_plan_cache()
    >>> cache.set_size(32); cache.set_memsize(1 << 30)
    >>> cache.info()["hits"]  # doctest: +SKIP
    12
    >>> cache.clear()
    """

    def __init__(self, device: Device) -> None:
        self.device = device
        self._plans: OrderedDict[Key, CachedPlan] = OrderedDict()
        self._size = DEFAULT_SIZE
        self._memsize = DEFAULT_MEMSIZE
        self._memory = 0
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._plans)

    def __contains__(self, key: Key) -> bool:
        return key in self._plans

    @property
    def size(self) -> int:
        """The most plans kept (0: none, every call makes its plan)."""
        return self._size

    @property
    def memsize(self) -> int:
        """The most bytes of work areas kept (-1: no limit)."""
        return self._memsize

    @property
    def memory(self) -> int:
        """The bytes of work areas the kept plans hold."""
        return self._memory

    def set_size(self, size: int) -> None:
        """Keep at most ``size`` plans, evicting the least recently used now."""
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        with self._lock:
            self._size = int(size)
            self._evict(0)

    def set_memsize(self, memsize: int) -> None:
        """Keep at most ``memsize`` bytes of work areas (-1: no limit)."""
        if memsize < -1:
            raise ValueError(f"memsize must be >= -1, got {memsize}")
        with self._lock:
            self._memsize = int(memsize)
            self._evict(0)

    def clear(self) -> None:
        """Destroy every kept plan (the counts of hits and misses start again)."""
        with self._lock:
            plans = list(self._plans.values())
            self._plans.clear()
            self._memory = 0
            self.hits = self.misses = 0
        for plan in plans:
            plan.destroy()

    def info(self) -> dict[str, Any]:
        """What the cache holds: ``size``, ``memsize``, ``plans`` (the count),
        ``memory`` (bytes of work areas), ``hits``, ``misses`` and ``keys`` (least
        recently used first)."""
        with self._lock:
            return {
                "device": repr(self.device),
                "size": self._size,
                "memsize": self._memsize,
                "plans": len(self._plans),
                "memory": self._memory,
                "hits": self.hits,
                "misses": self.misses,
                "keys": list(self._plans),
            }

    def show_info(self) -> None:
        """Print :meth:`info`, one line a plan."""
        info = self.info()
        keys = info.pop("keys")
        print(", ".join(f"{k}={v}" for k, v in info.items()))
        for key in keys:
            print("  ", key)

    def get(self, key: Key, name: str) -> tuple[CachedPlan, bool]:
        """The plan of ``key`` (executed by hipFFT's function ``name``) and whether it
        is kept (False: destroy it after use)."""
        plans = self._plans
        plan = plans.get(key)
        if plan is not None:
            if not plan.stale():
                plans.move_to_end(key)
                self.hits += 1
                return plan, True
            with self._lock:  # a device reset took it: make it again
                plans.pop(key, None)
                self._memory -= plan.work
        plan = CachedPlan(key, self.device, name)
        with self._lock:
            self.misses += 1
            if self._size == 0 or (self._memsize >= 0 and plan.work > self._memsize):
                return plan, False
            self._evict(plan.work, plans_more=1)
            plans[key] = plan
            self._memory += plan.work
        return plan, True

    def _evict(self, work: int, plans_more: int = 0) -> None:
        """Destroy least recently used plans until ``plans_more`` more plans and
        ``work`` more bytes fit."""
        plans = self._plans
        while plans and (
            len(plans) + plans_more > self._size
            or (self._memsize >= 0 and self._memory + work > self._memsize)
        ):
            _, old = plans.popitem(last=False)
            self._memory -= old.work
            old.destroy()


_caches: dict[tuple[Any, int], PlanCache] = {}
_caches_lock = threading.Lock()


def get_plan_cache(device: Device | None = None) -> PlanCache:
    """The plan cache of ``device`` (default: the current device)."""
    device = device or get_device()
    key = (device.platform, device.index)
    cache = _caches.get(key)
    if cache is None:
        with _caches_lock:
            cache = _caches.setdefault(key, PlanCache(device))
    return cache
