"""The AMD platform's own behaviour: absent with the reason where it cannot
run, HIP's error numbering, compiling for gfx targets from the Python API,
and on an AMD GPU what only that has.  The kernel-language and runtime
suites run on it through the ``device`` fixture; GPU tests skip with the
reason where no AMD GPU is usable."""

from __future__ import annotations

import ctypes
import json
import os
import struct
import subprocess

import numpy as np
import pytest
from gpu_helpers import SCALE, device_of, python
from test_cli import hipkit_cli

import hipkit
from hipkit import HipError, hip, hipError_t, platforms
from hipkit.platforms._gpu.platform import GpuPlatform, LaunchArguments
from hipkit.platforms.amd import _hip, compiler
from hipkit.platforms.amd.platform import _LAUNCH_PARAMS, AmdPlatform, _Limits
from hipkit.platforms.base.platform import (
    PARAM_OTHER,
    PARAM_POINTER,
    FunctionInfo,
    Param,
    PlatformUnavailable,
    Target,
)

REASON = platforms.status()["amd"]
HIPRTC = compiler.unavailable_reason()
try:
    ROCM: _hip.Rocm | None = _hip.load()
except PlatformUnavailable:
    ROCM = None
rocm_library = pytest.mark.skipif(ROCM is None, reason=f"ROCm's HIP runtime is not installed: {REASON}")
hiprtc = pytest.mark.skipif(bool(HIPRTC), reason=f"hiprtc is not usable here: {HIPRTC}")
gpu = pytest.mark.skipif(bool(REASON), reason=f"amd platform absent: {REASON}")


# ------------------------------------------------------------------ everywhere


@pytest.mark.skipif(not REASON, reason="the amd platform is usable here")
def test_absent_platform_says_why():
    """Where the platform cannot run, ``hipkit info`` and selecting it say why."""
    if ROCM is not None:  # the runtime loads: then no GPU is the reason, in HIP's words
        assert "hipErrorNoDevice" in REASON or "found none" in REASON
        if not os.path.exists("/dev/kfd"):
            assert "/dev/kfd does not exist" in REASON
    done = python("import hipkit; hipkit.Device(0)", HIPKIT_PLATFORM="amd")
    assert done.returncode != 0
    assert "hipErrorNoDevice" in done.stderr and "platform amd is not available" in done.stderr
    assert REASON in done.stderr
    info = hipkit_cli("info", "--json", HIPKIT_PLATFORM="amd")
    assert info.returncode != 0
    report = json.loads(info.stdout)
    (amd,) = [p for p in report["platforms"] if p["name"] == "amd"]
    assert amd == {"name": "amd", "available": False, "reason": REASON}
    assert report["default"] is None and "amd" in report["error"]
    text = hipkit_cli("info")
    assert f"Platform: amd\n  absent: {REASON}" in text.stdout


@pytest.mark.skipif(not REASON, reason="the amd platform is usable here")
def test_the_platforms_list_it_as_absent():
    assert "amd" in platforms.known()
    with pytest.raises(HipError, match="platform amd is not available") as info:
        platforms.get("amd")
    assert info.value.code == hipError_t.hipErrorNoDevice


def test_a_missing_runtime_library(tmp_path, monkeypatch):
    missing = tmp_path / "libamdhip64.so"
    monkeypatch.setenv("HIPKIT_AMD_LIBRARY", str(missing))
    with pytest.raises(PlatformUnavailable, match=f"{missing}: no such file"):
        AmdPlatform()
    assert str(missing) in compiler.unavailable_reason()
    with pytest.raises(hipkit.CompileError, match="cannot compile for gfx90a: ROCm's HIP runtime"):
        hipkit.compile(SCALE, target="gfx90a")
    info = hipkit_cli("info", "--json", HIPKIT_AMD_LIBRARY=str(missing))
    (amd,) = [p for p in json.loads(info.stdout)["platforms"] if p["name"] == "amd"]
    assert amd["available"] is False and f"{missing}: no such file" in amd["reason"]
    assert "HIPKIT_AMD_LIBRARY" in amd["reason"]  # the way to name another


def test_a_file_that_is_no_library(tmp_path, monkeypatch):
    garbage = tmp_path / "libamdhip64.so"
    garbage.write_bytes(b"not a shared object")
    monkeypatch.setenv("HIPKIT_AMD_LIBRARY", str(garbage))
    with pytest.raises(PlatformUnavailable, match="could not be loaded.*libamdhip64.so"):
        AmdPlatform()


def test_a_library_that_is_not_hip(monkeypatch):
    monkeypatch.setenv("HIPKIT_AMD_LIBRARY", "libm.so.6")
    with pytest.raises(PlatformUnavailable, match="libm.so.6 is not a HIP runtime.*hipGetDeviceCount"):
        AmdPlatform()


@rocm_library
def test_hip_error_numbering_is_the_runtimes():
    """hipkit's hipError_t and ROCm's runtime name every code alike, and a
    runtime failure comes back as HipError with the runtime's code."""
    assert ROCM is not None
    # Codes later ROCm added (HIP 6's texture errors): an older runtime has no name for them.
    newer = {hipError_t.hipErrorInvalidChannelDescriptor, hipError_t.hipErrorInvalidTexture}
    for code in hipError_t:
        name = ROCM.hip.hipGetErrorName(int(code)).decode()
        assert name == code.name or (code in newer and name == "hipErrorUnknown"), code
    # A code hipkit does not know keeps its number, with the runtime's name for it
    # (hipkit's table has every code this runtime names, so that name is its "unknown").
    error = ROCM.error(1060, "hipSomething")
    assert error.code == 1060 and error.detail == "hipSomething (hipErrorUnknown)"
    assert ROCM.error(1054, "x").detail == "x" and ROCM.error(1054, "x").name == "hipErrorTbd"
    assert ROCM.error(999, "x").detail == "x"


@rocm_library
@pytest.mark.skipif(not REASON, reason="an AMD GPU is usable here")
def test_runtime_calls_without_a_device_raise_hip_errors():
    assert ROCM is not None
    pointer = ctypes.c_void_p()
    err = ROCM.call("hipMalloc", ctypes.byref(pointer), 256)
    assert err in (hipError_t.hipErrorNoDevice, hipError_t.hipErrorInvalidDevice)  # ROCm 5.2: the latter
    with pytest.raises(HipError) as info:
        ROCM.check(err, "hipMalloc(256 bytes)")
    assert info.value.code == err
    assert "hipMalloc(256 bytes)" in str(info.value)


@pytest.fixture
def runtime_without_a_device():
    """The platform over ROCm's real runtime where no GPU is: made without its
    constructor's device check, with device 0 taken as current, so that every
    call reaches the runtime, which answers with its own error."""
    if ROCM is None or not REASON:
        pytest.skip("needs ROCm's runtime and no AMD GPU")
    platform = AmdPlatform.__new__(AmdPlatform)
    GpuPlatform.__init__(platform, 2)
    platform._rocm, platform._count, platform._blocking = ROCM, 2, False
    platform._tls.key = (0, 0)
    return platform


NO_DEVICE = (hipError_t.hipErrorNoDevice, hipError_t.hipErrorInvalidDevice)


@hiprtc
def test_every_runtime_call_reaches_the_runtime(runtime_without_a_device):
    """Each call is marshalled to ROCm's function as its header declares it
    (a wrong argument count or type would be a ctypes error here, or a
    crash), and the runtime's error comes back as HipError with its code."""
    p = runtime_without_a_device
    binary = compiler.compile_source(
        SCALE, Target("amd", "gfx90a", 64), name="scale.hip", options=(), name_expressions=(), headers={}
    )
    limits = _Limits((1024, 1024, 1024), 1024, (2**31 - 1, 2**31 - 1, 2**31 - 1), 65536)
    params = binary.kernels[0].params
    native = (ctypes.c_void_p(), LaunchArguments(params, _LAUNCH_PARAMS), limits)
    scale = FunctionInfo(0, "scale", params, 0, 1024, native=native)
    args = struct.pack("<Qfi", 0, 2.0, 16)
    calls = {
        "hipGetDeviceProperties": lambda: p.properties(0),
        "hipMalloc": lambda: p.malloc(0, 256),
        "hipFree": lambda: p.free(0, 0),
        "hipHostMalloc": lambda: p.host_malloc(256),
        "hipHostFree": lambda: p.host_free(0),
        "hipMemGetInfo": lambda: p.mem_info(0),
        "hipMemcpy": lambda: p.memcpy(0, 0, 0, 16, 4, 0, False),
        "hipMemcpyAsync": lambda: p.memcpy(0, 0, 0, 16, 4, 0, True),
        "hipMemsetD8": lambda: p.memset(0, 0, 7, 16, 1, 0, False),
        "hipMemsetD16Async": lambda: p.memset(0, 0, 7, 16, 2, 0, True),
        "hipMemsetD32": lambda: p.memset(0, 0, 0xFFFFFFFF, 16, 4, 0, False),
        "hipStreamCreateWithFlags": lambda: p.stream_create(0, True),
        "hipStreamDestroy": lambda: p.stream_destroy(0, 0),
        "hipStreamSynchronize": lambda: p.stream_synchronize(0, 0),
        "hipStreamQuery": lambda: p.stream_query(0, 0),
        "hipStreamWaitEvent": lambda: p.stream_wait_event(0, 0, 0),
        "hipEventCreateWithFlags": lambda: p.event_create(0, True, False),
        "hipEventDestroy": lambda: p.event_destroy(0, 0),
        "hipEventRecord": lambda: p.event_record(0, 0, 0),
        "hipEventSynchronize": lambda: p.event_synchronize(0, 0),
        "hipEventQuery": lambda: p.event_query(0, 0),
        "hipEventElapsedTime": lambda: p.event_elapsed(0, 0, 0),
        "hipDeviceSynchronize": lambda: p.synchronize(0),
        "hipDeviceCanAccessPeer": lambda: p.can_access_peer(0, 1),
        "peer access 0 -> 1": lambda: p.enable_peer_access(0, 1),
        "peer access 0 -> 0": lambda: p.disable_peer_access(0, 0),
        "hipMemcpyPeer": lambda: p.memcpy_peer(0, 0, 0, 0, 16, 0, False),
        "launching scale": lambda: p.launch(0, scale, (1, 1, 1), (16, 1, 1), 0, 0, args),
        "hipDeviceReset": lambda: p.reset(0),
    }
    assert p.can_access_peer(0, 0) is False  # the same device: no call needed
    for what, call in calls.items():
        with pytest.raises(HipError) as info:
            call()
        assert info.value.code in NO_DEVICE and what in str(info.value), what
    assert p.reset_generation(0) == 1  # a failed reset still invalidates handles
    with pytest.raises(HipError, match="no AMD device 2; 2 visible") as info:
        p.malloc(2, 16)
    assert info.value.code == hipError_t.hipErrorInvalidDevice
    with pytest.raises(HipError, match="memset of 8-byte elements"):
        p.memset(0, 0, 0, 1, 8, 0, False)


BAD_LAUNCHES = {
    "1025 threads": ((1, 1, 1), (1025, 1, 1), 0),
    "block (1024, 2, 1)": ((1, 1, 1), (1024, 2, 1), 0),
    "over __launch_bounds__(256)": ((1, 1, 1), (512, 1, 1), 0),
    "block z 0": ((1, 1, 1), (64, 1, 0), 0),
    "grid x 0": ((0, 1, 1), (64, 1, 1), 0),
    "grid y over the device's": ((1, 65536, 1), (1, 1, 1), 0),
    "2^32 threads in x": ((2**24, 1, 1), (256, 1, 1), 0),
    "static 40 KiB + dynamic 30 KiB": ((1, 1, 1), (64, 1, 1), 30 * 1024),
}


@pytest.mark.parametrize("grid, block, shared", BAD_LAUNCHES.values(), ids=BAD_LAUNCHES.keys())
def test_launch_limits(runtime_without_a_device, grid, block, shared):
    """A configuration the kernel cannot run with is hipErrorInvalidConfiguration
    before it reaches HIP, whose own checks differ (hipErrorLaunchFailure over
    __launch_bounds__) or are missing (static and dynamic shared memory together)."""
    limits = _Limits((1024, 1024, 1024), 256, (2**31 - 1, 65535, 65535), 64 * 1024 - 40 * 1024)
    native = (ctypes.c_void_p(), LaunchArguments((), _LAUNCH_PARAMS), limits)
    kernel = FunctionInfo(0, "k", (), 40 * 1024, 256, native=native)
    with pytest.raises(HipError, match="the kernel takes up to 256 threads a block") as info:
        runtime_without_a_device.launch(0, kernel, grid, block, shared, 0, b"")
    assert info.value.code == hipError_t.hipErrorInvalidConfiguration
    with pytest.raises(HipError) as info:  # the largest it takes reaches the runtime
        runtime_without_a_device.launch(0, kernel, (2**24 - 1, 65535, 65535), (256, 1, 1), 24 * 1024, 0, b"")
    assert info.value.code in NO_DEVICE


@hiprtc
def test_compiling_for_gfx_from_the_python_api():
    """Without an AMD GPU: the module is compiled and saved, not run."""
    module = hipkit.compile(SCALE, target="gfx90a", device=hipkit.Device(0, platform="cpu"))
    assert module.target == Target("amd", "gfx90a", 64)
    assert module.kernels == ["scale"]
    assert compiler.Binary.from_bytes(module.code) == module.binary
    with pytest.raises(HipError) as info:
        module.get_function("scale")
    assert info.value.code == hipError_t.hipErrorNoBinaryForGpu
    with pytest.raises(HipError) as info:
        with hipkit.Device(0, platform="cpu"):
            hip.hipModuleLoadData(module)
    assert info.value.code == hipError_t.hipErrorNoBinaryForGpu
    assert (
        hipkit.compile(SCALE, target="gfx1030", device=hipkit.Device(0, platform="cpu")).target.warp_size
        == 32
    )


# ------------------------------------------------------------------ the GPU


@pytest.fixture
def gpu_device():
    yield from device_of("amd")


@gpu
def test_default_platform_is_the_gpu_when_usable():
    done = python("import hipkit; print(hipkit.get_device().platform.name)", HIPKIT_PLATFORM="")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("amd" if platforms.status()["nvidia"] else "nvidia")


def test_info_reports_what_the_runtime_does(gpu_device):
    """``hipkit info``'s AMD entries against PyTorch's (a ROCm build) view of the same GPUs."""
    torch = pytest.importorskip("torch")
    if not torch.version.hip:
        pytest.skip(f"torch {torch.__version__} is not a ROCm build")
    from hipkit.cli import info

    (entry,) = [p for p in info.collect()["platforms"] if p["name"] == "amd"]
    assert entry["versions"]["HIP runtime"].startswith(".".join(torch.version.hip.split(".")[:2]))
    assert len(entry["devices"]) == torch.cuda.device_count()
    for d in entry["devices"]:
        props = torch.cuda.get_device_properties(d["index"])
        assert d["name"] == props.name
        assert d["gcnArchName"] == props.gcnArchName
        assert d["multiProcessorCount"] == props.multi_processor_count
        assert d["totalGlobalMem"] == props.total_memory
        assert d["isa"] == f"amdgcn-amd-amdhsa--{props.gcnArchName}"
        assert d["target"] == str(Target("amd", props.gcnArchName.split(":")[0], d["warpSize"]))


def test_torch_tensors_are_kernel_arguments(gpu_device, rng):
    torch = pytest.importorskip("torch")
    if not torch.version.hip:
        pytest.skip(f"torch {torch.__version__} is not a ROCm build")
    x = rng.random(1000, dtype=np.float32)
    tensor = torch.from_numpy(x).cuda()
    hipkit.compile(SCALE).get_function("scale")[4, 256](tensor, 3.0, x.size)
    gpu_device.synchronize()
    np.testing.assert_allclose(tensor.cpu().numpy(), x * 3, rtol=1e-6)


def test_code_objects_made_by_hipcc(gpu_device, rng, tmp_path):
    """An offload bundle from ``hipcc --genco`` loads, and its kernels take
    what the code object's metadata says (pointers, raw bytes)."""
    from hipkit.platforms.amd.toolkit import find_hipcc

    hipcc = find_hipcc()
    if hipcc is None:
        pytest.skip("hipcc not found")
    arch = gpu_device.target.arch
    (tmp_path / "scale.hip").write_text("#include <hip/hip_runtime.h>\n" + SCALE)
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    subprocess.run(
        [hipcc, "--genco", f"--offload-arch={arch}", "scale.hip", "-o", "scale.co"],
        cwd=tmp_path,
        check=True,
        env=env,
    )
    module = hip.hipModuleLoadData((tmp_path / "scale.co").read_bytes())
    function = hip.hipModuleGetFunction(module, "scale")
    x = rng.random(1000, dtype=np.float32)
    arr = hipkit.to_device(x)
    hip.hipModuleLaunchKernel(function, 4, 1, 1, 256, 1, 1, 0, None, [arr, np.float32(2.0), np.int32(x.size)])
    gpu_device.synchronize()
    np.testing.assert_allclose(arr.get(), x * 2, rtol=1e-6)
    loaded = hipkit.Module((tmp_path / "scale.co").read_bytes(), gpu_device.target, gpu_device)
    assert loaded.get_function("scale").info.params == (
        Param(8, 8, PARAM_POINTER),
        Param(4, 4, PARAM_OTHER),
        Param(4, 4, PARAM_OTHER),
    )
    hip.hipModuleUnload(module)


def test_dynamic_shared_memory_needs_no_opt_in(gpu_device):
    source = r"""
    extern "C" __global__ void fill(int* out) {
      extern __shared__ int buf[];
      buf[threadIdx.x] = threadIdx.x;
      __syncthreads();
      out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
    }
    """
    kernel = hipkit.compile(source).get_function("fill")
    limit = gpu_device.properties.sharedMemPerBlock
    assert kernel.max_dynamic_shared == limit
    kernel.set_max_dynamic_shared(limit)
    with pytest.raises(HipError) as info:
        kernel.set_max_dynamic_shared(limit + 1)
    assert info.value.code == hipError_t.hipErrorInvalidValue
    out = hipkit.zeros(256, np.int32)
    kernel[1, 256, 256 * 4](out)
    np.testing.assert_array_equal(out.get(), np.arange(256)[::-1])


def test_hip_visible_devices_is_applied_once(gpu_device):
    """ROCm's runtime applies HIP_VISIBLE_DEVICES; hipkit does not again."""
    last = len(hipkit.devices("amd")) - 1
    code = "import hipkit; print(len(hipkit.devices('amd')), hipkit.Device(0, 'amd').properties.pciBusID)"
    done = python(code, HIP_VISIBLE_DEVICES=str(last))
    assert done.returncode == 0, done.stderr
    count, bus = done.stdout.split()
    assert int(count) == 1
    assert int(bus) == hipkit.Device(last, platform="amd").properties.pciBusID
