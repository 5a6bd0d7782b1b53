// hipkit CPU platform: kernel launches and kernel functions of whole programs
// (part of program.h).
//
// hipkit's source transform rewrites every launch `k<<<g, b, s, st>>>(args)`
// (hipLaunchKernelGGL expands to one, as in HIP) into
//
//   ::__hk::launch(PICK(k), CALL(k), "k", g, b, s, st)(args)
//
// PICK(k) is a generic lambda that names k exactly if it can (a kernel, a
// template instance named in full, a function pointer): the arguments are
// then converted by a real call to a function taking the kernel's parameter
// types (a literal 0 is a null pointer, as in CUDA).  Otherwise (a template
// whose arguments are deduced, an overloaded kernel) CALL(k), a lambda that
// calls k with the arguments, is what runs each block: the kernel is chosen
// as the launch's call would choose it.
//
// Each translation unit registers its kernels with the runtime when the
// program starts (hkrt_program_register), so that `const void*` kernel
// handles work; a kernel no unit registered (a template instance) gets a
// generic descriptor on first use, whose entry calls the function or the
// lambda it is given as a hidden last argument.
#ifndef HIPKIT_CPU_PROGRAM_LAUNCH_H
#define HIPKIT_CPU_PROGRAM_LAUNCH_H

#include <type_traits>
#include <utility>

namespace __hk {

template <class T>
using arg_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <class... P>
struct generic_kernel {
  using fn = void (*)(P...);
  static constexpr hk_param_desc params[] = {
      {static_cast<uint32_t>(sizeof(arg_t<P>)), static_cast<uint32_t>(alignof(arg_t<P>)),
       param_kind<arg_t<P>>()}...,
      {static_cast<uint32_t>(sizeof(fn)), static_cast<uint32_t>(alignof(fn)), HK_PARAM_POINTER}};
  template <size_t... I>
  static void call(void** args, std::index_sequence<I...>) {
    (*static_cast<fn*>(args[sizeof...(P)]))(*static_cast<arg_t<P>*>(args[I])...);
  }
  static void entry(void** args) { call(args, std::index_sequence_for<P...>{}); }
  static constexpr hk_kernel_desc desc = {"", nullptr, &entry, HK_EXEC_LOOP,
                                          static_cast<uint32_t>(sizeof...(P) + 1), params};
};

// The kernel behind a `const void*` handle: only a registered one.
inline hipError_t function_of(const void* kernel, const hk_kernel_desc** out) {
  return result(hkrt_program_function(kernel, nullptr, nullptr, out));
}
// NULL where a kernel goes, an integer under g++: the null handle, as HIP's
// `const void*` parameters take it.
template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
inline hipError_t function_of(I kernel, const hk_kernel_desc** out) {
  return function_of(reinterpret_cast<const void*>(static_cast<intptr_t>(kernel)), out);
}

template <class... P>
inline hipError_t function_of(void (*kernel)(P...), const hk_kernel_desc** out,
                              const char* name = "") {
  return result(hkrt_program_function(reinterpret_cast<const void*>(kernel),
                                      &generic_kernel<P...>::desc, name, out));
}

// Launches with args[i] pointing to argument i, and args[num_params] to the
// kernel's function (read by a generic descriptor only).
inline hipError_t launch_args(const hk_kernel_desc* desc, const dim3& grid, const dim3& block,
                              size_t shared, hipStream_t stream, void** args) {
  if (shared > UINT32_MAX) return result(hipErrorInvalidConfiguration);
  const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  return result(hkrt_launch(current(), desc, g, b, static_cast<uint32_t>(shared), stream, args));
}

struct launch_config {
  const char* name;
  dim3 grid, block;
  size_t shared;
  hipStream_t stream;
};

// What the pick lambda asks for: the kernel as one function.
struct pick_exact {
  template <class... P>
  static auto pick(void (*kernel)(P...)) {
    return kernel;
  }
};

// The kernel run by calling `Call` (a lambda that calls it) with arguments of
// types A...: the descriptor of one (Call, A...), whose hidden last argument is
// the lambda (it captures nothing: its bytes do not matter).
template <class Call, class... A>
struct called_kernel {
  static_assert(std::is_trivially_copyable_v<Call> && std::is_empty_v<Call>,
                "a kernel launched by deduction must be named by a function or template name");
  static constexpr hk_param_desc params[] = {
      {static_cast<uint32_t>(sizeof(A)), static_cast<uint32_t>(alignof(A)), param_kind<A>()}...,
      {static_cast<uint32_t>(sizeof(Call)), static_cast<uint32_t>(alignof(Call)), HK_PARAM_OTHER}};
  template <size_t... I>
  static void call(void** args, std::index_sequence<I...>) {
    (*static_cast<Call*>(args[sizeof...(A)]))(*static_cast<A*>(args[I])...);
  }
  static void entry(void** args) { call(args, std::index_sequence_for<A...>{}); }
  static constexpr hk_kernel_desc desc = {"", nullptr, &entry, HK_EXEC_LOOP,
                                          static_cast<uint32_t>(sizeof...(A) + 1), params};
};

// A kernel known once the arguments' types are.
template <class Call>
struct deduced_launch {
  Call call;
  launch_config config;
  template <class... A>
  void operator()(A... args) const {
    __HK_API_CALL_NAMED("hipLaunchKernel");
    using kernel = called_kernel<Call, A...>;
    const hk_kernel_desc* desc = nullptr;
    int code = hkrt_program_function(reinterpret_cast<const void*>(&kernel::entry), &kernel::desc,
                                     config.name, &desc);
    if (result(code) != hipSuccess) return;
    Call callable = call;
    void* pointers[] = {static_cast<void*>(&args)..., static_cast<void*>(&callable)};
    launch_args(desc, config.grid, config.block, config.shared, config.stream, pointers);
  }
};

// A kernel and its configuration, called with the kernel's own parameter types;
// with fewer arguments (the kernel has default arguments), through `call`.
template <class Call, class... P>
struct bound_launch {
  void (*kernel)(P...);
  Call call;
  launch_config config;
  template <class... A, std::enable_if_t<sizeof...(A) != sizeof...(P), int> = 0>
  void operator()(A... args) const {
    deduced_launch<Call>{call, config}(args...);
  }
  void operator()(P... args) const {
    __HK_API_CALL_NAMED("hipLaunchKernel");
    const hk_kernel_desc* desc = nullptr;
    if (function_of(kernel, &desc, config.name) != hipSuccess) return;
    auto function = kernel;
    void* pointers[] = {const_cast<void*>(static_cast<const void*>(&args))...,
                        reinterpret_cast<void*>(&function)};
    launch_args(desc, config.grid, config.block, config.shared, config.stream, pointers);
  }
};

template <class Call, class... P>
inline bound_launch<Call, P...> bind(void (*kernel)(P...), Call call, const launch_config& config) {
  return {kernel, call, config};
}

// The stream argument of a launch: a hipStream_t, nullptr, or an integer (0).
template <class S>
inline hipStream_t as_stream(S stream) {
  if constexpr (std::is_integral_v<S>)
    return reinterpret_cast<hipStream_t>(static_cast<uintptr_t>(stream));
  else
    return stream;
}

template <class Pick, class Call, class S = hipStream_t>
inline auto launch(Pick pick, Call call, const char* name, const dim3& grid, const dim3& block,
                   size_t shared = 0, S stream = nullptr) {
  const launch_config config{name, grid, block, shared, as_stream(stream)};
  if constexpr (std::is_invocable_v<Pick&, pick_exact>)
    return bind(pick(pick_exact{}), call, config);
  else
    return deduced_launch<Call>{call, config};
}

// A translation unit's registration, run when the program starts.
inline int register_unit(const hk_module_desc* unit) {
  int code = hkrt_program_register(unit);
  if (code != hipSuccess) {
    fprintf(stderr, "hipkit: the CPU runtime cannot run this program: %s: %s\n",
            hipGetErrorName(static_cast<hipError_t>(code)), hkrt_last_error_detail());
    exit(EXIT_FAILURE);
  }
  return code;
}

inline hipError_t attributes(const hk_kernel_desc* desc, hkrt_function_attributes* out) {
  return result(hkrt_function_get_attributes(desc, out));
}

inline hipError_t func_get_attributes(hipFuncAttributes* attr, const hk_kernel_desc* desc) {
  if (attr == nullptr) return result(hipErrorInvalidValue);
  hkrt_function_attributes a;
  if (hipError_t code = attributes(desc, &a)) return code;
  memset(attr, 0, sizeof(*attr));
  attr->maxThreadsPerBlock = static_cast<int>(a.max_threads_per_block);
  attr->sharedSizeBytes = a.static_shared_bytes;
  attr->maxDynamicSharedSizeBytes = 65536 - static_cast<int>(a.static_shared_bytes);
  return hipSuccess;
}

inline hipError_t func_set_attribute(const hk_kernel_desc* desc, hipFuncAttribute attribute,
                                     int value) {
  hkrt_function_attributes a;
  if (hipError_t code = attributes(desc, &a)) return code;
  if (attribute == hipFuncAttributeMaxDynamicSharedMemorySize)
    return value >= 0 && value <= 65536 - static_cast<int>(a.static_shared_bytes)
               ? hipSuccess
               : result(hipErrorInvalidValue);
  if (attribute == hipFuncAttributePreferredSharedMemoryCarveout)
    return value >= -1 && value <= 100 ? hipSuccess : result(hipErrorInvalidValue);
  return result(hipErrorInvalidValue);
}

}  // namespace __hk

// ---- Launching --------------------------------------------------------------------

// As in HIP: a macro for the launch syntax, so that the arguments are
// converted to the kernel's parameter types as in a call.
#define hipLaunchKernelGGLInternal(kernel, blocks, threads, shared, stream, ...) \
  do {                                                                          \
    kernel<<<(blocks), (threads), (shared), (stream)>>>(__VA_ARGS__);           \
  } while (0)
#define hipLaunchKernelGGL(kernel, ...) hipLaunchKernelGGLInternal((kernel), __VA_ARGS__)

inline hipError_t hipLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args,
                                  size_t shared = 0, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  return __hk::launch_args(desc, grid, block, shared, stream, args);
}

template <class... P>
inline hipError_t hipLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void** args,
                                  size_t shared = 0, hipStream_t stream = nullptr) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  if (args == nullptr && sizeof...(P) > 0) return __hk::result(hipErrorInvalidValue);
  auto function = kernel;
  void* pointers[sizeof...(P) + 1];
  for (size_t i = 0; i < sizeof...(P); ++i) pointers[i] = args[i];
  pointers[sizeof...(P)] = reinterpret_cast<void*>(&function);
  return __hk::launch_args(desc, grid, block, shared, stream, pointers);
}

// ---- Kernel functions: attributes (occupancy: program_occupancy.h) --------------------------------------
// Each takes a kernel (typed: any kernel) or a `const void*` handle to one (a
// kernel some unit registered, or one launched before).

inline hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, const void* kernel) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  return __hk::func_get_attributes(attr, desc);
}
template <class... P>
inline hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, void (*kernel)(P...)) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  return __hk::func_get_attributes(attr, desc);
}

inline hipError_t hipFuncSetAttribute(const void* kernel, hipFuncAttribute attribute, int value) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  return __hk::func_set_attribute(desc, attribute, value);
}
template <class... P>
inline hipError_t hipFuncSetAttribute(void (*kernel)(P...), hipFuncAttribute attribute, int value) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  return __hk::func_set_attribute(desc, attribute, value);
}

inline hipError_t hipFuncSetCacheConfig(const void* kernel, hipFuncCache_t) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  return __hk::function_of(kernel, &desc);
}
template <class... P>
inline hipError_t hipFuncSetCacheConfig(void (*kernel)(P...), hipFuncCache_t) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  return __hk::function_of(kernel, &desc);
}

#endif  // HIPKIT_CPU_PROGRAM_LAUNCH_H
