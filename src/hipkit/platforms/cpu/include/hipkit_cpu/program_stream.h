// hipkit CPU platform: stream priorities, a stream's flags and device, and the
// stream memory operations of whole programs (part of program.h).
//
// Priorities are HIP's: lower numbers are greater, within
// hipDeviceGetStreamPriorityRange (0 least, -1 greatest); a value outside is
// clamped into it, as CUDA and HIP do.  A device's workers take the blocks of
// a greater-priority stream's ready kernels first; a kernel already running
// keeps its workers until their blocks end.
//
// hipStreamWaitValue32/64 hold back a stream's later work until a word of
// memory meets a condition; hipStreamWriteValue32/64 store a word in stream
// order.  The word may be in any memory (no hipMallocSignalMemory needed);
// the wait takes no worker thread, so the work that writes the word may run
// on the same device.
#ifndef HIPKIT_CPU_PROGRAM_STREAM_H
#define HIPKIT_CPU_PROGRAM_STREAM_H

#define hipStreamWaitValueGte 0x0
#define hipStreamWaitValueEq 0x1
#define hipStreamWaitValueAnd 0x2
#define hipStreamWaitValueNor 0x3

inline hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags,
                                              int priority) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_create_with_priority(__hk::current(), stream, flags, priority));
}
inline hipError_t hipDeviceGetStreamPriorityRange(int* least, int* greatest) {
  __HK_API_CALL();
  if (least != nullptr) *least = HKRT_STREAM_PRIORITY_LEAST;
  if (greatest != nullptr) *greatest = HKRT_STREAM_PRIORITY_GREATEST;
  return hipSuccess;
}

inline hipError_t hipStreamGetPriority(hipStream_t stream, int* priority) {
  __HK_API_CALL();
  if (priority == nullptr) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_stream_get_info(__hk::current(), stream, nullptr, priority));
}
inline hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int* flags) {
  __HK_API_CALL();
  if (flags == nullptr) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_stream_get_info(__hk::current(), stream, flags, nullptr));
}
// The program's number of the stream's device (NULL: the current device's null stream).
inline hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t* device) {
  __HK_API_CALL();
  if (device == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  int native = 0;
  if (int code = hkrt_stream_get_device(__hk::current(), stream, &native))
    return __hk::result(code);
  *device = __hk::ordinal_of(native);
  return hipSuccess;
}
// The same, or -1 for a stream that is none.
inline int hipGetStreamDeviceId(hipStream_t stream) {
  __HK_API_CALL();
  hipDevice_t device = -1;
  return hipStreamGetDevice(stream, &device) == hipSuccess ? device : -1;
}

inline hipError_t hipStreamWaitValue32(hipStream_t stream, void* ptr, uint32_t value,
                                       unsigned int flags, uint32_t mask = 0xFFFFFFFF) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_wait_value(__hk::current(), stream, ptr, value, mask, flags, 4));
}
inline hipError_t hipStreamWaitValue64(hipStream_t stream, void* ptr, uint64_t value,
                                       unsigned int flags,
                                       uint64_t mask = 0xFFFFFFFFFFFFFFFFull) {
  __HK_API_CALL();
  return __hk::result(hkrt_stream_wait_value(__hk::current(), stream, ptr, value, mask, flags, 8));
}
// flags: 0 (HIP defines no other).
inline hipError_t hipStreamWriteValue32(hipStream_t stream, void* ptr, uint32_t value,
                                        unsigned int flags) {
  __HK_API_CALL();
  if (flags != 0) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_stream_write_value(__hk::current(), stream, ptr, value, 4));
}
inline hipError_t hipStreamWriteValue64(hipStream_t stream, void* ptr, uint64_t value,
                                        unsigned int flags) {
  __HK_API_CALL();
  if (flags != 0) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_stream_write_value(__hk::current(), stream, ptr, value, 8));
}

#endif  // HIPKIT_CPU_PROGRAM_STREAM_H
