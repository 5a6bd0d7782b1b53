"""hipkit.hip: HIP's runtime API and hiprtc by HIP's names, on every platform present.

Results are compared with NumPy on fresh random data; every error case checks
HIP's code and that it became the thread's last error.
"""

from __future__ import annotations

import ctypes
import doctest

import numpy as np
import pytest

import hipkit
from hipkit import HipError, hip

# The seed's kernel, unchanged (not extern "C": found by its name).
VECTOR_ADD = r"""
#include <hip/hip_runtime.h>

__global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        C[idx] = A[idx] + B[idx];
    }
}
"""

# Spins until the host writes *flag (or a bound is reached, so a platform that
# runs launches synchronously still finishes): keeps its stream busy.
SPIN = r"""
extern "C" __global__ void spin(volatile int* flag, long long bound, int* out) {
    long long i = 0;
    while (*flag == 0 && i < bound) ++i;
    *out = 1;
}
"""


@pytest.fixture(autouse=True)
def clear_last_error():
    hip.hipGetLastError()
    yield


def raises_hip(code: int, call, *args):
    """Call, expect HipError(code), and check that code became the last error."""
    with pytest.raises(HipError) as info:
        call(*args)
    assert info.value.code == code, info.value
    assert hip.hipPeekAtLastError() == code
    assert hip.hipGetLastError() == code
    assert hip.hipGetLastError() == hip.hipSuccess
    return info.value


def compile_module(source: str, name: str = "kernel.hip", expressions=(), options=()) -> int:
    prog = hip.hiprtcCreateProgram(source, name)
    for expression in expressions:
        hip.hiprtcAddNameExpression(prog, expression)
    hip.hiprtcCompileProgram(prog, options)
    module = hip.hipModuleLoadData(hip.hiprtcGetCode(prog))
    hip.hiprtcDestroyProgram(prog)
    return module


def to_device(host: np.ndarray) -> int:
    ptr = hip.hipMalloc(host.nbytes)
    hip.hipMemcpy(ptr, host, host.nbytes, hip.hipMemcpyHostToDevice)
    return ptr


def from_device(ptr: int, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    hip.hipMemcpy(out, ptr, out.nbytes, hip.hipMemcpyDeviceToHost)
    return out


# ---------------------------------------------------------------- the seed, end to end


def test_vector_add_through_hiprtc(device, rng):
    n = 1_000_003
    h_a = rng.standard_normal(n, dtype=np.float32)
    h_b = rng.standard_normal(n, dtype=np.float32)

    prog = hip.hiprtcCreateProgram(VECTOR_ADD, "vector_add.cpp")
    hip.hiprtcCompileProgram(prog)
    code = hip.hiprtcGetCode(prog)
    assert isinstance(code, bytes) and len(code) == hip.hiprtcGetCodeSize(prog) > 0
    assert hip.hiprtcGetProgramLogSize(prog) == len(hip.hiprtcGetProgramLog(prog).encode()) + 1
    module = hip.hipModuleLoadData(code)
    vector_add = hip.hipModuleGetFunction(module, "vectorAdd")
    assert hip.hipModuleGetFunction(module, "vectorAdd") == vector_add

    d_a, d_b = to_device(h_a), to_device(h_b)
    d_c = hip.hipMalloc(h_a.nbytes)
    block = 256
    grid = (n + block - 1) // block
    hip.hipModuleLaunchKernel(vector_add, grid, 1, 1, block, 1, 1, 0, None, [d_a, d_b, d_c, n])
    hip.hipDeviceSynchronize()
    np.testing.assert_array_equal(from_device(d_c, h_a), h_a + h_b)

    # ctypes objects as kernelParams, on a stream, into zeroed memory.
    stream = hip.hipStreamCreate()
    hip.hipMemsetAsync(d_c, 0, h_a.nbytes, stream)
    params = [ctypes.c_void_p(d_b), ctypes.c_void_p(d_b), ctypes.c_void_p(d_c), ctypes.c_int(n // 2)]
    hip.hipModuleLaunchKernel(vector_add, grid, 1, 1, block, 1, 1, 0, stream, params)
    hip.hipStreamSynchronize(stream)
    expected = np.concatenate([(h_b + h_b)[: n // 2], np.zeros(n - n // 2, np.float32)])
    np.testing.assert_array_equal(from_device(d_c, h_a), expected)

    hip.hipStreamDestroy(stream)
    for ptr in (d_a, d_b, d_c):
        hip.hipFree(ptr)
    hip.hipModuleUnload(module)
    hip.hiprtcDestroyProgram(prog)
    assert hip.hipGetLastError() == hip.hipSuccess


def test_module_docstring_example(device):
    results = doctest.testmod(hip, raise_on_error=False, verbose=False)
    assert results.attempted > 0 and results.failed == 0


def test_load_a_hipkit_compile_module(device, rng):
    module = hip.hipModuleLoadData(hipkit.compile(VECTOR_ADD))
    vector_add = hip.hipModuleGetFunction(module, "vectorAdd")
    h_a = rng.standard_normal(1000).astype(np.float32)
    d_a = to_device(h_a)
    d_c = hip.hipMalloc(h_a.nbytes)
    hip.hipModuleLaunchKernel(vector_add, 4, 1, 1, 256, 1, 1, 0, 0, (d_a, d_a, d_c, 1000))
    hip.hipDeviceSynchronize()
    np.testing.assert_array_equal(from_device(d_c, h_a), 2 * h_a)
    hip.hipFree(d_a)
    hip.hipFree(d_c)
    hip.hipModuleUnload(module)


def test_module_errors(device):
    raises_hip(hip.hipErrorInvalidImage, hip.hipModuleLoadData, b"\x7fELF not a module")
    raises_hip(hip.hipErrorInvalidImage, hip.hipModuleLoadData, "vector_add.cpp")
    module = compile_module(VECTOR_ADD)
    vector_add = hip.hipModuleGetFunction(module, "vectorAdd")
    raises_hip(hip.hipErrorNotFound, hip.hipModuleGetFunction, module, "noSuchKernel")
    raises_hip(
        hip.hipErrorNotSupported,
        hip.hipModuleLaunchKernel,
        vector_add,
        1,
        1,
        1,
        1,
        1,
        1,
        0,
        None,
        [0, 0, 0, 0],
        [0x1, 0, 0x3],
    )
    # Wrong argument count or type: the kernel's parameter list decides.
    raises_hip(
        hip.hipErrorInvalidValue, hip.hipModuleLaunchKernel, vector_add, 1, 1, 1, 1, 1, 1, 0, None, [0, 0, 0]
    )
    raises_hip(
        hip.hipErrorInvalidValue,
        hip.hipModuleLaunchKernel,
        vector_add,
        1,
        1,
        1,
        1,
        1,
        1,
        0,
        None,
        [0, 0, 0, 1.5],
    )
    raises_hip(
        hip.hipErrorInvalidHandle,
        hip.hipModuleLaunchKernel,
        vector_add,
        1,
        1,
        1,
        1,
        1,
        1,
        0,
        0xBAD,
        [0, 0, 0, 0],
    )
    hip.hipModuleUnload(module)
    raises_hip(
        hip.hipErrorInvalidHandle,
        hip.hipModuleLaunchKernel,
        vector_add,
        1,
        1,
        1,
        1,
        1,
        1,
        0,
        None,
        [0, 0, 0, 0],
    )
    raises_hip(hip.hipErrorInvalidHandle, hip.hipModuleUnload, module)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipModuleGetFunction, module, "vectorAdd")


def test_module_global_and_function_attributes(device, rng):
    source = r"""
    __device__ int table[64];
    extern "C" __global__ void gather(const int* index, int* out, int n) {
        __shared__ int tile[256];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        tile[threadIdx.x] = i < n ? table[index[i]] : 0;
        __syncthreads();
        if (i < n) out[i] = tile[threadIdx.x];
    }
    """
    module = compile_module(source)
    ptr, size = hip.hipModuleGetGlobal(module, "table")
    assert size == 64 * 4
    table = rng.integers(-1000, 1000, 64, dtype=np.int32)
    hip.hipMemcpy(ptr, table, size, hip.hipMemcpyHostToDevice)
    index = rng.integers(0, 64, 1000, dtype=np.int32)
    d_index, d_out = to_device(index), hip.hipMalloc(index.nbytes)
    gather = hip.hipModuleGetFunction(module, "gather")
    hip.hipModuleLaunchKernel(gather, 4, 1, 1, 256, 1, 1, 0, None, [d_index, d_out, 1000])
    hip.hipDeviceSynchronize()
    np.testing.assert_array_equal(from_device(d_out, index), table[index])
    raises_hip(hip.hipErrorNotFound, hip.hipModuleGetGlobal, module, "no_such_global")

    attrs = hip.hipFuncGetAttributes(gather)
    assert attrs.sharedSizeBytes == 256 * 4
    assert attrs.maxThreadsPerBlock >= 256
    assert attrs.maxDynamicSharedSizeBytes == device.properties.sharedMemPerBlock - 256 * 4
    assert hip.hipFuncGetAttribute(hip.HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, gather) == 1024
    assert (
        hip.hipFuncGetAttribute(hip.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, gather)
        == attrs.maxThreadsPerBlock
    )
    raises_hip(hip.hipErrorInvalidValue, hip.hipFuncGetAttribute, 99, gather)
    hip.hipFree(d_index)
    hip.hipFree(d_out)
    hip.hipModuleUnload(module)


# ---------------------------------------------------------------- memory


def test_memcpy_every_kind(device, rng):
    n = 100_003
    data = rng.integers(0, 256, n, dtype=np.uint8)
    d_a, d_b = hip.hipMalloc(n), hip.hipMalloc(n)
    pinned = hip.hipHostMalloc(n)
    staging = bytearray(n)

    hip.hipMemcpy(staging, data, n, hip.hipMemcpyHostToHost)
    assert bytes(staging) == data.tobytes()
    hip.hipMemcpy(pinned, staging, n, hip.hipMemcpyHostToHost)  # int address as host memory
    hip.hipMemcpy(d_a, pinned, n, hip.hipMemcpyHostToDevice)
    hip.hipMemcpy(d_b, d_a, n, hip.hipMemcpyDeviceToDevice)
    out = np.zeros(n, np.uint8)
    hip.hipMemcpy(out, d_b, n, hip.hipMemcpyDeviceToHost)
    np.testing.assert_array_equal(out, data)

    # hipMemcpyDefault infers the direction, whatever the two sides are.
    flipped = data[::-1].copy()
    hip.hipMemcpy(d_a, flipped, n, hip.hipMemcpyDefault)
    hip.hipMemcpy(d_b, d_a, n, hip.hipMemcpyDefault)
    back = np.zeros(n, np.uint8)
    hip.hipMemcpy(back, d_b, n, hip.hipMemcpyDefault)
    np.testing.assert_array_equal(back, flipped)
    hip.hipMemcpy(pinned, back, n, hip.hipMemcpyDefault)
    hip.hipMemcpy(staging, pinned, n, hip.hipMemcpyDefault)
    assert bytes(staging) == flipped.tobytes()

    # Partial copies at offsets; multi-dimensional and Fortran-ordered buffers.
    matrix = rng.standard_normal((37, 41)).astype(np.float64, order="F")
    d_m = hip.hipMalloc(matrix.nbytes)
    hip.hipMemcpy(d_m, matrix, matrix.nbytes, hip.hipMemcpyHostToDevice)
    row = np.zeros(41 * 8, np.uint8)
    hip.hipMemcpy(row, d_m + 8 * 41, row.nbytes, hip.hipMemcpyDeviceToHost)
    np.testing.assert_array_equal(row.view(np.float64), matrix.ravel(order="F")[41:82])

    # Async copies on a stream, with temporaries: they stay alive until synchronized.
    stream = hip.hipStreamCreate()
    hip.hipMemcpyAsync(d_a, np.full(n, 7, np.uint8), n, hip.hipMemcpyHostToDevice, stream)
    hip.hipMemcpyAsync(d_b, d_a, n, hip.hipMemcpyDeviceToDevice, stream)
    result = np.zeros(n, np.uint8)
    hip.hipMemcpyAsync(result, d_b, n, hip.hipMemcpyDefault, stream)
    hip.hipStreamSynchronize(stream)
    assert (result == 7).all()
    hip.hipStreamDestroy(stream)

    for ptr in (d_a, d_b, d_m):
        hip.hipFree(ptr)
    hip.hipHostFree(pinned)


def test_memcpy_invalid_kind_and_last_error(device):
    src = np.arange(16, dtype=np.uint8)
    d_a = hip.hipMalloc(16)
    with pytest.raises(HipError) as info:
        hip.hipMemcpy(d_a, src, 16, 5)
    assert info.value.code == hip.hipErrorInvalidMemcpyDirection == 21
    with pytest.raises(HipError):
        hip.hipMemcpyAsync(d_a, src, 16, -1, None)
    # Peek keeps it, successful calls leave it, Get returns and clears it.
    assert hip.hipPeekAtLastError() == hip.hipErrorInvalidMemcpyDirection
    assert hip.hipPeekAtLastError() == hip.hipErrorInvalidMemcpyDirection
    hip.hipMemcpy(d_a, src, 16, hip.hipMemcpyHostToDevice)
    assert hip.hipGetLastError() == hip.hipErrorInvalidMemcpyDirection
    assert hip.hipGetLastError() == hip.hipSuccess
    assert hip.hipPeekAtLastError() == hip.hipSuccess
    hip.hipFree(d_a)


def test_memcpy_checks_host_buffers(device):
    d_a = hip.hipMalloc(64)
    small = np.zeros(15, np.uint8)
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemcpy, d_a, small, 16, hip.hipMemcpyHostToDevice)
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemcpy, small, d_a, 16, hip.hipMemcpyDeviceToHost)
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemcpy, bytes(64), d_a, 64, hip.hipMemcpyDeviceToHost)
    strided = np.zeros(128, np.uint8)[::2]
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemcpy, d_a, strided, 64, hip.hipMemcpyHostToDevice)
    # A host buffer where the kind says device memory.
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemcpy, bytearray(64), d_a, 64, hip.hipMemcpyDeviceToDevice)
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemcpy, d_a, "text", 4, hip.hipMemcpyHostToDevice)
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemcpy, d_a, small, -1, hip.hipMemcpyHostToDevice)
    # Read-only sources are fine.
    hip.hipMemcpy(d_a, bytes(range(64)), 64, hip.hipMemcpyHostToDevice)
    out = bytearray(64)
    hip.hipMemcpy(out, d_a, 64, hip.hipMemcpyDeviceToHost)
    assert out == bytes(range(64))
    hip.hipFree(d_a)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_memset_d8_d16_d32(device, rng, asynchronous):
    n = 50_021
    stream = hip.hipStreamCreate() if asynchronous else None
    for dtype, fill, elem in (
        (np.uint8, hip.hipMemsetD8, 1),
        (np.uint16, hip.hipMemsetD16, 2),
        (np.uint32, hip.hipMemsetD32, 4),
    ):
        host = rng.integers(0, np.iinfo(dtype).max, n, dtype=dtype)
        ptr = to_device(host)
        value = int(rng.integers(0, np.iinfo(dtype).max))
        start, count = 3, n - 10
        if asynchronous:
            getattr(hip, fill.__name__ + "Async")(ptr + start * elem, value, count, stream)
            hip.hipStreamSynchronize(stream)
        else:
            fill(ptr + start * elem, value, count)
        expected = host.copy()
        expected[start : start + count] = value
        np.testing.assert_array_equal(from_device(ptr, host), expected)
        hip.hipFree(ptr)

    host = rng.integers(0, 256, n, dtype=np.uint8)
    ptr = to_device(host)
    if asynchronous:
        hip.hipMemsetAsync(ptr, -1, 100, stream)  # the low byte: 0xff
        hip.hipStreamSynchronize(stream)
        hip.hipStreamDestroy(stream)
    else:
        hip.hipMemset(ptr, -1, 100)
    expected = host.copy()
    expected[:100] = 0xFF
    np.testing.assert_array_equal(from_device(ptr, host), expected)
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemsetD16, ptr, 1 << 16, 4)
    raises_hip(hip.hipErrorInvalidValue, hip.hipMemset, ptr, 0, -5)
    hip.hipFree(ptr)


def test_mem_get_info(device):
    free, total = hip.hipMemGetInfo()
    assert 0 < free <= total
    assert total == device.properties.totalGlobalMem


def test_malloc_absurd_size_is_out_of_memory(device):
    raises_hip(hip.hipErrorOutOfMemory, hip.hipMalloc, 1 << 60)
    raises_hip(hip.hipErrorInvalidValue, hip.hipMalloc, -1)
    assert hip.hipMalloc(0) == 0
    hip.hipFree(0)


def test_free_of_a_bogus_pointer(device):
    raises_hip(hip.hipErrorInvalidValue, hip.hipFree, 0xDEADBEEF0)
    ptr = hip.hipMalloc(256)
    hip.hipFree(ptr)
    raises_hip(hip.hipErrorInvalidValue, hip.hipFree, ptr)  # twice
    pinned = hip.hipHostMalloc(256)
    raises_hip(hip.hipErrorInvalidValue, hip.hipFree, pinned)  # not device memory
    hip.hipHostFree(pinned)
    raises_hip(hip.hipErrorInvalidValue, hip.hipHostFree, pinned)
    raises_hip(hip.hipErrorInvalidValue, hip.hipHostMalloc, 16, 0x8)


# ---------------------------------------------------------------- streams and events


def test_streams_and_events_order_work(device, rng):
    n = 1 << 20
    d_a = hip.hipMalloc(4 * n)
    producer = hip.hipStreamCreate()
    consumer = hip.hipStreamCreateWithFlags(hip.hipStreamNonBlocking)
    start, stop = hip.hipEventCreate(), hip.hipEventCreate()
    done = hip.hipEventCreateWithFlags(hip.hipEventDisableTiming | hip.hipEventBlockingSync)

    value = int(rng.integers(1, 1 << 31))
    hip.hipEventRecord(start, producer)
    hip.hipMemsetD32Async(d_a, value, n, producer)
    hip.hipEventRecord(stop, producer)
    hip.hipEventRecord(done, producer)
    # The consumer reads only after the producer's memset, through the event.
    hip.hipStreamWaitEvent(consumer, done, 0)
    out = np.zeros(n, np.uint32)
    hip.hipMemcpyAsync(out, d_a, 4 * n, hip.hipMemcpyDeviceToHost, consumer)
    hip.hipStreamSynchronize(consumer)
    assert (out == value).all()

    hip.hipEventSynchronize(stop)
    assert hip.hipEventQuery(stop) == hip.hipSuccess
    assert hip.hipEventElapsedTime(start, stop) >= 0.0
    raises_hip(hip.hipErrorInvalidHandle, hip.hipEventElapsedTime, start, done)  # timing disabled
    assert hip.hipStreamQuery(producer) in (hip.hipSuccess, hip.hipErrorNotReady)
    hip.hipStreamSynchronize(producer)
    assert hip.hipStreamQuery(producer) == hip.hipSuccess
    hip.hipDeviceSynchronize()
    assert hip.hipStreamQuery(None) == hip.hipSuccess

    for event in (start, stop, done):
        hip.hipEventDestroy(event)
    hip.hipStreamDestroy(producer)
    hip.hipStreamDestroy(consumer)
    hip.hipFree(d_a)


def test_stream_query_not_ready(device):
    module = compile_module(SPIN)
    spin = hip.hipModuleGetFunction(module, "spin")
    flag = hip.hipHostMalloc(4)
    hip.hipMemsetD32(flag, 0, 1)
    out = hip.hipMalloc(4)
    stream = hip.hipStreamCreate()
    after = hip.hipEventCreate()
    hip.hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream, [flag, 1 << 40, out])
    hip.hipEventRecord(after, stream)
    try:
        assert hip.hipStreamQuery(stream) == hip.hipErrorNotReady
        assert hip.hipEventQuery(after) == hip.hipErrorNotReady
        # Not ready is an answer, not an error.
        assert hip.hipPeekAtLastError() == hip.hipSuccess
    finally:
        ctypes.c_int.from_address(flag).value = 1
        hip.hipStreamSynchronize(stream)
    assert hip.hipStreamQuery(stream) == hip.hipSuccess
    assert hip.hipEventQuery(after) == hip.hipSuccess
    hip.hipEventDestroy(after)
    hip.hipStreamDestroy(stream)
    hip.hipHostFree(flag)
    hip.hipFree(out)
    hip.hipModuleUnload(module)


def test_stream_and_event_errors(device):
    raises_hip(hip.hipErrorInvalidValue, hip.hipStreamCreateWithFlags, 0x4)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipStreamDestroy, 0x12345)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipStreamDestroy, 0)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipStreamSynchronize, 0x12345)
    raises_hip(hip.hipErrorInvalidValue, hip.hipEventCreateWithFlags, 0x10)
    raises_hip(hip.hipErrorNotSupported, hip.hipEventCreateWithFlags, hip.hipEventInterprocess)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipEventRecord, 0x12345, None)
    stream = hip.hipStreamCreate()
    event = hip.hipEventCreate()
    raises_hip(hip.hipErrorInvalidValue, hip.hipStreamWaitEvent, stream, event, 1)
    hip.hipStreamDestroy(stream)
    hip.hipEventDestroy(event)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipStreamQuery, stream)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipEventDestroy, event)


def test_pythonic_streams_are_accepted(device, rng):
    host = rng.standard_normal(1000).astype(np.float32)
    stream = hipkit.Stream(device)
    event = hipkit.Event(device)
    d_a = hip.hipMalloc(host.nbytes)
    hip.hipMemcpyAsync(d_a, host, host.nbytes, hip.hipMemcpyHostToDevice, stream)
    hip.hipEventRecord(event, stream)
    hip.hipEventSynchronize(event)
    hip.hipStreamSynchronize(stream)
    np.testing.assert_array_equal(from_device(d_a, host), host)
    hip.hipFree(d_a)


# ---------------------------------------------------------------- devices


def test_device_properties_and_attributes(device):
    count = hip.hipGetDeviceCount()
    assert count >= 1
    assert hip.hipGetDevice() == device.index
    hip.hipSetDevice(device.index)
    props = hip.hipGetDeviceProperties(device.index)
    assert props == hipkit.Device(device.index, device.platform).properties

    attribute = hip.hipDeviceGetAttribute
    A = hip.hipDeviceAttribute_t
    # HIP's numbering (hip_runtime_api.h), which C code passes as numbers.
    assert A.hipDeviceAttributeMaxThreadsPerBlock == 56 and A.hipDeviceAttributeWarpSize == 87
    i = device.index
    assert attribute(hip.hipDeviceAttributeMaxThreadsPerBlock, i) == props.maxThreadsPerBlock
    assert attribute(hip.hipDeviceAttributeWarpSize, i) == props.warpSize == device.warp_size
    assert attribute(hip.hipDeviceAttributeMaxSharedMemoryPerBlock, i) == props.sharedMemPerBlock
    assert attribute(hip.hipDeviceAttributeMultiprocessorCount, i) == props.multiProcessorCount
    assert [
        attribute(a, i)
        for a in (
            A.hipDeviceAttributeMaxBlockDimX,
            A.hipDeviceAttributeMaxBlockDimY,
            A.hipDeviceAttributeMaxBlockDimZ,
        )
    ] == list(props.maxThreadsDim)
    assert [
        attribute(a, i)
        for a in (
            A.hipDeviceAttributeMaxGridDimX,
            A.hipDeviceAttributeMaxGridDimY,
            A.hipDeviceAttributeMaxGridDimZ,
        )
    ] == list(props.maxGridSize)
    assert attribute(hip.hipDeviceAttributeClockRate, i) == props.clockRate
    assert attribute(hip.hipDeviceAttributeTotalConstantMemory, i) == props.totalConstMem
    assert attribute(hip.hipDeviceAttributeComputeCapabilityMajor, i) == props.major
    assert attribute(hip.hipDeviceAttributeComputeCapabilityMinor, i) == props.minor
    assert attribute(hip.hipDeviceAttributeL2CacheSize, i) == props.l2CacheSize
    assert attribute(56, i) == props.maxThreadsPerBlock  # a plain number works too

    raises_hip(hip.hipErrorInvalidValue, attribute, 123456, i)
    raises_hip(hip.hipErrorInvalidDevice, hip.hipSetDevice, count)
    raises_hip(hip.hipErrorInvalidDevice, hip.hipGetDeviceProperties, count)
    raises_hip(hip.hipErrorInvalidDevice, attribute, hip.hipDeviceAttributeWarpSize, -1)
    assert hip.hipGetDevice() == device.index


def test_device_reset_then_fresh_allocations(device, rng):
    ptr = hip.hipMalloc(1024)
    stream = hip.hipStreamCreate()
    event = hip.hipEventCreate()
    module = compile_module(VECTOR_ADD)
    function = hip.hipModuleGetFunction(module, "vectorAdd")
    hip.hipDeviceReset()
    raises_hip(hip.hipErrorInvalidValue, hip.hipFree, ptr)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipStreamSynchronize, stream)
    raises_hip(hip.hipErrorInvalidHandle, hip.hipEventRecord, event, None)
    raises_hip(
        hip.hipErrorInvalidHandle,
        hip.hipModuleLaunchKernel,
        function,
        1,
        1,
        1,
        1,
        1,
        1,
        0,
        None,
        [0, 0, 0, 0],
    )

    host = rng.standard_normal(4096).astype(np.float32)
    d_a = to_device(host)
    d_c = hip.hipMalloc(host.nbytes)
    stream = hip.hipStreamCreate()
    module = compile_module(VECTOR_ADD)
    function = hip.hipModuleGetFunction(module, "vectorAdd")
    hip.hipModuleLaunchKernel(function, 16, 1, 1, 256, 1, 1, 0, stream, [d_a, d_a, d_c, host.size])
    hip.hipStreamSynchronize(stream)
    np.testing.assert_array_equal(from_device(d_c, host), 2 * host)
    hip.hipStreamDestroy(stream)
    hip.hipModuleUnload(module)
    hip.hipFree(d_a)
    hip.hipFree(d_c)


def test_error_names_and_strings():
    assert hip.hipGetErrorName(hip.hipSuccess) == "hipSuccess"
    assert hip.hipGetErrorString(hip.hipSuccess) == "no error"
    assert hip.hipGetErrorName(2) == "hipErrorOutOfMemory"
    assert hip.hipGetErrorString(2) == "out of memory"
    assert hip.hipGetErrorName(hip.hipErrorInvalidMemcpyDirection) == "hipErrorInvalidMemcpyDirection"
    assert hip.hipGetErrorName(600) == "hipErrorNotReady"
    assert hip.hipGetErrorString(700) == "an illegal memory access was encountered"
    assert hip.hipGetErrorName(123456) == "hipErrorUnknown"
    assert hip.hiprtcGetErrorString(hip.HIPRTC_SUCCESS) == "HIPRTC_SUCCESS"
    assert hip.hiprtcGetErrorString(6) == "HIPRTC_ERROR_COMPILATION"
    assert hip.HIPRTC_ERROR_COMPILATION == 6 and hip.HIPRTC_ERROR_LINKING == 100


# ---------------------------------------------------------------- hiprtc


def test_hiprtc_compile_error_log_names_file_and_line(device):
    source = "#include <hip/hip_runtime.h>\n\n__global__ void broken(int* x) {\n    x[0] = undeclared;\n}\n"
    prog = hip.hiprtcCreateProgram(source, "broken.hip")
    with pytest.raises(hip.HiprtcError) as info:
        hip.hiprtcCompileProgram(prog)
    assert info.value.code == hip.HIPRTC_ERROR_COMPILATION
    log = hip.hiprtcGetProgramLog(prog)
    assert "broken.hip:4" in log and "undeclared" in log
    assert info.value.log == log
    assert hip.hiprtcGetProgramLogSize(prog) == len(log.encode()) + 1
    with pytest.raises(hip.HiprtcError) as info:
        hip.hiprtcGetCode(prog)
    assert info.value.code == hip.HIPRTC_ERROR_INVALID_PROGRAM
    assert hip.hipPeekAtLastError() == hip.hipSuccess  # hiprtc keeps its own errors
    hip.hiprtcDestroyProgram(prog)
    with pytest.raises(hip.HiprtcError) as info:
        hip.hiprtcGetProgramLog(prog)
    assert info.value.code == hip.HIPRTC_ERROR_INVALID_PROGRAM


def test_hiprtc_lowered_name_of_a_template(device, rng):
    source = r"""
    #include "scale.h"
    template <typename T>
    __global__ void scale(T* x, T a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] = times(x[i], a);
    }
    """
    header = "template <typename T> __device__ T times(T x, T a) { return x * a; }\n"
    prog = hip.hiprtcCreateProgram(source, "scale.hip", [header], ["scale.h"])
    hip.hiprtcAddNameExpression(prog, "scale<float>")
    hip.hiprtcAddNameExpression(prog, "scale<double>")
    with pytest.raises(hip.HiprtcError) as info:
        hip.hiprtcGetLoweredName(prog, "scale<float>")
    assert info.value.code == hip.HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION
    hip.hiprtcCompileProgram(prog, ["-DUNUSED=1"])
    with pytest.raises(hip.HiprtcError) as info:
        hip.hiprtcAddNameExpression(prog, "scale<int>")
    assert info.value.code == hip.HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION
    with pytest.raises(hip.HiprtcError) as info:
        hip.hiprtcGetLoweredName(prog, "scale<int>")
    assert info.value.code == hip.HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID

    module = hip.hipModuleLoadData(hip.hiprtcGetCode(prog))
    for dtype, expression in ((np.float32, "scale<float>"), (np.float64, "scale<double>")):
        lowered = hip.hiprtcGetLoweredName(prog, expression)
        assert isinstance(lowered, str) and lowered
        function = hip.hipModuleGetFunction(module, lowered)
        host = rng.standard_normal(999).astype(dtype)
        factor = float(rng.standard_normal())
        ptr = to_device(host)
        hip.hipModuleLaunchKernel(function, 4, 1, 1, 256, 1, 1, 0, None, [ptr, factor, host.size])
        hip.hipDeviceSynchronize()
        np.testing.assert_allclose(from_device(ptr, host), host * dtype(factor), rtol=1e-6)
        hip.hipFree(ptr)
    hip.hipModuleUnload(module)
    hip.hiprtcDestroyProgram(prog)


def test_hiprtc_input_errors(device):
    for call, args, code in (
        (hip.hiprtcCreateProgram, (None,), hip.HIPRTC_ERROR_INVALID_INPUT),
        (hip.hiprtcCreateProgram, ("", "a.hip", ["x"], []), hip.HIPRTC_ERROR_INVALID_INPUT),
        (hip.hiprtcCompileProgram, ("not a program",), hip.HIPRTC_ERROR_INVALID_PROGRAM),
        (hip.hiprtcGetCodeSize, (None,), hip.HIPRTC_ERROR_INVALID_PROGRAM),
    ):
        with pytest.raises(hip.HiprtcError) as info:
            call(*args)
        assert info.value.code == code
