"""hipkit.hip: HIP's runtime API and hiprtc, by HIP's names, on every platform.

Functions take HIP's arguments in HIP's order and return what HIP writes to its
out-parameters (``ptr = hipMalloc(n)``, ``free, total = hipMemGetInfo()``).  A
failure raises :class:`hipkit.HipError` with HIP's code, which also becomes this
thread's last error (``hipGetLastError()`` returns and clears it,
``hipPeekAtLastError()`` only returns it).  hiprtc calls raise
:class:`HiprtcError` with a hiprtcResult.  Pointers and handles are ints; a
copy's host side may be any buffer (a NumPy array, a bytearray); a stream of
0 or None is the null stream.  HIP's enumerators are module constants too
(``hipMemcpyHostToDevice``, ``hipErrorNotReady``, ``HIPRTC_ERROR_COMPILATION``).

Example: the seed's vector add
------------------------------
>>> import numpy as np
>>> from hipkit import hip
>>> prog = hip.hiprtcCreateProgram('''
... __global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
...     int idx = blockIdx.x * blockDim.x + threadIdx.x;
...     if (idx < N) C[idx] = A[idx] + B[idx];
... }''', "vector_add.cpp")
>>> hip.hiprtcCompileProgram(prog)
>>> module = hip.hipModuleLoadData(hip.hiprtcGetCode(prog))
>>> vector_add = hip.hipModuleGetFunction(module, "vectorAdd")
>>> n = 1_000_000
>>> h_a = np.arange(n, dtype=np.float32); h_b = 2 * h_a; h_c = np.empty_like(h_a)
>>> d_a, d_b, d_c = (hip.hipMalloc(h_a.nbytes) for _ in range(3))
>>> hip.hipMemcpy(d_a, h_a, h_a.nbytes, hip.hipMemcpyHostToDevice)
>>> hip.hipMemcpy(d_b, h_b, h_b.nbytes, hip.hipMemcpyHostToDevice)
>>> hip.hipModuleLaunchKernel(vector_add, (n + 255) // 256, 1, 1, 256, 1, 1, 0, None,
...                           [d_a, d_b, d_c, n])
>>> hip.hipDeviceSynchronize()
>>> hip.hipMemcpy(h_c, d_c, h_c.nbytes, hip.hipMemcpyDeviceToHost)
>>> bool(np.array_equal(h_c, h_a + h_b))
True
>>> for ptr in (d_a, d_b, d_c): hip.hipFree(ptr)
>>> hip.hipModuleUnload(module); hip.hiprtcDestroyProgram(prog)
"""

from __future__ import annotations

from .._errors import HipError, hipError_t
from ._device import (
    hipDeviceCanAccessPeer,
    hipDeviceDisablePeerAccess,
    hipDeviceEnablePeerAccess,
    hipDeviceGetAttribute,
    hipDeviceReset,
    hipDeviceSynchronize,
    hipGetDevice,
    hipGetDeviceCount,
    hipGetDeviceProperties,
    hipGetErrorName,
    hipGetErrorString,
    hipGetLastError,
    hipPeekAtLastError,
    hipSetDevice,
)
from ._memory import (
    hipFree,
    hipHostFree,
    hipHostMalloc,
    hipMalloc,
    hipMemcpy,
    hipMemcpyAsync,
    hipMemcpyPeer,
    hipMemcpyPeerAsync,
    hipMemGetInfo,
    hipMemset,
    hipMemsetAsync,
    hipMemsetD8,
    hipMemsetD8Async,
    hipMemsetD16,
    hipMemsetD16Async,
    hipMemsetD32,
    hipMemsetD32Async,
)
from ._module import (
    hipFuncAttributeMaxDynamicSharedMemorySize,
    hipFuncGetAttribute,
    hipFuncGetAttributes,
    hipFuncSetAttribute,
    hipModuleGetFunction,
    hipModuleGetGlobal,
    hipModuleLaunchKernel,
    hipModuleLoadData,
    hipModuleUnload,
)
from ._rtc import (
    HiprtcError,
    hiprtcAddNameExpression,
    hiprtcCompileProgram,
    hiprtcCreateProgram,
    hiprtcDestroyProgram,
    hiprtcGetCode,
    hiprtcGetCodeSize,
    hiprtcGetErrorString,
    hiprtcGetLoweredName,
    hiprtcGetProgramLog,
    hiprtcGetProgramLogSize,
    hiprtcProgram,
)
from ._stream import (
    hipEventCreate,
    hipEventCreateWithFlags,
    hipEventDestroy,
    hipEventElapsedTime,
    hipEventQuery,
    hipEventRecord,
    hipEventSynchronize,
    hipStreamCreate,
    hipStreamCreateWithFlags,
    hipStreamDestroy,
    hipStreamQuery,
    hipStreamSynchronize,
    hipStreamWaitEvent,
)
from ._types import (
    hipDeviceAttribute_t,
    hipEventBlockingSync,
    hipEventDefault,
    hipEventDisableTiming,
    hipEventInterprocess,
    hipFuncAttributes,
    hipFunction_attribute,
    hipHostMallocCoherent,
    hipHostMallocDefault,
    hipHostMallocMapped,
    hipHostMallocNonCoherent,
    hipHostMallocNumaUser,
    hipHostMallocPortable,
    hipHostMallocWriteCombined,
    hipMemcpyKind,
    hiprtcResult,
    hipStreamDefault,
    hipStreamNonBlocking,
)

__all__ = [
    "hipDeviceAttribute_t",
    "hipDeviceCanAccessPeer",
    "hipDeviceDisablePeerAccess",
    "hipDeviceEnablePeerAccess",
    "hipDeviceGetAttribute",
    "hipDeviceReset",
    "hipDeviceSynchronize",
    "HipError",
    "hipError_t",
    "hipEventBlockingSync",
    "hipEventCreate",
    "hipEventCreateWithFlags",
    "hipEventDefault",
    "hipEventDestroy",
    "hipEventDisableTiming",
    "hipEventElapsedTime",
    "hipEventInterprocess",
    "hipEventQuery",
    "hipEventRecord",
    "hipEventSynchronize",
    "hipFree",
    "hipFuncAttributes",
    "hipFuncGetAttribute",
    "hipFuncGetAttributes",
    "hipFuncSetAttribute",
    "hipFuncAttributeMaxDynamicSharedMemorySize",
    "hipFunction_attribute",
    "hipGetDevice",
    "hipGetDeviceCount",
    "hipGetDeviceProperties",
    "hipGetErrorName",
    "hipGetErrorString",
    "hipGetLastError",
    "hipHostFree",
    "hipHostMalloc",
    "hipHostMallocCoherent",
    "hipHostMallocDefault",
    "hipHostMallocMapped",
    "hipHostMallocNonCoherent",
    "hipHostMallocNumaUser",
    "hipHostMallocPortable",
    "hipHostMallocWriteCombined",
    "hipMalloc",
    "hipMemcpy",
    "hipMemcpyAsync",
    "hipMemcpyPeer",
    "hipMemcpyPeerAsync",
    "hipMemcpyKind",
    "hipMemGetInfo",
    "hipMemset",
    "hipMemsetAsync",
    "hipMemsetD16",
    "hipMemsetD16Async",
    "hipMemsetD32",
    "hipMemsetD32Async",
    "hipMemsetD8",
    "hipMemsetD8Async",
    "hipModuleGetFunction",
    "hipModuleGetGlobal",
    "hipModuleLaunchKernel",
    "hipModuleLoadData",
    "hipModuleUnload",
    "hipPeekAtLastError",
    "hiprtcAddNameExpression",
    "hiprtcCompileProgram",
    "hiprtcCreateProgram",
    "hiprtcDestroyProgram",
    "HiprtcError",
    "hiprtcGetCode",
    "hiprtcGetCodeSize",
    "hiprtcGetErrorString",
    "hiprtcGetLoweredName",
    "hiprtcGetProgramLog",
    "hiprtcGetProgramLogSize",
    "hiprtcProgram",
    "hiprtcResult",
    "hipSetDevice",
    "hipStreamCreate",
    "hipStreamCreateWithFlags",
    "hipStreamDefault",
    "hipStreamDestroy",
    "hipStreamNonBlocking",
    "hipStreamQuery",
    "hipStreamSynchronize",
    "hipStreamWaitEvent",
]

_ENUMS = (hipError_t, hipMemcpyKind, hipDeviceAttribute_t, hipFunction_attribute, hiprtcResult)

# Each enumerator is a module constant too, as C code names them.
for _enum in _ENUMS:
    globals().update(_enum.__members__)
    __all__ += list(_enum.__members__)
