"""hipkit.hiprand: hipRAND's host API by its own names, on every platform, for ported code.

hipRAND's generator functions and enums, with hipRAND's numbers.  The numbers are
made by the platform's provider (hipkit's own generators on the CPU, cuRAND on
NVIDIA, ROCm's hipRAND on AMD), queued on the generator's stream in order with
kernels and copies.  :mod:`hipkit.random` is the NumPy-shaped layer.

Conventions
-----------
- Arguments are hipRAND's, in hipRAND's order; what C writes to an out-parameter is
  returned instead: ``generator = hiprandCreateGenerator(HIPRAND_RNG_PSEUDO_PHILOX4_32_10)``,
  ``version = hiprandGetVersion()``.  ``lambda`` is ``lambda_`` (a Python keyword).
- A status other than HIPRAND_STATUS_SUCCESS raises :class:`HiprandError`, with
  ``.status`` (a :class:`hiprandStatus_t`) and ``.function``.  A destroyed or unknown
  generator raises HIPRAND_STATUS_NOT_INITIALIZED (the provider is not called).
- Output is a device pointer (an int), a :class:`hipkit.DeviceArray`, or any DLPack or
  CUDA array interface tensor on the generator's device, written in place; for a
  host generator (hiprandCreateGeneratorHost), a NumPy array.
- Under ``hipkit.profile()`` every call is an API row named by hipRAND.

Example
-------
>>> import numpy as np, hipkit
>>> from hipkit import hiprand
>>> g = hiprand.hiprandCreateGenerator(hiprand.HIPRAND_RNG_PSEUDO_PHILOX4_32_10)
>>> hiprand.hiprandSetPseudoRandomGeneratorSeed(g, 1234)
>>> x = hipkit.empty(1000, np.float32)
>>> hiprand.hiprandGenerateUniform(g, x, x.size)
>>> bool(0 < x.get().min() and x.get().max() <= 1)
True
>>> hiprand.hiprandDestroyGenerator(g)
"""

from __future__ import annotations

from ._enums import HiprandError, hiprandRngType_t, hiprandStatus_t
from ._generators import (
    follows_rule,
    hiprandCreateGenerator,
    hiprandCreateGeneratorHost,
    hiprandDestroyGenerator,
    hiprandGenerate,
    hiprandGenerateLogNormal,
    hiprandGenerateLogNormalDouble,
    hiprandGenerateNormal,
    hiprandGenerateNormalDouble,
    hiprandGeneratePoisson,
    hiprandGenerateSeeds,
    hiprandGenerateUniform,
    hiprandGenerateUniformDouble,
    hiprandGetVersion,
    hiprandSetGeneratorOffset,
    hiprandSetPseudoRandomGeneratorSeed,
    hiprandSetQuasiRandomGeneratorDimensions,
    hiprandSetStream,
    provider,
)

globals().update({e.name: e for enum in (hiprandStatus_t, hiprandRngType_t) for e in enum})

__all__ = [
    "HiprandError",
    "follows_rule",
    "hiprandCreateGenerator",
    "hiprandCreateGeneratorHost",
    "hiprandDestroyGenerator",
    "hiprandGenerate",
    "hiprandGenerateLogNormal",
    "hiprandGenerateLogNormalDouble",
    "hiprandGenerateNormal",
    "hiprandGenerateNormalDouble",
    "hiprandGeneratePoisson",
    "hiprandGenerateSeeds",
    "hiprandGenerateUniform",
    "hiprandGenerateUniformDouble",
    "hiprandGetVersion",
    "hiprandRngType_t",
    "hiprandSetGeneratorOffset",
    "hiprandSetPseudoRandomGeneratorSeed",
    "hiprandSetQuasiRandomGeneratorDimensions",
    "hiprandSetStream",
    "hiprandStatus_t",
    "provider",
    *(e.name for enum in (hiprandStatus_t, hiprandRngType_t) for e in enum),
]
