// Activity records (activity.h): the timestamps of the kernels, copies,
// memsets and named host functions the runtime runs, and the buffer their
// consumer drains.
//
// An op is stamped when enqueued (enqueue() in stream.cpp), when the first
// unit of it begins (executor.cpp) and when it completes (complete(), which
// pushes the record here); a launch also when its call entered the runtime
// (launch.cpp, which pushes the record of a launch it refuses itself).  A
// session number ties ops to the activity that stamped them: an op enqueued
// before activity was turned off, or on again, pushes nothing into a later
// session's buffer.
#include <algorithm>
#include <string>
#include <unordered_set>

#include "internal.h"

namespace hk {

std::atomic<uint32_t> activity_session{0};

namespace {

Mutex buffer_mutex;
// Under buffer_mutex.  The unread records are buffer[head:]: a read moves
// head, and the space before it is reused once everything was read (or
// reclaimed when it is most of the vector), so a push rarely allocates.
std::vector<hk_activity_record> buffer;
size_t head = 0;
size_t capacity = 0;
uint32_t sessions = 0;  // sessions started so far (a session's number is never 0)
std::atomic<uint64_t> dropped{0};
std::atomic<size_t> waiting{0};    // buffer.size() - head, read without the lock
std::atomic<size_t> notify_at{0};  // hk_activity_notify's threshold; 0: never
std::atomic<bool> notified{false};  // READ_SOON answered since the last read

std::mutex names_mutex;
std::unordered_set<std::string> names;  // never shrinks: records point into it

__thread uint64_t correlation_id = 0;
// gettid() is a system call: each thread asks once.  A child made by fork()
// runs on the forking thread with a new id, so the cached one is forgotten.
__thread int32_t cached_tid = 0;

int32_t thread_id() {
  if (cached_tid == 0) cached_tid = int32_t(syscall(SYS_gettid));
  return cached_tid;
}

void forget_tid_after_fork() { cached_tid = 0; }

// Whether `op` has a record: a kernel, copy or memset, or a host function
// with a name (it is shown as a kernel of that name).
bool recorded(const Op* op) {
  switch (op->kind) {
    case OpKind::Kernel:
    case OpKind::Copy:
    case OpKind::Set:
      return true;
    case OpKind::HostFunc:
      return op->kernel.name != nullptr;
    default:
      return false;
  }
}

void push(const hk_activity_record& r, uint32_t session) {
  std::lock_guard<Mutex> lock(buffer_mutex);
  if (session != activity_session.load(std::memory_order_relaxed)) return;
  if (buffer.size() - head >= capacity) {
    dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (head != 0 && head >= buffer.size() / 2) {
    buffer.erase(buffer.begin(), buffer.begin() + long(head));
    head = 0;
  }
  buffer.push_back(r);
  waiting.store(buffer.size() - head, std::memory_order_relaxed);
}

void describe_kernel(hk_activity_record& r, const KernelLaunch& k) {
  r.kind = HK_ACTIVITY_KERNEL;
  r.name = k.name;
  r.grid[0] = k.grid.x, r.grid[1] = k.grid.y, r.grid[2] = k.grid.z;
  r.block[0] = k.block.x, r.block[1] = k.block.y, r.block[2] = k.block.z;
  r.dynamic_shared = k.dynamic_shared_bytes;
  r.static_shared = k.static_shared_bytes;
}

}  // namespace

void activity_enqueued(Op* op, uint64_t stream, uint32_t session) {
  if (!recorded(op)) return;
  op->activity = session;
  op->thread_id = thread_id();
  op->stream = stream;
  op->correlation_id = correlation_id;
  op->enqueue_ns = now_ns();
  if (op->call_ns == 0) op->call_ns = op->enqueue_ns;
}

void activity_finished(const Op* op) {
  hk_activity_record r = {};
  if (op->start_ns != 0) {
    r.start_ns = op->start_ns;
    r.end_ns = now_ns();
  } else {
    r.status = HK_ACTIVITY_NEVER_RAN;  // dropped before it ran (a sticky error, a reset)
  }
  r.device = op->device->index;
  r.thread_id = op->thread_id;
  r.stream = op->stream;
  r.correlation_id = op->correlation_id;
  r.enqueue_ns = op->enqueue_ns;
  r.call_ns = op->call_ns;
  if (op->kind == OpKind::Kernel || op->kind == OpKind::HostFunc) {
    describe_kernel(r, op->kernel);
  } else {
    r.kind = op->kind == OpKind::Copy ? HK_ACTIVITY_COPY : HK_ACTIVITY_MEMSET;
    r.copy_kind = op->kind == OpKind::Copy ? op->copy_kind : 0;
    r.bytes = op->bytes;
    r.src_device = op->src_device;
    r.dst_device = op->dst_device;
  }
  push(r, op->activity);
}

void activity_refused(const KernelLaunch& k, int device, hkrt_stream* stream, int64_t call_ns,
                      int error) {
  uint32_t session = activity_session.load(std::memory_order_relaxed);
  if (session == 0) return;
  hk_activity_record r = {};
  describe_kernel(r, k);
  if (r.name == nullptr) r.name = activity_intern(k.desc->name);  // refused before it was found
  r.status = HK_ACTIVITY_REFUSED;
  r.error = error;
  r.device = device;
  r.thread_id = thread_id();
  r.stream = uint64_t(reinterpret_cast<uintptr_t>(stream));
  r.correlation_id = correlation_id;
  r.call_ns = call_ns;
  r.enqueue_ns = now_ns();  // when the call gave up
  push(r, session);
}

bool activity_read_soon() {
  size_t at = notify_at.load(std::memory_order_relaxed);
  return at != 0 && waiting.load(std::memory_order_relaxed) >= at &&
         !notified.exchange(true, std::memory_order_relaxed);
}

const char* activity_intern(const char* name) {
  std::lock_guard<std::mutex> lock(names_mutex);
  return names.emplace(name).first->c_str();
}

}  // namespace hk

using namespace hk;

extern "C" {

int hk_activity_enable(size_t new_capacity) {
  static std::once_flag fork_handler;
  std::call_once(fork_handler, [] { pthread_atfork(nullptr, nullptr, forget_tid_after_fork); });
  std::lock_guard<Mutex> lock(buffer_mutex);
  buffer.clear();
  buffer.shrink_to_fit();
  head = 0;
  capacity = new_capacity;
  dropped.store(0, std::memory_order_relaxed);
  waiting.store(0, std::memory_order_relaxed);
  notified.store(false, std::memory_order_relaxed);
  activity_session.store(new_capacity != 0 ? ++sessions : 0, std::memory_order_relaxed);
  return HKRT_SUCCESS;
}

size_t hk_activity_read(hk_activity_record* out, size_t max) {
  if (out == nullptr) return 0;
  std::lock_guard<Mutex> lock(buffer_mutex);
  size_t count = std::min(max, buffer.size() - head);
  std::copy(buffer.begin() + long(head), buffer.begin() + long(head + count), out);
  head += count;
  if (head == buffer.size()) {
    buffer.clear();
    head = 0;
  }
  waiting.store(buffer.size() - head, std::memory_order_relaxed);
  notified.store(false, std::memory_order_relaxed);
  return count;
}

uint64_t hk_activity_dropped(void) { return dropped.load(std::memory_order_relaxed); }

size_t hk_activity_waiting(void) { return waiting.load(std::memory_order_relaxed); }

int hk_activity_notify(size_t at) {
  notify_at.store(at, std::memory_order_relaxed);
  return HKRT_SUCCESS;
}

uint64_t hk_activity_set_correlation(uint64_t id) {
  uint64_t previous = correlation_id;
  correlation_id = id;
  return previous;
}

}  // extern "C"
