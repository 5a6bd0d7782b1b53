// hipkit CPU platform: the types of HIP's memory API beyond host_types.h
// (pools, managed memory, pointer attributes, limits, pitched and 3-D
// copies), with ROCm's names and numbers, for whole programs.
#ifndef HIPKIT_CPU_MEMORY_TYPES_H
#define HIPKIT_CPU_MEMORY_TYPES_H

#include "host_types.h"
#include "runtime_memory.h"

#define hipCpuDeviceId ((int)-1)
#define hipInvalidDeviceId ((int)-2)
#define hipHostRegisterReadOnly 0x08

typedef void* hipDeviceptr_t;
typedef struct hkrt_mem_pool* hipMemPool_t;

typedef enum hipMemPoolAttr {
  hipMemPoolReuseFollowEventDependencies = HKRT_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES,
  hipMemPoolReuseAllowOpportunistic = HKRT_POOL_REUSE_ALLOW_OPPORTUNISTIC,
  hipMemPoolReuseAllowInternalDependencies = HKRT_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES,
  hipMemPoolAttrReleaseThreshold = HKRT_POOL_RELEASE_THRESHOLD,
  hipMemPoolAttrReservedMemCurrent = HKRT_POOL_RESERVED_MEM_CURRENT,
  hipMemPoolAttrReservedMemHigh = HKRT_POOL_RESERVED_MEM_HIGH,
  hipMemPoolAttrUsedMemCurrent = HKRT_POOL_USED_MEM_CURRENT,
  hipMemPoolAttrUsedMemHigh = HKRT_POOL_USED_MEM_HIGH
} hipMemPoolAttr;

typedef enum hipMemLocationType {
  hipMemLocationTypeInvalid = 0,
  hipMemLocationTypeDevice = 1
} hipMemLocationType;

typedef enum hipMemAllocationType {
  hipMemAllocationTypeInvalid = 0x0,
  hipMemAllocationTypePinned = 0x1,
  hipMemAllocationTypeMax = 0x7FFFFFFF
} hipMemAllocationType;

typedef enum hipMemAllocationHandleType {
  hipMemHandleTypeNone = 0x0,
  hipMemHandleTypePosixFileDescriptor = 0x1,
  hipMemHandleTypeWin32 = 0x2,
  hipMemHandleTypeWin32Kmt = 0x4
} hipMemAllocationHandleType;

typedef enum hipMemAccessFlags {
  hipMemAccessFlagsProtNone = 0,
  hipMemAccessFlagsProtRead = 1,
  hipMemAccessFlagsProtReadWrite = 3
} hipMemAccessFlags;

typedef struct hipMemLocation {
  hipMemLocationType type;
  int id;
} hipMemLocation;

typedef struct hipMemAccessDesc {
  hipMemLocation location;
  hipMemAccessFlags flags;
} hipMemAccessDesc;

typedef struct hipMemPoolProps {
  hipMemAllocationType allocType;
  hipMemAllocationHandleType handleTypes;
  hipMemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned char reserved[56];
} hipMemPoolProps;

typedef struct hipMemPoolPtrExportData {
  unsigned char reserved[64];
} hipMemPoolPtrExportData;

typedef enum hipMemRangeAttribute {
  hipMemRangeAttributeReadMostly = 1,
  hipMemRangeAttributePreferredLocation = 2,
  hipMemRangeAttributeAccessedBy = 3,
  hipMemRangeAttributeLastPrefetchLocation = 4,
  hipMemRangeAttributeCoherencyMode = 100
} hipMemRangeAttribute;

typedef enum hipMemoryAdvise {
  hipMemAdviseSetReadMostly = 1,
  hipMemAdviseUnsetReadMostly = 2,
  hipMemAdviseSetPreferredLocation = 3,
  hipMemAdviseUnsetPreferredLocation = 4,
  hipMemAdviseSetAccessedBy = 5,
  hipMemAdviseUnsetAccessedBy = 6,
  hipMemAdviseSetCoarseGrain = 100,
  hipMemAdviseUnsetCoarseGrain = 101
} hipMemoryAdvise;

typedef enum hipMemRangeCoherencyMode {
  hipMemRangeCoherencyModeFineGrain = 0,
  hipMemRangeCoherencyModeCoarseGrain = 1,
  hipMemRangeCoherencyModeIndeterminate = 2
} hipMemRangeCoherencyMode;

enum hipLimit_t {
  hipLimitStackSize = 0x0,
  hipLimitPrintfFifoSize = 0x01,
  hipLimitMallocHeapSize = 0x02,
  hipLimitRange
};

typedef enum hipPointer_attribute {
  HIP_POINTER_ATTRIBUTE_CONTEXT = 1,
  HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
  HIP_POINTER_ATTRIBUTE_DEVICE_POINTER,
  HIP_POINTER_ATTRIBUTE_HOST_POINTER,
  HIP_POINTER_ATTRIBUTE_P2P_TOKENS,
  HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS,
  HIP_POINTER_ATTRIBUTE_BUFFER_ID,
  HIP_POINTER_ATTRIBUTE_IS_MANAGED,
  HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
  HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE,
  HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR,
  HIP_POINTER_ATTRIBUTE_RANGE_SIZE,
  HIP_POINTER_ATTRIBUTE_MAPPED,
  HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
  HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE,
  HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS,
  HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE
} hipPointer_attribute;

// Pitched and 3-D copies (arrays are not part of these copies on the CPU:
// a hipMemcpy3DParms naming one is refused).
typedef struct hipArray* hipArray_t;

typedef struct hipPitchedPtr {
  void* ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
} hipPitchedPtr;

typedef struct hipExtent {
  size_t width;  // in bytes, for linear memory
  size_t height;
  size_t depth;
} hipExtent;

typedef struct hipPos {
  size_t x;  // in bytes, for linear memory
  size_t y;
  size_t z;
} hipPos;

typedef struct hipMemcpy3DParms {
  hipArray_t srcArray;
  struct hipPos srcPos;
  struct hipPitchedPtr srcPtr;
  hipArray_t dstArray;
  struct hipPos dstPos;
  struct hipPitchedPtr dstPtr;
  struct hipExtent extent;
  enum hipMemcpyKind kind;
} hipMemcpy3DParms;

#include "hipkit_program/memory_structs.h"  // hip_Memcpy2D, hipPointerAttribute_t

static inline hipPitchedPtr make_hipPitchedPtr(void* ptr, size_t pitch, size_t xsize,
                                               size_t ysize) {
  hipPitchedPtr p = {ptr, pitch, xsize, ysize};
  return p;
}
static inline hipPos make_hipPos(size_t x, size_t y, size_t z) {
  hipPos p = {x, y, z};
  return p;
}
static inline hipExtent make_hipExtent(size_t width, size_t height, size_t depth) {
  hipExtent e = {width, height, depth};
  return e;
}

#endif  // HIPKIT_CPU_MEMORY_TYPES_H
