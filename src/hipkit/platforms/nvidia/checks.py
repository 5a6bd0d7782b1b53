"""The NVIDIA GPU checks: driver, device files, visibility, and the CUDA builds the driver runs."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..._system import System
from ..base.checks import Check, device_files, dotted, parse_version

# The oldest Linux driver each CUDA major version runs on (minor-version compatibility).
DRIVER_FOR_CUDA = {11: 450, 12: 525, 13: 580}


def nvidia_gpu_count(system: System) -> int:
    """The GPUs the NVIDIA driver lists in /proc/driver/nvidia/gpus."""
    return len(system.listdir("/proc/driver/nvidia/gpus"))


def nvidia_filters(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The NVIDIA visibility variable, when set."""
    return [("CUDA_VISIBLE_DEVICES", env["CUDA_VISIBLE_DEVICES"])] if "CUDA_VISIBLE_DEVICES" in env else []


def nvidia_driver(system: System) -> tuple[int, ...] | None:
    """The driver version in /proc/driver/nvidia/version ("... Kernel Module  580.65.06 ...")."""
    match = re.search(r"Kernel Module.*?\s(\d+\.\d+)", system.read("/proc/driver/nvidia/version") or "")
    return parse_version(match.group(1)) if match else None


def _needs_driver(name: str, what: str, cuda_major: int, driver: tuple[int, ...], fix: str) -> Check:
    # A CUDA newer than the table needs at least the newest minimum it knows.
    needed = DRIVER_FOR_CUDA.get(cuda_major, max(DRIVER_FOR_CUDA.values()))
    evidence = [f"CUDA {cuda_major} needs a driver >= {needed}; this one is {dotted(driver)}"]
    if driver[0] < needed:
        return Check(name, "fail", f"{what} needs a driver >= {needed}", evidence, fix)
    return Check(name, "ok", what, evidence)


def _cuda_bindings(system: System, driver: tuple[int, ...] | None) -> Check:
    bindings = system.import_module("cuda.bindings")
    if bindings is None or driver is None:
        return Check("cuda-bindings", "skip", "driver version unknown" if bindings else "not installed")
    major = int(bindings.__version__.split(".")[0])
    fix = f"upgrade the NVIDIA driver, or pip install 'cuda-bindings=={major - 1}.*'"
    return _needs_driver("cuda-bindings", f"cuda-bindings {bindings.__version__}", major, driver, fix)


def _torch_cuda(system: System, driver: tuple[int, ...] | None) -> Check:
    torch = system.import_module("torch")
    if torch is None or driver is None:
        return Check("PyTorch for CUDA", "skip", "driver version unknown" if torch else "not installed")
    if not torch.version.cuda:
        fix = "pip install torch (the default Linux wheel is a CUDA build)"
        return Check("PyTorch for CUDA", "warn", f"torch {torch.__version__} is not a CUDA build", [], fix)
    fix = "upgrade the NVIDIA driver, or install a wheel for an older CUDA (pytorch.org/get-started)"
    what = f"torch built with CUDA {torch.version.cuda}"
    return _needs_driver("PyTorch for CUDA", what, int(torch.version.cuda.split(".")[0]), driver, fix)


def _driver_here(system: System) -> bool:
    return system.exists("/proc/driver/nvidia") or system.exists("/dev/nvidiactl")


def devices(system: System) -> tuple[int, list[tuple[str, str]]] | None:
    """The platform's devices face: the GPUs the driver lists and the variables that choose
    among them; None without the NVIDIA driver."""
    if not _driver_here(system):
        return None
    return nvidia_gpu_count(system), nvidia_filters(system.env)


def checks(system: System) -> list[Check]:
    """The NVIDIA GPU checks; one skip when there is no NVIDIA driver and no /dev/nvidiactl."""
    if not _driver_here(system):
        return [Check("NVIDIA GPU", "skip", "no /proc/driver/nvidia and no /dev/nvidiactl")]
    driver = nvidia_driver(system)
    line = (system.read("/proc/driver/nvidia/version") or "").strip().splitlines()[:1]
    if driver:
        check = Check("NVIDIA driver", "ok", f"version {dotted(driver)}", line)
    else:
        fix = "install or load the NVIDIA driver (sudo modprobe nvidia; nvidia-smi then lists the GPUs)"
        check = Check("NVIDIA driver", "fail", "no driver version in /proc/driver/nvidia/version", line, fix)
    denied = "make them read/write for you (udev rules; in a container: --gpus all)"
    return [
        check,
        device_files(
            system, "device files", ["/dev/nvidia0", "/dev/nvidiactl"], "run: sudo nvidia-modprobe", denied
        ),
        _cuda_bindings(system, driver),
        _torch_cuda(system, driver),
    ]
