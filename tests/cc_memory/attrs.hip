#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>

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

// The attributes of `p + 8`, an allocation of `size` bytes starting at p.
static int check(void* p, size_t size, hipMemoryType type, int managed, unsigned long long* id) {
  char* inside = static_cast<char*>(p) + 8;
  hipPointerAttribute_t a;
  CHECK(hipPointerGetAttributes(&a, inside));
  TRUE(a.type == type && a.isManaged == managed && a.device == 0 && a.devicePointer == inside);
  TRUE(a.hostPointer == (type == hipMemoryTypeDevice ? nullptr : inside));
  void* base = nullptr;
  size_t range = 0;
  CHECK(hipMemGetAddressRange(&base, &range, inside));
  TRUE(base == p && range == size);
  unsigned type_value = 0;
  int ordinal = -1;
  hipPointer_attribute which[] = {HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                  HIP_POINTER_ATTRIBUTE_BUFFER_ID, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                  HIP_POINTER_ATTRIBUTE_RANGE_SIZE};
  void* start = nullptr;
  size_t length = 0;
  void* data[] = {&type_value, &ordinal, id, &start, &length};
  CHECK(hipDrvPointerGetAttributes(5, which, data, inside));
  TRUE(type_value == unsigned(type) && ordinal == 0 && *id != 0 && start == p && length == size);
  size_t info = 0;
  CHECK(hipMemPtrGetInfo(p, &info));
  TRUE(info == size);
  return 0;
}

int main() {
  unsigned long long ids[6];
  void *dev, *host, *managed, *pitched, *pooled;
  size_t pitch;
  CHECK(hipMalloc(&dev, 1000));
  CHECK(hipHostMalloc(&host, 1000, hipHostMallocMapped));
  CHECK(hipMallocManaged(&managed, 3 * 4096 + 100));
  CHECK(hipMallocPitch(&pitched, &pitch, 100, 3));
  CHECK(hipMallocAsync(&pooled, 1000, nullptr));
  static char user[8192];
  CHECK(hipHostRegister(user, sizeof(user), hipHostRegisterMapped));
  if (check(dev, 1000, hipMemoryTypeDevice, 0, &ids[0])) return 1;
  if (check(host, 1000, hipMemoryTypeHost, 0, &ids[1])) return 1;
  if (check(managed, 3 * 4096 + 100, hipMemoryTypeManaged, 1, &ids[2])) return 1;
  if (check(pitched, pitch * 3, hipMemoryTypeDevice, 0, &ids[3])) return 1;
  if (check(pooled, 1024, hipMemoryTypeDevice, 0, &ids[4])) return 1;
  if (check(user, sizeof(user), hipMemoryTypeHost, 0, &ids[5])) return 1;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < i; ++j) TRUE(ids[i] != ids[j]);
  unsigned flags = 0;
  CHECK(hipHostGetFlags(&flags, host));
  TRUE(flags == hipHostMallocMapped);
  CHECK(hipHostGetFlags(&flags, user));
  TRUE(flags == hipHostRegisterMapped);
  void* mapped = nullptr;
  CHECK(hipHostGetDevicePointer(&mapped, user + 16, 0));
  TRUE(mapped == user + 16);
  // Device pointers of host memory: an async copy from registered memory.
  CHECK(hipMemcpyHtoDAsync(dev, user, 1000, nullptr));
  CHECK(hipMemcpyDtoDAsync(pooled, dev, 1000, nullptr));
  CHECK(hipMemcpyDtoHAsync(host, pooled, 1000, nullptr));
  CHECK(hipDeviceSynchronize());

  // Unknown memory.
  static char plain[64];
  hipPointerAttribute_t a;
  CHECK(hipPointerGetAttributes(&a, plain));
  TRUE(a.type == hipMemoryTypeUnregistered);
  EXPECT(hipPointerGetAttributes(&a, nullptr), hipErrorInvalidValue);
  unsigned type_value;
  EXPECT(hipPointerGetAttribute(&type_value, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, plain),
         hipErrorInvalidValue);
  EXPECT(hipPointerGetAttribute(&type_value, (hipPointer_attribute)999, dev), hipErrorInvalidValue);
  void* hp;
  EXPECT(hipPointerGetAttribute(&hp, HIP_POINTER_ATTRIBUTE_HOST_POINTER, dev), hipErrorInvalidValue);
  EXPECT(hipMemGetAddressRange(&hp, nullptr, plain), hipErrorNotFound);
  EXPECT(hipHostGetDevicePointer(&hp, plain, 0), hipErrorInvalidValue);
  EXPECT(hipHostGetFlags(&flags, plain), hipErrorInvalidValue);
  EXPECT(hipHostRegister(user + 100, 10, 0), hipErrorHostMemoryAlreadyRegistered);
  EXPECT(hipHostRegister(plain, 0, 0), hipErrorInvalidValue);
  EXPECT(hipHostRegister(plain, 8, 0x100), hipErrorInvalidValue);
  EXPECT(hipHostUnregister(plain), hipErrorHostMemoryNotRegistered);
  CHECK(hipHostUnregister(user));
  EXPECT(hipHostUnregister(user), hipErrorHostMemoryNotRegistered);
  CHECK(hipPointerGetAttributes(&a, user));
  TRUE(a.type == hipMemoryTypeUnregistered);

  // Managed memory: advice and prefetches read back, page by page.
  char* m = static_cast<char*>(managed);
  int v = -7;
  CHECK(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeLastPrefetchLocation, m, 4096));
  TRUE(v == hipInvalidDeviceId);
  CHECK(hipMemAdvise(m, 4096, hipMemAdviseSetReadMostly, 0));
  CHECK(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, m, 4096));
  TRUE(v == 1);
  CHECK(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, m, 8192));
  TRUE(v == 0);
  CHECK(hipMemAdvise(m + 4096, 8192, hipMemAdviseSetPreferredLocation, hipCpuDeviceId));
  CHECK(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, m + 4096, 100));
  TRUE(v == hipCpuDeviceId);
  CHECK(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributePreferredLocation, m, 8192));
  TRUE(v == hipInvalidDeviceId);
  CHECK(hipMemAdvise(m, 3 * 4096, hipMemAdviseSetAccessedBy, 0));
  int by[3];
  CHECK(hipMemRangeGetAttribute(by, sizeof(by), hipMemRangeAttributeAccessedBy, m, 4096));
  TRUE(by[0] == 0 && by[1] == hipInvalidDeviceId && by[2] == hipInvalidDeviceId);
  hipStream_t s;
  CHECK(hipStreamCreate(&s));
  CHECK(hipMemPrefetchAsync(m, 3 * 4096 + 100, 0, s));
  CHECK(hipStreamAttachMemAsync(s, m, 0, hipMemAttachSingle));
  int read_mostly = -1, prefetched = -1;
  void* values[] = {&read_mostly, &prefetched};
  size_t sizes[] = {4, 4};
  hipMemRangeAttribute asked[] = {hipMemRangeAttributeReadMostly,
                                  hipMemRangeAttributeLastPrefetchLocation};
  CHECK(hipMemRangeGetAttributes(values, sizes, asked, 2, m, 4096));
  TRUE(read_mostly == 1 && prefetched == 0);
  EXPECT(hipMemAdvise(plain, 64, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
  EXPECT(hipMemAdvise(m, 64, hipMemAdviseSetPreferredLocation, 99), hipErrorInvalidDevice);
  EXPECT(hipMemAdvise(m, 64, (hipMemoryAdvise)77, 0), hipErrorInvalidValue);
  EXPECT(hipMemAdvise(m, 4 * 4096, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
  EXPECT(hipMemPrefetchAsync(m, 64, 99, s), hipErrorInvalidDevice);
  EXPECT(hipMemRangeGetAttribute(&v, 8, hipMemRangeAttributeReadMostly, m, 64), hipErrorInvalidValue);
  EXPECT(hipMallocManaged(&managed, 64, 0x10), hipErrorInvalidValue);
  EXPECT(hipStreamAttachMemAsync(s, plain, 0, hipMemAttachSingle), hipErrorInvalidValue);

  // Limits.
  size_t value = 0;
  CHECK(hipDeviceGetLimit(&value, hipLimitMallocHeapSize));
  TRUE(value == 8 << 20);
  CHECK(hipDeviceSetLimit(hipLimitMallocHeapSize, 1 << 20));
  CHECK(hipDeviceGetLimit(&value, hipLimitMallocHeapSize));
  TRUE(value == 1 << 20);
  CHECK(hipDeviceSetLimit(hipLimitStackSize, 4096));
  CHECK(hipDeviceGetLimit(&value, hipLimitStackSize));
  TRUE(value == 4096);
  CHECK(hipDeviceSetLimit(hipLimitPrintfFifoSize, 1 << 22));
  CHECK(hipDeviceGetLimit(&value, hipLimitPrintfFifoSize));
  TRUE(value == 1 << 22);
  EXPECT(hipDeviceSetLimit(hipLimitStackSize, size_t(1) << 30), hipErrorInvalidValue);
  EXPECT(hipDeviceGetLimit(&value, (hipLimit_t)42), hipErrorUnsupportedLimit);
  EXPECT(hipDeviceGetLimit(nullptr, hipLimitStackSize), hipErrorInvalidValue);
  CHECK(hipDeviceReset());
  CHECK(hipDeviceGetLimit(&value, hipLimitMallocHeapSize));
  TRUE(value == 8 << 20);
  printf("ok\n");
  return 0;
}
