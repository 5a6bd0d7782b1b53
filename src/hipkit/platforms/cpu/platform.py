"""The CPU platform: HIP kernels compiled to native code, run on all cores.

The runtime is libhipkit_cpu (C++, built on first use and cached by :mod:`._lib`),
the same library whole HIP programs link against; this module is its Python face,
with its activity records read by :mod:`.activity`.
"""

from __future__ import annotations

import ctypes
import os
import platform as _platform
import threading
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path

from ... import __version__, config
from ..._errors import HipError, hipError_t
from ..base.platform import (
    ActivityBatch,
    DeviceProperties,
    FunctionInfo,
    Param,
    Platform,
    PlatformUnavailable,
    Target,
    kDLCPU,
    visible_indices,
)
from . import _lib
from . import isa as _isa
from .activity import Activity
from .compiler import Binary, compile_source, module_file, private_copy

# A launch's answer asking for the records to be read soon (HK_ACTIVITY_READ_SOON).
_READ_SOON = 0x48500001

_MODES = ("loop", "split", "fiber")
# The vector extensions worth knowing about, as /proc/cpuinfo names them (x86, Arm).
_SIMD_FEATURES = (
    "sse4_2 avx avx2 fma f16c avx512f avx512bw avx512vl avx512_bf16 avx512_fp16 amx_tile "
    "asimd asimdhp sve sve2"
).split()


@cache
def _cpu_flags() -> frozenset[str]:
    """The first processor's feature flags in /proc/cpuinfo (empty where unreadable)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


_Dim3 = ctypes.c_uint32 * 3


@lru_cache(maxsize=1024)
def _dim3(dims: tuple[int, int, int]) -> ctypes.Array:
    """A grid or block as the C array a launch reads (and never keeps), made
    once per shape: building two arrays was a quarter of a launch's cost."""
    return _Dim3(*dims)


class CpuPlatform(Platform):
    """The CPU as HIPKIT_CPU_DEVICES HIP devices (one by default) sharing the
    cores and memory (warp size 64, or HIPKIT_CPU_WARP_SIZE)."""

    name = "cpu"
    dlpack_device_type = kDLCPU

    def __init__(self) -> None:
        try:
            self._lib = _lib.load()
        except (OSError, RuntimeError) as exc:
            raise PlatformUnavailable(f"the CPU runtime could not be built: {exc}") from exc
        settings = ("HIPKIT_CPU_WARP_SIZE", "HIPKIT_CPU_THREADS", "HIPKIT_CPU_DEVICES")
        warp_size, threads, self._count = (config.get(name) for name in settings)
        self._call(self._lib.hkrt_init(warp_size, threads, self._count))
        self._generations = [self._lib.hkrt_reset_generation(d) for d in range(self._count)]
        self._infos: dict[int, _lib.DeviceInfo] = {}
        # Reentrant: garbage collection may unload a module (a finalizer) in
        # the middle of load_module.
        self._modules_lock = threading.RLock()
        self._loaded: dict[int, tuple[int, Path]] = {}  # module handle -> (its device, the file loaded)
        self._activity = Activity(self._lib, self._call)
        self._read_soon: Callable[[], None] | None = None  # activity_notify's reader

    def _call(self, code: int) -> None:
        if code != 0:
            detail = self._lib.hkrt_last_error_detail()
            raise HipError(code, detail.decode(errors="replace") if detail else "")

    def _check_device(self, device: int) -> None:
        if not 0 <= device < self._count:
            raise HipError(
                hipError_t.hipErrorInvalidDevice,
                f"no CPU device {device}: HIPKIT_CPU_DEVICES makes {self._count}",
            )

    # ------------------------------------------------------------------ devices

    def device_count(self) -> int:
        return self._count

    def visible_devices(self) -> list[int]:
        """The devices HIP_VISIBLE_DEVICES shows, by HIP's rule (read raw: the
        registry takes a blank value for unset, and an empty list hides them);
        the vendors' variables leave them alone."""
        return visible_indices(os.environ.get("HIP_VISIBLE_DEVICES"), self._count)

    def _info(self, device: int) -> _lib.DeviceInfo:
        if device not in self._infos:
            info = _lib.DeviceInfo()
            self._call(self._lib.hkrt_get_device_info(device, ctypes.byref(info)))
            self._infos[device] = info
        return self._infos[device]

    def properties(self, device: int) -> DeviceProperties:
        self._check_device(device)
        i = self._info(device)
        return DeviceProperties(
            name=i.name.decode(errors="replace"),
            gcnArchName=i.arch.decode(),
            platform=self.name,
            totalGlobalMem=i.total_global_mem,
            sharedMemPerBlock=i.shared_mem_per_block,
            warpSize=i.warp_size,
            maxThreadsPerBlock=i.max_threads_per_block,
            maxThreadsDim=tuple(i.max_threads_dim),
            maxGridSize=tuple(i.max_grid_size),
            multiProcessorCount=i.multiprocessor_count,
            clockRate=i.clock_rate_khz,
            l2CacheSize=i.l2_cache_size,
            totalConstMem=i.total_const_mem,
            regsPerBlock=i.regs_per_block,
            major=i.compute_capability[0],
            minor=i.compute_capability[1],
            maxSharedMemoryPerMultiProcessor=i.shared_mem_per_block,
        )

    def isa(self, device: int) -> str:
        self._check_device(device)
        features = [f for f in _SIMD_FEATURES if f in _cpu_flags()]
        target = f"{_platform.machine()}-linux-gnu, -march={_isa.target()}"
        if _isa.target() != "native":
            target += " (HIPKIT_CPU_ISA)"
        levels = _isa.executable_levels()
        if levels:
            target += f", executes {levels[-1]}"
        return f"{target} ({' '.join(features)})" if features else target

    def versions(self) -> dict[str, str]:
        compiler = _lib.compiler_version().splitlines()
        return {"C++ compiler": compiler[0] if compiler else "unknown", "hipkit CPU runtime": __version__}

    def target(self, device: int) -> Target:
        self._check_device(device)
        return Target("cpu", _platform.machine(), self._info(device).warp_size)

    # ------------------------------------------------------------------ memory

    def malloc(self, device: int, nbytes: int) -> int:
        ptr = ctypes.c_void_p()
        self._call(self._lib.hkrt_malloc(device, ctypes.byref(ptr), nbytes))
        return ptr.value or 0

    def free(self, device: int, ptr: int) -> None:
        self._call(self._lib.hkrt_free(ptr))

    def host_malloc(self, nbytes: int) -> int:
        # No device's (-1): no reset frees it, so a NumPy array viewing it never dangles.
        ptr = ctypes.c_void_p()
        self._call(self._lib.hkrt_host_malloc(-1, ctypes.byref(ptr), nbytes))
        return ptr.value or 0

    def host_free(self, ptr: int) -> None:
        self._call(self._lib.hkrt_host_free(ptr))

    def mem_info(self, device: int) -> tuple[int, int]:
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self._call(self._lib.hkrt_mem_get_info(device, ctypes.byref(free), ctypes.byref(total)))
        return free.value, total.value

    def memcpy(self, device, dst, src, nbytes, kind, stream, asynchronous) -> None:
        self._call(self._lib.hkrt_memcpy(device, dst, src, nbytes, kind, stream or None, int(asynchronous)))

    def memset(self, device, dst, value, count, elem_size, stream, asynchronous) -> None:
        stream = stream or None
        self._call(self._lib.hkrt_memset(device, dst, value, count, elem_size, stream, int(asynchronous)))

    # ------------------------------------------------------------------ streams, events

    def stream_create(self, device: int, non_blocking: bool) -> int:
        handle = ctypes.c_void_p()
        self._call(self._lib.hkrt_stream_create(device, ctypes.byref(handle), 1 if non_blocking else 0))
        return handle.value or 0

    def stream_destroy(self, device, stream) -> None:
        self._call(self._lib.hkrt_stream_destroy(stream))

    def stream_synchronize(self, device, stream) -> None:
        self._call(self._lib.hkrt_stream_synchronize(device, stream or None))

    def stream_query(self, device, stream) -> bool:
        code = self._lib.hkrt_stream_query(device, stream or None)
        if code == hipError_t.hipErrorNotReady:
            return False
        self._call(code)
        return True

    def stream_wait_event(self, device, stream, event) -> None:
        self._call(self._lib.hkrt_stream_wait_event(device, stream or None, event, 0))

    def stream_begin_capture(self, device, stream, mode) -> None:
        self._call(self._lib.hkrt_stream_begin_capture(device, stream or None, mode))

    def stream_end_capture(self, device, stream) -> int:
        graph = ctypes.c_void_p()
        self._call(self._lib.hkrt_stream_end_capture(device, stream or None, ctypes.byref(graph)))
        return graph.value or 0

    def graph_instantiate(self, device, graph) -> int:
        graph_exec = ctypes.c_void_p()
        self._call(self._lib.hkrt_graph_instantiate(ctypes.byref(graph_exec), graph, 0))
        return graph_exec.value or 0

    def graph_launch(self, device, graph_exec, stream) -> None:
        self._call(self._lib.hkrt_graph_launch(device, graph_exec, stream or None))

    def graph_exec_destroy(self, device, graph_exec) -> None:
        self._call(self._lib.hkrt_graph_exec_destroy(graph_exec))

    def graph_destroy(self, device, graph) -> None:
        self._call(self._lib.hkrt_graph_destroy(graph))

    def event_create(self, device, timing, blocking) -> int:
        handle = ctypes.c_void_p()
        flags = (0 if timing else 0x2) | (0x1 if blocking else 0)
        self._call(self._lib.hkrt_event_create(device, ctypes.byref(handle), flags))
        return handle.value or 0

    def event_destroy(self, device, event) -> None:
        self._call(self._lib.hkrt_event_destroy(event))

    def event_record(self, device, event, stream) -> None:
        self._call(self._lib.hkrt_event_record(device, event, stream or None))

    def event_synchronize(self, device, event) -> None:
        self._call(self._lib.hkrt_event_synchronize(event))

    def event_query(self, device, event) -> bool:
        code = self._lib.hkrt_event_query(event)
        if code == hipError_t.hipErrorNotReady:
            return False
        self._call(code)
        return True

    def event_elapsed(self, device, start, stop) -> float:
        ms = ctypes.c_float()
        self._call(self._lib.hkrt_event_elapsed_time(ctypes.byref(ms), start, stop))
        return ms.value

    def synchronize(self, device: int) -> None:
        self._call(self._lib.hkrt_device_synchronize(device))

    def reset(self, device: int) -> None:
        self._check_device(device)
        try:
            self._call(self._lib.hkrt_device_reset(device))
        finally:
            self._generations[device] = self._lib.hkrt_reset_generation(device)
            with self._modules_lock:
                for handle in [h for h, (d, _) in self._loaded.items() if d == device]:
                    del self._loaded[handle]

    def reset_generation(self, device: int) -> int:
        # Checked for every launch argument, so a plain list rather than a C
        # call; every reset of this process's runtime goes through reset().
        return self._generations[device]

    # ------------------------------------------------------------------ several devices

    def can_access_peer(self, device: int, peer: int) -> bool:
        can = ctypes.c_int()
        self._call(self._lib.hkrt_device_can_access_peer(ctypes.byref(can), device, peer))
        return bool(can.value)

    def enable_peer_access(self, device: int, peer: int) -> None:
        self._call(self._lib.hkrt_device_enable_peer_access(device, peer, 0))

    def disable_peer_access(self, device: int, peer: int) -> None:
        self._call(self._lib.hkrt_device_disable_peer_access(device, peer))

    def memcpy_peer(self, dst_device, dst, src_device, src, nbytes, stream, asynchronous) -> None:
        # A null stream is the destination's (base.Platform.memcpy_peer).
        args = (dst, dst_device, src, src_device, nbytes, dst_device, stream or None, int(asynchronous))
        self._call(self._lib.hkrt_memcpy_peer(*args))

    # ------------------------------------------------------------------ code

    @staticmethod
    def parse_target(text: str) -> Target | None:
        if text in ("cpu", _platform.machine()):
            return Target("cpu", _platform.machine(), config.get("HIPKIT_CPU_WARP_SIZE"))
        return None

    @staticmethod
    def compile(source, target, *, name, options, name_expressions, headers) -> Binary:
        if target.platform != "cpu":
            raise ValueError(f"the CPU platform cannot compile for {target}")
        return compile_source(
            source,
            name=name,
            options=options,
            name_expressions=name_expressions,
            headers=headers,
            warp_size=target.warp_size,
        )

    @staticmethod
    def binary_bytes(binary: Binary) -> bytes:
        return binary.path.read_bytes()

    def load_module(self, device: int, binary: Binary | bytes) -> int:
        path = binary.path if isinstance(binary, Binary) else module_file(bytes(binary))
        _isa.check_module(path)
        handle = ctypes.c_void_p()
        with self._modules_lock:
            if any(loaded == path for _, loaded in self._loaded.values()):
                # dlopen of a loaded file returns the same instance; each
                # loaded module needs its own __device__ globals (as in HIP).
                with private_copy(path) as copy:
                    self._call(self._lib.hkrt_module_load(device, str(copy).encode(), ctypes.byref(handle)))
            else:
                self._call(self._lib.hkrt_module_load(device, str(path).encode(), ctypes.byref(handle)))
            self._loaded[handle.value or 0] = (device, path)
        return handle.value or 0

    def unload_module(self, device, module) -> None:
        with self._modules_lock:
            self._loaded.pop(module, None)
        self._call(self._lib.hkrt_module_unload(module))

    def get_function(self, device, module, name) -> FunctionInfo:
        desc = ctypes.c_void_p()
        self._call(self._lib.hkrt_module_get_function(module, name.encode(), ctypes.byref(desc)))
        kernel = ctypes.cast(desc, ctypes.POINTER(_lib.KernelDesc)).contents
        attrs = _lib.FunctionAttributes()
        self._call(self._lib.hkrt_function_get_attributes(desc, ctypes.byref(attrs)))
        if attrs.activity_name:
            self._activity.name(attrs.activity_name, name)
        params = tuple(
            Param(kernel.params[i].size, kernel.params[i].align, kernel.params[i].kind)
            for i in range(kernel.num_params)
        )
        return FunctionInfo(
            handle=desc.value or 0,
            name=name,
            params=params,
            static_shared_bytes=attrs.static_shared_bytes,
            max_threads_per_block=attrs.max_threads_per_block or 1024,
            detail=f"{_MODES[attrs.mode]} execution",
        )

    def get_global(self, device, module, name) -> tuple[int, int]:
        ptr, size = ctypes.c_void_p(), ctypes.c_size_t()
        self._call(
            self._lib.hkrt_module_get_global(module, name.encode(), ctypes.byref(ptr), ctypes.byref(size))
        )
        return ptr.value or 0, size.value

    def set_max_dynamic_shared(self, device, function, nbytes) -> None:
        limit = self._info(device).shared_mem_per_block - function.static_shared_bytes
        if not 0 <= nbytes <= limit:
            raise HipError(
                hipError_t.hipErrorInvalidValue,
                f"{function.name} can have at most {limit} bytes of dynamic shared memory",
            )

    def launch(self, device, function, grid, block, shared_mem, stream, args) -> None:
        code = self._lib.hkrt_launch_packed(
            device, function.handle, _dim3(grid), _dim3(block), shared_mem, stream or None, args, len(args)
        )
        if code:
            if code == _READ_SOON and self._read_soon is not None:
                self._read_soon()
            elif code != _READ_SOON:
                self._call(code)

    def launch_cooperative(self, device, function, grid, block, shared_mem, stream, args) -> None:
        code = self._lib.hkrt_launch_cooperative(
            device,
            function.handle,
            _dim3(grid),
            _dim3(block),
            shared_mem,
            stream or None,
            None,
            args,
            len(args),
        )
        if code and code != _READ_SOON:
            self._call(code)
        elif code == _READ_SOON and self._read_soon is not None:
            self._read_soon()

    # ------------------------------------------------------------------ activity

    def activity_start(self) -> bool:
        self._activity.start()
        return True

    def activity_read(self) -> ActivityBatch:
        return self._activity.read()

    def activity_correlate(self, correlation_id: int) -> None:
        self._lib.hk_activity_set_correlation(correlation_id)

    def activity_notify(self, waiting: int, read: Callable[[], None]) -> None:
        self._read_soon = read
        self._call(self._lib.hk_activity_notify(waiting))

    def activity_stop(self) -> None:
        self._read_soon = None
        self._call(self._lib.hk_activity_notify(0))
        self._call(self._lib.hk_activity_enable(0))
