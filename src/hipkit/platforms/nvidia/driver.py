"""The CUDA driver through NVIDIA's ``cuda.bindings``: loading it, and its
errors as HIP's.

HIP took CUDA's error numbering, so a CUresult is mostly its own hipError_t
(:func:`hip_code`); the few CUDA errors HIP has no number for map to HIP's name
for the same failure (:data:`CUDA_TO_HIP`, which the generated NVIDIA program
headers share through ``hipkit.tables.make_nvidia_headers``).
"""

from __future__ import annotations

import os

from ..._errors import hipError_t
from ..base.platform import PlatformUnavailable

# CUDA driver errors without a HIP code of the same number, and what HIP calls them.
CUDA_TO_HIP = {
    34: 35,  # CUDA_ERROR_STUB_LIBRARY: the driver is not installed -> hipErrorInsufficientDriver
    46: 100,  # CUDA_ERROR_DEVICE_UNAVAILABLE -> hipErrorNoDevice
    222: 218,  # CUDA_ERROR_UNSUPPORTED_PTX_VERSION -> hipErrorInvalidKernelFile
    703: 719,  # CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING
    714: 719,  # CUDA_ERROR_HARDWARE_STACK_ERROR
    715: 719,  # CUDA_ERROR_ILLEGAL_INSTRUCTION
    716: 719,  # CUDA_ERROR_MISALIGNED_ADDRESS
    717: 719,  # CUDA_ERROR_INVALID_ADDRESS_SPACE
    718: 719,  # CUDA_ERROR_INVALID_PC
    800: 801,  # CUDA_ERROR_NOT_PERMITTED -> hipErrorNotSupported
    # Numbers HIP gives other meanings (its texture errors):
    911: 999,  # CUDA_ERROR_EXTERNAL_DEVICE -> hipErrorUnknown
    912: 999,  # CUDA_ERROR_INVALID_CLUSTER_SIZE -> hipErrorUnknown
}
_HIP_CODES = frozenset(int(e) for e in hipError_t)


def hip_code(cuda_code: int) -> int:
    """The hipError_t for a CUresult: the same number where HIP has it (HIP took
    CUDA's numbering) unless CUDA_TO_HIP maps it, else HIP's name for the same failure,
    else hipErrorUnknown."""
    if cuda_code in _HIP_CODES and cuda_code not in CUDA_TO_HIP:
        return cuda_code
    return CUDA_TO_HIP.get(cuda_code, hipError_t.hipErrorUnknown)


def launch_error(cuda_code: int) -> int:
    """The hipError_t of a failed cuLaunchKernel: a launch the configuration makes
    impossible (CUDA_ERROR_INVALID_VALUE) is HIP's hipErrorInvalidConfiguration."""
    code = hip_code(cuda_code)
    return hipError_t.hipErrorInvalidConfiguration if code == hipError_t.hipErrorInvalidValue else code


def load():
    """cuda.bindings' driver module, initialized; PlatformUnavailable with the reason if not."""
    try:
        from cuda.bindings import driver
    except ImportError:
        raise PlatformUnavailable(
            "the cuda-bindings package is not installed (pip install 'hipkit[nvidia]')"
        ) from None
    try:
        (err,) = driver.cuInit(0)
    except Exception as exc:  # cuda.pathfinder's "library not found", by its own class
        if "NotFound" in type(exc).__name__:
            raise PlatformUnavailable("no NVIDIA driver (libcuda.so.1 not found)") from None
        raise PlatformUnavailable(f"the NVIDIA driver could not be loaded: {exc}") from None
    if err == driver.CUresult.CUDA_ERROR_NO_DEVICE:
        raise PlatformUnavailable("no NVIDIA GPU is visible (CUDA_VISIBLE_DEVICES may hide them)")
    if err:
        raise PlatformUnavailable(f"the NVIDIA driver did not initialize: {describe(driver, err)}")
    return driver


def describe(driver, err) -> str:
    """A CUresult as the driver names and words it."""
    name = driver.cuGetErrorName(err)[1]
    text = driver.cuGetErrorString(err)[1]
    return f"{name.decode() if name else int(err)}: {text.decode() if text else 'unknown error'}"


def launch_entry(driver) -> int:
    """The address of the driver's cuLaunchKernel, in the default-stream flavour
    cuda-bindings itself calls (per-thread when CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM
    is set, as it reads it); 0 where the driver does not give it."""
    flags = driver.CUdriverProcAddress_flags
    per_thread = os.environ.get("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "0") not in ("", "0")
    if per_thread:
        flag = flags.CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
    else:
        flag = flags.CU_GET_PROC_ADDRESS_LEGACY_STREAM
    err, address, _ = driver.cuGetProcAddress(b"cuLaunchKernel", 12000, flag)
    return 0 if err else int(address)
