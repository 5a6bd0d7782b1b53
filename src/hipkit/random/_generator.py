"""hipkit.random's Generator: NumPy's Generator methods, the numbers made on the device
by hipkit's own kernels (``kernels.hip``) by the reproducibility rule."""

from __future__ import annotations

import operator
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.device import Device, get_device
from ..runtime.memory import DeviceArray, empty
from ..runtime.module import Module, compile

__all__ = ["Generator", "default_rng"]

_SOURCE = (Path(__file__).parent / "kernels.hip").read_text()
# The kernels' kinds (kernels.hip's Kind) and the numbers each element takes.
BITS, FLOAT01, DOUBLE01, NORMAL, NORMAL_DOUBLE, INT32, INT64 = range(7)
_NUMBERS = {BITS: 1, FLOAT01: 1, DOUBLE01: 2, NORMAL: 1, NORMAL_DOUBLE: 2, INT32: 1, INT64: 2}
_BLOCK = 256
# Threads beyond grid x block loop (the numbers do not depend on the launch): 32 blocks a
# multiprocessor, the best of an H200 sweep of 128 to 1024 threads by 528 to 2^20 blocks
# (831 Gsamples/s of float32 against 777 with the 65535 blocks of before; RESULTS.md).
_BLOCKS_PER_MULTIPROCESSOR = 32
_MAX_GRID = 65535  # Poisson's kernel: a thread per 4096 numbers, beyond that looping

_modules: dict[tuple[str, int], Module] = {}
_lock = threading.Lock()


def _module(device: Device) -> Module:
    key = (device.platform.name, device.index)
    module = _modules.get(key)
    if module is None:
        with _lock, device:
            names = [f"hk_random<{kind}>" for kind in _NUMBERS]
            module = _modules.setdefault(key, compile(_SOURCE, name_expressions=names))
    return module


def _shape(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    shape = (operator.index(size),) if np.ndim(size) == 0 else tuple(operator.index(s) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def _float_dtype(dtype: Any) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"Unsupported dtype {dtype} for this method: float32 or float64")
    return dtype


class Generator:
    """Random numbers on the device in the style of ``numpy.random.Generator``, from
    Philox4x32-10 by hipkit's reproducibility rule: for the same seed, the same calls
    give the same bits on every platform and for every launch (README).

    Each call returns a new :class:`hipkit.DeviceArray` of ``size`` on the current device
    (or writes ``out``), and moves the generator's position past the numbers it took.

    Parameters
    ----------
    seed
        The Philox key, a 64-bit int.
    offset
        Where in the stream (seed, subsequence 0) the first call starts.

    Example
    -------
    >>> import hipkit.random
    >>> rng = hipkit.random.default_rng(42)
    >>> x = rng.standard_normal((1000, 3), dtype="float32")
    >>> x.shape, x.dtype
    ((1000, 3), dtype('float32'))
    """

    def __init__(self, seed: int, offset: int = 0) -> None:
        self.seed = int(seed) % 2**64
        self.offset = int(offset)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Generator(Philox4x32-10, seed={self.seed}, offset={self.offset})"

    def _take(self, count: int) -> int:
        """The position of the next ``count`` numbers (or Poisson numbers), taken."""
        with self._lock:
            start = self.offset
            if start + count > 2**64:
                raise OverflowError("the generator's stream is spent (2^64 numbers)")
            self.offset += count
            return start

    def _output(self, shape: tuple[int, ...], dtype: np.dtype, out: DeviceArray | None) -> DeviceArray:
        if out is None:
            return empty(shape, dtype)
        if not isinstance(out, DeviceArray) or out.dtype != dtype or not out.is_contiguous:
            raise TypeError(f"out must be a C-contiguous hipkit DeviceArray of {dtype}")
        return out

    def _launch(
        self, kind: int, out: DeviceArray, low: float = 0.0, high: float = 1.0, ilow: int = 0, range_: int = 0
    ) -> DeviceArray:
        n = out.size
        offset = self._take(n * _NUMBERS[kind])
        if n:
            threads = -(-n * _NUMBERS[kind] // 4)
            device = get_device()
            cap = _BLOCKS_PER_MULTIPROCESSOR * max(1, device.properties.multiProcessorCount)
            grid = min(-(-threads // _BLOCK), cap)
            kernel = _module(device).get_function(f"hk_random<{kind}>")
            kernel[grid, _BLOCK](
                np.uint64(self.seed),
                np.uint64(offset),
                np.uint64(n),
                float(low),
                float(high),
                np.int64(ilow),
                np.uint64(range_),
                out,
            )
        return out

    # ---------------------------------------------------------------- NumPy's methods

    def random(
        self, size: Any = None, dtype: Any = np.float64, out: DeviceArray | None = None
    ) -> DeviceArray:
        """Floats in [0, 1): float32 from a number's high 24 bits, float64 from 53 bits of two."""
        dtype = _float_dtype(dtype)
        result = self._output(_shape(size) if out is None else out.shape, dtype, out)
        return self._launch(FLOAT01 if dtype == np.float32 else DOUBLE01, result)

    def uniform(
        self, low: float = 0.0, high: float = 1.0, size: Any = None, dtype: Any = np.float64
    ) -> DeviceArray:
        """Floats in [low, high): low + (high - low) random()."""
        dtype = _float_dtype(dtype)
        if not (np.isfinite(low) and np.isfinite(high)):
            raise ValueError("low and high must be finite")
        kind = FLOAT01 if dtype == np.float32 else DOUBLE01
        return self._launch(kind, empty(_shape(size), dtype), low, high)

    def standard_normal(
        self, size: Any = None, dtype: Any = np.float64, out: DeviceArray | None = None
    ) -> DeviceArray:
        """Standard normal floats: Box-Muller pairs, of two numbers (float32) or four (float64)."""
        return self.normal(0.0, 1.0, size, dtype, out)

    def normal(
        self,
        loc: float = 0.0,
        scale: float = 1.0,
        size: Any = None,
        dtype: Any = np.float64,
        out: DeviceArray | None = None,
    ) -> DeviceArray:
        """Normal floats of mean ``loc`` and standard deviation ``scale`` (>= 0)."""
        if scale < 0:
            raise ValueError("scale < 0")
        dtype = _float_dtype(dtype)
        result = self._output(_shape(size) if out is None else out.shape, dtype, out)
        return self._launch(NORMAL if dtype == np.float32 else NORMAL_DOUBLE, result, loc, scale)

    def integers(
        self,
        low: int,
        high: int | None = None,
        size: Any = None,
        dtype: Any = np.int64,
        endpoint: bool = False,
    ) -> DeviceArray:
        """int64s in [low, high) ([low, high] with ``endpoint``; [0, low) without ``high``):
        low + (x range) >> 32 of one number for ranges up to 2^32, of two (64 bits) above."""
        if np.dtype(dtype) != np.int64:
            raise TypeError(f"Unsupported dtype {np.dtype(dtype)} for integers: int64")
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high) + (1 if endpoint else 0)
        if high <= low:
            raise ValueError("high <= low" if not endpoint else "high < low")
        span = high - low
        if low < -(2**63) or high > 2**63:
            raise ValueError("low and high must be within int64")
        kind = INT32 if span <= 2**32 else INT64
        return self._launch(kind, empty(_shape(size), np.int64), ilow=low, range_=span % 2**64)

    def poisson(self, lam: float = 1.0, size: Any = None) -> DeviceArray:
        """uint32 Poisson numbers of mean ``lam`` (> 0): number j of the generator's
        Poisson sequence is draw j % 4096 of Philox's subsequence 1 + j // 4096
        (hiprand_poisson: Knuth below 64, rejection to 4000, the normal above)."""
        if not lam > 0:
            raise ValueError("lam must be > 0")
        out = empty(_shape(size), np.uint32)
        n = out.size
        offset = self._take(n)
        if n:
            blocks = (offset + n + 4095) // 4096 - offset // 4096
            grid = min(-(-blocks // 64), _MAX_GRID)
            kernel = _module(get_device()).get_function("hk_random_poisson")
            kernel[grid, 64](np.uint64(self.seed), np.uint64(offset), np.uint64(n), float(lam), out)
        return out


def default_rng(seed: int | None = None) -> Generator:
    """A :class:`Generator` seeded with ``seed`` (an int; None: fresh entropy), as
    ``numpy.random.default_rng``."""
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    return Generator(seed)
