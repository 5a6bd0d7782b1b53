"""Platforms: the one registry, discovery and choice (the runtime's 'kernel driver' layer).

A platform is one folder, ``hipkit/platforms/<name>/``, holding every face of it:
its runtime and compiler, its program toolchain, its doctor checks, its tracing
for programs and its toolkit lookup.  Its package declares them in ``FACES``
(:class:`~hipkit.platforms.base.faces.Faces`), and it is registered here once,
by name, order and package.  The runtime, ``hipkit cc``, ``doctor``, ``info``,
``prof`` and the test suite read this one list.

A platform that cannot run here (no GPU, no driver, no package, no compiler) is
*absent*, with a reason that ``hipkit info`` shows; the default is the first
usable in order, unless ``HIPKIT_PLATFORM`` names one.

Example
-------
>>> from hipkit import platforms
>>> platforms.known()[-1]
'cpu'
"""

from __future__ import annotations

import _thread  # not threading: the registry is on hipkit run's fast path
import importlib
import os

from .. import config

# The registry is read on hipkit run's fast path: nothing here imports a
# platform's runtime, NumPy, typing or dataclasses until a runtime is asked for.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base.faces import Faces
    from .base.platform import Platform, PlatformUnavailable

__all__ = [
    "default",
    "faces",
    "forced",
    "get",
    "having",
    "known",
    "platform_class",
    "register",
    "status",
    "unregister",
]

# name -> (order, package): the default platform is the first usable in order,
# the CPU, always present, last.
_REGISTRY: dict[str, tuple[int, str]] = {
    "nvidia": (10, "hipkit.platforms.nvidia"),
    "amd": (20, "hipkit.platforms.amd"),
    "cpu": (100, "hipkit.platforms.cpu"),
}

_lock = _thread.allocate_lock()
_made: dict[str, Platform | PlatformUnavailable] = {}


def register(name: str, package: str, order: int) -> None:
    """Add platform ``name``, whose package (importable by that name) defines
    ``FACES``; ``order`` places it among the others (lower is preferred: NVIDIA
    is 10, AMD 20, the CPU 100).  A name already registered, or one that is not a
    lower-case identifier (what HIPKIT_PLATFORM and --platform take), is a ValueError."""
    if not (name.isidentifier() and name == name.lower()):
        raise ValueError(f"a platform's name is a lower-case identifier, not {name!r}")
    with _lock:
        if name in _REGISTRY:
            raise ValueError(f"a platform {name!r} is registered already ({_REGISTRY[name][1]})")
        _REGISTRY[name] = (order, package)


def unregister(name: str) -> None:
    """Remove platform ``name`` and forget it if it was made (a platform added by
    :func:`register`; the built-in ones can be removed too)."""
    with _lock:
        if name not in _REGISTRY:
            raise ValueError(f"no platform {name!r} is registered")
        del _REGISTRY[name]
        _made.pop(name, None)


def known() -> tuple[str, ...]:
    """Names of the platforms this hipkit has, in order of preference."""
    return tuple(sorted(_REGISTRY, key=lambda name: _REGISTRY[name][0]))


def having(face: str) -> tuple[str, ...]:
    """The platforms that have ``face`` (one of Faces' names, e.g. "toolchain": those
    whose programs hipkit cc builds), in order of preference."""
    return tuple(name for name in known() if getattr(faces(name), face) is not None)


def forced() -> str:
    """The platform HIPKIT_PLATFORM names ("" when it is unset).  A name the
    registry does not have is a ValueError naming the variable."""
    name: str = config.get("HIPKIT_PLATFORM")
    if name and name not in _REGISTRY:
        raw = os.environ.get("HIPKIT_PLATFORM")
        raise ValueError(f"HIPKIT_PLATFORM={raw!r}: expected one of {', '.join(known())}")
    return name


def faces(name: str) -> Faces:
    """What platform ``name``'s folder declares (imports its package, nothing more)."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown platform {name!r}; hipkit has {', '.join(known())}")
    declared: Faces = importlib.import_module(_REGISTRY[name][1]).FACES
    return declared


def platform_class(name: str) -> type[Platform]:
    """The class of platform ``name``, without making it: its static methods
    (compiling for its targets) work where the platform cannot run."""
    cls: type[Platform] = faces(name).load("runtime")
    return cls


def _make(name: str) -> Platform | PlatformUnavailable:
    from .base.platform import PlatformUnavailable

    with _lock:
        if name not in _made:
            try:
                _made[name] = platform_class(name)()
            except PlatformUnavailable as exc:
                _made[name] = exc
        return _made[name]


def get(name: str) -> Platform:
    """The platform called ``name``; HipError(hipErrorNoDevice) if it is absent."""
    from .._errors import HipError, hipError_t
    from .base.platform import PlatformUnavailable

    platform_class(name)  # unknown names raise here
    made = _make(name)
    if isinstance(made, PlatformUnavailable):
        raise HipError(hipError_t.hipErrorNoDevice, f"platform {name} is not available: {made}")
    return made


def status() -> dict[str, str]:
    """For each known platform: "" if usable, else why not."""
    from .base.platform import PlatformUnavailable

    made = {name: _make(name) for name in known()}
    return {name: str(m) if isinstance(m, PlatformUnavailable) else "" for name, m in made.items()}


def default() -> Platform:
    """HIPKIT_PLATFORM's platform, else the first usable in preference order."""
    from .._errors import HipError, hipError_t
    from .base.platform import PlatformUnavailable

    name = forced()
    if name:
        return get(name)
    reasons = []
    for name in known():
        made = _make(name)
        if not isinstance(made, PlatformUnavailable):
            return made
        reasons.append(f"{name}: {made}")
    raise HipError(hipError_t.hipErrorNoDevice, "no usable platform (" + "; ".join(reasons) + ")")
