// hipkit NVIDIA platform, whole programs: hiprtc on NVRTC (hip/hiprtc.h).
//
// The names are generated (rtc_names.h: hiprtcCreateProgram(...) is
// nvrtcCreateProgram(...); hiprtcGetCode gives PTX, nvrtcGetPTX, as in HIP for
// NVIDIA).  hiprtcCompileProgram is written here: a kernel source gets what
// kernels compiled from Python with NVRTC get (hipkit/platforms/nvidia/
// compiler.py): hipkit's hip/hip_runtime.h for NVRTC pre-included (HIP's
// names, warpSize a constant, HIP's intrinsics), -default-device, HIP's
// platform macros and C++17; and, unless an option names an NVIDIA target,
// the virtual architecture of the current device (compute_90 on an H200),
// whose PTX the driver compiles when hipModuleLoadData loads it.  AMD targets
// (--offload-arch=gfx90a) from code written for both are left out.
//
// hipkit cc records where NVRTC's header and hipkit's headers are
// (__HIPKIT_NVRTC_H, __HIPKIT_NVIDIA_INCLUDE_DIR, __HIPKIT_PORTABLE_INCLUDE_DIR)
// and links NVRTC where it found it.
#pragma once

#if defined(__HIPKIT_NVRTC_H)
#include __HIPKIT_NVRTC_H
#elif __has_include(<nvrtc.h>)
#include <nvrtc.h>
#else
#error "hiprtc needs NVRTC: install the CUDA toolkit's (or pip install nvidia-cuda-nvrtc), then build again"
#endif
#if !defined(__HIPKIT_NVIDIA_INCLUDE_DIR) || !defined(__HIPKIT_PORTABLE_INCLUDE_DIR)
#error "hiprtc needs hipkit's device headers: build the program with hipkit cc --platform nvidia"
#endif

#include <cstring>
#include <string>
#include <vector>

#include "hipkit_nvidia_program/rtc_names.h"  // generated: hipkit/tables

namespace __hk_rtc {

// The NVIDIA target of an architecture option (--offload-arch=, -arch=,
// --gpu-architecture=), "" for an AMD one, nullptr if `option` is not one.
inline const char* target_of(const char* option) {
  for (const char* prefix : {"--offload-arch=", "--gpu-architecture=", "-arch=", "--amdgpu-target="}) {
    const size_t n = std::strlen(prefix);
    if (std::strncmp(option, prefix, n) != 0) continue;
    const char* target = option + n;
    return std::strncmp(target, "sm_", 3) == 0 || std::strncmp(target, "compute_", 8) == 0 ? target : "";
  }
  return nullptr;
}

}  // namespace __hk_rtc

inline hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions,
                                         const char* const* options) {
  if (numOptions < 0 || (numOptions > 0 && options == nullptr)) return HIPRTC_ERROR_INVALID_INPUT;
  std::vector<std::string> all = {
      "-default-device",
      "--pre-include=hip/hip_runtime.h",
      std::string("-I") + __HIPKIT_NVIDIA_INCLUDE_DIR,
      std::string("-I") + __HIPKIT_PORTABLE_INCLUDE_DIR,
      "-D__HIP_PLATFORM_NVIDIA__",
      "-D__HIP_PLATFORM_NVCC__",
  };
  bool target = false, standard = false;
  for (int i = 0; i < numOptions; ++i) {
    if (options[i] == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
    if (const char* arch = __hk_rtc::target_of(options[i])) {
      if (*arch != '\0') all.push_back(std::string("--gpu-architecture=") + arch);
      target = target || *arch != '\0';
      continue;
    }
    const std::string option = options[i];
    standard = standard || option.rfind("-std=", 0) == 0 || option.rfind("--std=", 0) == 0;
    all.push_back(option);
  }
  int device = 0, major = 0, minor = 0;
  if (!target) {
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess)
      all.push_back("--gpu-architecture=compute_" + std::to_string(major * 10 + minor));
    else  // no GPU here: NVRTC's default target, and no error left for hipGetLastError
      (void)cudaGetLastError();
  }
  if (!standard) all.push_back("--std=c++17");
  std::vector<const char*> pointers;
  for (const std::string& option : all) pointers.push_back(option.c_str());
  return nvrtcCompileProgram(prog, int(pointers.size()), pointers.data());
}
