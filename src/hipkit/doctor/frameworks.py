"""The checks of the installed frameworks (PyTorch, CuPy, JAX, TensorFlow) and of the GPUs
of every platform together."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._system import System
from ..platforms.base.checks import Check, visible_count


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


# A GPU platform's devices, as its devices face counts them: (title, present, filters).
GpuCount = tuple[str, int, list[tuple[str, str]]]


def _gpus_in_use(gpus: list[GpuCount]) -> Check:
    present = sum(count for _, count, _ in gpus)
    if present < 2:
        return Check("several GPUs", "skip", f"{present} GPU{'s' * (present != 1)} present")
    visible = sum(visible_count(count, filters)[0] for _, count, filters in gpus)
    by_platform = ", ".join(f"{count} {title}" for title, count, _ in gpus)
    evidence = [f"{present} present ({by_platform}), {visible} visible to this environment"]
    if visible == 1:
        fix = (
            "unset the *_VISIBLE_DEVICES variables (or list them all: HIP_VISIBLE_DEVICES=0,1,...), then "
            "give each thread or process its GPU with hipSetDevice(i) (PyTorch: torchrun --nproc_per_node=N)"
        )
        return Check("several GPUs", "warn", f"{present} GPUs present, only one visible", evidence, fix)
    return Check("several GPUs", "ok", f"{visible} of {present} visible", evidence)


def framework_checks(system: System, gpus: list[GpuCount]) -> list[Check]:
    """Which frameworks are installed, their build, whether they see the GPUs present
    (``gpus``: each GPU platform's count), and whether several GPUs are all in use."""
    present = sum(count for _, count, _ in gpus)
    frameworks = [_framework(system, name, present) for name in FRAMEWORKS]
    return [*frameworks, _gpus_in_use(gpus)]
