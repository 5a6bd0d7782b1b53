"""Compiling HIP C++, modules, kernels and launches.

Example
-------
>>> mod = hipkit.compile('''
... extern "C" __global__ void scale(float* x, float a, int n) {
...     int i = blockIdx.x * blockDim.x + threadIdx.x;
...     if (i < n) x[i] *= a;
... }''')
>>> scale = mod.get_function("scale")
>>> scale[(n + 255) // 256, 256](x, 2.0, n)        # or scale.launch(grid, block, (x, 2.0, n))
"""

from __future__ import annotations

import operator
import threading
import weakref
from typing import Any

import numpy as np

from .. import platforms
from .._errors import HipError, hipError_t
from ..platforms.base.platform import FunctionInfo, Target
from ._args import Packer
from .device import Device, get_device
from .memory import DeviceArray
from .stream import Stream, stream_handle

_UNLOADED = -1  # Module._generation once unloaded (reset generations count from 0)


def _dim3(value, what: str) -> tuple[int, int, int]:
    """A launch dimension: an int, a sequence of 1-3 ints, or anything with x, y, z."""
    if type(value) is int and 0 <= value < 1 << 32:
        return (value, 1, 1)
    items: tuple[int, ...]
    try:
        if isinstance(value, (int, np.integer)):
            items = (int(value),)
        elif hasattr(value, "x"):
            items = tuple(operator.index(getattr(value, a, 1)) for a in "xyz")
        else:
            items = tuple(operator.index(v) for v in value)
    except TypeError:  # a float (never truncated), a string, None...
        raise TypeError(f"{what} must be an int, 1 to 3 ints or a dim3, got {value!r:.60}") from None
    if not 1 <= len(items) <= 3:
        raise HipError(
            hipError_t.hipErrorInvalidConfiguration, f"{what} must have 1 to 3 dimensions, got {len(items)}"
        )
    dims = items + (1,) * (3 - len(items))
    if any(not 0 <= d < 1 << 32 for d in dims):
        raise HipError(
            hipError_t.hipErrorInvalidConfiguration,
            f"{what} dimensions must be non-negative 32-bit values, got {dims}",
        )
    return dims[0], dims[1], dims[2]


def _resolve_target(target, device: Device) -> Target:
    if target is None:
        return device.target
    if isinstance(target, Target):
        return target
    for name in platforms.known():
        parsed = platforms.platform_class(name).parse_target(str(target))
        if parsed is not None:
            return parsed
    raise ValueError(f"unknown target {target!r} (examples: 'cpu', 'sm_90')")


def compile(  # the field's own name (hiprtc/NVRTC "compile")
    source: str,
    *,
    options: tuple[str, ...] | list[str] = (),
    name_expressions: tuple[str, ...] | list[str] = (),
    name: str = "kernel.hip",
    headers: dict[str, str] | None = None,
    target: Target | str | None = None,
    device: Device | None = None,
) -> Module:
    """Compile HIP C++ source into a module.

    Parameters
    ----------
    source
        HIP C++: kernels, device functions, ``__device__`` globals.  Including
        ``<hip/hip_runtime.h>`` is optional.
    options
        Compiler options: ``-D``, ``-U``, ``-I``, ``-std=``, ``-O``, ``-g``,
        ``-ffast-math`` / ``--use_fast_math``, warnings.
    name_expressions
        Template kernel instantiations to make available, e.g. ``"axpy<float>"``
        (as hiprtcAddNameExpression).
    name
        File name used in diagnostics.
    headers
        Include names mapped to their text: the source can ``#include`` them.
    target
        What to compile for; default: the device's target.  A module compiled
        for another target can be saved but not run here.
    device
        Where the module is loaded; default: the current device.

    Raises
    ------
    hipkit.CompileError
        With the compiler's diagnostics, naming ``name`` and the user's lines.
    """
    device = device or get_device()
    target = _resolve_target(target, device)
    binary = platforms.platform_class(target.platform).compile(
        source,
        target,
        name=name,
        options=tuple(options),
        name_expressions=tuple(name_expressions),
        headers=dict(headers or {}),
    )
    return Module(binary, target, device if target == device.target else None)


class Module:
    """A compiled module: its kernels and device globals.

    ``binary`` is what hipModuleLoadData would take; ``log`` holds compiler
    warnings.  A module compiled for another target than its device's has no
    device and cannot be run.
    """

    def __init__(self, binary: Any, target: Target, device: Device | None):
        self.binary = binary
        self.target = target
        self.device = device
        self.log: str = getattr(binary, "log", "")
        self._functions: dict[str, Kernel] = {}
        self.handle = 0
        if device is not None:
            platform = device.platform
            self.handle = platform.load_module(device._native, binary)
            self._generation = platform.reset_generation(device._native)
            self._finalizer = weakref.finalize(self, _unload, device, self.handle, self._generation)

    @property
    def kernels(self) -> list[str]:
        """Names (and name expressions) of the kernels in the module."""
        return [name for name, _ in getattr(self.binary, "registered", ())]

    def _loaded(self) -> Device:
        if self.device is None:
            raise HipError(
                hipError_t.hipErrorNoBinaryForGpu,
                f"module compiled for {self.target}, not loaded on a device",
            )
        self._check()
        return self.device

    def _check(self) -> None:
        """Raise if the module was unloaded, or freed by a device reset."""
        assert self.device is not None
        if self._generation == _UNLOADED:
            raise HipError(hipError_t.hipErrorInvalidHandle, "this module was unloaded")
        if self.device.platform.reset_generation(self.device._native) != self._generation:
            raise HipError(hipError_t.hipErrorInvalidHandle, "this module was unloaded by a device reset")

    def unload(self) -> None:
        """Unload now (hipModuleUnload) rather than when garbage-collected,
        reporting errors; its kernels can no longer be launched."""
        device = self._loaded()
        self._finalizer.detach()
        self._generation = _UNLOADED  # never a reset generation: launches check only this
        device.platform.unload_module(device._native, self.handle)

    @property
    def code(self) -> bytes:
        """The compiled module as bytes (hiprtcGetCode's): loadable with
        hipModuleLoadData, also in another process."""
        return platforms.platform_class(self.target.platform).binary_bytes(self.binary)

    def get_function(self, name: str) -> Kernel:
        """The kernel called ``name`` (its name, a name expression, or its mangled name)."""
        kernel = self._functions.get(name)
        if kernel is None:
            device = self._loaded()
            info = device.platform.get_function(device._native, self.handle, name)
            kernel = Kernel(self, info, device)
            self._functions[name] = kernel
        return kernel

    def get_global(self, name: str, dtype=np.uint8, shape=None) -> DeviceArray:
        """A device array viewing the ``__device__``/``__constant__`` variable ``name``
        (hipModuleGetGlobal); by default its raw bytes."""
        device = self._loaded()
        ptr, size = device.platform.get_global(device._native, self.handle, name)
        dtype = np.dtype(dtype)
        if shape is None:
            if size % dtype.itemsize:
                raise ValueError(f"{name} has {size} bytes, not a whole number of {dtype}")
            shape = (size // dtype.itemsize,)
        view = DeviceArray(shape, dtype, ptr=ptr, owner=self, device=device)
        if view.nbytes > size:
            raise ValueError(f"{name} has {size} bytes; {shape} of {dtype} needs {view.nbytes}")
        return view

    def __repr__(self) -> str:
        return f"<hipkit.Module for {self.target}: {', '.join(self.kernels)}>"


class _Finalizing(threading.local):
    active = False


# Set while a module's finalizer unloads it: a tool at the hook point (the
# profiler) tells that unload, done whenever the garbage collector runs, from
# a hipModuleUnload the program made.
finalizing = _Finalizing()


def _unload(device: Device, handle: int, generation: int) -> None:
    if device.platform.reset_generation(device._native) == generation:
        outer, finalizing.active = finalizing.active, True
        try:
            device.platform.unload_module(device._native, handle)
        except HipError:
            pass  # a sticky error: unloaded by the next reset
        finally:
            finalizing.active = outer


# Launchers a kernel keeps for its 1-D configurations (kernel[n, m]).
_LAUNCHERS_KEPT = 64


class Kernel:
    """A ``__global__`` function of a loaded module."""

    def __init__(self, module: Module, info: FunctionInfo, device: Device):
        self.module = module
        self.info = info
        self.device = device
        self._native = device._native
        # What a launch needs, without the kernel (a launcher it keeps makes no cycle).
        # The platform itself, not its bound launch: ``platform.launch`` is looked up
        # at each call, so that a tool at the hook point (runtime/hooks.py) sees it.
        self._launch_parts = (
            module,
            device._native,
            info,
            device.platform.reset_generation,
            device.platform,
            Packer(info.params, info.name, device).pack,
        )
        self._max_dynamic_shared: int | None = None
        self._launchers: dict[tuple[int, int], _Launcher] = {}

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def num_params(self) -> int:
        return len(self.info.params)

    @property
    def attributes(self) -> dict[str, int | str]:
        """hipFuncGetAttributes' fields that hipkit knows."""
        return {
            "sharedSizeBytes": self.info.static_shared_bytes,
            "maxThreadsPerBlock": self.info.max_threads_per_block,
            "numParams": self.num_params,
            "execution": self.info.detail,
        }

    def set_max_dynamic_shared(self, nbytes: int) -> None:
        """Allow launches with up to ``nbytes`` of dynamic shared memory
        (hipFuncSetAttribute's hipFuncAttributeMaxDynamicSharedMemorySize): on
        NVIDIA GPUs, more than 48 KiB needs this opt-in, as in CUDA."""
        self.module._check()
        self.device.platform.set_max_dynamic_shared(self._native, self.info, int(nbytes))
        self._max_dynamic_shared = int(nbytes)

    @property
    def max_dynamic_shared(self) -> int:
        """The most dynamic shared memory a launch may ask for."""
        if self._max_dynamic_shared is not None:
            return self._max_dynamic_shared
        return max(self.device.properties.sharedMemPerBlock - self.info.static_shared_bytes, 0)

    def launch(
        self,
        grid,
        block,
        args=(),
        shared_mem: int = 0,
        stream: Stream | None = None,
        cooperative: bool = False,
    ) -> None:
        """Launch on ``grid`` blocks of ``block`` threads (each an int, a 1-3 tuple
        or a dim3-like object), with ``shared_mem`` bytes of dynamic shared memory,
        on ``stream`` (None: the null stream; or another library's stream, see
        :func:`~hipkit.runtime.stream.stream_handle`).  Returns at once; errors in the
        kernel appear at the next synchronization.

        ``cooperative=True`` is hipLaunchCooperativeKernel: every block runs at once,
        so the kernel may call ``cooperative_groups::this_grid().sync()``; a grid of
        more blocks than can be co-resident (hipOccupancyMaxActiveBlocksPerMultiprocessor
        times multiProcessorCount) raises hipErrorCooperativeLaunchTooLarge.

        >>> k.launch(blocks, 256, (x, n), cooperative=True)
        """
        launcher = _Launcher(self, grid, block, shared_mem, stream)
        if not cooperative:
            return launcher(*args)
        module, native, info, reset_generation, platform, pack = launcher.parts
        if module._generation != reset_generation(native):
            module._check()
        platform.launch_cooperative(
            native, info, launcher.grid, launcher.block, launcher.shared_mem, launcher.stream, pack(args)
        )

    def __getitem__(self, config) -> _Launcher:
        """``kernel[grid, block]`` or ``kernel[grid, block, shared_mem, stream]``,
        then call with the arguments."""
        if type(config) is tuple and len(config) == 2 and type(config[0]) is int and type(config[1]) is int:
            # kernel[n, m](...) in a loop: one launcher per 1-D configuration, made once.
            launcher = self._launchers.get(config)
            if launcher is None:
                if len(self._launchers) >= _LAUNCHERS_KEPT:
                    self._launchers.clear()
                launcher = self._launchers[config] = _Launcher(self, *config)
            return launcher
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError("use kernel[grid, block] or kernel[grid, block, shared_mem, stream]")
        return _Launcher(self, *config)

    def __repr__(self) -> str:
        return f"<hipkit.Kernel {self.name} ({self.info.detail})>"


class _Launcher:
    """``kernel[grid, block, shared_mem, stream]``: the configuration resolved once,
    so that calling it (again and again) only packs the arguments and launches."""

    __slots__ = ("parts", "grid", "block", "shared_mem", "stream")

    def __init__(self, kernel: Kernel, grid, block, shared_mem: int = 0, stream=None):
        self.parts = kernel._launch_parts
        self.grid = _dim3(grid, "grid")
        self.block = _dim3(block, "block")
        self.shared_mem = int(shared_mem)
        self.stream = 0 if stream is None else stream_handle(stream)

    def __call__(self, *args) -> None:
        """Pack the arguments and launch: kept short, it is the hot path."""
        module, native, info, reset_generation, platform, pack = self.parts
        if module._generation != reset_generation(native):
            module._check()
        platform.launch(native, info, self.grid, self.block, self.shared_mem, self.stream, pack(args))
