// Streams and events: the ordering of operations.
//
// Each op depends on the previous op of its stream.  Each device's NULL
// stream is its legacy default stream: its ops also depend on the last op of
// every blocking stream of the device, and ops of blocking streams depend on
// the last NULL-stream op of their device (streams created with
// HKRT_STREAM_NON_BLOCKING are exempt); the devices' null streams are
// independent of each other, as on a multi-GPU machine.  An event is the last
// op recorded into it; waiting on an event, of any device, adds a dependency
// on that op.  Dependencies form a graph resolved as ops complete, so a
// stream never polls another.
#include <algorithm>
#include <unordered_set>
#include <utility>
#include <vector>

#include "internal.h"
#include "stream_types.h"
#include "graph.h"


namespace hk {

Mutex scheduler_mutex;
std::unordered_set<Event*> events;

namespace {

// Every device's streams (not their null streams), for checking handles; each
// device also lists its own.
std::unordered_set<Stream*> streams;

// Bumped whenever an op completes; host threads sleep on it.
std::atomic<uint32_t> epoch{0};
std::atomic<uint32_t> sleeping_hosts{0};

// How long a host thread spins before sleeping: short kernels return
// without a futex round trip.
constexpr int64_t kHostSpinNs = 50000;


bool is_null(const Stream* stream) { return stream == stream->device->null_stream; }

// The ops that a wait on `stream` must wait for (references taken), under
// the lock.  Waiting for a NULL stream includes every blocking stream of its
// device.
void collect_tails(Stream* stream, std::vector<Op*>& out) {
  auto take = [&](Stream* s) {
    if (s->last != nullptr && !s->last->done.load(std::memory_order_relaxed)) {
      op_ref(s->last);
      out.push_back(s->last);
    }
  };
  take(stream);
  if (!is_null(stream)) return;
  for (Stream* s : stream->device->streams)
    if (is_blocking(s)) take(s);
}

void wait_all_and_unref(const std::vector<Op*>& ops) {
  for (Op* op : ops) wait_and_unref(op);
}

Stream* as_stream(hkrt_stream* handle) { return static_cast<Stream*>(handle); }

// The handle the API knows a stream by (NULL for a null stream).
hkrt_stream* handle_of(Stream* stream) { return is_null(stream) ? nullptr : stream; }

}  // namespace

namespace {

// The calling thread's per-thread default stream of each device (hipStreamPerThread):
// a blocking stream made at its first use, destroyed when the thread ends.  A
// device's reset destroys it with the device's other streams: the id tells a
// stream made since at the same address from it.
struct PerThreadStreams {
  std::vector<std::pair<Stream*, uint64_t>> of;  // by device index
  ~PerThreadStreams() {
    for (const auto& [stream, id] : of) {
      bool alive = false;
      {
        std::lock_guard<Mutex> lock(scheduler_mutex);
        alive = stream != nullptr && streams.count(stream) != 0 && stream->id == id;
      }
      if (alive) hkrt_stream_destroy(stream);
    }
  }
};
thread_local PerThreadStreams per_thread;

Stream* per_thread_stream_locked(Device* device) {
  if (per_thread.of.size() <= size_t(device->index)) per_thread.of.resize(size_t(device->index) + 1);
  auto& [stream, id] = per_thread.of[size_t(device->index)];
  if (stream != nullptr && streams.count(stream) != 0 && stream->id == id) return stream;
  stream = new Stream;
  stream->device = device;
  stream->id = id = next_stream_id();
  streams.insert(stream);
  device->streams.insert(stream);
  return stream;
}

}  // namespace

// A stream's handle under the lock: stream_get's check.
int stream_get_locked(Device* device, hkrt_stream* handle, Stream** out) {
  if (handle == nullptr || handle == HKRT_STREAM_LEGACY) {
    if (device == nullptr) return fail(HKRT_ERROR_INVALID_HANDLE, "not a stream of its own: the NULL stream");
    *out = device->null_stream;
    return HKRT_SUCCESS;
  }
  if (handle == HKRT_STREAM_PER_THREAD) {
    if (device == nullptr) return fail(HKRT_ERROR_INVALID_HANDLE, "not a stream of its own: hipStreamPerThread");
    *out = per_thread_stream_locked(device);
    return HKRT_SUCCESS;
  }
  if (streams.count(as_stream(handle)) == 0)
    return fail(HKRT_ERROR_INVALID_HANDLE, "invalid stream handle %p", static_cast<void*>(handle));
  *out = as_stream(handle);
  return HKRT_SUCCESS;
}

int event_check_locked(hkrt_event* event) {
  if (event == nullptr || events.count(as_event(event)) == 0)
    return fail(HKRT_ERROR_INVALID_HANDLE, "invalid event handle %p", static_cast<void*>(event));
  return HKRT_SUCCESS;
}

bool is_blocking(const Stream* stream) {
  return (stream->flags & HKRT_STREAM_NON_BLOCKING) == 0;
}

void add_dependency(Op* op, Op* dependency) {
  if (dependency == nullptr || dependency->done.load(std::memory_order_relaxed)) return;
  dependency->dependents.push_back(op);
  ++op->pending;
}

Lock scheduler_lock() {
  return Lock(scheduler_mutex);
}

void op_unref(Op* op) {
  if (op->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete op;
}

uint32_t completion_epoch() { return epoch.load(std::memory_order_seq_cst); }

void wait_for_completion(uint32_t seen_epoch) {
  sleeping_hosts.fetch_add(1, std::memory_order_seq_cst);
  futex_wait(&epoch, seen_epoch);
  sleeping_hosts.fetch_sub(1, std::memory_order_relaxed);
}

void wait_and_unref(Op* op) {
  auto done = [op] { return op->done.load(std::memory_order_acquire); };
  if (!spin_until(done, kHostSpinNs)) wait_until(done);
  op_unref(op);
}

Op* enqueue(Stream* s, Op* op, Op* extra_dependency, bool wait) {
  op->device = s->device;
  op->priority = s->priority;
  if (capture_any() && capture_take(s, op)) return nullptr;
  if (uint32_t session = activity_session.load(std::memory_order_relaxed))
    activity_enqueued(op, uint64_t(reinterpret_cast<uintptr_t>(handle_of(s))), session);
  ReadyList ready;
  uint64_t published = 0;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    Stream* const null_stream = s->device->null_stream;
    add_dependency(op, s->last);
    if (s == null_stream) {
      for (Stream* other : s->device->streams)
        if (is_blocking(other)) add_dependency(op, other->last);
    } else if (is_blocking(s)) {
      add_dependency(op, null_stream->last);
    }
    add_dependency(op, extra_dependency);
    ++s->count;
    if (s->last != nullptr) op_unref(s->last);
    s->last = op;
    op_ref(op);
    if (wait) op_ref(op);
    if (op->pending == 0) {
      if (op->is_job)
        published |= publish_job_locked(op);
      else
        ready.push_back(op);
    }
  }
  if (published != 0) wake_workers(published);
  run_ready(ready);
  return wait ? op : nullptr;
}

void complete(Op* op, ReadyList& ready) {
  if (op->activity != 0) activity_finished(op);  // before it counts as done: see activity.h
  uint64_t published = 0;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (op->is_job) retire_job_locked(op);
    for (Op* dependent : op->dependents) {
      if (--dependent->pending != 0) continue;
      if (dependent->is_job)
        published |= publish_job_locked(dependent);
      else
        ready.push_back(dependent);
    }
    op->dependents.clear();
    op->done.store(true, std::memory_order_release);
  }
  if (published != 0) wake_workers(published);
  if (op->kind == OpKind::Kernel && op->kernel.module != nullptr)
    module_launch_done(op->kernel.module);
  epoch.fetch_add(1, std::memory_order_seq_cst);
  if (sleeping_hosts.load(std::memory_order_seq_cst) != 0) futex_wake(&epoch, INT_MAX);
  op_unref(op);
}

void run_ready(ReadyList& ready) {
  while (!ready.empty()) {
    Op* op = ready.back();
    ready.pop_back();
    if (!op->device->halted() || (op->kind == OpKind::HostFunc && op->host_always)) run_small(op);
    complete(op, ready);
  }
}

int stream_get(Device* device, hkrt_stream* handle, Stream** out) {
  // No lock: a device's null stream lives as long as the process.
  if (device != nullptr && (handle == nullptr || handle == HKRT_STREAM_LEGACY)) {
    *out = device->null_stream;
    return HKRT_SUCCESS;
  }
  std::lock_guard<Mutex> lock(scheduler_mutex);
  return stream_get_locked(device, handle, out);
}

Device* stream_device(const Stream* stream) { return stream->device; }
CapturePoint& stream_capture_point(Stream* stream) { return stream->capture; }
bool stream_is_null(const Stream* stream) { return is_null(stream); }
bool stream_is_blocking(const Stream* stream) { return is_blocking(stream); }
CapturePoint& event_capture_point(hkrt_event* event) { return as_event(event)->capture; }
int event_check(hkrt_event* event) {
  std::lock_guard<Mutex> lock(scheduler_mutex);
  return event_check_locked(event);
}
Op* event_exchange(hkrt_event* event, Op* op) {
  std::lock_guard<Mutex> lock(scheduler_mutex);
  if (events.count(as_event(event)) == 0) return nullptr;
  Op* previous = as_event(event)->op;
  if (op != nullptr) op_ref(as_event(event)->op = op);
  else if (previous != nullptr) op_ref(previous);
  return previous;
}
unsigned stream_flags(const Stream* stream) { return stream->flags; }
int stream_priority(const Stream* stream) { return stream->priority; }

void streams_init(Device* device) {
  device->null_stream = new Stream;
  device->null_stream->device = device;
  device->null_stream->id = next_stream_id();
}

void drain_all(Device* device) {
  std::vector<Op*> tails;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    collect_tails(device->null_stream, tails);
    for (Stream* s : device->streams) collect_tails(s, tails);
  }
  wait_all_and_unref(tails);
}

void drain_every_device() {
  for (uint32_t d = 0; d < config.num_devices; ++d) drain_all(&devices[d]);
}

void wait_legacy(Device* device) {
  std::vector<Op*> tails;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    collect_tails(device->null_stream, tails);
  }
  wait_all_and_unref(tails);
}

void destroy_streams_and_events(Device* device) {
  std::lock_guard<Mutex> lock(scheduler_mutex);
  for (Stream* s : device->streams) {
    streams.erase(s);
    if (s->last != nullptr) op_unref(s->last);
    delete s;
  }
  device->streams.clear();
  Stream* null_stream = device->null_stream;
  if (null_stream->last != nullptr) op_unref(null_stream->last);
  null_stream->last = nullptr;
  for (Event* e : device->events) {
    events.erase(e);
    if (e->op != nullptr) op_unref(e->op);
    delete e;
  }
  device->events.clear();
}

int event_ipc(hkrt_event* event, IpcEvent** out, IpcEvent* attach) {
  std::lock_guard<Mutex> lock(scheduler_mutex);
  if (int error = event_check_locked(event)) return error;
  if (attach != nullptr) as_event(event)->ipc = attach;
  *out = as_event(event)->ipc;
  return HKRT_SUCCESS;
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_stream_create(int index, hkrt_stream** out, unsigned int flags) {
  return hkrt_stream_create_with_priority(index, out, flags, 0);
}

int hkrt_stream_create_with_priority(int index, hkrt_stream** out, unsigned int flags,
                                     int priority) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "stream create: NULL output");
  if ((flags & ~HKRT_STREAM_NON_BLOCKING) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "unknown stream flags 0x%x", flags);
  if (int error = sticky_check(device)) return error;
  auto* stream = new Stream;
  stream->device = device;
  stream->flags = flags;
  stream->id = next_stream_id();
  stream->priority = std::min(HKRT_STREAM_PRIORITY_LEAST,
                              std::max(HKRT_STREAM_PRIORITY_GREATEST, priority));
  std::lock_guard<Mutex> lock(scheduler_mutex);
  streams.insert(stream);
  device->streams.insert(stream);
  *out = stream;
  return HKRT_SUCCESS;
}

int hkrt_stream_destroy(hkrt_stream* handle) {
  if (int error = ensure_init()) return error;
  if (handle == nullptr) return fail(HKRT_ERROR_INVALID_HANDLE, "cannot destroy the NULL stream");
  Stream* s = nullptr;
  if (int error = stream_get(nullptr, handle, &s)) return error;
  if (int error = capture_admit(s, kCaptureWait)) return error;
  Device* device = s->device;
  // As hipStreamDestroy, pending work completes first.
  hkrt_stream_synchronize(device->index, handle);
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    streams.erase(s);
    device->streams.erase(s);
    if (s->last != nullptr) op_unref(s->last);
  }
  delete s;
  return sticky_check(device);
}

int hkrt_stream_synchronize(int index, hkrt_stream* handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  std::vector<Op*> tails;
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  if (int error = capture_admit(s, kCaptureWait)) return error;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = stream_get_locked(device, handle, &s)) return error;
    collect_tails(s, tails);
  }
  wait_all_and_unref(tails);
  pools_trim_on_sync();
  return sticky_check(s->device);
}

int hkrt_stream_query(int index, hkrt_stream* handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  std::vector<Op*> tails;
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  if (int error = capture_admit(s, kCaptureWait)) return error;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = stream_get_locked(device, handle, &s)) return error;
    if (int error = sticky_check(s->device)) return error;
    collect_tails(s, tails);
  }
  for (Op* op : tails) op_unref(op);
  if (!tails.empty()) return fail(HKRT_ERROR_NOT_READY, "the stream has work in progress");
  return HKRT_SUCCESS;
}

int hkrt_stream_wait_event(int index, hkrt_stream* handle, hkrt_event* event,
                           unsigned int flags) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (flags != 0) return fail(HKRT_ERROR_INVALID_VALUE, "stream wait event: flags must be 0");
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  if (int error = sticky_check(s->device)) return error;
  Op* recorded = nullptr;
  bool captured = false;
  if (int error = capture_any() ? capture_wait(s, event, &captured) : 0) return error;
  if (captured) return HKRT_SUCCESS;
  IpcEvent* ipc = nullptr;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = event_check_locked(event)) return error;
    ipc = as_event(event)->ipc;  // its records may be another process's: waited for by value
    recorded = ipc != nullptr ? nullptr : as_event(event)->op;
    if (ipc == nullptr && recorded == nullptr) return HKRT_SUCCESS;  // never recorded
    if (recorded != nullptr) op_ref(recorded);
  }
  if (ipc != nullptr) return ipc_event_stream_wait(ipc, s);
  Op* marker = new Op;
  marker->kind = OpKind::Marker;
  enqueue(s, marker, recorded, false);
  op_unref(recorded);
  std::lock_guard<Mutex> lock(scheduler_mutex);
  if (events.count(as_event(event)) != 0)
    for (const StreamPoint& point : as_event(event)->clock) clock_merge(s->clock, point);
  return HKRT_SUCCESS;
}

}  // extern "C"
