"""``hipkit doctor``: ROCm's installation troubleshooting table, checked on this machine.

Every check reads the machine through one :class:`~hipkit._system.System` and returns
a :class:`Check`: its status, what it saw (evidence) and, when something is wrong, the
fix in plain words with the command to run.  A vendor with nothing present (no driver,
no device file) is skipped, so a CPU-only machine passes.

Example
-------
>>> from hipkit._system import System
>>> from hipkit.cli.doctor import exit_code, run_checks
>>> exit_code(run_checks(System())) in (0, 1, 2)
True
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .. import config
from .._system import System

EXIT_CODES = {"ok": 0, "skip": 0, "warn": 1, "fail": 2}

# The oldest Linux driver each CUDA major version runs on (minor-version compatibility).
DRIVER_FOR_CUDA = {11: 450, 12: 525, 13: 580}

_MODPROBE = "load the driver: sudo modprobe amdgpu"
_USERMOD = "sudo usermod -aG render,video $USER, then log out and back in"


@dataclass
class Check:
    """One check's outcome: status is "ok", "warn", "fail" or "skip"."""

    name: str
    status: str
    summary: str
    evidence: list[str] = field(default_factory=list)
    fix: str = ""
    platform: str = ""


def _version(text: str | None, parts: int = 2) -> tuple[int, ...] | None:
    """The first ``parts`` numbers of a dotted version in ``text``: "6.2.0-66" -> (6, 2)."""
    match = re.search(rf"\d+(?:\.\d+){{{parts - 1}}}", text or "")
    return tuple(int(n) for n in match.group().split(".")) if match else None


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


# ---- shared by several checks ---------------------------------------------------------


def gfx_target(version: int) -> str:
    """The gfx target a KFD ``gfx_target_version`` names: 90010 -> "gfx90a", 110000 -> "gfx1100"."""
    major, minor, stepping = version // 10000, (version // 100) % 100, version % 100
    return f"gfx{major}{minor:x}{stepping:x}"


_KFD_NODES = "/sys/class/kfd/kfd/topology/nodes"


def amd_gpus(system: System) -> list[tuple[str, int]]:
    """(node, gfx_target_version) of each GPU in the KFD topology; nodes without SIMDs are CPUs."""
    gpus = []
    for node in sorted(system.listdir(_KFD_NODES), key=lambda n: (len(n), n)):
        props: dict[str, int] = {}
        for line in (system.read(f"{_KFD_NODES}/{node}/properties") or "").splitlines():
            key, _, value = line.partition(" ")
            if value.strip().isdigit():
                props[key] = int(value)
        if props.get("simd_count", 0) > 0:
            gpus.append((node, props.get("gfx_target_version", 0)))
    return gpus


def nvidia_gpu_count(system: System) -> int:
    """The GPUs the NVIDIA driver lists in /proc/driver/nvidia/gpus."""
    return len(system.listdir("/proc/driver/nvidia/gpus"))


def visible_count(present: int, filters: list[tuple[str, str]]) -> tuple[int, list[str]]:
    """How many of ``present`` GPUs the visibility variables leave, applied in order, and what
    each did.  As in HIP and CUDA a list ends at its first invalid entry, and "" hides all;
    a UUID (GPU-..., MIG-...) is taken as valid, since only the driver can resolve it."""
    count, evidence = present, []
    for name, value in filters:
        kept: list[str] = []
        for token in [t.strip() for t in value.split(",")] if value.strip() else []:
            valid_index = token.isdigit() and int(token) < count and token not in kept
            if not (valid_index or token.startswith(("GPU-", "MIG-"))) or len(kept) == count:
                break
            kept.append(token)
        evidence.append(f"{name}={value!r}: {len(kept)} of {count} GPUs left")
        count = len(kept)
    return count, evidence


def amd_filters(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The AMD visibility variables set: ROCr's filters first, then HIP's indices among the GPUs
    they leave (HIP reads CUDA_VISIBLE_DEVICES when HIP_VISIBLE_DEVICES is unset)."""
    hip = "HIP_VISIBLE_DEVICES" if "HIP_VISIBLE_DEVICES" in env else "CUDA_VISIBLE_DEVICES"
    names = ("ROCR_VISIBLE_DEVICES", "HSA_VISIBLE_DEVICES", hip)
    return [(name, env[name]) for name in names if name in env]


def nvidia_filters(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The NVIDIA visibility variable, when set."""
    return [("CUDA_VISIBLE_DEVICES", env["CUDA_VISIBLE_DEVICES"])] if "CUDA_VISIBLE_DEVICES" in env else []


def _device_files(system: System, name: str, paths: list[str], fix_missing: str, fix_denied: str) -> Check:
    if not paths:
        return Check(name, "fail", "no device file", [], fix_missing)
    missing = [p for p in paths if not system.exists(p)]
    denied = [p for p in paths if p not in missing and not system.access(p, os.R_OK | os.W_OK)]
    state = {p: "absent" if p in missing else "no read/write" if p in denied else "read/write" for p in paths}
    evidence = [f"{p}: {s}" for p, s in state.items()]
    if missing:
        return Check(name, "fail", f"missing: {', '.join(missing)}", evidence, fix_missing)
    if denied:
        return Check(name, "fail", f"not read/write for you: {', '.join(denied)}", evidence, fix_denied)
    return Check(name, "ok", "present, read/write", evidence)


def _visibility(filters: list[tuple[str, str]], present: int) -> Check:
    name = "visible GPUs"
    if not filters:
        return Check(name, "ok", "no visibility variable set")
    count, evidence = visible_count(present, filters)
    if count == 0 and present:
        names = " ".join(n for n, _ in filters)
        return Check(
            name,
            "fail",
            f"the visibility variables hide all {present} GPUs (hipErrorNoDevice)",
            evidence,
            f"unset them (unset {names}) or list indices from 0 to {present - 1}, e.g. {filters[-1][0]}=0",
        )
    return Check(name, "ok", f"{count} of {present} GPUs visible", evidence)


# ---- AMD ------------------------------------------------------------------------------


def rocm_version(system: System) -> tuple[str, str] | None:
    """(install directory, version) of the ROCm in /opt/rocm, else the first /opt/rocm-*."""
    dirs = ["/opt/rocm"] + [f"/opt/{d}" for d in system.listdir("/opt") if d.startswith("rocm-")]
    for d in dirs:
        text = system.read(f"{d}/.info/version")
        if text and text.strip():
            return d, text.strip()
    return None


def _group(system: System, group: str) -> Check:
    name = f"group {group}"
    configured, active = group in system.groups_of_user(), group in system.process_groups()
    evidence = [
        f"/etc/group: {system.user} {'is' if configured else 'is not'} in {group}",
        f"this process: {'has' if active else 'lacks'} {group}",
    ]
    if active:
        return Check(name, "ok", f"{system.user} is in {group}", evidence)
    if configured:
        summary = "configured but not active in this login: log out and back in"
        return Check(name, "warn", summary, evidence, f"log out and back in (or run: newgrp {group})")
    return Check(name, "fail", f"{system.user} is not in {group}", evidence, _USERMOD)


def _gpu_list(gpus: list[tuple[str, int]]) -> Check:
    evidence = [f"node {n}: {gfx_target(v)} (gfx_target_version {v})" for n, v in gpus]
    if not gpus:
        fix = "the driver found no GPU: read `sudo dmesg | grep -i amdgpu` for firmware or support errors"
        return Check("GPUs", "fail", f"no GPU node in {_KFD_NODES}", evidence, fix)
    return Check("GPUs", "ok", ", ".join(gfx_target(v) for _, v in gpus), evidence)


def _gfx_override(system: System) -> Check:
    value = system.env.get("HSA_OVERRIDE_GFX_VERSION")
    if value is None:
        return Check("HSA_OVERRIDE_GFX_VERSION", "ok", "not set")
    parts = _version(value, 3)
    target = gfx_target(parts[0] * 10000 + parts[1] * 100 + parts[2]) if parts else "?"
    fix = "unset HSA_OVERRIDE_GFX_VERSION unless your GPU is unsupported (code for another target may fail)"
    return Check("HSA_OVERRIDE_GFX_VERSION", "warn", f"set to {value!r}: GPUs run {target} code", [], fix)


def _rocm(rocm: tuple[str, str] | None) -> Check:
    if rocm is None:
        fix = "install ROCm (amdgpu-install --usecase=rocm; see rocm.docs.amd.com, quick start)"
        return Check("ROCm", "warn", "no /opt/rocm*/.info/version", [], fix)
    return Check("ROCm", "ok", f"ROCm {rocm[1]} in {rocm[0]}", [f"{rocm[0]}/.info/version: {rocm[1]}"])


def _torch_wheel(rocm: tuple[int, ...] | None) -> str:
    tag = f"rocm{_dotted(rocm)}" if rocm else "rocm<X.Y>"
    return f"pip install torch --index-url https://download.pytorch.org/whl/{tag}"


def _torch_rocm(system: System, rocm: tuple[str, str] | None) -> Check:
    torch = system.import_module("torch")
    if torch is None:
        return Check("PyTorch for ROCm", "skip", "PyTorch not installed")
    installed = _version(rocm[1]) if rocm else None
    hip, cuda = torch.version.hip, torch.version.cuda
    evidence = [f"torch {torch.__version__}: version.hip={hip} version.cuda={cuda}"]
    if not hip:
        kind = f"a CUDA {cuda}" if cuda else "a CPU-only"
        summary = f"{kind} build: no AMD GPU"
        return Check("PyTorch for ROCm", "warn", summary, evidence, _torch_wheel(installed))
    built = _version(hip)
    if installed and built != installed:
        summary = f"built for ROCm {_dotted(built or ())}, ROCm {_dotted(installed)} installed"
        return Check("PyTorch for ROCm", "warn", summary, evidence, _torch_wheel(installed))
    return Check("PyTorch for ROCm", "ok", f"built for ROCm {hip}", evidence)


def _torch_targets(system: System, gpus: list[tuple[str, int]]) -> Check:
    torch = system.import_module("torch")
    if torch is None or not torch.version.hip:
        return Check("PyTorch gfx targets", "skip", "no ROCm build of PyTorch")
    built = [a.split(":")[0] for a in torch.cuda.get_arch_list()]
    missing = sorted({gfx_target(v) for _, v in gpus} - set(built))
    evidence = [f"torch.cuda.get_arch_list(): {built}"]
    if missing:
        fix = f"use a PyTorch build with kernels for {', '.join(missing)} (or build one: PYTORCH_ROCM_ARCH)"
        return Check("PyTorch gfx targets", "warn", f"{', '.join(missing)} not built in", evidence, fix)
    return Check("PyTorch gfx targets", "ok", "every GPU's target is built in", evidence)


def _kernel(system: System) -> Check:
    release = (system.read("/proc/sys/kernel/osrelease") or "").strip()
    version = _version(release)
    if version is None:
        return Check("Linux kernel", "warn", "unknown version", [], "check `uname -r`")
    if version < (5, 15):
        fix = "upgrade to a kernel of 5.15 or newer (one of ROCm's supported distributions)"
        return Check("Linux kernel", "warn", f"{release} is older than 5.15", [], fix)
    return Check("Linux kernel", "ok", release)


def _hipcc(system: System) -> Check:
    path = system.find_command("hipcc")
    if path:
        return Check("hipcc", "ok", path)
    if system.exists("/opt/rocm/bin/hipcc"):
        return Check("hipcc", "warn", "not on PATH", [], "export PATH=$PATH:/opt/rocm/bin")
    return Check("hipcc", "warn", "not installed", [], "install the HIP SDK: sudo apt install rocm-hip-sdk")


def _libamdhip64(system: System) -> Check:
    if system.library_loads("libamdhip64.so"):
        return Check("libamdhip64.so", "ok", "loads")
    summary = "does not load (links fail with: undefined reference to hip...)"
    if system.exists("/opt/rocm/lib/libamdhip64.so"):
        fix = "echo /opt/rocm/lib | sudo tee /etc/ld.so.conf.d/rocm.conf && sudo ldconfig"
    else:
        fix = "install the HIP runtime: sudo apt install hip-runtime-amd"
    return Check("libamdhip64.so", "fail", summary, [], fix)


def amd_checks(system: System) -> list[Check]:
    """The AMD GPU checks; one skip when there is no amdgpu driver and no /dev/kfd."""
    if not (system.exists("/sys/module/amdgpu") or system.exists("/dev/kfd")):
        return [Check("AMD GPU", "skip", "no amdgpu kernel module and no /dev/kfd")]
    driver = (
        Check("amdgpu driver", "ok", "loaded")
        if system.exists("/sys/module/amdgpu")
        else Check("amdgpu driver", "fail", "not loaded", [], "sudo modprobe amdgpu (or install amdgpu-dkms)")
    )
    renders = [f"/dev/dri/{d}" for d in system.listdir("/dev/dri") if d.startswith("renderD")]
    gpus, rocm = amd_gpus(system), rocm_version(system)
    return [
        driver,
        _device_files(system, "/dev/kfd", ["/dev/kfd"], _MODPROBE, _USERMOD),
        _device_files(system, "/dev/dri/renderD*", renders, _MODPROBE, _USERMOD),
        _group(system, "render"),
        _group(system, "video"),
        _gpu_list(gpus),
        _visibility(amd_filters(system.env), len(gpus)),
        _gfx_override(system),
        _rocm(rocm),
        _torch_rocm(system, rocm),
        _torch_targets(system, gpus),
        _kernel(system),
        _hipcc(system),
        _libamdhip64(system),
    ]


# ---- NVIDIA ---------------------------------------------------------------------------


def nvidia_driver(system: System) -> tuple[int, ...] | None:
    """The driver version in /proc/driver/nvidia/version ("... Kernel Module  580.65.06 ...")."""
    match = re.search(r"Kernel Module.*?\s(\d+\.\d+)", system.read("/proc/driver/nvidia/version") or "")
    return _version(match.group(1)) if match else None


def _needs_driver(name: str, what: str, cuda_major: int, driver: tuple[int, ...], fix: str) -> Check:
    # A CUDA newer than the table needs at least the newest minimum it knows.
    needed = DRIVER_FOR_CUDA.get(cuda_major, max(DRIVER_FOR_CUDA.values()))
    evidence = [f"CUDA {cuda_major} needs a driver >= {needed}; this one is {_dotted(driver)}"]
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


def nvidia_checks(system: System) -> list[Check]:
    """The NVIDIA GPU checks; one skip when there is no NVIDIA driver and no /dev/nvidiactl."""
    if not (system.exists("/proc/driver/nvidia") or system.exists("/dev/nvidiactl")):
        return [Check("NVIDIA GPU", "skip", "no /proc/driver/nvidia and no /dev/nvidiactl")]
    driver = nvidia_driver(system)
    line = (system.read("/proc/driver/nvidia/version") or "").strip().splitlines()[:1]
    if driver:
        check = Check("NVIDIA driver", "ok", f"version {_dotted(driver)}", line)
    else:
        fix = "install or load the NVIDIA driver (sudo modprobe nvidia; nvidia-smi then lists the GPUs)"
        check = Check("NVIDIA driver", "fail", "no driver version in /proc/driver/nvidia/version", line, fix)
    denied = "make them read/write for you (udev rules; in a container: --gpus all)"
    return [
        check,
        _device_files(
            system, "device files", ["/dev/nvidia0", "/dev/nvidiactl"], "run: sudo nvidia-modprobe", denied
        ),
        _visibility(nvidia_filters(system.env), nvidia_gpu_count(system)),
        _cuda_bindings(system, driver),
        _torch_cuda(system, driver),
    ]


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
            "unset the *_VISIBLE_DEVICES variables to use them all; torchrun --nproc_per_node=N spreads work"
        )
        return Check("several GPUs", "warn", f"{present} GPUs present, only one visible", evidence, fix)
    return Check("several GPUs", "ok", f"{visible} of {present} visible", evidence)


def framework_checks(system: System) -> list[Check]:
    """Which frameworks are installed, their build, whether they see the GPUs present."""
    amd = len(amd_gpus(system))
    nvidia = nvidia_gpu_count(system)
    frameworks = [_framework(system, name, amd + nvidia) for name in FRAMEWORKS]
    return [*frameworks, _gpus_in_use(system, amd, nvidia)]


# ---- the command ----------------------------------------------------------------------

SECTIONS = {"AMD": amd_checks, "NVIDIA": nvidia_checks, "CPU": cpu_checks, "Frameworks": framework_checks}


def run_checks(system: System) -> list[Check]:
    """Every check, in the order printed, each tagged with its platform."""
    return [replace(c, platform=platform) for platform, section in SECTIONS.items() for c in section(system)]


def exit_code(checks: list[Check]) -> int:
    """0 when every check is ok or skipped, 1 when one warns, 2 when one fails."""
    return max((EXIT_CODES[c.status] for c in checks), default=0)


def format_text(checks: list[Check], verbose: bool = False) -> str:
    """The report, grouped by platform: one line a check, the fix under warnings and failures."""
    lines: list[str] = []
    platform = None
    for check in checks:
        if check.platform != platform:
            platform = check.platform
            lines.append(platform)
        lines.append(f"  {check.status:<4}  {check.name}: {check.summary}")
        if verbose:
            lines += [f"          {e}" for e in check.evidence]
        if check.status in ("warn", "fail") and check.fix:
            lines.append(f"          fix: {check.fix}")
    return "\n".join(lines)


def add_parser(commands) -> None:
    p = commands.add_parser("doctor", help="check this machine's GPU setup (ROCm's troubleshooting list)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--verbose", action="store_true", help="also print what each check saw")


def run(args) -> int:
    checks = run_checks(System())
    code = exit_code(checks)
    if args.json:
        print(json.dumps({"exit_code": code, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        print(format_text(checks, args.verbose))
    return code
