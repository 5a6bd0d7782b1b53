// The state of streams and events, shared by stream.cpp (their ordering)
// and stream_order.cpp (what pool reuse asks of that order).
#ifndef HIPKIT_CPU_RUNTIME_STREAM_TYPES_H
#define HIPKIT_CPU_RUNTIME_STREAM_TYPES_H

#include <unordered_set>

#include "graph.h"
#include "internal.h"

// The handles are empty at global scope: their state is internal.
struct hkrt_stream {};
struct hkrt_event {};

namespace hk {

// For each other stream (by id), how many of its ops an op enqueued now is
// ordered after through events (pool reuse: stream_ordered_after).
using OrderClock = std::vector<StreamPoint>;

struct Stream : hkrt_stream {
  Device* device = nullptr;
  unsigned flags = 0;
  int priority = 0;    // lower is greater, as CUDA's; its jobs are taken first
  Op* last = nullptr;  // the most recently enqueued op (one reference)
  uint64_t id = 0;     // never reused
  uint64_t count = 0;  // ops enqueued
  OrderClock clock;
  CapturePoint capture;  // graph_capture.cpp's
};

struct Event : hkrt_event {
  Device* device = nullptr;
  unsigned flags = 0;
  Op* op = nullptr;  // the Record op of the latest hkrt_event_record, or null
  IpcEvent* ipc = nullptr;  // an interprocess event's shared state (ipc.cpp)
  OrderClock clock;  // its stream's, and its point, when recorded
  CapturePoint capture;  // where it was recorded into a capture (graph_capture.cpp)
};

// A new stream's id (never reused).
uint64_t next_stream_id();
// Adds `point` to `into` (the later of the two where both know its stream).
void clock_merge(OrderClock& into, const StreamPoint& point);
// Whether ops of `stream` and of its device's null stream order each other.
bool is_blocking(const Stream* stream);

// What stream.cpp shares with event.cpp: the lock of every stream's and event's
// state, the live events, and the handles' checks under that lock.
extern Mutex scheduler_mutex;
extern std::unordered_set<Event*> events;
inline Event* as_event(hkrt_event* handle) { return static_cast<Event*>(handle); }
int event_check_locked(hkrt_event* event);
int stream_get_locked(Device* device, hkrt_stream* handle, Stream** out);

}  // namespace hk

#endif  // HIPKIT_CPU_RUNTIME_STREAM_TYPES_H
