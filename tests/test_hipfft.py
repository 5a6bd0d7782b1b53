"""hipFFT's C API against NumPy on fresh random data, its version, and every result
code a user can provoke, for each hipFFT hipkit has: each platform's Python provider
(the ``fft`` face: scipy.fft on the CPU, cuFFT on NVIDIA, ROCm's hipFFT on AMD) and the
CPU programs' engine (libhipkit_cpu_fft.so), called with C's arguments.  The same
checks through hipkit.hipfft's names, and their errors, are at the end."""

from __future__ import annotations

import ctypes
import math
import re

import numpy as np
import pytest

import hipkit
from hipkit import hipfft, platforms
from hipkit.platforms.base.fft import HIPFFT_VERSION, FftLibrary, FftUnavailable, hipfftResult
from hipkit.platforms.base.platform import PORTABLE_INCLUDE_DIR

R = hipfftResult
C2C, R2C, C2R, Z2Z, D2Z, Z2D = 0x29, 0x2A, 0x2C, 0x69, 0x6A, 0x6C
TYPES = {  # type -> (exec function, input dtype, output dtype)
    C2C: ("hipfftExecC2C", np.complex64, np.complex64),
    Z2Z: ("hipfftExecZ2Z", np.complex128, np.complex128),
    R2C: ("hipfftExecR2C", np.float32, np.complex64),
    D2Z: ("hipfftExecD2Z", np.float64, np.complex128),
    C2R: ("hipfftExecC2R", np.complex64, np.float32),
    Z2D: ("hipfftExecZ2D", np.complex128, np.float64),
}
LIBRARIES = ["cpu", "nvidia", "amd", "cpu-engine"]


class Lib:
    """One hipFFT and the device its memory is on."""

    def __init__(self, library: FftLibrary, device: hipkit.Device, asynchronous: bool):
        self.library = library
        self.device = device
        self.asynchronous = asynchronous

    def __call__(self, name: str, *args) -> int:
        try:
            function = self.library.function(name)
        except KeyError:  # an older hipFFT (hipfftExtPlanScaleFactor)
            return R.HIPFFT_NOT_IMPLEMENTED
        return function(*args)

    def plan_many(self, n, kind, batch, inembed=None, istride=1, idist=0, onembed=None, ostride=1, odist=0):
        slot = ctypes.c_uint64(0)
        arrays = [None if a is None else (ctypes.c_int * len(n))(*a) for a in (n, inembed, onembed)]
        addr = [0 if a is None else ctypes.addressof(a) for a in arrays]
        code = self("hipfftPlanMany", ctypes.addressof(slot), len(n), addr[0], addr[1], istride, idist,
                    addr[2], ostride, odist, kind, batch)  # fmt: skip
        return code, slot.value

    def run(self, name, plan, x, y, *direction) -> int:
        code = self(name, plan, x.ptr, y.ptr, *direction)
        if self.asynchronous:
            self.device.synchronize()
        return code


@pytest.fixture(params=LIBRARIES)
def lib(request) -> Lib:
    name = request.param.removesuffix("-engine")
    reason = platforms.status()[name]
    if reason:
        pytest.skip(f"{name} platform absent: {reason}")
    device = hipkit.Device(0, platform=name)
    with device:
        if request.param == "cpu-engine":
            from hipkit.platforms.cpu import fft_engine

            yield Lib(fft_engine.library(), device, asynchronous=True)
        else:
            try:
                library = platforms.faces(name).load("fft")()
            except FftUnavailable as exc:
                pytest.skip(str(exc))
            library.set_device(device._native)
            yield Lib(library, device, asynchronous=name != "cpu")
        device.synchronize()


def random(rng, shape, dtype) -> np.ndarray:
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def close(got, want, dtype) -> None:
    tol = 2e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12
    scale = max(1.0, float(np.abs(want).max()))
    assert np.abs(got - want).max() <= tol * scale * math.log2(max(2, want.size))


SHAPES = [(1,), (16,), (15,), (97,), (1000,), (4097,), (6, 10), (7, 9), (5, 6, 8), (3, 5, 7)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("kind", [C2C, Z2Z])
def test_c2c_both_directions(lib, rng, shape, kind):
    """Batched complex transforms of every rank, odd and prime sizes: forward as
    numpy.fft.fftn, backward unnormalized."""
    name, dtype, _ = TYPES[kind]
    batch = 3
    code, plan = lib.plan_many(shape, kind, batch)
    assert code == 0
    x = random(rng, (batch, *shape), dtype)
    axes = tuple(range(1, len(shape) + 1))
    d_x, d_y = hipkit.to_device(x), hipkit.empty(x.shape, dtype)
    assert lib.run(name, plan, d_x, d_y, -1) == 0
    close(d_y.get(), np.fft.fftn(x, axes=axes), dtype)
    assert lib.run(name, plan, d_x, d_y, 1) == 0
    close(d_y.get(), np.fft.ifftn(x, axes=axes) * math.prod(shape), dtype)
    assert np.array_equal(d_x.get(), x)  # out of place: the input is left as it was
    assert lib("hipfftDestroy", plan) == 0


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("kinds", [(R2C, C2R), (D2Z, Z2D)], ids=["single", "double"])
def test_real_round_trip(lib, rng, shape, kinds):
    """R2C as numpy.fft.rfftn, C2R as irfftn times the size."""
    forward, backward = kinds
    fname, rdtype, cdtype = TYPES[forward]
    bname = TYPES[backward][0]
    batch = 2
    x = random(rng, (batch, *shape), rdtype)
    axes = tuple(range(1, len(shape) + 1))
    want = np.fft.rfftn(x, axes=axes)
    code, plan = lib.plan_many(shape, forward, batch)
    code2, inverse = lib.plan_many(shape, backward, batch)
    assert code == code2 == 0
    d_x, d_s = hipkit.to_device(x), hipkit.empty(want.shape, cdtype)
    assert lib.run(fname, plan, d_x, d_s) == 0
    close(d_s.get(), want, cdtype)
    d_r = hipkit.empty(x.shape, rdtype)
    assert lib.run(bname, inverse, d_s, d_r) == 0
    close(d_r.get() / math.prod(shape), x, rdtype)
    lib("hipfftDestroy", plan)
    lib("hipfftDestroy", inverse)


@pytest.mark.parametrize("shape", [(64,), (12, 10), (4, 6, 10)], ids=lambda s: "x".join(map(str, s)))
def test_in_place(lib, rng, shape):
    """In place: C2C over its own data; R2C and C2R in the basic layout, the real rows
    padded to 2 * (n // 2 + 1) as hipFFT lays them out."""
    batch = 2
    axes = tuple(range(1, len(shape) + 1))
    x = random(rng, (batch, *shape), np.complex128)
    _, plan = lib.plan_many(shape, Z2Z, batch)
    d = hipkit.to_device(x)
    assert lib.run("hipfftExecZ2Z", plan, d, d, -1) == 0
    close(d.get(), np.fft.fftn(x, axes=axes), np.complex128)
    half = shape[-1] // 2 + 1
    real = random(rng, (batch, *shape), np.float64)
    padded = np.zeros((batch, *shape[:-1], 2 * half))
    padded[..., : shape[-1]] = real
    _, r2c = lib.plan_many(shape, D2Z, batch)
    _, c2r = lib.plan_many(shape, Z2D, batch)
    d = hipkit.to_device(padded)
    assert lib.run("hipfftExecD2Z", r2c, d, d) == 0
    close(d.get().view(np.complex128), np.fft.rfftn(real, axes=axes), np.complex128)
    assert lib.run("hipfftExecZ2D", c2r, d, d) == 0
    close(d.get()[..., : shape[-1]] / math.prod(shape), real, np.float64)
    for p in (plan, r2c, c2r):
        lib("hipfftDestroy", p)


def test_advanced_layout(lib, rng):
    """hipfftPlanMany's inembed/stride/dist: the columns of a row-major matrix (stride
    = its row length, distance 1) into a padded output (stride 2, distance 2n + 3)."""
    n, cols, batch = 12, 5, 4
    x = random(rng, (n, cols), np.complex64)
    code, plan = lib.plan_many((n,), C2C, batch, [n], cols, 1, [2 * n], 2, 2 * n + 3)
    assert code == 0
    out = hipkit.zeros(batch * (2 * n + 3), np.complex64)
    assert lib.run("hipfftExecC2C", plan, hipkit.to_device(x), out, -1) == 0
    got = out.get()[: batch * (2 * n + 3)].reshape(batch, 2 * n + 3)[:, : 2 * n : 2]
    close(got, np.fft.fft(x[:, :batch].T, axis=-1), np.complex64)
    # 2-D transforms of the top-left 6 x 4 corner of 8 x 8 blocks, one block after another
    y = random(rng, (3, 8, 8), np.complex128)
    code, plan2 = lib.plan_many((6, 4), Z2Z, 3, [8, 8], 1, 64, [6, 4], 1, 24)
    assert code == 0
    dst = hipkit.empty((3, 6, 4), np.complex128)
    assert lib.run("hipfftExecZ2Z", plan2, hipkit.to_device(y), dst, -1) == 0
    close(dst.get(), np.fft.fft2(y[:, :6, :4]), np.complex128)
    lib("hipfftDestroy", plan)
    lib("hipfftDestroy", plan2)


def test_create_make_get_size_and_setters(lib, rng):
    """hipfftCreate, then MakePlan1d/2d/3d/Many, GetSize*, SetStream, SetWorkArea,
    SetAutoAllocation on it, and an exec on the stream."""
    slot, size = ctypes.c_uint64(0), ctypes.c_size_t(123)
    assert lib("hipfftCreate", ctypes.addressof(slot)) == 0
    plan = slot.value
    assert lib("hipfftGetSize1d", plan, 64, C2C, 2, ctypes.addressof(size)) == 0
    assert lib("hipfftGetSize2d", plan, 8, 8, Z2Z, ctypes.addressof(size)) == 0
    assert lib("hipfftGetSize3d", plan, 4, 4, 4, R2C, ctypes.addressof(size)) == 0
    assert lib("hipfftSetAutoAllocation", plan, 0) == 0  # before the plan is made, as cuFFT wants
    assert lib("hipfftMakePlan2d", plan, 8, 6, Z2Z, ctypes.addressof(size)) == 0
    assert lib("hipfftGetSize", plan, ctypes.addressof(size)) == 0
    work = hipkit.empty(max(1, size.value), np.uint8)
    assert lib("hipfftSetWorkArea", plan, work.ptr) == 0
    stream = hipkit.Stream()
    assert lib("hipfftSetStream", plan, stream.native_handle) == 0
    x = random(rng, (8, 6), np.complex128)
    d_x, d_y = hipkit.to_device(x), hipkit.empty((8, 6), np.complex128)
    assert lib("hipfftExecZ2Z", plan, d_x.ptr, d_y.ptr, -1) == 0
    stream.synchronize()
    close(d_y.get(), np.fft.fft2(x), np.complex128)
    assert lib("hipfftDestroy", plan) == 0
    for make, args in [("hipfftMakePlan1d", (64, C2C, 3)), ("hipfftMakePlan3d", (4, 6, 8, D2Z))]:
        assert lib("hipfftCreate", ctypes.addressof(slot)) == 0
        assert lib(make, slot.value, *args, ctypes.addressof(size)) == 0
        assert lib("hipfftDestroy", slot.value) == 0


def test_plan1d_2d_3d(lib, rng):
    slot = ctypes.c_uint64(0)
    for name, args, shape, fn in [
        ("hipfftPlan1d", (32, C2C, 2), (2, 32), lambda a: np.fft.fft(a)),
        ("hipfftPlan2d", (6, 8, C2C), (6, 8), np.fft.fft2),
        ("hipfftPlan3d", (3, 4, 5, C2C), (3, 4, 5), np.fft.fftn),
    ]:
        assert lib(name, ctypes.addressof(slot), *args) == 0
        x = random(rng, shape, np.complex64)
        d_y = hipkit.empty(shape, np.complex64)
        assert lib.run("hipfftExecC2C", slot.value, hipkit.to_device(x), d_y, -1) == 0
        close(d_y.get(), fn(x), np.complex64)
        assert lib("hipfftDestroy", slot.value) == 0


def version_number(parts: list[int], provider: str) -> int:
    """hipfftGetVersion's number made of hipfftGetProperty's parts: hipFFT's way, or
    cuFFT's own (major * 1000 + ...) where cuFFT serves, as hipFFT on NVIDIA answers."""
    major, minor, patch = parts
    return major * (1000 if provider.startswith("cuFFT") else 10000) + minor * 100 + patch


def test_version_and_properties(lib):
    """hipfftGetVersion is made of hipfftGetProperty's three parts; a null out-parameter
    or a property hipFFT lacks: HIPFFT_INVALID_VALUE."""
    version, part = ctypes.c_int(-1), ctypes.c_int(-1)
    assert lib("hipfftGetVersion", ctypes.addressof(version)) == 0
    parts = []
    for prop in hipfft.hipfftLibraryPropertyType:
        assert lib("hipfftGetProperty", prop, ctypes.addressof(part)) == 0
        parts.append(part.value)
    assert version.value == version_number(parts, lib.library.description)
    assert lib("hipfftGetVersion", 0) == R.HIPFFT_INVALID_VALUE
    assert lib("hipfftGetProperty", hipfft.HIPFFT_MAJOR_VERSION, 0) == R.HIPFFT_INVALID_VALUE
    for unknown in (-1, 3):
        assert lib("hipfftGetProperty", unknown, ctypes.addressof(part)) == R.HIPFFT_INVALID_VALUE


def test_python_version_is_the_headers():
    """HIPFFT_VERSION, which the CPU's Python provider answers, is api.h's, which the
    CPU's engine answers in programs."""
    api = (PORTABLE_INCLUDE_DIR / "hipkit_fft" / "api.h").read_text()
    found = re.findall(r"#define hipfftVersion(Major|Minor|Patch) (\d+)", api)
    assert [name for name, _ in found] == ["Major", "Minor", "Patch"]
    assert tuple(int(number) for _, number in found) == HIPFFT_VERSION


# ------------------------------------------------------------------ result codes


def test_bad_sizes_and_types(lib):
    """A length or batch below 1, a rank outside 1-3, an embedding smaller than the
    transform: HIPFFT_INVALID_SIZE; a type hipFFT lacks: HIPFFT_NOT_IMPLEMENTED."""
    slot = ctypes.c_uint64(0)
    at = ctypes.addressof(slot)
    assert lib("hipfftPlan1d", at, 0, C2C, 1) == R.HIPFFT_INVALID_SIZE
    assert lib("hipfftPlan1d", at, 16, C2C, 0) == R.HIPFFT_INVALID_SIZE
    assert lib("hipfftPlan2d", at, 4, -2, C2C) == R.HIPFFT_INVALID_SIZE
    assert lib.plan_many((8, 8, 8, 8), C2C, 1)[0] == R.HIPFFT_INVALID_SIZE
    assert lib.plan_many((8, 8), C2C, 1, [8, 4], 1, 64, [8, 8], 1, 64)[0] == R.HIPFFT_INVALID_SIZE
    assert lib("hipfftPlan1d", at, 16, 0x33, 1) == R.HIPFFT_NOT_IMPLEMENTED


def test_null_and_dead_plans(lib):
    """A null, unknown or destroyed plan, and one created but not made:
    HIPFFT_INVALID_PLAN; a null out-parameter: HIPFFT_INVALID_VALUE."""
    slot = ctypes.c_uint64(0)
    x = hipkit.zeros(16, np.complex64)
    assert lib("hipfftExecC2C", 0, x.ptr, x.ptr, -1) == R.HIPFFT_INVALID_PLAN
    assert lib("hipfftSetStream", 0, 0) == R.HIPFFT_INVALID_PLAN
    assert lib("hipfftCreate", 0) == R.HIPFFT_INVALID_VALUE
    assert lib("hipfftCreate", ctypes.addressof(slot)) == 0
    assert lib("hipfftExecC2C", slot.value, x.ptr, x.ptr, -1) == R.HIPFFT_INVALID_PLAN  # not made
    assert lib("hipfftMakePlan1d", slot.value, 16, C2C, 1, 0) == 0
    assert lib("hipfftDestroy", slot.value) == 0
    assert lib("hipfftDestroy", slot.value) == R.HIPFFT_INVALID_PLAN
    assert lib("hipfftGetSize", slot.value, 0) == R.HIPFFT_INVALID_PLAN


def test_exec_errors(lib):
    """An exec of another type than the plan's: HIPFFT_INVALID_PLAN; null data, a
    direction other than -1 or 1, and an in-place exec whose layouts do not overlay:
    HIPFFT_INVALID_VALUE."""
    x = hipkit.zeros(64, np.complex64)
    y = hipkit.zeros(64, np.complex64)
    _, c2c = lib.plan_many((16,), C2C, 2)
    _, r2c = lib.plan_many((16,), R2C, 2)
    assert lib("hipfftExecR2C", c2c, x.ptr, y.ptr) == R.HIPFFT_INVALID_PLAN
    assert lib("hipfftExecC2R", r2c, x.ptr, y.ptr) == R.HIPFFT_INVALID_PLAN
    assert lib("hipfftExecZ2Z", c2c, x.ptr, y.ptr, -1) == R.HIPFFT_INVALID_PLAN
    assert lib("hipfftExecC2C", c2c, 0, y.ptr, -1) == R.HIPFFT_INVALID_VALUE
    assert lib("hipfftExecC2C", c2c, x.ptr, 0, -1) == R.HIPFFT_INVALID_VALUE
    assert lib("hipfftExecC2C", c2c, x.ptr, y.ptr, 0) == R.HIPFFT_INVALID_VALUE
    # in place where the input's stride is 2 and the output's 1
    _, strided = lib.plan_many((8,), C2C, 1, [16], 2, 16, [8], 1, 8)
    assert lib("hipfftExecC2C", strided, x.ptr, x.ptr, -1) == R.HIPFFT_INVALID_VALUE
    for plan in (c2c, r2c, strided):
        assert lib("hipfftDestroy", plan) == 0


def test_scale_factor(lib, rng):
    """hipfftExtPlanScaleFactor: a factor that is not finite is HIPFFT_INVALID_VALUE;
    a finite one scales every result where the library has scale factors, and is
    HIPFFT_NOT_IMPLEMENTED where it has none (cuFFT)."""
    slot = ctypes.c_uint64(0)
    assert lib("hipfftCreate", ctypes.addressof(slot)) == 0
    plan = slot.value
    assert lib("hipfftExtPlanScaleFactor", plan, float("nan")) == R.HIPFFT_INVALID_VALUE
    assert lib("hipfftExtPlanScaleFactor", 0, 0.5) == R.HIPFFT_INVALID_PLAN
    code = lib("hipfftExtPlanScaleFactor", plan, 0.25)
    assert code in (R.HIPFFT_SUCCESS, R.HIPFFT_NOT_IMPLEMENTED)
    assert lib("hipfftMakePlan1d", plan, 24, Z2Z, 1, 0) == 0
    x = rng.standard_normal(24) + 1j * rng.standard_normal(24)
    d_x, d_y = hipkit.to_device(x), hipkit.empty(24, np.complex128)
    assert lib.run("hipfftExecZ2Z", plan, d_x, d_y, -1) == 0
    factor = 0.25 if code == R.HIPFFT_SUCCESS else 1.0
    assert np.allclose(d_y.get(), np.fft.fft(x) * factor)
    assert lib("hipfftDestroy", plan) == 0


# ------------------------------------------------------------------ hipkit.hipfft


def test_names_raise_hipfft_errors(device, rng):
    """hipkit.hipfft's names return out-parameters and raise HipfftError with the
    result and the function; a plan not live here is HIPFFT_INVALID_PLAN before the
    library is called."""
    try:
        hipfft.provider()
    except hipfft.HipfftError as exc:
        pytest.skip(str(exc))
    with pytest.raises(hipfft.HipfftError) as info:
        hipfft.hipfftPlan1d(0, hipfft.HIPFFT_C2C, 1)
    assert info.value.result == hipfft.HIPFFT_INVALID_SIZE and info.value.function == "hipfftPlan1d"
    with pytest.raises(hipfft.HipfftError) as info:
        hipfft.hipfftExecC2C(12345, 0, 0, hipfft.HIPFFT_FORWARD)
    assert info.value.result == hipfft.HIPFFT_INVALID_PLAN
    with pytest.raises(hipfft.HipfftError, match="rank 2"):
        hipfft.hipfftPlanMany(2, [8], None, 1, 0, None, 1, 0, hipfft.HIPFFT_C2C, 1)
    plan = hipfft.hipfftCreate()
    work = hipfft.hipfftMakePlanMany(plan, 2, [4, 6], None, 1, 0, None, 1, 0, hipfft.HIPFFT_Z2Z, 2)
    assert work == hipfft.hipfftGetSize(plan) and work >= 0
    assert hipfft.hipfftGetSizeMany(plan, 1, [64], None, 1, 0, None, 1, 0, hipfft.HIPFFT_C2C, 4) >= 0
    x = rng.standard_normal((2, 4, 6)) + 1j * rng.standard_normal((2, 4, 6))
    d_x, d_y = hipkit.to_device(x), hipkit.empty((2, 4, 6), np.complex128)
    stream = hipkit.Stream()
    hipfft.hipfftSetStream(plan, stream)
    hipfft.hipfftExecZ2Z(plan, d_x, d_y, hipfft.HIPFFT_BACKWARD)
    stream.synchronize()
    assert np.allclose(d_y.get(), np.fft.ifft2(x) * 24)
    with pytest.raises(hipfft.HipfftError) as info:
        hipfft.hipfftExecC2C(plan, d_x, d_y, hipfft.HIPFFT_FORWARD)
    assert info.value.result == hipfft.HIPFFT_INVALID_PLAN
    with pytest.raises(TypeError, match="idata"):
        hipfft.hipfftExecZ2Z(plan, "memory", d_y, hipfft.HIPFFT_FORWARD)
    hipfft.hipfftDestroy(plan)
    with pytest.raises(hipfft.HipfftError) as info:
        hipfft.hipfftDestroy(plan)
    assert info.value.result == hipfft.HIPFFT_INVALID_PLAN


def test_names_give_the_version(device):
    """hipfftGetVersion() is made of hipfftGetProperty(type)'s parts; a property hipFFT
    lacks raises HipfftError(HIPFFT_INVALID_VALUE)."""
    try:
        provider = hipfft.provider()
    except hipfft.HipfftError as exc:
        pytest.skip(str(exc))
    parts = [hipfft.hipfftGetProperty(prop) for prop in hipfft.hipfftLibraryPropertyType]
    assert hipfft.hipfftGetVersion() == version_number(parts, provider)
    with pytest.raises(hipfft.HipfftError) as info:
        hipfft.hipfftGetProperty(3)
    assert info.value.result == hipfft.HIPFFT_INVALID_VALUE and info.value.function == "hipfftGetProperty"
