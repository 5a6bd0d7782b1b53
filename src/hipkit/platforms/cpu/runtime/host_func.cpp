// Host functions on streams (hkrt_launch_host_func): hipLaunchHostFunc,
// hipStreamAddCallback, and the work of libraries built on the runtime.
//
// A host function is a job of one unit, so a worker thread runs it, never
// the enqueuing thread: the call returns at once, like a launch, and the
// function may wait for that thread.  A small one (HKRT_HOST_FUNC_SMALL) is
// run as a small copy is (run_small), inline where its stream is idle.  Being an op, it is ordered with the
// kernels, copies, events and waits of its stream by enqueue() (stream.cpp),
// and a fault in it is caught as a kernel's (run_job in executor.cpp).
#include "graph.h"

using namespace hk;

extern "C" {

int hkrt_launch_host_func(int index, hkrt_stream* handle, void (*fn)(void*), void* data,
                          const char* name, unsigned int flags) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (fn == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "host function: NULL function");
  if ((flags & ~(HKRT_HOST_FUNC_ALWAYS | HKRT_HOST_FUNC_SMALL)) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "unknown host function flags 0x%x", flags);
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  if (int error = sticky_check(stream_device(stream))) return error;
  // A callback told the sticky error runs once: it cannot be replayed.
  const bool once = (flags & HKRT_HOST_FUNC_ALWAYS) != 0;
  if (int error = capture_admit(stream, once ? kCaptureRefuse : kCaptureEnqueue)) return error;
  auto* op = new Op;
  op->kind = OpKind::HostFunc;
  op->is_job = (flags & HKRT_HOST_FUNC_SMALL) == 0;
  op->total = 1;
  op->host_fn = fn;
  op->host_data = data;
  op->host_always = (flags & HKRT_HOST_FUNC_ALWAYS) != 0;
  // The name outlives the caller's string only where a record will need it.
  if (name != nullptr && activity_session.load(std::memory_order_relaxed) != 0) {
    op->kernel.name = activity_intern(name);
    op->kernel.grid = op->kernel.block = {1, 1, 1};
  }
  // Never waited for here, not even under HIP_LAUNCH_BLOCKING: the function
  // may be waiting for this thread.
  enqueue(stream, op, nullptr, false);
  return HKRT_SUCCESS;
}

}  // extern "C"
