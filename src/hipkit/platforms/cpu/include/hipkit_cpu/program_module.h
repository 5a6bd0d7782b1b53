// hipkit CPU platform: HIP's module API in whole programs (part of program.h).
//
// A module is a kernel module as hipkit's CPU compiler makes it for the
// Python API (a shared object): the code hiprtcGetCode gives, in a program or
// in Python, or the file of hipkit.compile(...).binary.path.  Each load is an
// instance of its own, with its own __device__ variables, on the current
// device: its functions launch there only (hipErrorInvalidHandle on another,
// as a GPU's module is its context's).  Functions are
// found by name, name expression ("scale<float>") or lowered name;
// hipModuleLaunchKernel takes the arguments as kernelParams (a pointer to
// each) or packed into one buffer through `extra` (each at the next offset
// aligned for its type, as CUDA packs them).  Each call is traced by
// `hipkit prof` (__HK_API_CALL, program_profile.h).
#ifndef HIPKIT_CPU_PROGRAM_MODULE_H
#define HIPKIT_CPU_PROGRAM_MODULE_H

#include "runtime_module.h"

typedef hkrt_module* hipModule_t;
// Not a pointer to const, as HIP's is not: programs cast it to void* (a kernel
// node's func); nothing writes through it.
typedef hk_kernel_desc* hipFunction_t;

// hipModuleLaunchKernel's `extra`: {BUFFER_POINTER, buffer, BUFFER_SIZE, &size, END}.
#define HIP_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
#define HIP_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)
#define HIP_LAUNCH_PARAM_END ((void*)0x03)

typedef enum hipFunction_attribute {
  HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
  HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_NUM_REGS,
  HIP_FUNC_ATTRIBUTE_PTX_VERSION,
  HIP_FUNC_ATTRIBUTE_BINARY_VERSION,
  HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA,
  HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
  HIP_FUNC_ATTRIBUTE_MAX
} hipFunction_attribute;

// hipModuleLoadDataEx's options: there is no JIT compiler on the CPU, so only
// the logs mean something (the error log says why a load failed).
typedef enum hipJitOption {
  hipJitOptionMaxRegisters = 0,
  hipJitOptionThreadsPerBlock,
  hipJitOptionWallTime,
  hipJitOptionInfoLogBuffer,
  hipJitOptionInfoLogBufferSizeBytes,
  hipJitOptionErrorLogBuffer,
  hipJitOptionErrorLogBufferSizeBytes,
  hipJitOptionOptimizationLevel,
  hipJitOptionTargetFromContext,
  hipJitOptionTarget,
  hipJitOptionFallbackStrategy,
  hipJitOptionGenerateDebugInfo,
  hipJitOptionLogVerbose,
  hipJitOptionGenerateLineInfo,
  hipJitOptionCacheMode,
  hipJitOptionSm3xOpt,
  hipJitOptionFastCompile,
  hipJitOptionNumOptions
} hipJitOption;

namespace __hk {

// Writes `text` into a JIT log buffer of `size` bytes (its size option's
// value), cut to fit, and the bytes written, NUL included, back into it.
inline void jit_log(void* buffer, void** size_value, const char* text) {
  if (buffer == nullptr || size_value == nullptr) return;
  const size_t size = reinterpret_cast<size_t>(*size_value);
  if (size == 0) return;
  const size_t length = strnlen(text, size - 1);
  memcpy(buffer, text, length);
  static_cast<char*>(buffer)[length] = '\0';
  *size_value = reinterpret_cast<void*>(length + 1);
}

}  // namespace __hk

// ---- Loading and unloading -----------------------------------------------------

inline hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  __HK_API_CALL();
  if (module == nullptr || image == nullptr) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_module_load_image(__hk::current(), image, 0, module));
}

inline hipError_t hipModuleLoadDataEx(hipModule_t* module, const void* image,
                                      unsigned int num_options, hipJitOption* options,
                                      void** values) {
  __HK_API_CALL();
  if (num_options > 0 && (options == nullptr || values == nullptr))
    return __hk::result(hipErrorInvalidValue);
  hipError_t code = hipModuleLoadData(module, image);
  void *info = nullptr, *error = nullptr, **info_size = nullptr, **error_size = nullptr;
  for (unsigned int i = 0; i < num_options; ++i) {
    if (options[i] == hipJitOptionInfoLogBuffer) info = values[i];
    if (options[i] == hipJitOptionErrorLogBuffer) error = values[i];
    if (options[i] == hipJitOptionInfoLogBufferSizeBytes) info_size = &values[i];
    if (options[i] == hipJitOptionErrorLogBufferSizeBytes) error_size = &values[i];
  }
  __hk::jit_log(info, info_size, "");
  __hk::jit_log(error, error_size, code == hipSuccess ? "" : hkrt_last_error_detail());
  return code;
}

// A second load of one file is a module of its own too.
inline hipError_t hipModuleLoad(hipModule_t* module, const char* fname) {
  __HK_API_CALL();
  if (module == nullptr || fname == nullptr) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_module_load_file(__hk::current(), fname, module));
}

inline hipError_t hipModuleUnload(hipModule_t module) {
  __HK_API_CALL();
  return __hk::result(hkrt_module_unload_image(module));
}

// ---- Functions and globals ---------------------------------------------------------

inline hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module,
                                       const char* kname) {
  __HK_API_CALL();
  if (function == nullptr || kname == nullptr) return __hk::result(hipErrorInvalidValue);
  const hk_kernel_desc* found = nullptr;
  const int code = hkrt_module_get_function(module, kname, &found);
  if (code == 0) *function = const_cast<hk_kernel_desc*>(found);
  return __hk::result(code);
}

inline hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t module,
                                     const char* name) {
  __HK_API_CALL();
  return __hk::result(hkrt_module_get_global(module, name, dptr, bytes));
}

inline hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attribute,
                                      hipFunction_t function) {
  __HK_API_CALL();
  if (value == nullptr) return __hk::result(hipErrorInvalidValue);
  hipFuncAttributes a;
  if (hipError_t code = __hk::func_get_attributes(&a, function)) return code;
  switch (attribute) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
    case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = int(a.sharedSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = int(a.constSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = int(a.localSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
    case HIP_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
    case HIP_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
    case HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = a.cacheModeCA; break;
    case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = a.maxDynamicSharedSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = a.preferredShmemCarveout; break;
    default: return __hk::result(hipErrorInvalidValue);
  }
  return hipSuccess;
}

// ---- Launching ----------------------------------------------------------------------

inline hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX,
                                        unsigned int gridDimY, unsigned int gridDimZ,
                                        unsigned int blockDimX, unsigned int blockDimY,
                                        unsigned int blockDimZ, unsigned int sharedMemBytes,
                                        hipStream_t stream, void** kernelParams, void** extra) {
  __HK_API_CALL();
  const uint32_t grid[3] = {gridDimX, gridDimY, gridDimZ};
  const uint32_t block[3] = {blockDimX, blockDimY, blockDimZ};
  if (extra == nullptr)
    return __hk::result(
        hkrt_launch(__hk::current(), f, grid, block, sharedMemBytes, stream, kernelParams));
  if (kernelParams != nullptr) return __hk::result(hipErrorInvalidValue);  // one or the other
  const void* buffer = nullptr;
  const size_t* size = nullptr;
  for (void** p = extra; *p != HIP_LAUNCH_PARAM_END; p += 2) {
    if (*p == HIP_LAUNCH_PARAM_BUFFER_POINTER)
      buffer = p[1];
    else if (*p == HIP_LAUNCH_PARAM_BUFFER_SIZE)
      size = static_cast<const size_t*>(p[1]);
    else
      return __hk::result(hipErrorInvalidValue);
  }
  if (buffer == nullptr || size == nullptr) return __hk::result(hipErrorInvalidValue);
  return __hk::result(hkrt_launch_packed(__hk::current(), f, grid, block, sharedMemBytes, stream,
                                         buffer, *size));
}

#endif  // HIPKIT_CPU_PROGRAM_MODULE_H
