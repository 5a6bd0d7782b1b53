// hipkit CPU platform, the block executor (exec.h): what the transform writes
// around a kernel's body: the fibers a fiber kernel runs on, extern
// __shared__ at namespace scope, a kernel's assert, and the descriptor through
// which the runtime finds and calls the kernel.  Included after device.h
// (__half, a parameter kind of its own).
// Nothing here is meant to be called by user code.
#ifndef HIPKIT_CPU_EXEC_KERNEL_H
#define HIPKIT_CPU_EXEC_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include <type_traits>
#include <utility>

#include "abi.h"

namespace __hk {

// ---- Fibers ---------------------------------------------------------------

// Runs thread(t) for every thread of the block on its own fiber; each fiber
// works on its own copy of the closure (the kernel's parameters are per thread).
template <class F>
inline void run_fibers(F& thread) {
  struct trampoline {
    static void call(void* closure, unsigned int t) {
      F copy = *static_cast<F*>(closure);
      copy(t);
    }
  };
  __hk_run_fibers(&trampoline::call, &thread);
}

// ---- extern __shared__ at namespace scope -----------------------------------

// Stands for an array of unknown bound in the block's dynamic shared memory.
template <class T>
struct dyn_shared {
  T* get() const noexcept { return static_cast<T*>(__hk_block->dynamic_shared); }
  template <class U>
  operator U*() const noexcept {
    return reinterpret_cast<U*>(get());
  }
  T& operator[](ptrdiff_t i) const noexcept { return get()[i]; }
  T* operator+(ptrdiff_t i) const noexcept { return get() + i; }
  T& operator*() const noexcept { return *get(); }
};

// ---- Device assert ----------------------------------------------------------

// assert() in a kernel body: threadIdx there is a local of the thread loop, so
// store it where the runtime's report looks.
[[noreturn]] inline void kernel_assert_fail(const hk_index3& thread, const char* expr,
                                            const char* file, unsigned int line,
                                            const char* function) {
  ::threadIdx = thread;
  __hk_assert_fail(expr, file, line, function);
}

// ---- Kernel descriptors ------------------------------------------------------

template <class T>
constexpr uint32_t param_kind() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_pointer_v<U> || std::is_null_pointer_v<U>) {
    return HK_PARAM_POINTER;
  } else if constexpr (std::is_enum_v<U>) {
    return std::is_signed_v<std::underlying_type_t<U>> ? HK_PARAM_SIGNED : HK_PARAM_UNSIGNED;
  } else if constexpr (std::is_same_v<U, bool>) {
    return HK_PARAM_UNSIGNED;
  } else if constexpr (std::is_integral_v<U>) {
    return std::is_signed_v<U> ? HK_PARAM_SIGNED : HK_PARAM_UNSIGNED;
  } else if constexpr (std::is_floating_point_v<U> || std::is_same_v<U, __half>) {
    return HK_PARAM_FLOAT;
  } else {
    return HK_PARAM_OTHER;
  }
}

template <class Signature>
struct kernel_signature;

template <class... P>
struct kernel_signature<void (*)(P...)> {
  static constexpr uint32_t count = sizeof...(P);
  static constexpr hk_param_desc params[sizeof...(P) ? sizeof...(P) : 1] = {
      {static_cast<uint32_t>(sizeof(P)), static_cast<uint32_t>(alignof(P)), param_kind<P>()}...};

  template <auto F, size_t... I>
  static void call(void** args, std::index_sequence<I...>) {
    F(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(args[I])...);
  }
};

template <auto F>
struct kernel_entry {
  using signature = kernel_signature<decltype(F)>;
  static void entry(void** args) {
    signature::template call<F>(args, std::make_index_sequence<signature::count>{});
  }
  static hk_kernel_desc describe(const char* name, uint32_t mode) {
    return hk_kernel_desc{name,    reinterpret_cast<const void*>(F), &entry, mode,
                          signature::count, signature::params};
  }
};

}  // namespace __hk

#endif  // HIPKIT_CPU_EXEC_KERNEL_H
