"""The NVIDIA platform: HIP kernels through NVRTC, run by the CUDA driver API.

Built on NVIDIA's own bindings (``cuda.bindings``, from ``pip install
'hipkit[nvidia]'``).  Each device's primary context is used, as the CUDA
runtime, PyTorch and CuPy do, so memory and streams are shared with them.
CUDA's errors come back as HIP's codes (:mod:`.driver`).
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from ... import config
from ..._errors import HipError, hipError_t
from .._gpu.platform import GpuPlatform, LaunchArguments, kernel_index
from ..base.platform import (
    PARAM_OTHER,
    PARAM_POINTER,
    ActivityBatch,
    DeviceProperties,
    FunctionInfo,
    Param,
    PlatformUnavailable,
    Target,
    kDLCUDA,
)
from . import activity, compiler, driver
from .activity import Activity
from .compiler import Binary, looks_like_image
from .cupti_buffers import COPY, SET
from .driver import describe, hip_code
from .graphs import Graphs
from .launches import CU_LAUNCH_PARAMS, Launches

_STICKY = frozenset({700, 710, 719})  # illegal address, assert, launch failure
log = logging.getLogger("hipkit")

_CU_MEMHOSTALLOC_PORTABLE = 1
_STACK_BYTES = 4096  # per thread


class NvidiaPlatform(Graphs, Launches, GpuPlatform):
    """NVIDIA GPUs through the CUDA driver; kernels compiled by NVRTC."""

    name = "nvidia"
    binary_class = Binary
    dlpack_device_type = kDLCUDA
    cuda_array_interface = True
    recovers_from_sticky_errors = False  # CUDA: "the process must be terminated and relaunched"
    _activity: Activity | None = None  # CUPTI's records while the profiler runs

    def __init__(self) -> None:
        reason = compiler.unavailable_reason()
        if reason:
            raise PlatformUnavailable(reason)
        self._cu = cu = driver.load()
        count = self._get(cu.cuDeviceGetCount())
        if count == 0:
            raise PlatformUnavailable("no NVIDIA GPU is visible (CUDA_VISIBLE_DEVICES may hide them)")
        super().__init__(count)
        self._devices = [self._get(cu.cuDeviceGet(i)) for i in range(count)]
        self._contexts: list[Any] = [None] * count
        # For the profiler's CUPTI records: each kernel symbol looked up -> the name it was
        # looked up by, and the streams made here (CUPTI names streams by ids of its own).
        self._symbols: dict[str, str] = {}
        self._streams: dict[int, set[int]] = {}  # device -> stream handles

    # ------------------------------------------------------------------ errors, contexts

    def _error(self, err, what: str = "") -> HipError:
        detail = describe(self._cu, err)
        return HipError(hip_code(int(err)), f"{what}: {detail}" if what else detail)

    def _get(self, result):
        """The value of a cuda.bindings call's (error, value...) result, or HipError."""
        if result[0]:
            raise self._error(result[0])
        return result[1] if len(result) == 2 else result[1:]

    def _check(self, result, what: str = "") -> None:
        if result[0]:
            raise self._error(result[0], what)

    def _ready(self, result) -> bool:
        """A query's answer: False while work is pending (CUDA_ERROR_NOT_READY)."""
        if result[0] == self._cu.CUresult.CUDA_ERROR_NOT_READY:
            return False
        self._check(result)
        return True

    def _context(self, device: int):
        if not 0 <= device < len(self._devices):
            raise HipError(
                hipError_t.hipErrorInvalidDevice, f"no NVIDIA device {device}; {len(self._devices)} visible"
            )
        ctx = self._contexts[device]
        if ctx is None:
            with self._lock:
                if self._contexts[device] is None:
                    ctx = self._get(self._cu.cuDevicePrimaryCtxRetain(self._devices[device]))
                    self._contexts[device] = ctx  # held once, even if what follows fails
                    self._tls.key = None
                    # HIP's stacks are deeper than CUDA's 1 KiB default: recursive device code
                    # that runs on AMD GPUs and the CPU must not fault here.
                    self._check(self._cu.cuCtxSetCurrent(ctx))
                    self._check(self._cu.cuCtxSetLimit(self._cu.CUlimit.CU_LIMIT_STACK_SIZE, _STACK_BYTES))
                ctx = self._contexts[device]
        return ctx

    def native_context(self, device: int) -> int:
        return int(self._context(device))

    def _use(self, device: int) -> None:
        """Make ``device``'s primary context current in this thread (once per change)."""
        key = (device, self._generations[device] if 0 <= device < len(self._generations) else -1)
        if getattr(self._tls, "key", None) != key:
            self._check(self._cu.cuCtxSetCurrent(self._context(device)))
            self._tls.key = key

    # ------------------------------------------------------------------ devices

    def device_count(self) -> int:
        return len(self._devices)

    def visible_devices(self) -> list[int]:
        """The GPUs CUDA_VISIBLE_DEVICES left (the driver applied it), those of them
        HIP_VISIBLE_DEVICES lists, in its order, when it is set."""
        count = self.device_count()
        chosen = config.get("HIP_VISIBLE_DEVICES")
        return [i for i in chosen if 0 <= i < count] if chosen else list(range(count))

    def _attribute(self, device: int, name: str) -> int:
        attribute = getattr(self._cu.CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + name)
        return int(self._get(self._cu.cuDeviceGetAttribute(attribute, self._devices[device])))

    @cache  # noqa: B019 - one platform object per process; properties never change
    def properties(self, device: int) -> DeviceProperties:
        self._context(device)  # checks the index
        a = self._attribute
        dev = self._devices[device]
        name = self._get(self._cu.cuDeviceGetName(256, dev)).split(b"\0", 1)[0].decode(errors="replace")
        major, minor = a(device, "COMPUTE_CAPABILITY_MAJOR"), a(device, "COMPUTE_CAPABILITY_MINOR")
        return DeviceProperties(
            name=name,
            gcnArchName=f"sm_{major}{minor}",
            platform=self.name,
            totalGlobalMem=int(self._get(self._cu.cuDeviceTotalMem(dev))),
            sharedMemPerBlock=a(device, "MAX_SHARED_MEMORY_PER_BLOCK"),
            warpSize=a(device, "WARP_SIZE"),
            maxThreadsPerBlock=a(device, "MAX_THREADS_PER_BLOCK"),
            maxThreadsDim=(
                a(device, "MAX_BLOCK_DIM_X"),
                a(device, "MAX_BLOCK_DIM_Y"),
                a(device, "MAX_BLOCK_DIM_Z"),
            ),
            maxGridSize=(
                a(device, "MAX_GRID_DIM_X"),
                a(device, "MAX_GRID_DIM_Y"),
                a(device, "MAX_GRID_DIM_Z"),
            ),
            multiProcessorCount=a(device, "MULTIPROCESSOR_COUNT"),
            clockRate=a(device, "CLOCK_RATE"),
            l2CacheSize=a(device, "L2_CACHE_SIZE"),
            totalConstMem=a(device, "TOTAL_CONSTANT_MEMORY"),
            regsPerBlock=a(device, "MAX_REGISTERS_PER_BLOCK"),
            major=major,
            minor=minor,
            memoryClockRate=a(device, "MEMORY_CLOCK_RATE"),
            memoryBusWidth=a(device, "GLOBAL_MEMORY_BUS_WIDTH"),
            maxSharedMemoryPerMultiProcessor=a(device, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"),
            pciDomainID=a(device, "PCI_DOMAIN_ID"),
            pciBusID=a(device, "PCI_BUS_ID"),
            pciDeviceID=a(device, "PCI_DEVICE_ID"),
        )

    def isa(self, device: int) -> str:
        return f"nvptx64-nvidia-cuda--{self.properties(device).gcnArchName}"

    def versions(self) -> dict[str, str]:
        found = {}
        try:
            text = Path("/proc/driver/nvidia/version").read_text()
            match = re.search(r"Kernel Module.*?\s(\d+\.\d+(?:\.\d+)?)", text)
            if match:
                found["NVIDIA driver"] = match.group(1)
        except OSError:
            pass  # not Linux's driver: the CUDA version below still says what it supports
        cuda = int(self._get(self._cu.cuDriverGetVersion()))
        found["CUDA (driver API)"] = f"{cuda // 1000}.{cuda % 1000 // 10}"
        try:
            found["NVRTC"] = ".".join(map(str, compiler.nvrtc_version()))
        except RuntimeError as exc:
            found["NVRTC"] = f"absent: {exc}"
        found["cuda-bindings"] = importlib.metadata.version("cuda-bindings")
        return found

    def target(self, device: int) -> Target:
        props = self.properties(device)
        return Target(self.name, props.gcnArchName, props.warpSize)

    # ------------------------------------------------------------------ memory

    def malloc(self, device: int, nbytes: int) -> int:
        self._use(device)
        return int(self._get(self._cu.cuMemAlloc(nbytes)))

    def free(self, device: int, ptr: int) -> None:
        self._use(device)
        self._check(self._cu.cuMemFree(ptr))

    def host_malloc(self, nbytes: int) -> int:
        self._use(0)
        return int(self._get(self._cu.cuMemHostAlloc(nbytes, _CU_MEMHOSTALLOC_PORTABLE)))

    def host_free(self, ptr: int) -> None:
        self._use(0)
        self._check(self._cu.cuMemFreeHost(ptr))

    def mem_info(self, device: int) -> tuple[int, int]:
        self._use(device)
        free, total = self._get(self._cu.cuMemGetInfo())
        return int(free), int(total)

    def memcpy(self, device, dst, src, nbytes, kind, stream, asynchronous) -> None:
        # Unified addressing: the driver knows each pointer's side, as with hipMemcpyDefault.
        self._use(device)
        if asynchronous or stream:
            self._check(self._cu.cuMemcpyAsync(dst, src, nbytes, stream))
            if not asynchronous:
                self._check(self._cu.cuStreamSynchronize(stream))
        else:
            self._check(self._cu.cuMemcpy(dst, src, nbytes))
        if self._activity is not None and nbytes:
            self._activity.enqueued(device, stream, COPY, nbytes)

    def memset(self, device, dst, value, count, elem_size, stream, asynchronous) -> None:
        names = {1: "cuMemsetD8", 2: "cuMemsetD16", 4: "cuMemsetD32"}
        if elem_size not in names:
            raise HipError(hipError_t.hipErrorInvalidValue, f"memset of {elem_size}-byte elements")
        self._use(device)
        if asynchronous or stream:
            self._check(getattr(self._cu, names[elem_size] + "Async")(dst, value, count, stream))
            if not asynchronous:
                self._check(self._cu.cuStreamSynchronize(stream))
        else:
            self._check(getattr(self._cu, names[elem_size])(dst, value, count))
        if self._activity is not None and count:
            self._activity.enqueued(device, stream, SET, count * elem_size)

    # ------------------------------------------------------------------ streams, events

    def stream_create(self, device: int, non_blocking: bool) -> int:
        self._use(device)
        stream = int(self._get(self._cu.cuStreamCreate(1 if non_blocking else 0)))
        self._streams.setdefault(device, set()).add(stream)
        return stream

    def stream_destroy(self, device, stream) -> None:
        self._use(device)
        self._check(self._cu.cuStreamDestroy(stream))
        self._streams.get(device, set()).discard(stream)
        if self._activity is not None:
            self._activity.forget_stream(device, stream)

    def stream_synchronize(self, device, stream) -> None:
        self._use(device)
        self._check(self._cu.cuStreamSynchronize(stream))

    def stream_query(self, device, stream) -> bool:
        self._use(device)
        return self._ready(self._cu.cuStreamQuery(stream))

    def stream_wait_event(self, device, stream, event) -> None:
        self._use(device)
        self._check(self._cu.cuStreamWaitEvent(stream, event, 0))

    def event_create(self, device, timing, blocking) -> int:
        self._use(device)
        flags = (0 if timing else 0x2) | (0x1 if blocking else 0)  # HIP's and CUDA's event flags agree
        return int(self._get(self._cu.cuEventCreate(flags)))

    def event_destroy(self, device, event) -> None:
        self._use(device)
        self._check(self._cu.cuEventDestroy(event))

    def event_record(self, device, event, stream) -> None:
        self._use(device)
        self._check(self._cu.cuEventRecord(event, stream))

    def event_synchronize(self, device, event) -> None:
        self._use(device)
        self._check(self._cu.cuEventSynchronize(event))

    def event_query(self, device, event) -> bool:
        self._use(device)
        return self._ready(self._cu.cuEventQuery(event))

    def event_elapsed(self, device, start, stop) -> float:
        self._use(device)
        return float(self._get(self._cu.cuEventElapsedTime(start, stop)))

    def synchronize(self, device: int) -> None:
        self._use(device)
        self._check(self._cu.cuCtxSynchronize())

    def reset(self, device: int) -> None:
        """hipDeviceReset: the primary context is reset, which frees everything;
        handles from before are stale.  Unlike HIP on AMD GPUs and the CPU, CUDA
        cannot clear a sticky error (a kernel fault or failed assert) in a
        running process: the reset then raises that error, saying so."""
        self._context(device)
        with self._lock:
            try:
                self._check(self._cu.cuCtxSetCurrent(None))
                (err,) = self._cu.cuDevicePrimaryCtxReset(self._devices[device])
                if err and hip_code(int(err)) not in _STICKY:
                    raise self._error(err, "device reset")
            finally:
                # With our hold released, the next use retains a new context.
                self._cu.cuDevicePrimaryCtxRelease(self._devices[device])
                self._contexts[device] = None
                self._tls.key = None
                self._generations[device] += 1
                self._modules = {h: m for h, m in self._modules.items() if m.device != device}
                self._streams.pop(device, None)  # the reset destroyed them
                if self._activity is not None:
                    self._activity.forget_device(device)
        try:
            self._use(device)
            self._check(self._cu.cuCtxSynchronize())
        except HipError as error:
            raise HipError(
                int(error.code),
                "CUDA cannot clear this error in a running process: restart the process to use "
                f"NVIDIA device {device} again ({error.detail})",
            ) from None

    # ------------------------------------------------------------------ the profiler's timestamps

    def activity_start(self) -> bool:
        """CUPTI's activity records, when cupti-python is installed (the
        ``nvidia`` extra); otherwise the profiler times with events."""
        if self._activity is None:
            reason = activity.unavailable_reason()
            if reason:
                log.info("hipkit: profiling with CUDA events: %s", reason)
                return False
            try:
                self._activity = Activity(self._context, self._streams, self._symbols)
            except Exception as exc:  # CUPTI refuses (another profiler attached, no permission)
                log.warning("hipkit: profiling with CUDA events: CUPTI: %s", exc)
                return False
        return True

    def activity_read(self) -> ActivityBatch:
        if self._activity is None:
            return super().activity_read()
        return ActivityBatch(*self._activity.read())

    def activity_correlate(self, correlation_id: int) -> None:
        if self._activity is not None:
            self._activity.correlate(correlation_id)

    def activity_notify(self, waiting: int, read: Callable[[], None]) -> None:
        if self._activity is not None:
            self._activity.notify(waiting, read)

    def activity_stop(self) -> None:
        current, self._activity = self._activity, None
        if current is not None:
            current.stop()

    # ------------------------------------------------------------------ several devices

    def can_access_peer(self, device: int, peer: int) -> bool:
        self._context(device)
        self._context(peer)
        if device == peer:
            return False
        return bool(self._get(self._cu.cuDeviceCanAccessPeer(self._devices[device], self._devices[peer])))

    def enable_peer_access(self, device: int, peer: int) -> None:
        self._use(device)
        self._check(self._cu.cuCtxEnablePeerAccess(self._context(peer), 0), f"peer access {device} -> {peer}")

    def disable_peer_access(self, device: int, peer: int) -> None:
        self._use(device)
        self._check(self._cu.cuCtxDisablePeerAccess(self._context(peer)), f"peer access {device} -> {peer}")

    def memcpy_peer(self, dst_device, dst, src_device, src, nbytes, stream, asynchronous) -> None:
        self._use(dst_device)
        dst_ctx, src_ctx = self._context(dst_device), self._context(src_device)
        if asynchronous or stream:
            self._check(self._cu.cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, nbytes, stream))
            if not asynchronous:
                self._check(self._cu.cuStreamSynchronize(stream))
        else:
            self._check(self._cu.cuMemcpyPeer(dst, dst_ctx, src, src_ctx, nbytes))

    # ------------------------------------------------------------------ code

    parse_target = staticmethod(compiler.parse_arch)
    compile = staticmethod(compiler.compile_source)

    def load_module(self, device: int, binary: Binary | bytes) -> int:
        """Load a module from compile(), its bytes, or a cubin, fatbin or PTX image
        made elsewhere (whose kernels take pointers and raw bytes: see get_function)."""
        given = self._binary(binary)
        if isinstance(given, bytes):
            image, kernels = given, {}
        elif given.target != self.target(device):
            raise HipError(
                hipError_t.hipErrorNoBinaryForGpu,
                f"module compiled for {given.target}, device {device} is {self.target(device)}",
            )
        else:
            image, kernels = given.image, kernel_index(given.kernels)
        if not looks_like_image(image):
            raise HipError(hipError_t.hipErrorInvalidImage, "not a cubin, fatbin or PTX image")
        self._use(device)
        return self._loaded(device, self._get(self._cu.cuModuleLoadData(image)), image, kernels)

    def _unload(self, handle) -> None:
        self._check(self._cu.cuModuleUnload(handle))

    def get_function(self, device, module, name) -> FunctionInfo:
        self._use(device)
        log.debug("NVIDIA kernel launches: %s", self.launch_path)
        loaded = self._module(module)
        entry = loaded.kernels.get(name)
        symbol = entry.symbol if entry else name
        err, function = self._cu.cuModuleGetFunction(loaded.handle, symbol.encode())
        if err:
            raise HipError(hipError_t.hipErrorNotFound, f"no kernel {name!r} in the module")
        params = entry.params if entry else self._param_info(function)
        self._symbols[symbol] = name
        registers = self._function_attribute(function, "NUM_REGS")
        return FunctionInfo(
            handle=int(function),
            name=name,
            params=params,
            static_shared_bytes=self._function_attribute(function, "SHARED_SIZE_BYTES"),
            max_threads_per_block=self._function_attribute(function, "MAX_THREADS_PER_BLOCK"),
            detail=f"{self.target(device).arch}, {registers} registers",
            native=(function, LaunchArguments(params, CU_LAUNCH_PARAMS)),
        )

    def _function_attribute(self, function, name: str) -> int:
        attribute = getattr(self._cu.CUfunction_attribute, "CU_FUNC_ATTRIBUTE_" + name)
        return int(self._get(self._cu.cuFuncGetAttribute(attribute, function)))

    def _param_info(self, function) -> tuple[Param, ...]:
        """Parameters of a kernel from an image hipkit did not compile: the driver
        knows only sizes, so 8-byte ones take pointers (or integers) and the
        rest raw bytes (NumPy scalars), as CuPy's RawKernel."""
        params: list[Param] = []
        while True:  # cuFuncGetParamCount is newer than the drivers hipkit supports
            err, _, size = self._cu.cuFuncGetParamInfo(function, len(params))
            if err:
                return tuple(params)
            size = int(size)
            align = next(a for a in (8, 4, 2, 1) if size % a == 0)
            params.append(Param(size, align, PARAM_POINTER if size == 8 else PARAM_OTHER))

    def _global(self, handle, symbol: str) -> tuple[int, int] | None:
        err, ptr, size = self._cu.cuModuleGetGlobal(handle, symbol.encode())
        return None if err else (int(ptr), int(size))

    def set_max_dynamic_shared(self, device, function, nbytes) -> None:
        self._use(device)
        attribute = self._cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        self._check(self._cu.cuFuncSetAttribute(function.native[0], attribute, nbytes), function.name)
