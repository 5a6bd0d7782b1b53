// hipkit's CPU library providers (hipBLAS on OpenBLAS, hipRAND): what they share of
// the runtime.  A library call's work is a host function of libhipkit_cpu
// (hkrt_launch_host_func) on the caller's stream, named after the call, which a worker
// of the stream's device runs in stream order: it orders with kernels, copies and
// events as a kernel does, and the call returns before it runs.  A call of a program
// traced by `hipkit prof` is an API row named after it (ApiCall).
#pragma once

#include <utility>

#include <hipkit_cpu/runtime.h>

namespace hkprovider {

struct Work {
  virtual ~Work() = default;
  virtual void run() = 0;
  int device = 0;  // whose sticky error drops it
};
template <class F> struct WorkOf final : Work {
  F f;
  explicit WorkOf(F&& body) : f(std::move(body)) {}
  void run() override { f(); }
};

// Enqueues work (taking it) on stream (NULL: device's null stream); small work runs
// like a small copy (HKRT_HOST_FUNC_SMALL).  False where the runtime refuses it (a
// sticky error, a stream destroyed: its error says why) or the stream is not one.
bool launch(int device, hkrt_stream* stream, const char* name, Work* work, bool small);

template <class F> bool enqueue(int device, hkrt_stream* stream, const char* name, F body, bool small) {
  return launch(device, stream, name, new WorkOf<F>(std::move(body)), small);
}

// libhipkit_cpu's side of a traced program's API calls (runtime/profile.cpp,
// include/hipkit_cpu/program_profile.h): declared here, as that header defines what
// only programs may.
extern "C" {
extern int hkrt_profile_on;
void hkrt_profile_enter(void);
void hkrt_profile_exit(const char* function);
}

// Each call of a program traced by `hipkit prof` is an API row named after it, and its
// work carries the call's correlation id (set by hkrt_profile_enter).
class ApiCall {
 public:
  explicit ApiCall(const char* name)
      : name_(name), traced_(__atomic_load_n(&hkrt_profile_on, __ATOMIC_RELAXED) != 0) {
    if (traced_) hkrt_profile_enter();
  }
  ~ApiCall() {
    if (traced_) hkrt_profile_exit(name_);
  }
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

 private:
  const char* name_;
  bool traced_;
};

}  // namespace hkprovider
