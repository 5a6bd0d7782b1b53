"""The CPU runtime's host functions (``hkrt_launch_host_func``, runtime.h), called
through ctypes as a library built on the runtime calls them: run on a worker
after the call returned, in stream order, their errors and faults, and a named
one in the activity records and the profile as a kernel of that name.  The HIP
calls on top are tested in programs, test_cc_host_funcs.py.

Nothing waits on time: a function that must not have finished yet waits for an
event the test sets after the call returned."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

import hipkit
from hipkit import HipError, platforms
from hipkit.hip._state import hip_api

CPU = platforms.status()["cpu"]
pytestmark = pytest.mark.skipif(bool(CPU), reason=f"cpu platform absent: {CPU}")

HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
ALWAYS = 0x1  # HKRT_HOST_FUNC_ALWAYS
SOURCE = 'extern "C" __global__ void fill(int* p, int v) { p[threadIdx.x] = v; }'


@pytest.fixture(scope="module")
def cpu() -> hipkit.Device:
    return hipkit.Device(0, platform="cpu")


@pytest.fixture
def lib(cpu):
    with cpu:
        yield cpu.platform._lib


def enqueue(lib, stream: int, fn, name: bytes | None = None, flags: int = 0, device: int = 0) -> int:
    """hkrt_launch_host_func's answer; ``fn`` is a HOST_FN (kept alive by the caller) or an address."""
    address = fn if isinstance(fn, int) else ctypes.cast(fn, ctypes.c_void_p).value
    return lib.hkrt_launch_host_func(device, stream or None, address, None, name, flags)


def test_a_host_function_runs_on_a_worker_after_the_call_returned(cpu, lib):
    """The function waits for an event set after the call returned: a call that ran
    it would not return (the function would give up and say so)."""
    released, seen = threading.Event(), []

    @HOST_FN
    def wait_for_release(_):
        seen.append((released.wait(60), threading.get_native_id()))

    stream = hipkit.Stream()
    assert enqueue(lib, stream.handle, wait_for_release) == 0
    assert seen == []
    released.set()
    stream.synchronize()
    assert len(seen) == 1
    waited, thread = seen[0]
    assert waited and thread != threading.get_native_id()


def test_host_functions_order_with_kernels_on_their_stream(cpu, lib):
    """A gate, a kernel filling 7, a host function that reads the array and writes 9,
    a kernel filling half of it with 11: each sees the work before it."""
    fill = hipkit.compile(SOURCE, device=cpu).get_function("fill")
    x = hipkit.zeros(64, np.int32)
    host = (ctypes.c_int32 * 64).from_address(x.ptr)  # device memory is host memory on the CPU
    released, seen = threading.Event(), []

    @HOST_FN
    def gate(_):
        released.wait(60)

    @HOST_FN
    def read_then_write(_):
        seen.append(list(host))
        host[:] = [9] * 64

    stream = hipkit.Stream()
    assert enqueue(lib, stream.handle, gate) == 0
    fill[1, 64, 0, stream](x, 7)
    assert enqueue(lib, stream.handle, read_then_write) == 0
    fill[1, 32, 0, stream](x, 11)
    released.set()
    stream.synchronize()
    assert seen == [[7] * 64]
    np.testing.assert_array_equal(x.get(), [11] * 32 + [9] * 32)


def test_errors_are_hips(cpu, lib):
    never = HOST_FN(lambda _: None)
    assert enqueue(lib, 0, 0) == 1  # a NULL function: hipErrorInvalidValue
    assert enqueue(lib, 0, never, flags=0x2) == 1  # unknown flags
    assert enqueue(lib, 0x1234, never) == 400  # no such stream: hipErrorInvalidHandle
    assert enqueue(lib, 0, never, device=99) == 101  # hipErrorInvalidDevice
    device = ctypes.c_int(-1)
    stream = hipkit.Stream()
    assert lib.hkrt_stream_get_device(0, stream.handle, ctypes.byref(device)) == 0 and device.value == 0
    assert lib.hkrt_stream_get_device(0, 0x1234, ctypes.byref(device)) == 400
    cpu.synchronize()


def test_a_fault_in_a_host_function_is_the_devices_sticky_error(cpu, lib):
    """A call to a bad address on the worker: hipErrorIllegalAddress, sticky, saying
    where; a function behind it is dropped unless HKRT_HOST_FUNC_ALWAYS."""
    released, ran = threading.Event(), []

    @HOST_FN
    def gate(_):
        released.wait(60)

    dropped = HOST_FN(lambda _: ran.append("dropped"))
    always = HOST_FN(lambda _: ran.append(("always", lib.hkrt_sticky_error(0))))
    stream = hipkit.Stream()
    try:
        assert enqueue(lib, stream.handle, gate) == 0
        assert enqueue(lib, stream.handle, 0x10) == 0  # not code: the worker faults calling it
        assert enqueue(lib, stream.handle, dropped) == 0
        assert enqueue(lib, stream.handle, always, flags=ALWAYS) == 0
        released.set()
        with pytest.raises(HipError) as fault:
            stream.synchronize()
        assert fault.value.code == 700 and "illegal address 0x10 in host function" in str(fault.value)
        assert ran == [("always", 700)]
        assert enqueue(lib, stream.handle, dropped) == 700  # refused while the error stands
    finally:
        cpu.reset()


@pytest.fixture
def records(lib):
    """Activity on (a large buffer) for the test; a function reading the records."""
    from hipkit.platforms.cpu.activity import ACTIVITY_RECORD

    def read() -> np.ndarray:
        out = np.zeros(64, ACTIVITY_RECORD)
        return out[: lib.hk_activity_read(out.ctypes.data, 64)]

    lib.hk_activity_enable(1 << 16)
    try:
        yield read
    finally:
        lib.hk_activity_enable(0)


def test_a_named_host_function_is_a_kernel_record(cpu, lib, records):
    """Its name, stream, times, 1x1x1 grid and block and the correlation id of the
    thread that enqueued it; an unnamed one has no record."""
    name = bytearray(b"hk_library_task\0")  # the runtime keeps its own copy
    nothing = HOST_FN(lambda _: None)
    stream = hipkit.Stream()
    previous = lib.hk_activity_set_correlation(42)
    try:
        assert enqueue(lib, stream.handle, nothing, bytes(name[:-1])) == 0
        assert enqueue(lib, stream.handle, nothing) == 0
    finally:
        lib.hk_activity_set_correlation(previous)
    name[:] = b"x" * len(name)
    stream.synchronize()
    (record,) = records()
    assert record["kind"] == 1 and ctypes.string_at(int(record["name"])) == b"hk_library_task"
    assert record["stream"] == stream.handle and record["correlation_id"] == 42
    assert list(record["grid"]) == [1, 1, 1] and list(record["block"]) == [1, 1, 1]
    assert record["thread_id"] == threading.get_native_id() and record["status"] == 0
    assert 0 < record["enqueue_ns"] <= record["start_ns"] <= record["end_ns"]


def test_the_profile_shows_a_named_host_function_as_its_calls_kernel(cpu, lib, tmp_path):
    """A library's work inside a HIP-named call: that call's kernel, named as enqueued,
    on its stream, in every export."""
    nothing = HOST_FN(lambda _: None)
    stream = hipkit.Stream()

    @hip_api
    def hipkitLibraryCall() -> None:  # a library's HIP-style name
        assert enqueue(lib, stream.handle, nothing, b"hk_library_task") == 0

    with hipkit.profile() as p:
        hipkitLibraryCall()
        stream.synchronize()
    (call,) = [c for c in p.api_calls if c.function == "hipkitLibraryCall"]
    (kernel,) = p.kernels
    assert kernel.name == "hk_library_task" and kernel.correlation_id == call.correlation_id
    assert kernel.grid == (1, 1, 1) and kernel.block == (1, 1, 1) and kernel.stream == 1
    assert call.start_ns <= kernel.start_ns <= kernel.end_ns
    assert "hk_library_task" in str(p.stats())
    p.save(str(tmp_path / "trace.json"))
    p.save(str(tmp_path / "trace.pftrace"))
    (csv,) = [f for f in p.save_csv(tmp_path / "csv") if f.name == "kernel_trace.csv"]
    assert "hk_library_task" in csv.read_text()
    assert "hk_library_task" in (tmp_path / "trace.json").read_text()
