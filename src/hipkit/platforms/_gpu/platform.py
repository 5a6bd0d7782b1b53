"""The runtime side the NVIDIA and AMD platforms share: loaded modules with
their kernel tables, __device__ variables by name, handles made stale by a
reset, and how a launch passes its packed arguments to the driver."""

from __future__ import annotations

import ctypes
import struct
import threading
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any, ClassVar

from ... import config
from ..._errors import HipError, hipError_t
from ..base.platform import Param, Platform, PlatformUnavailable
from .compiled_launch import LaunchMarkers
from .compiler import GpuBinary, KernelEntry

# A launch passes the packed arguments where they are: the data of the bytes
# object the packer made, whose address is id() plus this offset in CPython.
# The driver copies the parameters during the launch call (cuLaunchKernel,
# hipModuleLaunchKernel), while the caller still holds the object, so no
# buffer, copy or lock is needed.
BYTES_DATA = bytes.__basicsize__ - 1
_BYTES_LAYOUT_KNOWN = ctypes.string_at(id(b"hipkit") + BYTES_DATA, 6) == b"hipkit"
_EXTRA = struct.Struct("=5Q")


class LaunchArguments:
    """How a kernel's packed arguments reach the driver: the launch call's
    ``extra``, {BUFFER_POINTER, the arguments, BUFFER_SIZE, &size, END}.  The
    size stays in memory with the kernel, as BUFFER_SIZE takes its address."""

    __slots__ = ("_size", "_size_address", "_buffer_pointer", "_buffer_size", "_end", "_offsets")

    def __init__(self, params: Iterable[Param], markers: LaunchMarkers):
        nbytes = 0
        self._offsets: list[int] = []
        for p in params:  # the C layout of the parameters, as the packer lays them out
            nbytes += -nbytes % max(p.align, 1)
            self._offsets.append(nbytes)
            nbytes += p.size
        self._size = ctypes.c_size_t(nbytes)
        self._size_address = ctypes.addressof(self._size)
        # Each in a slot of its own: this is on every launch's path.
        self._buffer_pointer, self._buffer_size, self._end = markers

    def extra(self, args: bytes) -> tuple[bytes, int]:
        """The ``extra`` array for a launch with the packed ``args`` (not empty:
        a kernel without arguments gets no ``extra``), and its address for the
        launch call, which holds both while the driver reads them."""
        extra = _EXTRA.pack(
            self._buffer_pointer, id(args) + BYTES_DATA, self._buffer_size, self._size_address, self._end
        )
        return extra, id(extra) + BYTES_DATA

    def params(self, args: bytes) -> tuple[object, int]:
        """The ``kernelParams`` array for a launch call that takes no ``extra``
        (a cooperative launch): a pointer to each argument in the packed ``args``,
        and its address; the caller holds both during the call."""
        base = id(args) + BYTES_DATA
        array = (ctypes.c_void_p * max(len(self._offsets), 1))(*(base + o for o in self._offsets))
        return array, ctypes.addressof(array)


def _mangled(name: str) -> str:
    """The Itanium-ABI name of a variable ``ns::inner::name`` (NVCC's and clang's mangling)."""
    parts = name.split("::")
    if len(parts) < 2:
        return name
    return "_ZN" + "".join(f"{len(p)}{p}" for p in parts) + "E"


def kernel_index(*tables: Iterable[KernelEntry]) -> dict[str, KernelEntry]:
    """The kernels of a module by the names a user may look them up with: each
    kernel's symbol, then its lookup name (which wins over another kernel's
    symbol); a later table's entries win over an earlier one's."""
    index: dict[str, KernelEntry] = {}
    for table in tables:
        entries = list(table)
        index.update({k.symbol: k for k in entries})
        index.update({k.lookup: k for k in entries})
    return index


class LoadedModule:
    __slots__ = ("device", "handle", "image", "kernels")

    def __init__(self, device: int, handle: Any, image: bytes, kernels: dict[str, KernelEntry]):
        self.device = device
        self.handle = handle  # the driver's module
        self.image = image  # kept while loaded: a runtime may read it after loading
        self.kernels = kernels  # see kernel_index


class GpuPlatform(Platform):
    """What a GPU platform's driver calls are wrapped in: each device's reset
    generation, the calling thread's current device (``_tls.key``: device and
    generation), the modules loaded, HIP_LAUNCH_BLOCKING."""

    binary_class: ClassVar[type[GpuBinary]]

    def __init__(self, count: int) -> None:
        if not _BYTES_LAYOUT_KNOWN:
            raise PlatformUnavailable("launches need CPython's layout of bytes objects; this Python differs")
        self._generations = [0] * count
        self._lock = threading.RLock()
        self._tls = threading.local()
        self._modules: dict[int, LoadedModule] = {}
        self._blocking = config.get("HIP_LAUNCH_BLOCKING")

    @abstractmethod
    def _use(self, device: int) -> None:
        """Make ``device`` current in this thread (HipError if there is none such)."""

    def make_current(self, device: int) -> None:
        self._use(device)

    @abstractmethod
    def _unload(self, handle: Any) -> None:
        """Unload a module from the driver."""

    @abstractmethod
    def _global(self, handle: Any, symbol: str) -> tuple[int, int] | None:
        """The address and size of a module's variable, or None if it has none of that symbol."""

    @staticmethod
    def binary_bytes(binary: GpuBinary) -> bytes:
        return binary.code

    def reset_generation(self, device: int) -> int:
        return self._generations[device]

    def _binary(self, binary: GpuBinary | bytes) -> GpuBinary | bytes:
        """What load_module was given: a module from compile() or its bytes
        (whose target the platform checks), or else the bytes of an image
        made elsewhere."""
        if isinstance(binary, GpuBinary):
            return binary
        data = bytes(binary)
        return self.binary_class.from_bytes(data) or data

    def _loaded(self, device: int, handle: Any, image: bytes, kernels: dict[str, KernelEntry]) -> int:
        """Record a module the driver loaded; its id for the runtime."""
        key = int(handle)
        with self._lock:
            self._modules[key] = LoadedModule(device, handle, image, kernels)
        return key

    def unload_module(self, device: int, module: int) -> None:
        self._use(device)
        with self._lock:
            loaded = self._modules.pop(module, None)
        if loaded is None:
            raise HipError(hipError_t.hipErrorInvalidHandle, "module not loaded")
        self._unload(loaded.handle)

    def _module(self, module: int) -> LoadedModule:
        loaded = self._modules.get(module)
        if loaded is None:
            raise HipError(hipError_t.hipErrorInvalidHandle, "module not loaded")
        return loaded

    def get_global(self, device: int, module: int, name: str) -> tuple[int, int]:
        """A __device__ or __constant__ variable by its symbol, or by its name in
        the source: ``ns::name`` for one in a namespace (whose symbol is mangled)."""
        self._use(device)
        loaded = self._module(module)
        for symbol in (name, _mangled(name)):
            found = self._global(loaded.handle, symbol)
            if found is not None:
                return found
        raise HipError(
            hipError_t.hipErrorNotFound, f"no __device__ or __constant__ variable {name!r} in the module"
        )
