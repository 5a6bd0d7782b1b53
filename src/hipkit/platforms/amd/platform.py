"""The AMD platform: HIP kernels through hiprtc, run by ROCm's HIP runtime.

Built on AMD's own libraries, ``libamdhip64`` and hiprtc, through the small
ctypes layer in :mod:`._hip` (AMD's ``hip-python`` package exists only for
ROCm 6.2 and later, one release each).  HIP's errors keep their numbers: a
failing call raises :class:`hipkit.HipError` with the runtime's own code.

Without an AMD GPU the platform is absent, with the reason ``hipkit info``
shows: ROCm's runtime not found, or hipErrorNoDevice from hipGetDeviceCount
(and whether /dev/kfd, the ROCm kernel driver's device, exists).  Compiling
for gfx targets needs no GPU (:mod:`.compiler`).
"""

from __future__ import annotations

import ctypes
import os
from functools import cache
from pathlib import Path
from typing import NamedTuple

from ..._errors import HipError, hipError_t
from .._gpu.compiler import KernelEntry
from .._gpu.platform import GpuPlatform, LaunchArguments, LaunchMarkers, kernel_index
from ..base.platform import DeviceProperties, FunctionInfo, PlatformUnavailable, Target, kDLROCM
from . import _hip, compiler
from .codeobject import CodeObject, bundle_entries
from .compiler import Binary

_LAUNCH_PARAMS = LaunchMarkers(
    _hip.LAUNCH_PARAM_BUFFER_POINTER, _hip.LAUNCH_PARAM_BUFFER_SIZE, _hip.LAUNCH_PARAM_END
)
_KFD = "/dev/kfd"


def _no_device_reason(err: int) -> str:
    """Why hipGetDeviceCount found no GPU (``err``: its hipError_t), with what
    the machine says about the ROCm kernel driver."""
    if not os.path.exists(_KFD):
        driver = (
            f"{_KFD} does not exist: the amdgpu kernel driver is not loaded or this machine has no AMD GPU"
        )
    elif not os.access(_KFD, os.R_OK | os.W_OK):
        driver = f"{_KFD} is not accessible: add the user to the render and video groups"
    else:
        driver = "ROCR_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES may hide the GPUs"
    if err:
        return f"no AMD GPU: hipGetDeviceCount returned {HipError(err).name} ({driver})"
    return f"no AMD GPU: hipGetDeviceCount found none ({driver})"


class _Limits(NamedTuple):
    """What a launch of one kernel may ask for on its device.  HIP checks some
    of this itself, with other codes (a block over __launch_bounds__ is
    hipErrorLaunchFailure), and not all (static and dynamic shared memory
    together; a grid of more than 2^32 threads in a dimension wraps around in
    HSA's dispatch packet): hipkit checks all, as on the other platforms."""

    block: tuple[int, int, int]
    threads: int  # per block: the device's limit and the kernel's __launch_bounds__
    grid: tuple[int, int, int]
    shared: int  # dynamic shared memory beside the kernel's static

    def allow(self, grid: tuple[int, int, int], block: tuple[int, int, int], shared_mem: int) -> bool:
        (gx, gy, gz), (bx, by, bz), (mx, my, mz), (ngx, ngy, ngz) = grid, block, self.block, self.grid
        return (
            0 < bx <= mx
            and 0 < by <= my
            and 0 < bz <= mz
            and bx * by * bz <= self.threads
            and 0 < gx <= ngx
            and 0 < gy <= ngy
            and 0 < gz <= ngz
            and max(gx * bx, gy * by, gz * bz) < 1 << 32
            and 0 <= shared_mem <= self.shared
        )


class AmdPlatform(GpuPlatform):
    """AMD GPUs through ROCm's HIP runtime; kernels compiled by hiprtc."""

    name = "amd"
    dlpack_device_type = kDLROCM
    # ROCm builds of PyTorch and CuPy export and take __cuda_array_interface__ for AMD GPU memory.
    cuda_array_interface = True
    # A kernel's memory fault or failed assert ends the process on ROCm (the HSA runtime aborts it).
    recovers_from_sticky_errors = False
    binary_class = Binary

    def __init__(self) -> None:
        self._rocm = rocm = _hip.load()  # PlatformUnavailable with the reason
        count = ctypes.c_int(0)
        err = rocm.call("hipGetDeviceCount", ctypes.byref(count))
        if err or count.value == 0:
            raise PlatformUnavailable(_no_device_reason(err))
        reason = compiler.unavailable_reason()
        if reason:
            raise PlatformUnavailable(reason)
        super().__init__(count.value)
        self._count = count.value

    # ------------------------------------------------------------------ calls

    def _valid(self, device: int) -> None:
        if not 0 <= device < self._count:
            raise HipError(hipError_t.hipErrorInvalidDevice, f"no AMD device {device}; {self._count} visible")

    def _use(self, device: int) -> None:
        """Make ``device`` this thread's current HIP device (once per change)."""
        self._valid(device)
        key = (device, self._generations[device])
        if getattr(self._tls, "key", None) != key:
            self._rocm.check(self._rocm.hip.hipSetDevice(device), "hipSetDevice")
            self._tls.key = key

    def _call(self, device: int, name: str, *args) -> None:
        """Call HIP function ``name`` on ``device``; HipError naming it if it fails."""
        self._use(device)
        self._rocm.check(self._rocm.call(name, *args), name)

    def _out(self, name: str, ctype, *args, what: str = ""):
        """Call a HIP function whose first parameter is an output; its value."""
        value = ctype()
        self._rocm.check(self._rocm.call(name, ctypes.byref(value), *args), what or name)
        return value.value

    def _ready(self, device: int, name: str, handle: int) -> bool:
        """A query's answer: False while work is pending (hipErrorNotReady)."""
        self._use(device)
        err = self._rocm.call(name, handle)
        if err == _hip.NOT_READY:
            return False
        self._rocm.check(err, name)
        return True

    # ------------------------------------------------------------------ devices

    def device_count(self) -> int:
        return self._count

    @cache  # noqa: B019 - one platform object per process; properties never change
    def properties(self, device: int) -> DeviceProperties:
        self._use(device)
        p = _hip.hipDeviceProp_t()
        self._rocm.check(
            getattr(self._rocm.hip, self._rocm.properties_function)(ctypes.byref(p), device),
            self._rocm.properties_function,
        )
        return DeviceProperties(
            name=p.name.decode(errors="replace"),
            # "gfx90a:sramecc+:xnack-": the target with the features this GPU runs with.
            gcnArchName=p.gcnArchName.decode(errors="replace"),
            platform=self.name,
            totalGlobalMem=p.totalGlobalMem,
            sharedMemPerBlock=p.sharedMemPerBlock,
            warpSize=p.warpSize,
            maxThreadsPerBlock=p.maxThreadsPerBlock,
            maxThreadsDim=(p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]),
            maxGridSize=(p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]),
            multiProcessorCount=p.multiProcessorCount,
            clockRate=p.clockRate,
            l2CacheSize=p.l2CacheSize,
            totalConstMem=p.totalConstMem,
            regsPerBlock=p.regsPerBlock,
            major=p.major,
            minor=p.minor,
            memoryClockRate=p.memoryClockRate,
            memoryBusWidth=p.memoryBusWidth,
            maxSharedMemoryPerMultiProcessor=p.maxSharedMemoryPerMultiProcessor,
            pciDomainID=p.pciDomainID,
            pciBusID=p.pciBusID,
            pciDeviceID=p.pciDeviceID,
        )

    def isa(self, device: int) -> str:
        return f"amdgcn-amd-amdhsa--{self.properties(device).gcnArchName}"

    def versions(self) -> dict[str, str]:
        found = {}
        try:
            found["amdgpu driver"] = Path("/sys/module/amdgpu/version").read_text().strip()
        except OSError:
            pass  # the driver of the Linux kernel itself has no version file
        found["HIP runtime"] = "{}.{}.{}".format(*self._rocm.version)
        found["libamdhip64"] = self._rocm.hip_path
        found["comgr"] = self._rocm.comgr_version()
        return found

    def target(self, device: int) -> Target:
        """The device's processor without its features ("gfx90a" for a
        "gfx90a:sramecc+:xnack-"): code compiled for it runs in every mode of
        the processor, as hipcc's for ``--offload-arch=gfx90a``."""
        props = self.properties(device)
        return Target(self.name, props.gcnArchName.split(":")[0], props.warpSize)

    # ------------------------------------------------------------------ memory

    def malloc(self, device: int, nbytes: int) -> int:
        self._use(device)
        return int(self._out("hipMalloc", ctypes.c_void_p, nbytes, what=f"hipMalloc({nbytes} bytes)") or 0)

    def free(self, device: int, ptr: int) -> None:
        self._call(device, "hipFree", ptr)

    def host_malloc(self, nbytes: int) -> int:
        return int(
            self._out("hipHostMalloc", ctypes.c_void_p, nbytes, 0, what=f"hipHostMalloc({nbytes} bytes)") or 0
        )

    def host_free(self, ptr: int) -> None:
        self._rocm.check(self._rocm.hip.hipHostFree(ptr), "hipHostFree")

    def mem_info(self, device: int) -> tuple[int, int]:
        self._use(device)
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self._rocm.check(
            self._rocm.hip.hipMemGetInfo(ctypes.byref(free), ctypes.byref(total)), "hipMemGetInfo"
        )
        return free.value, total.value

    def memcpy(self, device, dst, src, nbytes, kind, stream, asynchronous) -> None:
        # Unified addressing: the runtime knows each pointer's side (hipMemcpyDefault).
        if asynchronous or stream:
            self._call(device, "hipMemcpyAsync", dst, src, nbytes, _hip.MEMCPY_DEFAULT, stream)
            if not asynchronous:
                self._call(device, "hipStreamSynchronize", stream)
        else:
            self._call(device, "hipMemcpy", dst, src, nbytes, _hip.MEMCPY_DEFAULT)

    def memset(self, device, dst, value, count, elem_size, stream, asynchronous) -> None:
        names = {1: "hipMemsetD8", 2: "hipMemsetD16", 4: "hipMemsetD32"}
        if elem_size not in names:
            raise HipError(hipError_t.hipErrorInvalidValue, f"memset of {elem_size}-byte elements")
        name = names[elem_size]
        if asynchronous or stream:
            self._call(device, name + "Async", dst, value, count, stream)
            if not asynchronous:
                self._call(device, "hipStreamSynchronize", stream)
        else:
            self._call(device, name, dst, value, count)

    # ------------------------------------------------------------------ streams, events

    def stream_create(self, device: int, non_blocking: bool) -> int:
        self._use(device)
        return int(self._out("hipStreamCreateWithFlags", ctypes.c_void_p, 1 if non_blocking else 0) or 0)

    def stream_destroy(self, device, stream) -> None:
        self._call(device, "hipStreamDestroy", stream)

    def stream_synchronize(self, device, stream) -> None:
        self._call(device, "hipStreamSynchronize", stream)

    def stream_query(self, device, stream) -> bool:
        return self._ready(device, "hipStreamQuery", stream)

    def stream_wait_event(self, device, stream, event) -> None:
        self._call(device, "hipStreamWaitEvent", stream, event, 0)

    def event_create(self, device, timing, blocking) -> int:
        self._use(device)
        # hipEventDisableTiming, hipEventBlockingSync
        flags = (0 if timing else 0x2) | (0x1 if blocking else 0)
        return int(self._out("hipEventCreateWithFlags", ctypes.c_void_p, flags) or 0)

    def event_destroy(self, device, event) -> None:
        self._call(device, "hipEventDestroy", event)

    def event_record(self, device, event, stream) -> None:
        self._call(device, "hipEventRecord", event, stream)

    def event_synchronize(self, device, event) -> None:
        self._call(device, "hipEventSynchronize", event)

    def event_query(self, device, event) -> bool:
        return self._ready(device, "hipEventQuery", event)

    def event_elapsed(self, device, start, stop) -> float:
        self._use(device)
        return float(self._out("hipEventElapsedTime", ctypes.c_float, start, stop))

    def synchronize(self, device: int) -> None:
        self._call(device, "hipDeviceSynchronize")

    def reset(self, device: int) -> None:
        """hipDeviceReset: everything of the device is freed; handles from
        before are stale.  (After a kernel's memory fault ROCm has already
        ended the process: there is no sticky error left to clear.)"""
        self._use(device)
        with self._lock:
            try:
                self._rocm.check(self._rocm.hip.hipDeviceReset(), "hipDeviceReset")
            finally:
                self._generations[device] += 1
                self._modules = {h: m for h, m in self._modules.items() if m.device != device}

    # ------------------------------------------------------------------ several devices

    def can_access_peer(self, device: int, peer: int) -> bool:
        self._valid(peer)
        self._use(device)
        if device == peer:
            return False
        return bool(self._out("hipDeviceCanAccessPeer", ctypes.c_int, device, peer))

    def enable_peer_access(self, device: int, peer: int) -> None:
        self._use(device)
        self._rocm.check(self._rocm.hip.hipDeviceEnablePeerAccess(peer, 0), f"peer access {device} -> {peer}")

    def disable_peer_access(self, device: int, peer: int) -> None:
        self._use(device)
        self._rocm.check(self._rocm.hip.hipDeviceDisablePeerAccess(peer), f"peer access {device} -> {peer}")

    def memcpy_peer(self, dst_device, dst, src_device, src, nbytes, stream, asynchronous) -> None:
        self._valid(src_device)
        if asynchronous or stream:
            self._call(dst_device, "hipMemcpyPeerAsync", dst, dst_device, src, src_device, nbytes, stream)
            if not asynchronous:
                self._call(dst_device, "hipStreamSynchronize", stream)
        else:
            self._call(dst_device, "hipMemcpyPeer", dst, dst_device, src, src_device, nbytes)

    # ------------------------------------------------------------------ code

    parse_target = staticmethod(compiler.parse_arch)
    compile = staticmethod(compiler.compile_source)

    def load_module(self, device: int, binary: Binary | bytes) -> int:
        """Load a module from compile(), its bytes, or a code object or offload
        bundle made elsewhere (``hipcc --genco``), whose kernels take what the
        code object's metadata says: pointers for its buffers, raw bytes or
        NumPy scalars for the rest."""
        given = self._binary(binary)
        arch = self.target(device).arch
        table: tuple[KernelEntry, ...]
        if isinstance(given, bytes):
            image, table = _code_object(given, arch), ()
        elif given.target.arch.split(":")[0] != arch:
            raise HipError(
                hipError_t.hipErrorNoBinaryForGpu,
                f"module compiled for {given.target}, device {device} is {arch}",
            )
        else:
            image, table = given.image, given.kernels  # hipkit's own table: lookup names and kinds
        metadata = [KernelEntry(s, s, params) for s, params in CodeObject(image).kernel_params().items()]
        self._use(device)
        handle = int(self._out("hipModuleLoadData", ctypes.c_void_p, image) or 0)
        return self._loaded(device, handle, image, kernel_index(metadata, table))

    def _unload(self, handle: int) -> None:
        self._rocm.check(self._rocm.call("hipModuleUnload", handle), "hipModuleUnload")

    def get_function(self, device, module, name) -> FunctionInfo:
        self._use(device)
        loaded = self._module(module)
        found = loaded.kernels.get(name)
        function = ctypes.c_void_p()
        if found is None or self._rocm.hip.hipModuleGetFunction(
            ctypes.byref(function), loaded.handle, found.symbol.encode()
        ):
            raise HipError(hipError_t.hipErrorNotFound, f"no kernel {name!r} in the module")
        params = found.params
        registers = self._function_attribute(function, _hip.FUNC_NUM_REGS)
        static_shared = self._function_attribute(function, _hip.FUNC_SHARED_SIZE_BYTES)
        max_threads = self._function_attribute(function, _hip.FUNC_MAX_THREADS_PER_BLOCK)
        props = self.properties(device)
        limits = _Limits(
            props.maxThreadsDim,
            min(props.maxThreadsPerBlock, max_threads),
            props.maxGridSize,
            props.sharedMemPerBlock - static_shared,
        )
        return FunctionInfo(
            handle=int(function.value or 0),
            name=name,
            params=params,
            static_shared_bytes=static_shared,
            max_threads_per_block=max_threads,
            detail=f"{self.target(device).arch}, {registers} registers",
            native=(function, LaunchArguments(params, _LAUNCH_PARAMS), limits),
        )

    def _function_attribute(self, function: ctypes.c_void_p, attribute: int) -> int:
        return int(self._out("hipFuncGetAttribute", ctypes.c_int, attribute, function))

    def _global(self, handle: int, symbol: str) -> tuple[int, int] | None:
        ptr, size = ctypes.c_void_p(), ctypes.c_size_t()
        err = self._rocm.hip.hipModuleGetGlobal(
            ctypes.byref(ptr), ctypes.byref(size), handle, symbol.encode()
        )
        return None if err else (int(ptr.value or 0), size.value)

    def set_max_dynamic_shared(self, device, function, nbytes) -> None:
        """AMD GPUs need no opt-in for large dynamic shared memory (LDS): a
        launch may use what the device has beside the kernel's static LDS."""
        limit = self.properties(device).sharedMemPerBlock - function.static_shared_bytes
        if not 0 <= nbytes <= limit:
            raise HipError(
                hipError_t.hipErrorInvalidValue,
                f"{function.name}: {nbytes} bytes of dynamic shared memory; the device has {limit} "
                f"beside the kernel's {function.static_shared_bytes} static bytes",
            )

    def launch(self, device, function, grid, block, shared_mem, stream, args) -> None:
        key = getattr(self._tls, "key", None)
        if key is None or key[0] != device or key[1] != self._generations[device]:
            self._use(device)
        hip_function, arguments, limits = function.native
        if not limits.allow(grid, block, shared_mem):
            raise HipError(
                hipError_t.hipErrorInvalidConfiguration,
                f"launching {function.name} on grid {grid}, block {block} with {shared_mem} bytes of "
                f"dynamic shared memory: the kernel takes up to {limits.threads} threads a block "
                f"(at most {limits.block}), grids up to {limits.grid}, {limits.shared} bytes",
            )
        gx, gy, gz = grid
        bx, by, bz = block
        extra, extra_address = arguments.extra(args) if args else (None, 0)  # held during the call
        err = self._rocm.hip.hipModuleLaunchKernel(
            hip_function, gx, gy, gz, bx, by, bz, shared_mem, stream, None, extra_address
        )
        if not err and self._blocking:
            err = self._rocm.hip.hipStreamSynchronize(stream)
            if err:
                raise self._rocm.error(err, f"kernel {function.name}")
        if (
            err == hipError_t.hipErrorInvalidValue
        ):  # a configuration HIP refuses that hipkit's limits let through
            raise HipError(
                hipError_t.hipErrorInvalidConfiguration,
                f"launching {function.name} on grid {grid}, block {block}",
            )
        if err:
            raise self._rocm.error(err, f"launching {function.name} on grid {grid}, block {block}")


def _code_object(image: bytes, arch: str) -> bytes:
    """The code object for ``arch`` in a code object or offload bundle made
    elsewhere.  HipError(hipErrorInvalidImage) for data that is neither."""
    entries = bundle_entries(image)
    if entries:
        mine = [e for e in entries if e.triple.rsplit("--", 1)[-1].split(":")[0] == arch]
        if not mine:
            targets = ", ".join(e.triple for e in entries)
            raise HipError(
                hipError_t.hipErrorNoBinaryForGpu,
                f"the offload bundle has no code object for {arch} (it has {targets})",
            )
        return mine[0].data
    if image[:4] != b"\x7fELF":
        raise HipError(
            hipError_t.hipErrorInvalidImage, "not a code object, offload bundle or hipkit AMD module"
        )
    return image
