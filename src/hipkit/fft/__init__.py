"""hipkit.fft: ``numpy.fft`` on device arrays, on every platform.

The functions are NumPy's, with its arguments (``n``/``s``, ``axis``/``axes``,
``norm``, ``out``: C-contiguous, of the result's shape and dtype) and one more,
``stream=`` (a hipkit Stream, a native handle or None: the null stream), on which the
work is queued in order with kernels and copies.  Arrays are
hipkit DeviceArrays or DLPack tensors on the device (PyTorch, CuPy; on the CPU
platform, NumPy arrays), read in place; the result is a new DeviceArray (a view in the
input's axis order of a buffer laid out for the transform: a transform over the
first axes comes back with the transformed axes' strides smallest).

- Transforms: :func:`fft`, :func:`ifft`, :func:`rfft`, :func:`irfft`, :func:`fft2`,
  :func:`ifft2`, :func:`rfft2`, :func:`irfft2`, :func:`fftn`, :func:`ifftn`,
  :func:`rfftn`, :func:`irfftn`; helpers :func:`fftfreq`, :func:`rfftfreq`,
  :func:`fftshift`, :func:`ifftshift`.
- dtypes: complex64 and float32 compute in single precision, complex128 and float64
  in double (NumPy 2's rule); others are a TypeError.  Real inputs of ``fft`` are
  made complex on the device.
- Each call is one hipFFT plan per three axes (hipkit.hipfft, the provider of the
  device's platform: scipy.fft on the CPU, cuFFT on NVIDIA, rocFFT on AMD), found in
  the device's plan cache (:func:`get_plan_cache`).  Inputs whose strides hipFFT can
  describe are read where they are; others (padding, another dtype, a layout it
  cannot describe) are first gathered by a kernel of hipkit's own.
- Errors as NumPy's: an axis out of range, repeated axes, ``len(s) != len(axes)``, a
  length below 1, an unknown ``norm``: ValueError; a dtype not served: TypeError.

Example
-------
>>> import numpy as np, hipkit
>>> from hipkit import fft
>>> x = hipkit.to_device(np.random.default_rng(0).random((4, 64)).astype(np.float32))
>>> spectrum = fft.rfft(x)                      # 4 transforms of 64 points: (4, 33)
>>> bool(np.allclose(fft.irfft(spectrum).get(), x.get(), atol=1e-5))
True
>>> fft.get_plan_cache().info()["plans"]
2
"""

from __future__ import annotations

from ._helpers import fftfreq, fftshift, ifftshift, rfftfreq
from ._numpy import fft, fft2, fftn, ifft, ifft2, ifftn, irfft, irfft2, irfftn, rfft, rfft2, rfftn
from ._plan_cache import PlanCache, get_plan_cache

__all__ = [
    "PlanCache",
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "get_plan_cache",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]
