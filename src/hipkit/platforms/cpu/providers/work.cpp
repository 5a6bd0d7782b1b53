// hipkit's CPU library providers: their work on the runtime's streams (work.h).
#include "work.h"

namespace hkprovider {
namespace {

// The work's body, on a worker.  Enqueued with HKRT_HOST_FUNC_ALWAYS so that it runs
// exactly once and is freed: after the device's sticky error it does nothing, as the
// kernels dropped then.  A fault inside it is that sticky error (the runtime catches it
// on the worker; the Work is then lost).
void run_work(void* data) {
  Work* work = static_cast<Work*>(data);
  if (hkrt_sticky_error(work->device) == HKRT_SUCCESS) work->run();
  delete work;
}

}  // namespace

bool launch(int device, hkrt_stream* stream, const char* name, Work* work, bool small) {
  int owner = device;
  if (stream != nullptr && hkrt_stream_get_device(device, stream, &owner) != HKRT_SUCCESS) {
    delete work;
    return false;
  }
  work->device = owner;
  const unsigned flags = HKRT_HOST_FUNC_ALWAYS | (small ? HKRT_HOST_FUNC_SMALL : 0u);
  if (hkrt_launch_host_func(device, stream, run_work, work, name, flags) != HKRT_SUCCESS) {
    delete work;
    return false;
  }
  return true;
}

}  // namespace hkprovider
