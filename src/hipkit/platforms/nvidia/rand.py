"""The NVIDIA platform's hipRAND: cuRAND, through NVIDIA's bindings of it (nvmath-python's
``nvmath.bindings.curand``), behind the RAND seam (:mod:`hipkit.platforms.base.rand`).

hipRAND's numbers (statuses, generator types) are cuRAND's, so each function passes its
C arguments to nvmath's function of the same cuRAND call and answers cuRAND's status
(a ``cuRANDError``'s).  A generator belongs to the CUDA context current when it was made
(the front end makes its device current for every call).  Its numbers are cuRAND's, in
cuRAND's order; hipkit's own kernels make the reproducibility rule's (:mod:`hipkit.random`).

Example
-------
>>> from hipkit.platforms.nvidia.rand import library
>>> library().description  # doctest: +SKIP  (an NVIDIA GPU and nvmath-python)
'cuRAND 10.4.1'
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any

from ..base.platform import PlatformUnavailable
from ..base.rand import RandLibrary, RandUnavailable
from . import driver

__all__ = ["CurandLibrary", "library"]

_INSTALL = "pip install 'hipkit[nvidia]'"
SUCCESS, TYPE_ERROR, OUT_OF_RANGE = 0, 103, 104
# hipRAND's generator types (ROCm's numbers, every platform's in hipkit) as cuRAND's:
# hipRAND on NVIDIA takes cuRAND's enum, so its numbers differ (PHILOX4_32_10 is 405
# in ROCm, 161 in cuRAND).  Any other number (HIPRAND_RNG_TEST too) is hipRAND's TYPE_ERROR.
CURAND_TYPES = {400: 100, 401: 101, 402: 121, 403: 141, 404: 142, 405: 161}
CURAND_TYPES |= {500: 200, 501: 201, 502: 202, 503: 203, 504: 204}
# hipRAND's functions: nvmath's name of the cuRAND call, which takes the same arguments.
_CALLS = {
    "hiprandDestroyGenerator": "destroy_generator",
    "hiprandSetStream": "set_stream",
    "hiprandSetPseudoRandomGeneratorSeed": "set_pseudo_random_generator_seed",
    "hiprandSetGeneratorOffset": "set_generator_offset",
    "hiprandSetQuasiRandomGeneratorDimensions": "set_quasi_random_generator_dimensions",
    "hiprandGenerateSeeds": "generate_seeds",
    "hiprandGenerate": "generate",
    "hiprandGenerateUniform": "generate_uniform",
    "hiprandGenerateUniformDouble": "generate_uniform_double",
    "hiprandGenerateNormal": "generate_normal",
    "hiprandGenerateNormalDouble": "generate_normal_double",
    "hiprandGenerateLogNormal": "generate_log_normal",
    "hiprandGenerateLogNormalDouble": "generate_log_normal_double",
    "hiprandGeneratePoisson": "generate_poisson",
}


class CurandLibrary(RandLibrary):
    """hipRAND's C functions over cuRAND (module doc); ``curand`` is
    ``nvmath.bindings.curand``, loaded by the first call that needs it."""

    def __init__(self, curand: Any) -> None:
        self._curand = curand
        self._error = curand.cuRANDError
        self._functions: dict[str, Callable[..., int]] = {
            name: self._passing(getattr(curand, call)) for name, call in _CALLS.items()
        }
        for name in ("hiprandCreateGenerator", "hiprandCreateGeneratorHost", "hiprandGetVersion"):
            self._functions[name] = getattr(self, name)

    @functools.cached_property
    def description(self) -> str:
        get = self._curand.get_property  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
        return f"cuRAND {get(0)}.{get(1)}.{get(2)}"

    def function(self, name: str) -> Callable[..., int]:
        return self._functions[name]

    def _passing(self, call: Callable[..., Any]) -> Callable[..., int]:
        error = self._error

        def function(*args: Any) -> int:
            try:
                call(*args)
            except error as exc:
                return int(exc.status)
            return SUCCESS

        return function

    def _create(self, make: Callable[[int], int], generator: int, rng_type: int) -> int:
        if rng_type not in CURAND_TYPES:
            return TYPE_ERROR
        try:
            made = make(CURAND_TYPES[rng_type])
        except self._error as exc:
            return int(exc.status)
        ctypes.c_void_p.from_address(generator).value = made
        return SUCCESS

    def hiprandCreateGenerator(self, generator: int, rng_type: int) -> int:
        return self._create(self._curand.create_generator, generator, rng_type)

    def hiprandCreateGeneratorHost(self, generator: int, rng_type: int) -> int:
        return self._create(self._curand.create_generator_host, generator, rng_type)

    def hiprandGetVersion(self, version: int) -> int:
        if not version:
            return OUT_OF_RANGE
        ctypes.c_int.from_address(version).value = self._curand.get_version()
        return SUCCESS


def library() -> RandLibrary:
    """The NVIDIA platform's hipRAND (the ``rand`` face), loaded once; RandUnavailable
    where nvmath-python, the NVIDIA driver or cuRAND is missing, saying which."""
    try:
        import nvmath.bindings.curand as curand
    except ImportError:
        raise RandUnavailable(
            f"nvmath-python is not installed, which hipkit's cuRAND uses ({_INSTALL})"
        ) from None
    try:
        driver.load()
    except PlatformUnavailable as exc:
        raise RandUnavailable(f"cuRAND needs the NVIDIA driver: {exc}") from None
    rand = CurandLibrary(curand)
    try:
        _ = rand.description  # loads libcurand
    except Exception as exc:  # nvmath's loader raises its own classes (library not found...)
        raise RandUnavailable(
            f"cuRAND could not be loaded: {exc} ({_INSTALL}, which installs nvidia-curand)"
        ) from None
    return rand
