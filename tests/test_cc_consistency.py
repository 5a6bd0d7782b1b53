"""Programs built by ``hipkit cc`` for the CPU and the Python API agree: the same
*_VISIBLE_DEVICES values hide the CPU from both (one rule, README's table);
and hiprtc's compiler child of a program traced by ``hipkit prof`` is not
traced itself (it is the program's compiler, not a process of the run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_cc import build, write
from test_cli import environment

import hipkit
from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
pytestmark = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

VARIABLES = ("ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")

COUNT = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
int main() {
  int count = -1;
  hipError_t e = hipGetDeviceCount(&count);
  printf("%d %d\n", int(e), count);
  return 0;
}
"""


@pytest.fixture(scope="module")
def count_program(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("visible")
    write(directory, "count.hip", COUNT)
    build(directory, "-o", "count", "count.hip")
    return directory / "count"


@pytest.mark.parametrize(
    "env, visible",
    [
        ({}, True),
        ({"HIP_VISIBLE_DEVICES": "0"}, True),
        ({"HIP_VISIBLE_DEVICES": "00"}, True),
        ({"HIP_VISIBLE_DEVICES": " 0 , 1"}, True),
        ({"CUDA_VISIBLE_DEVICES": "1", "ROCR_VISIBLE_DEVICES": ""}, True),  # the vendors' GPUs only
        ({"HIP_VISIBLE_DEVICES": ""}, False),
        ({"HIP_VISIBLE_DEVICES": "-1"}, False),
        ({"HIP_VISIBLE_DEVICES": "1,0"}, False),
        ({"HIP_VISIBLE_DEVICES": "0 1"}, False),
        ({"HIP_VISIBLE_DEVICES": "GPU-8a6f1f4c"}, False),
        ({"CUDA_VISIBLE_DEVICES": "0", "HIP_VISIBLE_DEVICES": "-1"}, False),
    ],
    ids=repr,
)
def test_program_and_python_see_the_same_devices(count_program, monkeypatch, env, visible):
    """HIP_VISIBLE_DEVICES, read as CUDA and ROCm read a device list: the CPU
    (device 0) is there for a program and for Python alike only if it is unset or
    lists it first; the vendors' variables leave the CPU alone."""
    unset = dict.fromkeys(VARIABLES)
    done = subprocess.run(
        [str(count_program)], env=environment(**{**unset, **env}), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("0 1\n" if visible else "100 0\n")
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert len(hipkit.devices("cpu")) == (1 if visible else 0)
    if visible:
        assert hipkit.Device(0, "cpu").properties.warpSize in (32, 64)
    else:  # as the program's hipSetDevice: hipErrorNoDevice
        with pytest.raises(hipkit.HipError) as info:
            hipkit.Device(0, "cpu")
        assert info.value.code == hipkit.hipError_t.hipErrorNoDevice


RTC = r"""
#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>
#include <cstdio>
#include <vector>
static const char* kSource =
    "extern \"C\" __global__ void fill(int* p) { p[threadIdx.x] = 3 * threadIdx.x; }";
int main() {
  hiprtcProgram prog;
  hiprtcCreateProgram(&prog, kSource, "fill.hip", 0, nullptr, nullptr);
  if (hiprtcCompileProgram(prog, 0, nullptr) != HIPRTC_SUCCESS) return 2;
  size_t size = 0;
  hiprtcGetCodeSize(prog, &size);
  std::vector<char> code(size);
  hiprtcGetCode(prog, code.data());
  hipModule_t module;
  hipFunction_t fill;
  if (hipModuleLoadData(&module, code.data()) || hipModuleGetFunction(&fill, module, "fill")) return 3;
  int* d;
  hipMalloc(&d, 64 * sizeof(int));
  void* args[] = {&d};
  hipModuleLaunchKernel(fill, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr);
  int h[64];
  hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost);
  printf("%d\n", h[63]);
  return 0;
}
"""


def test_the_hiprtc_compiler_of_a_traced_program_is_not_traced(tmp_path):
    """Under hipkit prof (HIPKIT_PROF_DIR and its options set), a program whose
    hiprtc runs hipkit's compiler leaves one trace, its own: the compiler, a
    Python importing hipkit, would start a trace of its own (its spool, as the
    control shows) if it inherited the variable."""
    write(tmp_path, "rtc.hip", RTC)
    build(tmp_path, "-o", "rtc", "rtc.hip")
    traces = tmp_path / "traces"
    traces.mkdir()
    domains = {"kernel": True, "api": True, "copy": True, "marker": True, "alloc": True}
    (traces / "options.json").write_text(json.dumps(domains))  # as hipkit prof writes it
    env = environment(HIPKIT_PLATFORM="cpu", HIPKIT_PROF_DIR=str(traces))
    done = subprocess.run([str(tmp_path / "rtc")], env=env, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (0, "189\n"), done.stderr
    written = sorted(p.name for p in traces.iterdir() if p.name != "options.json")
    assert len(written) == 1 and not written[0].endswith(".spool"), written  # the program's native trace
    control = [sys.executable, "-c", "import sys; sys.path.pop(0); from hipkit.cc import rtc"]
    subprocess.run(control, env=env, check=True, timeout=120)
    assert len([p for p in traces.iterdir() if p.name.endswith(".spool")]) == 1
