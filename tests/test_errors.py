"""Every user-visible error: its HipError code and name (HIP's numbering), and
that the process survives and the device is usable afterwards.

The documented state after a sticky error (a failed device ``assert``, an
illegal address, a stack overflow, a trap): the launch itself succeeds; the
error is returned by the next synchronizing call and then by every call that
uses the device (launches, copies, allocations, synchronization) until
``device.reset()``.  After a reset all earlier memory, streams, events and
modules of the device are gone: using them raises HipError
(hipErrorInvalidHandle or similar) instead of touching freed memory.
"""

from __future__ import annotations

import numpy as np
import pytest

import hipkit
from hipkit import CompileError, HipError, config, hipError_t

SOURCE = r"""
#include <cassert>
extern "C" __global__ void noop(int* p) {}
extern "C" __global__ void iota(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i;
}
extern "C" __global__ void big_static(int* out) {
    __shared__ int buf[10240];  // 40 KiB
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}
extern "C" __global__ void __launch_bounds__(128) bounded(int* out) {
    out[threadIdx.x] = threadIdx.x;
}
extern "C" __global__ void check_non_negative(const int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(p[i] >= 0);
}
extern "C" __global__ void store_one(int* p) { *p = 1; }
extern "C" __global__ void store_at_0x10() { *(volatile int*)0x10 = 1; }
__device__ int deeper(volatile int* sink, int depth) {
    volatile char frame[512];
    frame[depth & 511] = (char)depth;
    if (sink[0] == 123456789) return 0;  // never true: the recursion does not end
    return deeper(sink, depth + 1) + frame[(depth * 7) & 511];
}
extern "C" __global__ void recurse_forever(volatile int* sink) {
    __syncthreads();
    sink[threadIdx.x + 1] = deeper(sink, 0);
    __syncthreads();
}
"""

E = hipError_t
# What using a handle from before a reset may return.
STALE = (E.hipErrorInvalidHandle, E.hipErrorInvalidDevicePointer, E.hipErrorContextIsDestroyed)


def assert_error(info, code: hipError_t) -> None:
    assert info.value.code == code, info.value
    assert info.value.name == code.name


def assert_usable(device: hipkit.Device, n: int = 1000) -> None:
    """New memory and freshly compiled kernels work."""
    mod = hipkit.compile(SOURCE)
    out = hipkit.zeros(n, np.int32)
    mod.get_function("iota")[(n + 127) // 128, 128](out, n)
    np.testing.assert_array_equal(out.get(), np.arange(n))
    device.synchronize()


@pytest.fixture
def recovering(device):
    """The device, reset after the test (a sticky error must not outlive it).
    Where a reset cannot clear a sticky error (CUDA), such tests would leave
    the process's GPU unusable: tests/test_nvidia.py checks that case in a child process."""
    if not device.platform.recovers_from_sticky_errors:
        pytest.skip(f"{device.platform.name}: a sticky error ends the process's use of the device")
    yield device
    device.reset()


# ------------------------------------------------------------------ launch configuration (not sticky)

LIMIT = "sharedMemPerBlock + 1"  # 64 KiB + 1 on the CPU and AMD GPUs
BAD_LAUNCHES = {
    "1025 threads": ("noop", 1, 1025, 0),
    "block (1024, 2, 1)": ("noop", 1, (1024, 2, 1), 0),
    "block z 0": ("noop", 1, (64, 1, 0), 0),
    "grid x 0": ("noop", 0, 64, 0),
    "grid (1, 0, 1)": ("noop", (1, 0, 1), 64, 0),
    "dynamic shared over the limit": ("noop", 1, 64, LIMIT),
    "static 40 KiB + dynamic 30 KiB": ("big_static", 1, 64, 30 * 1024),
    "__launch_bounds__(128) with 256 threads": ("bounded", 1, 256, 0),
}


@pytest.mark.parametrize("kernel, grid, block, shared", BAD_LAUNCHES.values(), ids=BAD_LAUNCHES.keys())
def test_invalid_launch_configuration(device, kernel, grid, block, shared):
    mod = hipkit.compile(SOURCE)
    out = hipkit.zeros(1024, np.int32)
    if shared == LIMIT:
        shared = device.properties.sharedMemPerBlock + 1
    with pytest.raises(HipError) as info:
        mod.get_function(kernel)[grid, block, shared](out)
    assert_error(info, E.hipErrorInvalidConfiguration)
    device.synchronize()  # not sticky
    assert_usable(device)


BAD_DIMENSIONS = {
    "float grid": (1.0, 4, "grid"),
    "float block": (1, 4.5, "block"),
    "float in a grid tuple": ((2, 1.5), 4, "grid"),
    "str grid": ("4", 4, "grid"),
    "None grid": (None, 4, "grid"),
    "None in a block list": (1, [4, None], "block"),
}


@pytest.mark.parametrize("grid, block, named", BAD_DIMENSIONS.values(), ids=BAD_DIMENSIONS.keys())
def test_launch_dimensions_that_are_not_integers(device, grid, block, named):
    """A float is never truncated to a dimension: TypeError naming grid or block,
    also for a kernel whose launches with int dimensions were cached before."""
    iota = hipkit.compile(SOURCE).get_function("iota")
    out = hipkit.zeros(4, np.int32)
    iota[1, 4](out, 4)
    with pytest.raises(TypeError, match=f"^{named} must be"):
        iota[grid, block](out, 4)
    assert_usable(device)


def test_limits_themselves_are_valid(device):
    mod = hipkit.compile(SOURCE)
    attributes = mod.get_function("big_static").attributes
    assert attributes["sharedSizeBytes"] == 40 * 1024
    assert mod.get_function("bounded").attributes["maxThreadsPerBlock"] == 128
    out = hipkit.zeros(1024, np.int32)
    limit = device.properties.sharedMemPerBlock
    mod.get_function("big_static")[1, 1024, limit - 40 * 1024](out)  # exactly at the limit
    np.testing.assert_array_equal(out.get(), (np.arange(1024) + 1) % 1024)
    mod.get_function("bounded")[1, 128](out)
    np.testing.assert_array_equal(out.get()[:128], np.arange(128))
    mod.get_function("noop")[1, (32, 32, 1), limit](out)


# ------------------------------------------------------------------ memory


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_out_of_memory(device, dtype):
    with pytest.raises(HipError) as info:
        hipkit.empty(1 << 60, dtype)
    assert_error(info, E.hipErrorOutOfMemory)
    assert_usable(device)


# ------------------------------------------------------------------ compilation


def test_compile_error_names_the_file_and_line(device, rng):
    tag = int(rng.integers(1 << 30))
    source = (
        f"// variant {tag}\n"
        'extern "C" __global__ void broken(int* p) {\n'
        "    int i = threadIdx.x;\n"
        "    p[i] = undeclared_name + i;\n"
        "}\n"
    )
    with pytest.raises(CompileError) as info:
        hipkit.compile(source, name="my_broken_kernel.hip")
    message = str(info.value)
    assert "my_broken_kernel.hip:4" in message, message
    assert "undeclared_name" in message
    assert_usable(device)


def test_unsupported_compile_option(device):
    with pytest.raises(CompileError) as info:
        hipkit.compile(SOURCE, options=["--no-such-option-for-hipkit"])
    assert "--no-such-option-for-hipkit" in str(info.value)


def test_unknown_kernel_name(device):
    mod = hipkit.compile(SOURCE)
    with pytest.raises(HipError) as info:
        mod.get_function("no_such_kernel")
    assert_error(info, E.hipErrorNotFound)
    assert_usable(device)


# ------------------------------------------------------------------ arguments


def test_wrong_argument_count(device):
    iota = hipkit.compile(SOURCE).get_function("iota")
    out = hipkit.zeros(4, np.int32)
    for args in [(out,), (out, 4, 5), ()]:
        with pytest.raises(TypeError, match="iota"):
            iota[1, 4](*args)
    assert_usable(device)


@pytest.mark.parametrize(
    "index, bad",
    [(1, 2.5), (1, "4"), (1, None), (1, np.float32(1)), (0, "ptr"), (0, 1.5), (0, [1, 2])],
    ids=[
        "float-for-int",
        "str-for-int",
        "None-for-int",
        "np.float32-for-int",
        "str-for-pointer",
        "float-for-pointer",
        "list-for-pointer",
    ],
)
def test_wrong_argument_type_names_kernel_and_argument(device, index, bad):
    iota = hipkit.compile(SOURCE).get_function("iota")
    args = [hipkit.zeros(4, np.int32), 4]
    args[index] = bad
    with pytest.raises(TypeError) as info:
        iota[1, 4](*args)
    assert "iota" in str(info.value) and f"argument {index}" in str(info.value)


def test_host_array_is_not_a_device_pointer(device):
    iota = hipkit.compile(SOURCE).get_function("iota")
    with pytest.raises(TypeError, match="argument 0"):
        iota[1, 4](np.zeros(4, np.int32), 4)


@pytest.mark.parametrize("value", [2**31, -(2**31) - 1, 2**64])
def test_integer_out_of_range_for_int(device, value):
    iota = hipkit.compile(SOURCE).get_function("iota")
    with pytest.raises(TypeError) as info:
        iota[1, 4](hipkit.zeros(4, np.int32), value)
    assert "iota" in str(info.value) and "argument 1" in str(info.value)


def test_integer_at_the_limits_of_int(device):
    iota = hipkit.compile(SOURCE).get_function("iota")
    out = hipkit.zeros(4, np.int32)
    iota[1, 4](out, 2**31 - 1)
    iota[1, 4](out, -(2**31))
    np.testing.assert_array_equal(out.get(), np.arange(4))


# ------------------------------------------------------------------ sticky errors


def assert_sticky(
    device: hipkit.Device, code: hipError_t, kernel: hipkit.Kernel, earlier: hipkit.DeviceArray
) -> None:
    """Every call that uses the device returns the sticky error."""
    for what, call in [
        ("synchronize", device.synchronize),
        ("launch", lambda: kernel[1, 1](earlier)),
        ("copy to host", earlier.get),
        ("copy to device", lambda: earlier.set(np.zeros(earlier.shape, earlier.dtype))),
        ("allocation", lambda: hipkit.to_device(np.ones(8, np.int32))),
        ("synchronize again", device.synchronize),
    ]:
        with pytest.raises(HipError) as info:
            call()
        assert info.value.code == code, what


def assert_reset_recovers(device: hipkit.Device, earlier: hipkit.DeviceArray) -> None:
    device.reset()
    device.synchronize()
    with pytest.raises(HipError) as info:
        earlier.get()  # freed by the reset
    assert_error(info, E.hipErrorInvalidHandle)
    assert_usable(device)


def test_failed_assert_is_sticky_until_reset(recovering, rng, capfd):
    """A failed device assert: hipErrorAssert at the next synchronize, then from
    every call until reset (the documented state after a sticky error); after
    the reset earlier memory is gone and new memory and kernels work."""
    device = recovering
    mod = hipkit.compile(SOURCE)
    noop = mod.get_function("noop")  # fetched before the error
    host = rng.integers(0, 1000, 5000, dtype=np.int32)
    host[rng.integers(host.size)] = -5
    data = hipkit.to_device(host)
    mod.get_function("check_non_negative")[(host.size + 255) // 256, 256](data, host.size)
    with pytest.raises(HipError) as info:
        device.synchronize()
    assert_error(info, E.hipErrorAssert)
    text = info.value.detail + capfd.readouterr().err
    assert "p[i] >= 0" in text
    assert_sticky(device, E.hipErrorAssert, noop, data)
    assert_reset_recovers(device, data)


def test_passing_assert_is_not_an_error(device, rng):
    mod = hipkit.compile(SOURCE)
    host = rng.integers(0, 1000, 5000, dtype=np.int32)
    mod.get_function("check_non_negative")[(host.size + 255) // 256, 256](hipkit.to_device(host), host.size)
    device.synchronize()


@pytest.mark.parametrize("how", ["pointer argument 8", "*(int*)0x10"])
def test_illegal_address_is_sticky_until_reset(recovering, rng, how):
    """A store to an unmapped address: hipErrorIllegalAddress at the next
    synchronize, then from every call until reset (the documented state after a
    sticky error); the process survives and the reset recovers the device."""
    device = recovering
    mod = hipkit.compile(SOURCE)
    noop = mod.get_function("noop")  # fetched before the error
    data = hipkit.to_device(rng.integers(0, 100, 64, dtype=np.int32))
    if how == "pointer argument 8":
        mod.get_function("store_one")[1, 1](8)
    else:
        mod.get_function("store_at_0x10")[1, 1]()
    with pytest.raises(HipError) as info:
        device.synchronize()
    assert_error(info, E.hipErrorIllegalAddress)
    assert_sticky(device, E.hipErrorIllegalAddress, noop, data)
    assert_reset_recovers(device, data)


def test_stack_overflow_in_a_kernel_with_barriers(recovering):
    """Unbounded recursion in a kernel with barriers (on the CPU: on fibers, or
    split at the barriers) is an error of the device, not of the process; it is
    sticky like any fault (the documented state after a sticky error)."""
    device = recovering
    mod = hipkit.compile(SOURCE)
    sink = hipkit.zeros(65, np.int32)
    mod.get_function("recurse_forever")[1, 64](sink)
    with pytest.raises(HipError) as info:
        device.synchronize()
    assert info.value.code in (
        E.hipErrorIllegalAddress,
        E.hipErrorLaunchFailure,
        E.hipErrorLaunchOutOfResources,
    ), info.value
    assert_reset_recovers(device, sink)


@pytest.mark.skipif(config.get("HIP_LAUNCH_BLOCKING"), reason="HIP_LAUNCH_BLOCKING reports at the launch")
def test_sticky_error_appears_at_synchronization_not_at_launch(recovering):
    device = recovering
    mod = hipkit.compile(SOURCE)
    mod.get_function("store_one")[1, 1](8)  # returns: the kernel runs later
    with pytest.raises(HipError) as info:
        device.synchronize()
    assert_error(info, E.hipErrorIllegalAddress)


# ------------------------------------------------------------------ objects from before a reset


def test_objects_from_before_a_reset_are_invalid(recovering, rng):
    """After a reset all earlier memory, streams, events and modules are gone:
    using them raises HipError instead of touching freed memory."""
    device = recovering
    mod = hipkit.compile(SOURCE)
    iota = mod.get_function("iota")
    array = hipkit.to_device(rng.integers(0, 100, 16, dtype=np.int32))
    view = array.reshape(4, 4)
    stream, event = hipkit.Stream(), hipkit.Event()
    device.reset()
    fresh = hipkit.zeros(16, np.int32)
    wrong = []
    for what, call in [
        ("array get", array.get),
        ("view get", view.get),
        ("array set", lambda: array.set(np.zeros(16, np.int32))),
        ("array as kernel argument", lambda: hipkit.compile(SOURCE).get_function("iota")[1, 16](array, 16)),
        ("stream synchronize", stream.synchronize),
        ("stream query", stream.query),
        ("event record", event.record),
        ("kernel of an unloaded module", lambda: iota[1, 16](fresh, 16)),
        ("function of an unloaded module", lambda: mod.get_function("noop")),
    ]:
        try:
            call()
            wrong.append(f"{what}: no error")
        except HipError as exc:
            if exc.code not in STALE:
                wrong.append(f"{what}: {exc}")
    assert not wrong
    device.synchronize()
    np.testing.assert_array_equal(fresh.get(), np.zeros(16))  # the stale kernel did not run
    assert_usable(device)
