// hipkit NVIDIA platform, whole programs: HIP's extensions (part of host.h): those
// written on HIP's API (hipkit_program/hip_ext.h), the kernel-name queries (CUDA's
// cudaFuncGetName and the driver's cuFuncGetName), and the driver-style error names,
// which are HIP's (errors.h).
#pragma once

#define __HK_RESULT(code) (code)
#include "hipkit_program/hip_ext.h"

inline const char* hipKernelNameRefByPtr(const void* hostFunction, hipStream_t) {
  const char* name = nullptr;
  return cudaFuncGetName(&name, hostFunction) == cudaSuccess ? name : nullptr;
}
inline const char* hipKernelNameRef(const hipFunction_t f) {
  const char* name = nullptr;
  return __hk_driver_call(cuFuncGetName)(&name, f) == hipSuccess ? name : nullptr;
}

inline hipError_t hipDrvGetErrorName(hipError_t error, const char** name) {
  if (name == nullptr) return hipErrorInvalidValue;
  *name = hipGetErrorName(error);
  return hipSuccess;
}
inline hipError_t hipDrvGetErrorString(hipError_t error, const char** text) {
  if (text == nullptr) return hipErrorInvalidValue;
  *text = hipGetErrorString(error);
  return hipSuccess;
}
