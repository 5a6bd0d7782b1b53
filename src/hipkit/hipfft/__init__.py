"""hipkit.hipfft: hipFFT by its own names, on every platform, for ported code.

hipFFT's plan functions and transforms (``hipfftPlan1d``, ``hipfftPlanMany``,
``hipfftCreate`` + ``hipfftMakePlan*``, ``hipfftGetSize*``, ``hipfftSetStream``,
``hipfftSetWorkArea``, ``hipfftSetAutoAllocation``, ``hipfftExtPlanScaleFactor``,
``hipfftExecC2C/R2C/C2R/Z2Z/D2Z/Z2D``, ``hipfftDestroy``), ``hipfftGetVersion`` and
``hipfftGetProperty``, its types, properties and result codes with hipFFT's numbers
(``hipfft.HIPFFT_C2C == 0x29``), over the provider of the current device's platform:
scipy.fft on the CPU, cuFFT on NVIDIA, ROCm's hipFFT on AMD.

- hipFFT's arguments in hipFFT's order; what C writes to an out-parameter is
  returned: ``plan = hipfftPlan1d(nx, type, batch)``, ``plan = hipfftCreate()``,
  ``work = hipfftMakePlan1d(plan, nx, type, batch)``, ``work = hipfftGetSize(plan)``,
  ``version = hipfftGetVersion()``.
  ``n``, ``inembed`` and ``onembed`` are sequences of ints (None: NULL).
- A result other than HIPFFT_SUCCESS raises :class:`HipfftError`, with ``.result``
  (a :class:`hipfftResult`) and ``.function``.  A plan that is not live (never made
  here, destroyed, or its device reset since) is HIPFFT_INVALID_PLAN, checked here.
- Data: a device pointer (int), a hipkit DeviceArray, or a DLPack /
  CUDA-array-interface tensor on the plan's device, in place; as in C, memory must
  outlive the work queued on it.  Inverse transforms are unnormalized.

Example
-------
>>> import numpy as np, hipkit
>>> from hipkit import hipfft
>>> x = hipkit.to_device(np.exp(2j * np.pi * np.arange(8) / 8).astype(np.complex64))
>>> y = hipkit.empty(8, np.complex64)
>>> plan = hipfft.hipfftPlan1d(8, hipfft.HIPFFT_C2C, 1)
>>> hipfft.hipfftExecC2C(plan, x, y, hipfft.HIPFFT_FORWARD)
>>> int(np.argmax(np.abs(y.get())))
1
>>> hipfft.hipfftDestroy(plan)
"""

from __future__ import annotations

from ..platforms.base.fft import (
    HIPFFT_BACKWARD,
    HIPFFT_FORWARD,
    hipfftLibraryPropertyType,
    hipfftResult,
    hipfftType,
)
from ._api import (
    hipfftCreate,
    hipfftDestroy,
    hipfftExecC2C,
    hipfftExecC2R,
    hipfftExecD2Z,
    hipfftExecR2C,
    hipfftExecZ2D,
    hipfftExecZ2Z,
    hipfftExtPlanScaleFactor,
    hipfftGetProperty,
    hipfftGetSize,
    hipfftGetSize1d,
    hipfftGetSize2d,
    hipfftGetSize3d,
    hipfftGetSizeMany,
    hipfftGetVersion,
    hipfftMakePlan1d,
    hipfftMakePlan2d,
    hipfftMakePlan3d,
    hipfftMakePlanMany,
    hipfftPlan1d,
    hipfftPlan2d,
    hipfftPlan3d,
    hipfftPlanMany,
    hipfftSetAutoAllocation,
    hipfftSetStream,
    hipfftSetWorkArea,
)
from .plans import HipfftError, provider

globals().update(hipfftResult.__members__)
globals().update(hipfftType.__members__)
globals().update(hipfftLibraryPropertyType.__members__)

__all__ = [
    "HIPFFT_BACKWARD",
    "HIPFFT_FORWARD",
    "HipfftError",
    "hipfftCreate",
    "hipfftDestroy",
    "hipfftExecC2C",
    "hipfftExecC2R",
    "hipfftExecD2Z",
    "hipfftExecR2C",
    "hipfftExecZ2D",
    "hipfftExecZ2Z",
    "hipfftExtPlanScaleFactor",
    "hipfftGetProperty",
    "hipfftGetSize",
    "hipfftGetSize1d",
    "hipfftGetSize2d",
    "hipfftGetSize3d",
    "hipfftGetSizeMany",
    "hipfftGetVersion",
    "hipfftLibraryPropertyType",
    "hipfftMakePlan1d",
    "hipfftMakePlan2d",
    "hipfftMakePlan3d",
    "hipfftMakePlanMany",
    "hipfftPlan1d",
    "hipfftPlan2d",
    "hipfftPlan3d",
    "hipfftPlanMany",
    "hipfftResult",
    "hipfftSetAutoAllocation",
    "hipfftSetStream",
    "hipfftSetWorkArea",
    "hipfftType",
    "provider",
    *hipfftResult.__members__,
    *hipfftType.__members__,
    *hipfftLibraryPropertyType.__members__,
]


def __getattr__(name: str) -> object:  # for type checkers: the names made above
    raise AttributeError(f"module 'hipkit.hipfft' has no attribute {name!r}")
