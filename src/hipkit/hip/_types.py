"""HIP's enumerations and flags, with HIP's numeric values, and hipFuncAttributes.

The values are those of ROCm/HIP's ``include/hip/hip_runtime_api.h`` (and
``hiprtc.h`` for hiprtcResult), so that code ported from C++ can pass the
numbers it knows.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..platforms.base import platform as base


class hipMemcpyKind(enum.IntEnum):  # HIP's own name
    """Direction of a copy; hipMemcpyDefault infers it from the pointers."""

    hipMemcpyHostToHost = base.HOST_TO_HOST
    hipMemcpyHostToDevice = base.HOST_TO_DEVICE
    hipMemcpyDeviceToHost = base.DEVICE_TO_HOST
    hipMemcpyDeviceToDevice = base.DEVICE_TO_DEVICE
    hipMemcpyDefault = base.DEFAULT


class hipDeviceAttribute_t(enum.IntEnum):
    """The attributes hipDeviceGetAttribute answers (those hipDeviceProp_t covers).

    Values: ROCm/HIP include/hip/hip_runtime_api.h, ``enum hipDeviceAttribute_t``
    (ROCm >= 5.0 numbering: hipDeviceAttributeCudaCompatibleBegin = 0, then one
    step per enumerator, e.g. hipDeviceAttributeMaxThreadsPerBlock = 56 and
    hipDeviceAttributeWarpSize = 87; hipfort's generated Fortran enum lists the
    same numbers explicitly).
    """

    hipDeviceAttributeClockRate = 5
    hipDeviceAttributeL2CacheSize = 19
    hipDeviceAttributeComputeCapabilityMajor = 23
    hipDeviceAttributeMaxBlockDimX = 26
    hipDeviceAttributeMaxBlockDimY = 27
    hipDeviceAttributeMaxBlockDimZ = 28
    hipDeviceAttributeMaxGridDimX = 29
    hipDeviceAttributeMaxGridDimY = 30
    hipDeviceAttributeMaxGridDimZ = 31
    hipDeviceAttributeMaxThreadsPerBlock = 56
    hipDeviceAttributeComputeCapabilityMinor = 61
    hipDeviceAttributeMultiprocessorCount = 63
    hipDeviceAttributeMaxRegistersPerBlock = 71
    hipDeviceAttributeMaxSharedMemoryPerBlock = 74
    hipDeviceAttributeTotalConstantMemory = 83
    hipDeviceAttributeTotalGlobalMem = 84
    hipDeviceAttributeWarpSize = 87


class hipFunction_attribute(enum.IntEnum):
    """hipFuncGetAttribute's attributes (HIP's values, as CUDA's CUfunction_attribute)."""

    HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
    HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
    HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2
    HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
    HIP_FUNC_ATTRIBUTE_NUM_REGS = 4
    HIP_FUNC_ATTRIBUTE_PTX_VERSION = 5
    HIP_FUNC_ATTRIBUTE_BINARY_VERSION = 6
    HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7
    HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
    HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9


@dataclass(frozen=True)
class hipFuncAttributes:
    """hipFuncGetAttributes' result (HIP's field names); 0 where hipkit has no number."""

    binaryVersion: int  # HIP's field names
    cacheModeCA: int
    constSizeBytes: int
    localSizeBytes: int
    maxDynamicSharedSizeBytes: int
    maxThreadsPerBlock: int
    numRegs: int
    preferredShmemCarveout: int
    ptxVersion: int
    sharedSizeBytes: int


class hiprtcResult(enum.IntEnum):
    """hiprtc's status codes (ROCm/HIP include/hip/hiprtc.h)."""

    HIPRTC_SUCCESS = 0
    HIPRTC_ERROR_OUT_OF_MEMORY = 1
    HIPRTC_ERROR_PROGRAM_CREATION_FAILURE = 2
    HIPRTC_ERROR_INVALID_INPUT = 3
    HIPRTC_ERROR_INVALID_PROGRAM = 4
    HIPRTC_ERROR_INVALID_OPTION = 5
    HIPRTC_ERROR_COMPILATION = 6
    HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7
    HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8
    HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9
    HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10
    HIPRTC_ERROR_INTERNAL_ERROR = 11
    HIPRTC_ERROR_LINKING = 100


# hipStreamCreateWithFlags
hipStreamDefault = 0x0
hipStreamNonBlocking = 0x1

# hipEventCreateWithFlags
hipEventDefault = 0x0
hipEventBlockingSync = 0x1
hipEventDisableTiming = 0x2
hipEventInterprocess = 0x4

# hipHostMalloc: accepted; hipkit's host memory is always portable, mapped and coherent.
hipHostMallocDefault = 0x0
hipHostMallocPortable = 0x1
hipHostMallocMapped = 0x2
hipHostMallocWriteCombined = 0x4
hipHostMallocNumaUser = 0x20000000
hipHostMallocCoherent = 0x40000000
hipHostMallocNonCoherent = 0x80000000
