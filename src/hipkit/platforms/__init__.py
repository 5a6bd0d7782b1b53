"""Platforms: discovery and choice (the runtime's 'kernel driver' layer).

Each platform is found by name and made once.  A platform that cannot run here
(no GPU, no driver, no package, no compiler) is *absent*, with a reason that
``hipkit info`` shows; the default is the first usable of nvidia, amd, cpu,
unless ``HIPKIT_PLATFORM`` names one.
"""

from __future__ import annotations

import importlib
import threading

from .. import config
from .._errors import HipError
from .base import Platform, PlatformUnavailable

# name -> "module:class"; a platform is one module behind the interface in base.py.
_KNOWN = {
    "cpu": "hipkit.platforms.cpu:CpuPlatform",
    "nvidia": "hipkit.platforms.nvidia:NvidiaPlatform",
    "amd": "hipkit.platforms.amd:AmdPlatform",
}
_ORDER = ("nvidia", "amd", "cpu")

_lock = threading.Lock()
_made: dict[str, Platform | PlatformUnavailable] = {}


def known() -> tuple[str, ...]:
    """Names of the platforms this hipkit has, in order of preference."""
    return tuple(name for name in _ORDER if name in _KNOWN)


def platform_class(name: str) -> type[Platform]:
    """The class of platform ``name``, without making it: its static methods
    (compiling for its targets) work where the platform cannot run."""
    if name not in _KNOWN:
        if name in _ORDER:
            raise HipError(100, f"this version of hipkit has no {name} platform")
        raise ValueError(f"unknown platform {name!r}; hipkit has {', '.join(known())}")
    module_name, class_name = _KNOWN[name].split(":")
    cls: type[Platform] = getattr(importlib.import_module(module_name), class_name)
    return cls


def _make(name: str) -> Platform | PlatformUnavailable:
    with _lock:
        if name not in _made:
            try:
                _made[name] = platform_class(name)()
            except PlatformUnavailable as exc:
                _made[name] = exc
        return _made[name]


def get(name: str) -> Platform:
    """The platform called ``name``; HipError(hipErrorNoDevice) if it is absent."""
    platform_class(name)  # unknown names raise here
    made = _make(name)
    if isinstance(made, PlatformUnavailable):
        raise HipError(100, f"platform {name} is not available: {made}")
    return made


def status() -> dict[str, str]:
    """For each known platform: "" if usable, else why not."""
    return {name: ("" if isinstance(_make(name), Platform) else str(_make(name))) for name in known()}


def default() -> Platform:
    """HIPKIT_PLATFORM's platform, else the first usable in preference order."""
    forced = config.get("HIPKIT_PLATFORM")
    if forced:
        return get(forced)
    reasons = []
    for name in known():
        made = _make(name)
        if isinstance(made, Platform):
            return made
        reasons.append(f"{name}: {made}")
    raise HipError(100, "no usable platform (" + "; ".join(reasons) + ")")
