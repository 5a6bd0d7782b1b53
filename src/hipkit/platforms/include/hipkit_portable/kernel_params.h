// hipkit: kernel parameter descriptors, for the GPU platforms' compilers
// (NVRTC, hiprtc); part of the NVIDIA and AMD platforms' device.h.
//
// hipkit appends one descriptor per kernel to the compiled source
// (hipkit/platforms/_gpu/compiler.py):
//   extern "C" __device__ const __hk::kernel_params<decltype(__hk::decay(NAME))> __hk_params_N{};
// (NAME a name expression: "k", "&k", "k<float>", "static_cast<void (*)(int)>(&k)")
// and reads it back from the image's symbol table (a cubin, a code object),
// so that a launch knows each parameter's size, alignment and kind
// (hk_param_kind in the CPU platform's abi.h, whose descriptors the CPU
// platform makes with <type_traits> alike) without the driver's help: the
// drivers know sizes, and at most pointers, not signedness or floating point.
// Layout: the parameter count, then size, alignment, kind for each; a count
// of 0xffffffff marks a name that is not a kernel (e.g. a __device__
// variable's name expression).
#pragma once

#include "hipkit_portable/traits.h"

namespace __hk {

template <class T>
__host__ __device__ constexpr unsigned int param_kind() {
  using U = typename remove_cv<T>::type;
  if constexpr (is_pointer<U>::value || is_same<U, decltype(nullptr)>::value) {
    return 0;  // HK_PARAM_POINTER
  } else if constexpr (__is_enum(U)) {
    using E = __underlying_type(U);  // (clang takes no functional cast to it)
    return E(-1) < E(0) ? 1 : 2;
  } else if constexpr (is_same<U, bool>::value) {
    return 2;  // HK_PARAM_UNSIGNED
  } else if constexpr (is_integral<U>::value) {
    return U(-1) < U(0) ? 1 : 2;  // HK_PARAM_SIGNED, HK_PARAM_UNSIGNED
  } else if constexpr (is_floating_point<U>::value || is_same<U, __half>::value) {
    return 3;  // HK_PARAM_FLOAT
  } else {
    return 4;  // HK_PARAM_OTHER: structs and vector types, passed as bytes
  }
}

// The type of a name expression as a value: a function's becomes its pointer.
template <class F>
__device__ F decay(F);

template <class F>
struct kernel_params {
  unsigned int count = 0xffffffffu;
};

template <class... P>
struct kernel_params<void (*)(P...)> {
  unsigned int count = sizeof...(P);
  unsigned int params[sizeof...(P) ? sizeof...(P) : 1][3] = {
      {static_cast<unsigned int>(sizeof(P)), static_cast<unsigned int>(alignof(P)),
       param_kind<P>()}...};
};

}  // namespace __hk
