// hipkit CPU platform: the types, enumerations and flags of HIP's host API,
// with HIP's names and numbers (ROCm's hip_runtime_api.h), for whole programs.
#ifndef HIPKIT_CPU_HOST_TYPES_H
#define HIPKIT_CPU_HOST_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

#include <hipkit_portable/hip_version.h>  // HIP_VERSION, the API level these headers follow

// hipError_t, generated from hipkit._errors as the NVIDIA platform's programs have it.
#include "hipkit_tables/hip_errors.h"

typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = HKRT_MEMCPY_HOST_TO_HOST,
  hipMemcpyHostToDevice = HKRT_MEMCPY_HOST_TO_DEVICE,
  hipMemcpyDeviceToHost = HKRT_MEMCPY_DEVICE_TO_HOST,
  hipMemcpyDeviceToDevice = HKRT_MEMCPY_DEVICE_TO_DEVICE,
  hipMemcpyDefault = HKRT_MEMCPY_DEFAULT
} hipMemcpyKind;

#include "device_attributes.h"

typedef enum hipFuncAttribute {
  hipFuncAttributeMaxDynamicSharedMemorySize = 8,
  hipFuncAttributePreferredSharedMemoryCarveout = 9,
  hipFuncAttributeMax
} hipFuncAttribute;

typedef enum hipFuncCache_t {
  hipFuncCachePreferNone,
  hipFuncCachePreferShared,
  hipFuncCachePreferL1,
  hipFuncCachePreferEqual
} hipFuncCache_t;

typedef enum hipSharedMemConfig {
  hipSharedMemBankSizeDefault,
  hipSharedMemBankSizeFourByte,
  hipSharedMemBankSizeEightByte
} hipSharedMemConfig;

typedef enum hipComputeMode {
  hipComputeModeDefault = 0,
  hipComputeModeExclusive = 1,
  hipComputeModeProhibited = 2,
  hipComputeModeExclusiveProcess = 3
} hipComputeMode;

typedef enum hipMemoryType {
  hipMemoryTypeUnregistered = 0,
  hipMemoryTypeHost = 1,
  hipMemoryTypeDevice = 2,
  hipMemoryTypeManaged = 3,
  hipMemoryTypeArray = 10,
  hipMemoryTypeUnified = 11
} hipMemoryType;

// Flags are macros, as in HIP: a literal 0 passed as a stream stays a null pointer.
#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4
#define hipEventDisableSystemFence HKRT_EVENT_DISABLE_SYSTEM_FENCE
#define hipEventReleaseToDevice HKRT_EVENT_RELEASE_TO_DEVICE
#define hipEventReleaseToSystem HKRT_EVENT_RELEASE_TO_SYSTEM
#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipHostMallocNumaUser 0x20000000
#define hipHostMallocCoherent 0x40000000
#define hipHostMallocNonCoherent 0x80000000
#define hipHostAllocDefault hipHostMallocDefault
#define hipHostAllocPortable hipHostMallocPortable
#define hipHostAllocMapped hipHostMallocMapped
#define hipHostAllocWriteCombined hipHostMallocWriteCombined
#define hipHostRegisterDefault 0x0
#define hipHostRegisterPortable 0x1
#define hipHostRegisterMapped 0x2
#define hipHostRegisterIoMemory 0x4
#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipMemAttachSingle 0x04
#define hipDeviceScheduleAuto 0x0
#define hipDeviceScheduleSpin 0x1
#define hipDeviceScheduleYield 0x2
#define hipDeviceScheduleBlockingSync 0x4
#define hipDeviceMapHost 0x8
#define hipDeviceLmemResizeToMax 0x16
#define hipArrayDefault 0x00

typedef hkrt_stream* hipStream_t;
#define hipStreamLegacy ((hipStream_t)HKRT_STREAM_LEGACY)
#define hipStreamPerThread ((hipStream_t)HKRT_STREAM_PER_THREAD)
typedef hkrt_event* hipEvent_t;
typedef int hipDevice_t;
// hipLaunchHostFunc's function and hipStreamAddCallback's callback.
typedef void (*hipHostFn_t)(void* userData);
typedef void (*hipStreamCallback_t)(hipStream_t stream, hipError_t status, void* userData);

typedef struct hipUUID_t {
  char bytes[16];
} hipUUID;

#include "hipkit_portable/device_prop.h"

typedef struct hipFuncAttributes {
  int binaryVersion;
  int cacheModeCA;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int preferredShmemCarveout;
  int ptxVersion;
  size_t sharedSizeBytes;
} hipFuncAttributes;

#endif  // HIPKIT_CPU_HOST_TYPES_H
