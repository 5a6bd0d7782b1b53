// The CUPTI injection library with one more entry point, for tests on
// machines without a GPU: the HIP name it gives a CUDA function.
#include <string>

#include "cupti_inject.cpp"

extern "C" __attribute__((visibility("default"))) const char* hk_test_hip_name(const char* cuda) {
  static thread_local std::string name;
  name = hip_name(cuda);
  return name.c_str();
}
