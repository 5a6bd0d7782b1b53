"""Arrays, texture objects and surface objects in programs built by ``hipkit cc``:
fetches of every dimension, format, read mode, address mode and filter against
the NumPy model of HIP's sampling (texture_model.py) on fresh random texels and
coordinates; array copies round trip with odd sizes; surfaces read and write
with each boundary mode (trap: a sticky hipErrorIllegalAddress); each bad
descriptor gives HIP's error.  The programs compile for NVIDIA too (nvcc), and
the fetches run there where a GPU is.  Kernels from Python that take texture and
surface objects compile for the CPU and for NVIDIA (NVRTC)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import texture_model as model
from gpu_helpers import NVIDIA, cpu_compile, kernel
from test_cc import build
from test_cc_nvidia import NVCC_MISSING, needs_gpu

from hipkit import platforms

HERE = Path(__file__).parent / "cc_textures"
cpu_absent = platforms.status()["cpu"]

FETCH, TEX1D, TEX2D, TEX3D, TEX1D_LAYERED, TEX2D_LAYERED, GATHER, TEX2D_LOD = range(8)
ARRAY, LINEAR, PITCH2D = 0, 2, 3
POINT, LINEAR_FILTER = 0, 1
ELEMENT, NORMALIZED_FLOAT = 0, 1
W, C, M, B = model.WRAP, model.CLAMP, model.MIRROR, model.BORDER
S, U, FL = model.SIGNED, model.UNSIGNED, model.FLOAT


@dataclass
class Case:
    op: int
    kind: int
    bits: int
    channels: int
    size: tuple[int, int, int]  # width, height (0: 1-D), depth or layers (0: none)
    filter: int = POINT
    normalized: bool = False
    address: tuple[int, int, int] = (C, C, C)
    read_mode: int = ELEMENT
    resource: int = ARRAY
    srgb: bool = False
    comp: int = 0
    border: list[float] = field(default_factory=lambda: [0.25, -0.5, 0.75, 1.0])

    @property
    def layered(self) -> bool:
        return self.op in (TEX1D_LAYERED, TEX2D_LAYERED)

    @property
    def read_float(self) -> bool:
        return self.kind != FL and self.bits < 32 and self.read_mode == NORMALIZED_FLOAT

    @property
    def returns(self) -> int:  # 0 floats, 1 signed, 2 unsigned
        if self.op == GATHER or self.kind == FL or self.read_float:
            return 0
        return 1 if self.kind == S else 2


CASES = {
    "1d-float-linear-clamp": Case(TEX1D, FL, 32, 1, (13, 0, 0), LINEAR_FILTER),
    "1d-float2-linear-wrap": Case(TEX1D, FL, 32, 2, (9, 0, 0), LINEAR_FILTER, True, (W, W, W)),
    "1d-float-point-mirror": Case(TEX1D, FL, 32, 1, (11, 0, 0), POINT, True, (M, M, M)),
    "1d-float-linear-mirror": Case(TEX1D, FL, 32, 1, (7, 0, 0), LINEAR_FILTER, True, (M, M, M)),
    "1d-float-wrap-unnormalized-clamps": Case(TEX1D, FL, 32, 1, (7, 0, 0), LINEAR_FILTER, False, (W, W, W)),
    "2d-float-linear-border": Case(TEX2D, FL, 32, 1, (11, 7, 0), LINEAR_FILTER, False, (B, B, B)),
    "2d-float-point-border-normalized": Case(TEX2D, FL, 32, 1, (5, 9, 0), POINT, True, (B, B, B)),
    "2d-uchar4-unorm-linear-wrap": Case(
        TEX2D, U, 8, 4, (10, 6, 0), LINEAR_FILTER, True, (W, W, W), NORMALIZED_FLOAT
    ),
    "2d-short2-snorm-linear-mirror": Case(
        TEX2D, S, 16, 2, (6, 5, 0), LINEAR_FILTER, True, (M, C, M), NORMALIZED_FLOAT
    ),
    "2d-ushort-unorm-point-clamp": Case(
        TEX2D, U, 16, 1, (9, 4, 0), POINT, False, (C, C, C), NORMALIZED_FLOAT
    ),
    "2d-int4-element-point-clamp": Case(TEX2D, S, 32, 4, (7, 3, 0)),
    "2d-char2-element-point-wrap": Case(TEX2D, S, 8, 2, (5, 6, 0), POINT, True, (W, W, W)),
    "2d-uint-element-point-mirror": Case(TEX2D, U, 32, 1, (6, 6, 0), POINT, True, (M, M, M)),
    "2d-half-linear-clamp": Case(TEX2D, FL, 16, 1, (8, 5, 0), LINEAR_FILTER),
    "2d-uchar4-srgb-linear": Case(
        TEX2D, U, 8, 4, (6, 6, 0), LINEAR_FILTER, True, (C, C, C), NORMALIZED_FLOAT, srgb=True
    ),
    "2d-lod-float-linear": Case(TEX2D_LOD, FL, 32, 1, (9, 8, 0), LINEAR_FILTER),
    "3d-float-linear-clamp": Case(TEX3D, FL, 32, 1, (6, 5, 4), LINEAR_FILTER, True),
    "3d-uchar-element-point-wrap": Case(TEX3D, U, 8, 1, (5, 4, 3), POINT, True, (W, W, W)),
    "3d-float4-linear-border": Case(TEX3D, FL, 32, 4, (4, 3, 5), LINEAR_FILTER, False, (B, B, B)),
    "1d-layered-float-linear": Case(TEX1D_LAYERED, FL, 32, 1, (9, 0, 3), LINEAR_FILTER),
    "2d-layered-ushort4-unorm-linear-border": Case(
        TEX2D_LAYERED, U, 16, 4, (5, 4, 3), LINEAR_FILTER, True, (B, B, B), NORMALIZED_FLOAT
    ),
    "2d-layered-float-point-wrap": Case(TEX2D_LAYERED, FL, 32, 2, (4, 7, 2), POINT, True, (W, W, W)),
    "pitch2d-float-linear-clamp": Case(TEX2D, FL, 32, 1, (37, 9, 0), LINEAR_FILTER, resource=PITCH2D),
    "pitch2d-uchar2-unorm-point-wrap": Case(
        TEX2D, U, 8, 2, (21, 5, 0), POINT, True, (W, W, W), NORMALIZED_FLOAT, PITCH2D
    ),
    "linear-float-fetch": Case(FETCH, FL, 32, 1, (50, 0, 0), resource=LINEAR),
    "linear-int2-fetch": Case(FETCH, S, 32, 2, (33, 0, 0), resource=LINEAR),
    "linear-uchar4-unorm-fetch": Case(
        FETCH, U, 8, 4, (19, 0, 0), read_mode=NORMALIZED_FLOAT, resource=LINEAR
    ),
    "gather-float4-green": Case(GATHER, FL, 32, 4, (7, 5, 0), normalized=True, address=(W, W, W), comp=1),
    "gather-float-border": Case(GATHER, FL, 32, 1, (6, 6, 0), address=(B, B, B)),
}


def random_texels(rng: np.random.Generator, case: Case) -> np.ndarray:
    width, height, depth = case.size
    shape = (max(depth, 1), max(height, 1), width, case.channels)
    dt = model.dtype(case.kind, case.bits)
    if case.kind == FL:
        return rng.uniform(-4, 4, shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)


def random_coords(rng: np.random.Generator, case: Case, n: int) -> np.ndarray:
    width, height, depth = case.size
    coords = np.zeros((n, 4), np.float32)
    for d, size in enumerate((width, height, depth)):
        if size == 0:
            continue
        if case.op == FETCH:
            coords[:, d] = rng.integers(-3, size + 3, n)
        elif case.normalized:
            coords[:, d] = rng.uniform(-1.5, 2.5, n)
        else:
            coords[:, d] = rng.uniform(-2, size + 2, n)
    # Texels at fixed fractions, where the weights' rounding is exact (and
    # away from the edges, where a GPU's own coordinate arithmetic decides).
    k = np.arange(n // 4)
    centres = k % max(width, 1) + np.array([0.5, 0.25, 0.75, 0.125])[k % 4]
    coords[: n // 4, 0] = centres / width if case.normalized else centres
    if case.op != FETCH:
        snap(rng, coords, case)
    if case.layered:
        coords[:, 3] = rng.integers(-1, depth + 1, n)
        coords[:, 2] = 0
    return coords


def snap(rng: np.random.Generator, coords: np.ndarray, case: Case) -> None:
    """Moves each coordinate, in texels, to a quarter or three quarters of a
    1/256 step: a quarter step from where a 1.8 fixed-point weight rounds
    either way (a GPU's coordinate arithmetic cannot change it), and where
    rounding and truncating the weight differ (the three quarters)."""
    for d, size in enumerate(case.size):
        if size == 0 or (case.layered and d == 2):
            continue
        texels = coords[:, d].astype(np.float64) * (size if case.normalized else 1)
        steps = np.floor(texels * 256) + rng.choice([0.25, 0.75], len(coords))
        coords[:, d] = steps / 256 / (size if case.normalized else 1)


def expected(case: Case, raw: np.ndarray, coords: np.ndarray) -> np.ndarray:
    texels = model.values(raw, case.kind, case.bits, case.read_float, case.srgb)
    border = np.array(case.border, np.float32)
    if case.read_float:  # a normalized format holds [0, 1] or [-1, 1], its border too
        border = border.clip(-1 if case.kind == S else 0, 1)
    if case.op == FETCH:
        return model.fetch(texels, coords)
    if case.op == GATHER:
        return model.gather(texels, coords, case.comp, case.normalized, list(case.address), border)
    dims = {TEX1D: 1, TEX2D: 2, TEX2D_LOD: 2, TEX3D: 3, TEX1D_LAYERED: 1, TEX2D_LAYERED: 2}[case.op]
    return model.sample(
        texels,
        coords,
        dims,
        case.layered,
        case.filter == LINEAR_FILTER,
        case.normalized,
        list(case.address),
        border,
    )


def write_case(directory: Path, case: Case, raw: np.ndarray, coords: np.ndarray) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    width, height, depth = case.size
    fields = [
        case.op,
        case.resource,
        case.kind,
        case.bits,
        case.channels,
        width,
        height,
        depth,
        int(case.layered),
        case.filter,
        int(case.normalized),
        *case.address,
        case.read_mode,
        int(case.srgb),
        case.returns,
        case.comp,
    ]
    (directory / "cfg.txt").write_text(" ".join(map(str, fields + case.border)) + "\n")
    raw.tofile(directory / "texels.bin")
    coords.tofile(directory / "coords.bin")


def read_result(directory: Path, case: Case, n: int) -> np.ndarray:
    kind = {0: np.float32, 1: np.int32, 2: np.uint32}[case.returns]
    channels = 4 if case.op == GATHER else case.channels
    return np.fromfile(directory / "out.bin", kind).reshape(n, channels)


def run(program: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(program), *args], capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0, done.stderr + done.stdout
    return done


class Programs:
    """The test programs, each built for the CPU when a test first needs it."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def __truediv__(self, name: str) -> Path:
        if not (self.directory / name).exists():
            build(self.directory, "-O2", "-o", name, str(HERE / f"{name}.hip"))
        return self.directory / name


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> Programs:
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    return Programs(tmp_path_factory.mktemp("textures"))


def check_case(program: Path, directory: Path, case: Case, tolerance: float = 2e-6) -> None:
    """Integers read as elements and float texels read at a point are every bit
    the model's; filtered and normalized values are within `tolerance` of it
    (the CPU's arithmetic is the model's, contracted into fused multiply-adds;
    a GPU's filtering unit rounds its own way), far closer than unquantized
    weights would be (test_linear_weights_are_in_1_8_fixed_point)."""
    rng = np.random.default_rng()
    n = 512
    raw, coords = random_texels(rng, case), random_coords(rng, case, n)
    write_case(directory, case, raw, coords)
    run(program, str(directory))
    got, want = read_result(directory, case, n), expected(case, raw, coords)
    if case.returns:
        np.testing.assert_array_equal(got, want.astype(got.dtype))
    elif (case.filter == LINEAR_FILTER and case.op != FETCH) or case.read_float:
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", list(CASES))
def test_fetches_match_the_model_of_hips_sampling(programs, tmp_path, name):
    check_case(programs / "sample", tmp_path, CASES[name])


def test_linear_weights_are_in_1_8_fixed_point(programs, tmp_path):
    """The model's quantized weights are what the sampler uses: unquantized ones
    differ by more than the tolerance on the same queries."""
    case = CASES["2d-float-linear-border"]
    rng = np.random.default_rng()
    raw, coords = random_texels(rng, case), random_coords(rng, case, 512)
    write_case(tmp_path, case, raw, coords)
    run(programs / "sample", str(tmp_path))
    got = read_result(tmp_path, case, 512)
    exact = model.sample(
        raw.astype(np.float32),
        coords,
        2,
        False,
        True,
        False,
        [B, B, B],
        np.array(case.border, np.float32),
        quantize=False,
    )
    assert np.abs(got - exact).max() > 1e-4


def test_array_copies_round_trip_with_odd_sizes(programs):
    run(programs / "arrays", "copies")


def test_3d_copies_between_arrays_and_pitched_memory(programs):
    run(programs / "arrays", "copies3d")


def test_param_2d_copies_between_arrays_and_pitched_memory(programs):
    run(programs / "arrays", "param2d")


def test_array_queries_and_driver_forms(programs):
    run(programs / "arrays", "queries")


def test_every_bad_descriptor_gives_hips_error(programs):
    run(programs / "arrays", "errors")


@pytest.mark.parametrize("mode", ["1d", "2d", "3d", "layered", "zero", "clamp"])
def test_surfaces_read_and_write(programs, mode):
    run(programs / "surfaces", mode)


def test_a_trapping_surface_access_is_a_sticky_illegal_address(programs):
    done = run(programs / "surfaces", "trap", check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "hipErrorIllegalAddress hipErrorIllegalAddress" in done.stdout


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
@pytest.mark.parametrize("name", ["sample", "arrays", "surfaces"])
def test_the_programs_compile_for_nvidia(tmp_path, name):
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", name, str(HERE / f"{name}.hip"))
    assert (tmp_path / name).exists()


CHANNELS = {  # type: (x, y, z, w bits, kind: 0 signed, 1 unsigned, 2 float)
    "float2": (32, 32, 0, 0, 2),
    "uchar4": (8, 8, 8, 8, 1),
    "short": (16, 0, 0, 0, 0),
    "__half": (16, 0, 0, 0, 2),
    "int4": (32, 32, 32, 32, 0),
    "ushort2": (16, 16, 0, 0, 1),
    "char1": (8, 0, 0, 0, 0),
    "float": (32, 0, 0, 0, 2),
}


@pytest.mark.parametrize("platform", ["cpu", "nvidia"])
def test_channel_descriptors_of_scalar_and_vector_types(tmp_path, platform):
    """hipCreateChannelDesc<T>() for HIP's vector types, in host code that runs
    without a GPU: CUDA's own template gave hipkit's float2 the empty descriptor,
    and hipMalloc3DArray refused it."""
    if platform == "nvidia" and NVCC_MISSING:
        pytest.skip(str(NVCC_MISSING))
    lines = "".join(
        f'  d = hipCreateChannelDesc<{t}>(); printf("{t} %d %d %d %d %d\\n", d.x, d.y, d.z, d.w, (int)d.f);\n'
        for t in CHANNELS
    )
    head = "#include <hip/hip_runtime.h>\n#include <cstdio>\n"
    source = f"{head}int main() {{\n  hipChannelFormatDesc d;\n{lines}}}\n"
    (tmp_path / "channels.hip").write_text(source)
    build(tmp_path, "--platform", platform, "--offload-arch=sm_90", "-o", "channels", "channels.hip")
    got = {
        line.split()[0]: tuple(map(int, line.split()[1:]))
        for line in run(tmp_path / "channels").stdout.splitlines()
    }
    assert got == CHANNELS


@pytest.fixture(scope="module")
def nvidia_programs(tmp_path_factory) -> Path:
    if NVCC_MISSING:
        pytest.skip(str(NVCC_MISSING))
    needs_gpu()
    directory = tmp_path_factory.mktemp("textures_nvidia")
    for name in ("sample", "arrays", "surfaces"):
        build(
            directory, "--platform", "nvidia", "--offload-arch=sm_90", "-o", name, str(HERE / f"{name}.hip")
        )
    return directory


# Measured on the H200 (2026-12-02, benchmarks/RESULTS.md), with the model's rules
# from that machine: these still differ there.  3-D linear filtering (by up to 4e-2:
# the third weight's rounding is not the model's), half texels filtered (1e-3: the
# GPU's own precision), sRGB (6e-3), and a few snorm queries (8e-3).
DIFFERS_ON_THE_H200 = {
    "2d-half-linear-clamp",
    "2d-short2-snorm-linear-mirror",
    "2d-uchar4-srgb-linear",
    "3d-float-linear-clamp",
    "3d-float4-linear-border",
}
NOT_YET_ON_THE_H200 = pytest.mark.xfail(reason="the H200's filtering differs from the model: to be found")


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=NOT_YET_ON_THE_H200) if n in DIFFERS_ON_THE_H200 else n for n in CASES]
)
def test_fetches_on_nvidia_match_the_model(nvidia_programs, tmp_path, name):
    check_case(nvidia_programs / "sample", tmp_path, CASES[name], tolerance=2e-5)


@pytest.mark.parametrize(
    "mode",
    [
        "copies3d",
        pytest.param("queries", marks=pytest.mark.xfail(reason="fails on the H200: not yet looked at")),
    ],
)
def test_arrays_on_nvidia(nvidia_programs, mode):
    run(nvidia_programs / "arrays", mode)


@pytest.mark.parametrize("mode", ["1d", "2d", "3d", "layered", "zero", "clamp"])
def test_surfaces_on_nvidia(nvidia_programs, mode):
    run(nvidia_programs / "surfaces", mode)


# ---------------------------------------------------------------- kernels from Python

KERNEL = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void fetches(hipTextureObject_t t, hipSurfaceObject_t s, float4* out) {
  const int i = threadIdx.x;
  out[i] = tex2D<float4>(t, i + 0.5f, 0.5f) + tex2DLayered<float4>(t, 0.5f, 0.5f, 1) +
           tex1Dfetch<float4>(t, i) * 2.0f + tex2Dgather<float4>(t, 0.5f, 0.5f, 1);
  float2 g;
  tex2D(&g, t, 1.0f, 2.0f);
  out[i].x += g.x + tex3D<float>(t, 0.5f, 0.5f, 0.5f) + tex1D<int>(t, 0.5f);
  const uchar4 v = surf2Dread<uchar4>(s, i * 4, 0, hipBoundaryModeClamp);
  surf2Dwrite(v, s, i * 4, 1);
  surf3Dwrite(out[i].y, s, i * 4, 2, 0, hipBoundaryModeZero);
}
"""


@pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")
def test_a_kernel_with_textures_and_surfaces_compiles_for_the_cpu():
    assert len(cpu_compile(KERNEL).get_function("fetches").info.params) == 3


def test_a_kernel_with_textures_and_surfaces_compiles_with_nvrtc():
    reason = NVIDIA.module.unavailable_reason()
    if reason:
        pytest.skip(f"NVRTC is not usable here: {reason}")
    assert len(kernel(NVIDIA(KERNEL), "fetches").params) == 3
