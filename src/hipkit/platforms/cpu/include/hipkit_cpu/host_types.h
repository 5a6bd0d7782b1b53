// hipkit CPU platform: the types, enumerations and flags of HIP's host API,
// with HIP's names and numbers (ROCm's hip_runtime_api.h), for whole programs.
#ifndef HIPKIT_CPU_HOST_TYPES_H
#define HIPKIT_CPU_HOST_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

// The HIP API level these headers follow (HIP_VERSION's encoding).
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH "hipkit"
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

// Every hipError_t, with its number and hipGetErrorString's text; the same
// table as hipkit._errors (a test compares them).
#define __HK_HIP_ERRORS(X)                                                                        \
  X(hipSuccess, 0, "no error")                                                                    \
  X(hipErrorInvalidValue, 1, "invalid argument")                                                  \
  X(hipErrorOutOfMemory, 2, "out of memory")                                                      \
  X(hipErrorNotInitialized, 3, "initialization error")                                            \
  X(hipErrorDeinitialized, 4, "driver shutting down")                                             \
  X(hipErrorInvalidConfiguration, 9, "invalid configuration argument")                            \
  X(hipErrorInvalidPitchValue, 12, "invalid pitch argument")                                      \
  X(hipErrorInvalidSymbol, 13, "invalid device symbol")                                           \
  X(hipErrorInvalidDevicePointer, 17, "invalid device pointer")                                   \
  X(hipErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy")                      \
  X(hipErrorInsufficientDriver, 35, "driver version is insufficient for runtime version")         \
  X(hipErrorMissingConfiguration, 52, "__global__ function call is not configured")               \
  X(hipErrorPriorLaunchFailure, 53, "unspecified launch failure in prior launch")                 \
  X(hipErrorInvalidDeviceFunction, 98, "invalid device function")                                 \
  X(hipErrorNoDevice, 100, "no ROCm-capable device is detected")                                  \
  X(hipErrorInvalidDevice, 101, "invalid device ordinal")                                         \
  X(hipErrorInvalidImage, 200, "device kernel image is invalid")                                  \
  X(hipErrorInvalidContext, 201, "invalid device context")                                        \
  X(hipErrorContextAlreadyCurrent, 202, "unknown error")                                          \
  X(hipErrorMapFailed, 205, "unknown error")                                                      \
  X(hipErrorUnmapFailed, 206, "unknown error")                                                    \
  X(hipErrorArrayIsMapped, 207, "unknown error")                                                  \
  X(hipErrorAlreadyMapped, 208, "unknown error")                                                  \
  X(hipErrorNoBinaryForGpu, 209, "no kernel image is available for execution on the device")      \
  X(hipErrorAlreadyAcquired, 210, "unknown error")                                                \
  X(hipErrorNotMapped, 211, "unknown error")                                                      \
  X(hipErrorNotMappedAsArray, 212, "unknown error")                                               \
  X(hipErrorNotMappedAsPointer, 213, "unknown error")                                             \
  X(hipErrorECCNotCorrectable, 214, "unknown error")                                              \
  X(hipErrorUnsupportedLimit, 215, "unknown error")                                               \
  X(hipErrorContextAlreadyInUse, 216, "unknown error")                                            \
  X(hipErrorPeerAccessUnsupported, 217, "peer access is not supported between these two devices") \
  X(hipErrorInvalidKernelFile, 218, "invalid kernel file")                                        \
  X(hipErrorInvalidGraphicsContext, 219, "unknown error")                                         \
  X(hipErrorInvalidSource, 300, "device kernel image is invalid")                                 \
  X(hipErrorFileNotFound, 301, "file not found")                                                  \
  X(hipErrorSharedObjectSymbolNotFound, 302, "shared object symbol not found")                    \
  X(hipErrorSharedObjectInitFailed, 303, "shared object initialization failed")                   \
  X(hipErrorOperatingSystem, 304, "OS call failed or operation not supported on this OS")         \
  X(hipErrorInvalidHandle, 400, "invalid resource handle")                                        \
  X(hipErrorIllegalState, 401, "the operation cannot be performed in the present state")          \
  X(hipErrorNotFound, 500, "named symbol not found")                                              \
  X(hipErrorNotReady, 600, "device not ready")                                                    \
  X(hipErrorIllegalAddress, 700, "an illegal memory access was encountered")                      \
  X(hipErrorLaunchOutOfResources, 701, "too many resources requested for launch")                 \
  X(hipErrorLaunchTimeOut, 702, "the launch timed out and was terminated")                        \
  X(hipErrorPeerAccessAlreadyEnabled, 704, "peer access is already enabled")                      \
  X(hipErrorPeerAccessNotEnabled, 705, "peer access has not been enabled")                        \
  X(hipErrorSetOnActiveProcess, 708, "unknown error")                                             \
  X(hipErrorContextIsDestroyed, 709, "context is destroyed")                                      \
  X(hipErrorAssert, 710, "device-side assert triggered")                                          \
  X(hipErrorHostMemoryAlreadyRegistered, 712, "unknown error")                                    \
  X(hipErrorHostMemoryNotRegistered, 713, "unknown error")                                        \
  X(hipErrorLaunchFailure, 719, "unspecified launch failure")                                     \
  X(hipErrorCooperativeLaunchTooLarge, 720, "too many blocks in cooperative launch")              \
  X(hipErrorNotSupported, 801, "operation not supported")                                         \
  X(hipErrorStreamCaptureUnsupported, 900, "unknown error")                                       \
  X(hipErrorStreamCaptureInvalidated, 901, "unknown error")                                       \
  X(hipErrorStreamCaptureMerge, 902, "unknown error")                                             \
  X(hipErrorStreamCaptureUnmatched, 903, "unknown error")                                         \
  X(hipErrorStreamCaptureUnjoined, 904, "unknown error")                                          \
  X(hipErrorStreamCaptureIsolation, 905, "unknown error")                                         \
  X(hipErrorStreamCaptureImplicit, 906, "unknown error")                                          \
  X(hipErrorCapturedEvent, 907, "unknown error")                                                  \
  X(hipErrorStreamCaptureWrongThread, 908, "unknown error")                                       \
  X(hipErrorGraphExecUpdateFailure, 910, "unknown error")                                         \
  X(hipErrorUnknown, 999, "unknown error")                                                        \
  X(hipErrorRuntimeMemory, 1052, "unknown error")                                                 \
  X(hipErrorRuntimeOther, 1053, "unknown error")

#define __HK_ENUMERATOR(name, value, text) name = value,
typedef enum hipError_t { __HK_HIP_ERRORS(__HK_ENUMERATOR) } hipError_t;
#undef __HK_ENUMERATOR

typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = HKRT_MEMCPY_HOST_TO_HOST,
  hipMemcpyHostToDevice = HKRT_MEMCPY_HOST_TO_DEVICE,
  hipMemcpyDeviceToHost = HKRT_MEMCPY_DEVICE_TO_HOST,
  hipMemcpyDeviceToDevice = HKRT_MEMCPY_DEVICE_TO_DEVICE,
  hipMemcpyDefault = HKRT_MEMCPY_DEFAULT
} hipMemcpyKind;

// The attributes hipDeviceGetAttribute answers (ROCm >= 5 numbering, as
// hipkit.hip.hipDeviceAttribute_t).
typedef enum hipDeviceAttribute_t {
  hipDeviceAttributeClockRate = 5,
  hipDeviceAttributeL2CacheSize = 19,
  hipDeviceAttributeComputeCapabilityMajor = 23,
  hipDeviceAttributeMaxBlockDimX = 26,
  hipDeviceAttributeMaxBlockDimY = 27,
  hipDeviceAttributeMaxBlockDimZ = 28,
  hipDeviceAttributeMaxGridDimX = 29,
  hipDeviceAttributeMaxGridDimY = 30,
  hipDeviceAttributeMaxGridDimZ = 31,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxRegistersPerBlock = 71,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeTotalConstantMemory = 83,
  hipDeviceAttributeTotalGlobalMem = 84,
  hipDeviceAttributeWarpSize = 87
} hipDeviceAttribute_t;

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
  hipMemoryTypeManaged = 3
} hipMemoryType;

// Flags are macros, as in HIP: a literal 0 passed as a stream stays a null pointer.
#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4
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
typedef hkrt_event* hipEvent_t;
typedef int hipDevice_t;

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

typedef struct hipPointerAttribute_t {
  hipMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
  int isManaged;
  unsigned allocationFlags;
} hipPointerAttribute_t;

#endif  // HIPKIT_CPU_HOST_TYPES_H
