"""The checks of this host: the CPU platform (compiler, cache, cores) and the installed frameworks."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .. import config
from .._system import System
from .common import Check, visible_count
from .gfx import amd_filters, amd_gpus
from .nvidia import nvidia_filters, nvidia_gpu_count

# ---- CPU ------------------------------------------------------------------------------


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


def cpu_checks(system: System) -> list[Check]:
    """The CPU platform's checks: compiler, cache, cores."""
    return [_compiler(system), _cache(system), _cores(system)]


# ---- frameworks -----------------------------------------------------------------------


def _torch(torch: Any) -> tuple[str, int]:
    hip, cuda = torch.version.hip, torch.version.cuda
    build = f"ROCm {hip}" if hip else f"CUDA {cuda}" if cuda else "CPU"
    return build, torch.cuda.device_count() if torch.cuda.is_available() else 0


def _cupy(cupy: Any) -> tuple[str, int]:
    runtime = cupy.cuda.runtime
    try:
        count = runtime.getDeviceCount()
    except Exception:  # CUDARuntimeError when there is no driver or no GPU
        count = 0
    return "ROCm" if runtime.is_hip else "CUDA", count


def _jax(jax: Any) -> tuple[str, int]:
    return f"backend {jax.default_backend()}", sum(d.platform != "cpu" for d in jax.devices())


def _tensorflow(tf: Any) -> tuple[str, int]:
    build = "ROCm" if tf.test.is_built_with_rocm() else "CUDA" if tf.test.is_built_with_cuda() else "CPU"
    return build, len(tf.config.list_physical_devices("GPU"))


FRAMEWORKS: dict[str, tuple[str, Callable[[Any], tuple[str, int]]]] = {
    "PyTorch": ("torch", _torch),
    "CuPy": ("cupy", _cupy),
    "JAX": ("jax", _jax),
    "TensorFlow": ("tensorflow", _tensorflow),
}


def _framework(system: System, name: str, present: int) -> Check:
    module_name, probe = FRAMEWORKS[name]
    module = system.import_module(module_name)
    if module is None:
        return Check(name, "skip", "not installed")
    try:
        build, count = probe(module)
    except Exception as exc:  # a framework's own error while asking: report it, go on
        return Check(
            name, "warn", f"installed, but asking for its GPUs failed: {exc}", [], f"reinstall {name}"
        )
    summary = f"{build} build, sees {count} GPU{'s' * (count != 1)}"
    if present and not count:
        fix = f"install {name}'s build for this GPU vendor and check the visibility variables"
        return Check(name, "warn", f"{summary} of the {present} present", [], fix)
    return Check(name, "ok", summary)


def _gpus_in_use(system: System, amd: int, nvidia: int) -> Check:
    present = amd + nvidia
    if present < 2:
        return Check("several GPUs", "skip", f"{present} GPU{'s' * (present != 1)} present")
    visible = sum(
        visible_count(count, filters)[0]
        for count, filters in ((amd, amd_filters(system.env)), (nvidia, nvidia_filters(system.env)))
    )
    evidence = [f"{present} present ({amd} AMD, {nvidia} NVIDIA), {visible} visible to this environment"]
    if visible == 1:
        fix = (
            "unset the *_VISIBLE_DEVICES variables (or list them all: HIP_VISIBLE_DEVICES=0,1,...), then "
            "give each thread or process its GPU with hipSetDevice(i) (PyTorch: torchrun --nproc_per_node=N)"
        )
        return Check("several GPUs", "warn", f"{present} GPUs present, only one visible", evidence, fix)
    return Check("several GPUs", "ok", f"{visible} of {present} visible", evidence)


def framework_checks(system: System) -> list[Check]:
    """Which frameworks are installed, their build, whether they see the GPUs present."""
    amd = len(amd_gpus(system))
    nvidia = nvidia_gpu_count(system)
    frameworks = [_framework(system, name, amd + nvidia) for name in FRAMEWORKS]
    return [*frameworks, _gpus_in_use(system, amd, nvidia)]
