"""Devices, occupancy, contexts and stream extras in programs built by ``hipkit cc``:
PCI bus ids that round-trip, UUIDs stable and distinct, ``hipChooseDevice``,
P2P attributes, the hipOccupancy* family against a reference computed here
from the device's properties, the context stack selecting the current device,
stream priorities clamped into their range, ``hipStreamWaitValue``/``WriteValue``
in stream order, and every error a user can provoke, with HIP's codes.  The
program also compiles for NVIDIA (nvcc) where it is installed."""

from __future__ import annotations

import subprocess

import pytest
from test_cc import EXPECT_MACROS, build, write
from test_cc_nvidia import NVCC_MISSING
from test_cli import environment

from hipkit import platforms

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")

DEVICES = (
    r"""
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstring>

"""
    + EXPECT_MACROS
    + r"""
__global__ void plain(float* p) { p[threadIdx.x] = 1.0f; }
__global__ void __launch_bounds__(256) bounded(float* p) { p[threadIdx.x] = 2.0f; }
__global__ void with_shared(float* p) {
  __shared__ float tile[4096];  // 16 KiB
  tile[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

int properties(int device) {
  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, device));
  printf("prop %d %d %d %d %zu %zu %d %d %d %d\n", device, p.warpSize, p.maxThreadsPerBlock,
         p.maxThreadsPerMultiProcessor, p.sharedMemPerBlock, p.sharedMemPerMultiprocessor,
         p.maxBlocksPerMultiProcessor, p.multiProcessorCount, p.pciBusID, p.pciDomainID);
  return 0;
}

template <class F>
int occupancy(const char* name, F kernel, int block, size_t shared) {
  int blocks = -1;
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, shared));
  int again = -1;
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&again, kernel, block, shared,
                                                              hipOccupancyDisableCachingOverride));
  if (again != blocks) return 1;
  printf("active %s %d %zu %d\n", name, block, shared, blocks);
  return 0;
}

template <class F>
int potential(const char* name, F kernel, size_t shared, int limit) {
  int grid = -1, block = -1, grid2 = -1, block2 = -1, grid3 = -1, block3 = -1;
  CHECK(hipOccupancyMaxPotentialBlockSize(&grid, &block, kernel, shared, limit));
  CHECK(hipOccupancyMaxPotentialBlockSizeWithFlags(&grid2, &block2, kernel, shared, limit, 0));
  CHECK(hipOccupancyMaxPotentialBlockSizeVariableSMem(&grid3, &block3, kernel,
                                                      [shared](int) { return shared; }, limit));
  if (grid2 != grid || block2 != block || grid3 != grid || block3 != block) return 1;
  printf("potential %s %zu %d %d %d\n", name, shared, limit, grid, block);
  return 0;
}


int contexts_and_errors(int count) {
  // Contexts: a stack per thread whose top selects the current device.
  hipCtx_t primary = nullptr, made = nullptr, top = nullptr, popped = nullptr;
  CHECK(hipDevicePrimaryCtxRetain(&primary, 0));
  unsigned flags = 99;
  int active = -1;
  CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active));
  printf("primary active %d\n", active);
  EXPECT(hipDevicePrimaryCtxSetFlags(0, hipDeviceScheduleBlockingSync), hipErrorContextAlreadyInUse);
  CHECK(hipDevicePrimaryCtxRelease(0));
  EXPECT(hipDevicePrimaryCtxRelease(0), hipErrorInvalidContext);
  CHECK(hipDevicePrimaryCtxSetFlags(0, hipDeviceScheduleBlockingSync));
  CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active));
  printf("primary flags %u %d\n", flags, active);
  EXPECT(hipDevicePrimaryCtxSetFlags(0, 0x100), hipErrorInvalidValue);
  CHECK(hipCtxGetFlags(&flags));
  printf("ctx flags %u\n", flags);
  EXPECT(hipCtxPopCurrent(&popped), hipErrorInvalidContext);
  const int last = count - 1;
  CHECK(hipCtxCreate(&made, 0, last));
  int device = -1;
  CHECK(hipGetDevice(&device));
  CHECK(hipCtxGetCurrent(&top));
  printf("created %d %d %d\n", device, top == made, made == primary);
  CHECK(hipCtxPushCurrent(primary));
  CHECK(hipCtxGetDevice(&device));
  printf("pushed %d\n", device);
  CHECK(hipSetDevice(last));  // replaces the top
  CHECK(hipCtxPopCurrent(&popped));
  CHECK(hipGetDevice(&device));
  printf("popped %d %d\n", popped == made, device);
  CHECK(hipCtxSetCurrent(nullptr));
  EXPECT(hipCtxPopCurrent(&popped), hipErrorInvalidContext);
  int version = 0;
  CHECK(hipCtxGetApiVersion(made, &version));
  printf("api %d\n", version);
  int not_a_context = 0;
  EXPECT(hipCtxPushCurrent(reinterpret_cast<hipCtx_t>(&not_a_context)), hipErrorInvalidContext);
  EXPECT(hipCtxPushCurrent(nullptr), hipErrorInvalidContext);
  EXPECT(hipCtxDestroy(nullptr), hipErrorInvalidValue);
  CHECK(hipCtxDestroy(made));
  CHECK(hipSetDevice(0));
  // Streams: priorities clamped into the range, flags and devices kept.
  int least = 1, greatest = 1;
  CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
  printf("range %d %d\n", least, greatest);
  for (int asked : {-100, -1, 0, 7}) {
    hipStream_t s;
    CHECK(hipStreamCreateWithPriority(&s, hipStreamNonBlocking, asked));
    int priority = 99;
    unsigned stream_flags = 99;
    CHECK(hipStreamGetPriority(s, &priority));
    CHECK(hipStreamGetFlags(s, &stream_flags));
    CHECK(hipStreamGetDevice(s, &device));
    printf("stream %d %d %u %d %d\n", asked, priority, stream_flags, device, hipGetStreamDeviceId(s));
    CHECK(hipStreamDestroy(s));
  }
  int priority = 0;
  EXPECT(hipStreamGetPriority(nullptr, nullptr), hipErrorInvalidValue);
  EXPECT(hipStreamCreateWithPriority(nullptr, 0, 0), hipErrorInvalidValue);
  hipStream_t bad;
  EXPECT(hipStreamCreateWithPriority(&bad, 0x10, 0), hipErrorInvalidValue);
  // Waits and writes of words in stream order: the wait opens when a kernel on
  // another stream of the same device writes the word.
  unsigned* word = nullptr;
  unsigned long long* wide = nullptr;
  unsigned* out = nullptr;
  CHECK(hipMalloc(&word, 4));
  CHECK(hipMalloc(&wide, 8));
  CHECK(hipHostMalloc(&out, 16));
  CHECK(hipMemset(word, 0, 4));
  CHECK(hipMemset(wide, 0, 8));
  out[0] = out[1] = 0;
  hipStream_t waiting, writing;
  CHECK(hipStreamCreateWithFlags(&waiting, hipStreamNonBlocking));
  CHECK(hipStreamCreateWithFlags(&writing, hipStreamNonBlocking));
  CHECK(hipStreamWaitValue32(waiting, word, 0x30, hipStreamWaitValueAnd, 0xF0));
  CHECK(hipStreamWaitValue64(waiting, wide, 5, hipStreamWaitValueEq));
  CHECK(hipStreamWriteValue32(waiting, out, 42, 0));
  EXPECT(hipStreamQuery(waiting), hipErrorNotReady);
  printf("held %u\n", out[0]);
  CHECK(hipStreamWriteValue32(writing, word, 0x10, 0));
  CHECK(hipStreamWriteValue64(writing, wide, 5, 0));
  CHECK(hipStreamSynchronize(waiting));
  printf("released %u\n", out[0]);
  EXPECT(hipStreamWaitValue32(waiting, word, 1, 7), hipErrorInvalidValue);
  EXPECT(hipStreamWaitValue32(waiting, nullptr, 1, hipStreamWaitValueGte), hipErrorInvalidValue);
  EXPECT(hipStreamWriteValue64(waiting, reinterpret_cast<char*>(wide) + 4, 1, 0), hipErrorInvalidValue);
  EXPECT(hipStreamWriteValue32(waiting, out, 1, 1), hipErrorInvalidValue);
  CHECK(hipStreamDestroy(waiting));
  CHECK(hipStreamDestroy(writing));
  // hipChooseDevice: the device meeting the most requirements.
  hipDeviceProp_t want;
  memset(&want, 0, sizeof(want));
  int chosen = -1;
  CHECK(hipChooseDevice(&chosen, &want));
  printf("choose none %d\n", chosen);
  want.maxThreadsPerBlock = 512;
  want.warpSize = 1 << 20;
  CHECK(hipChooseDevice(&chosen, &want));
  printf("choose some %d\n", chosen);
  EXPECT(hipChooseDevice(nullptr, &want), hipErrorInvalidValue);
  EXPECT(hipChooseDevice(&chosen, nullptr), hipErrorInvalidValue);
  // Errors of the device calls.
  char bus[16];
  EXPECT(hipDeviceGetPCIBusId(bus, sizeof(bus), count), hipErrorInvalidDevice);
  EXPECT(hipDeviceGetPCIBusId(nullptr, 16, 0), hipErrorInvalidValue);
  EXPECT(hipDeviceGetByPCIBusId(&device, "not a bus id"), hipErrorInvalidValue);
  EXPECT(hipDeviceGetByPCIBusId(&device, "0000:3f:00.0"), hipErrorInvalidDevice);
  EXPECT(hipDeviceGetByPCIBusId(nullptr, "0000:00:00.0"), hipErrorInvalidValue);
  CHECK(hipDeviceGetByPCIBusId(&device, "00:00.0"));
  hipUUID uuid;
  EXPECT(hipDeviceGetUuid(&uuid, -1), hipErrorInvalidDevice);
  EXPECT(hipDeviceGetUuid(nullptr, 0), hipErrorInvalidValue);
  int value = -1;
  EXPECT(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrAccessSupported, 0, 0), hipErrorInvalidDevice);
  if (count > 1) {
    CHECK(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrAccessSupported, 0, 1));
    printf("p2p access %d\n", value);
  }
  int valid[2] = {last, last};
  EXPECT(hipSetValidDevices(valid, 2), hipErrorInvalidValue);
  CHECK(hipSetValidDevices(valid, 1));
  CHECK(hipGetDevice(&device));
  printf("valid %d\n", device);
  CHECK(hipSetDevice(0));
  hipSharedMemConfig config;
  CHECK(hipDeviceGetSharedMemConfig(&config));
  printf("bank %d\n", int(config));
  // Occupancy's errors.
  int blocks = 0, grid = 0, block = 0;
  EXPECT(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain, 0, 0), hipErrorInvalidValue);
  EXPECT(hipOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, plain, 32, 0), hipErrorInvalidValue);
  EXPECT(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, plain, 32, 0, 4),
         hipErrorInvalidValue);
  EXPECT(hipOccupancyMaxPotentialBlockSize(&grid, &block, plain, 0, -1), hipErrorInvalidValue);
  EXPECT(hipOccupancyMaxPotentialBlockSize(nullptr, &block, plain, 0, 0), hipErrorInvalidValue);
  EXPECT(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(&value), 32, 0),
         hipErrorInvalidDeviceFunction);
  return 0;
}

int main() {
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  printf("count %d\n", count);
  for (int d = 0; d < count; ++d) {
    if (properties(d)) return 1;
    char bus[32];
    CHECK(hipDeviceGetPCIBusId(bus, sizeof(bus), d));
    int back = -1;
    CHECK(hipDeviceGetByPCIBusId(&back, bus));
    hipUUID uuid;
    CHECK(hipDeviceGetUuid(&uuid, d));
    printf("bus %d %s %d ", d, bus, back);
    for (int i = 0; i < 16; ++i) printf("%02x", (unsigned char)uuid.bytes[i]);
    printf("\n");
  }
  hipFuncAttributes attr;
  CHECK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(bounded)));
  printf("attr bounded %d %zu\n", attr.maxThreadsPerBlock, attr.sharedSizeBytes);
  CHECK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(with_shared)));
  printf("attr with_shared %d %zu\n", attr.maxThreadsPerBlock, attr.sharedSizeBytes);
  for (int block : {1, 32, 64, 100, 256, 257, 1024, 1025})
    for (size_t shared : {size_t(0), size_t(1024), size_t(50000), size_t(70000)}) {
      if (occupancy("plain", plain, block, shared)) return 1;
      if (occupancy("bounded", bounded, block, shared)) return 1;
      if (occupancy("with_shared", with_shared, block, shared)) return 1;
    }
  for (int limit : {0, 1, 100, 512, 2000})
    for (size_t shared : {size_t(0), size_t(50000), size_t(70000)}) {
      if (potential("plain", plain, shared, limit)) return 1;
      if (potential("bounded", bounded, shared, limit)) return 1;
      if (potential("with_shared", with_shared, shared, limit)) return 1;
    }
  return contexts_and_errors(count);
}
"""
)


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    directory = tmp_path_factory.mktemp("devices")
    write(directory, "devices.hip", DEVICES)
    build(directory, "-o", "devices", "devices.hip")
    return directory / "devices"


def run(program, devices: int, **variables: str) -> list[list[str]]:
    done = subprocess.run(
        [str(program)],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(HIPKIT_PLATFORM="cpu", HIPKIT_CPU_DEVICES=str(devices), **variables),
    )
    assert done.returncode == 0, done.stderr
    return [line.split() for line in done.stdout.splitlines()]


def rows(lines, key):
    return [line[1:] for line in lines if line[0] == key]


def one(lines, key):
    (row,) = rows(lines, key)
    return row


def active_reference(prop, attr, block, shared):
    """A GPU occupancy calculator's answer from the properties the program printed."""
    warp, max_block, threads_per_mp, shared_per_block, shared_per_mp, blocks_per_mp = prop
    kernel_max, static_shared = attr
    total = static_shared + shared
    if block > kernel_max or total > shared_per_block:
        return 0
    fit = min(blocks_per_mp, threads_per_mp // (-(-block // warp) * warp))
    if total:
        fit = min(fit, shared_per_mp // total)
    return fit


def potential_reference(prop, attr, shared, limit, multiprocessors):
    warp, max_block = prop[0], prop[1]
    top = min(attr[0], max_block, limit or max_block)
    sizes = [top] + list(range(top // warp * warp if top % warp else top - warp, 0, -warp))
    best = (0, 0)
    for size in sizes:
        blocks = active_reference(prop, attr, size, shared)
        if blocks * size > best[0] * best[1]:
            best = (blocks, size)
    return best[0] * multiprocessors, best[1]


@needs_cpu
@pytest.mark.parametrize("devices", [1, 3])
def test_occupancy_matches_the_properties(program, devices):
    lines = run(program, devices)
    props = {int(r[0]): [int(v) for v in r[1:]] for r in rows(lines, "prop")}
    prop = props[0][:6]
    multiprocessors = props[0][6]
    attrs = {r[0]: (int(r[1]), int(r[2])) for r in rows(lines, "attr")}
    attrs["plain"] = (prop[1], 0)
    assert attrs["bounded"] == (256, 0) and attrs["with_shared"][1] == 16384
    active = rows(lines, "active")
    assert len(active) == 8 * 4 * 3
    for name, block, shared, blocks in active:
        assert int(blocks) == active_reference(prop, attrs[name], int(block), int(shared)), (
            name,
            block,
            shared,
        )
    potential = rows(lines, "potential")
    assert len(potential) == 5 * 3 * 3
    for name, shared, limit, grid, block in potential:
        expected = potential_reference(prop, attrs[name], int(shared), int(limit), multiprocessors)
        assert (int(grid), int(block)) == expected, (name, shared, limit)


@needs_cpu
def test_pci_bus_ids_round_trip_and_uuids_are_stable_and_distinct(program):
    first, again = run(program, 3), run(program, 3)
    buses = rows(first, "bus")
    assert [int(b[0]) for b in buses] == [0, 1, 2]
    for ordinal, bus_id, back, _ in buses:
        assert back == ordinal
        domain, bus, rest = bus_id.split(":")
        assert (domain, rest) == ("0000", "00.0") and int(bus, 16) == int(ordinal)
    assert len({b[3] for b in buses}) == 3 and all(len(b[3]) == 32 for b in buses)
    assert rows(again, "bus") == buses
    # The bus id names the device, whatever HIP_VISIBLE_DEVICES shows: device 2 stays 02.
    swapped = rows(run(program, 3, HIP_VISIBLE_DEVICES="2,0"), "bus")
    assert [(b[1], b[2], b[3]) for b in swapped] == [
        (buses[2][1], "0", buses[2][3]),
        (buses[0][1], "1", buses[0][3]),
    ]


@needs_cpu
@pytest.mark.parametrize("devices", [1, 2])
def test_contexts_select_the_current_device(program, devices):
    lines = run(program, devices)
    last = str(devices - 1)
    assert rows(lines, "primary") == [["active", "1"], ["flags", "4", "0"]]
    assert one(lines, "ctx") == ["flags", "4"]
    # hipCtxCreate's context is its device's (one per device, as HIP on AMD).
    assert one(lines, "created") == [last, "1", "1" if devices == 1 else "0"]
    assert one(lines, "pushed") == ["0"]
    assert one(lines, "popped") == ["1", last]
    assert one(lines, "api") == ["4"]
    assert one(lines, "valid") == [last]
    assert one(lines, "bank") == ["1"]
    if devices > 1:
        assert one(lines, "p2p") == ["access", "1"]


@needs_cpu
def test_stream_priorities_are_clamped_and_waits_hold_the_stream(program):
    lines = run(program, 1)
    assert one(lines, "range") == ["0", "-1"]
    assert rows(lines, "stream") == [
        ["-100", "-1", "1", "0", "0"],
        ["-1", "-1", "1", "0", "0"],
        ["0", "0", "1", "0", "0"],
        ["7", "0", "1", "0", "0"],
    ]
    assert one(lines, "held") == ["0"] and one(lines, "released") == ["42"]
    assert [r for r in rows(lines, "choose")] == [["none", "0"], ["some", "0"]]


@pytest.mark.skipif(bool(NVCC_MISSING), reason=str(NVCC_MISSING))
def test_the_program_compiles_for_nvidia(tmp_path):
    write(tmp_path, "devices.hip", DEVICES)
    build(tmp_path, "--platform", "nvidia", "--offload-arch=sm_90", "-o", "devices", "devices.hip")
    assert (tmp_path / "devices").exists()
