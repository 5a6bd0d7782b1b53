"""The CPU platform's checks: its C++ compiler, hipkit's cache, the cores; and its devices."""

from __future__ import annotations

import os

from ... import config
from ..._system import System
from ..base.checks import Check


def _compiler(system: System) -> Check:
    cxx = (system.env.get("HIPKIT_CXX") or "").strip() or config.VARIABLES["HIPKIT_CXX"].default
    fix = "install a C++ compiler (sudo apt install g++) or point HIPKIT_CXX at one"
    path = system.find_command(cxx)
    if path is None:
        return Check("C++ compiler", "fail", f"{cxx} not found on PATH", [], fix)
    output = system.run_command([path, "--version"], 30)
    if not output:
        return Check("C++ compiler", "fail", f"{path} --version failed", [], fix)
    return Check("C++ compiler", "ok", output.splitlines()[0], [f"HIPKIT_CXX={cxx}: {path}"])


def _cache(system: System) -> Check:
    target = system.cache_dir
    existing = target
    while not system.exists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    evidence = [f"{target}: {'exists' if existing == target else f'to be created under {existing}'}"]
    if system.access(existing, os.W_OK | os.X_OK):
        return Check("cache directory", "ok", f"{target} writable", evidence)
    fix = f"make {existing} writable for you, or set HIPKIT_CACHE_DIR to a writable directory"
    return Check("cache directory", "fail", f"{target} not writable", evidence, fix)


def _cores(system: System) -> Check:
    threads = (system.env.get("HIPKIT_CPU_THREADS") or "").strip()
    evidence = [f"HIPKIT_CPU_THREADS={threads or '(unset: one per core)'}"]
    if threads.isdigit() and int(threads) > system.cores:
        fix = "unset HIPKIT_CPU_THREADS (one worker per core) or set it no higher than the cores"
        summary = f"HIPKIT_CPU_THREADS={threads} oversubscribes {system.cores} cores"
        return Check("cores", "warn", summary, evidence, fix)
    return Check("cores", "ok", f"{system.cores} usable", evidence)


def _device_count(system: System) -> int | str:
    """HIPKIT_CPU_DEVICES as the runtime reads it, or why it cannot."""
    variable = config.VARIABLES["HIPKIT_CPU_DEVICES"]
    raw = (system.env.get(variable.name) or "").strip()
    try:
        count: int = variable.parse(raw) if raw else variable.default
    except ValueError as exc:
        return f"{variable.name}={raw!r}: {exc}"
    return count


def _devices(system: System) -> Check:
    count = _device_count(system)
    if isinstance(count, str):
        fix = "unset HIPKIT_CPU_DEVICES (one device) or set it to how many devices the cores are split into"
        return Check("devices", "fail", count, [], fix)
    if count > system.cores:
        summary = f"HIPKIT_CPU_DEVICES={count} devices on {system.cores} cores: each has one worker"
        return Check("devices", "ok", summary)
    return Check("devices", "ok", f"{count} device{'s' * (count != 1)} (HIPKIT_CPU_DEVICES)")


def checks(system: System) -> list[Check]:
    """The CPU platform's checks: compiler, cache, cores, devices."""
    return [_compiler(system), _cache(system), _cores(system), _devices(system)]


def devices(system: System) -> tuple[int, list[tuple[str, str]]]:
    """The platform's devices face: HIPKIT_CPU_DEVICES devices (one by default), which
    HIP_VISIBLE_DEVICES, HIP's own variable, may hide (the vendors' variables leave them
    alone)."""
    count = _device_count(system)
    variable = "HIP_VISIBLE_DEVICES"
    filters = [(variable, system.env[variable])] if variable in system.env else []
    return count if isinstance(count, int) else 1, filters
