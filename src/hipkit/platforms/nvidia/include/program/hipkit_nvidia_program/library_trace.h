// hipkit NVIDIA platform, whole programs: a library's calls (hipBLAS's, defined inline
// over cuBLAS) as API rows of the trace `hipkit prof` writes.
//
// hipkit prof's CUPTI injection library (hipkit/platforms/nvidia/cupti_inject.cpp), which
// the CUDA driver loads from CUDA_INJECTION64_PATH when CUDA starts, exports
// hipkit_library_call_begin and _end; a call finds them there once the driver has loaded
// it, and from then on each call is one row, the CUDA calls inside it its inside.
// Without hipkit prof (no CUDA_INJECTION64_PATH, or another tool's library there) a call
// costs one atomic load.
#pragma once

#include <dlfcn.h>
#include <stdlib.h>

#include <atomic>

namespace __hk_trace {

using Begin = void (*)();
using End = void (*)(const char*);

inline std::atomic<Begin> begin_hook{nullptr};
inline std::atomic<End> end_hook{nullptr};
inline std::atomic<bool> no_hooks{false};

// The injection library's end hook after calling its begin hook, or null when the
// program is not traced (yet: the driver loads the library at CUDA's first call).
inline End begin_call() {
  if (Begin begin = begin_hook.load(std::memory_order_acquire)) {
    begin();
    return end_hook.load(std::memory_order_relaxed);
  }
  if (no_hooks.load(std::memory_order_relaxed)) return nullptr;
  const char* path = getenv("CUDA_INJECTION64_PATH");
  void* library = path != nullptr && *path ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
  if (library == nullptr) {
    if (path == nullptr || !*path) no_hooks.store(true, std::memory_order_relaxed);
    return nullptr;
  }
  auto begin = reinterpret_cast<Begin>(dlsym(library, "hipkit_library_call_begin"));
  auto end = reinterpret_cast<End>(dlsym(library, "hipkit_library_call_end"));
  dlclose(library);  // the reference RTLD_NOLOAD took: the driver keeps it loaded
  if (begin == nullptr || end == nullptr) {
    no_hooks.store(true, std::memory_order_relaxed);  // another tool's library
    return nullptr;
  }
  end_hook.store(end, std::memory_order_relaxed);
  begin_hook.store(begin, std::memory_order_release);
  begin();
  return end;
}

// One library call, named `function`, for the scope of the object.
class LibraryCall {
 public:
  explicit LibraryCall(const char* function) : function_(function), end_(begin_call()) {}
  ~LibraryCall() {
    if (end_ != nullptr) end_(function_);
  }
  LibraryCall(const LibraryCall&) = delete;
  LibraryCall& operator=(const LibraryCall&) = delete;

 private:
  const char* function_;
  End end_;
};

}  // namespace __hk_trace
