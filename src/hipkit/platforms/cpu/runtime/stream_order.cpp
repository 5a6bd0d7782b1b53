// What pool reuse asks of stream order (pool.cpp): where a stream is, and
// whether another stream's next op is ordered after that point.
#include "internal.h"
#include "stream_types.h"

namespace hk {

namespace {

std::atomic<uint64_t> stream_ids{1};

}  // namespace

uint64_t next_stream_id() { return stream_ids++; }

void clock_merge(OrderClock& into, const StreamPoint& point) {
  for (StreamPoint& known : into)
    if (known.stream_id == point.stream_id) {
      known.count = std::max(known.count, point.count);
      return;
    }
  into.push_back(point);
}

StreamPoint stream_point(Stream* stream) {
  Lock lock = scheduler_lock();
  return {stream->id, stream->count};
}

bool stream_ordered_after(Stream* stream, const StreamPoint& point) {
  Lock lock = scheduler_lock();
  if (stream->id == point.stream_id) return stream->count >= point.count;
  for (const StreamPoint& known : stream->clock)
    if (known.stream_id == point.stream_id && known.count >= point.count) return true;
  // The legacy null stream and a blocking stream of its device order each other.
  Stream* null_stream = stream->device->null_stream;
  auto orders = [&](Stream* s) { return s->id == point.stream_id; };
  if (stream == null_stream) {
    for (Stream* s : stream->device->streams)
      if (is_blocking(s) && orders(s)) return true;
  } else if (is_blocking(stream) && orders(null_stream)) {
    return true;
  }
  return false;
}

}  // namespace hk
