"""hipkit: HIP C++ kernels and programs on CPUs, NVIDIA and AMD GPUs, from Python.

Example
-------
>>> import numpy as np, hipkit
>>> mod = hipkit.compile('''
... extern "C" __global__ void vectorAdd(const float* a, const float* b, float* c, int n) {
...     int i = blockIdx.x * blockDim.x + threadIdx.x;
...     if (i < n) c[i] = a[i] + b[i];
... }''')
>>> a = hipkit.to_device(np.ones(1000, np.float32)); c = hipkit.empty(1000)
>>> mod.get_function("vectorAdd")[4, 256](a, a, c, 1000)
>>> c.get()[:3]
array([2., 2., 2.], dtype=float32)
"""

from __future__ import annotations

import importlib

from . import config as _config

# typing is not imported either (a good part of hipkit run's start); type
# checkers take this for typing.TYPE_CHECKING.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The public names and the modules that define them, imported on first use:
# `hipkit cc`, `hipkit run` and `hipkit hipify` start without NumPy or a platform.
_EXPORTS = {
    "CompileError": "._errors",
    "CompileOptionError": "._errors",
    "HipError": "._errors",
    "hipError_t": "._errors",
    "DeviceProperties": ".platforms.base.platform",
    "Target": ".platforms.base.platform",
    "Profile": ".profiler",
    "mark": ".profiler",
    "profile": ".profiler",
    "range": ".profiler",
    "Device": ".runtime.device",
    "devices": ".runtime.device",
    "get_device": ".runtime.device",
    "set_device": ".runtime.device",
    "synchronize": ".runtime.device",
    "DeviceArray": ".runtime.memory",
    "empty": ".runtime.memory",
    "empty_like": ".runtime.memory",
    "empty_pinned": ".runtime.memory",
    "from_dlpack": ".runtime.memory",
    "to_device": ".runtime.memory",
    "zeros": ".runtime.memory",
    "zeros_like": ".runtime.memory",
    "MemoryPool": ".runtime.pool",
    "get_default_memory_pool": ".runtime.pool",
    "Kernel": ".runtime.module",
    "Module": ".runtime.module",
    "compile": ".runtime.module",
    "Event": ".runtime.stream",
    "Stream": ".runtime.stream",
    "sanitize": "._sanitize",
    "Graph": ".runtime.graph",
    "graph": ".runtime.graph",
}

if TYPE_CHECKING:
    from ._errors import CompileError, CompileOptionError, HipError, hipError_t
    from .platforms.base.platform import DeviceProperties, Target
    from .profiler import Profile, mark, profile, range
    from .runtime.device import Device, devices, get_device, set_device, synchronize
    from .runtime.graph import Graph, graph
    from .runtime.memory import (
        DeviceArray,
        empty,
        empty_like,
        empty_pinned,
        from_dlpack,
        to_device,
        zeros,
        zeros_like,
    )
    from .runtime.module import Kernel, Module, compile
    from .runtime.pool import MemoryPool, get_default_memory_pool
    from .runtime.stream import Event, Stream


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:  # a subpackage not imported yet (hipkit.platforms, hipkit.hip, ...)
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
        raise AttributeError(f"module 'hipkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__version__ = "0.1.0"

__all__ = [
    "CompileError",
    "CompileOptionError",
    "Device",
    "DeviceArray",
    "DeviceProperties",
    "Event",
    "Graph",
    "HipError",
    "Kernel",
    "MemoryPool",
    "Module",
    "Profile",
    "Stream",
    "Target",
    "compile",
    "devices",
    "empty",
    "empty_like",
    "empty_pinned",
    "from_dlpack",
    "get_default_memory_pool",
    "get_device",
    "graph",
    "hipError_t",
    "mark",
    "profile",
    "range",
    "sanitize",
    "set_device",
    "synchronize",
    "to_device",
    "zeros",
    "zeros_like",
]

if _config.get("HIPKIT_PROF_DIR"):  # run by `hipkit prof`: traced from the start
    from .profiler.session import start_from_environment

    start_from_environment()
