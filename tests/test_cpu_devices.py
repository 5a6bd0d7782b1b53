"""Several CPU devices (HIPKIT_CPU_DEVICES) from Python: how the cores and the
memory are divided, each device's own streams, modules, errors and reset, peer
access and copies, HIP_VISIBLE_DEVICES, the profiler's device names, and every
error of several devices (README, "Several CPU devices").

The runtime reads its configuration once per process, so each test runs its
body in a fresh Python with the variables set; the body compares with NumPy on
data drawn from the test's seed and asserts, and the test checks it exited
cleanly.  Programs built by hipkit cc are tested in test_cc_devices.py.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from test_cli import environment

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
pytestmark = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

PRELUDE = r'''
import numpy as np, hipkit
from hipkit import hip, HipError
E = hipkit.hipError_t
rng = np.random.default_rng({seed})
SOURCE = """
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}}
extern "C" __global__ void store_one(int* p) {{ *p = 1; }}
__device__ int tag;
extern "C" __global__ void read_tag(int* out) {{ *out = tag; }}
"""

def raises(code, call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except HipError as error:
        assert error.code == code, (error.code, code, str(error))
        return error
    raise AssertionError(f"{{call.__name__}} did not raise {{code!r}}")

def axpy_on(device, n=1000):
    """axpy on `device` with fresh data, checked against NumPy."""
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    kernel = hipkit.compile(SOURCE, device=device).get_function("axpy")
    dx, dy = hipkit.to_device(x, device=device), hipkit.to_device(y, device=device)
    with device:
        kernel[(n + 255) // 256, 256](np.float32(2.5), dx, dy, n)
    np.testing.assert_allclose(dy.get(), np.float32(2.5) * x + y, rtol=1e-5, atol=1e-5)
    return dy
'''


def run(body: str, rng, *, devices: int | None = 2, **env: str | None) -> str:
    """Runs ``body`` in a fresh Python on the CPU platform with HIPKIT_CPU_DEVICES
    ``devices`` (None: unset) and ``env``; returns its output."""
    script = PRELUDE.format(seed=int(rng.integers(2**32))) + textwrap.dedent(body)
    variables = {"HIPKIT_PLATFORM": "cpu", "HIP_VISIBLE_DEVICES": None, "HIPKIT_CPU_THREADS": None}
    variables["HIPKIT_CPU_DEVICES"] = None if devices is None else str(devices)
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=environment(**{**variables, **env}),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


# ------------------------------------------------------------------ cores, memory, properties


@pytest.mark.parametrize(
    "threads, devices, workers",
    [(5, 2, [3, 2]), (8, 3, [3, 3, 2]), (2, 4, [1, 1, 1, 1]), (3, 1, [3])],
    ids=["5 threads, 2 devices", "8 threads, 3 devices", "more devices than threads", "one device"],
)
def test_the_threads_are_dealt_out_among_the_devices(rng, threads, devices, workers):
    """T threads over N devices: T / N each, the first T mod N one more, never
    none (more devices than threads oversubscribes); names say which device
    (with more than one); every device runs kernels."""
    run(
        f"""
        devices = hipkit.devices("cpu")
        assert [d.properties.multiProcessorCount for d in devices] == {workers}
        assert hip.hipGetDeviceCount() == {devices}
        for i, d in enumerate(devices):
            name = d.properties.name
            assert name.endswith(f" (CPU device {{i}} of {devices})") == ({devices} > 1), name
            assert hip.hipDeviceGetAttribute(hip.hipDeviceAttributeMultiprocessorCount, i) == {workers}[i]
            assert hip.hipGetDeviceProperties(i).name == name
            axpy_on(d)
        raises(E.hipErrorInvalidDevice, hip.hipSetDevice, {devices})
        raises(E.hipErrorInvalidDevice, hipkit.Device, {devices}, "cpu")
        """,
        rng,
        devices=devices,
        HIPKIT_CPU_THREADS=str(threads),
    )


def test_one_device_by_default_as_before(rng):
    """Unset, the CPU is one device with every worker, its name the CPU's alone,
    all of the host's memory (N devices have 1/N each); it is not its own peer."""
    memory = run(
        """
        (device,) = hipkit.devices("cpu")
        assert device.properties.multiProcessorCount == 3
        assert "(CPU device" not in device.properties.name
        assert not device.can_access_peer(device)
        raises(E.hipErrorInvalidDevice, device.enable_peer_access, device)
        print(device.properties.totalGlobalMem)
        """,
        rng,
        devices=None,
        HIPKIT_CPU_THREADS="3",
    )
    share = run("print(hipkit.Device(3, 'cpu').properties.totalGlobalMem)", rng, devices=4)
    assert int(share) == int(memory) // 4


@pytest.mark.parametrize("value", ["0", "x", "65", "-1", "2.5"])
def test_a_malformed_device_count_is_an_error_naming_the_variable(rng, value):
    run(
        """
        try:
            hipkit.devices("cpu")
        except ValueError as error:
            assert "HIPKIT_CPU_DEVICES" in str(error) and "1 to 64" in str(error), error
        else:
            raise AssertionError("no error")
        """,
        rng,
        devices=None,
        HIPKIT_CPU_DEVICES=value,
    )


def test_each_device_counts_its_own_memory(rng):
    """hipMalloc counts against the current device's share (its pages untouched):
    its free memory drops by what it allocated; more than its share is
    hipErrorOutOfMemory there and not on another device; a reset returns it."""
    run(
        """
        total = hipkit.Device(1, "cpu").mem_info()[1]
        assert total == hip.hipGetDeviceProperties(1).totalGlobalMem
        half = total // 2
        hip.hipSetDevice(1)
        first, second = hip.hipMalloc(half), hip.hipMalloc(half)
        free, _ = hip.hipMemGetInfo()
        assert free <= total - 2 * half
        raises(E.hipErrorOutOfMemory, hip.hipMalloc, half)
        raises(E.hipErrorOutOfMemory, hip.hipMalloc, total + 1)
        hip.hipSetDevice(0)
        hip.hipFree(hip.hipMalloc(half))  # device 0's share is its own
        hip.hipSetDevice(1)
        hip.hipFree(first)
        third = hip.hipMalloc(half)
        hip.hipDeviceReset()  # frees `second` and `third`
        raises(E.hipErrorInvalidValue, hip.hipFree, third)
        for ptr in [hip.hipMalloc(half), hip.hipMalloc(half)]:
            hip.hipFree(ptr)
        """,
        rng,
        devices=4,
    )


# ------------------------------------------------------------------ each device's own


def test_streams_events_and_modules_belong_to_their_device(rng):
    """A launch in another device's stream, an event recorded in another
    device's stream and the time between two devices' events are
    hipErrorInvalidHandle; copies go in any device's stream; events are waited
    for from anywhere; a module is one device's, with its own __device__ variables."""
    run(
        """
        d0, d1 = hipkit.devices("cpu")
        s0, s1 = hipkit.Stream(d0), hipkit.Stream(d1)
        kernel = hipkit.compile(SOURCE, device=d0).get_function("axpy")
        x = hipkit.to_device(rng.standard_normal(64, np.float32), device=d0)
        raises(E.hipErrorInvalidHandle, kernel.launch, 1, 64, (np.float32(1), x, x, 64), stream=s1)
        e0, e1 = hipkit.Event(d0), hipkit.Event(d1)
        raises(E.hipErrorInvalidHandle, e0.record, s1)
        e0.record(s0), e1.record(s1)
        raises(E.hipErrorInvalidHandle, e0.elapsed_time, e1)
        assert e0.elapsed_time(hipkit.Event(d0).record(s0)) >= 0
        host = rng.standard_normal(64, np.float32)
        x.set(host, stream=s1)  # into device 0's memory, in device 1's stream
        s1.synchronize()
        np.testing.assert_array_equal(x.get(), host)

        with d1:
            stream, event = hip.hipStreamCreate(), hip.hipEventCreate()
        hip.hipSetDevice(0)
        raises(E.hipErrorInvalidHandle, hip.hipEventRecord, event, hip.hipStreamCreate())
        hip.hipEventRecord(event, stream)
        hip.hipEventSynchronize(event)
        assert hip.hipEventQuery(event) == E.hipSuccess
        assert hip.hipGetDevice() == 0

        tags = []
        for device, value in ((d0, 7), (d1, 11)):
            module = hipkit.compile(SOURCE, device=device)
            module.get_global("tag", dtype=np.int32, shape=()).set(np.int32(value))
            out = hipkit.zeros(1, np.int32, device=device)
            module.get_function("read_tag")[1, 1](out)
            tags.append(int(out.get()[0]))
        assert tags == [7, 11]
        hip.hipSetDevice(1)
        function = hip.hipModuleGetFunction(hip.hipModuleLoadData(module), "read_tag")
        hip.hipSetDevice(0)
        raises(E.hipErrorInvalidHandle, hip.hipModuleLaunchKernel, function, 1, 1, 1, 1, 1, 1, 0,
               hip.hipStreamCreate(), [0])
        """,
        rng,
    )


def test_a_reset_is_one_devices(rng):
    """A fault on device 1 is device 1's sticky error; device 0 keeps running,
    and keeps its memory, streams and kernels through device 1's reset, which
    clears the error and makes device 1's objects stale."""
    run(
        """
        d0, d1 = hipkit.devices("cpu")
        kept = axpy_on(d0)
        expected = kept.get()
        s0 = hipkit.Stream(d0)
        lost = axpy_on(d1)
        s1 = hipkit.Stream(d1)
        hipkit.compile(SOURCE, device=d1).get_function("store_one")[1, 1](8)
        raises(E.hipErrorIllegalAddress, d1.synchronize)
        raises(E.hipErrorIllegalAddress, hipkit.empty, 4, np.float32, d1)
        d0.synchronize()
        axpy_on(d0)  # the other device runs on
        d1.reset()
        raises(E.hipErrorInvalidHandle, lost.get)
        raises(E.hipErrorInvalidHandle, s1.synchronize)
        np.testing.assert_array_equal(kept.get(stream=s0), expected)
        s0.synchronize()
        axpy_on(d1)
        """,
        rng,
    )


# ------------------------------------------------------------------ peers


def test_peer_access_follows_hip(rng):
    """Distinct devices are peers; enabling works once, disabling only what was
    enabled; a device is not its own peer; a reset ends peer access both ways."""
    run(
        """
        assert [hip.hipDeviceCanAccessPeer(d, p) for d in range(3) for p in range(3)] == [
            int(d != p) for d in range(3) for p in range(3)]
        raises(E.hipErrorInvalidDevice, hip.hipDeviceCanAccessPeer, 0, 3)
        hip.hipSetDevice(0)
        hip.hipDeviceEnablePeerAccess(1)
        raises(E.hipErrorPeerAccessAlreadyEnabled, hip.hipDeviceEnablePeerAccess, 1)
        assert hip.hipGetLastError() == E.hipErrorPeerAccessAlreadyEnabled
        hip.hipDeviceDisablePeerAccess(1)
        raises(E.hipErrorPeerAccessNotEnabled, hip.hipDeviceDisablePeerAccess, 1)
        raises(E.hipErrorPeerAccessNotEnabled, hip.hipDeviceDisablePeerAccess, 2)
        raises(E.hipErrorInvalidDevice, hip.hipDeviceEnablePeerAccess, 0)
        raises(E.hipErrorInvalidDevice, hip.hipDeviceDisablePeerAccess, 0)
        raises(E.hipErrorInvalidDevice, hip.hipDeviceEnablePeerAccess, 3)
        raises(E.hipErrorInvalidValue, hip.hipDeviceEnablePeerAccess, 1, 1)
        hip.hipDeviceEnablePeerAccess(1), hip.hipDeviceEnablePeerAccess(2)
        hip.hipSetDevice(1)
        hip.hipDeviceEnablePeerAccess(0)
        hip.hipDeviceReset()  # device 1: its access to 0, and 0's to it, end
        raises(E.hipErrorPeerAccessNotEnabled, hip.hipDeviceDisablePeerAccess, 0)
        hip.hipSetDevice(0)
        raises(E.hipErrorPeerAccessNotEnabled, hip.hipDeviceDisablePeerAccess, 1)
        hip.hipDeviceDisablePeerAccess(2)
        d0, d1 = hipkit.Device(0, "cpu"), hipkit.Device(1, "cpu")
        assert d0.can_access_peer(d1) and not d0.can_access_peer(d0)
        d0.enable_peer_access(d1)
        raises(E.hipErrorPeerAccessAlreadyEnabled, d0.enable_peer_access, d1)
        """,
        rng,
        devices=3,
    )


def test_peer_copies_order_with_the_streams(rng):
    """Each device fills its half; hipMemcpyPeer (after the other device's work
    on its null stream), hipMemcpyPeerAsync after a cross-device event wait,
    hipMemcpy with hipMemcpyDefault and DeviceArray.copy bring the halves
    together on device 0, which reduces them: NumPy's answer."""
    run(
        """
        n = 1 << 20
        d0, d1 = hipkit.devices("cpu")
        x = rng.standard_normal(2 * n, np.float32)
        y = rng.standard_normal(2 * n, np.float32)
        halves = []
        for device, part in ((d0, slice(0, n)), (d1, slice(n, 2 * n))):
            kernel = hipkit.compile(SOURCE, device=device).get_function("axpy")
            dx, dy = hipkit.to_device(x[part], device=device), hipkit.to_device(y[part], device=device)
            with device:
                kernel[n // 256, 256](np.float32(3), dx, dy, n)  # queued: no synchronize
            halves.append(dy)
        ones = hipkit.to_device(np.ones(n, np.float32), device=d1)
        with d1:
            for _ in range(16):  # work that a copy not waiting for it would cut short
                kernel[n // 256, 256](np.float32(1), ones, halves[1], n)
        expected = np.float32(3) * x + y
        expected[n:] += 16
        whole = hipkit.empty(2 * n, np.float32, device=d0)
        hip.hipSetDevice(0)
        hip.hipMemcpyPeer(whole.ptr + 4 * n, 0, halves[1], 1, 4 * n)
        hip.hipMemcpy(whole, halves[0], 4 * n, hip.hipMemcpyDeviceToDevice)
        np.testing.assert_allclose(whole.get(), expected, rtol=1e-5, atol=1e-5)

        with d1:
            kernel = hipkit.compile(SOURCE, device=d1).get_function("axpy")
            kernel[n // 256, 256](np.float32(-1), halves[1], halves[1], n)  # halves[1] *= 0
            done = hip.hipEventCreate()
            hip.hipEventRecord(done, 0)
        stream = hip.hipStreamCreateWithFlags(hip.hipStreamNonBlocking)
        hip.hipStreamWaitEvent(stream, done)  # device 0's stream waits for device 1
        hip.hipMemcpyPeerAsync(whole.ptr + 4 * n, 0, halves[1], 1, 4 * n, stream)
        hip.hipStreamSynchronize(stream)
        assert not whole.get()[n:].any()

        restore = hipkit.to_device(expected[n:], device=d1)
        with d1:
            for _ in range(16):
                kernel[n // 256, 256](np.float32(1 / 16), restore, halves[1], n)
        hip.hipMemcpy(whole.ptr + 4 * n, halves[1], 4 * n, hip.hipMemcpyDefault)
        np.testing.assert_allclose(whole.get(), expected, rtol=1e-5, atol=1e-5)
        back = whole.copy(device=d1)
        assert back.device == d1
        np.testing.assert_allclose(back.get(), expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.from_dlpack(back), expected, rtol=1e-5, atol=1e-5)
        view = hipkit.from_dlpack(np.asarray(expected), device=d1)
        assert view.device == d1 and view.ptr == np.asarray(expected).ctypes.data
        """,
        rng,
    )


def test_a_host_thread_per_device(rng):
    """Three host threads, each driving its own device (its stream, its kernels),
    gather their results on device 0 by peer copies after an event wait: what
    NumPy computes, whatever the interleaving."""
    run(
        """
        import threading
        n, rounds = 1 << 16, 20
        devices = hipkit.devices("cpu")
        x = rng.standard_normal((3, n), np.float32)
        gathered = hipkit.zeros((3, n), np.float32, device=devices[0])
        kernels = [hipkit.compile(SOURCE, device=d).get_function("axpy") for d in devices]
        errors = []

        def drive(i):
            try:
                device = devices[i]
                with device:
                    stream = hipkit.Stream()
                    dx = hipkit.to_device(x[i], device=device)
                    dy = hipkit.zeros(n, np.float32, device=device)
                    for _ in range(rounds):
                        kernels[i][n // 256, 256, 0, stream](np.float32(i + 1), dx, dy, n)
                    done = stream.record()
                with devices[0]:
                    into = hipkit.Stream(non_blocking=True)
                    into.wait(done)
                    hip.hipMemcpyPeerAsync(gathered.ptr + 4 * n * i, 0, dy, i, 4 * n, into)
                    into.synchronize()
            except Exception as error:  # reported by the main thread
                errors.append(error)

        threads = [threading.Thread(target=drive, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        expected = np.zeros((3, n), np.float32)
        for _ in range(rounds):
            expected += np.arange(1, 4, dtype=np.float32)[:, None] * x
        np.testing.assert_allclose(gathered.get(), expected, rtol=1e-5, atol=1e-5)
        """,
        rng,
        devices=3,
    )


def test_another_devices_memory_in_a_kernel(rng):
    """The CPU devices share one address space: a kernel reaches another
    device's memory given as a pointer, peer access or not (undefined in HIP,
    documented here); the Python API refuses another device's DeviceArray."""
    run(
        """
        d0, d1 = hipkit.devices("cpu")
        x, y = rng.standard_normal(256, np.float32), rng.standard_normal(256, np.float32)
        dx, dy = hipkit.to_device(x, device=d1), hipkit.to_device(y, device=d0)
        kernel = hipkit.compile(SOURCE, device=d0).get_function("axpy")
        kernel[1, 256](np.float32(2), dx.ptr, dy, 256)
        np.testing.assert_allclose(dy.get(), 2 * x + y, rtol=1e-5, atol=1e-5)
        try:
            kernel[1, 256](np.float32(2), dx, dy, 256)
        except TypeError as error:
            assert "is on" in str(error), error
        else:
            raise AssertionError("another device's array was taken")
        """,
        rng,
    )


# ------------------------------------------------------------------ visibility, profiling


@pytest.mark.parametrize(
    "value, shown",
    [
        (None, [0, 1, 2]),
        ("2,0", [2, 0]),
        ("1", [1]),
        (" 2 , 1 ", [2, 1]),
        ("0,5,1", [0]),
        ("1,1,0", [1]),
        ("0 1", []),
        ("", []),
        ("-1", []),
        ("GPU-8a6f1f4c", []),
    ],
    ids=repr,
)
def test_hip_visible_devices_picks_and_orders_the_devices(rng, value, shown):
    """HIP's rule, as programs read it (test_cc_devices.py): the list ends at its
    first entry that names no device; the names keep the runtime's index."""
    run(
        f"""
        from hipkit.platforms.base.platform import visible_indices
        import os
        devices = hipkit.devices("cpu")
        assert visible_indices(os.environ.get("HIP_VISIBLE_DEVICES"), 3) == {shown}
        assert [d.properties.name.rsplit("(CPU device ", 1)[1] for d in devices] == [
            f"{{i}} of 3)" for i in {shown}]
        if devices:
            assert hip.hipGetDeviceCount() == len(devices)
            axpy_on(devices[-1])
        else:
            raises(E.hipErrorNoDevice, hipkit.Device, 0, "cpu")
        """,
        rng,
        devices=3,
        HIP_VISIBLE_DEVICES=value,
    )


def test_the_profiler_names_each_device(rng):
    """Kernels and copies carry the device they ran on, by hipkit's numbering
    (HIP_VISIBLE_DEVICES=1,0 swaps them), and a peer copy both ends."""
    run(
        """
        d0, d1 = hipkit.devices("cpu")  # the runtime's devices 1 and 0
        with hipkit.profile() as p:
            a = axpy_on(d0)
            b = axpy_on(d1, n=512)
            a.copy(device=d1)
            d0.synchronize(), d1.synchronize()
        sizes = {k.device: k.grid for k in p.kernels}
        assert sizes == {"cpu:0": (4, 1, 1), "cpu:1": (2, 1, 1)}, sizes
        (peer,) = [c for c in p.copies if "host" not in (c.src_device, c.dst_device)]
        assert (peer.src_device, peer.dst_device, peer.bytes) == ("cpu:0", "cpu:1", 4000)
        """,
        rng,
        HIP_VISIBLE_DEVICES="1,0",
    )
