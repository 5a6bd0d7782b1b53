"""``hipkit cc``: a hipcc-compatible driver for whole HIP programs.

Host code and kernels, several source files, objects and libraries are built
with hipcc's options into an executable for a platform (``--platform``): ``cpu``
(the system C++ compiler and hipkit's CPU runtime), ``nvidia`` (nvcc with
hipkit's HIP-on-CUDA headers) or ``amd`` (ROCm's hipcc): each platform's
toolchain, in its folder (``hipkit/platforms/<name>/toolchain.py``).  ``hipkit run`` builds
into the cache and runs.

Example
-------
>>> from hipkit import cc
>>> options = cc.parse_args(["-O2", "-o", "vector_add", "examples/vector_add.cpp"])
>>> cc.build(options, warn=print)  # doctest: +SKIP
[PosixPath('vector_add')]
"""

from __future__ import annotations

import importlib

from ..platforms.base.options import OptionError, Options, parse_args

# The names of the build, imported on first use: hipkit run of a cached
# program needs only the options and hipkit.cc.manifest, not the toolchains
# (subprocess, threads) behind these.
_EXPORTS = {
    "build": ".driver",
    "cached_program": ".driver",
    "Tool": "..platforms.base.toolchain",
    "Toolchain": "..platforms.base.toolchain",
    "Unit": "..platforms.base.toolchain",
    "default_platform": ".toolchains",
    "find_tools": ".toolchains",
    "report": ".toolchains",
    "select": ".toolchains",
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..platforms.base.toolchain import Tool, Toolchain, Unit
    from .driver import build, cached_program
    from .toolchains import default_platform, find_tools, report, select


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "OptionError",
    "Options",
    "Tool",
    "Toolchain",
    "Unit",
    "build",
    "cached_program",
    "default_platform",
    "find_tools",
    "parse_args",
    "report",
    "select",
]
