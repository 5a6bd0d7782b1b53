"""Device memory pools: the memory of a dropped array kept for the next one, as CuPy's.

Every :class:`~hipkit.runtime.memory.Allocation` (``hipkit.empty``, ``to_device``,
``zeros`` and the libraries' outputs) takes its memory from its device's pool.  A
block returns to the pool when the allocation's last reference goes (or at its
``free()``) and serves the next request of its size *on the same stream*; the
platform's ``malloc`` runs only when no cached block fits, and its ``free`` only in
:meth:`MemoryPool.free_all_blocks`, on an out-of-memory error, or when a size limit
needs the room.

Sizes are rounded up to :data:`ROUND` (512) bytes, as CuPy does.  A request takes the
smallest cached block of its stream that holds it, if that block is at most
:data:`FIT` times its rounded size (blocks are never split: each is one platform
allocation).

The stream rule (CuPy's): free blocks are kept by the stream they were allocated on
and go only to later allocations on that stream, whose work is ordered after
whatever used the block.  hipkit has no current stream: an allocation is on the
null stream unless it names one (``hipkit.empty(..., stream=s)``,
``hipkit.to_device(x, stream=s)``).  Memory used on a stream other than its own
must be synchronized before it is dropped, as in CuPy.  The blocks are kept by the
stream's handle: a destroyed stream's stay cached until :meth:`MemoryPool.free_all_blocks`,
a limit or an out-of-memory error frees them (or a new stream gets the same handle).

A device reset frees the device's memory: the pool then forgets its blocks (live
and cached) without freeing them again, and never hands out memory of an earlier
reset generation.

The pool's bookkeeping is queryable (:meth:`MemoryPool.blocks`: every block, live or
cached, with its size and stream), for tools that must tell a live allocation from
memory the pool holds (a memory checker).

Example
-------
>>> pool = hipkit.get_default_memory_pool()
>>> a = hipkit.empty(1000, np.float32); pool.used_bytes()
4096
>>> del a; pool.used_bytes(), pool.total_bytes()
(0, 4096)
>>> pool.free_all_blocks(); pool.total_bytes()
0
"""

from __future__ import annotations

import bisect
import collections
import threading
from typing import NamedTuple

from .. import config
from .._errors import HipError, hipError_t
from .device import Device, get_device
from .stream import stream_handle

ROUND = 512
"""Every block's size is a multiple of this many bytes."""

FIT = 2
"""A cached block serves a request of at least 1/FIT of its size."""


def round_size(nbytes: int) -> int:
    """The size of the block that serves a request of ``nbytes``."""
    return -(-nbytes // ROUND) * ROUND


class PoolBlock(NamedTuple):
    """One block of a pool: its address, size in bytes, stream handle (0: the null
    stream), and whether an allocation holds it (False: cached, free for reuse)."""

    ptr: int
    size: int
    stream: int
    live: bool


class _Arena:
    """The free blocks of one stream: addresses by size, and the sizes sorted."""

    __slots__ = ("blocks", "sizes")

    def __init__(self) -> None:
        self.blocks: dict[int, list[int]] = {}
        self.sizes: list[int] = []

    def put(self, size: int, ptr: int) -> None:
        same = self.blocks.get(size)
        if same is None:
            self.blocks[size] = [ptr]
            bisect.insort(self.sizes, size)
        else:
            same.append(ptr)

    def take(self, size: int) -> tuple[int, int]:
        """(address, size) of the best-fitting block, or (0, 0)."""
        if size not in self.blocks:
            i = bisect.bisect_left(self.sizes, size)
            if i == len(self.sizes) or self.sizes[i] > FIT * size:
                return 0, 0
            size = self.sizes[i]
        same = self.blocks[size]
        ptr = same.pop()
        if not same:
            del self.blocks[size]
            self.sizes.remove(size)
        return ptr, size


class MemoryPool:
    """The memory pool of one device (CuPy's ``MemoryPool`` for one device).

    ``HIPKIT_MEMORY_POOL=off`` (read when the pool is made) or :meth:`set_caching`
    turns caching off: every allocation is then the platform's malloc of its size,
    freed to the platform when it goes; the accounting and the limit still hold.
    ``HIPKIT_SANITIZE`` turns it off too, so that the sanitizer sees each array's own
    size, and a stale pointer freed memory rather than a block reused.
    Use :func:`get_default_memory_pool` for the pool that ``hipkit.empty`` and the
    libraries allocate from.
    """

    def __init__(self, device: Device | None = None):
        self.device = device or get_device()
        self._platform, self._native = self.device.platform, self.device._native
        self.caching: bool = config.get("HIPKIT_MEMORY_POOL") and config.get("HIPKIT_SANITIZE") == "off"
        self._lock = threading.Lock()
        self._held = _Held(self)  # `with self._held:` around every use of the state below
        self._holder = 0  # the thread inside the lock: its frees (by a collection) are queued
        self._returned: collections.deque[tuple[int, int]] = collections.deque()
        self._generation = self._platform.reset_generation(self._native)
        self._live: dict[int, tuple[int, int]] = {}  # ptr -> (size, stream)
        self._free: dict[int, _Arena] = {}  # stream -> its free blocks
        self._used = 0
        self._cached = 0
        self._limit = 0

    # -- allocation (used by Allocation)
    def malloc(self, nbytes: int, stream: int = 0) -> tuple[int, int]:
        """A block of at least ``nbytes`` for work on ``stream`` (a handle; 0: the null
        stream): ``(address, reset generation)``; return it with :meth:`free`."""
        size = round_size(nbytes) if self.caching else nbytes
        with self._held:
            ptr = 0
            if self.caching and stream in self._free:
                ptr, block = self._free[stream].take(size)
                if ptr:
                    self._cached -= block
                    size = block
                    if not self._free[stream].sizes:
                        del self._free[stream]
            if not ptr:
                ptr = self._new(size)
            self._live[ptr] = (size, stream)
            self._used += size
            return ptr, self._generation

    def free(self, ptr: int, generation: int) -> None:
        """Give back a block from :meth:`malloc` (by its address and generation): cached
        for its stream, or freed when caching is off.  A block of an earlier reset
        generation is forgotten (the reset freed it).  Called from a garbage
        collection inside the pool's own call, it takes effect when that call ends."""
        self._returned.append((ptr, generation))
        if self._holder != threading.get_ident():
            with self._held:
                pass  # taking the lock takes in what was given back

    def _new(self, size: int) -> int:
        """A block from the platform, within the limit; on out-of-memory the cached
        blocks are freed and the platform asked once more."""
        limit = self._limit
        if limit and self._used + self._cached + size > limit:
            self._release(None)
            if self._used + size > limit:
                raise HipError(
                    hipError_t.hipErrorOutOfMemory,
                    f"{size} bytes more would pass the memory pool's limit of {limit} bytes "
                    f"(set_limit; {self._used} bytes in use)",
                )
        try:
            return self._platform.malloc(self._native, size)
        except HipError as exc:
            if exc.code != hipError_t.hipErrorOutOfMemory or not self._cached:
                raise
        self._release(None)
        return self._platform.malloc(self._native, size)

    # -- the lock and the reset generation
    def _enter(self) -> None:
        self._lock.acquire()
        self._holder = threading.get_ident()
        generation = self._platform.reset_generation(self._native)
        if generation != self._generation:  # a device reset freed every block
            self._generation = generation
            self._live.clear()
            self._free.clear()
            self._used = self._cached = 0
        if self._returned:
            self._take_returned()

    def _exit(self) -> None:
        try:
            if self._returned:  # given back by a collection during the call
                self._take_returned()
        finally:
            self._holder = 0
            self._lock.release()

    def _take_returned(self) -> None:
        returned = self._returned
        while returned:
            ptr, generation = returned.popleft()
            if generation != self._generation:
                continue  # freed by a reset; its address may be a new block's now
            size, stream = self._live.pop(ptr)
            self._used -= size
            if self.caching:
                self._free.setdefault(stream, _Arena()).put(size, ptr)
                self._cached += size
            else:
                self._platform_free(ptr)

    def _platform_free(self, ptr: int) -> None:
        try:
            self._platform.free(self._native, ptr)
        except HipError:
            pass  # a sticky error: the memory goes with the next reset

    def _release(self, stream: int | None) -> None:
        streams = list(self._free) if stream is None else [stream] if stream in self._free else []
        for key in streams:
            arena = self._free.pop(key)
            for size, ptrs in arena.blocks.items():
                for ptr in ptrs:
                    self._platform_free(ptr)
                self._cached -= size * len(ptrs)

    # -- CuPy's MemoryPool API
    def used_bytes(self) -> int:
        """Bytes of the blocks that allocations hold (rounded sizes)."""
        with self._held:
            return self._used

    def free_bytes(self) -> int:
        """Bytes of the cached blocks, free for reuse."""
        with self._held:
            return self._cached

    def total_bytes(self) -> int:
        """Bytes the pool has from the platform: used plus cached."""
        with self._held:
            return self._used + self._cached

    def n_free_blocks(self) -> int:
        """How many cached blocks there are."""
        with self._held:
            return sum(len(ptrs) for arena in self._free.values() for ptrs in arena.blocks.values())

    def free_all_blocks(self, stream=None) -> None:
        """Free the cached blocks to the platform: all of them, or those of ``stream``
        (a :class:`~hipkit.Stream` or a handle; 0 for the null stream)."""
        with self._held:
            self._release(None if stream is None else stream_handle(stream))

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        """Limit the bytes the pool takes from the platform (:meth:`total_bytes`), by
        ``size`` in bytes or by ``fraction`` of the device's memory (0 to 1); neither:
        no limit.  An allocation that would pass the limit first frees the cached
        blocks, then raises ``HipError(hipErrorOutOfMemory)``."""
        if size is not None and fraction is not None:
            raise ValueError("set_limit takes size or fraction, not both")
        if fraction is not None:
            if not 0 <= fraction <= 1:
                raise ValueError(f"fraction must be from 0 to 1, got {fraction}")
            size = int(fraction * self.device.mem_info()[1])
        if size is not None and size < 0:
            raise ValueError(f"negative limit {size}")
        self._limit = size or 0

    def get_limit(self) -> int:
        """The limit in bytes (0: none)."""
        return self._limit

    def set_caching(self, enabled: bool) -> None:
        """Turn caching on or off at run time (``HIPKIT_MEMORY_POOL`` sets it when the
        pool is made), as ``cupy.cuda.set_allocator(None)`` does: off frees the cached
        blocks, and from then on each allocation is the platform's malloc of its exact
        size, freed to the platform when it goes."""
        with self._held:
            self.caching = bool(enabled)
            if not self.caching:
                self._release(None)

    def blocks(self) -> list[PoolBlock]:
        """Every block of the pool, live and cached, by address."""
        with self._held:
            found = [PoolBlock(ptr, size, stream, True) for ptr, (size, stream) in self._live.items()]
            for stream, arena in self._free.items():
                for size, ptrs in arena.blocks.items():
                    found += [PoolBlock(ptr, size, stream, False) for ptr in ptrs]
            return sorted(found)

    def __repr__(self) -> str:
        state = "caching" if self.caching else "not caching"
        return f"<hipkit.MemoryPool of {self.device!r}, {state}>"


class _Held:
    """A pool's lock as a context: its ``_enter`` and ``_exit`` (the reset's check and
    the blocks given back by a collection), one object per pool."""

    __slots__ = ("pool",)

    def __init__(self, pool: MemoryPool) -> None:
        self.pool = pool

    def __enter__(self) -> None:
        self.pool._enter()

    def __exit__(self, *exc: object) -> None:
        self.pool._exit()


_pools: dict[tuple[object, int], MemoryPool] = {}
_pools_lock = threading.Lock()


def get_default_memory_pool(device: Device | None = None) -> MemoryPool:
    """The memory pool of ``device`` (default: the current device), which
    ``hipkit.empty``, ``to_device``, ``zeros`` and the libraries allocate from
    (``cupy.get_default_memory_pool()``, per device)."""
    device = device or get_device()
    key = (device.platform, device._native)
    pool = _pools.get(key)
    if pool is None:
        with _pools_lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _pools[key] = MemoryPool(device)
    return pool
