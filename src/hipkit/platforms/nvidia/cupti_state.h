// hipkit prof's CUPTI injection library: the trace's state, shared by the
// API callbacks (cupti_api.h), the activity records (cupti_records.h) and the
// library's start and end (cupti_inject.cpp).
//
// Part of the injection library's one translation unit, cupti_inject.cpp
// (which says what the library does): its names stay inside the library, in
// the unit's unnamed namespace, as the library exports InitializeInjection alone.
#ifndef HIPKIT_CUPTI_STATE_H
#define HIPKIT_CUPTI_STATE_H

// CUPTI's headers that the library uses, not cupti.h: that one also brings
// the parameters of every runtime and driver function, which need the CUDA
// headers of the same release (CUPTI's wheel may be newer than the toolkit).
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>

#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "hipkit_trace/native_trace.h"

namespace {

using hk_native::line;
using hk_native::monotonic_ns;
using hk_native::thread_id;

hk_native::Writer writer;
std::atomic<bool> started{false};  // tracing, from InitializeInjection to exit
int64_t cupti_offset_ns = 0;  // CUPTI's clock minus CLOCK_MONOTONIC (0: CUPTI uses ours)

// ---- what the records need from the calls -----------------------------------

struct Call {
  int32_t thread;
  int64_t start;
};

std::mutex state_mutex;  // everything below, shared by the program's threads and CUPTI's
// Calls that may have enqueued work, by correlation id, until a record
// claims them (oldest forgotten past kMaxCalls: a call whose work never ran).
// CUPTI's ids are 32-bit; a library's calls (cupti_inject.cpp) have ids above.
constexpr size_t kMaxCalls = 1 << 18;
std::unordered_map<uint64_t, Call> calls;
std::deque<uint64_t> call_order;
// A driver call made inside an API call (the runtime launching for
// cudaLaunchKernel), or any call inside a library's call -> that call's
// correlation id, for records carrying the inner one.
std::unordered_map<uint32_t, uint64_t> outer_of;
std::unordered_map<uint32_t, uint32_t> null_stream_of;  // context id -> its NULL stream's id
std::unordered_map<uint64_t, int64_t> stream_numbers;   // (context, stream id) -> number shown
std::unordered_map<uint32_t, int64_t> next_stream;      // device -> next number
std::unordered_map<uint64_t, uint64_t> allocated;       // address -> bytes
std::unordered_set<uint32_t> devices_named;
struct OpenRange {
  std::string message;
  int64_t start;
  int32_t thread;
  int64_t depth;
};
std::unordered_map<uint32_t, OpenRange> open_ranges;  // NVTX range id -> its start
std::unordered_map<int32_t, int64_t> ranges_open_on;  // thread -> ranges open on it
uint64_t marker_ids = 0;                               // correlation ids of markers (high range)

void remember_call(uint64_t cid, int32_t thread, int64_t start) {
  std::lock_guard<std::mutex> lock(state_mutex);
  if (calls.size() >= kMaxCalls) {
    while (!call_order.empty() && calls.size() >= kMaxCalls / 2) {
      calls.erase(call_order.front());
      call_order.pop_front();
    }
  }
  calls[cid] = {thread, start};
  call_order.push_back(cid);
}

// Records carrying the correlation id `inner` are the work of the call `outer`.
void belongs_to(uint32_t inner, uint64_t outer) {
  std::lock_guard<std::mutex> lock(state_mutex);
  if (outer_of.size() >= kMaxCalls) outer_of.clear();  // inner calls whose work never ran
  outer_of[inner] = outer;
}

// The call that enqueued a record's work: its correlation id, thread, start.
Call claim(uint64_t* cid) {
  auto outer = outer_of.find(uint32_t(*cid));
  if (outer != outer_of.end()) {
    *cid = outer->second;
    outer_of.erase(outer);
  }
  auto it = calls.find(*cid);
  if (it == calls.end()) return {0, 0};
  return it->second;  // kept: one call may enqueue several records (a 2D copy)
}

std::string device_name(uint32_t device) { return "nvidia:" + std::to_string(device); }

int64_t stream_number(uint32_t device, uint32_t context, uint32_t stream) {
  auto null = null_stream_of.find(context);
  if (null != null_stream_of.end() && null->second == stream) return 0;
  const uint64_t key = (uint64_t(context) << 32) | stream;
  auto it = stream_numbers.find(key);
  if (it != stream_numbers.end()) return it->second;
  int64_t& next = next_stream[device];
  return stream_numbers[key] = ++next;
}

}  // namespace

#endif  // HIPKIT_CUPTI_STATE_H
