#include <hip/hip_runtime.h>
#include <atomic>
#include <cstdio>
#include <cstdint>

#define CHECK(call) EXPECT(call, hipSuccess)
#define EXPECT(call, code)                                                                    \
  do {                                                                                        \
    hipError_t e_ = (call);                                                                   \
    if (e_ != (code)) {                                                                       \
      fprintf(stderr, "line %d: %s gave %s, not %s\n", __LINE__, #call, hipGetErrorName(e_), \
              #code);                                                                         \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)
#define TRUE(cond)                                               \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "line %d: %s is false\n", __LINE__, #cond); \
      return 1;                                                  \
    }                                                            \
  } while (0)

__global__ void fill(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}

// A host function that holds its stream until the main thread opens it.
std::atomic<int> gate{0};
void hold(void*) {
  while (gate.load() == 0) {
  }
}

static uint64_t attr(hipMemPool_t pool, hipMemPoolAttr a) {
  uint64_t v = 0;
  hipMemPoolGetAttribute(pool, a, &v);
  return v;
}

int main() {
  const int n = 1000;
  hipStream_t a, b;
  CHECK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  CHECK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  hipMemPool_t pool;
  hipMemPoolProps props = {};
  props.allocType = hipMemAllocationTypePinned;
  props.location.type = hipMemLocationTypeDevice;
  props.location.id = 0;
  CHECK(hipMemPoolCreate(&pool, &props));
  uint64_t keep = UINT64_MAX;
  CHECK(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &keep));
  int off = 0;
  CHECK(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowOpportunistic, &off));
  CHECK(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowInternalDependencies, &off));

  // Kernels write what the host reads back, through pool memory.
  int* p = nullptr;
  CHECK(hipMallocFromPoolAsync(&p, n * sizeof(int), pool, a));
  fill<<<4, 256, 0, a>>>(p, 7, n);
  int host[n];
  CHECK(hipMemcpyAsync(host, p, sizeof(host), hipMemcpyDeviceToHost, a));
  CHECK(hipStreamSynchronize(a));
  for (int i = 0; i < n; ++i) TRUE(host[i] == 7 + i);
  TRUE(attr(pool, hipMemPoolAttrUsedMemCurrent) >= n * sizeof(int));

  // Same stream: the block is reused in stream order, even while work is pending.
  CHECK(hipLaunchHostFunc(a, hold, nullptr));
  CHECK(hipFreeAsync(p, a));
  int* q = nullptr;
  CHECK(hipMallocFromPoolAsync(&q, n * sizeof(int), pool, a));
  TRUE(q == p);
  CHECK(hipFreeAsync(q, a));
  // Another stream with no dependency: not that block, even once the free ran.
  int* r = nullptr;
  CHECK(hipMallocFromPoolAsync(&r, n * sizeof(int), pool, b));
  TRUE(r != p);
  // With an event recorded after the free and waited on: the block is b's.
  hipEvent_t freed;
  CHECK(hipEventCreate(&freed));
  CHECK(hipEventRecord(freed, a));
  CHECK(hipStreamWaitEvent(b, freed, 0));
  int* s = nullptr;
  CHECK(hipMallocFromPoolAsync(&s, n * sizeof(int), pool, b));
  TRUE(s == p);
  gate = 1;
  CHECK(hipDeviceSynchronize());
  printf("used_high=%llu\n", (unsigned long long)attr(pool, hipMemPoolAttrUsedMemHigh));
  printf("used=%llu\n", (unsigned long long)attr(pool, hipMemPoolAttrUsedMemCurrent));
  printf("reserved=%llu\n", (unsigned long long)attr(pool, hipMemPoolAttrReservedMemCurrent));
  CHECK(hipFreeAsync(r, b));
  CHECK(hipFreeAsync(s, b));
  CHECK(hipStreamSynchronize(b));
  TRUE(attr(pool, hipMemPoolAttrUsedMemCurrent) == 0);
  printf("after_free_used_high=%llu\n", (unsigned long long)attr(pool, hipMemPoolAttrUsedMemHigh));
  uint64_t zero = 0;
  CHECK(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemHigh, &zero));
  TRUE(attr(pool, hipMemPoolAttrUsedMemHigh) == 0);
  uint64_t seven = 7;
  EXPECT(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemHigh, &seven), hipErrorInvalidValue);
  EXPECT(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemCurrent, &zero), hipErrorInvalidValue);
  EXPECT(hipMemPoolGetAttribute(pool, (hipMemPoolAttr)99, &zero), hipErrorInvalidValue);

  // Opportunistic reuse: a completed free on another stream.
  CHECK(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowOpportunistic, &(off = 1)));
  CHECK(hipMallocFromPoolAsync(&p, n * sizeof(int), pool, a));
  CHECK(hipFreeAsync(p, a));
  CHECK(hipStreamSynchronize(a));
  CHECK(hipMallocFromPoolAsync(&q, n * sizeof(int), pool, b));
  TRUE(q == p);
  CHECK(hipFreeAsync(q, b));
  CHECK(hipStreamSynchronize(b));

  // Trim releases what no work uses; the threshold on a sync does too.
  CHECK(hipMemPoolTrimTo(pool, 0));
  TRUE(attr(pool, hipMemPoolAttrReservedMemCurrent) == 0);
  TRUE(attr(pool, hipMemPoolAttrReservedMemHigh) > 0);
  CHECK(hipMemPoolSetAttribute(pool, hipMemPoolAttrReservedMemHigh, &zero));
  TRUE(attr(pool, hipMemPoolAttrReservedMemHigh) == 0);

  // The default pool, the current pool, hipMallocAsync.
  hipMemPool_t def, cur;
  CHECK(hipDeviceGetDefaultMemPool(&def, 0));
  CHECK(hipDeviceGetMemPool(&cur, 0));
  TRUE(def == cur);
  CHECK(hipDeviceSetMemPool(0, pool));
  CHECK(hipDeviceGetMemPool(&cur, 0));
  TRUE(cur == pool);
  CHECK(hipMallocAsync(&p, 64, a));
  hipMemPool_t owner = nullptr;
  CHECK(hipPointerGetAttribute(&owner, HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p));
  TRUE(owner == pool);
  CHECK(hipFreeAsync(p, a));
  EXPECT(hipFreeAsync(p, a), hipErrorInvalidValue);   // twice
  int* plain = nullptr;
  CHECK(hipMalloc(&plain, 64));
  EXPECT(hipFreeAsync(plain, a), hipErrorInvalidValue);  // not a pool's
  EXPECT(hipFreeAsync(host, a), hipErrorInvalidValue);   // foreign
  void* huge = &huge;  // rounded up, SIZE_MAX would wrap to a small size
  EXPECT(hipMallocAsync(&huge, SIZE_MAX, a), hipErrorOutOfMemory);
  TRUE(huge == nullptr);
  CHECK(hipFree(plain));
  // hipFree of a pool's block gives it back after the device's work.
  CHECK(hipMallocAsync(&p, 64, a));
  CHECK(hipFree(p));
  EXPECT(hipFreeAsync(p, a), hipErrorInvalidValue);

  // Access.
  hipMemAccessFlags flags;
  hipMemLocation here = {hipMemLocationTypeDevice, 0};
  CHECK(hipMemPoolGetAccess(&flags, pool, &here));
  TRUE(flags == hipMemAccessFlagsProtReadWrite);
  hipMemAccessDesc none = {here, hipMemAccessFlagsProtNone};
  EXPECT(hipMemPoolSetAccess(pool, &none, 1), hipErrorInvalidValue);
  hipMemLocation nowhere = {hipMemLocationTypeDevice, 99};
  EXPECT(hipMemPoolGetAccess(&flags, pool, &nowhere), hipErrorInvalidDevice);

  // Errors.
  EXPECT(hipMallocAsync(nullptr, 64, a), hipErrorInvalidValue);
  EXPECT(hipMallocFromPoolAsync(&p, 64, nullptr, a), hipErrorInvalidValue);
  EXPECT(hipMemPoolDestroy(def), hipErrorInvalidValue);
  hipMemPoolProps bad = props;
  bad.allocType = hipMemAllocationTypeInvalid;
  EXPECT(hipMemPoolCreate(&cur, &bad), hipErrorInvalidValue);
  bad = props;
  bad.location.id = 99;
  EXPECT(hipMemPoolCreate(&cur, &bad), hipErrorInvalidDevice);
  bad = props;
  bad.handleTypes = hipMemHandleTypePosixFileDescriptor;
  EXPECT(hipMemPoolCreate(&cur, &bad), hipErrorNotSupported);
  EXPECT(hipMemPoolExportPointer(nullptr, p), hipErrorNotSupported);
  EXPECT(hipMemPoolImportPointer(nullptr, pool, nullptr), hipErrorNotSupported);
  EXPECT(hipMemPoolExportToShareableHandle(nullptr, pool, hipMemHandleTypePosixFileDescriptor, 0),
         hipErrorNotSupported);
  EXPECT(hipMemPoolImportFromShareableHandle(&cur, nullptr, hipMemHandleTypePosixFileDescriptor,
                                             0), hipErrorNotSupported);

  // Destroying a pool with a block in use: the block is freed later, and the
  // device's current pool is its default again.
  CHECK(hipMallocFromPoolAsync(&p, 64, pool, a));
  CHECK(hipMemPoolDestroy(pool));
  CHECK(hipDeviceGetMemPool(&cur, 0));
  TRUE(cur == def);
  EXPECT(hipMemPoolTrimTo(pool, 0), hipErrorInvalidValue);
  CHECK(hipFreeAsync(p, a));
  CHECK(hipDeviceSynchronize());
  printf("ok\n");
  return 0;
}
