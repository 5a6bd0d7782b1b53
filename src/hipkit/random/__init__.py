"""hipkit.random: random numbers on the device in NumPy's Generator style.

``hipkit.random.default_rng(seed)`` gives a :class:`Generator` with NumPy's methods
(``random``, ``uniform``, ``normal``, ``standard_normal``, ``integers``, ``poisson``),
each returning a :class:`hipkit.DeviceArray` on the current device.  The numbers come
from Philox4x32-10 by hipkit's reproducibility rule (README, "Random numbers"): for the
same seed and the same calls, the same bits on the CPU, on NVIDIA and on AMD, whatever
the launch; they are made by hipkit's own HIP kernels (``kernels.hip``) over the
portable device API (``hiprand/hiprand_kernel.h``).  For hipRAND's C API (and the
vendors' libraries: cuRAND, rocRAND) see :mod:`hipkit.hiprand`.

Example
-------
>>> import hipkit.random
>>> rng = hipkit.random.default_rng(2026)
>>> u = rng.random(10_000, dtype="float32")
>>> bool(0 <= u.get().min() and u.get().max() < 1)
True
"""

from __future__ import annotations

from ._generator import Generator, default_rng

__all__ = ["Generator", "default_rng"]
