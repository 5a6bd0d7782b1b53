"""The AMD GPUs as the machine describes them: gfx targets, the KFD topology, the visibility
variables, HSA_OVERRIDE_GFX_VERSION and the installed ROCm."""

from __future__ import annotations

from collections.abc import Mapping

from ..._system import System
from ..base.checks import parse_version
from .toolkit import DEFAULT_ROCM

# The LLVM targets ROCm supports on Linux: the "GPU / LLVM target" rows of ROCm 7.2.3's compatibility
# matrix, https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html (the products
# behind each: SUPPORT_URL).  gfx906 (MI50, MI60, Radeon VII) was "deprecated" in the 6.x lists, its
# maintenance ended in Q2 2024, and the 7.x lists drop it.
ROCM_TARGETS = ("gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201")
SUPPORT_URL = (
    "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html"
)


def gfx_target(version: int) -> str:
    """The gfx target a KFD ``gfx_target_version`` names: 90010 -> "gfx90a", 110000 -> "gfx1100"."""
    major, minor, stepping = version // 10000, (version // 100) % 100, version % 100
    return f"gfx{major}{minor:x}{stepping:x}"


def gfx_version(target: str) -> int:
    """The ``gfx_target_version`` of a gfx target, the inverse of :func:`gfx_target`: "gfx90a" -> 90010."""
    digits = target.removeprefix("gfx")
    return int(digits[:-2]) * 10000 + int(digits[-2], 16) * 100 + int(digits[-1], 16)


def gfx_override(env: Mapping[str, str]) -> int | None:
    """The ``gfx_target_version`` HSA_OVERRIDE_GFX_VERSION makes every GPU report: "10.3.0" -> 100300."""
    parts = parse_version(env.get("HSA_OVERRIDE_GFX_VERSION"), 3)
    return parts[0] * 10000 + parts[1] * 100 + parts[2] if parts else None


KFD_NODES = "/sys/class/kfd/kfd/topology/nodes"


def amd_gpus(system: System) -> list[tuple[str, int]]:
    """(node, gfx_target_version) of each GPU in the KFD topology; nodes without SIMDs are CPUs."""
    gpus = []
    for node in sorted(system.listdir(KFD_NODES), key=lambda n: (len(n), n)):
        props: dict[str, int] = {}
        for line in (system.read(f"{KFD_NODES}/{node}/properties") or "").splitlines():
            key, _, value = line.partition(" ")
            if value.strip().isdigit():
                props[key] = int(value)
        if props.get("simd_count", 0) > 0:
            gpus.append((node, props.get("gfx_target_version", 0)))
    return gpus


def amd_filters(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The AMD visibility variables set: ROCr's filters first, then HIP's indices among the GPUs
    they leave (HIP reads CUDA_VISIBLE_DEVICES when HIP_VISIBLE_DEVICES is unset)."""
    hip = "HIP_VISIBLE_DEVICES" if "HIP_VISIBLE_DEVICES" in env else "CUDA_VISIBLE_DEVICES"
    names = ("ROCR_VISIBLE_DEVICES", "HSA_VISIBLE_DEVICES", hip)
    return [(name, env[name]) for name in names if name in env]


def rocm_version(system: System) -> tuple[str, str] | None:
    """(install directory, version) of the ROCm in /opt/rocm, else the first /opt/rocm-*."""
    dirs = [DEFAULT_ROCM] + [f"/opt/{d}" for d in system.listdir("/opt") if d.startswith("rocm-")]
    for d in dirs:
        text = system.read(f"{d}/.info/version")
        if text and text.strip():
            return d, text.strip()
    return None
