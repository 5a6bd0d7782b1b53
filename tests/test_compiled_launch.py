"""The GPU platforms' compiled launch path (``_gpu/launch.cpp``), here with no
GPU: built as the platforms build it, it calls a C function of cuLaunchKernel's
signature that keeps what it was given, and the test reads that back.  On a
GPU, every kernel test goes through it (``NvidiaPlatform.launch_path``)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from hipkit.platforms._gpu import compiled_launch
from hipkit.platforms._gpu.compiled_launch import LaunchMarkers

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to build the extension")

# Keeps each call's arguments, the extra array and the bytes it points at.
RECORDER = r"""
#include <cstddef>
#include <cstring>
extern "C" {
struct Seen {
  void* function; unsigned dims[7]; void* stream; void** params; void* extra[5];
  std::size_t size; unsigned char data[256]; int calls;
};
Seen seen;
int answer;
int record(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
           unsigned shared, void* stream, void** params, void** extra) {
  unsigned dims[7] = {gx, gy, gz, bx, by, bz, shared};
  seen.function = f; std::memcpy(seen.dims, dims, sizeof dims); seen.stream = stream;
  seen.params = params; seen.calls += 1; seen.size = 0;
  std::memset(seen.extra, 0, sizeof seen.extra);
  if (extra) {
    std::memcpy(seen.extra, extra, sizeof seen.extra);
    seen.size = *static_cast<std::size_t*>(extra[3]);
    std::memcpy(seen.data, extra[1], seen.size < 256 ? seen.size : 256);
  }
  return answer;
}
}
"""


class Seen(ctypes.Structure):
    _fields_ = [
        ("function", ctypes.c_void_p),
        ("dims", ctypes.c_uint * 7),
        ("stream", ctypes.c_void_p),
        ("params", ctypes.c_void_p),
        ("extra", ctypes.c_void_p * 5),
        ("size", ctypes.c_size_t),
        ("data", ctypes.c_ubyte * 256),
        ("calls", ctypes.c_int),
    ]


@pytest.fixture(scope="module")
def recorder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recorder")
    (folder / "record.cpp").write_text(RECORDER)
    library = folder / "librecord.so"
    command = ["g++", "-O1", "-shared", "-fPIC", str(folder / "record.cpp"), "-o", str(library)]
    subprocess.run(command, check=True)
    lib = ctypes.CDLL(str(library))
    return lib, Seen.in_dll(lib, "seen"), ctypes.c_int.in_dll(lib, "answer")


@pytest.fixture(params=[LaunchMarkers(1, 2, 0), LaunchMarkers(1, 2, 3)], ids=["cuda", "hip"])
def launch(request, recorder):
    lib = recorder[0]
    entry = ctypes.cast(lib.record, ctypes.c_void_p).value
    function, path = compiled_launch.launcher(entry, request.param)
    assert function is not None, path
    assert path == "compiled (launch.cpp)"
    return function, request.param


def test_a_launch_passes_everything_to_the_entry(recorder, launch):
    _, seen, answer = recorder
    function, markers = launch
    rng = np.random.default_rng()
    packed = rng.integers(0, 256, size=int(rng.integers(1, 200)), dtype=np.uint8).tobytes()
    dims = [int(v) for v in rng.integers(1, 2**31, size=7)]
    answer.value = int(rng.integers(0, 1000))
    before = seen.calls
    result = function(0xDEAD0, *dims, 0xBEEF0, packed)
    assert result == answer.value
    assert seen.calls == before + 1
    assert seen.function == 0xDEAD0 and seen.stream == 0xBEEF0 and not seen.params
    assert list(seen.dims) == dims
    assert seen.extra[0] == markers.buffer_pointer and seen.extra[2] == markers.buffer_size
    assert (seen.extra[4] or 0) == markers.end
    assert seen.size == len(packed)
    assert bytes(seen.data[: len(packed)]) == packed


@pytest.mark.parametrize("packed", [None, b""], ids=["none", "empty"])
def test_a_kernel_without_arguments_gets_no_extra(recorder, launch, packed):
    _, seen, answer = recorder
    answer.value = 0
    assert launch[0](0x1000, 1, 1, 1, 1, 1, 1, 0, 0, packed) == 0
    assert not any(seen.extra) and seen.size == 0 and not seen.stream


@pytest.mark.parametrize(
    ("position", "value", "error", "words"),
    [
        (3, 2**32, OverflowError, "grid.z 4294967296 does not fit in 32 bits"),
        (4, -1, OverflowError, "negative"),
        (7, 1.5, TypeError, "integer"),
        (0, "kernel", TypeError, "integer"),
        (9, bytearray(b"1234"), TypeError, "packed arguments must be bytes, not bytearray"),
    ],
)
def test_bad_arguments_raise_and_call_nothing(recorder, launch, position, value, error, words):
    _, seen, _ = recorder
    args: list[object] = [0x1000, 1, 1, 1, 32, 1, 1, 0, 0, b"\0" * 8]
    args[position] = value
    before = seen.calls
    with pytest.raises(error, match=words):
        launch[0](*args)
    assert seen.calls == before


def test_the_argument_count_is_checked(launch):
    with pytest.raises(TypeError, match=r"launch\(\) takes 10 arguments \(3 given\)"):
        launch[0](1, 2, 3)


def test_a_null_entry_is_refused():
    module = compiled_launch._module()
    with pytest.raises(ValueError, match="null pointer"):
        module.Launcher(0, 1, 2, 0)


def test_without_python_h_launches_go_through_the_bindings(monkeypatch, tmp_path):
    monkeypatch.setattr(compiled_launch, "_python_include", lambda: tmp_path)
    compiled_launch._module.cache_clear()
    try:
        function, path = compiled_launch.launcher(0x1000, LaunchMarkers(1, 2, 0))
    finally:
        compiled_launch._module.cache_clear()
    assert function is None
    assert path.startswith("through the bindings:") and "Python.h" in path and "python3-dev" in path
