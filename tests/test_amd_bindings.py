"""The AMD platform's ctypes bindings against ROCm's installed headers.

Each declared function's parameters and result, hipDeviceProp_t's layout and
the constants hipkit passes are checked by the C++ compiler itself: a
generated file of static_asserts, compiled against ``hip/hip_runtime_api.h``
and ``hip/hiprtc.h`` (on Debian and Ubuntu, from libamdhip64-dev, which
``make amd-toolchain`` installs).  A wrong binding would corrupt memory on a
GPU machine; here it is a compile error naming the function or field."""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hipkit.platforms.amd import _hip

ROCM_INCLUDE = next(
    (
        Path(d)
        for d in (os.path.join(os.environ.get("ROCM_PATH") or "/opt/rocm", "include"), "/usr/include")
        if Path(d, "hip", "hip_runtime_api.h").exists()
    ),
    None,
)
CXX = shutil.which("g++")
pytestmark = [
    pytest.mark.skipif(ROCM_INCLUDE is None, reason="ROCm's HIP headers are not installed (libamdhip64-dev)"),
    pytest.mark.skipif(CXX is None, reason="no g++ to check the bindings with"),
]

PRELUDE = r"""
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#if __has_include(<amd_comgr/amd_comgr.h>)  // ROCm 6 and later
#include <amd_comgr/amd_comgr.h>
#else
#include <amd_comgr.h>
#endif
#include <cstddef>
#include <tuple>
#include <type_traits>

template <class F> struct sig;
template <class R, class... A> struct sig<R (*)(A...)> {
  using result = R;
  static constexpr std::size_t arity = sizeof...(A);
  template <std::size_t I> using arg = std::tuple_element_t<I, std::tuple<A...>>;
};

// 'p' a pointer; 's' a struct of the size; 'f' a floating-point type of the
// size; 'i' or 'u' a signed or unsigned integer of the size, or an enum of
// the size (its signedness is the compiler's choice).
template <class T> constexpr bool is(char kind, std::size_t size) {
  if (kind == 'p') return std::is_pointer_v<T>;
  if (kind == 's') return std::is_class_v<T> && sizeof(T) == size;
  if (kind == 'f') return std::is_floating_point_v<T> && sizeof(T) == size;
  if constexpr (std::is_enum_v<T>) {
    return sizeof(T) == size;
  } else {
    return std::is_integral_v<T> && sizeof(T) == size && std::is_signed_v<T> == (kind == 'i');
  }
}
"""


def _kind(ctype) -> tuple[str, int]:
    """How a ctypes type is passed: ('p', 8), ('i', 4), ('u', 8), ('f', 4), ('s', 8)..."""
    if issubclass(ctype, ctypes.Structure):
        return "s", ctypes.sizeof(ctype)
    if (
        ctype in (ctypes.c_void_p, ctypes.c_char_p)
        or hasattr(ctype, "_type_")
        and isinstance(ctype._type_, type)
    ):
        return "p", ctypes.sizeof(ctypes.c_void_p)
    if ctype in (ctypes.c_float, ctypes.c_double):
        return "f", ctypes.sizeof(ctype)
    signed = ctype(-1).value < 0
    return ("i" if signed else "u"), ctypes.sizeof(ctype)


def _function_checks(name: str, argtypes: tuple, result: str) -> list[str]:
    checks = [f'static_assert(sig<decltype(&{name})>::arity == {len(argtypes)}, "{name}: parameter count");']
    for i, ctype in enumerate(argtypes):
        kind, size = _kind(ctype)
        checks.append(
            f"static_assert(is<sig<decltype(&{name})>::arg<{i}>>('{kind}', {size}), "
            f'"{name}: parameter {i} is not {ctype.__name__}");'
        )
    checks.append(f'static_assert({result}, "{name}: result");')
    return checks


def _compile(tmp_path: Path, body: list[str]) -> subprocess.CompletedProcess:
    source = tmp_path / "bindings.cpp"
    source.write_text(PRELUDE + "\n".join(body) + "\n")
    assert CXX is not None
    return subprocess.run(
        [CXX, "-std=c++17", "-fsyntax-only", "-D__HIP_PLATFORM_AMD__", "-D__HIP_DISABLE_CPP_FUNCTIONS__"]
        + [f"-I{ROCM_INCLUDE}", str(source)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_functions_match_the_header(tmp_path):
    checks = []
    error_code = "std::is_same_v<sig<decltype(&{})>::result, {}>"
    for name, argtypes in _hip.HIP_FUNCTIONS.items():
        checks += _function_checks(name, argtypes, error_code.format(name, "hipError_t"))
    # Device properties by the layout of ROCm 5's hipGetDeviceProperties (see test_device_properties_layout).
    properties = (ctypes.POINTER(_hip.hipDeviceProp_t), ctypes.c_int)
    checks += _function_checks(
        "hipGetDeviceProperties", properties, error_code.format("hipGetDeviceProperties", "hipError_t")
    )
    for name, argtypes in _hip.HIP_STRINGS.items():
        checks += _function_checks(name, argtypes, error_code.format(name, "const char*"))
    for name, argtypes in _hip.HIPRTC_FUNCTIONS.items():
        checks += _function_checks(name, argtypes, error_code.format(name, "hiprtcResult"))
    for name, argtypes in _hip.COMGR_FUNCTIONS.items():
        checks += _function_checks(name, argtypes, error_code.format(name, "amd_comgr_status_t"))
    version = "amd_comgr_get_version"
    checks += _function_checks(version, _hip.COMGR_VERSION, error_code.format(version, "void"))
    done = _compile(tmp_path, checks)
    assert done.returncode == 0, done.stderr


def test_a_wrong_binding_is_caught(tmp_path):
    """The check itself: a parameter declared with the wrong type fails it."""
    checks = _function_checks("hipMemsetD16", (ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t), "true")
    done = _compile(tmp_path, checks)
    assert done.returncode != 0
    assert "hipMemsetD16: parameter 1 is not c_uint" in done.stderr


def test_device_properties_layout(tmp_path):
    """Every field of hipkit's hipDeviceProp_t at the header's offset, and the
    same size: hipGetDeviceProperties writes the whole struct.  ROCm 6 and
    later name this layout hipDeviceProp_tR0000 (hip/hip_deprecated.h)."""
    header = (ROCM_INCLUDE / "hip" / "hip_runtime_api.h").read_text()
    struct = "hipDeviceProp_tR0000" if "hip_deprecated.h" in header else "hipDeviceProp_t"
    prop = _hip.hipDeviceProp_t
    checks = [f'static_assert(sizeof({struct}) == {ctypes.sizeof(prop)}, "size");']
    for field, _ in prop._fields_:
        offset = getattr(prop, field).offset
        checks.append(f'static_assert(offsetof({struct}, {field}) == {offset}, "{field}");')
    done = _compile(tmp_path, checks)
    assert done.returncode == 0, done.stderr


def test_constants_match_the_header(tmp_path):
    constants = {
        "HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK": _hip.FUNC_MAX_THREADS_PER_BLOCK,
        "HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES": _hip.FUNC_SHARED_SIZE_BYTES,
        "HIP_FUNC_ATTRIBUTE_NUM_REGS": _hip.FUNC_NUM_REGS,
        "hipMemcpyDefault": _hip.MEMCPY_DEFAULT,
        "hipErrorNoDevice": _hip.NO_DEVICE,
        "hipErrorNotReady": _hip.NOT_READY,
        "HIPRTC_SUCCESS": _hip.HIPRTC_SUCCESS,
        "HIPRTC_ERROR_INVALID_OPTION": _hip.HIPRTC_ERROR_INVALID_OPTION,
        "HIPRTC_ERROR_COMPILATION": _hip.HIPRTC_ERROR_COMPILATION,
        # The flags the platform passes as numbers.
        "hipStreamNonBlocking": 1,
        "hipEventBlockingSync": 1,
        "hipEventDisableTiming": 2,
    }
    checks = [f'static_assert({expr} == {value}, "{expr}");' for expr, value in constants.items()]
    done = _compile(tmp_path, checks)
    assert done.returncode == 0, done.stderr


def test_launch_parameter_markers_match_the_header():
    """hipModuleLaunchKernel's ``extra`` markers are pointers made of numbers
    (HIP_LAUNCH_PARAM_END is 3 on AMD, 0 in CUDA): read from the macros."""
    assert CXX is not None
    done = subprocess.run(
        [CXX, "-x", "c++", "-E", "-dM", "-D__HIP_PLATFORM_AMD__", f"-I{ROCM_INCLUDE}", "-"],
        input="#include <hip/hip_runtime_api.h>\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    macros = dict(
        re.findall(
            r"^#define (HIP_LAUNCH_PARAM_\w+) \(\(void ?\*\) ?(0x[0-9a-fA-F]+|\d+)\)$", done.stdout, re.M
        )
    )
    assert {name: int(value, 0) for name, value in macros.items()} == {
        "HIP_LAUNCH_PARAM_BUFFER_POINTER": _hip.LAUNCH_PARAM_BUFFER_POINTER,
        "HIP_LAUNCH_PARAM_BUFFER_SIZE": _hip.LAUNCH_PARAM_BUFFER_SIZE,
        "HIP_LAUNCH_PARAM_END": _hip.LAUNCH_PARAM_END,
    }
