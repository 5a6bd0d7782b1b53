// hipkit: the types of HIP's virtual memory management that the CPU and NVIDIA
// platforms' program headers share, with HIP's shapes: the allocation handle is a
// pointer, and hipMemAllocationProp has HIP's field names.  Before including this, the
// platform defines hipMemAllocationType, hipMemAllocationHandleType and hipMemLocation.
#pragma once

typedef struct ihipMemGenericAllocationHandle* hipMemGenericAllocationHandle_t;
typedef struct hipMemAllocationProp {
  hipMemAllocationType type;
  hipMemAllocationHandleType requestedHandleType;
  hipMemLocation location;
  void* win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
  } allocFlags;
} hipMemAllocationProp;
