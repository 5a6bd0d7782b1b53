"""docs/HIP_API.md, the table of HIP's runtime API on each platform: ROCm's functions
(hipkit.tables.make_hip_api_table reads its header), and what each platform's program
headers declare (hipkit.cc.api_table), kept true here by probing them again (NVIDIA's
where nvcc is)."""

from __future__ import annotations

import re

import pytest
from test_cc_nvidia import NVCC_MISSING

from hipkit.cc import api_table
from hipkit.tables import hip_api, make_hip_api_table

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


def documented() -> dict[str, set[str]]:
    """The status docs/HIP_API.md records, per platform."""
    text = api_table.DOC.read_text()
    columns = re.search(r"^\| group \| function \| notes \| (.*) \|$", text, re.M).group(1).split(" | ")
    status: dict[str, set[str]] = {p: set() for p in columns}
    for name, marks in re.findall(r"^\| [^|]* \| `(hip\w+)` \|[^|]*\|(.*)\|$", text, re.M):
        for platform, mark in zip(columns, marks.split("|"), strict=True):
            if mark.strip() == "yes":
                status[platform].add(name)
    return status


@pytest.mark.parametrize(
    "platform",
    ["cpu", pytest.param("nvidia", marks=pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING)))],
)
def test_the_document_is_true(platform):
    """What the platform's headers declare now is what the document says, and the
    document is what the generator makes of that."""
    functions = hip_api.load()
    recorded = documented()
    assert list(recorded) == api_table.tabled_platforms()
    assert api_table.declared(platform, [f.name for f in functions]) == recorded[platform], (
        "docs/HIP_API.md is stale: run python -m hipkit.cc.api_table"
    )
    assert api_table.DOC.read_text() == api_table.document(functions, recorded)
