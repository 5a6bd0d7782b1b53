// Copies and memsets (hipMemcpy, hipMemcpyPeer, hipMemset and their async
// forms): ops on streams, split into pieces for the device's workers when large;
// what memory each side is in is memory.cpp's.
#include <algorithm>
#include <cstring>
#include <new>

#include "graph.h"
#include "internal.h"

namespace hk {

void split_copy(Op* op, const Device* device) {
  op->is_job = op->bytes > kCopyParallelMin && device->num_workers > 1;
  if (op->is_job) op->total = (op->bytes + kCopyPiece - 1) / kCopyPiece;
}

namespace {

// Enqueues a Copy or Set op and, if synchronous, waits for it.
int submit(Op* op, Stream* stream, int async) {
  split_copy(op, stream_device(stream));
  Op* waited = enqueue(stream, op, nullptr, async == 0);
  if (waited == nullptr) return HKRT_SUCCESS;
  wait_and_unref(waited);
  return sticky_check(stream_device(stream));
}

// One side of a copy: the kind of memory (hkrt_pointer_info) and the device
// it counts as (null: the host).
struct Side {
  int kind = 0;
  Device* device = nullptr;
};

Side side_of(const void* ptr) {
  AllocationInfo found;
  if (!allocation_find(ptr, &found)) return {};
  const bool on_device = found.kind == HKRT_MEMORY_DEVICE || found.kind == HKRT_MEMORY_MANAGED;
  return {found.kind, on_device ? found.owner : nullptr};
}

// The common part of hkrt_memcpy and hkrt_memcpy_peer.
int copy(Stream* stream, void* dst, Side to, const void* src, Side from, size_t bytes, int kind,
         int async) {
  if (int error = sticky_check(stream_device(stream))) return error;
  if (int error = capture_admit(stream, async ? kCaptureEnqueue : kCaptureUnsafe)) return error;
  if (bytes == 0) return HKRT_SUCCESS;
  // A synchronous copy between devices, as in HIP, follows the work queued
  // before it on the null streams of the devices whose memory it touches.
  if (async == 0) {
    for (Device* other : {to.device, from.device})
      if (other != nullptr && other != stream_device(stream)) wait_legacy(other);
  }
  Op* op = new Op;
  op->kind = OpKind::Copy;
  op->copy_kind = uint32_t(kind);
  op->dst = dst;
  op->src = src;
  op->bytes = bytes;
  op->dst_device = int16_t(to.device != nullptr ? to.device->index : -1);
  op->src_device = int16_t(from.device != nullptr ? from.device->index : -1);
  // As HIP and CUDA do with pageable host memory (not from hkrt_malloc or
  // hkrt_host_malloc): an asynchronous copy from it reads it before
  // returning, and one into it completes before returning.  A captured copy
  // reads and writes the memory when its graph runs.
  if (async && capture_any() && stream_capture_point(stream).capture != nullptr) {
  } else if (async && to.kind == 0) {
    async = 0;
  } else if (async && from.kind == 0) {
    op->staging.reset(new (std::nothrow) unsigned char[bytes]);
    if (op->staging == nullptr) {
      op_unref(op);
      return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot stage %zu bytes of pageable memory", bytes);
    }
    ExecContext ctx;
    ctx.what = "memcpy";
    unsigned char* staging = op->staging.get();
    if (int code = run_guarded(ctx, [=] { memcpy(staging, src, bytes); })) {
      op_unref(op);
      return fail(code, "%s", ctx.detail);
    }
    op->src = staging;
  }
  return submit(op, stream, async);
}

}  // namespace
}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_memcpy(int index, void* dst, const void* src, size_t bytes, int kind,
                hkrt_stream* handle, int async) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (kind < HKRT_MEMCPY_HOST_TO_HOST || kind > HKRT_MEMCPY_DEFAULT)
    return fail(HKRT_ERROR_INVALID_MEMCPY_DIRECTION, "invalid memcpy kind %d", kind);
  if (bytes > 0 && (dst == nullptr || src == nullptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "memcpy of %zu bytes with a NULL pointer", bytes);
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  return copy(stream, dst, side_of(dst), src, side_of(src), bytes, kind, async);
}

int hkrt_memcpy_peer(void* dst, int dst_index, const void* src, int src_index, size_t bytes,
                     int index, hkrt_stream* handle, int async) {
  Device *device = nullptr, *dst_device = nullptr, *src_device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = device_get(dst_index, &dst_device)) return error;
  if (int error = device_get(src_index, &src_device)) return error;
  if (bytes > 0 && (dst == nullptr || src == nullptr))
    return fail(HKRT_ERROR_INVALID_VALUE, "peer copy of %zu bytes with a NULL pointer", bytes);
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  // The devices named, whatever memory the pointers are in (as HIP, which
  // does not check them).
  Side to{side_of(dst).kind, dst_device}, from{side_of(src).kind, src_device};
  return copy(stream, dst, to, src, from, bytes, HKRT_MEMCPY_DEVICE_TO_DEVICE, async);
}

int hkrt_memset(int index, void* dst, uint32_t value, size_t count, uint32_t elem_size,
                hkrt_stream* handle, int async) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4)
    return fail(HKRT_ERROR_INVALID_VALUE, "memset element size must be 1, 2 or 4, not %u",
                elem_size);
  if (count > 0 && dst == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "memset of %zu elements at NULL", count);
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  if (int error = sticky_check(stream_device(stream))) return error;
  if (int error = capture_admit(stream, async ? kCaptureEnqueue : kCaptureUnsafe)) return error;
  if (count == 0) return HKRT_SUCCESS;
  Op* op = new Op;
  op->kind = OpKind::Set;
  op->dst = dst;
  const Device* owner = side_of(dst).device;
  op->dst_device = int16_t(owner != nullptr ? owner->index : -1);
  op->bytes = count * elem_size;
  op->value = elem_size == 4 ? value : value & ((1u << (8 * elem_size)) - 1);
  op->elem_size = elem_size;
  return submit(op, stream, async);
}

}  // extern "C"
