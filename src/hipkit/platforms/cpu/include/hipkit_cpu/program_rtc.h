// hipkit CPU platform: hiprtc, HIP's run-time compiler, in whole programs
// (hip/hiprtc.h).
//
// hipkit's compiler is Python: hiprtcCompileProgram runs it in a child
// process (runtime/rtc.cpp, hipkit/cc/rtc.py) with the interpreter that built
// the program and the hipkit it imported, which hipkit cc records as
// __HIPKIT_PYTHON and __HIPKIT_PYTHONPATH; HIPKIT_RTC_PYTHON names another
// interpreter (with hipkit installed) at run time.  The program is compiled
// by hipkit.hip's hiprtc for the CPU at the program's warp size: the log,
// the results and the cache are the Python API's, and hiprtcGetCode's bytes
// are the kernel module hipModuleLoadData loads.  hiprtcGetLoweredName gives
// the name hipModuleGetFunction finds the name expression's kernel by.
#ifndef HIPKIT_CPU_PROGRAM_RTC_H
#define HIPKIT_CPU_PROGRAM_RTC_H

#include "runtime_module.h"

#if !defined(__HIPKIT_PYTHON) || !defined(__HIPKIT_PYTHONPATH)
#error "hiprtc needs to know the Python that runs hipkit's compiler: build the program with hipkit cc"
#endif

typedef enum hiprtcResult {
  HIPRTC_SUCCESS = HKRT_RTC_SUCCESS,
  HIPRTC_ERROR_OUT_OF_MEMORY = HKRT_RTC_ERROR_OUT_OF_MEMORY,
  HIPRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  HIPRTC_ERROR_INVALID_INPUT = HKRT_RTC_ERROR_INVALID_INPUT,
  HIPRTC_ERROR_INVALID_PROGRAM = HKRT_RTC_ERROR_INVALID_PROGRAM,
  HIPRTC_ERROR_INVALID_OPTION = HKRT_RTC_ERROR_INVALID_OPTION,
  HIPRTC_ERROR_COMPILATION = HKRT_RTC_ERROR_COMPILATION,
  HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
  HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION =
      HKRT_RTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION,
  HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION =
      HKRT_RTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION,
  HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID = HKRT_RTC_ERROR_NAME_EXPRESSION_NOT_VALID,
  HIPRTC_ERROR_INTERNAL_ERROR = HKRT_RTC_ERROR_INTERNAL_ERROR,
  HIPRTC_ERROR_LINKING = 100
} hiprtcResult;

typedef hkrt_rtc_program* hiprtcProgram;

// HIP's words: the result's name.
inline const char* hiprtcGetErrorString(hiprtcResult result) {
  switch (result) {
#define __HK_RTC_NAME(name) \
  case name:                \
    return #name;
    __HK_RTC_NAME(HIPRTC_SUCCESS)
    __HK_RTC_NAME(HIPRTC_ERROR_OUT_OF_MEMORY)
    __HK_RTC_NAME(HIPRTC_ERROR_PROGRAM_CREATION_FAILURE)
    __HK_RTC_NAME(HIPRTC_ERROR_INVALID_INPUT)
    __HK_RTC_NAME(HIPRTC_ERROR_INVALID_PROGRAM)
    __HK_RTC_NAME(HIPRTC_ERROR_INVALID_OPTION)
    __HK_RTC_NAME(HIPRTC_ERROR_COMPILATION)
    __HK_RTC_NAME(HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE)
    __HK_RTC_NAME(HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION)
    __HK_RTC_NAME(HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION)
    __HK_RTC_NAME(HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID)
    __HK_RTC_NAME(HIPRTC_ERROR_INTERNAL_ERROR)
    __HK_RTC_NAME(HIPRTC_ERROR_LINKING)
#undef __HK_RTC_NAME
  }
  return "invalid hiprtcResult";
}

// The HIP version these headers follow.
inline hiprtcResult hiprtcVersion(int* major, int* minor) {
  if (major == nullptr || minor == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  *major = HIP_VERSION_MAJOR;
  *minor = HIP_VERSION_MINOR;
  return HIPRTC_SUCCESS;
}

inline hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name,
                                        int numHeaders, const char* const* headers,
                                        const char* const* includeNames) {
  return static_cast<hiprtcResult>(
      hkrt_rtc_create(prog, src, name, numHeaders, headers, includeNames));
}

// A destroyed program's handle is HIPRTC_ERROR_INVALID_PROGRAM to every call
// (it is left as it is, as by NVRTC).
inline hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  return static_cast<hiprtcResult>(hkrt_rtc_destroy(*prog));
}

inline hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char* name_expression) {
  return static_cast<hiprtcResult>(hkrt_rtc_add_name_expression(prog, name_expression));
}

// Options as hipcc's (-D, -I, -std=, -O, -ffast-math ...); --offload-arch and
// the like are accepted and mean nothing on the CPU.
inline hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions,
                                         const char* const* options) {
  return static_cast<hiprtcResult>(hkrt_rtc_compile(prog, numOptions, options, __HK_WARP_SIZE,
                                                    __HIPKIT_PYTHON, __HIPKIT_PYTHONPATH));
}

// The log's size counts its terminating NUL.
inline hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* logSizeRet) {
  if (logSizeRet == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  return static_cast<hiprtcResult>(hkrt_rtc_log(prog, nullptr, logSizeRet));
}

inline hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
  if (log == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  const char* text = nullptr;
  size_t size = 0;
  if (int result = hkrt_rtc_log(prog, &text, &size)) return static_cast<hiprtcResult>(result);
  memcpy(log, text, size);
  return HIPRTC_SUCCESS;
}

inline hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* codeSizeRet) {
  if (codeSizeRet == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  return static_cast<hiprtcResult>(hkrt_rtc_code(prog, nullptr, codeSizeRet));
}

inline hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
  if (code == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  const void* bytes = nullptr;
  size_t size = 0;
  if (int result = hkrt_rtc_code(prog, &bytes, &size)) return static_cast<hiprtcResult>(result);
  memcpy(code, bytes, size);
  return HIPRTC_SUCCESS;
}

inline hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char* name_expression,
                                         const char** lowered_name) {
  return static_cast<hiprtcResult>(hkrt_rtc_lowered_name(prog, name_expression, lowered_name));
}

#endif  // HIPKIT_CPU_PROGRAM_RTC_H
