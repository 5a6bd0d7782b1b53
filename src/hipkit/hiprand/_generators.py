"""hipRAND's generators and their functions, over the platforms' providers.

A generator is made on the current device, with the provider of that device's
platform (its ``rand`` face), and is known here until destroyed: a call with a
generator not in :data:`live` answers HIPRAND_STATUS_NOT_INITIALIZED without reaching
the provider.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Any

from .. import platforms
from ..platforms.base.rand import RandLibrary, RandUnavailable
from ..runtime import hooks
from ..runtime.device import Device, get_device
from ..runtime.memory import DeviceArray, device_pointer
from ..runtime.stream import stream_handle
from ._enums import HiprandError, hiprandStatus_t

NOT_INITIALIZED = hiprandStatus_t.HIPRAND_STATUS_NOT_INITIALIZED


class GeneratorState:
    """What hipkit keeps of a live generator: its device, its provider, whether its
    output is host memory."""

    __slots__ = ("device", "host", "library")

    def __init__(self, device: Device, library: RandLibrary, host: bool):
        self.device = device
        self.library = library
        self.host = host


live: dict[int, GeneratorState] = {}
_libraries: dict[str, RandLibrary] = {}
_lock = threading.Lock()


def library_of(device: Device, function: str) -> RandLibrary:
    """The provider of ``device``'s platform, loaded once; NOT_INITIALIZED (saying what
    is missing) where the platform has none here."""
    name = device.platform.name
    library = _libraries.get(name)
    if library is None:
        with _lock:
            if name not in _libraries:
                loader = platforms.faces(name).load("rand")
                if loader is None:
                    raise HiprandError(NOT_INITIALIZED, function, f"the {name} platform serves no hipRAND")
                try:
                    _libraries[name] = loader()
                except RandUnavailable as exc:
                    raise HiprandError(NOT_INITIALIZED, function, f"{name}: {exc}") from exc
            library = _libraries[name]
    return library


def provider(device: Device | None = None) -> str:
    """The library that serves hipRAND on ``device``'s platform (default: the current
    device)."""
    return library_of(device or get_device(), "provider").description


def follows_rule(device: Device | None = None) -> bool:
    """Whether the generators of ``device``'s platform (default: the current device) make
    their numbers by hipkit's reproducibility rule (the CPU's hipRAND) rather than in
    the vendor library's own order (cuRAND, rocRAND); :mod:`hipkit.random` follows it
    everywhere."""
    return library_of(device or get_device(), "follows_rule").follows_rule


def call(name: str, function: Callable[..., int], *args: Any) -> None:
    """Call a provider's function as hipRAND function ``name``, through the tools at the
    hook point (their API rows); a status other than success raises."""
    tool = hooks.api
    status = function(*args) if tool is None else tool(name, function, args, {})
    if status:
        raise HiprandError(status, name)


def state_of(generator: Any, function: str) -> GeneratorState:
    try:
        state = live.get(generator)
    except TypeError:  # unhashable
        state = None
    if state is None:
        raise HiprandError(NOT_INITIALIZED, function, f"{generator!r} is not a live hiprandGenerator_t")
    return state


def _on(generator: Any, name: str, *args: Any) -> GeneratorState:
    state = state_of(generator, name)
    state.device.set_current()  # the vendor library's generator is its context's
    call(name, state.library.function(name), generator, *args)
    return state


def _create(name: str, rng_type: int, host: bool) -> int:
    device = get_device()
    library = library_of(device, name)
    device.set_current()  # the vendor library makes its generator on this device...
    library.set_device(device._native)  # ...or is told it (the CPU's provider)
    slot = ctypes.c_void_p()
    call(name, library.function(name), ctypes.addressof(slot), int(rng_type))
    generator = slot.value or 0
    live[generator] = GeneratorState(device, library, host)
    return generator


def hiprandCreateGenerator(rng_type: int) -> int:
    """A new generator of ``rng_type`` (a hiprandRngType_t) on the current device; its
    output is device memory of that device, made in order on its stream."""
    return _create("hiprandCreateGenerator", rng_type, False)


def hiprandCreateGeneratorHost(rng_type: int) -> int:
    """A new generator of ``rng_type`` whose output is host memory (a NumPy array),
    made before each call returns."""
    return _create("hiprandCreateGeneratorHost", rng_type, True)


def hiprandDestroyGenerator(generator: int) -> None:
    """Release the generator; any later use answers HIPRAND_STATUS_NOT_INITIALIZED."""
    _on(generator, "hiprandDestroyGenerator")
    live.pop(generator, None)


def hiprandSetStream(generator: int, stream: Any) -> None:
    """Queue the generator's work on ``stream`` (a hipkit Stream, a native handle, or
    None for the null stream)."""
    _on(generator, "hiprandSetStream", stream_handle(stream))


def hiprandSetPseudoRandomGeneratorSeed(generator: int, seed: int) -> None:
    _on(generator, "hiprandSetPseudoRandomGeneratorSeed", int(seed))


def hiprandSetGeneratorOffset(generator: int, offset: int) -> None:
    _on(generator, "hiprandSetGeneratorOffset", int(offset))


def hiprandSetQuasiRandomGeneratorDimensions(generator: int, dimensions: int) -> None:
    _on(generator, "hiprandSetQuasiRandomGeneratorDimensions", int(dimensions))


def hiprandGenerateSeeds(generator: int) -> None:
    _on(generator, "hiprandGenerateSeeds")


def hiprandGetVersion() -> int:
    """hipRAND's version number (the provider's: hipkit's hipRAND API level on the
    CPU, cuRAND's on NVIDIA)."""
    library = library_of(get_device(), "hiprandGetVersion")
    version = ctypes.c_int()
    call("hiprandGetVersion", library.function("hiprandGetVersion"), ctypes.addressof(version))
    return version.value


def _output(state: GeneratorState, out: Any, name: str) -> int:
    if state.host and not isinstance(out, (int, DeviceArray)):
        import numpy as np

        if isinstance(out, np.ndarray):
            if not out.flags.writeable:
                raise ValueError(f"{name}: output_data: the host array is read-only")
            return out.ctypes.data
    return device_pointer(out, state.device, name, "output_data")


def _generate(name: str, generator: Any, out: Any, n: int, *args: Any) -> None:
    state = state_of(generator, name)
    state.device.set_current()
    call(name, state.library.function(name), generator, _output(state, out, name), int(n), *args)


def hiprandGenerate(generator: int, output_data: Any, n: int) -> None:
    """n uniformly distributed 32-bit unsigned integers into ``output_data``."""
    _generate("hiprandGenerate", generator, output_data, n)


def hiprandGenerateUniform(generator: int, output_data: Any, n: int) -> None:
    """n floats uniformly distributed in (0, 1]."""
    _generate("hiprandGenerateUniform", generator, output_data, n)


def hiprandGenerateUniformDouble(generator: int, output_data: Any, n: int) -> None:
    """n doubles uniformly distributed in (0, 1]."""
    _generate("hiprandGenerateUniformDouble", generator, output_data, n)


def hiprandGenerateNormal(generator: int, output_data: Any, n: int, mean: float, stddev: float) -> None:
    """n normally distributed floats (n even, the output aligned to a pair)."""
    _generate("hiprandGenerateNormal", generator, output_data, n, float(mean), float(stddev))


def hiprandGenerateNormalDouble(generator: int, output_data: Any, n: int, mean: float, stddev: float) -> None:
    """n normally distributed doubles (n even, the output aligned to a pair)."""
    _generate("hiprandGenerateNormalDouble", generator, output_data, n, float(mean), float(stddev))


def hiprandGenerateLogNormal(generator: int, output_data: Any, n: int, mean: float, stddev: float) -> None:
    """n log-normally distributed floats: exp of normals of ``mean`` and ``stddev``."""
    _generate("hiprandGenerateLogNormal", generator, output_data, n, float(mean), float(stddev))


def hiprandGenerateLogNormalDouble(
    generator: int, output_data: Any, n: int, mean: float, stddev: float
) -> None:
    """n log-normally distributed doubles."""
    _generate("hiprandGenerateLogNormalDouble", generator, output_data, n, float(mean), float(stddev))


def hiprandGeneratePoisson(generator: int, output_data: Any, n: int, lambda_: float) -> None:
    """n Poisson-distributed 32-bit unsigned integers of mean ``lambda_`` (> 0)."""
    _generate("hiprandGeneratePoisson", generator, output_data, n, float(lambda_))
