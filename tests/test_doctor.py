"""``hipkit doctor`` on fake machines: a file tree under tmp_path, with a fake environment,
groups, libraries, commands and Python modules, read through one ``System``."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from hipkit._system import System
from hipkit.cli import doctor, main
from hipkit.doctor import EXIT_CODES, Check, exit_code, run_checks
from hipkit.platforms.amd.gfx import gfx_target, gfx_version
from hipkit.platforms.base.checks import visible_count

KFD = "sys/class/kfd/kfd/topology/nodes"
NVRM_580 = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
    "(dvs-builder@U16-I3-B03-4-3)  Tue Jul 15 21:06:21 UTC 2025\nGCC version:  gcc version 12.2.0\n"
)
NVRM_535 = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n"
ROCMINFO_CPU = """\
ROCk module version 6.8.5 is loaded
==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD EPYC 7763 64-Core Processor
  Marketing Name:          AMD EPYC 7763 64-Core Processor
  Device Type:             CPU
"""
ROCMINFO = (
    ROCMINFO_CPU
    + """\
*******
Agent 2
*******
  Name:                    gfx90a
  Marketing Name:          AMD Instinct MI210
  Device Type:             GPU
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-
"""
)
COMMANDS = {"g++": "/usr/bin/g++", "hipcc": "/opt/rocm/bin/hipcc", "rocminfo": "/opt/rocm/bin/rocminfo"}
OUTPUTS = {
    "g++": "g++ (GCC) 12.2.0\nCopyright\n",
    "hipcc": "HIP version: 6.2.41133-dd7f95766\nAMD clang version 18.0.0git\n",
    "rocminfo": ROCMINFO,
}


def owner_bits(path: Path, mode: int) -> bool:
    """os.access by the file's owner bits, so chmod expresses access even when tests run as root."""
    bits = (path.stat().st_mode >> 6) & 7
    need = (4 if mode & os.R_OK else 0) | (2 if mode & os.W_OK else 0) | (1 if mode & os.X_OK else 0)
    return bits & need == need


def write(root: Path, path: str, text: str = "", mode: int = 0o600) -> Path:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    target.chmod(mode)
    return target


def torch_module(hip: str | None = None, cuda: str | None = None, arch=(), count: int = 1) -> SimpleNamespace:
    return SimpleNamespace(
        __version__="2.5.0",
        version=SimpleNamespace(hip=hip, cuda=cuda),
        cuda=SimpleNamespace(
            is_available=lambda: count > 0, device_count=lambda: count, get_arch_list=lambda: list(arch)
        ),
    )


def runner(**outputs: str | None):
    """run_command answering each command (by its file name) from OUTPUTS, with ``outputs`` replacing some;
    None is a command that fails."""
    table = {**OUTPUTS, **outputs}
    return lambda argv, timeout: table.get(os.path.basename(argv[0]))


def tf_module(version: str = "2.16.1", rocm: bool = True, cuda: bool = False, count: int = 1):
    info = {"is_rocm_build": rocm, "is_cuda_build": cuda, "is_tensorrt_build": False}
    return SimpleNamespace(
        __version__=version,
        sysconfig=SimpleNamespace(get_build_info=lambda: dict(info)),
        test=SimpleNamespace(is_built_with_rocm=lambda: rocm, is_built_with_cuda=lambda: cuda),
        config=SimpleNamespace(list_physical_devices=lambda kind: [kind] * count),
    )


def fake_system(root: Path, modules: dict | None = None, **changes) -> System:
    """A healthy machine with nothing of any GPU vendor, unless files under ``root`` add one."""
    system = System(
        root=root,
        env={},
        user="alice",
        group_ids=(44, 109),
        group_name={44: "video", 109: "render"}.get,
        access_fn=owner_bits,
        library_loads=lambda name: name == "libamdhip64.so",
        find_command=COMMANDS.get,
        run_command=runner(),
        import_module=(modules or {}).get,
        cores=8,
        cache_dir="/home/alice/.cache/hipkit",
    )
    return dataclasses.replace(system, **changes)


def amd_tree(root: Path, gpus=(90010,)) -> Path:
    write(root, "/sys/module/amdgpu/version", "6.8.5\n")
    write(root, "/dev/kfd")
    write(root, "/dev/dri/renderD128")
    write(root, "/etc/group", "video:x:44:bob,alice\nrender:x:109:alice\nusers:x:100:\n")
    write(root, "/etc/passwd", "alice:x:1000:100::/home/alice:/bin/bash\n")
    write(root, f"{KFD}/0/properties", "cpu_cores_count 64\nsimd_count 0\ngfx_target_version 0\n")
    for i, version in enumerate(gpus, start=1):
        write(root, f"{KFD}/{i}/properties", f"simd_count 440\ngfx_target_version {version}\n")
    write(root, "/opt/rocm/.info/version", "6.2.0-66\n")
    write(root, "/proc/sys/kernel/osrelease", "6.8.0-45-generic\n")
    return root


def nvidia_tree(root: Path, version: str = NVRM_580, gpus: int = 1) -> Path:
    write(root, "/proc/driver/nvidia/version", version)
    for i in range(gpus):
        (root / f"proc/driver/nvidia/gpus/0000:0{i}:00.0").mkdir(parents=True)
    write(root, "/dev/nvidia0")
    write(root, "/dev/nvidiactl")
    return root


ROCM_TORCH = torch_module(hip="6.2.41133-dd7f95766", arch=["gfx90a", "gfx942:xnack-"])
ROCM_TF = tf_module()  # as AMD's wheels for ROCm 6.1 on: TensorFlow's version only


def by_name(checks: list[Check], name: str, platform: str | None = None) -> Check:
    (found,) = [c for c in checks if c.name == name and platform in (None, c.platform)]
    return found


def amd(tmp_path: Path, modules=None, **changes) -> list[Check]:
    modules = {"torch": ROCM_TORCH, "tensorflow": ROCM_TF} if modules is None else modules
    return run_checks(fake_system(tmp_path, modules, **changes))


# ---- the System seam ----------------------------------------------------------------


def test_system_reads_under_its_root(tmp_path):
    write(tmp_path, "/etc/group", "render:x:109:alice\nvideo:x:44:bob\nusers:x:100:\n")
    write(tmp_path, "/etc/passwd", "alice:x:1000:100::/home/alice:/bin/bash\n")
    system = fake_system(tmp_path)
    assert system.read("/etc/group").startswith("render")
    assert system.read("/absent") is None and system.listdir("/absent") == []
    assert system.groups_of_user() == {"render", "users"}  # users: alice's primary group
    assert system.process_groups() == {"video", "render"}


def test_real_system_defaults():
    system = System()
    assert system.exists("/proc") and system.env is os.environ
    assert system.import_module("no_such_module_hipkit") is None
    assert system.library_loads("libc.so.6") and not system.library_loads("libno_such_library.so")
    assert system.run_command(["false"], 5) is None


# ---- AMD ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "version, target",
    [(90010, "gfx90a"), (90400, "gfx940"), (90402, "gfx942"), (110000, "gfx1100"), (100300, "gfx1030"),
     (80003, "gfx803"), (120001, "gfx1201"), (90008, "gfx908")],
)  # fmt: skip
def test_gfx_target_decoding(version, target):
    assert gfx_target(version) == target and gfx_version(target) == version


def test_healthy_amd_machine(tmp_path):
    checks = amd(amd_tree(tmp_path))
    amd_checks = [c for c in checks if c.platform == "AMD"]
    assert {c.status for c in amd_checks} == {"ok"}, [c for c in amd_checks if c.status != "ok"]
    assert by_name(checks, "GPUs").summary == "gfx90a"
    assert by_name(checks, "GPU support").summary == "gfx90a on ROCm's list"
    assert by_name(checks, "rocminfo").summary == "lists gfx90a"
    assert by_name(checks, "TensorFlow for ROCm").summary == "a ROCm build (tensorflow 2.16.1)"
    assert by_name(checks, "hipcc").summary == "HIP version: 6.2.41133-dd7f95766"
    assert by_name(checks, "PyTorch").summary == "ROCm 6.2.41133-dd7f95766 build, sees 1 GPU"
    assert by_name(checks, "NVIDIA GPU").status == "skip"
    assert exit_code(checks) == 0


def test_no_amdgpu_driver(tmp_path):
    amd_tree(tmp_path)
    (tmp_path / "sys/module/amdgpu/version").unlink()
    (tmp_path / "sys/module/amdgpu").rmdir()
    check = by_name(amd(tmp_path), "amdgpu driver")
    assert check.status == "fail" and "modprobe amdgpu" in check.fix


def test_kfd_missing(tmp_path):
    (amd_tree(tmp_path) / "dev/kfd").unlink()
    check = by_name(amd(tmp_path), "/dev/kfd")
    assert check.status == "fail" and check.summary == "missing: /dev/kfd"


@pytest.mark.parametrize("device", ["/dev/kfd", "/dev/dri/renderD128"])
def test_device_file_not_read_write(tmp_path, device):
    write(amd_tree(tmp_path), device, mode=0o400)
    check = by_name(amd(tmp_path), "/dev/kfd" if device == "/dev/kfd" else "/dev/dri/renderD*")
    assert check.status == "fail" and "not read/write" in check.summary
    assert "usermod -aG render,video" in check.fix and f"{device}: no read/write" in check.evidence


def test_no_render_node(tmp_path):
    (amd_tree(tmp_path) / "dev/dri/renderD128").unlink()
    assert by_name(amd(tmp_path), "/dev/dri/renderD*").status == "fail"


@pytest.mark.parametrize("group", ["render", "video"])
def test_user_not_in_group(tmp_path, group):
    write(amd_tree(tmp_path), "/etc/group", "video:x:44:bob\nrender:x:109:bob\n")
    check = by_name(amd(tmp_path, group_ids=()), f"group {group}")
    assert check.status == "fail" and "usermod" in check.fix


def test_group_not_active_in_this_login(tmp_path):
    checks = amd(amd_tree(tmp_path), group_ids=(44,))
    check = by_name(checks, "group render")
    assert check.status == "warn" and "log out and back in" in check.summary
    assert by_name(checks, "group video").status == "ok"
    assert exit_code(checks) == 1


def test_no_gpu_node(tmp_path):
    amd_tree(tmp_path, gpus=())
    checks = amd(tmp_path)
    assert by_name(checks, "GPUs").status == "fail" and "dmesg" in by_name(checks, "GPUs").fix
    assert by_name(checks, "GPU support").status == "skip"


def test_gpus_on_rocms_list(tmp_path):
    check = by_name(amd(amd_tree(tmp_path, gpus=(110000, 90010, 120001))), "GPU support")
    assert (check.status, check.summary) == ("ok", "gfx90a, gfx1100, gfx1201 on ROCm's list")


@pytest.mark.parametrize(
    "version, target, fix",
    [
        (100301, "gfx1031", "usual workaround: export HSA_OVERRIDE_GFX_VERSION=10.3.0 to run gfx1030 code"),
        (110003, "gfx1103", "usual workaround: export HSA_OVERRIDE_GFX_VERSION=11.0.0 to run gfx1100 code"),
        (90006, "gfx906", "use a GPU on ROCm's list (https://rocm.docs.amd.com/"),
        (110501, "gfx1151", "use a GPU on ROCm's list (https://rocm.docs.amd.com/"),
    ],
)
def test_gpu_not_on_rocms_list(tmp_path, version, target, fix):
    checks = amd(amd_tree(tmp_path, gpus=(90010, version)), modules={})
    check = by_name(checks, "GPU support")
    assert (check.status, check.summary) == ("warn", f"{target} not on ROCm's list of supported GPUs")
    assert fix in check.fix and "gfx908, gfx90a, gfx942, gfx950, gfx1030" in check.evidence[0]
    assert exit_code(checks) == 1
    if "workaround" in fix:  # and its risk
        assert check.fix.endswith(
            f"on the {target}; AMD does not support it, and a kernel using what the {target} lacks can crash "
            "or compute wrong results"
        )


def test_hsa_override_runs_an_unsupported_gpu_as_a_supported_one(tmp_path):
    amd_tree(tmp_path, gpus=(100301,))
    torch = torch_module(hip="6.2.41133-dd7f95766", arch=["gfx1030", "gfx1100"])
    checks = amd(tmp_path, {"torch": torch}, env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    support = by_name(checks, "GPU support")
    assert (support.status, support.summary) == ("ok", "gfx1031 not on ROCm's list, run as gfx1030")
    override = by_name(checks, "HSA_OVERRIDE_GFX_VERSION")
    assert (override.status, override.summary) == ("warn", "set to '10.3.0': GPUs run gfx1030 code")
    assert by_name(checks, "PyTorch gfx targets").status == "ok"  # the runtime loads the gfx1030 kernels
    assert exit_code(checks) == 1


@pytest.mark.parametrize(
    "env",
    [
        {"HIP_VISIBLE_DEVICES": ""},
        {"ROCR_VISIBLE_DEVICES": ""},
        {"HSA_VISIBLE_DEVICES": ""},
        {"CUDA_VISIBLE_DEVICES": ""},
        {"HIP_VISIBLE_DEVICES": "2"},
        {"ROCR_VISIBLE_DEVICES": "5,0"},
        {"ROCR_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "1"},
    ],
)
def test_visibility_hides_every_amd_gpu(tmp_path, env):
    check = by_name(amd(amd_tree(tmp_path, gpus=(90010, 90010)), env=env), "visible GPUs", "AMD")
    assert check.status == "fail" and "hipErrorNoDevice" in check.summary
    assert all(name in check.fix for name in env)


@pytest.mark.parametrize(
    "env, summary",
    [
        ({}, "no visibility variable set"),
        ({"HIP_VISIBLE_DEVICES": "1,0"}, "2 of 2 GPUs visible"),
        ({"HIP_VISIBLE_DEVICES": "0", "CUDA_VISIBLE_DEVICES": ""}, "1 of 2 GPUs visible"),
        ({"ROCR_VISIBLE_DEVICES": "GPU-4e2b1c", "HIP_VISIBLE_DEVICES": "0"}, "1 of 2 GPUs visible"),
    ],
)
def test_visibility_leaves_gpus(tmp_path, env, summary):
    check = by_name(amd(amd_tree(tmp_path, gpus=(90010, 90010)), env=env), "visible GPUs", "AMD")
    assert (check.status, check.summary) == ("ok", summary)


def test_visible_count_stops_at_the_first_invalid_entry():
    count, evidence = visible_count(4, [("HIP_VISIBLE_DEVICES", "2,7,0")])
    assert count == 1 and evidence == ["HIP_VISIBLE_DEVICES='2,7,0': 1 of 4 GPUs left"]
    assert visible_count(4, [("ROCR_VISIBLE_DEVICES", "3,2"), ("HIP_VISIBLE_DEVICES", "1")])[0] == 1
    assert visible_count(2, [("HIP_VISIBLE_DEVICES", "0,0")])[0] == 1  # a repeat adds no GPU


@pytest.mark.parametrize(
    "value, status, summary",
    [
        (None, "ok", "not set"),
        ("9.4.2", "warn", "set to '9.4.2': GPUs run gfx942 code"),
        ("10.3.0", "fail", "set to '10.3.0': gfx90a cannot run gfx1030 code"),
    ],
)
def test_hsa_override_gfx_version(tmp_path, value, status, summary):
    env = {} if value is None else {"HSA_OVERRIDE_GFX_VERSION": value}
    check = by_name(amd(amd_tree(tmp_path), env=env), "HSA_OVERRIDE_GFX_VERSION")
    assert (check.status, check.summary) == (status, summary)
    assert status == "ok" or check.fix.startswith("unset HSA_OVERRIDE_GFX_VERSION")


def test_rocm_version(tmp_path):
    amd_tree(tmp_path)
    (tmp_path / "opt/rocm/.info/version").unlink()
    check = by_name(amd(tmp_path, modules={}), "ROCm")
    assert check.status == "warn" and "amdgpu-install" in check.fix
    write(tmp_path, "/opt/rocm-6.1.2/.info/version", "6.1.2-119\n")
    assert by_name(amd(tmp_path, modules={}), "ROCm").summary == "ROCm 6.1.2-119 in /opt/rocm-6.1.2"


@pytest.mark.parametrize(
    "output, summary", [(None, "/opt/rocm/bin/rocminfo failed"), (ROCMINFO_CPU, "lists no GPU agent")]
)
def test_rocminfo_fails(tmp_path, output, summary):
    checks = amd(amd_tree(tmp_path), run_command=runner(rocminfo=output))
    check = by_name(checks, "rocminfo")
    assert (check.status, check.summary) == ("fail", summary) and exit_code(checks) == 2


def test_rocminfo_not_on_path(tmp_path):
    no_rocminfo = {"g++": "/usr/bin/g++", "hipcc": "/opt/rocm/bin/hipcc"}.get
    check = by_name(amd(amd_tree(tmp_path), find_command=no_rocminfo), "rocminfo")
    assert (check.status, check.summary, check.fix) == ("warn", "not installed", "sudo apt install rocminfo")
    write(tmp_path, "/opt/rocm/bin/rocminfo", mode=0o700)
    check = by_name(amd(tmp_path, find_command=no_rocminfo), "rocminfo")
    assert (check.status, check.evidence) == ("ok", ["/opt/rocm/bin/rocminfo: GPU agents ['gfx90a']"])
    (tmp_path / "opt/rocm/.info/version").unlink()
    assert by_name(amd(tmp_path, modules={}, find_command=no_rocminfo), "rocminfo").status == "skip"


def test_rocm_and_torch_hip_mismatch(tmp_path):
    amd_tree(tmp_path)
    torch = torch_module(hip="6.1.40091-a8dbc0c19", arch=["gfx90a"])
    check = by_name(amd(tmp_path, {"torch": torch}), "PyTorch for ROCm")
    assert check.status == "warn" and check.summary == "built for ROCm 6.1, ROCm 6.2 installed"
    assert check.fix == "pip install torch --index-url https://download.pytorch.org/whl/rocm6.2"


@pytest.mark.parametrize(
    "torch, summary",
    [
        (torch_module(cuda="12.4"), "a CUDA 12.4 build: no AMD GPU"),
        (torch_module(), "a CPU-only build: no AMD GPU"),
    ],
)
def test_torch_without_rocm_on_an_amd_machine(tmp_path, torch, summary):
    checks = amd(amd_tree(tmp_path), {"torch": torch})
    assert (by_name(checks, "PyTorch for ROCm").status, by_name(checks, "PyTorch for ROCm").summary) == (
        "warn",
        summary,
    )
    assert by_name(checks, "PyTorch gfx targets").status == "skip"


def test_torch_absent_on_an_amd_machine(tmp_path):
    checks = amd(amd_tree(tmp_path), modules={})
    assert by_name(checks, "PyTorch for ROCm").status == "skip"
    assert by_name(checks, "PyTorch").summary == "not installed"


TF_FIX = (
    "pip uninstall -y tensorflow tensorflow-rocm && "
    "pip install tensorflow-rocm -f https://repo.radeon.com/rocm/manylinux/rocm-rel-6.2/"
)


@pytest.mark.parametrize(
    "tf, summary",
    [
        (tf_module("2.14.0.600"), "built for ROCm 6.0, ROCm 6.2 installed"),
        (tf_module("2.15.0", rocm=False, cuda=True), "a CUDA build: no AMD GPU"),
        (tf_module("2.15.0", rocm=False), "a CPU-only build: no AMD GPU"),
    ],
)
def test_tensorflow_not_built_for_this_rocm(tmp_path, tf, summary):
    check = by_name(amd(amd_tree(tmp_path), {"tensorflow": tf}), "TensorFlow for ROCm")
    assert (check.status, check.summary, check.fix) == ("warn", summary, TF_FIX)


def test_tensorflow_built_for_this_rocm(tmp_path):
    write(amd_tree(tmp_path), "/opt/rocm/.info/version", "6.0.2-115\n")
    check = by_name(amd(tmp_path, {"tensorflow": tf_module("2.14.0.600")}), "TensorFlow for ROCm")
    assert (check.status, check.summary) == ("ok", "built for ROCm 6.0")
    assert check.evidence == ["tensorflow 2.14.0.600: is_rocm_build=True is_cuda_build=False"]
    assert by_name(amd(tmp_path, modules={}), "TensorFlow for ROCm").summary == "TensorFlow not installed"


def test_gfx_target_missing_from_torch(tmp_path):
    amd_tree(tmp_path, gpus=(110000,))
    check = by_name(amd(tmp_path), "PyTorch gfx targets")
    assert check.status == "warn" and check.summary == "gfx1100 not built in"


def test_old_kernel(tmp_path):
    write(amd_tree(tmp_path), "/proc/sys/kernel/osrelease", "5.4.0-150-generic\n")
    check = by_name(amd(tmp_path), "Linux kernel")
    assert check.status == "warn" and "5.15" in check.fix
    (tmp_path / "proc/sys/kernel/osrelease").unlink()
    check = by_name(amd(tmp_path), "Linux kernel")
    assert (check.status, check.summary, check.fix) == ("warn", "unknown version", "check `uname -r`")


def rocm_elsewhere(root: Path) -> Path:
    """ROCm installed only in /opt/rocm-6.1.2, with no /opt/rocm."""
    amd_tree(root)
    (root / "opt/rocm/.info/version").unlink()
    write(root, "/opt/rocm-6.1.2/.info/version", "6.1.2-119\n")
    return root


def test_hipcc_not_on_path(tmp_path):
    amd_tree(tmp_path)
    check = by_name(amd(tmp_path, find_command={"g++": "/usr/bin/g++"}.get), "hipcc")
    assert check.status == "warn" and check.summary == "not installed"
    write(tmp_path, "/opt/rocm/bin/hipcc", mode=0o700)
    check = by_name(amd(tmp_path, find_command={"g++": "/usr/bin/g++"}.get), "hipcc")
    assert check.summary == "not on PATH" and check.fix == "export PATH=$PATH:/opt/rocm/bin"


def test_hipcc_elsewhere_or_broken(tmp_path):
    write(rocm_elsewhere(tmp_path), "/opt/rocm-6.1.2/bin/hipcc", mode=0o700)
    check = by_name(amd(tmp_path, find_command={"g++": "/usr/bin/g++"}.get), "hipcc")
    assert (check.status, check.fix) == ("warn", "export PATH=$PATH:/opt/rocm-6.1.2/bin")
    check = by_name(amd(tmp_path, run_command=runner(hipcc=None)), "hipcc")
    assert (check.status, check.summary) == ("warn", "/opt/rocm/bin/hipcc --version failed")


def test_libamdhip64_does_not_load(tmp_path):
    write(amd_tree(tmp_path), "/opt/rocm/lib/libamdhip64.so")
    check = by_name(amd(tmp_path, library_loads=lambda name: False), "libamdhip64.so")
    assert (
        check.status == "fail" and "undefined reference to hip" in check.summary and "ldconfig" in check.fix
    )


def test_libamdhip64_elsewhere_or_absent(tmp_path):
    rocm_elsewhere(tmp_path)
    check = by_name(amd(tmp_path, library_loads=lambda name: False), "libamdhip64.so")
    assert (check.status, check.fix) == ("fail", "install the HIP runtime: sudo apt install hip-runtime-amd")
    write(tmp_path, "/opt/rocm-6.1.2/lib/libamdhip64.so")
    check = by_name(amd(tmp_path, library_loads=lambda name: False), "libamdhip64.so")
    assert check.fix == (
        "echo /opt/rocm-6.1.2/lib | sudo tee /etc/ld.so.conf.d/rocm.conf && sudo ldconfig; "
        "link with hipcc, or add -L/opt/rocm-6.1.2/lib -lamdhip64 to g++"
    )


# ---- NVIDIA ---------------------------------------------------------------------------


def nvidia(root: Path, bindings: str | None = "13.0.1", torch=None, **changes) -> list[Check]:
    modules = {"torch": torch} if torch else {}
    if bindings:
        modules["cuda.bindings"] = SimpleNamespace(__version__=bindings)
    return run_checks(fake_system(root, modules, **changes))


def test_healthy_nvidia_machine(tmp_path):
    checks = nvidia(nvidia_tree(tmp_path), torch=torch_module(cuda="12.8"))
    assert {c.status for c in checks if c.platform == "NVIDIA"} == {"ok"}
    assert by_name(checks, "NVIDIA driver").summary == "version 580.65"
    assert by_name(checks, "cuda-bindings").summary == "cuda-bindings 13.0.1"
    assert by_name(checks, "AMD GPU").status == "skip"
    assert exit_code(checks) == 0


def test_driver_too_old_for_cuda_bindings(tmp_path):
    nvidia_tree(tmp_path, NVRM_535)
    check = by_name(nvidia(tmp_path), "cuda-bindings")
    assert check.status == "fail" and check.summary == "cuda-bindings 13.0.1 needs a driver >= 580"
    assert "cuda-bindings==12.*" in check.fix
    assert by_name(nvidia(tmp_path, bindings="12.9.0"), "cuda-bindings").status == "ok"
    assert by_name(nvidia(tmp_path, bindings=None), "cuda-bindings").status == "skip"


def test_torch_cuda_vs_driver(tmp_path):
    nvidia_tree(tmp_path, NVRM_535)
    assert by_name(nvidia(tmp_path, torch=torch_module(cuda="12.1")), "PyTorch for CUDA").status == "ok"
    assert by_name(nvidia(tmp_path, torch=torch_module(cuda="13.0")), "PyTorch for CUDA").status == "fail"
    check = by_name(nvidia(tmp_path, torch=torch_module(hip="6.2")), "PyTorch for CUDA")
    assert check.status == "warn" and "not a CUDA build" in check.summary


def test_nvidia_driver_not_loaded(tmp_path):
    write(tmp_path, "/dev/nvidiactl")
    check = by_name(nvidia(tmp_path), "NVIDIA driver")
    assert check.status == "fail" and "modprobe nvidia" in check.fix
    assert by_name(nvidia(tmp_path), "cuda-bindings").summary == "driver version unknown"


def test_nvidia_device_files(tmp_path):
    nvidia_tree(tmp_path)
    write(tmp_path, "/dev/nvidiactl", mode=0o400)
    assert "not read/write" in by_name(nvidia(tmp_path), "device files").summary
    (tmp_path / "dev/nvidia0").unlink()
    check = by_name(nvidia(tmp_path), "device files")
    assert check.status == "fail" and check.summary == "missing: /dev/nvidia0"


@pytest.mark.parametrize("value", ["", "1", "-1"])
def test_cuda_visible_devices_hides_every_gpu(tmp_path, value):
    checks = nvidia(nvidia_tree(tmp_path), env={"CUDA_VISIBLE_DEVICES": value})
    check = by_name(checks, "visible GPUs", "NVIDIA")
    assert check.status == "fail" and "CUDA_VISIBLE_DEVICES=0" in check.fix
    assert (
        by_name(nvidia(tmp_path, env={"CUDA_VISIBLE_DEVICES": "0"}), "visible GPUs", "NVIDIA").status == "ok"
    )


# ---- CPU ------------------------------------------------------------------------------


def test_cpu_only_machine(tmp_path):
    checks = run_checks(fake_system(tmp_path))
    assert [(c.platform, c.status) for c in checks if c.platform in ("AMD", "NVIDIA")] == [
        ("NVIDIA", "skip"),
        ("AMD", "skip"),
    ]
    assert by_name(checks, "C++ compiler").summary == "g++ (GCC) 12.2.0"
    assert exit_code(checks) == 0


HIDDEN = "the visibility variables hide all {} devices (hipErrorNoDevice)"


@pytest.mark.parametrize(
    "env, status, summary",
    [
        ({}, "ok", "no visibility variable set"),
        ({"HIP_VISIBLE_DEVICES": "0"}, "ok", "1 of 1 devices visible"),
        ({"HIP_VISIBLE_DEVICES": ""}, "fail", HIDDEN.format(1)),
        ({"HIP_VISIBLE_DEVICES": "1"}, "fail", HIDDEN.format(1)),
        ({"HIP_VISIBLE_DEVICES": "-1"}, "fail", HIDDEN.format(1)),
        ({"HIP_VISIBLE_DEVICES": "GPU-8a6f"}, "fail", HIDDEN.format(1)),
        ({"HIPKIT_CPU_DEVICES": "3", "HIP_VISIBLE_DEVICES": "2,0"}, "ok", "2 of 3 devices visible"),
        ({"HIPKIT_CPU_DEVICES": "2", "HIP_VISIBLE_DEVICES": "2"}, "fail", HIDDEN.format(2)),
        ({"CUDA_VISIBLE_DEVICES": "", "ROCR_VISIBLE_DEVICES": "-1"}, "ok", "no visibility variable set"),
    ],
)
def test_the_cpus_devices_are_visible_or_hidden(tmp_path, env, status, summary):
    """On a machine with no GPU, HIP_VISIBLE_DEVICES may still hide every device (the
    CPU's): the seed's hipErrorNoDevice row, with the fix; the vendors' variables leave
    the CPU alone."""
    checks = run_checks(fake_system(tmp_path, env=env))
    check = next(c for c in checks if c.platform == "CPU" and c.name == "visible devices")
    assert (check.status, check.summary) == (status, summary)
    if status == "fail":
        assert check.fix.startswith("unset them (unset HIP_VISIBLE_DEVICES) or list indices from 0")
        assert exit_code(checks) == 2


@pytest.mark.parametrize(
    "value, status, summary",
    [
        (None, "ok", "1 device (HIPKIT_CPU_DEVICES)"),
        ("4", "ok", "4 devices (HIPKIT_CPU_DEVICES)"),
        ("16", "ok", "HIPKIT_CPU_DEVICES=16 devices on 8 cores: each has one worker"),
        ("0", "fail", "HIPKIT_CPU_DEVICES='0': expected an integer from 1 to 64"),
        ("two", "fail", "HIPKIT_CPU_DEVICES='two': expected an integer from 1 to 64"),
    ],
)
def test_the_cpus_device_count(tmp_path, value, status, summary):
    env = {} if value is None else {"HIPKIT_CPU_DEVICES": value}
    check = by_name(run_checks(fake_system(tmp_path, env=env)), "devices")
    assert (check.status, check.summary) == (status, summary)


def test_compiler(tmp_path):
    check = by_name(run_checks(fake_system(tmp_path, env={"HIPKIT_CXX": "clang++"})), "C++ compiler")
    assert (
        check.status == "fail" and check.summary == "clang++ not found on PATH" and "HIPKIT_CXX" in check.fix
    )
    broken = fake_system(tmp_path, run_command=lambda argv, timeout: None)
    assert by_name(run_checks(broken), "C++ compiler").summary == "/usr/bin/g++ --version failed"


def test_cache_directory(tmp_path):
    check = by_name(run_checks(fake_system(tmp_path)), "cache directory")
    assert check.status == "ok" and check.evidence == ["/home/alice/.cache/hipkit: to be created under /"]
    (tmp_path / "home/alice").mkdir(parents=True, mode=0o500)
    check = by_name(run_checks(fake_system(tmp_path)), "cache directory")
    assert check.status == "fail" and "HIPKIT_CACHE_DIR" in check.fix


def test_cores(tmp_path):
    assert by_name(run_checks(fake_system(tmp_path)), "cores").summary == "8 usable"
    check = by_name(run_checks(fake_system(tmp_path, env={"HIPKIT_CPU_THREADS": "32"})), "cores")
    assert check.status == "warn" and "oversubscribes 8 cores" in check.summary


# ---- frameworks -----------------------------------------------------------------------


def cupy_module(is_hip: bool, count: int) -> SimpleNamespace:
    def get_device_count() -> int:
        if not count:
            raise RuntimeError("cudaErrorNoDevice")
        return count

    return SimpleNamespace(
        cuda=SimpleNamespace(runtime=SimpleNamespace(is_hip=is_hip, getDeviceCount=get_device_count))
    )


def test_frameworks_on_an_nvidia_machine(tmp_path):
    nvidia_tree(tmp_path)
    jax = SimpleNamespace(default_backend=lambda: "gpu", devices=lambda: [SimpleNamespace(platform="gpu")])
    tf = tf_module("2.20.0", rocm=False, cuda=True)
    modules = {"torch": torch_module(), "cupy": cupy_module(False, 0), "jax": jax, "tensorflow": tf}
    checks = run_checks(fake_system(tmp_path, modules))
    assert by_name(checks, "PyTorch").summary == "CPU build, sees 1 GPU"
    torch = dataclasses.replace(fake_system(tmp_path), import_module={"torch": torch_module(count=0)}.get)
    check = by_name(run_checks(torch), "PyTorch")
    assert check.status == "warn" and check.summary == "CPU build, sees 0 GPUs of the 1 present"
    assert by_name(checks, "CuPy").status == "warn"
    assert by_name(checks, "JAX").summary == "backend gpu build, sees 1 GPU"
    assert by_name(checks, "TensorFlow").summary == "CUDA build, sees 1 GPU"


def test_framework_probe_failing(tmp_path):
    broken = SimpleNamespace(default_backend=lambda: "cpu", devices=lambda: 1 / 0)
    check = by_name(run_checks(fake_system(tmp_path, {"jax": broken})), "JAX")
    assert check.status == "warn" and "division by zero" in check.summary


def test_several_gpus_only_one_visible(tmp_path):
    amd_tree(tmp_path, gpus=(90010, 90010, 90010, 90010))
    check = by_name(amd(tmp_path, env={"HIP_VISIBLE_DEVICES": "2"}), "several GPUs")
    assert check.status == "warn" and check.summary == "4 GPUs present, only one visible"
    assert by_name(amd(tmp_path), "several GPUs").summary == "4 of 4 visible"


def test_cupy_on_an_amd_machine(tmp_path):
    checks = amd(amd_tree(tmp_path), {"cupy": cupy_module(True, 1)})
    assert (by_name(checks, "CuPy").status, by_name(checks, "CuPy").summary) == (
        "ok",
        "ROCm build, sees 1 GPU",
    )


# ---- the command ----------------------------------------------------------------------


def cli(monkeypatch, capsys, system: System, *args: str) -> tuple[int, str]:
    monkeypatch.setattr(doctor, "System", lambda: system)
    code = main(["doctor", *args])
    return code, capsys.readouterr().out


def test_cli_exit_codes(tmp_path, monkeypatch, capsys):
    amd_tree(tmp_path)
    assert cli(monkeypatch, capsys, fake_system(tmp_path, {"torch": ROCM_TORCH}))[0] == 0
    assert cli(monkeypatch, capsys, fake_system(tmp_path, group_ids=(44,)))[0] == 1
    assert cli(monkeypatch, capsys, fake_system(tmp_path, env={"HIP_VISIBLE_DEVICES": ""}))[0] == 2


def test_cli_text(tmp_path, monkeypatch, capsys):
    system = fake_system(amd_tree(tmp_path), {"torch": ROCM_TORCH}, group_ids=(44,))
    code, out = cli(monkeypatch, capsys, system)
    lines = out.splitlines()
    assert lines[0] == "NVIDIA" and "Frameworks" in lines and code == 1
    warn = lines.index("  warn  group render: configured but not active in this login: log out and back in")
    assert lines[warn + 1] == "          fix: log out and back in (or run: newgrp render)"
    assert "/dev/kfd: read/write" not in out
    assert "          /dev/kfd: read/write" in cli(monkeypatch, capsys, system, "--verbose")[1]


def test_cli_json(tmp_path, monkeypatch, capsys):
    code, out = cli(monkeypatch, capsys, fake_system(tmp_path), "--json")
    report = json.loads(out)
    assert code == 0 and report["exit_code"] == 0
    assert set(report["checks"][0]) == {"platform", "name", "status", "summary", "evidence", "fix"}
    assert [c["platform"] for c in report["checks"][:2]] == ["NVIDIA", "AMD"]


def test_real_machine(capsys):
    """This machine, read for real: it must not crash; the GPU-less test machine skips both vendors."""
    checks = run_checks(System())
    assert exit_code(checks) in (0, 1, 2) and all(c.status in EXIT_CODES for c in checks)
    code = main(["doctor", "--verbose"])
    assert "CPU\n" in capsys.readouterr().out
    if not (Path("/dev/kfd").exists() or Path("/proc/driver/nvidia").exists()):
        assert code in (0, 1)
        assert [c.status for c in checks if c.platform in ("AMD", "NVIDIA")] == ["skip", "skip"]


def test_the_cpu_section_names_its_blas_library():
    checks = [c for c in run_checks(System()) if c.platform == "CPU" and c.name == "BLAS"]
    assert len(checks) == 1
    assert checks[0].status in ("ok", "warn")
    if checks[0].status == "ok":
        assert checks[0].summary.startswith("OpenBLAS ")


def test_a_blas_library_that_does_not_load_is_a_warning_with_the_fix(tmp_path):
    import subprocess
    import sys

    env = {**os.environ, "HIPKIT_OPENBLAS": str(tmp_path / "libopenblas.so")}
    done = subprocess.run(
        [sys.executable, "-m", "hipkit", "doctor"], env=env, capture_output=True, text=True, timeout=300
    )
    cpu = done.stdout[done.stdout.index("\nCPU\n") :]
    line = next(line for line in cpu.splitlines() if "BLAS:" in line)
    assert line.split()[0] == "warn" and "hipBLAS calls will fail" in line
    assert "HIPKIT_OPENBLAS" in done.stdout
    assert done.returncode >= EXIT_CODES["warn"]
