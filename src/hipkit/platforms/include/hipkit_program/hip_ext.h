// hipkit: HIP's extensions (hipExt*, hipMemcpyWithStream), written on HIP's own API for
// the CPU and NVIDIA platforms' program headers, after their hipMalloc, hipHostMalloc,
// hipMemcpyAsync, hipLaunchKernel and events (ROCm has them for AMD), and after the
// platform's __HK_RESULT(code): a failed call's code, recorded as the thread's last
// error where the platform keeps it.  The calls they make are what a trace shows.
#pragma once

// hipExtMallocWithFlags' kinds of device memory: all coherent on these platforms.
#define hipDeviceMallocDefault 0x0
#define hipDeviceMallocFinegrained 0x1
#define hipMallocSignalMemory 0x2
#define hipDeviceMallocUncached 0x3
// hipExtLaunchKernel's flag: the kernel may run in any order with the stream's others.
#define hipExtAnyOrderLaunch 0x01

inline hipError_t hipExtGetLastError(void) { return hipGetLastError(); }

inline hipError_t hipExtMallocWithFlags(void** ptr, size_t sizeBytes, unsigned int flags) {
  if (flags > hipDeviceMallocUncached) return __HK_RESULT(hipErrorInvalidValue);
  return hipMalloc(ptr, sizeBytes);
}

inline hipError_t hipExtHostAlloc(void** ptr, size_t size, unsigned int flags) {
  return hipHostMalloc(ptr, size, flags);
}

// A copy in the stream's order that returns once it is done.
inline hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                                      hipStream_t stream) {
  if (hipError_t error = hipMemcpyAsync(dst, src, sizeBytes, kind, stream)) return error;
  return hipStreamSynchronize(stream);
}

// A launch between two events of the stream (each may be null).  In-order streams run
// it in order, which hipExtAnyOrderLaunch allows too.
inline hipError_t hipExtLaunchKernel(const void* function_address, dim3 numBlocks, dim3 dimBlocks, void** args,
                                     size_t sharedMemBytes, hipStream_t stream, hipEvent_t startEvent,
                                     hipEvent_t stopEvent, int flags) {
  if (flags != 0 && flags != hipExtAnyOrderLaunch) return __HK_RESULT(hipErrorInvalidValue);
  if (startEvent != nullptr) {
    if (hipError_t error = hipEventRecord(startEvent, stream)) return error;
  }
  if (hipError_t error = hipLaunchKernel(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream))
    return error;
  return stopEvent != nullptr ? hipEventRecord(stopEvent, stream) : hipSuccess;
}
