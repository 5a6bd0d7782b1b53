"""docs/HIP_API.md, the table of HIP's API on each platform: ROCm's runtime functions
(hipkit.tables.make_hip_api_table reads its header) and device functions
(hipkit.tables.make_hip_device_table reads its device headers), and what each platform's
program headers declare of them (hipkit.cc.api_table), kept true here by probing them
again (NVIDIA's where nvcc is)."""

from __future__ import annotations

import re

import pytest
from test_cc_nvidia import NVCC_MISSING

from hipkit.cc import api_table
from hipkit.tables import hip_api, make_hip_api_table, make_hip_device_table

HEADER = """
/**
 * @defgroup Memory Memory Management
 * @{
 */
/** @brief Allocates. */
hipError_t hipMalloc(void** ptr, size_t size);
/**
 * @defgroup MemoryD Memory Management [Deprecated]
 * @ingroup Memory
 * @{
 */
HIP_DEPRECATED("use hipHostMalloc") hipError_t hipMallocHost(void** ptr, size_t size);
hipError_t hipMemcpyToArray(hipArray_t dst, size_t x, size_t y, const void* src, size_t n, int kind);
/** @} */
const char* hipApiName(uint32_t id);  // back in Memory
/** @} */
/**
 * @ingroup Memory
 * @brief a C++ overload, after every group
 */
template <class T> static inline hipError_t hipMalloc(T** ptr, size_t size) {
  return hipMalloc((void**)ptr, size);
}
hipError_t hipGLGetDevices(unsigned int* count, int* devices, unsigned int n, int list);
"""


def test_the_extractor_reads_groups_deprecation_and_interop():
    functions = {f.name: f for f in make_hip_api_table.extract(HEADER)}
    assert list(functions) == [
        "hipMalloc",
        "hipMallocHost",
        "hipMemcpyToArray",
        "hipApiName",
        "hipGLGetDevices",
    ]
    assert (functions["hipMalloc"].group, functions["hipMalloc"].counted) == ("Memory", True)
    assert functions["hipMallocHost"].deprecated and functions["hipMemcpyToArray"].group == "MemoryD"
    assert functions["hipMemcpyToArray"].deprecated  # its group's title says so
    assert (functions["hipApiName"].group, functions["hipApiName"].deprecated) == ("Memory", False)
    assert functions["hipGLGetDevices"].interop and not functions["hipGLGetDevices"].counted


def test_the_table_is_well_formed():
    functions = hip_api.load()
    names = [f.name for f in functions]
    assert len(names) == len(set(names)) > 400
    assert all(re.fullmatch(r"hip\w+", n) for n in names)
    counted = [f for f in functions if f.counted]
    assert 300 < len(counted) < len(functions)
    by_name = {f.name: f for f in functions}
    assert by_name["hipCtxCreate"].deprecated and by_name["hipGraphicsMapResources"].interop
    assert by_name["hipStreamBeginCapture"].counted and by_name["hipStreamBeginCapture"].group == "Graph"


def test_the_probe_tells_declared_from_undeclared():
    """A function, an overload set, a macro, and a name no header has."""
    names = ["hipMalloc", "hipMemcpyToSymbol", "hipLaunchKernelGGL", "hipNotAFunction"]
    assert api_table.declared("cpu", names) == {"hipMalloc", "hipMemcpyToSymbol", "hipLaunchKernelGGL"}


DEVICE_HEADER = """
#define __DEVICE__ static __device__ inline
__DEVICE__ float sinf(float x) { return __ocml_sin_f32(x); }
__DEVICE__ float __sinf(float x);
__DEVICE__ double sin(double x) { return __ocml_sin_f64(x); }
#if defined OCML_BASIC_ROUNDED_OPERATIONS
__DEVICE__ float __fadd_rd(float x, float y);
__DEVICE__ float __fadd_rn(float x, float y);
#else
__DEVICE__ float __fadd_rn(float x, float y);
#endif
__device__ static inline int __hadd(int x, int y) { return (x + y) >> 1; }
__device__ inline __attribute((always_inline)) long long int wall_clock64() { return 0; }
__device__ inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v);
__device__ unsigned long long __ockl_steadyctr_u64();
__device__ float __hip_ds_swizzlef(float x);
__device__ void __work_group_barrier(int flags);
int hostOnly(int x);
namespace hip_impl { __device__ int helper(); }
struct S { __device__ int member(); };
"""
FP16_HEADER = """
#define __HOST_DEVICE__ __host__ __device__
namespace {
inline __HOST_DEVICE__ __half __hadd(__half a, __half b);
inline __device__ __half2 __hadd2(__half2 a, __half2 b);
inline __device__ __half2 __float2half2_rn(float x);
inline __device__ __half __float2half_rn(float x);
}
"""


def test_the_device_extractor_keeps_the_api_and_its_groups():
    """Device functions at namespace scope, less the libraries', HIP's helpers and the
    helpers list; groups by name, header and signature; opt-in branches; overloads."""
    functions = make_hip_device_table.extract(
        [("__clang_hip_math.h", DEVICE_HEADER), ("amd_hip_fp16.h", FP16_HEADER)]
    )
    table = {f.name: f for f in functions}
    assert list(table) == [
        "sinf",
        "__sinf",
        "sin",
        "__fadd_rd",
        "__fadd_rn",
        "__hadd",
        "wall_clock64",
        "atomicAdd",
        "__hadd2",
        "__float2half2_rn",
        "__float2half_rn",
    ]
    groups = {name: (f.group, f.also) for name, f in table.items()}
    assert groups["sinf"] == groups["__sinf"] == ("math-float", ())
    assert groups["sin"] == ("math-double", ())
    assert groups["__hadd"] == ("integer", ("half",))
    assert groups["wall_clock64"] == ("other", ()) and groups["atomicAdd"] == ("atomic", ())
    assert groups["__hadd2"] == groups["__float2half2_rn"] == ("half2", ())
    assert groups["__float2half_rn"] == ("half", ())
    assert table["__fadd_rd"].optional and not table["__fadd_rn"].optional
    assert table["sinf"].header == "hip/hip_runtime.h" and table["__hadd2"].header == "hip/hip_fp16.h"


def test_the_device_generator_refuses_what_is_no_device_header(tmp_path, capsys):
    empty = tmp_path / "empty.h"
    empty.write_text("int hostOnly(int x);\n")
    for argv in ([str(tmp_path / "absent.h")], [str(empty)]):
        with pytest.raises(SystemExit) as stopped:
            make_hip_device_table.main(argv)
        assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "absent.h" in err
    assert "declares no function of HIP's device API" in err


def test_the_device_table_is_well_formed():
    functions = hip_api.load_device()
    names = [f.name for f in functions]
    assert len(names) == len(set(names)) > 600
    assert {f.group for f in functions} == set(hip_api.DEVICE_GROUPS)
    assert {f.header for f in functions} == {"hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_bf16.h"}
    by_name = {f.name: f for f in functions}
    expected = {
        "sinf": "math-float",
        "__fmaf_rz": "math-float",
        "rnorm4df": "math-float",
        "norm3d": "math-double",
        "erfcinv": "math-double",
        "__hfma2": "half2",
        "h2sin": "half2",
        "__float2half_rn": "half",
        "__float2bfloat16": "bf16",
        "__popc": "integer",
        "__funnelshift_l": "integer",
        "__shfl_xor": "warp",
        "__activemask": "warp",
        "atomicAdd_system": "atomic",
        "__syncthreads_count": "sync",
        "__threadfence_block": "sync",
        "wall_clock64": "other",
    }
    assert {n: by_name[n].group for n in expected} == expected
    assert by_name["__fmaf_rz"].optional and not by_name["__fmaf_rn"].optional
    assert by_name["__hadd"].also == ("half", "bf16")
    assert not any(n.startswith(("__ocml_", "__ockl_", "__hip_")) for n in names)


def test_the_device_probe_tells_declared_from_undeclared():
    """A function, overload sets, a template, and a name no header has; a header that
    refuses the platform (the CPU's hip_bf16.h) declares nothing."""
    names = ["sinf", "atomicAdd", "__shfl_xor", "__hadd2", "__notAFunction"]
    headers = {"__hadd2": "hip/hip_fp16.h"}
    assert api_table.declared("cpu", names, api_table.DEVICE, headers) == set(names) - {"__notAFunction"}
    bf16 = {"__float2bfloat16": "hip/hip_bf16.h"}
    assert api_table.declared("cpu", ["__float2bfloat16"], api_table.DEVICE, bf16) == set()


def test_the_probe_says_so_when_it_cannot_tell(monkeypatch):
    monkeypatch.setattr(api_table, "RUNTIME_HEADER", "hip/no_such_header.h")
    with pytest.raises(RuntimeError, match="probing cpu's headers failed"):
        api_table.declared("cpu", ["sinf"], api_table.DEVICE)


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_device_probe_refuses_host_functions_on_nvidia():
    """nvcc compiles a host function's address in device code until a later pass; the
    probe asks again, and a host function is not declared there (it is on the CPU,
    where device code is host code)."""
    names = ["hipGetErrorName", "sinf", "atomicAdd"]
    assert api_table.declared("nvidia", names, api_table.HOST) >= {"hipGetErrorName"}
    assert api_table.declared("nvidia", names, api_table.DEVICE) == {"sinf", "atomicAdd"}
    assert "hipGetErrorName" in api_table.declared("cpu", names, api_table.DEVICE)


def documented() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The status docs/HIP_API.md records per platform: of the runtime API, of the device API."""
    text = api_table.DOC.read_text()
    host, device = text.split("\n## The device API\n")
    return _status(host), _status(device)


def _status(text: str) -> dict[str, set[str]]:
    columns = re.search(r"^\| group \| function \| notes \| (.*) \|$", text, re.M).group(1).split(" | ")
    status: dict[str, set[str]] = {p: set() for p in columns}
    for name, marks in re.findall(r"^\| [^|]* \| `(\w+)` \|[^|]*\|(.*)\|$", text, re.M):
        for platform, mark in zip(columns, marks.split("|"), strict=True):
            if mark.strip() == "yes":
                status[platform].add(name)
    return status


@pytest.mark.parametrize(
    "platform",
    ["cpu", pytest.param("nvidia", marks=pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING)))],
)
def test_the_document_is_true(platform):
    """What the platform's headers declare now is what the document says, of both
    halves, and the document is what the generator makes of that."""
    functions, device_functions = hip_api.load(), hip_api.load_device()
    recorded, recorded_device = documented()
    assert list(recorded) == list(recorded_device) == api_table.tabled_platforms()
    assert api_table.declared(platform, [f.name for f in functions]) == recorded[platform], (
        "docs/HIP_API.md is stale: run python -m hipkit.cc.api_table"
    )
    headers = {f.name: f.header for f in device_functions}
    probed = api_table.declared(platform, [f.name for f in device_functions], api_table.DEVICE, headers)
    assert probed == recorded_device[platform], "docs/HIP_API.md is stale: run python -m hipkit.cc.api_table"
    text = api_table.document(functions, recorded, device_functions, recorded_device)
    assert api_table.DOC.read_text() == text
