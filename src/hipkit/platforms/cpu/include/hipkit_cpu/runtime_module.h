// hipkit CPU platform: what libhipkit_cpu.so adds for the module API and
// hiprtc of whole programs (hipkit_cpu/program_module.h, program_rtc.h).
//
// A program's modules are loaded from bytes in memory, as hipModuleLoadData
// takes them; a program's run-time compiler is hipkit's own, in Python, run
// as a child process (runtime/rtc.cpp; hipkit/cc/rtc.py is the other end):
// the code object is the kernel module hipkit's CPU compiler makes for the
// Python API (DESIGN.md, seam 6).
#ifndef HIPKIT_CPU_RUNTIME_MODULE_H
#define HIPKIT_CPU_RUNTIME_MODULE_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

// Loads a kernel module on `device` from its bytes (a module.so, as
// hiprtcGetCode gives it).  `size` 0: `image` is an ELF file, whose headers
// give its size.  Each load is an instance of its own, with its own
// __device__ variables, as in HIP.  Bytes that are not a kernel module are
// hipErrorInvalidImage.
int hkrt_module_load_image(int device, const void* image, size_t size, hkrt_module** out);
// The same with the bytes of the file `path` (hkrt_module_load shares one
// instance among the loads of a file, as dlopen does).
int hkrt_module_load_file(int device, const char* path, hkrt_module** out);
// Unloads a module of hkrt_module_load_image or hkrt_module_load_file.
int hkrt_module_unload_image(hkrt_module* module);

// ---- hiprtc ------------------------------------------------------------------
// These return hiprtcResult values (HIP's numbering), not hipError_t.
enum {
  HKRT_RTC_SUCCESS = 0,
  HKRT_RTC_ERROR_OUT_OF_MEMORY = 1,
  HKRT_RTC_ERROR_INVALID_INPUT = 3,
  HKRT_RTC_ERROR_INVALID_PROGRAM = 4,
  HKRT_RTC_ERROR_INVALID_OPTION = 5,
  HKRT_RTC_ERROR_COMPILATION = 6,
  HKRT_RTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
  HKRT_RTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
  HKRT_RTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
  HKRT_RTC_ERROR_INTERNAL_ERROR = 11
};

typedef struct hkrt_rtc_program hkrt_rtc_program;

// A program from HIP C++ `source`; `name` (NULL: "default_program") names
// it in diagnostics; include_names[i] #includes headers[i].
int hkrt_rtc_create(hkrt_rtc_program** out, const char* source, const char* name, int num_headers,
                    const char* const* headers, const char* const* include_names);
int hkrt_rtc_destroy(hkrt_rtc_program* program);
int hkrt_rtc_add_name_expression(hkrt_rtc_program* program, const char* expression);
// Compiles for warp size `warp_size` with hipkit's compiler: `python` (with
// `python_path` first on PYTHONPATH) runs it, unless HIPKIT_RTC_PYTHON names
// another Python (with hipkit importable) to run.
int hkrt_rtc_compile(hkrt_rtc_program* program, int num_options, const char* const* options,
                     uint32_t warp_size, const char* python, const char* python_path);
// The log (NUL-terminated, `size` counting the NUL) and the code of the last
// compile; valid until the next compile or hkrt_rtc_destroy.
int hkrt_rtc_log(hkrt_rtc_program* program, const char** log, size_t* size);
int hkrt_rtc_code(hkrt_rtc_program* program, const void** code, size_t* size);
int hkrt_rtc_lowered_name(hkrt_rtc_program* program, const char* expression,
                          const char** lowered);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HIPKIT_CPU_RUNTIME_MODULE_H
