"""What ROCm's hip-tests (tools/hip_tests.py) found missing or different from HIP in
programs built by ``hipkit cc`` on the CPU, each checked here on its own:

- hipDeviceGetAttribute: every attribute of HIP's enumeration compiles with HIP's number,
  each answers its hipDeviceProp_t field, the texture and surface limits are what the
  array calls accept (one past is refused), an unknown attribute is hipErrorInvalidValue
  (``hip_test_common.hh`` asks for ``hipDeviceAttributeImageSupport``,
  ``hipGetDeviceAttribute.cc`` compares attributes with properties);
- HIP's ``__HIP_ARCH_HAS_*`` macros, which ``hipDeviceProp_t::arch`` repeats;
- every hipError_t HIP has (the profiler's, the texture errors, the older names) with
  its name;
- NULL given for a kernel (g++'s NULL is an integer) is hipErrorInvalidDeviceFunction;
- a PCI bus id cut short by its buffer is an error (hipDeviceGetPCIBusId.cc);
- hipFunction_t is no pointer to const (hipGraphAddKernelNode.cc casts it to void*);
- host memory both coherent and non-coherent is refused (hipHostMalloc.cc).
"""

from __future__ import annotations

import pytest
from test_cc import EXPECT_MACROS, build, program_lines, write
from test_cc_nvidia import NVCC_MISSING

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

# (attribute, field): the pairs hip-tests' CheckAttrValues compares, and the limits.
PAIRS = [
    ("MaxThreadsPerBlock", "maxThreadsPerBlock"),
    ("MaxBlockDimZ", "maxThreadsDim[2]"),
    ("MaxGridDimY", "maxGridSize[1]"),
    ("WarpSize", "warpSize"),
    ("ClockRate", "clockRate"),
    ("MemoryClockRate", "memoryClockRate"),
    ("MultiprocessorCount", "multiProcessorCount"),
    ("ComputeMode", "computeMode"),
    ("L2CacheSize", "l2CacheSize"),
    ("MaxThreadsPerMultiProcessor", "maxThreadsPerMultiProcessor"),
    ("ComputeCapabilityMajor", "major"),
    ("PciBusId", "pciBusID"),
    ("Integrated", "integrated"),
    ("CooperativeLaunch", "cooperativeLaunch"),
    ("CooperativeMultiDeviceLaunch", "cooperativeMultiDeviceLaunch"),
    ("ManagedMemory", "managedMemory"),
    ("IsLargeBar", "isLargeBar"),
    ("ConcurrentManagedAccess", "concurrentManagedAccess"),
    ("PageableMemoryAccessUsesHostPageTables", "pageableMemoryAccessUsesHostPageTables"),
    ("CooperativeMultiDeviceUnmatchedFunc", "cooperativeMultiDeviceUnmatchedFunc"),
    ("MaxSharedMemoryPerMultiprocessor", "maxSharedMemoryPerMultiProcessor"),
    ("TextureAlignment", "textureAlignment"),
    ("TexturePitchAlignment", "texturePitchAlignment"),
    ("SurfaceAlignment", "surfaceAlignment"),
    ("CanMapHostMemory", "canMapHostMemory"),
    ("MemoryPoolsSupported", "memoryPoolsSupported"),
    ("HostRegisterSupported", "hostRegisterSupported"),
    ("MaxTexture1DWidth", "maxTexture1D"),
    ("MaxTexture2DWidth", "maxTexture2D[0]"),
    ("MaxTexture2DHeight", "maxTexture2D[1]"),
    ("MaxTexture3DWidth", "maxTexture3D[0]"),
    ("MaxTexture3DHeight", "maxTexture3D[1]"),
    ("MaxTexture3DDepth", "maxTexture3D[2]"),
    ("MaxTexture1DLinear", "maxTexture1DLinear"),
    ("MaxTexture2DLinear", "maxTexture2DLinear[0]"),
    ("MaxSurface2D", "maxSurface2D[0]"),
    ("MaxTextureCubemap", "maxTextureCubemap"),
]

ATTRIBUTES = (
    r"""
#include <hip/hip_runtime.h>

#include <cstdio>

"""
    + EXPECT_MACROS
    + r"""
static_assert(hipDeviceAttributeWarpSize == 87 && hipDeviceAttributeMaxPitch == 58 &&
              hipDeviceAttributeImageSupport == 10014 && hipDeviceAttributeWallClockRate == 10017,
              "HIP's numbers");

// An array of `w` x `h` x `d` floats: 1 where hipMalloc3DArray takes it, 0 where it
// refuses it with hipErrorInvalidValue.
int takes(size_t w, size_t h, size_t d) {
  hipChannelFormatDesc desc = hipCreateChannelDesc<float>();
  hipArray_t a = nullptr;
  hipError_t e = hipMalloc3DArray(&a, &desc, make_hipExtent(w, h, d), 0);
  (void)hipGetLastError();
  if (e == hipSuccess) return hipFreeArray(a) == hipSuccess;
  return e == hipErrorInvalidValue ? 0 : -1;
}

int main() {
  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));
  int value = -1;
#define PAIR(attribute, field)                                             \
  CHECK(hipDeviceGetAttribute(&value, hipDeviceAttribute##attribute, 0)); \
  printf("%s %d %lld\n", #attribute, value, (long long)p.field);
"""
    + "".join(f"  PAIR({a}, {f})\n" for a, f in PAIRS)
    + r"""
  CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeImageSupport, 0));
  printf("image %d\n", value);
  unsigned int* hdp = reinterpret_cast<unsigned int*>(&p);  // anything but null
  CHECK(hipDeviceGetAttribute(reinterpret_cast<int*>(&hdp), hipDeviceAttributeHdpMemFlushCntl, 0));
  printf("hdp %d %d\n", hdp == p.hdpMemFlushCntl, hdp == nullptr);
  EXPECT(hipDeviceGetAttribute(&value, static_cast<hipDeviceAttribute_t>(-1), 0), hipErrorInvalidValue);
  EXPECT(hipDeviceGetAttribute(&value, hipDeviceAttributeLuid, 0), hipErrorInvalidValue);
  EXPECT(hipDeviceGetAttribute(nullptr, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
  EXPECT(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, 99), hipErrorInvalidDevice);
  const size_t w = size_t(p.maxTexture3D[0]), d = size_t(p.maxTexture3D[2]);
  printf("limits %d %d %d %d\n", takes(w, 1, 1), takes(w + 1, 1, 1), takes(1, 1, d), takes(1, 1, d + 1));
  return 0;
}
"""
)


@needs_cpu
def test_attributes_answer_the_properties_and_the_limits_hold(tmp_path):
    write(tmp_path, "attributes.hip", ATTRIBUTES)
    build(tmp_path, "-o", "attributes", "attributes.hip")
    lines = program_lines(tmp_path / "attributes")
    values = {name: (int(a), int(f)) for name, a, f in (line.split() for line in lines[: len(PAIRS)])}
    assert set(values) == {a for a, _ in PAIRS}
    for name, (attribute, field) in values.items():
        assert attribute == field, name
    assert values["MaxTexture3DDepth"][0] < values["MaxTexture3DWidth"][0]
    assert values["MaxTextureCubemap"][0] == 0  # no cube maps on the CPU
    assert lines[len(PAIRS) :] == ["image 1", "hdp 1 1", "limits 1 0 1 0"]


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_properties_compile_for_nvidia(tmp_path):
    # HIP's hipDeviceProp_t fields on NVIDIA too (its attributes are CUDA's).
    write(
        tmp_path,
        "props.hip",
        "#include <hip/hip_runtime.h>\n"
        "int main() { hipDeviceProp_t p; hipGetDeviceProperties(&p, 0);\n"
        "  return p.maxTexture3D[2] + p.maxSurface2D[0] + int(p.surfaceAlignment) +\n"
        "         p.memoryPoolsSupported; }\n",
    )
    build(tmp_path, "--platform", "nvidia", "-c", "props.hip")
    assert (tmp_path / "props.o").is_file()


NAMES = (
    r"""
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

"""
    + EXPECT_MACROS
    + r"""
__global__ void kernel(int* p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));
  const int macros[] = {__HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__, __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__,
                        __HIP_ARCH_HAS_DOUBLES__, __HIP_ARCH_HAS_WARP_SHUFFLE__,
                        __HIP_ARCH_HAS_SURFACE_FUNCS__, __HIP_ARCH_HAS_DYNAMIC_PARALLEL__};
  const int fields[] = {p.arch.hasGlobalInt32Atomics, p.arch.hasFloatAtomicAdd, p.arch.hasDoubles,
                        p.arch.hasWarpShuffle, p.arch.hasSurfaceFuncs, p.arch.hasDynamicParallelism};
  for (int i = 0; i < 6; ++i) printf("%d%d ", macros[i], fields[i]);
  printf("\n");
  const hipError_t codes[] = {hipErrorProfilerDisabled, hipErrorProfilerAlreadyStopped,
                              hipErrorInvalidChannelDescriptor, hipErrorInvalidTexture,
                              hipErrorInvalidResourceHandle, hipErrorMemoryAllocation, hipErrorTbd};
  for (hipError_t code : codes) printf("%d %s\n", int(code), hipGetErrorName(code));
  int blocks = -1;
  EXPECT(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, NULL, 64, 0),
         hipErrorInvalidDeviceFunction);
  EXPECT(hipGetLastError(), hipErrorInvalidDeviceFunction);
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, 64, 0));
  printf("blocks %d\n", blocks);
  // A module's function is a plain pointer, as HIP's: it casts to void* (a kernel node's func).
  hipFunction_t function = nullptr;
  static_assert(sizeof(reinterpret_cast<void*>(function)) == sizeof(void*), "a pointer");
  // A PCI bus id cut short: what fits, and an error.
  char id[32], cut[6];
  CHECK(hipDeviceGetPCIBusId(id, sizeof(id), 0));
  EXPECT(hipDeviceGetPCIBusId(cut, sizeof(cut), 0), hipErrorInvalidValue);
  EXPECT(hipGetLastError(), hipErrorInvalidValue);
  printf("cut %d %zu\n", strncmp(id, cut, sizeof(cut) - 1) == 0, strlen(cut));
  void* both = &p;
  EXPECT(hipHostMalloc(&both, 64, hipHostMallocCoherent | hipHostMallocNonCoherent), hipErrorInvalidValue);
  EXPECT(hipGetLastError(), hipErrorInvalidValue);
  printf("both %d\n", both == nullptr);
  return 0;
}
"""
)


@needs_cpu
def test_arch_macros_error_names_and_null_kernels(tmp_path):
    write(tmp_path, "names.hip", NAMES)
    build(tmp_path, "-o", "names", "names.hip")
    lines = program_lines(tmp_path / "names")
    # Surfaces run on the CPU; launches inside kernels do not.
    assert lines[0].split() == ["11", "11", "11", "11", "11", "00"]
    assert lines[1:8] == [
        "5 hipErrorProfilerDisabled",
        "8 hipErrorProfilerAlreadyStopped",
        "911 hipErrorInvalidChannelDescriptor",
        "912 hipErrorInvalidTexture",
        "400 hipErrorInvalidHandle",  # the older name of the same code
        "2 hipErrorOutOfMemory",
        "1054 hipErrorTbd",
    ]
    assert lines[8:] == ["blocks 1", "cut 1 5", "both 1"]
