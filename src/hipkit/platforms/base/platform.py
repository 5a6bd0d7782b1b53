"""The platform interface (DESIGN.md, seam 2): what each platform provides.

A platform (cpu, nvidia, amd) is one module implementing :class:`Platform`:
devices and their properties; memory; streams and events; compiling source
for a target; loading modules; launching.  Everything above it — the pythonic
API, ``hipkit.hip``, the tools — is written once against this class.

Handles (pointers, streams, events, modules) are plain ints; 0 is the null
stream.  Every method raises :class:`hipkit.HipError` on failure.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ..._errors import HipError, hipError_t

# The device-library headers every platform shares (include/hipkit_portable):
# plain C++ over HIP's device API, included by each platform's own headers.
PORTABLE_INCLUDE_DIR = Path(__file__).parent.parent / "include"

# hipMemcpyKind
HOST_TO_HOST, HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE, DEFAULT = range(5)

# How a kernel parameter is passed (hipkit_cpu/abi.h: hk_param_kind).
PARAM_POINTER, PARAM_SIGNED, PARAM_UNSIGNED, PARAM_FLOAT, PARAM_OTHER = range(5)

# DLPack's DLDeviceType: where a platform's memory lives (Platform.dlpack_device_type).
kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLROCMHost, kDLCUDAManaged = 1, 2, 3, 10, 11, 13


_VISIBLE_ENTRY = re.compile(r"[ \t]*([0-9]{1,9})[ \t]*")


def visible_indices(value: str | None, count: int) -> list[int]:
    """The native indices of the devices that the device list ``value``
    (HIP_VISIBLE_DEVICES; None: unset) shows of ``count``, in its order.

    As CUDA and ROCm read a list, it ends at its first entry that names no
    device (not a decimal index below ``count``, or one listed before): ""
    and "-1" hide every device, "1,0" swaps two, "0,7,1" with two devices is
    device 0 alone.  The rule of programs built by hipkit cc for the CPU
    (hipkit_cpu/program_visible.h).

    >>> visible_indices("1,0", 2), visible_indices("", 2), visible_indices(None, 2)
    ([1, 0], [], [0, 1])
    """
    if value is None:
        return list(range(count))
    shown: list[int] = []
    for entry in value.split(","):
        match = _VISIBLE_ENTRY.fullmatch(entry)
        index = int(match.group(1)) if match else count
        if index >= count or index in shown:
            break
        shown.append(index)
    return shown


@dataclass(frozen=True)
class Target:
    """What compiling needs (seam 1): a platform, an architecture, a warp size."""

    platform: str  # "cpu", "nvidia" or "amd"
    arch: str  # "x86_64", "sm_90", "gfx90a"
    warp_size: int

    def __str__(self) -> str:
        return f"{self.platform}:{self.arch} (warp {self.warp_size})"


@dataclass(frozen=True)
class DeviceProperties:
    """hipDeviceProp_t's commonly read fields (HIP's names)."""

    name: str
    gcnArchName: str  # HIP's field names
    platform: str
    totalGlobalMem: int
    sharedMemPerBlock: int
    warpSize: int
    maxThreadsPerBlock: int
    maxThreadsDim: tuple[int, int, int]
    maxGridSize: tuple[int, int, int]
    multiProcessorCount: int
    clockRate: int  # kHz
    l2CacheSize: int
    totalConstMem: int
    regsPerBlock: int
    major: int
    minor: int
    memoryClockRate: int = 0  # kHz; 0 where not known
    memoryBusWidth: int = 0  # bits
    maxSharedMemoryPerMultiProcessor: int = 0
    pciDomainID: int = 0  # 0 for a device that is not on PCI (the CPU)
    pciBusID: int = 0
    pciDeviceID: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Param:
    size: int
    align: int
    kind: int  # PARAM_*


@dataclass(frozen=True)
class FunctionInfo:
    """A loaded kernel: its platform handle and what launching needs to know."""

    handle: int
    name: str
    params: tuple[Param, ...]
    static_shared_bytes: int
    max_threads_per_block: int
    detail: str = ""  # e.g. how the CPU runs it
    native: Any = None  # the platform's own objects for launching it


class Platform(ABC):
    """One platform's implementation of the runtime.  Subclasses are singletons
    made by :func:`hipkit.platforms.get`; their constructor raises
    :class:`PlatformUnavailable` with the reason when the platform cannot run."""

    name: ClassVar[str]
    dlpack_device_type: ClassVar[int]  # DLPack's DLDeviceType of the platform's device memory
    cuda_array_interface: ClassVar[bool] = False  # device memory exported by __cuda_array_interface__
    # Whether reset() clears a sticky error (a fault or failed assert in a kernel);
    # where not, the process must restart to use the device again (CUDA's rule).
    recovers_from_sticky_errors: ClassVar[bool] = True

    # -- devices
    @abstractmethod
    def device_count(self) -> int: ...

    def visible_devices(self) -> list[int]:
        """The native indices of the devices the visibility variables leave, in the
        order hipkit numbers them.  By default all: the platform's own runtime or
        driver has applied them (ROCm, CUDA_VISIBLE_DEVICES)."""
        return list(range(self.device_count()))

    @abstractmethod
    def properties(self, device: int) -> DeviceProperties: ...

    @abstractmethod
    def isa(self, device: int) -> str:
        """The instruction set the device's code is compiled for, named as
        rocminfo names an ISA (e.g. ``amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-``)."""

    @abstractmethod
    def versions(self) -> dict[str, str]:
        """The software the platform runs on (drivers, compilers, runtime
        libraries): name -> version."""

    @abstractmethod
    def target(self, device: int) -> Target: ...

    # -- memory
    @abstractmethod
    def malloc(self, device: int, nbytes: int) -> int: ...

    @abstractmethod
    def free(self, device: int, ptr: int) -> None: ...

    @abstractmethod
    def host_malloc(self, nbytes: int) -> int: ...

    @abstractmethod
    def host_free(self, ptr: int) -> None: ...

    @abstractmethod
    def mem_info(self, device: int) -> tuple[int, int]: ...

    @abstractmethod
    def memcpy(
        self, device: int, dst: int, src: int, nbytes: int, kind: int, stream: int, asynchronous: bool
    ) -> None: ...

    @abstractmethod
    def memset(
        self, device: int, dst: int, value: int, count: int, elem_size: int, stream: int, asynchronous: bool
    ) -> None: ...

    # -- streams and events
    @abstractmethod
    def stream_create(self, device: int, non_blocking: bool) -> int: ...

    @abstractmethod
    def stream_destroy(self, device: int, stream: int) -> None: ...

    @abstractmethod
    def stream_synchronize(self, device: int, stream: int) -> None: ...

    @abstractmethod
    def stream_query(self, device: int, stream: int) -> bool: ...

    @abstractmethod
    def stream_wait_event(self, device: int, stream: int, event: int) -> None: ...

    @abstractmethod
    def event_create(self, device: int, timing: bool, blocking: bool) -> int: ...

    @abstractmethod
    def event_destroy(self, device: int, event: int) -> None: ...

    @abstractmethod
    def event_record(self, device: int, event: int, stream: int) -> None: ...

    @abstractmethod
    def event_synchronize(self, device: int, event: int) -> None: ...

    @abstractmethod
    def event_query(self, device: int, event: int) -> bool: ...

    @abstractmethod
    def event_elapsed(self, device: int, start: int, stop: int) -> float: ...

    # -- graphs (stream capture; hipErrorNotSupported where a platform has none)
    def stream_begin_capture(self, device: int, stream: int, mode: int) -> None:
        """Start capturing ``stream``'s work (mode: hipStreamCaptureMode's number)."""
        raise HipError(hipError_t.hipErrorNotSupported, f"{self.name}: no graphs")

    def stream_end_capture(self, device: int, stream: int) -> int:
        """End the capture; the graph's handle."""
        raise HipError(hipError_t.hipErrorNotSupported, f"{self.name}: no graphs")

    def graph_instantiate(self, device: int, graph: int) -> int:
        raise HipError(hipError_t.hipErrorNotSupported, f"{self.name}: no graphs")

    def graph_launch(self, device: int, graph_exec: int, stream: int) -> None:
        raise HipError(hipError_t.hipErrorNotSupported, f"{self.name}: no graphs")

    def graph_exec_destroy(self, device: int, graph_exec: int) -> None:
        raise HipError(hipError_t.hipErrorNotSupported, f"{self.name}: no graphs")

    def graph_destroy(self, device: int, graph: int) -> None:
        raise HipError(hipError_t.hipErrorNotSupported, f"{self.name}: no graphs")

    @abstractmethod
    def synchronize(self, device: int) -> None: ...

    # -- several devices
    @abstractmethod
    def can_access_peer(self, device: int, peer: int) -> bool:
        """Whether kernels on ``device`` can use ``peer``'s memory (False for the same device)."""

    @abstractmethod
    def enable_peer_access(self, device: int, peer: int) -> None: ...

    @abstractmethod
    def disable_peer_access(self, device: int, peer: int) -> None: ...

    @abstractmethod
    def memcpy_peer(
        self,
        dst_device: int,
        dst: int,
        src_device: int,
        src: int,
        nbytes: int,
        stream: int,
        asynchronous: bool,
    ) -> None:
        """Copy between the memories of two devices (``stream`` is ``dst_device``'s)."""

    @abstractmethod
    def reset(self, device: int) -> None: ...

    @abstractmethod
    def reset_generation(self, device: int) -> int:
        """A number that changes whenever the device is reset (stale handles)."""

    # -- code (no device needed: static, usable where the platform cannot run)
    @staticmethod
    @abstractmethod
    def parse_target(text: str) -> Target | None:
        """The target a name like "sm_90" or "gfx90a" means, or None if not this platform's."""

    @staticmethod
    @abstractmethod
    def compile(
        source: str,
        target: Target,
        *,
        name: str,
        options: tuple[str, ...],
        name_expressions: tuple[str, ...],
        headers: dict[str, str],
    ) -> Any:
        """Compile for ``target``; returns a binary for load_module.
        ``headers`` maps include names to their text (hiprtc's in-memory headers)."""

    @staticmethod
    @abstractmethod
    def binary_bytes(binary: Any) -> bytes:
        """A compiled binary as bytes, for saving; load_module takes them back."""

    @abstractmethod
    def load_module(self, device: int, binary: Any) -> int:
        """Load a binary from compile(), or its bytes."""

    @abstractmethod
    def unload_module(self, device: int, module: int) -> None: ...

    @abstractmethod
    def get_function(self, device: int, module: int, name: str) -> FunctionInfo: ...

    @abstractmethod
    def get_global(self, device: int, module: int, name: str) -> tuple[int, int]: ...

    @abstractmethod
    def set_max_dynamic_shared(self, device: int, function: FunctionInfo, nbytes: int) -> None:
        """Let ``function`` launch with up to ``nbytes`` of dynamic shared memory
        (hipFuncAttributeMaxDynamicSharedMemorySize)."""

    @abstractmethod
    def launch(
        self,
        device: int,
        function: FunctionInfo,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_mem: int,
        stream: int,
        args: bytes,
    ) -> None: ...

    def launch_cooperative(
        self,
        device: int,
        function: FunctionInfo,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_mem: int,
        stream: int,
        args: bytes,
    ) -> None:
        """Launch as :meth:`launch` does, with every block of the grid running at once so
        that grid.sync() works (hipLaunchCooperativeKernel); a grid larger than can be
        co-resident is hipErrorCooperativeLaunchTooLarge.  By default the platform cannot."""
        from ..._errors import HipError, hipError_t

        raise HipError(hipError_t.hipErrorNotSupported, f"{self.name}: no cooperative launches")

    # -- libraries: the platform's own runtime state, for vendor libraries called on its behalf
    def make_current(self, device: int) -> None:  # noqa: B027 - a default: no state to set
        """Make ``device`` current in the calling thread for the platform's own runtime,
        as a vendor library called next expects (CUDA: the device's primary context;
        ROCm: ``hipSetDevice``).  By default nothing: the platform keeps no current device
        (the CPU runtime takes the device in every call)."""

    def native_context(self, device: int) -> int:
        """The handle of the context ``device``'s work runs in (CUDA's ``CUcontext``), for
        a library that takes one; 0 where the platform has none."""
        return 0

    # -- activity: the platform's own timestamps of device work (for the profiler)
    def activity_start(self) -> bool:
        """Start stamping this process's device work (launches, copies, memsets) with the
        platform's own start/end times, on the host's clock (time.perf_counter_ns, i.e.
        CLOCK_MONOTONIC), and describing each launch call in full (ActivityBatch.launches):
        the profiler then leaves launch() alone, so tracing adds nothing to its path.  False
        (the default): the platform cannot; the tracer falls back to timing events."""
        return False

    def activity_read(self) -> ActivityBatch:
        """The records of the device work that finished since the last read.  Callers
        synchronize the devices first when they need everything."""
        return ActivityBatch([], np.empty(0, LAUNCH_RECORD), ())

    def activity_correlate(self, correlation_id: int) -> None:  # noqa: B027 - a default: no ids
        """The launches this thread makes from now on carry ``correlation_id`` (0: none),
        the id of the API call making them."""

    def activity_notify(self, waiting: int, read: Callable[[], None]) -> None:  # noqa: B027
        """Have ``read`` called (on a launching thread or one of the platform's own) once
        ``waiting`` records wait unread, and again only after a read: a reader that is
        told keeps memory bounded without any work on the launch path."""

    def activity_stop(self) -> None:  # noqa: B027 - a default: nothing was started
        """Stop stamping (records not yet read are dropped)."""


class ActivityBatch(NamedTuple):
    """What :meth:`Platform.activity_read` gives.

    ``work``: tuples (thread_id, enqueue_ns, start_ns, end_ns), one per copy or
    memset that ran: thread_id is the native id (threading.get_native_id()) of the
    thread that enqueued it, enqueue_ns when it did (inside the platform call that
    enqueued it); the profiler matches them to its own entries of those calls.

    ``launches``: one :data:`LAUNCH_RECORD` per launch call, its ``name`` an index
    into ``names`` (the FunctionInfo.name it was launched by).  Work a vendor
    library (cuBLAS, NCCL, OpenBLAS...) put on a stream inside an API call is
    described the same way, with that call's correlation_id and the work's own
    name (a kernel's symbol; on the CPU, a host task's); a library's work
    outside any API call is not the profile's and is left out."""

    work: list[tuple]
    launches: np.ndarray
    names: Sequence[str]


# A launch call: call_ns when it entered the platform, return_ns when it had
# enqueued the kernel (or gave up); stream: the handle; status LAUNCH_RAN,
# LAUNCH_NEVER_RAN (start_ns and end_ns 0: dropped by a sticky error or a reset)
# or LAUNCH_REFUSED (the call failed with the hipError_t ``error``).
LAUNCH_RECORD = np.dtype(
    [
        ("thread_id", np.int64),
        ("call_ns", np.int64),
        ("return_ns", np.int64),
        ("start_ns", np.int64),
        ("end_ns", np.int64),
        ("device", np.int64),
        ("stream", np.int64),
        ("name", np.int64),
        ("grid", np.int64, 3),
        ("block", np.int64, 3),
        ("dynamic_shared", np.int64),
        ("static_shared", np.int64),
        ("status", np.int64),
        ("error", np.int64),
        ("correlation_id", np.int64),
    ]
)
LAUNCH_RAN, LAUNCH_NEVER_RAN, LAUNCH_REFUSED = 0, 1, 2


class PlatformUnavailable(Exception):
    """Raised by a platform's constructor: why it cannot be used here."""
