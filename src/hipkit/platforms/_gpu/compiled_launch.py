"""The compiled launch path of the GPU platforms (``launch.cpp``).

A kernel launch from Python is the runtime's hot path.  Through cuda-bindings,
converting cuLaunchKernel's eleven arguments costs more than the driver's own
work for a small kernel, so each GPU platform calls its driver's launch entry
through a small CPython extension instead, built on first use with the system
C++ compiler (``HIPKIT_CXX``) into the build cache.

Where it cannot be built (no compiler, no ``Python.h``), launches go through
the bindings as before, a little slower; :func:`launcher` says why, and the
platforms show it as ``launch_path``.

Example
-------
>>> launch, why = launcher(entry_address, LaunchMarkers(1, 2, 0))
>>> err = launch(function, 1, 1, 1, 32, 1, 1, 0, stream, packed_args)  # doctest: +SKIP
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import shlex
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ... import _cache, config

SOURCE = Path(__file__).with_name("launch.cpp")
MODULE_NAME = "_hipkit_launch"
_FLAGS = ("-O2", "-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden")


class LaunchMarkers(NamedTuple):
    """The markers of a launch call's ``extra`` array (CU_LAUNCH_PARAM_* in
    CUDA, HIP_LAUNCH_PARAM_* in HIP: END is 0 in CUDA, 3 on AMD)."""

    buffer_pointer: int
    buffer_size: int
    end: int


# launch(function, gx, gy, gz, bx, by, bz, shared_mem, stream, packed) -> the driver's result
LaunchFunction = Callable[[int, int, int, int, int, int, int, int, int, "bytes | None"], int]


def _python_include() -> Path:
    return Path(sysconfig.get_paths()["include"])


def _build(compiler: list[str], out: Path) -> None:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    target = out / (MODULE_NAME + suffix)
    command = [*compiler, *_FLAGS, f"-I{_python_include()}", str(SOURCE), "-o", str(target)]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as exc:
        raise RuntimeError(f"cannot run the C++ compiler: {exc}") from None
    if done.returncode != 0:
        raise RuntimeError(f"$ {shlex.join(command)}\n{done.stdout}{done.stderr}")


@functools.cache
def _module():
    """The extension module, built into the cache once per compiler and Python."""
    compiler = shlex.split(config.get("HIPKIT_CXX"))
    if not (_python_include() / "Python.h").is_file():
        raise RuntimeError(f"Python.h is not in {_python_include()} (install python3-dev)")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    version = _cache.compiler_version(tuple(compiler))
    key = _cache.digest([SOURCE.read_bytes(), *compiler, *_FLAGS, version, sys.version, suffix])
    path = _cache.entry("gpu-launch", key, functools.partial(_build, compiler)) / (MODULE_NAME + suffix)
    loader = importlib.machinery.ExtensionFileLoader(MODULE_NAME, str(path))
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def launcher(entry: int, markers: LaunchMarkers) -> tuple[LaunchFunction | None, str]:
    """A compiled ``launch`` for the driver function at address ``entry`` (with
    cuLaunchKernel's signature), or None; and the launch path in words (why not)."""
    try:
        module = _module()
    except RuntimeError as exc:
        return None, f"through the bindings: the compiled launch could not be built: {exc}"
    return module.Launcher(entry, *markers).launch, "compiled (launch.cpp)"
