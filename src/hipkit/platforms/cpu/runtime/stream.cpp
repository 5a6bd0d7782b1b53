// Streams and events: the ordering of operations.
//
// Each op depends on the previous op of its stream.  The NULL stream is the
// legacy default stream: its ops also depend on the last op of every blocking
// stream, and ops of blocking streams depend on the last NULL-stream op
// (streams created with HKRT_STREAM_NON_BLOCKING are exempt).  An event is
// the last op recorded into it; waiting on an event adds a dependency on that
// op.  Dependencies form a graph resolved as ops complete, so a stream never
// polls another.
#include <unordered_set>

#include "internal.h"

// The handles are empty at global scope: their state is internal.
struct hkrt_stream {};
struct hkrt_event {};

namespace hk {

namespace {

struct Stream : hkrt_stream {
  unsigned flags = 0;
  Op* last = nullptr;  // the most recently enqueued op (one reference)
};

struct Event : hkrt_event {
  unsigned flags = 0;
  Op* op = nullptr;  // the Record op of the latest hkrt_event_record, or null
};

Mutex scheduler_mutex;
Stream null_stream;
std::unordered_set<Stream*> streams;
std::unordered_set<Event*> events;

// Bumped whenever an op completes; host threads sleep on it.
std::atomic<uint32_t> epoch{0};
std::atomic<uint32_t> sleeping_hosts{0};

// How long a host thread spins before sleeping: short kernels return
// without a futex round trip.
constexpr int64_t kHostSpinNs = 50000;

bool is_blocking(const Stream* stream) {
  return (stream->flags & HKRT_STREAM_NON_BLOCKING) == 0;
}

// Under the scheduler lock.
void add_dependency(Op* op, Op* dependency) {
  if (dependency == nullptr || dependency->done.load(std::memory_order_relaxed)) return;
  dependency->dependents.push_back(op);
  ++op->pending;
}

// The ops that a wait on `stream` must wait for (references taken), under
// the lock.  Waiting for the NULL stream includes every blocking stream.
void collect_tails(Stream* stream, std::vector<Op*>& out) {
  auto take = [&](Stream* s) {
    if (s->last != nullptr && !s->last->done.load(std::memory_order_relaxed)) {
      op_ref(s->last);
      out.push_back(s->last);
    }
  };
  if (stream != nullptr) return take(stream);
  take(&null_stream);
  for (Stream* s : streams)
    if (is_blocking(s)) take(s);
}

void wait_all_and_unref(const std::vector<Op*>& ops) {
  for (Op* op : ops) wait_and_unref(op);
}

Stream* as_stream(hkrt_stream* handle) { return static_cast<Stream*>(handle); }
Event* as_event(hkrt_event* handle) { return static_cast<Event*>(handle); }

int event_check_locked(hkrt_event* event) {
  if (event == nullptr || events.count(as_event(event)) == 0)
    return fail(HKRT_ERROR_INVALID_HANDLE, "invalid event handle %p", static_cast<void*>(event));
  return HKRT_SUCCESS;
}

}  // namespace

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

Op* enqueue(hkrt_stream* stream, Op* op, Op* extra_dependency, bool wait) {
  if (uint32_t session = activity_session.load(std::memory_order_relaxed))
    activity_enqueued(op, stream, session);
  ReadyList ready;
  bool published = false;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    Stream* s = stream != nullptr ? as_stream(stream) : &null_stream;
    add_dependency(op, s->last);
    if (s == &null_stream) {
      for (Stream* other : streams)
        if (is_blocking(other)) add_dependency(op, other->last);
    } else if (is_blocking(s)) {
      add_dependency(op, null_stream.last);
    }
    add_dependency(op, extra_dependency);
    if (s->last != nullptr) op_unref(s->last);
    s->last = op;
    op_ref(op);
    if (wait) op_ref(op);
    if (op->pending == 0) {
      if (op->is_job) {
        publish_job_locked(op);
        published = true;
      } else {
        ready.push_back(op);
      }
    }
  }
  if (published) wake_workers();
  run_ready(ready);
  return wait ? op : nullptr;
}

void complete(Op* op, ReadyList& ready) {
  if (op->activity != 0) activity_finished(op);  // before it counts as done: see activity.h
  bool published = false;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (op->is_job) retire_job_locked(op);
    for (Op* dependent : op->dependents) {
      if (--dependent->pending != 0) continue;
      if (dependent->is_job) {
        publish_job_locked(dependent);
        published = true;
      } else {
        ready.push_back(dependent);
      }
    }
    op->dependents.clear();
    op->done.store(true, std::memory_order_release);
  }
  if (published) wake_workers();
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
    if (!halted()) run_small(op);
    complete(op, ready);
  }
}

int stream_check(hkrt_stream* stream) {
  if (stream == nullptr) return HKRT_SUCCESS;
  std::lock_guard<Mutex> lock(scheduler_mutex);
  if (streams.count(as_stream(stream)) == 0)
    return fail(HKRT_ERROR_INVALID_HANDLE, "invalid stream handle %p", static_cast<void*>(stream));
  return HKRT_SUCCESS;
}

void drain_all() {
  std::vector<Op*> tails;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    collect_tails(&null_stream, tails);
    for (Stream* s : streams) collect_tails(s, tails);
  }
  wait_all_and_unref(tails);
}

void destroy_streams_and_events() {
  std::lock_guard<Mutex> lock(scheduler_mutex);
  for (Stream* s : streams) {
    if (s->last != nullptr) op_unref(s->last);
    delete s;
  }
  streams.clear();
  if (null_stream.last != nullptr) op_unref(null_stream.last);
  null_stream.last = nullptr;
  for (Event* e : events) {
    if (e->op != nullptr) op_unref(e->op);
    delete e;
  }
  events.clear();
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_stream_create(hkrt_stream** out, unsigned int flags) {
  if (int error = ensure_init()) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "stream create: NULL output");
  if ((flags & ~HKRT_STREAM_NON_BLOCKING) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "unknown stream flags 0x%x", flags);
  if (int error = sticky_check()) return error;
  auto* stream = new Stream;
  stream->flags = flags;
  std::lock_guard<Mutex> lock(scheduler_mutex);
  streams.insert(stream);
  *out = stream;
  return HKRT_SUCCESS;
}

int hkrt_stream_destroy(hkrt_stream* stream) {
  if (int error = ensure_init()) return error;
  if (stream == nullptr) return fail(HKRT_ERROR_INVALID_HANDLE, "cannot destroy the NULL stream");
  if (int error = stream_check(stream)) return error;
  // As hipStreamDestroy, pending work completes first.
  hkrt_stream_synchronize(stream);
  Stream* s = as_stream(stream);
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    streams.erase(s);
    if (s->last != nullptr) op_unref(s->last);
  }
  delete s;
  return sticky_check();
}

int hkrt_stream_synchronize(hkrt_stream* stream) {
  if (int error = ensure_init()) return error;
  if (int error = stream_check(stream)) return error;
  std::vector<Op*> tails;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    collect_tails(as_stream(stream), tails);
  }
  wait_all_and_unref(tails);
  return sticky_check();
}

int hkrt_stream_query(hkrt_stream* stream) {
  if (int error = ensure_init()) return error;
  if (int error = stream_check(stream)) return error;
  if (int error = sticky_check()) return error;
  std::vector<Op*> tails;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    collect_tails(as_stream(stream), tails);
  }
  for (Op* op : tails) op_unref(op);
  if (!tails.empty()) return fail(HKRT_ERROR_NOT_READY, "the stream has work in progress");
  return HKRT_SUCCESS;
}

int hkrt_stream_wait_event(hkrt_stream* stream, hkrt_event* event, unsigned int flags) {
  if (int error = ensure_init()) return error;
  if (flags != 0) return fail(HKRT_ERROR_INVALID_VALUE, "stream wait event: flags must be 0");
  if (int error = stream_check(stream)) return error;
  if (int error = sticky_check()) return error;
  Op* recorded = nullptr;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = event_check_locked(event)) return error;
    recorded = as_event(event)->op;
    if (recorded == nullptr) return HKRT_SUCCESS;  // never recorded: nothing to wait for
    op_ref(recorded);
  }
  Op* marker = new Op;
  marker->kind = OpKind::Marker;
  enqueue(stream, marker, recorded, false);
  op_unref(recorded);
  return HKRT_SUCCESS;
}

int hkrt_event_create(hkrt_event** out, unsigned int flags) {
  if (int error = ensure_init()) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "event create: NULL output");
  if ((flags & ~(HKRT_EVENT_BLOCKING_SYNC | HKRT_EVENT_DISABLE_TIMING)) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "unsupported event flags 0x%x", flags);
  if (int error = sticky_check()) return error;
  auto* event = new Event;
  event->flags = flags;
  std::lock_guard<Mutex> lock(scheduler_mutex);
  events.insert(event);
  *out = event;
  return HKRT_SUCCESS;
}

int hkrt_event_destroy(hkrt_event* event) {
  if (int error = ensure_init()) return error;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = event_check_locked(event)) return error;
    events.erase(as_event(event));
    if (as_event(event)->op != nullptr) op_unref(as_event(event)->op);
  }
  delete as_event(event);
  return HKRT_SUCCESS;
}

int hkrt_event_record(hkrt_event* event, hkrt_stream* stream) {
  if (int error = ensure_init()) return error;
  if (int error = stream_check(stream)) return error;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = event_check_locked(event)) return error;
  }
  if (int error = sticky_check()) return error;
  Op* op = new Op;
  op->kind = OpKind::Record;
  op_ref(op);  // the event's reference
  enqueue(stream, op, nullptr, false);
  std::lock_guard<Mutex> lock(scheduler_mutex);
  Event* e = as_event(event);
  if (events.count(e) == 0) {  // destroyed meanwhile by another thread
    op_unref(op);
    return HKRT_SUCCESS;
  }
  if (e->op != nullptr) op_unref(e->op);
  e->op = op;
  return HKRT_SUCCESS;
}

int hkrt_event_synchronize(hkrt_event* event) {
  if (int error = ensure_init()) return error;
  Op* op = nullptr;
  {
    std::lock_guard<Mutex> lock(scheduler_mutex);
    if (int error = event_check_locked(event)) return error;
    op = as_event(event)->op;
    if (op != nullptr) op_ref(op);
  }
  if (op != nullptr) wait_and_unref(op);
  return sticky_check();
}

int hkrt_event_query(hkrt_event* event) {
  if (int error = ensure_init()) return error;
  if (int error = sticky_check()) return error;
  std::lock_guard<Mutex> lock(scheduler_mutex);
  if (int error = event_check_locked(event)) return error;
  const Op* op = as_event(event)->op;
  if (op != nullptr && !op->done.load(std::memory_order_acquire))
    return fail(HKRT_ERROR_NOT_READY, "the event has not completed yet");
  return HKRT_SUCCESS;
}

int hkrt_event_elapsed_time(float* ms, hkrt_event* start_handle, hkrt_event* stop_handle) {
  if (int error = ensure_init()) return error;
  if (ms == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "elapsed time: NULL output");
  if (int error = sticky_check()) return error;
  std::lock_guard<Mutex> lock(scheduler_mutex);
  if (int error = event_check_locked(start_handle)) return error;
  if (int error = event_check_locked(stop_handle)) return error;
  const Event* start = as_event(start_handle);
  const Event* stop = as_event(stop_handle);
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
