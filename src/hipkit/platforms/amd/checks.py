"""The AMD GPU checks: driver, device files, groups, GPUs and their support, ROCm, its tools and
the ROCm builds of the frameworks."""

from __future__ import annotations

import re

from ..._system import System
from ..base.checks import Check, device_files, dotted, parse_version
from .gfx import (
    KFD_NODES,
    ROCM_TARGETS,
    SUPPORT_URL,
    amd_filters,
    amd_gpus,
    gfx_override,
    gfx_target,
    gfx_version,
    rocm_version,
)
from .toolkit import DEFAULT_ROCM

_MODPROBE = "load the driver: sudo modprobe amdgpu"
_USERMOD = "sudo usermod -aG render,video $USER, then log out and back in"


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
        return Check("GPUs", "fail", f"no GPU node in {KFD_NODES}", evidence, fix)
    return Check("GPUs", "ok", ", ".join(gfx_target(v) for _, v in gpus), evidence)


def _override_fix(target: str) -> str:
    version = gfx_version(target)
    # Only RDNA parts of one family (gfx103x, gfx110x, gfx120x) share an instruction set closely enough
    # to stand in for each other; GCN and CDNA parts differ in what kernels use (gfx906 lacks gfx908's MFMA).
    family = [t for t in ROCM_TARGETS if version >= 100000 and gfx_version(t) // 100 == version // 100]
    if not family:
        return f"use a GPU on ROCm's list ({SUPPORT_URL}) or build the ROCm libraries you use for {target}"
    stand_in = gfx_version(family[0])
    value = f"{stand_in // 10000}.{stand_in // 100 % 100}.{stand_in % 100}"
    return (
        f"the usual workaround: export HSA_OVERRIDE_GFX_VERSION={value} to run {family[0]} code on the "
        f"{target}; AMD does not support it, and a kernel using what the {target} lacks can crash or "
        "compute wrong results"
    )


def _gpu_support(system: System, gpus: list[tuple[str, int]]) -> Check:
    if not gpus:
        return Check("GPU support", "skip", "no GPU found")
    targets = sorted({gfx_target(v) for _, v in gpus}, key=gfx_version)
    outside = [t for t in targets if t not in ROCM_TARGETS]
    evidence = [f"ROCm 7.2 supports {', '.join(ROCM_TARGETS)}"]
    if not outside:
        return Check("GPU support", "ok", f"{', '.join(targets)} on ROCm's list", evidence)
    override = gfx_override(system.env)
    if override and gfx_target(override) in ROCM_TARGETS:
        # The workaround is in place; the HSA_OVERRIDE_GFX_VERSION check warns of its risk.
        summary = f"{', '.join(outside)} not on ROCm's list, run as {gfx_target(override)}"
        return Check("GPU support", "ok", summary, evidence)
    summary = f"{', '.join(outside)} not on ROCm's list of supported GPUs"
    return Check("GPU support", "warn", summary, evidence, "; ".join(_override_fix(t) for t in outside))


def _gfx_override(system: System, gpus: list[tuple[str, int]]) -> Check:
    name = "HSA_OVERRIDE_GFX_VERSION"
    value = system.env.get(name)
    if value is None:
        return Check(name, "ok", "not set")
    override = gfx_override(system.env)
    target = gfx_target(override) if override else "?"
    # Another major version is another instruction set: none of its code runs.
    foreign = sorted({gfx_target(v) for _, v in gpus if override and v // 10000 != override // 10000})
    if foreign:
        summary = f"set to {value!r}: {', '.join(foreign)} cannot run {target} code"
        return Check(name, "fail", summary, [], f"unset {name}")
    fix = f"unset {name} unless your GPU is unsupported (code for another target may fail)"
    return Check(name, "warn", f"set to {value!r}: GPUs run {target} code", [], fix)


def _rocm(rocm: tuple[str, str] | None) -> Check:
    if rocm is None:
        fix = "install ROCm (amdgpu-install --usecase=rocm; see rocm.docs.amd.com, quick start)"
        return Check("ROCm", "warn", "no /opt/rocm*/.info/version", [], fix)
    return Check("ROCm", "ok", f"ROCm {rocm[1]} in {rocm[0]}", [f"{rocm[0]}/.info/version: {rocm[1]}"])


# rocminfo names each agent: a GPU by its target ("  Name:   gfx90a"), a CPU by its model.
_GPU_AGENT = re.compile(r"^\s*Name:\s+(gfx[0-9a-f]+)\s*$", re.MULTILINE)


def _rocminfo(system: System, rocm: tuple[str, str] | None) -> Check:
    path = system.find_command("rocminfo")
    if path is None and rocm and system.exists(f"{rocm[0]}/bin/rocminfo"):
        path = f"{rocm[0]}/bin/rocminfo"
    if path is None:
        if rocm is None:
            return Check("rocminfo", "skip", "ROCm not installed")
        return Check("rocminfo", "warn", "not installed", [], "sudo apt install rocminfo")
    output = system.run_command([path], 30)
    if output is None:
        fix = f"run {path} to read its error; the usual causes are the driver, /dev/kfd and groups above"
        return Check("rocminfo", "fail", f"{path} failed", [], fix)
    agents = _GPU_AGENT.findall(output)
    evidence = [f"{path}: GPU agents {agents}"]
    if not agents:
        fix = "the ROCm runtime sees no GPU (hipErrorNoDevice): see the driver, GPU and visibility checks"
        return Check("rocminfo", "fail", "lists no GPU agent", evidence, fix)
    return Check("rocminfo", "ok", f"lists {', '.join(agents)}", evidence)


def _built_for(
    name: str,
    built: tuple[int, ...] | None,
    installed: tuple[int, ...] | None,
    what: str,
    evidence: list[str],
    fix: str,
) -> Check:
    """ok, or a warning when the ROCm a framework was built for is not the ROCm installed."""
    if built and installed and built != installed:
        summary = f"built for ROCm {dotted(built)}, ROCm {dotted(installed)} installed"
        return Check(name, "warn", summary, evidence, fix)
    return Check(name, "ok", what, evidence)


def _torch_wheel(rocm: tuple[int, ...] | None) -> str:
    tag = f"rocm{dotted(rocm)}" if rocm else "rocm<X.Y>"
    return f"pip install torch --index-url https://download.pytorch.org/whl/{tag}"


def _torch_rocm(system: System, rocm: tuple[str, str] | None) -> Check:
    torch = system.import_module("torch")
    if torch is None:
        return Check("PyTorch for ROCm", "skip", "PyTorch not installed")
    installed = parse_version(rocm[1]) if rocm else None
    hip, cuda = torch.version.hip, torch.version.cuda
    evidence = [f"torch {torch.__version__}: version.hip={hip} version.cuda={cuda}"]
    if not hip:
        kind = f"a CUDA {cuda}" if cuda else "a CPU-only"
        summary = f"{kind} build: no AMD GPU"
        return Check("PyTorch for ROCm", "warn", summary, evidence, _torch_wheel(installed))
    fix = _torch_wheel(installed)
    what = f"built for ROCm {hip}"
    return _built_for("PyTorch for ROCm", parse_version(hip), installed, what, evidence, fix)


def _torch_targets(system: System, gpus: list[tuple[str, int]]) -> Check:
    torch = system.import_module("torch")
    if torch is None or not torch.version.hip:
        return Check("PyTorch gfx targets", "skip", "no ROCm build of PyTorch")
    built = [a.split(":")[0] for a in torch.cuda.get_arch_list()]
    # The runtime loads the kernels of the target HSA_OVERRIDE_GFX_VERSION names, when set.
    override = gfx_override(system.env)
    missing = sorted({gfx_target(override or v) for _, v in gpus} - set(built))
    evidence = [f"torch.cuda.get_arch_list(): {built}"]
    if missing:
        fix = f"use a PyTorch build with kernels for {', '.join(missing)} (or build one: PYTORCH_ROCM_ARCH)"
        return Check("PyTorch gfx targets", "warn", f"{', '.join(missing)} not built in", evidence, fix)
    return Check("PyTorch gfx targets", "ok", "every GPU's target is built in", evidence)


def _tf_wheel(rocm: tuple[int, ...] | None) -> str:
    folder = f"rocm-rel-{dotted(rocm)}" if rocm else "rocm-rel-<X.Y>"
    return (
        "pip uninstall -y tensorflow tensorflow-rocm && "
        f"pip install tensorflow-rocm -f https://repo.radeon.com/rocm/manylinux/{folder}/"
    )


def _tensorflow_rocm(system: System, rocm: tuple[str, str] | None) -> Check:
    tf = system.import_module("tensorflow")
    if tf is None:
        return Check("TensorFlow for ROCm", "skip", "TensorFlow not installed")
    info = tf.sysconfig.get_build_info()
    installed = parse_version(rocm[1]) if rocm else None
    evidence = [
        f"tensorflow {tf.__version__}: is_rocm_build={info.get('is_rocm_build')} "
        f"is_cuda_build={info.get('is_cuda_build')}"
    ]
    fix = _tf_wheel(installed)
    if not info.get("is_rocm_build"):
        kind = "a CUDA" if info.get("is_cuda_build") else "a CPU-only"
        return Check("TensorFlow for ROCm", "warn", f"{kind} build: no AMD GPU", evidence, fix)
    # The build info names no ROCm version; tensorflow-rocm on PyPI (up to ROCm 6.0) put it in a fourth
    # number, 2.14.0.600, while AMD's wheels since (repo.radeon.com) carry TensorFlow's version only.
    tag = re.fullmatch(r"\d+\.\d+\.\d+\.(\d)(\d)\d", tf.__version__)
    built = (int(tag[1]), int(tag[2])) if tag else None
    what = f"built for ROCm {dotted(built)}" if built else f"a ROCm build (tensorflow {tf.__version__})"
    return _built_for("TensorFlow for ROCm", built, installed, what, evidence, fix)


def _kernel(system: System) -> Check:
    release = (system.read("/proc/sys/kernel/osrelease") or "").strip()
    version = parse_version(release)
    if version is None:
        return Check("Linux kernel", "warn", "unknown version", [], "check `uname -r`")
    if version < (5, 15):
        fix = "upgrade to a kernel of 5.15 or newer (one of ROCm's supported distributions)"
        return Check("Linux kernel", "warn", f"{release} is older than 5.15", [], fix)
    return Check("Linux kernel", "ok", release)


def _hipcc(system: System, rocm: tuple[str, str] | None) -> Check:
    path = system.find_command("hipcc")
    if path is None:
        bin_dir = f"{rocm[0] if rocm else DEFAULT_ROCM}/bin"
        if system.exists(f"{bin_dir}/hipcc"):
            return Check("hipcc", "warn", "not on PATH", [], f"export PATH=$PATH:{bin_dir}")
        fix = "install the HIP SDK: sudo apt install rocm-hip-sdk"
        return Check("hipcc", "warn", "not installed", [], fix)
    output = system.run_command([path, "--version"], 30)
    if not output:
        fix = f"run {path} --version to read its error; reinstall: sudo apt install --reinstall rocm-hip-sdk"
        return Check("hipcc", "warn", f"{path} --version failed", [], fix)
    return Check("hipcc", "ok", output.splitlines()[0], [f"hipcc: {path}"])


def _libamdhip64(system: System, rocm: tuple[str, str] | None) -> Check:
    if system.library_loads("libamdhip64.so"):
        return Check("libamdhip64.so", "ok", "loads")
    summary = "does not load (links fail with: undefined reference to hip...)"
    lib = f"{rocm[0] if rocm else DEFAULT_ROCM}/lib"
    if system.exists(f"{lib}/libamdhip64.so"):
        fix = (
            f"echo {lib} | sudo tee /etc/ld.so.conf.d/rocm.conf && sudo ldconfig; "
            f"link with hipcc, or add -L{lib} -lamdhip64 to g++"
        )
    else:
        fix = "install the HIP runtime: sudo apt install hip-runtime-amd"
    return Check("libamdhip64.so", "fail", summary, [], fix)


def _driver_here(system: System) -> bool:
    return system.exists("/sys/module/amdgpu") or system.exists("/dev/kfd")


def devices(system: System) -> tuple[int, list[tuple[str, str]]] | None:
    """The platform's devices face: the GPUs in the KFD topology and the variables that choose
    among them; None without the amdgpu driver."""
    if not _driver_here(system):
        return None
    return len(amd_gpus(system)), amd_filters(system.env)


def checks(system: System) -> list[Check]:
    """The AMD GPU checks; one skip when there is no amdgpu driver and no /dev/kfd."""
    if not _driver_here(system):
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
        device_files(system, "/dev/kfd", ["/dev/kfd"], _MODPROBE, _USERMOD),
        device_files(system, "/dev/dri/renderD*", renders, _MODPROBE, _USERMOD),
        _group(system, "render"),
        _group(system, "video"),
        _gpu_list(gpus),
        _gpu_support(system, gpus),
        _gfx_override(system, gpus),
        _rocm(rocm),
        _rocminfo(system, rocm),
        _torch_rocm(system, rocm),
        _torch_targets(system, gpus),
        _tensorflow_rocm(system, rocm),
        _kernel(system),
        _hipcc(system, rocm),
        _libamdhip64(system, rocm),
    ]
