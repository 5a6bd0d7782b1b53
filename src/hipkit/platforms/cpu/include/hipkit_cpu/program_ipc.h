// hipkit CPU platform: device memory shared between processes in whole programs
// (part of program.h): hipIpcGetMemHandle, hipIpcOpenMemHandle,
// hipIpcCloseMemHandle, over shared memory (runtime/ipc.cpp says how).
//
// The exporting process keeps its allocation; the other process maps the same
// pages, so each sees the other's writes once the writing work is done
// (synchronize, or order the processes by other means).  As in HIP, the handle
// is of the allocation that the pointer lies in, and open returns the
// pointer's place in the mapping; opening a handle twice maps it twice, each
// mapping closed by its own hipIpcCloseMemHandle.
#ifndef HIPKIT_CPU_PROGRAM_IPC_H
#define HIPKIT_CPU_PROGRAM_IPC_H

#define HIP_IPC_HANDLE_SIZE HKRT_IPC_HANDLE_SIZE
#define hipIpcMemLazyEnablePeerAccess HKRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS

typedef struct hipIpcMemHandle_st {
  char reserved[HIP_IPC_HANDLE_SIZE];
} hipIpcMemHandle_t;

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

#endif  // HIPKIT_CPU_PROGRAM_IPC_H
