"""``hipkit cc``: a hipcc-compatible driver for whole HIP programs.

Host code and kernels, several source files, objects and libraries are built
with hipcc's options into an executable for a platform (``--platform``): ``cpu``
(the system C++ compiler and hipkit's CPU runtime), ``nvidia`` (nvcc with
hipkit's HIP-on-CUDA headers) or ``amd`` (ROCm's hipcc).  ``hipkit run`` builds
into the cache and runs.

Example
-------
>>> from hipkit import cc
>>> options = cc.parse_args(["-O2", "-o", "vector_add", "examples/vector_add.cpp"])
>>> cc.build(options, warn=print)  # doctest: +SKIP
[PosixPath('vector_add')]
"""

from .driver import build, cached_program
from .options import OptionError, Options, parse_args
from .toolchains import Tool, Toolchain, Unit, default_platform, find_tools, report, select

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
