// hipkit CPU platform: HIP's extensions in whole programs (part of program.h): those
// written on HIP's API (hipkit_program/hip_ext.h) and the kernel-name queries.
#ifndef HIPKIT_CPU_PROGRAM_EXT_H
#define HIPKIT_CPU_PROGRAM_EXT_H

#define __HK_RESULT(code) ::__hk::result(code)
#include "hipkit_program/hip_ext.h"

// A kernel's name as its source names it ("scale", "scale<float>"), or NULL.
inline const char* hipKernelNameRef(const hipFunction_t f) {
  __HK_API_CALL();
  return f != nullptr ? f->name : nullptr;
}
inline const char* hipKernelNameRefByPtr(const void* hostFunction, hipStream_t) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  return __hk::function_of(hostFunction, &desc) == hipSuccess ? desc->name : nullptr;
}

#endif  // HIPKIT_CPU_PROGRAM_EXT_H
