"""Helpers shared by the kernel-language tests (tests/test_lang_*.py)."""

from __future__ import annotations

import functools
import os

import hipkit
from hipkit import platforms

_failed: dict[tuple, hipkit.CompileError] = {}
_compiled_for_nvidia: set[tuple] = set()


@functools.cache
def _nvidia_compile_only() -> bool:
    """Where no NVIDIA GPU runs the suite but NVRTC is installed (CI), every
    kernel source of the suite is also compiled for sm_90."""
    from hipkit.platforms.nvidia import compiler

    return bool(platforms.status()["nvidia"]) and not compiler.unavailable_reason()


def compile_once(source: str, name_expressions=()) -> hipkit.Module:
    """``hipkit.compile`` for the current device, except that a source that
    failed to compile fails again at once.  A good build is cached on disk; a
    failed one is not, and every test of a file would pay for it again."""
    key = (
        source,
        tuple(name_expressions),
        repr(hipkit.get_device().target),
        os.environ.get("HIPKIT_CPU_EXEC"),
    )
    if key in _failed:
        error = _failed[key]
        raise hipkit.CompileError(f"(as for an earlier test) {error.args[0]}")
    try:
        module = hipkit.compile(source, name_expressions=name_expressions)
    except hipkit.CompileError as error:
        _failed[key] = error
        raise
    if module.target.platform == "cpu" and _nvidia_compile_only():
        nvidia_key = (source, tuple(name_expressions))
        if nvidia_key not in _compiled_for_nvidia:
            hipkit.compile(source, name_expressions=name_expressions, target="sm_90")
            _compiled_for_nvidia.add(nvidia_key)
    return module


def recover(device: hipkit.Device) -> None:
    """After a test: if a kernel failed, its error is sticky (as on a GPU);
    reset the device so that the tests after this one start clean, and raise
    the error (a test that did not wait for its kernels learns of it here)."""
    try:
        device.synchronize()
    except hipkit.HipError:
        device.reset()
        raise


def cdiv(n: int, d: int) -> int:
    """Blocks of ``d`` threads needed to cover ``n`` items."""
    return -(-n // d)
