// hipkit NVIDIA platform, whole programs: HIP's module API on the CUDA driver
// API (part of host.h).
//
// The names are generated (module_names.h: hipModuleLoadData(...) is
// cuModuleLoadData(...), hipModuleLaunchKernel(...) is cuLaunchKernel(...),
// HIP_LAUNCH_PARAM_* are CU_LAUNCH_PARAM_*).  The driver's functions are found
// through the CUDA runtime (cudaGetDriverEntryPoint), not linked: a program
// links without libcuda.so, as it does when it does not use modules, and a
// missing driver is HIP's error code rather than a loader failure.  A call
// first gives the thread the current device's context if it has none, as
// the runtime's calls do, so that hipModuleLoad may come before any other
// call.  Results are HIP's hipError_t (hipCUResultTohipError, errors.h).
#pragma once

#include "hipkit_nvidia_program/module_names.h"  // generated: hipkit/tables

// hipJitOption's values (hipModuleLoadDataEx), which hipify's table maps to
// hiprtc's HIPRTC_JIT_* instead: the driver's CUjit_option, in HIP's order.
#define hipJitOptionMaxRegisters CU_JIT_MAX_REGISTERS
#define hipJitOptionThreadsPerBlock CU_JIT_THREADS_PER_BLOCK
#define hipJitOptionWallTime CU_JIT_WALL_TIME
#define hipJitOptionInfoLogBuffer CU_JIT_INFO_LOG_BUFFER
#define hipJitOptionInfoLogBufferSizeBytes CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
#define hipJitOptionErrorLogBuffer CU_JIT_ERROR_LOG_BUFFER
#define hipJitOptionErrorLogBufferSizeBytes CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
#define hipJitOptionOptimizationLevel CU_JIT_OPTIMIZATION_LEVEL
#define hipJitOptionTargetFromContext CU_JIT_TARGET_FROM_CUCONTEXT
#define hipJitOptionTarget CU_JIT_TARGET
#define hipJitOptionFallbackStrategy CU_JIT_FALLBACK_STRATEGY
#define hipJitOptionGenerateDebugInfo CU_JIT_GENERATE_DEBUG_INFO
#define hipJitOptionLogVerbose CU_JIT_LOG_VERBOSE
#define hipJitOptionGenerateLineInfo CU_JIT_GENERATE_LINE_INFO
#define hipJitOptionCacheMode CU_JIT_CACHE_MODE
#define hipJitOptionSm3xOpt CU_JIT_NEW_SM3X_OPT
#define hipJitOptionFastCompile CU_JIT_FAST_COMPILE

namespace __hk_driver {

// A driver function, or why it is not there.
struct entry {
  void* address;
  hipError_t error;
};

// The driver's function `symbol`, in the version of the CUDA these headers
// are compiled with.
inline entry find(const char* symbol) {
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
  const unsigned long long flags = cudaEnablePerThreadDefaultStream;
#else
  const unsigned long long flags = cudaEnableDefault;
#endif
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t error = cudaGetDriverEntryPointByVersion(symbol, &address, CUDA_VERSION, flags, &found);
#else
  cudaError_t error = cudaGetDriverEntryPoint(symbol, &address, flags, &found);
#endif
  if (error != cudaSuccess) return {nullptr, hipCUDAErrorTohipError(error)};
  if (found != cudaDriverEntryPointSuccess) return {nullptr, hipErrorNotSupported};  // an older driver
  return {address, hipSuccess};
}

// Makes the current device's primary context current on this thread if no
// context is (cudaFree(0) does, as every runtime call).
inline hipError_t current_context() {
  static const entry get_current = find("cuCtxGetCurrent");
  if (get_current.address == nullptr) return get_current.error;
  CUcontext context = nullptr;
  reinterpret_cast<decltype(&cuCtxGetCurrent)>(get_current.address)(&context);
  return context != nullptr ? hipSuccess : hipCUDAErrorTohipError(cudaFree(nullptr));
}

template <class F>
struct function;

// A call of the driver's function `found`, with its parameter types (so that
// a literal 0 is a null stream) and HIP's result.
template <class... P>
struct function<CUresult(CUDAAPI*)(P...)> {
  const entry* found;
  hipError_t operator()(P... args) const {
    if (found->address == nullptr) return found->error;
    if (hipError_t error = current_context()) return error;
    return hipCUResultTohipError(reinterpret_cast<CUresult(CUDAAPI*)(P...)>(found->address)(args...));
  }
};

}  // namespace __hk_driver

// The driver's function `name` (cuModuleLoadData), looked up once per place
// it is called from.
#define __hk_driver_call(name)                                                      \
  ::__hk_driver::function<decltype(&name)> {                                        \
    [] {                                                                            \
      static const ::__hk_driver::entry found = ::__hk_driver::find(#name);         \
      return &found;                                                                \
    }()                                                                             \
  }

// hipDeviceptr_t is a pointer here (host.h), CUdeviceptr an integer.
inline hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t hmod,
                                     const char* name) {
  CUdeviceptr address = 0;
  hipError_t error = __hk_driver_call(cuModuleGetGlobal)(&address, bytes, hmod, name);
  if (error == hipSuccess && dptr != nullptr) *dptr = reinterpret_cast<void*>(address);
  return error;
}
