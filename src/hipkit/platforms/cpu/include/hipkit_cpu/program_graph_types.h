// hipkit CPU platform: HIP's types of 3-D memcpy nodes, memory nodes, user
// objects, kernel node attributes and the generic node calls (part of
// program_graph.h; the values are HIP's).
#ifndef HIPKIT_CPU_PROGRAM_GRAPH_TYPES_H
#define HIPKIT_CPU_PROGRAM_GRAPH_TYPES_H

typedef hkrt_user_object* hipUserObject_t;

typedef enum hipUserObjectFlags { hipUserObjectNoDestructorSync = 0x1 } hipUserObjectFlags;
typedef enum hipUserObjectRetainFlags { hipGraphUserObjectMove = 0x1 } hipUserObjectRetainFlags;

typedef enum hipGraphMemAttributeType {
  hipGraphMemAttrUsedMemCurrent = 0,
  hipGraphMemAttrUsedMemHigh,
  hipGraphMemAttrReservedMemCurrent,
  hipGraphMemAttrReservedMemHigh
} hipGraphMemAttributeType;

typedef struct hipMemAllocNodeParams {
  hipMemPoolProps poolProps;
  const hipMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
} hipMemAllocNodeParams;

typedef enum hipAccessProperty {
  hipAccessPropertyNormal = 0,
  hipAccessPropertyStreaming = 1,
  hipAccessPropertyPersisting = 2
} hipAccessProperty;

typedef struct hipAccessPolicyWindow {
  void* base_ptr;
  hipAccessProperty hitProp;
  float hitRatio;
  hipAccessProperty missProp;
  size_t num_bytes;
} hipAccessPolicyWindow;

typedef enum hipLaunchAttributeID {
  hipLaunchAttributeAccessPolicyWindow = 1,
  hipLaunchAttributeCooperative = 2,
  hipLaunchAttributePriority = 8
} hipLaunchAttributeID;

typedef union hipLaunchAttributeValue {
  hipAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  int priority;
} hipLaunchAttributeValue;

#define hipKernelNodeAttrID hipLaunchAttributeID
#define hipKernelNodeAttributeAccessPolicyWindow hipLaunchAttributeAccessPolicyWindow
#define hipKernelNodeAttributeCooperative hipLaunchAttributeCooperative
#define hipKernelNodeAttributePriority hipLaunchAttributePriority
#define hipKernelNodeAttrValue hipLaunchAttributeValue

typedef enum hipGraphInstantiateResult {
  hipGraphInstantiateSuccess = 0,
  hipGraphInstantiateError = 1,
  hipGraphInstantiateInvalidStructure = 2,
  hipGraphInstantiateNodeOperationNotSupported = 3,
  hipGraphInstantiateMultipleDevicesNotSupported = 4
} hipGraphInstantiateResult;

typedef struct hipGraphInstantiateParams {
  hipGraphNode_t errNode_out;
  unsigned long long flags;
  hipGraphInstantiateResult result_out;
  hipStream_t uploadStream;
} hipGraphInstantiateParams;

typedef struct hipMemcpyNodeParams {
  int flags;
  int reserved[3];
  hipMemcpy3DParms copyParams;
} hipMemcpyNodeParams;

typedef struct hipChildGraphNodeParams { hipGraph_t graph; } hipChildGraphNodeParams;
typedef struct hipEventWaitNodeParams { hipEvent_t event; } hipEventWaitNodeParams;
typedef struct hipEventRecordNodeParams { hipEvent_t event; } hipEventRecordNodeParams;
typedef struct hipMemFreeNodeParams { void* dptr; } hipMemFreeNodeParams;

// The external-semaphore members of HIP's union are left out (no interop on
// the CPU); reserved1 keeps its size.
typedef struct hipGraphNodeParams {
  hipGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    hipKernelNodeParams kernel;
    hipMemcpyNodeParams memcpy;
    hipMemsetParams memset;
    hipHostNodeParams host;
    hipChildGraphNodeParams graph;
    hipEventWaitNodeParams eventWait;
    hipEventRecordNodeParams eventRecord;
    hipMemAllocNodeParams alloc;
    hipMemFreeNodeParams free;
  };
  long long reserved2;
} hipGraphNodeParams;

typedef enum hipStreamUpdateCaptureDependenciesFlags {
  hipStreamAddCaptureDependencies = 0,
  hipStreamSetCaptureDependencies
} hipStreamUpdateCaptureDependenciesFlags;

#define hipGraphKernelNodePortDefault 0
#define hipGraphKernelNodePortProgrammatic 1
#define hipGraphKernelNodePortLaunchCompletion 2

typedef enum hipGraphDependencyType {
  hipGraphDependencyTypeDefault = 0,
  hipGraphDependencyTypeProgrammatic = 1
} hipGraphDependencyType;

typedef struct hipGraphEdgeData {
  unsigned char from_port;
  unsigned char reserved[5];
  unsigned char to_port;
  unsigned char type;
} hipGraphEdgeData;

#endif  // HIPKIT_CPU_PROGRAM_GRAPH_TYPES_H
