"""Modules and launches, HIP-named: hipModuleLoadData, hipModuleGetFunction,
hipModuleGetGlobal, hipModuleLaunchKernel, hipFuncGetAttributes.

A module handle is the platform's; a function handle is a number this layer
gives out (the same for the same module and name).  Kernel parameters are
Python values (or ctypes objects) converted by the kernel's own parameter
types, as :class:`hipkit.Kernel` does.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any

from .. import platforms
from .._errors import HipError, hipError_t
from ..platforms.base.platform import Target
from ..runtime.device import get_device
from ..runtime.module import Kernel, Module
from . import _state
from ._state import hip_api
from ._stream import stream_object
from ._types import hipFuncAttributes, hipFunction_attribute

_function_ids = itertools.count(1)
_function_lock = threading.Lock()


def image_bytes(binary: Any, target: Target) -> bytes:
    """The bytes of a compiled module (hiprtcGetCode's), loadable by hipModuleLoadData."""
    return platforms.platform_class(target.platform).binary_bytes(binary)


@hip_api
def hipModuleLoadData(image) -> int:  # HIP's names
    """hipModuleLoadData: load a compiled module on the current device; ``image`` is
    hiprtcGetCode's bytes or a hipkit.Module (hipkit.compile's result).  Returns the handle."""
    device = get_device()
    if isinstance(image, Module):
        binary, target = image.binary, image.target
    elif isinstance(image, (bytes, bytearray, memoryview)):
        binary, target = bytes(image), device.target
    else:
        raise HipError(
            hipError_t.hipErrorInvalidImage,
            f"expected hiprtcGetCode's bytes or a hipkit.Module, got {type(image).__name__}",
        )
    if target != device.target:
        raise HipError(
            hipError_t.hipErrorNoBinaryForGpu,
            f"the module is compiled for {target}, the device is {device.target}",
        )
    module = Module(binary, target, device)
    return _state.modules.add(module.handle, module, device)


@hip_api
def hipModuleUnload(module: int) -> None:
    """hipModuleUnload: unload a module; its functions become invalid."""
    obj: Module = _state.modules.get(module).obj
    device = obj.device
    assert device is not None  # modules in the table are loaded
    _state.functions.discard(lambda entry: entry.owner == obj.handle)
    obj.unload()
    _state.modules.pop(module)


@hip_api
def hipModuleGetFunction(module: int, kname: str) -> int:
    """hipModuleGetFunction: the kernel ``kname`` (its name, a name expression or a
    lowered name) of a module; returns a function handle."""
    obj: Module = _state.modules.get(module).obj
    kernel = obj.get_function(kname)
    with _function_lock:
        for handle, entry in _state.functions.items():
            if entry.obj is kernel:
                return handle
        return _state.functions.add(next(_function_ids), kernel, kernel.device, owner=obj.handle)


@hip_api
def hipModuleGetGlobal(hmod: int, name: str) -> tuple[int, int]:
    """hipModuleGetGlobal: (device pointer, size in bytes) of a ``__device__`` or
    ``__constant__`` variable of a module."""
    view = _state.modules.get(hmod).obj.get_global(name)
    return view.ptr, view.nbytes


def _kernel(f: int) -> Kernel:
    return _state.functions.get(f).obj


def _param(value: Any) -> Any:
    """A kernel argument as the packer takes it: ctypes scalars give their value."""
    if isinstance(value, ctypes.c_char):
        return value.value[0]
    if isinstance(value, ctypes._SimpleCData) and not isinstance(value, ctypes.c_void_p):
        return value.value
    return value


@hip_api
def hipModuleLaunchKernel(
    f: int,
    gridDimX: int,
    gridDimY: int,
    gridDimZ: int,
    blockDimX: int,
    blockDimY: int,
    blockDimZ: int,
    sharedMemBytes: int,
    stream,
    kernelParams,
    extra=None,
) -> None:
    """hipModuleLaunchKernel: launch ``f`` on a grid of blocks with ``sharedMemBytes``
    of dynamic shared memory on ``stream``; ``kernelParams`` is a sequence of the
    arguments (Python values, device pointers, ctypes objects).  ``extra`` must be None."""
    if extra is not None:
        raise HipError(
            hipError_t.hipErrorNotSupported,
            "'extra' (HIP_LAUNCH_PARAM_*) is not supported; pass kernelParams",
        )
    kernel = _kernel(f)
    queue = stream_object(stream)
    if queue is not None and queue.device != kernel.device:
        raise HipError(
            hipError_t.hipErrorInvalidHandle,
            f"the stream is on {queue.device!r}, the function on {kernel.device!r}",
        )
    args = tuple(_param(value) for value in (kernelParams or ()))
    try:
        kernel.launch(
            (gridDimX, gridDimY, gridDimZ),
            (blockDimX, blockDimY, blockDimZ),
            args,
            int(sharedMemBytes),
            queue,
        )
    except TypeError as exc:
        raise HipError(hipError_t.hipErrorInvalidValue, str(exc)) from None


@hip_api
def hipFuncGetAttributes(func: int) -> hipFuncAttributes:
    """hipFuncGetAttributes: what hipkit knows of a function (hipFuncAttributes)."""
    kernel = _kernel(func)
    static = kernel.info.static_shared_bytes
    return hipFuncAttributes(
        binaryVersion=0,
        cacheModeCA=0,
        constSizeBytes=0,
        localSizeBytes=0,
        maxDynamicSharedSizeBytes=kernel.max_dynamic_shared,
        maxThreadsPerBlock=kernel.info.max_threads_per_block,
        numRegs=0,
        preferredShmemCarveout=0,
        ptxVersion=0,
        sharedSizeBytes=static,
    )


_FIELDS: dict[int, str] = {
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: "maxThreadsPerBlock",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: "sharedSizeBytes",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: "constSizeBytes",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: "localSizeBytes",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_NUM_REGS: "numRegs",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_PTX_VERSION: "ptxVersion",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_BINARY_VERSION: "binaryVersion",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: "cacheModeCA",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: "maxDynamicSharedSizeBytes",
    hipFunction_attribute.HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: "preferredShmemCarveout",
}


@hip_api
def hipFuncGetAttribute(attrib: int, hfunc: int) -> int:
    """hipFuncGetAttribute: one attribute (hipFunction_attribute) of a function."""
    try:
        field = _FIELDS[attrib]
    except (KeyError, TypeError):
        raise HipError(hipError_t.hipErrorInvalidValue, f"invalid function attribute {attrib!r}") from None
    return getattr(hipFuncGetAttributes(hfunc), field)


hipFuncAttributeMaxDynamicSharedMemorySize = 8  # hipFuncAttribute


@hip_api
def hipFuncSetAttribute(func: int, attr: int, value: int) -> None:
    """hipFuncSetAttribute: hipFuncAttributeMaxDynamicSharedMemorySize raises the
    kernel's dynamic shared memory limit (above 48 KiB on NVIDIA GPUs)."""
    if attr != hipFuncAttributeMaxDynamicSharedMemorySize:
        raise HipError(hipError_t.hipErrorNotSupported, f"function attribute {attr!r} cannot be set")
    _kernel(func).set_max_dynamic_shared(value)
