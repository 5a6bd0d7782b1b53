// hipkit CPU platform: device memory and events shared between processes in whole programs
// (part of program.h): hipIpcGetMemHandle, hipIpcOpenMemHandle,
// hipIpcCloseMemHandle, hipIpcGetEventHandle, hipIpcOpenEventHandle, over shared
// memory (runtime/ipc.cpp says how).
//
// The exporting process keeps its allocation; the other process maps the same
// pages, so each sees the other's writes once the writing work is done
// (synchronize, or order the processes by other means).  As in HIP, the handle
// is of the allocation that the pointer lies in, and open returns the
// pointer's place in the mapping; opening a handle twice maps it twice, each
// mapping closed by its own hipIpcCloseMemHandle.  The first export of an
// allocation moves its pages to shared memory, so it first waits for the work
// queued on every device (export before queueing work that waits for the
// other process).
//
// An event made with hipEventInterprocess | hipEventDisableTiming has a handle
// too; hipEventRecord, hipEventQuery, hipEventSynchronize and
// hipStreamWaitEvent in any process that has it see the records of all of
// them.  The opened event is of the current device, and hipEventDestroy ends it.
#ifndef HIPKIT_CPU_PROGRAM_IPC_H
#define HIPKIT_CPU_PROGRAM_IPC_H

#define HIP_IPC_HANDLE_SIZE HKRT_IPC_HANDLE_SIZE
#define hipIpcMemLazyEnablePeerAccess HKRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS

typedef struct hipIpcMemHandle_st {
  char reserved[HIP_IPC_HANDLE_SIZE];
} hipIpcMemHandle_t;

typedef struct hipIpcEventHandle_st {
  char reserved[HIP_IPC_HANDLE_SIZE];
} hipIpcEventHandle_t;

inline hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t* handle, void* dev_ptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_ipc_get_mem_handle(handle, dev_ptr));
}
// flags: 0 or hipIpcMemLazyEnablePeerAccess (CPU devices are peers already).
inline hipError_t hipIpcOpenMemHandle(void** dev_ptr, hipIpcMemHandle_t handle, unsigned int flags) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  return __hk::result(hkrt_ipc_open_mem_handle(__hk::current(), dev_ptr, &handle, flags));
}
inline hipError_t hipIpcCloseMemHandle(void* dev_ptr) {
  __HK_API_CALL();
  return __hk::result(hkrt_ipc_close_mem_handle(dev_ptr));
}

// hipErrorInvalidConfiguration for an event made without hipEventInterprocess.
inline hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t* handle, hipEvent_t event) {
  __HK_API_CALL();
  return __hk::result(hkrt_ipc_get_event_handle(handle, event));
}
inline hipError_t hipIpcOpenEventHandle(hipEvent_t* event, hipIpcEventHandle_t handle) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  return __hk::result(hkrt_ipc_open_event_handle(__hk::current(), event, &handle));
}

#endif  // HIPKIT_CPU_PROGRAM_IPC_H
