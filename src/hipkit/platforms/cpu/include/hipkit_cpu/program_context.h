// hipkit CPU platform: contexts in whole programs (part of program.h): the
// primary-context calls and the hipCtx* family HIP still exports.
//
// As in HIP on AMD, a device's context is the device itself: hipCtxCreate and
// hipDevicePrimaryCtxRetain give the same handle for one device, distinct
// handles for distinct devices.  Each thread has a stack of contexts; the one
// on top is current, and its device is the thread's current device
// (hipGetDevice, and where work goes).  hipSetDevice replaces the top of a
// non-empty stack with that device's context; with the stack empty,
// hipCtxGetCurrent answers the current device's context.  A device's flags
// (hipSetDeviceFlags, hipDevicePrimaryCtxSetFlags, hipCtxCreate) are kept and
// read back; the CPU's scheduling does not depend on them.  A primary context
// is active while retained more often than released; hipDevicePrimaryCtxReset
// resets the device, as hipDeviceReset.
#ifndef HIPKIT_CPU_PROGRAM_CONTEXT_H
#define HIPKIT_CPU_PROGRAM_CONTEXT_H

#include <atomic>
#include <vector>

#define hipDeviceScheduleMask 0x7

struct ihipCtx_t {
  int native;  // the runtime's index of its device
};
typedef ihipCtx_t* hipCtx_t;

namespace __hk {

struct device_context {
  ihipCtx_t context;
  std::atomic<int> retained{0};
  std::atomic<unsigned> flags{hipDeviceScheduleAuto};
};

inline device_context* device_contexts() {
  static device_context* all = [] {
    auto* made = new device_context[64];
    for (int i = 0; i < 64; ++i) made[i].context.native = i;
    return made;
  }();
  return all;
}

inline std::vector<hipCtx_t>& context_stack() {
  static thread_local std::vector<hipCtx_t> stack;
  return stack;
}

// The context of the program's device `ordinal` (checked first).
inline hipCtx_t context_of(int ordinal) { return &device_contexts()[native(ordinal)].context; }

// The program's number of the device of `ctx`, or -1 if it is no visible device's context.
inline int context_device(hipCtx_t ctx) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(device_contexts());
  const uintptr_t at = reinterpret_cast<uintptr_t>(ctx);
  if (ctx == nullptr || at < base || at >= base + 64 * sizeof(device_context) ||
      (at - base) % sizeof(device_context) != 0)
    return -1;
  return ordinal_of(ctx->native);
}

inline std::atomic<unsigned>& device_flags(int native) { return device_contexts()[native].flags; }

// hipSetDevice's part: the top of the stack becomes the device's context.
inline void bind_primary(int ordinal) {
  if (!context_stack().empty()) context_stack().back() = context_of(ordinal);
}

inline hipError_t check_flags(unsigned flags) {
  return (flags & ~unsigned(hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax)) != 0
             ? result(hipErrorInvalidValue)
             : hipSuccess;
}

}  // namespace __hk

inline hipError_t hipDevicePrimaryCtxRetain(hipCtx_t* ctx, hipDevice_t device) {
  __HK_API_CALL();
  if (ctx == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(device)) return code;
  __hk::device_contexts()[__hk::native(device)].retained.fetch_add(1);
  *ctx = __hk::context_of(device);
  return hipSuccess;
}
inline hipError_t hipDevicePrimaryCtxRelease(hipDevice_t device) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(device)) return code;
  std::atomic<int>& retained = __hk::device_contexts()[__hk::native(device)].retained;
  for (int n = retained.load(); n > 0;)
    if (retained.compare_exchange_weak(n, n - 1)) return hipSuccess;
  return __hk::result(hipErrorInvalidContext);  // released more often than retained
}
inline hipError_t hipDevicePrimaryCtxGetState(hipDevice_t device, unsigned int* flags,
                                              int* active) {
  __HK_API_CALL();
  if (flags == nullptr || active == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(device)) return code;
  const __hk::device_context& c = __hk::device_contexts()[__hk::native(device)];
  *flags = c.flags.load();
  *active = c.retained.load() > 0 ? 1 : 0;
  return hipSuccess;
}
inline hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t device, unsigned int flags) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(device)) return code;
  if (hipError_t code = __hk::check_flags(flags)) return code;
  __hk::device_context& c = __hk::device_contexts()[__hk::native(device)];
  if (c.retained.load() > 0) return __hk::result(hipErrorContextAlreadyInUse);
  c.flags.store(flags);
  return hipSuccess;
}
// Resets the device (its memory, streams, events and modules go) and ends its retains.
inline hipError_t hipDevicePrimaryCtxReset(hipDevice_t device) {
  __HK_API_CALL();
  if (hipError_t code = __hk::check_device(device)) return code;
  __hk::device_context& c = __hk::device_contexts()[__hk::native(device)];
  c.retained.store(0);
  c.flags.store(hipDeviceScheduleAuto);
  return __hk::result(hkrt_device_reset(__hk::native(device)));
}

inline hipError_t hipCtxCreate(hipCtx_t* ctx, unsigned int flags, hipDevice_t device) {
  __HK_API_CALL();
  if (ctx == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(device)) return code;
  if (hipError_t code = __hk::check_flags(flags)) return code;
  __hk::device_flags(__hk::native(device)).store(flags);
  *ctx = __hk::context_of(device);
  __hk::context_stack().push_back(*ctx);
  __hk::current_device = device;
  return hipSuccess;
}
// Takes the context off the top of this thread's stack if it is there; the
// device keeps its work and memory.
inline hipError_t hipCtxDestroy(hipCtx_t ctx) {
  __HK_API_CALL();
  if (ctx == nullptr) return __hk::result(hipErrorInvalidValue);
  if (__hk::context_device(ctx) < 0) return __hk::result(hipErrorInvalidContext);
  std::vector<hipCtx_t>& stack = __hk::context_stack();
  if (!stack.empty() && stack.back() == ctx) {
    stack.pop_back();
    if (!stack.empty()) __hk::current_device = __hk::context_device(stack.back());
  }
  return hipSuccess;
}
inline hipError_t hipCtxPushCurrent(hipCtx_t ctx) {
  __HK_API_CALL();
  const int device = __hk::context_device(ctx);
  if (device < 0) return __hk::result(hipErrorInvalidContext);
  __hk::context_stack().push_back(ctx);
  __hk::current_device = device;
  return hipSuccess;
}
inline hipError_t hipCtxPopCurrent(hipCtx_t* ctx) {
  __HK_API_CALL();
  std::vector<hipCtx_t>& stack = __hk::context_stack();
  if (stack.empty()) return __hk::result(hipErrorInvalidContext);
  if (ctx != nullptr) *ctx = stack.back();
  stack.pop_back();
  if (!stack.empty()) __hk::current_device = __hk::context_device(stack.back());
  return hipSuccess;
}
// NULL takes the top context off the stack.
inline hipError_t hipCtxSetCurrent(hipCtx_t ctx) {
  __HK_API_CALL();
  std::vector<hipCtx_t>& stack = __hk::context_stack();
  if (ctx == nullptr) {
    if (!stack.empty()) stack.pop_back();
    if (!stack.empty()) __hk::current_device = __hk::context_device(stack.back());
    return hipSuccess;
  }
  const int device = __hk::context_device(ctx);
  if (device < 0) return __hk::result(hipErrorInvalidContext);
  if (stack.empty())
    stack.push_back(ctx);
  else
    stack.back() = ctx;
  __hk::current_device = device;
  return hipSuccess;
}
inline hipError_t hipCtxGetCurrent(hipCtx_t* ctx) {
  __HK_API_CALL();
  if (ctx == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  const std::vector<hipCtx_t>& stack = __hk::context_stack();
  *ctx = stack.empty() ? __hk::context_of(__hk::current_device) : stack.back();
  return hipSuccess;
}
inline hipError_t hipCtxGetDevice(hipDevice_t* device) {
  __HK_API_CALL();
  if (device == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  *device = __hk::current_device;
  return hipSuccess;
}
// HIP's answer: 4.
inline hipError_t hipCtxGetApiVersion(hipCtx_t ctx, int* version) {
  __HK_API_CALL();
  if (version == nullptr) return __hk::result(hipErrorInvalidValue);
  if (ctx != nullptr && __hk::context_device(ctx) < 0) return __hk::result(hipErrorInvalidContext);
  *version = 4;
  return hipSuccess;
}
inline hipError_t hipCtxGetFlags(unsigned int* flags) {
  __HK_API_CALL();
  if (flags == nullptr) return __hk::result(hipErrorInvalidValue);
  if (hipError_t code = __hk::check_device(__hk::current_device)) return code;
  *flags = __hk::device_flags(__hk::current()).load();
  return hipSuccess;
}
inline hipError_t hipCtxSynchronize(void) {
  __HK_API_CALL();
  return hipDeviceSynchronize();
}
inline hipError_t hipCtxGetCacheConfig(hipFuncCache_t* config) {
  __HK_API_CALL();
  return hipDeviceGetCacheConfig(config);
}
inline hipError_t hipCtxSetCacheConfig(hipFuncCache_t config) {
  __HK_API_CALL();
  return hipDeviceSetCacheConfig(config);
}
inline hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig* config) {
  __HK_API_CALL();
  return hipDeviceGetSharedMemConfig(config);
}
inline hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig config) {
  __HK_API_CALL();
  return hipDeviceSetSharedMemConfig(config);
}
inline hipError_t hipCtxEnablePeerAccess(hipCtx_t peer, unsigned int flags) {
  __HK_API_CALL();
  const int device = __hk::context_device(peer);
  if (device < 0) return __hk::result(hipErrorInvalidContext);
  return hipDeviceEnablePeerAccess(device, flags);
}
inline hipError_t hipCtxDisablePeerAccess(hipCtx_t peer) {
  __HK_API_CALL();
  const int device = __hk::context_device(peer);
  if (device < 0) return __hk::result(hipErrorInvalidContext);
  return hipDeviceDisablePeerAccess(device);
}

#endif  // HIPKIT_CPU_PROGRAM_CONTEXT_H
