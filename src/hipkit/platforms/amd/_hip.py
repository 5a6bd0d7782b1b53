"""The AMD platform's bindings: ROCm's HIP runtime, hiprtc and comgr through ctypes.

AMD's own Python bindings (``hip-python`` on PyPI) start at ROCm 6.2 and are
locked to one ROCm release each: they call ``hipGetDevicePropertiesR0600``
and load ``libhiprtc.so``, which ROCm 5 (Debian's and Ubuntu's packages) does
not have.  These bindings declare the few C functions hipkit calls, with
their signatures in the installed ``hip/hip_runtime_api.h`` and
``hip/hiprtc.h`` (tests/test_amd_bindings.py checks them against the header),
and work with ROCm 5, 6 and 7:

- ``libamdhip64`` is ``HIPKIT_AMD_LIBRARY`` if set, else ROCm's
  (``$ROCM_PATH/lib``, ``/opt/rocm/lib``), else the system's.
- hiprtc is in ``libamdhip64`` up to ROCm 5, in ``libhiprtc.so.N`` since.
- Device properties are read with ``hipGetDevicePropertiesR0000`` where it
  exists (ROCm 6 and later keep the ROCm 5 layout under that name), else with
  ``hipGetDeviceProperties`` (ROCm 5, whose layout that is): one struct.
- comgr (ROCm's code object manager, which hiprtc compiles with) names the
  targets it knows: hiprtc aborts the process on a target it does not know,
  so every target is checked with comgr first.
"""

from __future__ import annotations

import ctypes
import os
from ctypes import POINTER, c_char, c_char_p, c_float, c_int, c_size_t, c_uint, c_ushort, c_void_p
from dataclasses import dataclass
from functools import cache

from ... import config
from ..._errors import HipError, error_name, hipError_t
from ..base.platform import PlatformUnavailable
from .toolkit import rocm_lib

SUCCESS, NO_DEVICE, NOT_READY = 0, 100, 600
_P = c_void_p  # handles (hipStream_t, hipModule_t, ...) and device pointers
_PP = POINTER(c_void_p)


class _ComgrMetadata(ctypes.Structure):
    """amd_comgr_metadata_node_t: a handle in a struct, passed by value."""

    _fields_ = [("handle", ctypes.c_uint64)]


# name -> parameter types; every function returns hipError_t (an int).
HIP_FUNCTIONS: dict[str, tuple] = {
    "hipGetDeviceCount": (POINTER(c_int),),
    "hipSetDevice": (c_int,),
    "hipDeviceSynchronize": (),
    "hipDeviceReset": (),
    "hipRuntimeGetVersion": (POINTER(c_int),),
    "hipDriverGetVersion": (POINTER(c_int),),
    "hipMalloc": (_PP, c_size_t),
    "hipFree": (_P,),
    "hipHostMalloc": (_PP, c_size_t, c_uint),
    "hipHostFree": (_P,),
    "hipMemGetInfo": (POINTER(c_size_t), POINTER(c_size_t)),
    "hipMemcpy": (_P, _P, c_size_t, c_int),
    "hipMemcpyAsync": (_P, _P, c_size_t, c_int, _P),
    "hipMemsetD8": (_P, ctypes.c_ubyte, c_size_t),
    "hipMemsetD8Async": (_P, ctypes.c_ubyte, c_size_t, _P),
    "hipMemsetD16": (_P, c_ushort, c_size_t),
    "hipMemsetD16Async": (_P, c_ushort, c_size_t, _P),
    "hipMemsetD32": (_P, c_int, c_size_t),
    "hipMemsetD32Async": (_P, c_int, c_size_t, _P),
    "hipStreamCreateWithFlags": (_PP, c_uint),
    "hipStreamDestroy": (_P,),
    "hipStreamSynchronize": (_P,),
    "hipStreamQuery": (_P,),
    "hipStreamWaitEvent": (_P, _P, c_uint),
    "hipEventCreateWithFlags": (_PP, c_uint),
    "hipEventDestroy": (_P,),
    "hipEventRecord": (_P, _P),
    "hipEventSynchronize": (_P,),
    "hipEventQuery": (_P,),
    "hipEventElapsedTime": (POINTER(c_float), _P, _P),
    "hipDeviceCanAccessPeer": (POINTER(c_int), c_int, c_int),
    "hipDeviceEnablePeerAccess": (c_int, c_uint),
    "hipDeviceDisablePeerAccess": (c_int,),
    "hipMemcpyPeer": (_P, c_int, _P, c_int, c_size_t),
    "hipMemcpyPeerAsync": (_P, c_int, _P, c_int, c_size_t, _P),
    "hipModuleLoadData": (_PP, c_char_p),
    "hipModuleUnload": (_P,),
    "hipModuleGetFunction": (_PP, _P, c_char_p),
    "hipModuleGetGlobal": (_PP, POINTER(c_size_t), _P, c_char_p),
    "hipFuncGetAttribute": (POINTER(c_int), c_int, _P),
    # extra (the last) by its address: hipkit builds it as bytes (see _gpu.platform.LaunchArguments).
    "hipModuleLaunchKernel": (_P, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, _P, _PP, _P),
}
# Functions returning a string (const char*), by their parameter types.
HIP_STRINGS: dict[str, tuple] = {"hipGetErrorName": (c_int,), "hipGetErrorString": (c_int,)}
HIPRTC_FUNCTIONS: dict[str, tuple] = {
    "hiprtcCreateProgram": (_PP, c_char_p, c_char_p, c_int, POINTER(c_char_p), POINTER(c_char_p)),
    "hiprtcDestroyProgram": (_PP,),
    "hiprtcCompileProgram": (_P, c_int, POINTER(c_char_p)),
    "hiprtcGetProgramLogSize": (_P, POINTER(c_size_t)),
    "hiprtcGetProgramLog": (_P, c_char_p),
    "hiprtcGetCodeSize": (_P, POINTER(c_size_t)),
    "hiprtcGetCode": (_P, c_char_p),
}

# comgr's functions hipkit calls return amd_comgr_status_t, but its version (void).
COMGR_FUNCTIONS: dict[str, tuple] = {
    "amd_comgr_get_isa_count": (POINTER(c_size_t),),
    "amd_comgr_get_isa_name": (c_size_t, POINTER(c_char_p)),
    "amd_comgr_get_isa_metadata": (c_char_p, POINTER(_ComgrMetadata)),
    "amd_comgr_destroy_metadata": (_ComgrMetadata,),
}
COMGR_VERSION = (POINTER(c_size_t), POINTER(c_size_t))

# hiprtcResult values hipkit tells apart.
HIPRTC_SUCCESS, HIPRTC_ERROR_INVALID_OPTION, HIPRTC_ERROR_COMPILATION = 0, 5, 6

# hipFunction_attribute (HIP_FUNC_ATTRIBUTE_*), and the extra-parameter markers of
# hipModuleLaunchKernel (HIP_LAUNCH_PARAM_*: END is 3 on AMD, 0 in CUDA).
FUNC_MAX_THREADS_PER_BLOCK, FUNC_SHARED_SIZE_BYTES, FUNC_NUM_REGS = 0, 1, 4
LAUNCH_PARAM_BUFFER_POINTER, LAUNCH_PARAM_BUFFER_SIZE, LAUNCH_PARAM_END = 1, 2, 3
MEMCPY_DEFAULT = 4  # hipMemcpyDefault: the runtime tells host from device pointers


class hipDeviceArch_t(ctypes.Structure):  # HIP's names
    """17 one-bit feature flags in an unsigned int."""

    _fields_ = [("bits", c_uint)]


class hipDeviceProp_t(ctypes.Structure):
    """hipDeviceProp_t as ROCm 5 declares it, which ROCm 6 and 7 keep as
    ``hipDeviceProp_tR0000`` (filled by ``hipGetDevicePropertiesR0000``)."""

    _fields_ = [
        ("name", c_char * 256),
        ("totalGlobalMem", c_size_t),
        ("sharedMemPerBlock", c_size_t),
        ("regsPerBlock", c_int),
        ("warpSize", c_int),
        ("maxThreadsPerBlock", c_int),
        ("maxThreadsDim", c_int * 3),
        ("maxGridSize", c_int * 3),
        ("clockRate", c_int),
        ("memoryClockRate", c_int),
        ("memoryBusWidth", c_int),
        ("totalConstMem", c_size_t),
        ("major", c_int),
        ("minor", c_int),
        ("multiProcessorCount", c_int),
        ("l2CacheSize", c_int),
        ("maxThreadsPerMultiProcessor", c_int),
        ("computeMode", c_int),
        ("clockInstructionRate", c_int),
        ("arch", hipDeviceArch_t),
        ("concurrentKernels", c_int),
        ("pciDomainID", c_int),
        ("pciBusID", c_int),
        ("pciDeviceID", c_int),
        ("maxSharedMemoryPerMultiProcessor", c_size_t),
        ("isMultiGpuBoard", c_int),
        ("canMapHostMemory", c_int),
        ("gcnArch", c_int),
        ("gcnArchName", c_char * 256),
        ("integrated", c_int),
        ("cooperativeLaunch", c_int),
        ("cooperativeMultiDeviceLaunch", c_int),
        ("maxTexture1DLinear", c_int),
        ("maxTexture1D", c_int),
        ("maxTexture2D", c_int * 2),
        ("maxTexture3D", c_int * 3),
        ("hdpMemFlushCntl", POINTER(c_uint)),
        ("hdpRegFlushCntl", POINTER(c_uint)),
        ("memPitch", c_size_t),
        ("textureAlignment", c_size_t),
        ("texturePitchAlignment", c_size_t),
        ("kernelExecTimeoutEnabled", c_int),
        ("ECCEnabled", c_int),
        ("tccDriver", c_int),
        ("cooperativeMultiDeviceUnmatchedFunc", c_int),
        ("cooperativeMultiDeviceUnmatchedGridDim", c_int),
        ("cooperativeMultiDeviceUnmatchedBlockDim", c_int),
        ("cooperativeMultiDeviceUnmatchedSharedMem", c_int),
        ("isLargeBar", c_int),
        ("asicRevision", c_int),
        ("managedMemory", c_int),
        ("directManagedMemAccessFromHost", c_int),
        ("concurrentManagedAccess", c_int),
        ("pageableMemoryAccess", c_int),
        ("pageableMemoryAccessUsesHostPageTables", c_int),
    ]


def _declare(lib: ctypes.CDLL, name: str, argtypes: tuple, restype) -> None:
    function = getattr(lib, name)  # AttributeError if the library lacks it
    function.argtypes = argtypes
    function.restype = restype


def _open(candidates: list[str]) -> tuple[ctypes.CDLL, str] | str:
    """The first of ``candidates`` (paths or names for the dynamic loader) that
    loads, with its name; else the loader's word on each."""
    failures = []
    for candidate in dict.fromkeys(candidates):
        if os.sep in candidate and not os.path.exists(candidate):
            failures.append(f"{candidate}: no such file")
            continue
        try:
            return ctypes.CDLL(candidate), candidate
        except OSError as exc:
            failures.append(str(exc))
    return "; ".join(failures)


@dataclass(frozen=True)
class Rocm:
    """ROCm's libraries, loaded, with their functions declared."""

    hip: ctypes.CDLL
    hip_path: str
    hiprtc: ctypes.CDLL | None  # None where no hiprtc library was found
    hiprtc_reason: str  # why hiprtc is None
    comgr: ctypes.CDLL | None
    comgr_reason: str
    version: tuple[int, int, int]  # the HIP runtime's (major, minor, patch)
    properties_function: str  # hipGetDevicePropertiesR0000 or hipGetDeviceProperties

    def call(self, name: str, *args) -> int:
        """Call a HIP function; its hipError_t."""
        return getattr(self.hip, name)(*args)

    def check(self, err: int, what: str) -> None:
        if err:
            raise self.error(err, what)

    def error(self, err: int, what: str) -> HipError:
        """HipError for a HIP return code: HIP's own number, and its name for it
        where hipkit's table lacks the code."""
        detail = what
        if error_name(err) == "hipErrorUnknown" and err != hipError_t.hipErrorUnknown:
            detail = f"{what} ({self.hip.hipGetErrorName(err).decode(errors='replace')})"
        return HipError(err, detail)

    def isa_names(self) -> tuple[str, ...]:
        """The targets comgr compiles for (e.g. "gfx90a"), without features."""
        return _isa_names(self)

    def knows_isa(self, arch: str) -> bool:
        """Whether comgr (so hiprtc) knows ``arch``, features included
        ("gfx90a:xnack+"); hiprtc aborts the process on one it does not."""
        if self.comgr is None:
            return False
        metadata = _ComgrMetadata()
        isa = f"amdgcn-amd-amdhsa--{arch}".encode()
        if self.comgr.amd_comgr_get_isa_metadata(isa, ctypes.byref(metadata)) != 0:
            return False
        self.comgr.amd_comgr_destroy_metadata(metadata)
        return True

    def comgr_version(self) -> str:
        if self.comgr is None:
            return f"absent: {self.comgr_reason}"
        major, minor = c_size_t(), c_size_t()
        self.comgr.amd_comgr_get_version(ctypes.byref(major), ctypes.byref(minor))
        return f"{major.value}.{minor.value}"


@cache
def _isa_names(rocm: Rocm) -> tuple[str, ...]:
    if rocm.comgr is None:
        return ()
    count = c_size_t()
    rocm.comgr.amd_comgr_get_isa_count(ctypes.byref(count))
    names = []
    for i in range(count.value):
        name = c_char_p()
        rocm.comgr.amd_comgr_get_isa_name(c_size_t(i), ctypes.byref(name))
        names.append((name.value or b"").decode().split("--", 1)[-1])  # "amdgcn-amd-amdhsa--gfx90a"
    return tuple(names)


def _library_candidates() -> list[str]:
    configured = config.get("HIPKIT_AMD_LIBRARY")
    if configured:
        return [configured]
    return [
        rocm_lib("libamdhip64.so"),
        "libamdhip64.so",
        "libamdhip64.so.7",
        "libamdhip64.so.6",
        "libamdhip64.so.5",
    ]


def load() -> Rocm:
    """ROCm's HIP runtime, hiprtc and comgr.  PlatformUnavailable with the
    reason when the HIP runtime cannot be loaded (hiprtc or comgr missing is
    recorded: it stops compiling, not the runtime)."""
    return _load(tuple(_library_candidates()))


@cache  # per candidate list, so that HIPKIT_AMD_LIBRARY is read at each use
def _load(candidates: tuple[str, ...]) -> Rocm:
    opened = _open(list(candidates))
    if isinstance(opened, str):
        raise PlatformUnavailable(
            f"ROCm's HIP runtime (libamdhip64) could not be loaded ({opened}); install ROCm, or on "
            "Debian and Ubuntu: apt-get install libamdhip64-dev; HIPKIT_AMD_LIBRARY names another"
        )
    hip, path = opened
    try:
        for name, argtypes in HIP_FUNCTIONS.items():
            _declare(hip, name, argtypes, c_int)
        for name, argtypes in HIP_STRINGS.items():
            _declare(hip, name, argtypes, c_char_p)
    except AttributeError as exc:
        raise PlatformUnavailable(f"{path} is not a HIP runtime hipkit can use: {exc}") from None
    properties_function = (
        "hipGetDevicePropertiesR0000"
        if hasattr(hip, "hipGetDevicePropertiesR0000")
        else "hipGetDeviceProperties"
    )
    _declare(hip, properties_function, (POINTER(hipDeviceProp_t), c_int), c_int)
    number = c_int()
    hip.hipRuntimeGetVersion(ctypes.byref(number))
    # HIP_VERSION's encoding: major * 10^7 + minor * 10^5 + patch.
    version = (number.value // 10_000_000, number.value // 100_000 % 100, number.value % 100_000)

    hiprtc: ctypes.CDLL | None
    if hasattr(hip, "hiprtcCreateProgram"):  # ROCm 5: hiprtc is part of the runtime
        hiprtc, hiprtc_reason = hip, ""
    else:
        names = [f"libhiprtc.so.{version[0]}", "libhiprtc.so"]
        found = _open([os.path.join(os.path.dirname(path), n) for n in names if os.sep in path] + names)
        hiprtc, hiprtc_reason = (
            (None, f"hiprtc not found ({found})") if isinstance(found, str) else (found[0], "")
        )
    if hiprtc is not None:
        try:
            for name, argtypes in HIPRTC_FUNCTIONS.items():
                _declare(hiprtc, name, argtypes, c_int)
        except AttributeError as exc:
            hiprtc, hiprtc_reason = None, f"hiprtc lacks a function: {exc}"

    # comgr by the names ROCm 5 and 6 (.2) and ROCm 7 (.3) give it.
    comgr_names = ["libamd_comgr.so.3", "libamd_comgr.so.2"]
    found = _open([rocm_lib(n) for n in comgr_names] + comgr_names)
    comgr, comgr_reason = (None, f"comgr not found ({found})") if isinstance(found, str) else (found[0], "")
    if comgr is not None:
        for name, argtypes in COMGR_FUNCTIONS.items():
            _declare(comgr, name, argtypes, c_int)
        _declare(comgr, "amd_comgr_get_version", COMGR_VERSION, None)
    return Rocm(hip, path, hiprtc, hiprtc_reason, comgr, comgr_reason, version, properties_function)
