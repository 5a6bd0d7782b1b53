// hipkit prof's CUPTI injection library: CUPTI's activity records (kernels,
// copies, memsets, NVTX markers) as lines of the trace file, each carrying the
// correlation id, thread and host time of the call that enqueued it.
//
// Part of the injection library's one translation unit, cupti_inject.cpp
// (which says what the library does): its names stay inside the library, in
// the unit's unnamed namespace, as the library exports InitializeInjection alone.
#ifndef HIPKIT_CUPTI_RECORDS_H
#define HIPKIT_CUPTI_RECORDS_H

#include <stdlib.h>

#include <cstring>
#include <string>

#include "cupti_state.h"

namespace {

std::atomic<uint64_t> dispatch_ids{0};

const char* copy_kind(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HOST_TO_DEVICE";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "DEVICE_TO_HOST";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HOST_TO_HOST";
    case CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN:
      return "DEFAULT";
    default:  // DTOD, DTOA, ATOD, ATOA, PTOP: device memory on both sides
      return "DEVICE_TO_DEVICE";
  }
}

int64_t ours(uint64_t cupti_ns) { return int64_t(cupti_ns) - cupti_offset_ns; }

void write_kernel(const HK_KERNEL_RECORD* k) {
  uint64_t cid = k->correlationId;
  Call call;
  int64_t stream;
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    call = claim(&cid);
    stream = stream_number(k->deviceId, k->contextId, k->streamId);
  }
  const uint32_t grid[3] = {uint32_t(k->gridX), uint32_t(k->gridY), uint32_t(k->gridZ)};
  const uint32_t block[3] = {uint32_t(k->blockX), uint32_t(k->blockY), uint32_t(k->blockZ)};
  const int64_t start = ours(k->start);
  writer.write(line("kernel").unum(++dispatch_ids).unum(cid).num(call.thread)
                   .str(device_name(k->deviceId).c_str()).num(stream).str(k->name).triple(grid)
                   .triple(block).num(k->dynamicSharedMemory).num(k->staticSharedMemory)
                   .num(call.start != 0 ? call.start : start).num(start).num(ours(k->end)).end());
}

void write_copy(uint64_t cid, const char* kind, uint64_t bytes, uint32_t device, uint32_t context,
                uint32_t stream_id, const std::string& src, const std::string& dst, uint64_t start,
                uint64_t end) {
  Call call;
  int64_t stream;
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    call = claim(&cid);
    stream = stream_number(device, context, stream_id);
  }
  writer.write(line("copy").unum(cid).num(call.thread).str(device_name(device).c_str()).num(stream)
                   .str(kind).unum(bytes).str(src.c_str()).str(dst.c_str())
                   .num(call.start != 0 ? call.start : ours(start)).num(ours(start)).num(ours(end))
                   .end());
}

void write_marker(const HK_MARKER_RECORD* m) {
  const int32_t thread = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD
                             ? int32_t(m->objectId.pt.threadId)
                             : 0;
  const int64_t at = ours(m->timestamp);
  std::lock_guard<std::mutex> lock(state_mutex);
  if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    int64_t& open = ranges_open_on[thread];
    open_ranges[m->id] = {m->name != nullptr ? m->name : "", at, thread, open++};
  } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    auto it = open_ranges.find(m->id);
    if (it == open_ranges.end()) return;  // began before tracing did
    const OpenRange& r = it->second;
    --ranges_open_on[r.thread];
    writer.write(line("marker").unum((uint64_t(1) << 40) + ++marker_ids).num(r.thread)
                     .str(r.message.c_str()).str("range").num(r.depth).num(r.start).num(at).end());
    open_ranges.erase(it);
  } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    writer.write(line("marker").unum((uint64_t(1) << 40) + ++marker_ids).num(thread).str(m->name)
                     .str("mark").num(ranges_open_on[thread]).num(at).num(at).end());
  }
}

void write_record(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      write_kernel(reinterpret_cast<const HK_KERNEL_RECORD*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto c = reinterpret_cast<const HK_MEMCPY_RECORD*>(record);
      const char* kind = copy_kind(c->copyKind);
      const std::string here = device_name(c->deviceId);
      const bool from_host = !strcmp(kind, "HOST_TO_DEVICE") || !strcmp(kind, "HOST_TO_HOST");
      const bool to_host = !strcmp(kind, "DEVICE_TO_HOST") || !strcmp(kind, "HOST_TO_HOST");
      uint32_t cid = c->runtimeCorrelationId != 0 ? c->runtimeCorrelationId : c->correlationId;
      write_copy(cid, kind, c->bytes, c->deviceId, c->contextId, c->streamId,
                 from_host ? "host" : here, to_host ? "host" : here, c->start, c->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {  // between two devices
      auto c = reinterpret_cast<const HK_MEMCPY_PTOP_RECORD*>(record);
      write_copy(c->correlationId, "DEVICE_TO_DEVICE", c->bytes, c->deviceId, c->contextId,
                 c->streamId, device_name(c->srcDeviceId), device_name(c->dstDeviceId), c->start,
                 c->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto s = reinterpret_cast<const HK_MEMSET_RECORD*>(record);
      const std::string here = device_name(s->deviceId);
      write_copy(s->correlationId, "MEMSET", s->bytes, s->deviceId, s->contextId, s->streamId,
                 here, here, s->start, s->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER:
      write_marker(reinterpret_cast<const HK_MARKER_RECORD*>(record));
      break;
    default:
      break;
  }
}

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) write_record(record);
  free(buffer);
}

uint64_t CUPTIAPI monotonic_timestamp() { return uint64_t(monotonic_ns()); }

}  // namespace

#endif  // HIPKIT_CUPTI_RECORDS_H
