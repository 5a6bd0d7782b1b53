"""The NVIDIA platform's own behaviour: choosing it, CUDA's errors as HIP's,
PyTorch and CuPy interop, several GPUs.  The kernel-language and runtime
suites run on it through the ``device`` fixture; this file holds what only
a CUDA device has.  GPU tests skip with the reason where no GPU is usable."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_helpers import SCALE, device_of, python

import hipkit
from hipkit import HipError, hip, hipError_t, platforms

try:  # imported first, as an application would: torch does not import cleanly late in a test run
    import torch  # noqa: F401
except ImportError:
    pass
from hipkit.platforms.nvidia.driver import hip_code

REASON = platforms.status()["nvidia"]
gpu = pytest.mark.skipif(bool(REASON), reason=f"nvidia platform absent: {REASON}")


# ------------------------------------------------------------------ everywhere


def test_cuda_errors_keep_hip_numbering():
    hip_values = {int(e) for e in hipError_t}
    assert all(hip_code(code) in hip_values for code in range(1200))
    # HIP took CUDA's numbers: the same failure, the same code.
    for name in ("hipErrorInvalidValue", "hipErrorOutOfMemory", "hipErrorIllegalAddress", "hipErrorAssert"):
        assert hip_code(hipError_t[name]) == hipError_t[name]
    assert hip_code(715) == hipError_t.hipErrorLaunchFailure  # CUDA_ERROR_ILLEGAL_INSTRUCTION
    assert hip_code(222) == hipError_t.hipErrorInvalidKernelFile  # CUDA_ERROR_UNSUPPORTED_PTX_VERSION
    assert hip_code(912) == hipError_t.hipErrorUnknown  # CUDA_ERROR_INVALID_CLUSTER_SIZE: none in HIP
    # HIP gives 911 and 912 to its texture errors: the CUDA errors of those numbers are not them.
    assert hip_code(911) == hipError_t.hipErrorUnknown  # CUDA_ERROR_EXTERNAL_DEVICE


def test_default_platform_is_the_gpu_when_usable():
    done = python("import hipkit; print(hipkit.get_device().platform.name)", HIPKIT_PLATFORM="")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("cpu" if REASON else "nvidia")


@pytest.mark.skipif(not REASON, reason="the nvidia platform is usable here")
def test_absent_platform_says_why():
    done = python("import hipkit; hipkit.Device(0)", HIPKIT_PLATFORM="nvidia")
    assert done.returncode != 0
    assert "hipErrorNoDevice" in done.stderr and REASON in done.stderr
    info = python("from hipkit.cli import main; main(['info'])")
    assert info.returncode == 0, info.stderr
    assert f"absent: {REASON}" in info.stdout


def test_peer_queries_on_one_device(device):
    assert not device.can_access_peer(device)
    with pytest.raises(HipError):
        device.enable_peer_access(device)
    assert hip.hipDeviceCanAccessPeer(device.index, device.index) == 0


def test_pinned_host_arrays(device, rng):
    host = rng.random((64, 1000), dtype=np.float32)
    pinned = hipkit.empty_pinned(host.shape, np.float32)
    assert pinned.shape == host.shape and pinned.dtype == np.float32
    pinned[...] = host
    stream = hipkit.Stream()
    arr = hipkit.empty(host.shape)
    arr.set(pinned, stream=stream)
    back = hipkit.empty_pinned(host.shape, np.float32)
    arr.get(stream=stream, out=back)
    stream.synchronize()
    np.testing.assert_array_equal(back, host)
    assert hipkit.empty_pinned(0).size == 0
    with pytest.raises(ValueError):
        hipkit.empty_pinned((-1, 2))


# ------------------------------------------------------------------ the GPU


@pytest.fixture
def gpu_device():
    yield from device_of("nvidia")


def test_info_reports_what_the_driver_does(gpu_device):
    """``hipkit info``'s NVIDIA entries against PyTorch's and CuPy's view of the same GPU."""
    torch = pytest.importorskip("torch")
    cupy = pytest.importorskip("cupy")
    from hipkit.cli import info

    (entry,) = [p for p in info.collect()["platforms"] if p["name"] == "nvidia"]
    cuda = cupy.cuda.runtime.driverGetVersion()
    assert entry["versions"]["CUDA (driver API)"] == f"{cuda // 1000}.{cuda % 1000 // 10}"
    assert entry["versions"]["NVRTC"].split(".")[0] == str(cupy.cuda.nvrtc.getVersion()[0])
    assert len(entry["devices"]) == torch.cuda.device_count()
    for d in entry["devices"]:
        props = torch.cuda.get_device_properties(d["index"])
        assert d["name"] == props.name
        assert d["pciBusId"].lower() == cupy.cuda.Device(d["index"]).pci_bus_id.lower()
        assert d["multiProcessorCount"] == props.multi_processor_count
        assert d["totalGlobalMem"] == props.total_memory
        assert d["isa"] == f"nvptx64-nvidia-cuda--sm_{props.major}{props.minor}"
        # cudaDevAttrMemoryClockRate, cudaDevAttrGlobalMemoryBusWidth
        assert d["memoryClockRate"] == cupy.cuda.runtime.deviceGetAttribute(36, d["index"]) > 0
        assert d["memoryBusWidth"] == cupy.cuda.runtime.deviceGetAttribute(37, d["index"]) > 0


def test_cpu_and_gpu_in_one_process(gpu_device, rng):
    x = rng.random(10_000, dtype=np.float32)
    results = []
    for dev in (hipkit.Device(0, platform="cpu"), gpu_device):
        with dev:
            arr = hipkit.to_device(x)
            hipkit.compile(SCALE).get_function("scale")[40, 256](arr, 3.0, x.size)
            results.append(arr.get())
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[1], x * 3.0)
    # An array of one platform is refused by a kernel of the other.
    with hipkit.Device(0, platform="cpu"):
        cpu_scale = hipkit.compile(SCALE).get_function("scale")
    with pytest.raises(TypeError, match="argument 0"):
        cpu_scale[1, 1](hipkit.to_device(x, device=gpu_device), 1.0, 1)


def test_torch_tensors_are_kernel_arguments(gpu_device, rng):
    torch = pytest.importorskip("torch")
    x = rng.random(5000, dtype=np.float32)
    t = torch.from_numpy(x).cuda()
    hipkit.compile(SCALE).get_function("scale")[20, 256](t, 2.0, x.size)
    np.testing.assert_allclose(t.cpu().numpy(), 2.0 * x)


def test_cupy_arrays_are_kernel_arguments(gpu_device, rng):
    cupy = pytest.importorskip("cupy")
    x = rng.random(5000, dtype=np.float32)
    c = cupy.asarray(x)
    hipkit.compile(SCALE).get_function("scale")[20, 256](c, -1.5, x.size)
    np.testing.assert_allclose(cupy.asnumpy(c), -1.5 * x)


def test_hipkit_arrays_convert_zero_copy(gpu_device, rng):
    torch = pytest.importorskip("torch")
    cupy = pytest.importorskip("cupy")
    x = rng.random((30, 40), dtype=np.float32)
    arr = hipkit.to_device(x)
    views = {
        "torch.as_tensor": torch.as_tensor(arr, device="cuda"),
        "torch.from_dlpack": torch.from_dlpack(arr),
        "cupy.asarray": cupy.asarray(arr),
        "cupy.from_dlpack": cupy.from_dlpack(arr),
    }
    assert views["torch.as_tensor"].data_ptr() == arr.ptr
    assert views["cupy.asarray"].data.ptr == arr.ptr
    hipkit.compile(SCALE).get_function("scale")[5, 256](arr, 2.0, x.size)
    hipkit.synchronize()
    for name, view in views.items():
        got = view.cpu().numpy() if hasattr(view, "cpu") else cupy.asnumpy(view)
        np.testing.assert_allclose(got, 2.0 * x, err_msg=name)
    # A strided view keeps its strides.
    column = arr[:, 3]
    np.testing.assert_allclose(cupy.asnumpy(cupy.asarray(column)), 2.0 * x[:, 3])
    assert torch.as_tensor(column, device="cuda").stride() == (40,)


def test_other_libraries_arrays_become_hipkit_arrays(gpu_device, rng):
    torch = pytest.importorskip("torch")
    x = rng.random(1000, dtype=np.float32)
    t = torch.from_numpy(x).cuda()
    arr = hipkit.from_dlpack(t)
    assert arr.ptr == t.data_ptr() and arr.shape == (1000,)
    np.testing.assert_array_equal(arr.get(), x)
    with pytest.raises(BufferError):
        hipkit.from_dlpack(torch.from_numpy(x))  # host memory is not a GPU array


def test_streams_interoperate(gpu_device, rng):
    torch = pytest.importorskip("torch")
    cupy = pytest.importorskip("cupy")
    scale = hipkit.compile(SCALE).get_function("scale")
    x = rng.random(100_000, dtype=np.float32)
    # A torch stream as hipkit's launch stream, and as a wrapped hipkit.Stream.
    t = torch.from_numpy(x).cuda()
    torch_stream = torch.cuda.Stream()
    torch_stream.wait_stream(torch.cuda.current_stream())
    scale[400, 256, 0, torch_stream](t, 2.0, x.size)
    wrapped = hipkit.Stream(external=torch_stream)
    assert wrapped.handle == torch_stream.cuda_stream
    scale[400, 256, 0, wrapped](t, 2.0, x.size)
    wrapped.synchronize()
    np.testing.assert_allclose(t.cpu().numpy(), 4.0 * x)
    # A hipkit stream in torch, CuPy and cuda.core's protocol.
    stream = hipkit.Stream()
    assert stream.__cuda_stream__() == (0, stream.handle)
    arr = hipkit.to_device(x)
    scale[400, 256, 0, stream](arr, 3.0, x.size)
    with torch.cuda.stream(torch.cuda.ExternalStream(stream.handle)):
        as_torch = torch.as_tensor(arr, device="cuda") + 1.0
    with cupy.cuda.ExternalStream(stream.handle):
        as_cupy = cupy.asarray(arr) * 2.0
    stream.synchronize()
    np.testing.assert_allclose(as_torch.cpu().numpy(), 3.0 * x + 1.0, rtol=1e-6)
    np.testing.assert_allclose(cupy.asnumpy(as_cupy), 6.0 * x, rtol=1e-6)
    with pytest.raises(TypeError, match="not a stream"):
        scale[1, 1, 0, "stream"](arr, 1.0, 1)


def test_several_gpus(gpu_device, rng):
    gpus = hipkit.devices("nvidia")
    if len(gpus) < 2:
        pytest.skip("one NVIDIA GPU here; peer access needs two")
    first, second = gpus[0], gpus[1]
    x = rng.random(1 << 20, dtype=np.float32)
    a = hipkit.to_device(x, device=first)
    b = a.copy(device=second)  # a peer copy
    assert b.device == second
    np.testing.assert_array_equal(b.get(), x)
    with second:
        ptr = hip.hipMalloc(x.nbytes)
        hip.hipMemcpyPeer(ptr, second.index, a.ptr, first.index, x.nbytes)
        back = np.empty_like(x)
        hip.hipMemcpy(back, ptr, x.nbytes, hip.hipMemcpyDeviceToHost)
        hip.hipFree(ptr)
    np.testing.assert_array_equal(back, x)
    if not second.can_access_peer(first):
        pytest.skip("these GPUs have no peer access")
    assert hip.hipDeviceCanAccessPeer(second.index, first.index) == 1
    with second:
        second.enable_peer_access(first)
        with pytest.raises(HipError) as info:
            second.enable_peer_access(first)
        assert info.value.code == hipError_t.hipErrorPeerAccessAlreadyEnabled
        # A kernel on the second GPU scales the first GPU's memory in place.
        hipkit.compile(SCALE).get_function("scale")[(x.size + 255) // 256, 256](a.ptr, 2.0, x.size)
        second.synchronize()
        second.disable_peer_access(first)
    np.testing.assert_allclose(a.get(), 2.0 * x)


def test_dynamic_shared_memory_opt_in(device, rng):
    source = r"""
    extern "C" __global__ void reverse(const float* in, float* out, int n) {
        extern __shared__ float tile[];
        for (int i = threadIdx.x; i < n; i += blockDim.x) tile[i] = in[i];
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = tile[n - 1 - i];
    }"""
    kernel = hipkit.compile(source).get_function("reverse")
    default = device.properties.sharedMemPerBlock
    n = default // 4 + 1024  # more than the default limit
    x = rng.random(n, dtype=np.float32)
    a, out = hipkit.to_device(x), hipkit.empty(n)
    if device.platform.name == "cpu":
        with pytest.raises(HipError):
            kernel.set_max_dynamic_shared(n * 4)  # beyond the CPU's fixed limit
        return
    with pytest.raises(HipError) as info:
        kernel[1, 256, n * 4](a, out, n)
    assert info.value.code == hipError_t.hipErrorInvalidConfiguration
    kernel.set_max_dynamic_shared(n * 4)
    kernel[1, 256, n * 4](a, out, n)
    np.testing.assert_array_equal(out.get(), x[::-1])
    assert kernel.max_dynamic_shared == n * 4
    # The HIP-named way.
    function = hip.hipModuleGetFunction(hip.hipModuleLoadData(kernel.module.code), "reverse")
    hip.hipFuncSetAttribute(function, hip.hipFuncAttributeMaxDynamicSharedMemorySize, n * 4)
    assert hip.hipFuncGetAttributes(function).maxDynamicSharedSizeBytes == n * 4
    with pytest.raises(HipError) as info:
        hip.hipFuncSetAttribute(function, 9, 50)
    assert info.value.code == hipError_t.hipErrorNotSupported


STICKY_CHILD = """
import numpy as np, hipkit
source = (
    '#include <cassert>\\n'
    'extern "C" __global__ void check(const int* p, int n) {\\n'
    '    int i = blockIdx.x * blockDim.x + threadIdx.x;\\n'
    '    if (i < n) assert(p[i] >= 0);\\n'
    '}\\n'
)
data = hipkit.to_device(np.array([1, 2, -3, 4], np.int32))
hipkit.compile(source).get_function("check")[1, 32](data, 4)
codes = []
for call in (hipkit.synchronize, lambda: hipkit.to_device(np.ones(4)), hipkit.get_device().reset):
    try:
        call()
        codes.append(0)
    except hipkit.HipError as error:
        codes.append(int(error.code))
        last = str(error)
print(codes)
print(last)
"""


def test_sticky_error_in_a_child_process(gpu_device):
    """A failed device assert is hipErrorAssert, sticky; CUDA cannot clear it in a
    running process, and the reset says so (the tests of test_errors.py that
    recover by a reset skip on NVIDIA for this reason)."""
    done = python(STICKY_CHILD, HIPKIT_PLATFORM="nvidia")
    assert done.returncode == 0, done.stderr
    codes, message = done.stdout.strip().splitlines()[-2:]
    assert codes == "[710, 710, 710]", done.stdout
    assert "restart the process" in message
