// What streams do beyond ordering ops: waits on and writes of memory words in a
// stream's order (hkrt_stream_wait_value, hkrt_stream_write_value:
// hipStreamWaitValue32/64 and hipStreamWriteValue32/64, and the waits of
// interprocess events, ipc.cpp), and a stream's device, flags and priority.
//
// A wait is two ops on its stream: a small host function that arms it once the
// work before it is done, and a marker that also depends on a "gate", an op of
// no stream that the watcher thread completes when the word meets the
// condition.  The watcher is one thread of the runtime, so a wait holds no
// worker: the kernel that writes the word may run on the same device.  A
// device's halt (a sticky error, a reset) opens its gates, as its queued work
// is dropped.
#include <condition_variable>
#include <thread>

#include "internal.h"

namespace hk {

namespace {

struct ValueWait {
  const void* ptr;
  uint64_t value, mask;
  unsigned compare, bytes;
  Device* device;
  Op* gate;  // its execution reference, dropped by complete()
};

// Never destroyed: the watcher may be waiting on it when the process exits.
struct Watch {
  std::mutex mutex;
  std::condition_variable wakeup;
  std::vector<ValueWait*> armed;  // under mutex
};
Watch& watch_state() {
  static Watch* state = new Watch;
  return *state;
}

uint64_t load_word(const void* ptr, unsigned bytes) {
  if (bytes == 4) return __atomic_load_n(static_cast<const uint32_t*>(ptr), __ATOMIC_ACQUIRE);
  return __atomic_load_n(static_cast<const uint64_t*>(ptr), __ATOMIC_ACQUIRE);
}

// HIP's comparisons, in the word's width.
bool condition_met(uint64_t word, const ValueWait& w) {
  const uint64_t width = w.bytes == 4 ? 0xffffffffull : ~0ull;
  const uint64_t masked = word & w.mask & width;
  switch (w.compare) {
    case HKRT_WAIT_GEQ: return masked >= (w.value & width);
    case HKRT_WAIT_EQ: return masked == (w.value & width);
    case HKRT_WAIT_AND: return (masked & w.value) != 0;
    default: return (~(masked | (w.value & w.mask)) & width) != 0;  // HKRT_WAIT_NOR
  }
}

// Whether the wait is over: met, its device halted, or its word unreadable
// (the device's sticky error then, as a kernel's fault).
bool wait_over(const ValueWait& w) {
  if (w.device->halted()) return true;
  ExecContext ctx;
  ctx.what = "stream wait value";
  bool met = false;
  if (int code = run_guarded(ctx, [&] { met = condition_met(load_word(w.ptr, w.bytes), w); })) {
    sticky_set(w.device, code, ctx.detail);
    return true;
  }
  return met;
}

void watch() {
  Watch& state = watch_state();
  std::vector<ValueWait*> pending;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(state.mutex);
      pending.insert(pending.end(), state.armed.begin(), state.armed.end());
      state.armed.clear();
      if (pending.empty()) state.wakeup.wait(lock, [&] { return !state.armed.empty(); });
    }
    ReadyList ready;
    for (size_t i = 0; i < pending.size();) {
      ValueWait* w = pending[i];
      if (!wait_over(*w)) {
        ++i;
        continue;
      }
      complete(w->gate, ready);
      run_ready(ready);
      delete w;
      pending[i] = pending.back();
      pending.pop_back();
    }
    // Memory another thread or process writes has no wakeup: poll it.
    if (!pending.empty()) usleep(20);
  }
}

void arm(void* data) {
  static std::once_flag started;
  std::call_once(started, [] { std::thread(watch).detach(); });
  Watch& state = watch_state();
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    state.armed.push_back(static_cast<ValueWait*>(data));
  }
  state.wakeup.notify_one();
}

struct ValueWrite {
  void* ptr;
  uint64_t value;
  unsigned bytes;
  Device* device;
};

// Runs even when dropped (HostFunc's host_always), so that it frees itself.
void write_word(void* data) {
  auto* w = static_cast<ValueWrite*>(data);
  Device* device = w->device;
  void* ptr = w->ptr;
  const uint64_t value = w->value;
  const unsigned bytes = w->bytes;
  delete w;
  if (device->halted()) return;
  if (bytes == 4)
    __atomic_store_n(static_cast<uint32_t*>(ptr), uint32_t(value), __ATOMIC_RELEASE);
  else
    __atomic_store_n(static_cast<uint64_t*>(ptr), value, __ATOMIC_RELEASE);
}

int check_word(const void* ptr, unsigned bytes) {
  if (bytes != 4 && bytes != 8)
    return fail(HKRT_ERROR_INVALID_VALUE, "stream value: %u bytes, not 4 or 8", bytes);
  if (ptr == nullptr || uintptr_t(ptr) % bytes != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "stream value: %p is not an aligned %u-byte word", ptr,
                bytes);
  return HKRT_SUCCESS;
}

}  // namespace

Op* small_host_op(void (*fn)(void*), void* data) {
  auto* op = new Op;
  op->kind = OpKind::HostFunc;
  op->total = 1;
  op->host_fn = fn;
  op->host_data = data;
  op->host_always = true;
  return op;
}

int enqueue_value_wait(Stream* stream, const void* ptr, uint64_t value, uint64_t mask,
                       unsigned compare, unsigned bytes) {
  Op* gate = new Op;
  gate->kind = OpKind::Marker;
  gate->device = stream_device(stream);
  op_ref(gate);  // held until the marker depends on it: the watcher may complete it first
  auto* w = new ValueWait{ptr, value, mask, compare, bytes, stream_device(stream), gate};
  enqueue(stream, small_host_op(arm, w), nullptr, false);
  Op* marker = new Op;
  marker->kind = OpKind::Marker;
  enqueue(stream, marker, gate, false);
  op_unref(gate);
  return HKRT_SUCCESS;
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_stream_get_device(int index, hkrt_stream* handle, int* out) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "stream device: NULL output");
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  *out = stream_device(s)->index;
  return HKRT_SUCCESS;
}

int hkrt_stream_get_info(int index, hkrt_stream* handle, unsigned int* flags, int* priority) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  Stream* s = nullptr;
  if (int error = stream_get(device, handle, &s)) return error;
  if (flags != nullptr) *flags = stream_flags(s);
  if (priority != nullptr) *priority = stream_priority(s);
  return HKRT_SUCCESS;
}

int hkrt_stream_wait_value(int index, hkrt_stream* handle, const void* ptr, uint64_t value,
                           uint64_t mask, unsigned int compare, unsigned int bytes) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = check_word(ptr, bytes)) return error;
  if (compare > HKRT_WAIT_NOR)
    return fail(HKRT_ERROR_INVALID_VALUE, "stream wait value: unknown comparison %u", compare);
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  if (int error = sticky_check(stream_device(stream))) return error;
  return enqueue_value_wait(stream, ptr, value, mask, compare, bytes);
}

int hkrt_stream_write_value(int index, hkrt_stream* handle, void* ptr, uint64_t value,
                            unsigned int bytes) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = check_word(ptr, bytes)) return error;
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  if (int error = sticky_check(stream_device(stream))) return error;
  auto* w = new ValueWrite{ptr, value, bytes, stream_device(stream)};
  enqueue(stream, small_host_op(write_word, w), nullptr, false);
  return HKRT_SUCCESS;
}

}  // extern "C"
