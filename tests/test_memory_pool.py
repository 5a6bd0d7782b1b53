"""The device memory pool (runtime/pool.py): reuse by size and stream, the accounting,
free_all_blocks, limits, the switch off, device resets, out-of-memory retries."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import hipkit
from hipkit import HipError, hipError_t
from hipkit.runtime.memory import Allocation
from hipkit.runtime.pool import ROUND, MemoryPool, PoolBlock, round_size


@pytest.fixture
def pool(device):
    """The device's pool, emptied of cached blocks, caching, with no limit; no
    collection runs during the test (none gives back another test's arrays)."""
    gc.collect()
    gc.disable()
    pool = hipkit.get_default_memory_pool(device)
    caching = pool.caching
    pool.set_caching(True)
    pool.free_all_blocks()
    try:
        yield pool
    finally:
        gc.enable()
        pool.set_limit(None)
        pool.set_caching(caching)


def test_sizes_round_up_to_512_bytes():
    assert ROUND == 512
    assert [round_size(n) for n in (1, 511, 512, 513, 4000, 4096)] == [512, 512, 512, 1024, 4096, 4096]


def test_the_default_pool_is_one_per_device(device, pool):
    assert hipkit.get_default_memory_pool() is pool  # the fixture made `device` current
    assert hipkit.get_default_memory_pool(hipkit.Device(0, device.platform)) is pool
    assert isinstance(pool, hipkit.MemoryPool) and "caching" in repr(pool)


def test_a_dropped_array_s_block_serves_the_next_of_its_size(device, pool):
    a = hipkit.empty(1000, np.float32)
    ptr = a.ptr
    del a
    b = hipkit.empty((10, 100), np.int32)  # the same 4000 bytes
    assert b.ptr == ptr
    c = hipkit.empty(1000, np.float32)  # b still holds that block
    assert c.ptr != ptr


def test_best_fit_takes_a_block_at_most_twice_the_size(device, pool):
    a = hipkit.empty(4096, np.uint8)
    ptr = a.ptr
    del a
    small = hipkit.empty(1000, np.uint8)  # 1024 bytes: a 4096-byte block is too big for it
    assert small.ptr != ptr and pool.n_free_blocks() == 1
    fits = hipkit.empty(3000, np.uint8)  # 3072 bytes: the 4096-byte block serves it
    assert fits.ptr == ptr and pool.n_free_blocks() == 0
    assert pool.used_bytes() >= 4096 + 1024


def test_blocks_are_reused_only_on_their_stream(device, pool):
    stream = hipkit.Stream(device, non_blocking=True)
    a = hipkit.empty(1000, np.float32, stream=stream)
    ptr = a.ptr
    del a
    on_null = hipkit.empty(1000, np.float32)  # the null stream: never stream's block
    assert on_null.ptr != ptr
    again = hipkit.to_device(np.zeros(1000, np.float32), stream=stream)  # stream's own
    assert again.ptr == ptr
    stream.synchronize()
    blocks = {b.ptr: b for b in pool.blocks()}
    assert blocks[ptr] == PoolBlock(ptr, 4096, stream.handle, True)
    assert blocks[on_null.ptr] == PoolBlock(on_null.ptr, 4096, 0, True)


def test_free_all_blocks_of_one_stream_or_all(device, pool):
    stream = hipkit.Stream(device)
    a, b = hipkit.empty(1000, stream=stream), hipkit.empty(1000)
    del a, b
    assert pool.n_free_blocks() == 2 and pool.free_bytes() == 2 * 4096
    pool.free_all_blocks(stream=stream)
    assert [(x.stream, x.live) for x in pool.blocks() if not x.live] == [(0, False)]
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0 and pool.free_bytes() == 0


def test_used_total_and_free_bytes(device, pool):
    used, total = pool.used_bytes(), pool.total_bytes()
    assert pool.free_bytes() == 0 and total == used
    a = hipkit.empty(1000, np.float32)
    b = Allocation(800, device)
    assert pool.used_bytes() == used + 4096 + 1024
    assert pool.total_bytes() == total + 4096 + 1024
    del a
    assert pool.used_bytes() == used + 1024 and pool.free_bytes() == 4096
    assert pool.total_bytes() == pool.used_bytes() + pool.free_bytes() and pool.n_free_blocks() == 1
    b.free()  # explicit: back in the pool at once
    b.free()  # once only
    assert pool.used_bytes() == used and pool.free_bytes() == 4096 + 1024
    pool.free_all_blocks()
    assert pool.total_bytes() == used and pool.n_free_blocks() == 0
    assert hipkit.empty(0).ptr == 0 and pool.used_bytes() == used  # nothing for no bytes


def test_reused_memory_holds_what_is_written_next(device, pool, rng):
    for n in (1, 1000, 65536):
        first = rng.standard_normal(n).astype(np.float32)
        a = hipkit.to_device(first)
        ptr = a.ptr
        np.testing.assert_array_equal(a.get(), first)
        del a
        second = rng.standard_normal(n).astype(np.float32)
        b = hipkit.to_device(second)
        assert b.ptr == ptr
        np.testing.assert_array_equal(b.get(), second)
        del b
        z = hipkit.zeros(n, np.float32)
        assert z.ptr == ptr
        np.testing.assert_array_equal(z.get(), np.zeros(n, np.float32))


def test_dlpack_keeps_the_memory_out_of_the_pool(device, pool, rng):
    host = rng.standard_normal(1000).astype(np.float32)
    a = hipkit.to_device(host)
    ptr = a.ptr
    consumer = hipkit.from_dlpack(a)
    del a
    b = hipkit.empty(1000, np.float32)  # the consumer still holds a's block
    assert b.ptr != ptr and consumer.ptr == ptr
    b.set(np.zeros(1000, np.float32))
    np.testing.assert_array_equal(consumer.get(), host)
    del consumer
    assert hipkit.empty(1000, np.float32).ptr == ptr


def test_set_limit_by_size(device, pool):
    used = pool.used_bytes()
    pool.set_limit(size=used + 8192)
    assert pool.get_limit() == used + 8192
    a = hipkit.empty(4096, np.uint8)
    with pytest.raises(HipError, match=f"limit of {used + 8192} bytes") as raised:
        hipkit.empty(8192, np.uint8)
    assert raised.value.code == hipError_t.hipErrorOutOfMemory
    b = hipkit.empty(4096, np.uint8)  # to the limit exactly
    del a, b
    pool.set_limit(None)
    assert pool.get_limit() == 0
    hipkit.empty(8192, np.uint8)


def test_the_limit_frees_cached_blocks_before_it_refuses(device, pool):
    pool.set_limit(size=pool.used_bytes() + 8192)
    a = hipkit.empty(8192, np.uint8)
    del a  # cached: the pool holds its whole limit
    b = hipkit.empty(2048, np.uint8)  # too small for the cached block: a new one, in its room
    assert pool.n_free_blocks() == 0 and pool.total_bytes() == pool.used_bytes()
    del b


def test_set_limit_by_fraction_and_its_errors(device, pool):
    total = device.mem_info()[1]
    pool.set_limit(fraction=0.5)
    assert pool.get_limit() == int(0.5 * total)
    with pytest.raises(ValueError, match="not both"):
        pool.set_limit(size=1, fraction=0.5)
    with pytest.raises(ValueError, match="from 0 to 1"):
        pool.set_limit(fraction=1.5)
    with pytest.raises(ValueError, match="negative"):
        pool.set_limit(size=-1)


def test_out_of_memory_frees_the_cached_blocks_and_retries_once(device, pool, monkeypatch):
    platform = device.platform
    calls: list[int] = []
    real_malloc = platform.malloc

    def malloc(native: int, nbytes: int) -> int:
        calls.append(nbytes)
        if len(calls) == 1:
            raise HipError(hipError_t.hipErrorOutOfMemory, "test: the first try fails")
        return real_malloc(native, nbytes)

    kept = hipkit.empty(8192, np.uint8)
    del kept
    monkeypatch.setattr(platform, "malloc", malloc)
    a = hipkit.empty(1024, np.uint8)  # too small for the cached block: the platform's
    assert calls == [1024, 1024] and pool.n_free_blocks() == 0
    del a
    pool.free_all_blocks()
    calls.clear()
    with pytest.raises(HipError, match="the first try fails"):  # nothing cached: no retry
        hipkit.empty(1024, np.uint8)
    assert calls == [1024]


def test_switched_off_nothing_is_cached(device, pool, monkeypatch):
    monkeypatch.setenv("HIPKIT_MEMORY_POOL", "off")
    own = MemoryPool(device)
    assert not own.caching and "not caching" in repr(own)
    ptr, generation = own.malloc(1000)
    assert own.used_bytes() == own.total_bytes() == 1000  # the exact size
    own.free(ptr, generation)
    assert own.total_bytes() == 0 and own.n_free_blocks() == 0
    monkeypatch.setenv("HIPKIT_MEMORY_POOL", "maybe")
    with pytest.raises(ValueError, match="HIPKIT_MEMORY_POOL"):
        MemoryPool(device)

    a = hipkit.empty(1000)
    del a
    assert pool.n_free_blocks() == 1
    pool.set_caching(False)  # at run time: the cached blocks go too
    assert pool.n_free_blocks() == 0
    b = hipkit.empty(1000)
    del b
    assert pool.n_free_blocks() == 0 and pool.total_bytes() == pool.used_bytes()


def test_a_device_reset_forgets_the_blocks_without_freeing_them(device, pool, monkeypatch):
    platform = device.platform
    freed: list[int] = []
    real_free = platform.free
    monkeypatch.setattr(platform, "free", lambda native, ptr: (freed.append(ptr), real_free(native, ptr)))
    stale = hipkit.empty(1000)
    cached = hipkit.empty(1000)
    del cached
    device.reset()
    assert pool.used_bytes() == 0 and pool.total_bytes() == 0 and pool.n_free_blocks() == 0
    fresh = hipkit.to_device(np.arange(1000, dtype=np.float32))  # maybe at stale's address
    del stale  # freed by the reset: neither freed again nor taken for fresh's block
    assert pool.blocks() == [PoolBlock(fresh.ptr, 4096, 0, True)]
    np.testing.assert_array_equal(fresh.get(), np.arange(1000, dtype=np.float32))
    ptr = fresh.ptr
    del fresh
    assert freed == []
    pool.free_all_blocks()
    assert freed == [ptr] and pool.total_bytes() == 0


def test_threads_allocating_and_dropping_leave_the_accounting_whole(device, pool):
    used = pool.used_bytes()

    def work(seed: int) -> None:
        local = np.random.default_rng(seed)
        for _ in range(200):
            arrays = [hipkit.empty(int(n), device=device) for n in local.integers(1, 5000, 4)]
            del arrays

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert pool.used_bytes() == used
    assert pool.total_bytes() == used + pool.free_bytes()
    assert sum(b.size for b in pool.blocks() if not b.live) == pool.free_bytes()


def test_library_results_are_for_the_call_s_stream(device, pool, rng):
    """A result dropped while its stream's work may still be queued goes back to that
    stream's blocks, never to the null stream's."""
    stream = hipkit.Stream(device, non_blocking=True)
    results = []
    try:
        hipkit.hipfft.provider()
        x = hipkit.to_device(rng.standard_normal(256).astype(np.complex64))
        results.append(hipkit.fft.fft(x, stream=stream))
    except hipkit.hipfft.HipfftError:
        pass  # no FFT here: the check is BLAS's
    try:
        a = hipkit.to_device(rng.standard_normal((8, 8)).astype(np.float32))
        results.append(hipkit.blas.matmul(a, a, stream=stream))
    except hipkit.hipblas.HipblasError:
        pass  # no BLAS here
    if not results:
        pytest.skip("neither FFT nor BLAS is served here")
    streams = {b.ptr: b.stream for b in pool.blocks()}
    assert [streams[r.ptr] for r in results] == [stream.handle] * len(results)
    stream.synchronize()
    ptrs = {r.ptr for r in results}
    sizes = [(r.shape, r.dtype) for r in results]
    del results
    again = [hipkit.empty(shape, dtype) for shape, dtype in sizes]  # on the null stream
    assert ptrs.isdisjoint(b.ptr for b in again)
