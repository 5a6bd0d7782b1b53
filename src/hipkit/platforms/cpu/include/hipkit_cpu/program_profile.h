// hipkit CPU platform: what a whole program's HIP calls do for `hipkit prof`
// (part of program.h; the runtime's side is runtime/profile.cpp).
//
// Each hip* function of the program headers opens an __HK_API_CALL() scope:
// while `hipkit prof` traces the program, the outermost call of each thread
// becomes a record of hip_api_trace.csv, named by the function, and the
// device work it enqueues carries its correlation id.  Otherwise the scope is
// one relaxed load of hkrt_profile_on.
#ifndef HIPKIT_CPU_PROGRAM_PROFILE_H
#define HIPKIT_CPU_PROGRAM_PROFILE_H

#include <stddef.h>

extern "C" {
// 1 while the program is traced: set when libhipkit_cpu starts in a program
// run by `hipkit prof` (HIPKIT_PROF_DIR set), before the program's own code.
extern int hkrt_profile_on;
// A HIP call begins / ends on this thread (nested calls count as their outermost).
void hkrt_profile_enter(void);
void hkrt_profile_exit(const char* function);
// An allocation (allocate 1) or free (0) of device (host 0) or pinned host
// (host 1) memory, by the HIP call running on this thread.
void hkrt_profile_alloc(int allocate, int host, const void* address, size_t size);
// Written to executables by the program headers and to nothing else, so that
// libhipkit_cpu traces programs and never the Python processes loading it
// (their tracer is Python's).
__attribute__((weak)) extern const int hkrt_whole_program = 1;
}

namespace __hk {

class api_call {
 public:
  explicit api_call(const char* function)
      : function_(function), traced_(__atomic_load_n(&hkrt_profile_on, __ATOMIC_RELAXED) != 0) {
    if (traced_) hkrt_profile_enter();
  }
  ~api_call() {
    if (traced_) hkrt_profile_exit(function_);
  }
  api_call(const api_call&) = delete;
  api_call& operator=(const api_call&) = delete;

  // The result of an allocation (`*ptr`, `size` bytes) or a free (`ptr`), recorded if traced.
  hipError_t allocated(hipError_t code, void* const* ptr, size_t size, bool host) const {
    if (traced_ && code == hipSuccess) hkrt_profile_alloc(1, host, *ptr, size);
    return code;
  }
  hipError_t freed(hipError_t code, const void* ptr, bool host) const {
    if (traced_ && code == hipSuccess && ptr != nullptr) hkrt_profile_alloc(0, host, ptr, 0);
    return code;
  }

 private:
  const char* function_;
  bool traced_;
};

}  // namespace __hk

// A HIP call, named by its function; __HK_API_CALL_NAMED("...") where the
// enclosing function is not the HIP call (a <<<...>>> launch is hipLaunchKernel).
#define __HK_API_CALL() const ::__hk::api_call __hk_api_call(__func__)
#define __HK_API_CALL_NAMED(name) const ::__hk::api_call __hk_api_call(name)

#endif  // HIPKIT_CPU_PROGRAM_PROFILE_H
