// Events: records on streams, waits for them from the host, their timing, and
// interprocess events (ipc.cpp); their ordering on streams is stream.cpp's.
#include "graph.h"
#include "internal.h"
#include "stream_types.h"

using namespace hk;

extern "C" {

int hkrt_event_create(int index, hkrt_event** out, unsigned int flags) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "event create: NULL output");
  constexpr unsigned kKnown = HKRT_EVENT_BLOCKING_SYNC | HKRT_EVENT_DISABLE_TIMING |
                              HKRT_EVENT_INTERPROCESS | HKRT_EVENT_FENCE_SCOPES;
  if ((flags & ~kKnown) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "unsupported event flags 0x%x", flags);
  if ((flags & HKRT_EVENT_RELEASE_TO_DEVICE) && (flags & HKRT_EVENT_RELEASE_TO_SYSTEM))
    return fail(HKRT_ERROR_INVALID_VALUE, "an event releases to the device or to the system, not both");
  if (int error = sticky_check(device)) return error;
  auto* event = new Event;
  event->device = device;
  event->flags = flags;
  if (int error = (flags & HKRT_EVENT_INTERPROCESS) ? ipc_event_create(flags, &event->ipc) : 0) {
    delete event;
    return error;
  }
  std::lock_guard<Mutex> lock(scheduler_mutex);
  events.insert(event);
  device->events.insert(event);
  *out = event;
  return HKRT_SUCCESS;
}

int hkrt_event_destroy(hkrt_event* event) {
  if (int error = ensure_init()) return error;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = event_check_locked(event)) return error;
    Event* e = as_event(event);
    events.erase(e);
    e->device->events.erase(e);
    if (e->op != nullptr) op_unref(e->op);
    ipc_event_destroy(e->ipc);
  }
  delete as_event(event);
  return HKRT_SUCCESS;
}

int hkrt_event_record(int index, hkrt_event* event, hkrt_stream* handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  Stream* s = nullptr;
  IpcEvent* ipc = nullptr;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = stream_get_locked(device, handle, &s)) return error;
    if (int error = event_check_locked(event)) return error;
    ipc = as_event(event)->ipc;
    if (as_event(event)->device != s->device)
      return fail(HKRT_ERROR_INVALID_HANDLE,
                  "the event was made on CPU device %d, the stream is on device %d",
                  as_event(event)->device->index, s->device->index);
  }
  if (int error = sticky_check(s->device)) return error;
  bool captured = false;
  if (int error = capture_record(s, as_event(event)->capture, &captured)) return error;
  if (captured) return HKRT_SUCCESS;
  Op* op = new Op;
  op->kind = OpKind::Record;
  op_ref(op);  // the event's reference
  enqueue(s, op, nullptr, false);
  if (ipc != nullptr) ipc_event_record(ipc, s);
  std::lock_guard<Mutex> lock(scheduler_mutex);
  Event* e = as_event(event);
  if (events.count(e) == 0) {  // destroyed meanwhile by another thread
    op_unref(op);
    return HKRT_SUCCESS;
  }
  if (e->op != nullptr) op_unref(e->op);
  e->op = op;
  e->clock = s->clock;
  clock_merge(e->clock, {s->id, s->count});
  return HKRT_SUCCESS;
}

int hkrt_event_synchronize(hkrt_event* event) {
  if (int error = ensure_init()) return error;
  Op* op = nullptr;
  Device* device = nullptr;
  IpcEvent* ipc = nullptr;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = event_check_locked(event)) return error;
    if (int error = capture_event_check(as_event(event)->capture)) return error;
    device = as_event(event)->device;
    op = as_event(event)->op;
    if (op != nullptr) op_ref(op);
    ipc = as_event(event)->ipc;
  }
  if (op != nullptr) wait_and_unref(op);
  pools_trim_on_sync();
  if (ipc != nullptr) ipc_event_wait(ipc);
  return sticky_check(device);
}

int hkrt_event_query(hkrt_event* event) {
  if (int error = ensure_init()) return error;
  std::lock_guard<Mutex> lock(scheduler_mutex);
  if (int error = event_check_locked(event)) return error;
  if (int error = capture_event_check(as_event(event)->capture)) return error;
  if (int error = sticky_check(as_event(event)->device)) return error;
  if (as_event(event)->ipc != nullptr) return ipc_event_query(as_event(event)->ipc);
  const Op* op = as_event(event)->op;
  if (op != nullptr && !op->done.load(std::memory_order_acquire))
    return fail(HKRT_ERROR_NOT_READY, "the event has not completed yet");
  return HKRT_SUCCESS;
}

int hkrt_event_elapsed_time(float* ms, hkrt_event* start_handle, hkrt_event* stop_handle) {
  if (int error = ensure_init()) return error;
  if (ms == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "elapsed time: NULL output");
  std::lock_guard<Mutex> lock(scheduler_mutex);
  if (int error = event_check_locked(start_handle)) return error;
  if (int error = event_check_locked(stop_handle)) return error;
  const Event* start = as_event(start_handle);
  const Event* stop = as_event(stop_handle);
  if (start->device != stop->device)
    return fail(HKRT_ERROR_INVALID_HANDLE, "elapsed time between events of CPU devices %d and %d",
                start->device->index, stop->device->index);
  if (int error = sticky_check(start->device)) return error;
  if (((start->flags | stop->flags) & HKRT_EVENT_DISABLE_TIMING) != 0)
    return fail(HKRT_ERROR_INVALID_HANDLE, "elapsed time of an event created with timing disabled");
  if (start->op == nullptr || stop->op == nullptr)
    return fail(HKRT_ERROR_INVALID_HANDLE, "elapsed time of an event that was never recorded");
  if (!start->op->done.load(std::memory_order_acquire) ||
      !stop->op->done.load(std::memory_order_acquire))
    return fail(HKRT_ERROR_NOT_READY, "elapsed time of an event that has not completed yet");
  *ms = float(double(stop->op->timestamp_ns - start->op->timestamp_ns) / 1e6);
  return HKRT_SUCCESS;
}

}  // extern "C"
