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

from . import config as _config
from ._errors import CompileError, CompileOptionError, HipError, hipError_t
from .platforms.base import DeviceProperties, Target
from .profiler import Profile, mark, profile, range
from .runtime.device import Device, devices, get_device, set_device, synchronize
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
from .runtime.stream import Event, Stream

__version__ = "0.1.0"

__all__ = [
    "CompileError",
    "CompileOptionError",
    "Device",
    "DeviceArray",
    "DeviceProperties",
    "Event",
    "HipError",
    "Kernel",
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
    "get_device",
    "hipError_t",
    "mark",
    "profile",
    "range",
    "set_device",
    "synchronize",
    "to_device",
    "zeros",
    "zeros_like",
]

if _config.get("HIPKIT_PROF_DIR"):  # run by `hipkit prof`: traced from the start
    from .profiler.session import start_from_environment

    start_from_environment()
