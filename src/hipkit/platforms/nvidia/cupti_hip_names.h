// hipkit prof's CUPTI injection library: the HIP names of CUDA's functions,
// as the trace names API calls.
//
// Part of the injection library's one translation unit, cupti_inject.cpp
// (which says what the library does): its names stay inside the library, in
// the unit's unnamed namespace, as the library exports InitializeInjection alone.
#ifndef HIPKIT_CUPTI_HIP_NAMES_H
#define HIPKIT_CUPTI_HIP_NAMES_H

#include <algorithm>
#include <cstring>
#include <string>

namespace {

struct HipName {
  const char* cuda;
  const char* hip;
};
// CUDA runtime and driver functions -> HIP's names, sorted by CUDA name.
constexpr HipName kHipNames[] = {
#include "hip_names.inc"
};

const char* hip_lookup(const char* cuda) {
  const HipName* end = kHipNames + sizeof(kHipNames) / sizeof(kHipNames[0]);
  const HipName* it = std::lower_bound(kHipNames, end, cuda, [](const HipName& n, const char* key) {
    return strcmp(n.cuda, key) < 0;
  });
  return it != end && strcmp(it->cuda, cuda) == 0 ? it->hip : nullptr;
}

// The HIP name of a CUDA function as CUPTI names it ("cudaMalloc",
// "cudaMemcpyAsync_ptsz", "cuMemcpyHtoD_v2"): the name, else without its
// version and per-thread-stream suffixes; __cudaPushCallConfiguration is
// HIP's __hipPushCallConfiguration; a name HIP lacks stays CUDA's.
std::string hip_name(const char* cuda) {
  if (const char* hip = hip_lookup(cuda)) return hip;
  std::string base = cuda;
  for (;;) {
    size_t cut = base.rfind('_');
    if (cut == std::string::npos) break;
    const std::string tail = base.substr(cut + 1);
    const bool version = tail.size() > 1 && tail[0] == 'v' &&
                         tail.find_first_not_of("0123456789", 1) == std::string::npos;
    if (!version && tail != "ptsz" && tail != "ptds") break;
    base.resize(cut);
    if (const char* hip = hip_lookup(base.c_str())) return hip;
  }
  if (base.rfind("__cuda", 0) == 0) return "__hip" + base.substr(6);
  return base;
}

bool enqueues_work(const char* name) {
  return strstr(name, "Launch") != nullptr || strstr(name, "Memcpy") != nullptr ||
         strstr(name, "Memset") != nullptr;
}

}  // namespace

#endif  // HIPKIT_CUPTI_HIP_NAMES_H
